"""The scenarios of the second half of Karpenter v1.13.0's `pkg/controllers/disruption/consolidation_test.go`
("Delete", "Multi-NodeClaim", "Node Lifetime Consideration", "Topology Consideration", "Parallelization",
"Preferences", "MinValuesPolicy", "Static NodePool", and what one pass can say of "TTL") as one disruption
pass each over files typed with the AWS data's instance types (t3.large the cheapest amd64 type of the
NodePools here, m5.xlarge the expensive one). Each expectation is the Go test's assertion, checked against
the vendored code (consolidation.go, multinodeconsolidation.go, singlenodeconsolidation.go, helpers.go,
types.go, the provisioning scheduler) on these inputs: which method acts, on which nodes, with which
replacement, and the events each simulation publishes."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT

# the Karpenter yardsticks' AWS data (the bundled default data prices the types otherwise)
SHARED_AWS = ROOT.parent / "shared" / "karpenter" / "aws"
pytestmark = pytest.mark.skipif(not SHARED_AWS.is_dir(), reason=f"{SHARED_AWS} is not present (a clone outside "
                                "the project's workspace)")
DND = {"karpenter.sh/do-not-disrupt": "true"}
RESOURCES = {"t3.large": ({"cpu": "2", "memory": "7577Mi", "pods": "35"}, {"cpu": "1930m", "memory": "6837Mi", "pods": "35"}),
             "m5.xlarge": ({"cpu": "4", "memory": "15155Mi", "pods": "58"},
                           {"cpu": "3920m", "memory": "14162Mi", "pods": "58"})}
CHEAPER = ["t3.large", "m7i-flex.large", "m5.large"]        # the types cheaper than an m5.xlarge, by price


def name_of(i: int) -> str:
    return f"ip-10-0-1-{i}.ec2.internal"


def managed(i: int, itype: str = "t3.large", *, zone: str = "test-zone-1a", ct: str = "on-demand",
            pool: str = "default", initialized: bool = True, created: str = "2026-01-01T09:00:00Z",
            node_meta: dict | None = None, claim_meta: dict | None = None, claim_spec: dict | None = None,
            node_labels: dict | None = None) -> list[dict]:
    """A registered Karpenter node and its NodeClaim (Consolidatable), initialized unless told."""
    family, size = itype.split(".")
    labels = {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": itype,
              "topology.kubernetes.io/zone": zone, "karpenter.k8s.aws/instance-family": family,
              "karpenter.k8s.aws/instance-size": size, "karpenter.sh/capacity-type": ct, "karpenter.sh/nodepool": pool,
              "karpenter.sh/registered": "true", "karpenter.k8s.aws/ec2nodeclass": "default",
              **({"karpenter.sh/initialized": "true"} if initialized else {})}
    capacity, allocatable = RESOURCES[itype]
    pid = f"aws:///{zone}/i-{i:017d}"
    kinds = ["Launched", "Registered", *(["Initialized"] if initialized else []), "Consolidatable"]
    return [{"apiVersion": "v1", "kind": "Node",
             "metadata": {"name": name_of(i), "labels": {**labels, "kubernetes.io/hostname": name_of(i),
                                                          **(node_labels or {})},
                          "creationTimestamp": created, **(node_meta or {})},
             "spec": {"providerID": pid},
             "status": {"capacity": capacity, "allocatable": allocatable,
                        "conditions": [{"type": "Ready", "status": "True"}]}},
            {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
             "metadata": {"name": f"{pool}-n{i:03d}", "labels": labels, "creationTimestamp": created, **(claim_meta or {})},
             "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                      "requirements": [], "expireAfter": "720h", **(claim_spec or {})},
             "status": {"providerID": pid, "nodeName": name_of(i), "capacity": capacity, "allocatable": allocatable,
                        "conditions": [{"type": t, "status": "True", "reason": t,
                                        "lastTransitionTime": "2026-01-01T10:00:00Z"} for t in kinds]}}]


def pod(name: str, i: int | None, *, cpu: str = "100m", labels: dict | None = None, annotations: dict | None = None,
        owned: bool = True, spec: dict | None = None, start: str = "2026-01-01T11:00:00Z") -> dict:
    """A ReplicaSet's pod bound to node `i` (None: pending)."""
    meta: dict[str, Any] = {"name": name, "namespace": "default", "labels": {"app": "web"} if labels is None else labels,
                            "annotations": annotations or {}}
    if owned:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                    "uid": "00000000-0000-4000-8000-000000000001", "controller": True}]
    body = {"containers": [{"name": "c", "image": "app", "resources": {"requests": {"cpu": cpu}}}], **(spec or {})}
    if i is None:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body,
                "status": {"phase": "Pending",
                           "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {**body, "nodeName": name_of(i)},
            "status": {"phase": "Running", "startTime": start}}


def node_pool(name: str = "default", *, capacity_types: tuple[str, ...] = ("on-demand",),
              families: tuple[str, ...] | None = ("m5", "t3", "m7i-flex"), extra: list | None = None,
              spec: dict | None = None) -> dict:
    reqs = [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
            {"key": "karpenter.sh/capacity-type", "operator": "In", "values": list(capacity_types)},
            *([{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": list(families)}] if families else []),
            *(extra or [])]
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"template": {"spec": {"requirements": reqs, "expireAfter": "720h",
                                           "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                            "name": "default"}}},
                     "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s",
                                    "budgets": [{"nodes": "100%"}]}, **(spec or {})}}


NODE_CLASS = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
              "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole",
                       "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}],
                       "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}]}}


def document(tmp_path: Path, objects: list[dict], pools: list[dict] | None = None, *,
             pending: list[dict] | None = None, params: dict | None = None) -> dict:
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(objects))
    (tmp_path / "nodepools.yaml").write_text(yaml.safe_dump_all([*(pools or [node_pool()]), NODE_CLASS]))
    args = ["karpenter", "--disruption"]
    if pending:
        (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(pending))
        args.append(str(tmp_path / "pods.yaml"))
    args += ["--nodes", str(tmp_path / "cluster.yaml"), "--nodes", str(tmp_path / "nodepools.yaml"),
             "--aws-data", str(SHARED_AWS), "--now", "2026-01-01T12:00:00Z", "-o", "json"]
    if params:
        (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
        args += ["--karpenter-config", str(tmp_path / "params.yaml")]
    env = TestEnvironment()
    code = main(args, env)
    assert code == 0, env.out + env.err
    return json.loads(env.out)


def method(doc: dict, name: str) -> dict:
    return next(m for m in doc["methods"] if m["method"] == name)


def acted(doc: dict) -> tuple[str | None, str | None, list[str]]:
    """The command Reconcile starts: (method, decision, candidate nodes)."""
    decision = doc["decision"]
    if decision is None:
        return None, None, []
    cmd, = decision["commands"]
    return decision["method"], cmd["decision"], [c["node"] for c in cmd["candidates"]]


def messages(doc: dict, reason: str) -> dict[str, str]:
    return {e["object"]: e["message"] for e in doc["events"] if e["reason"] == reason}


def node(doc: dict, i: int) -> dict:
    return next(n for n in doc["nodes"] if n["node"] == name_of(i))


def two_nodes(**second: Any) -> list[dict]:
    """Delete's setup: two cheapest nodes, two pods on the first, one on the second."""
    return [*managed(1), *managed(2, **second), pod("web-0", 1), pod("web-1", 1)]


# -- Delete ------------------------------------------------------------------------------------------

def test_can_delete_nodes_the_one_with_fewest_pods(tmp_path):
    """"can delete nodes" (and "if another nodePool has no node template", "evicts pods without an
    ownerRef"): multi-node's 2-node replacement is published, then filterOutSameInstanceType leaves it no
    type; single-node deletes the node with one pod."""
    for owned in (True, False):
        doc = document(tmp_path, [*two_nodes(), pod("web-2", 2, owned=owned)])
        assert acted(doc) == ("SingleNodeConsolidation", "delete", [name_of(2)])
        assert method(doc, "MultiNodeConsolidation")["outcome"] == "NoCommand"
        assert messages(doc, "ConsolidationCandidate")[f"Node {name_of(2)}"] == (
            f"Consolidation candidate: replace: [{name_of(2)}] (part of 2-node consolidation) (savings: $0.08)")
        cmd, = doc["decision"]["commands"]
        assert cmd["existingNodes"] == [{"node": name_of(1), "nodeClaim": "default-n001", "pods": ["default/web-2"]}]


def test_can_delete_nodes_when_non_karpenter_capacity_fits_the_pods(tmp_path):
    unmanaged = {"apiVersion": "v1", "kind": "Node",
                 "metadata": {"name": name_of(2), "labels": {"kubernetes.io/hostname": name_of(2)}},
                 "spec": {"providerID": "aws:///test-zone-1a/i-2"},
                 "status": {"allocatable": {"cpu": "32", "pods": "100"}, "conditions": [{"type": "Ready", "status": "True"}]}}
    doc = document(tmp_path, [*managed(1), unmanaged, pod("web-0", 1), pod("web-1", 1), pod("web-2", 1)])
    assert acted(doc) == ("SingleNodeConsolidation", "delete", [name_of(1)])
    assert node(doc, 2)["error"] == "node isn't managed by karpenter"


@pytest.mark.parametrize("second,blocked", [
    ({"node_meta": {"annotations": DND}, "claim_meta": {"annotations": DND}},
     'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation'),
    ({"pod": {"annotations": DND}}, 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/web-2)'),
    ({"pod": {"annotations": {"karpenter.sh/do-not-disrupt": "2m"}, "start": "2026-01-01T12:00:00Z"}},
     'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/web-2)'),
    ({"pod": {"labels": {"app": "pdb"}}, "pdb": True}, "Pdb prevents pod evictions (PodDisruptionBudget=[default/p])"),
])
def test_delete_takes_the_node_without_a_blocker(tmp_path, second, blocked):
    """"considers PDB", "do-not-disrupt set to true on nodes / on pods", "a duration-based do-not-disrupt
    annotation that is still active": the blocked node is no candidate, the other one goes."""
    second = dict(second)
    objects = [*two_nodes(**{k: v for k, v in second.items() if k not in ("pod", "pdb")}),
               pod("web-2", 2, **second.get("pod", {}))]
    if second.get("pdb"):
        objects.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                        "metadata": {"name": "p", "namespace": "default"},
                        "spec": {"selector": {"matchLabels": {"app": "pdb"}}, "maxUnavailable": 0},
                        "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}})
    doc = document(tmp_path, objects)
    assert acted(doc) == ("SingleNodeConsolidation", "delete", [name_of(1)])
    assert messages(doc, "DisruptionBlocked") == {f"Node {name_of(2)}": blocked, "NodeClaim default-n002": blocked}


def test_termination_grace_period_does_not_lift_graceful_blockers(tmp_path):
    """"does not consolidate nodes with do-not-disrupt pods / blocking PDBs when the TerminationGracePeriod
    is not nil": consolidation is graceful, so both still block (a PDB without status allows nothing)."""
    tgp = {"claim_spec": {"terminationGracePeriod": "300s"}}
    dnd = document(tmp_path, [*managed(1, **tgp), *managed(2, **tgp), pod("web-0", 1, annotations=DND),
                              pod("web-1", 1, annotations=DND), pod("web-2", 2, annotations=DND)])
    pdb = document(tmp_path, [*managed(1, **tgp), *managed(2, **tgp), pod("web-0", 1), pod("web-1", 1), pod("web-2", 2),
                              {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                               "metadata": {"name": "p", "namespace": "default"},
                               "spec": {"selector": {"matchLabels": {"app": "web"}}, "maxUnavailable": 0}}])
    for doc in (dnd, pdb):
        assert acted(doc) == (None, None, [])
        assert doc["summary"]["candidates"] == 0 and doc["summary"]["blocked"] == 2


@pytest.mark.parametrize("annotation,start,event", [
    ("invalid-format", "2026-01-01T11:00:00Z", "InvalidDoNotDisruptAnnotation"),
    ("2m", "2026-01-01T11:57:00Z", "DoNotDisruptGracePeriodElapsed"),
])
def test_expired_or_invalid_do_not_disrupt_does_not_block(tmp_path, annotation, start, event):
    """"considers invalid do-not-disrupt annotation format as not blocking", "can consolidate nodes after
    duration-based do-not-disrupt annotation expires"."""
    ann = {"karpenter.sh/do-not-disrupt": annotation}
    doc = document(tmp_path, [*managed(1), *managed(2), pod("web-0", 1, annotations=ann, start=start),
                              pod("web-1", 1, annotations=ann, start=start), pod("web-2", 2, annotations=ann, start=start)])
    assert acted(doc) == ("SingleNodeConsolidation", "delete", [name_of(2)])
    assert "Pod default/web-2" in {e["object"] for e in doc["events"] if e["reason"] == event}


def test_wont_delete_a_node_whose_pods_would_land_on_an_uninitialized_node(tmp_path):
    doc = document(tmp_path, [*managed(1, initialized=False), *managed(2), pod("web-0", 1), pod("web-1", 1),
                              pod("web-2", 2)])
    assert acted(doc) == (None, None, [])
    assert messages(doc, "Unconsolidatable")[f"Node {name_of(2)}"].startswith(
        "Not all pods would schedule, default/web-2 => would schedule against uninitialized "
        f"nodeclaim/default-n001, node/{name_of(1)}")


def test_initialized_nodes_are_considered_before_uninitialized_ones(tmp_path):
    """"should consider initialized nodes before uninitialized nodes": the only node with room for the
    small node's pod that is initialized takes it; no uninitialized-node error."""
    objects = []
    for i in range(1, 8):
        objects += [*managed(i, "m5.xlarge", initialized=i == 4), pod(f"big-{i}", i, cpu="2900m")]
    doc = document(tmp_path, [*objects, *managed(9), pod("small", 9, cpu="1")])
    assert acted(doc) == ("SingleNodeConsolidation", "delete", [name_of(9)])
    cmd, = doc["decision"]["commands"]
    assert cmd["existingNodes"] == [{"node": name_of(4), "nodeClaim": "default-n004", "pods": ["default/small"]}]
    assert not any("uninitialized" in e["message"] for e in doc["events"])


def test_permanently_pending_pods_do_not_stop_a_delete_and_non_pending_pods_must_not_go_pending(tmp_path):
    pending = pod("pending", None, owned=False, spec={"nodeSelector": {"non-existent": "node-label"}})
    doc = document(tmp_path, [*two_nodes(), pod("web-2", 2)], pending=[pending])
    assert acted(doc) == ("SingleNodeConsolidation", "delete", [name_of(2)])
    pinned = [*managed(1, node_labels={"foo": "1"}), *managed(2, node_labels={"foo": "2"}),
              *(pod(f"web-{k}", i, spec={"nodeSelector": {"foo": str(i)}}) for k, i in ((0, 1), (1, 1), (2, 2)))]
    doc = document(tmp_path, pinned)
    assert acted(doc) == (None, None, [])
    assert messages(doc, "Unconsolidatable")[f"Node {name_of(2)}"] == (
        'Not all pods would schedule, default/web-2 => incompatible requirements, label "foo" does not have known values ')


def test_an_invalid_node_pool_does_not_stop_disruption(tmp_path):
    bad = node_pool("bad-nodepool", families=None)
    bad["spec"]["template"]["spec"]["nodeClassRef"]["name"] = "non-existent"
    doc = document(tmp_path, [*two_nodes(), pod("web-2", 2)], [node_pool(), bad])
    assert acted(doc) == ("SingleNodeConsolidation", "delete", [name_of(2)])
    assert method(doc, "SingleNodeConsolidation")["budgets"] == {"bad-nodepool": 0, "default": 2}


# -- Multi-NodeClaim ---------------------------------------------------------------------------------

@pytest.mark.parametrize("capacity_types", [("on-demand",) * 3, ("spot",) * 3, ("on-demand", "on-demand", "spot")])
def test_can_merge_3_nodes_into_1(tmp_path, capacity_types):
    """"can merge 3 nodes into 1" (on-demand, spot with SpotToSpotConsolidation, both): the 2-node batch
    deletes (its pods fit the third node), the 3-node batch replaces; the replacement is restricted to spot
    (the NodePool allows both), a multi-node spot replacement needs no 15 types."""
    objects = [x for k, ct in enumerate(capacity_types, 1)
               for x in managed(k, "m5.xlarge", ct=ct, created=f"2026-01-01T09:{k}0:00Z")]
    doc = document(tmp_path, [*objects, pod("web-0", 1), pod("web-1", 2), pod("web-2", 3)],
                   [node_pool(capacity_types=("on-demand", "spot"))],
                   params={"featureGates": "SpotToSpotConsolidation=true"})
    assert acted(doc) == ("MultiNodeConsolidation", "replace", [name_of(1), name_of(2), name_of(3)])
    cmd, = doc["decision"]["commands"]
    replacement, = cmd["replacements"]
    assert (replacement["instanceTypes"], replacement["capacityTypes"], cmd["estimatedSavings"]) == (
        CHEAPER, ["spot"], "0.4928")
    assert method(doc, "MultiNodeConsolidation")["published"] == {"ConsolidationCandidate": 6}


def test_spot_multi_node_without_the_gate_keeps_the_delete_batch(tmp_path):
    """computeSpotToSpotConsolidation refuses the 3-node spot batch silently (more than one candidate):
    the binary search keeps the 2-node delete."""
    objects = [x for k in (1, 2, 3) for x in managed(k, "m5.xlarge", ct="spot", created=f"2026-01-01T09:{k}0:00Z")]
    doc = document(tmp_path, [*objects, pod("web-0", 1), pod("web-1", 2), pod("web-2", 3)],
                   [node_pool(capacity_types=("on-demand", "spot"))])
    assert acted(doc) == ("MultiNodeConsolidation", "delete", [name_of(1), name_of(2)])
    assert not doc["events"]


@pytest.mark.parametrize("capacity_type", ["on-demand", "spot"])
def test_wont_merge_2_nodes_into_1_of_the_same_type(tmp_path, capacity_type):
    doc = document(tmp_path, [*managed(1, ct=capacity_type), *managed(2, ct=capacity_type), pod("web-0", 1),
                              pod("web-1", 2), pod("web-2", 2)],
                   [node_pool(capacity_types=("on-demand", "spot"))],
                   params={"featureGates": "SpotToSpotConsolidation=true"})
    assert acted(doc) == ("SingleNodeConsolidation", "delete", [name_of(1)])


def test_multi_node_takes_at_most_101_candidates(tmp_path):
    """maxParallel clamps to 100 and the binary search's last batch is candidates[0:max+1]."""
    objects = [x for i in range(1, 106)
               for x in (*managed(i, "m5.xlarge", created=f"2026-01-01T0{i // 60}:{i % 60:02d}:00Z"), pod(f"w-{i}", i))]
    doc = document(tmp_path, objects)
    m, decision, nodes = acted(doc)
    assert (m, decision, len(nodes)) == ("MultiNodeConsolidation", "delete", 101)
    assert name_of(105) not in nodes


# -- Node Lifetime, Topology, Parallelization ------------------------------------------------------------

def test_node_lifetime_remaining_lowers_the_disruption_cost(tmp_path):
    expire = {"expireAfter": "30s"}
    doc = document(tmp_path, [*managed(1, created="2026-01-01T11:59:40Z", claim_spec=expire),
                              *managed(2, created="2026-01-01T11:59:59Z", claim_spec=expire),
                              pod("web-0", 1), pod("web-1", 1), pod("web-2", 2)])
    assert (node(doc, 1)["disruptionCost"], node(doc, 2)["disruptionCost"]) == (0.666667, 0.966667)
    assert acted(doc) == ("SingleNodeConsolidation", "delete", [name_of(1)])


def test_replace_keeps_the_zonal_topology_spread(tmp_path):
    labels = {"app": "test-zonal-spread"}
    spread = {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                             "whenUnsatisfiable": "DoNotSchedule",
                                             "labelSelector": {"matchLabels": labels}}]}
    objects = [*managed(1, zone="test-zone-1a"), *managed(2, "m5.xlarge", zone="test-zone-1b"),
               *managed(3, zone="test-zone-1c"),
               *(pod(f"z-{i}", i, cpu="1", labels=labels, spec=spread) for i in (1, 2, 3))]
    doc = document(tmp_path, objects)
    assert acted(doc) == ("SingleNodeConsolidation", "replace", [name_of(2)])
    replacement, = doc["decision"]["commands"][0]["replacements"]
    assert (replacement["zones"], replacement["instanceTypes"]) == (["test-zone-1b"], ["t3.large", "m5.large"])
    assert messages(doc, "Unconsolidatable") == {f"Node {name_of(1)}": "Can't replace with a cheaper node",
                                                 "NodeClaim default-n001": "Can't replace with a cheaper node"}


def test_wont_delete_a_node_against_pod_anti_affinity(tmp_path):
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}}
    objects = [*managed(1, zone="test-zone-1a"), *managed(2, zone="test-zone-1b"), *managed(3, zone="test-zone-1a"),
               *(pod(f"a-{i}", i, cpu="1", spec=anti) for i in (1, 2, 3))]
    doc = document(tmp_path, objects)
    assert acted(doc) == (None, None, [])
    assert set(messages(doc, "Unconsolidatable").values()) == {"Can't replace with a cheaper node"}


def test_the_pods_of_a_deleting_node_are_scheduled_with_the_candidate(tmp_path):
    """"should not consolidate a node that is launched for pods on a deleting node": the deleting node's
    pods join every simulation, so the new node's pods and theirs need more than a cheaper type."""
    deleting = {"deletionTimestamp": "2026-01-01T11:59:00Z", "finalizers": ["karpenter.sh/termination"]}
    doc = document(tmp_path, [*managed(1, "m5.xlarge", claim_meta=deleting), *managed(2, "m5.xlarge"),
                              *(pod(f"p-{k}", 1, cpu="1") for k in range(3)), pod("n-0", 2, cpu="1"),
                              pod("n-1", 2, cpu="1")])
    assert acted(doc) == (None, None, [])
    assert node(doc, 1)["error"] == "node is deleting or marked for deletion"
    assert messages(doc, "Unconsolidatable")[f"Node {name_of(2)}"] == "Can't replace with a cheaper node"


def test_a_node_a_pending_pod_would_use_is_no_candidate(tmp_path):
    """TTL's "should not consolidate if the action becomes invalid": over files the pending pod is
    scheduled first (step 2) and nominates the empty node."""
    pending = pod("pending", None, owned=False, labels={}, annotations=DND)
    doc = document(tmp_path, managed(1, "m5.xlarge"), pending=[pending])
    assert doc["nominatedNodes"] == [name_of(1)]
    assert acted(doc) == (None, None, [])
    assert node(doc, 1)["error"] == "node is nominated for a pending pod"


# -- Preferences, MinValuesPolicy, Static NodePool -------------------------------------------------------

def test_ignored_preferences_let_a_node_go(tmp_path):
    anti = {"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                          "labelSelector": {"matchLabels": {"app": "foo"}}}}]}}}
    foo = {"labels": {"app": "foo"}, "owned": False, "spec": anti}
    objects = [*managed(1), *managed(2), pod("f-0", 1, **foo), pod("f-1", 1, **foo), pod("f-2", 2, **foo)]
    assert acted(document(tmp_path, objects, params={"preferencePolicy": "Ignore"})) == (
        "SingleNodeConsolidation", "delete", [name_of(2)])
    assert acted(document(tmp_path, objects)) == (None, None, [])
    prefer = {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {
        "matchExpressions": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.xlarge"]}]}}]}}}
    objects = [*managed(1, "m5.xlarge"), pod("foo", 1, owned=False, labels={"app": "foo"}, spec=prefer)]
    doc = document(tmp_path, objects, params={"preferencePolicy": "Ignore"})
    assert acted(doc) == ("SingleNodeConsolidation", "replace", [name_of(1)])
    assert "m5.xlarge" not in doc["decision"]["commands"][0]["replacements"][0]["instanceTypes"]
    assert acted(document(tmp_path, objects)) == (None, None, [])


def test_best_effort_min_values_do_not_relax_a_consolidation(tmp_path):
    pool = node_pool("minvalues", families=None, extra=[{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                                         "values": ["t3.large", "m5.xlarge", "m5.large"], "minValues": 3}])
    doc = document(tmp_path, [*managed(1, "m5.xlarge", pool="minvalues"), pod("p", 1)], [pool],
                   params={"minValuesPolicy": "BestEffort", "instanceTypes": ["t3.large", "m5.xlarge"]})
    assert acted(doc) == (None, None, [])
    text = ("Filtering by price: minValues requirement is not met for label(s) "
            "(label(s)=[node.kubernetes.io/instance-type])")
    assert messages(doc, "Unconsolidatable") == {f"Node {name_of(1)}": text, "NodeClaim minvalues-n001": text}


def test_static_node_pool_nodes_are_not_consolidated(tmp_path):
    pool = node_pool("static", spec={"replicas": 2})
    doc = document(tmp_path, [*managed(1, "m5.xlarge", pool="static"), *managed(2, "m5.xlarge", pool="static"),
                              pod("p", 1)], [pool])
    assert acted(doc) == (None, None, [])
    assert all(m["outcome"] == "NoCandidates" for m in doc["methods"])
    assert not doc["events"]


def test_a_deleting_nodes_pod_that_fits_nowhere_blocks_every_consolidation(tmp_path):
    """The deleting node's pods are bound, so not provisionable: NonPendingPodSchedulingErrors counts
    them, and each single-node simulation says so."""
    deleting = {"deletionTimestamp": "2026-01-01T11:59:00Z", "finalizers": ["karpenter.sh/termination"]}
    doc = document(tmp_path, [*managed(2), *managed(3, "m5.xlarge"), pod("c", 2, cpu="1"), pod("fill", 3, cpu="2500m"),
                              *managed(4, "m5.xlarge", claim_meta=deleting),
                              pod("d", 4, spec={"nodeSelector": {"nope": "x"}})])
    assert acted(doc) == (None, None, [])
    text = 'Not all pods would schedule, default/d => incompatible requirements, label "nope" does not have known values '
    assert {k: v for k, v in messages(doc, "Unconsolidatable").items() if k.startswith("Node ")} == {
        f"Node {name_of(2)}": text, f"Node {name_of(3)}": text}


def test_a_node_of_a_node_pool_without_its_node_class_is_blocked(tmp_path):
    """BuildNodePoolMap keeps no instance types for a NodePool whose EC2NodeClass is missing: its nodes
    are 'NodePool not found'; its budget still counts them; the other pool's node goes."""
    bad = node_pool("bad")
    bad["spec"]["template"]["spec"]["nodeClassRef"]["name"] = "non-existent"
    doc = document(tmp_path, [*managed(1, pool="bad"), *managed(2), pod("a", 1), pod("b", 2)], [node_pool(), bad])
    assert messages(doc, "DisruptionBlocked")[f"Node {name_of(1)}"] == "NodePool not found (NodePool=bad)"
    assert method(doc, "SingleNodeConsolidation")["budgets"] == {"bad": 1, "default": 1}
    assert acted(doc) == ("SingleNodeConsolidation", "delete", [name_of(2)])

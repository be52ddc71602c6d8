"""The scenarios of Karpenter v1.13.0's own disruption suite (`pkg/controllers/disruption/suite_test.go`:
"Candidate Filtering", "BuildDisruptionBudgetMapping", "Pod Eviction Cost", "Simulate Scheduling") as
one disruption pass each over files: every node's NewCandidate verdict in Karpenter's words, the
budgets' node counts, the eviction costs' order and the uninitialized node a simulation must not
count on. Each expectation is the Go test's assertion, checked against the vendored code (types.go
NewCandidate, state.StateNode, utils/pod, utils/pdb, helpers.go) on these AWS-typed inputs."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment

DND = {"karpenter.sh/do-not-disrupt": "true"}
DELETING = {"deletionTimestamp": "2026-01-01T11:59:00Z", "finalizers": ["karpenter.sh/termination"]}


def node_pool(name: str, budget: str) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"template": {"spec": {
                "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}],
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "expireAfter": "720h"}},
                "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s",
                               "budgets": [{"nodes": budget}]}}}


NODE_CLASS = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
              "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole",
                       "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}],
                       "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}]}}


def name_of(i: int) -> str:
    return f"ip-10-0-1-{i}.ec2.internal"


def managed(i: int, pool: str = "default", *, node: bool = True, claim: bool = True, drop: tuple[str, ...] = (),
            conditions: tuple[str, ...] = (), **extra: Any) -> list[dict]:
    """An m5.xlarge Karpenter node and its NodeClaim (registered, initialized); `drop`: labels left out;
    `conditions`: more True conditions on the NodeClaim; `extra`: node_meta, claim_meta, claim_spec,
    ready."""
    labels = {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "node.kubernetes.io/instance-type": "m5.xlarge",
              "topology.kubernetes.io/zone": "test-zone-1a", "karpenter.sh/capacity-type": "on-demand",
              "karpenter.sh/nodepool": pool, "karpenter.sh/registered": "true", "karpenter.sh/initialized": "true",
              "karpenter.k8s.aws/ec2nodeclass": "default"}
    labels = {k: v for k, v in labels.items() if k not in drop}
    pid = f"aws:///test-zone-1a/i-{i:017d}"
    status = {"capacity": {"cpu": "4", "memory": "15155Mi", "pods": "58"},
              "allocatable": {"cpu": "3920m", "memory": "14162Mi", "pods": "58"}}
    out = []
    if node:
        ready = "True" if extra.get("ready", True) else "False"
        out.append({"apiVersion": "v1", "kind": "Node",
                    "metadata": {"name": name_of(i), "labels": {**labels, "kubernetes.io/hostname": name_of(i)},
                                 **extra.get("node_meta", {})},
                    "spec": {"providerID": pid}, "status": {**status, "conditions": [{"type": "Ready", "status": ready}]}})
    if claim:
        kinds = ("Launched", "Registered", *(("Initialized",) if "karpenter.sh/initialized" in labels else ()),
                 *conditions)
        out.append({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
                    "metadata": {"name": f"{pool}-n{i:03d}", "labels": labels,
                                 "creationTimestamp": "2026-01-01T09:00:00Z", **extra.get("claim_meta", {})},
                    "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                             "requirements": [], "expireAfter": "720h", **extra.get("claim_spec", {})},
                    "status": {"providerID": pid, **({"nodeName": name_of(i)} if node else {}), **status,
                               "conditions": [{"type": t, "status": "True", "reason": t,
                                               "lastTransitionTime": "2026-01-01T10:00:00Z"} for t in kinds]}})
    return out


def pod(name: str, i: int, *, owner: str = "ReplicaSet", annotations: dict | None = None, phase: str = "Running",
        cpu: str = "100m", meta: dict | None = None) -> dict:
    uid = {"ReplicaSet": "00000000-0000-4000-8000-000000000001", "DaemonSet": "00000000-0000-4000-8000-000000000002",
           "Node": "00000000-0000-4000-8000-000000000003"}[owner]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"app": name},
                         "annotations": annotations or {}, **(meta or {}),
                         "ownerReferences": [{"apiVersion": "v1" if owner == "Node" else "apps/v1", "kind": owner,
                                              "name": name_of(i) if owner == "Node" else "owner", "uid": uid,
                                              "controller": True}]},
            "spec": {"nodeName": name_of(i),
                     "containers": [{"name": "c", "image": "app", "resources": {"requests": {"cpu": cpu}}}]},
            "status": {"phase": phase, "startTime": "2026-01-01T11:00:00Z"}}


def blocking_pdb(name: str, *apps: str) -> dict:
    selector = {"matchExpressions": [{"key": "app", "operator": "In", "values": list(apps)}]}
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": selector, "maxUnavailable": 0},
            "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}


def document(tmp_path: Path, objects: list[dict], pools: list[dict]) -> dict:
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(objects))
    (tmp_path / "nodepools.yaml").write_text(yaml.safe_dump_all([*pools, NODE_CLASS]))
    env = TestEnvironment()
    code = main(["karpenter", "--disruption", "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                 str(tmp_path / "nodepools.yaml"), "--now", "2026-01-01T12:00:00Z", "-o", "json"], env)
    assert code == 0, env.out
    return json.loads(env.out)


DAEMON_SET = {"apiVersion": "apps/v1", "kind": "DaemonSet",
              "metadata": {"name": "owner", "namespace": "default", "uid": "00000000-0000-4000-8000-000000000002"},
              "spec": {"selector": {"matchLabels": {"app": "ds"}},
                       "template": {"metadata": {"labels": {"app": "ds"}},
                                    "spec": {"containers": [{"name": "c", "image": "x"}]}}}}


def test_candidate_filtering_in_karpenters_words(tmp_path):
    objects = [
        DAEMON_SET,
        *managed(1), pod("dnd", 1, annotations=DND),
        *managed(2), pod("dnd-mirror", 2, owner="Node", annotations=DND),
        *managed(3), pod("dnd-daemon", 3, owner="DaemonSet", annotations=DND),
        *managed(4), pod("dnd-terminating", 4, annotations=DND, meta={"deletionTimestamp": "2026-01-01T11:59:50Z",
                                                                         "finalizers": ["example.com/hold"]}),
        *managed(5), pod("dnd-succeeded", 5, annotations=DND, phase="Succeeded"),
        pod("dnd-failed", 5, annotations=DND, phase="Failed"),
        *managed(6, node_meta={"annotations": DND}),
        *managed(7, claim_meta={"annotations": DND}),      # a registered node's annotations are the Node's
        *managed(8), pod("two-budgets", 8), blocking_pdb("pdb-a", "two-budgets"), blocking_pdb("pdb-b", "two-budgets"),
        *managed(9), pod("pdb-daemon", 9, owner="DaemonSet"), blocking_pdb("pdb-ds", "pdb-daemon"),
        *managed(10), pod("pdb-mirror", 10, owner="Node"), blocking_pdb("pdb-mirror", "pdb-mirror"),
        *managed(11), pod("pdb-succeeded", 11, phase="Succeeded"), pod("pdb-failed", 11, phase="Failed"),
        blocking_pdb("pdb-terminal", "pdb-succeeded", "pdb-failed"),
        *managed(12), pod("pdb-terminating", 12, meta={"deletionTimestamp": "2026-01-01T11:59:50Z",
                                                        "finalizers": ["example.com/hold"]}),
        blocking_pdb("pdb-terminating", "pdb-terminating"),
        *managed(13, claim_spec={"terminationGracePeriod": "300s"}), pod("dnd-bounded", 13, annotations=DND),
        *managed(14, claim_spec={"terminationGracePeriod": "300s"}), pod("pdb-bounded", 14),
        blocking_pdb("pdb-bounded", "pdb-bounded"),
        *managed(15, claim=False),
        *managed(16, node=False),
        *managed(17, claim_meta=DELETING),
        *managed(18, conditions=("InstanceTerminating",)),
        *managed(19, drop=("karpenter.sh/initialized",)),
        *managed(20, drop=("karpenter.sh/nodepool",)),
        *managed(21, pool="gone"),
        *managed(22, drop=("karpenter.sh/capacity-type",)),
        *managed(23, drop=("topology.kubernetes.io/zone",)),
        *managed(24, drop=("node.kubernetes.io/instance-type",)),
    ]
    doc = document(tmp_path, objects, [node_pool("default", "100%")])
    nodes = {n["node"]: n for n in doc["nodes"]}
    dnd = 'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/{})'
    deleting = "node is deleting or marked for deletion"
    refused = {
        1: dnd.format("dnd"), 2: dnd.format("dnd-mirror"), 3: dnd.format("dnd-daemon"),
        6: 'disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
        8: "eviction does not support multiple PDBs (PodDisruptionBudget(s)=[default/pdb-a default/pdb-b])",
        9: "pdb prevents pod evictions (PodDisruptionBudget=[default/pdb-ds])",
        13: dnd.format("dnd-bounded"), 14: "pdb prevents pod evictions (PodDisruptionBudget=[default/pdb-bounded])",
        15: "node isn't managed by karpenter", 17: deleting, 18: deleting, 19: "node isn't initialized",
        20: "node doesn't have required label (label=karpenter.sh/nodepool)", 21: "nodepool not found (NodePool=gone)",
    }
    for i, text in refused.items():
        n = nodes[name_of(i)]
        assert (n["candidate"], n["error"]) == (False, text), i
    claim_only = nodes["default-n016"]         # StateNode.Name(): the NodeClaim's without a Node
    assert (claim_only["candidate"], claim_only["error"]) == (False, "nodeclaim does not have an associated node")
    for i in (4, 5, 7, 10, 11, 12, 22, 23, 24):
        assert nodes[name_of(i)]["candidate"] is True, i
    # the eventual class (Drift) takes a NodeClaim with a terminationGracePeriod despite its pods
    assert [nodes[name_of(i)].get("candidateEventual") for i in (1, 13, 14)] == [None, True, True]

    blocked = {(e["object"], e["message"]) for e in doc["events"] if e["reason"] == "DisruptionBlocked"}
    assert ("Node " + name_of(21), "NodePool not found (NodePool=gone)") in blocked
    assert ("NodeClaim default-n016", "Nodeclaim does not have an associated node") in blocked
    assert not any(name_of(15) in obj or name_of(16) in obj for obj, _ in blocked)   # no Node, no event for it
    assert ("Node " + name_of(8), "Eviction does not support multiple PDBs "
            "(PodDisruptionBudget(s)=[default/pdb-a default/pdb-b])") in blocked
    unconsolidatable = {(e["object"], e["message"]) for e in doc["events"] if e["reason"] == "Unconsolidatable"}
    assert unconsolidatable == {
        (f"{kind} {obj}", text)
        for i, claim, text in ((22, "default-n022", 'Node does not have label "karpenter.sh/capacity-type"'),
                               (23, "default-n023", 'Node does not have label "topology.kubernetes.io/zone"'),
                               (24, "default-n024", 'Instance Type "" not found'))
        for kind, obj in (("Node", name_of(i)), ("NodeClaim", claim))}


def test_the_budgets_count_managed_initialized_nodes_and_take_off_those_disrupting(tmp_path):
    objects = [*managed(1), *managed(2), *managed(3, ready=False), *managed(4, claim_meta=DELETING),
               *managed(5, drop=("karpenter.sh/initialized",)), *managed(6, conditions=("InstanceTerminating",)),
               *managed(7, claim=False),
               *managed(8, pool="tight"), *managed(9, pool="tight", claim_meta=DELETING),
               *managed(10, pool="drained", claim_meta=DELETING), *managed(11, pool="drained", claim_meta=DELETING)]
    doc = document(tmp_path, objects, [node_pool("default", "100%"), node_pool("tight", "10%"),
                                       node_pool("drained", "10%")])
    budgets = {b["nodePool"]: (b["nodes"], b["allowed"]["Empty"], b["reasons"]["Empty"]["disrupting"])
               for b in doc["budgets"]}
    # default: the unmanaged, the uninitialized and the terminating instance are not counted; the
    # NotReady node and the deleting one count and are taken off (4 - 2)
    assert budgets["default"] == (4, 2, 2)
    assert budgets["tight"] == (2, 0, 1)        # roundup(10% of 2) = 1, less the deleting node
    assert budgets["drained"] == (2, 0, 2)      # never below 0
    # the NodePool event only when the budgets themselves allow none (not here: 1 each)
    assert not [e for e in doc["events"] if e["object"].startswith("NodePool")]


def test_eviction_costs_follow_deletion_cost_and_priority(tmp_path):
    """EvictionCost: 1 + deletion cost / 2^27 + priority / 2^25, times the lifetime left (the document
    rounds to 6 places: the Go test's 100 and 1 are too small to show, these are not)."""
    classes = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": v}
               for name, v in (("high", 1000000), ("low", -1000000))]
    deletion_costs = {"costly": "2000000", "costly-less": "1000000", "cheap": "-1000000"}
    pods = [pod("plain", 1), *(pod(name, i, annotations={"controller.kubernetes.io/pod-deletion-cost": v})
                               for i, (name, v) in enumerate(deletion_costs.items(), 2)),
            pod("high", 5), pod("low", 6)]
    pods[4]["spec"]["priorityClassName"], pods[5]["spec"]["priorityClassName"] = "high", "low"
    objects = [*classes, *(obj for i in range(1, 7) for obj in managed(i)), *pods]
    doc = document(tmp_path, objects, [node_pool("default", "0")])
    cost = {n["node"]: n["disruptionCost"] for n in doc["nodes"]}
    lifetime = 1 - 3 / 720                      # created 3 h ago, expireAfter 720h
    want = [1.0, 1 + 2000000 / 2**27, 1 + 1000000 / 2**27, 1 - 1000000 / 2**27, 1 + 1000000 / 2**25,
            1 - 1000000 / 2**25]
    for i, w in enumerate(want, 1):
        assert abs(cost[name_of(i)] - w * lifetime) < 1e-6, i


def test_a_simulation_does_not_count_on_an_uninitialized_node_but_for_deleting_nodes_pods(tmp_path):
    drifted = ("Drifted",)
    objects = [*managed(1, conditions=drifted), pod("a", 1, cpu="1"),
               *managed(2, claim_meta=DELETING), pod("b", 2, cpu="1"),
               *managed(3, drop=("karpenter.sh/initialized",))]
    doc = document(tmp_path, objects, [node_pool("default", "100%")])
    drift = doc["methods"][2]
    assert (drift["method"], drift["outcome"]) == ("Drift", "NoCommand")
    message = ("Not all pods would schedule, default/a => would schedule against uninitialized "
               f"nodeclaim/default-n003, node/{name_of(3)} ")
    assert {(e["object"], e["message"]) for e in drift["events"] if e["reason"] == "DisruptionBlocked"} >= {
        ("Node " + name_of(1), message), ("NodeClaim default-n001", message)}

"""The scenarios of Karpenter v1.13.0's `pkg/controllers/disruption/emptiness_test.go` (and what one pass can
say of `singlenodeconsolidation_test.go`) as one disruption pass each over files typed with the AWS data's
instance types (t3.large nodes; an m5.metal for the large node of "considers pending pods"). Each expectation
is the Go test's assertion, checked against the vendored code on these inputs (emptiness.go's ShouldDisrupt
and ComputeCommands, consolidation.go's ShouldDisrupt, types.go's NewCandidate, state.StateNode's
ValidateNodeDisruptable and ValidatePodsDisruptable, utils/pod's IsReschedulable / IsDisruptable /
IsEvictable, utils/pdb, BuildDisruptionBudgetMapping, singlenodeconsolidation.go's SortCandidates).
Left out: metrics, the validation delay ("should wait for the node TTL"), the timeouts and the timed-out
NodePools single-node consolidation remembers between runs. Where Karpenter's choice among equal-cost
candidates is a Go map's order, only the count is asserted."""
from __future__ import annotations

import pytest

from tests.karpenter.test_disruption_consolidation_delete_multi import (DND, SHARED_AWS, acted, document, managed,
                                                                        messages, method, name_of, node, node_pool, pod)

pytestmark = pytest.mark.skipif(not SHARED_AWS.is_dir(), reason=f"{SHARED_AWS} is not present (a clone outside "
                                "the project's workspace)")
NON_EMPTY = 'NodePool "{}" has non-empty consolidation disabled'


def when_empty(name: str = "default", budget: str = "100%", after: str = "0s") -> dict:
    return node_pool(name, spec={"disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": after,
                                                "budgets": [{"nodes": budget}]}})


def owned(p: dict, kind: str, api: str = "apps/v1", name: str = "owner") -> dict:
    p["metadata"]["ownerReferences"] = [{"apiVersion": api, "kind": kind, "name": name, "controller": True,
                                         "uid": f"00000000-0000-4000-8000-{len(kind):012d}"}]
    return p


def terminating(p: dict) -> dict:
    p["metadata"].update(deletionTimestamp="2026-01-01T11:59:30Z", deletionGracePeriodSeconds=30, finalizers=["x/y"])
    return p


def phase(p: dict, value: str) -> dict:
    p["status"]["phase"] = value
    return p


def consolidatable(objects: list[dict], status: str | None) -> list[dict]:
    """The NodeClaim's Consolidatable condition set to `status`, or left out (None)."""
    claim = objects[1]["status"]
    claim["conditions"] = [c for c in claim["conditions"] if c["type"] != "Consolidatable" or status is not None]
    for c in claim["conditions"]:
        if c["type"] == "Consolidatable":
            c.update(status=status, reason="NotEmpty")
    return objects


def pdb_blocking(app: str = "web") -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": app}}, "maxUnavailable": 0},
            "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}


# -- Budgets -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("budget,deleted", [("100%", 10), ("0%", 0), ("30%", 3)])
def test_a_budget_caps_how_many_empty_nodes_one_command_deletes(tmp_path, budget, deleted):
    """"should allow all / no / only 3 empty nodes to be disrupted": one Emptiness command with as many
    nodes as the budget allows; a budget of 0 publishes the NodePool's DisruptionBlocked, and the methods
    after it say each node's consolidation is off (WhenEmpty)."""
    doc = document(tmp_path, [o for i in range(10) for o in managed(i)], [when_empty(budget=budget)])
    assert method(doc, "Emptiness")["budgets"] == {"default": deleted}
    assert len(acted(doc)[2]) == deleted
    if deleted:
        assert acted(doc)[:2] == ("Emptiness", "delete")
        return
    assert acted(doc) == (None, None, [])
    assert messages(doc, "DisruptionBlocked") == {
        "NodePool default": "No allowed disruptions for disruption reason Empty due to blocking budget"}
    assert messages(doc, "Unconsolidatable")[f"Node {name_of(0)}"] == NON_EMPTY.format("default")


@pytest.mark.parametrize("budget,per_pool", [("50%", 2), ("100%", 3)])
def test_each_node_pools_budget_is_its_own(tmp_path, budget, per_pool):
    """"should allow 2 / all nodes from each nodePool to be deleted": 50% of 3 rounds up to 2; the
    NodePool without nodes gets 0 and no DisruptionBlocked event (it counts no node)."""
    objects = [o for p in range(10) for i in range(3) for o in managed(p * 3 + i, pool=f"np{p}")]
    doc = document(tmp_path, objects, [when_empty(), *[when_empty(f"np{p}", budget, "30s") for p in range(10)]])
    assert method(doc, "Emptiness")["budgets"] == {"default": 0, **{f"np{p}": per_pool for p in range(10)}}
    pools = [c["nodePool"] for c in doc["decision"]["commands"][0]["candidates"]]
    assert sorted(pools) == sorted(f"np{p}" for p in range(10) for _ in range(per_pool))
    assert not messages(doc, "DisruptionBlocked")


# -- Emptiness ---------------------------------------------------------------------------------------

def test_an_empty_drifted_node_goes_by_emptiness_first(tmp_path):
    objects = managed(1)
    objects[1]["status"]["conditions"].append({"type": "Drifted", "status": "True", "reason": "NodePoolDrifted",
                                               "lastTransitionTime": "2026-01-01T10:00:00Z"})
    doc = document(tmp_path, objects, [when_empty()])
    assert acted(doc) == ("Emptiness", "delete", [name_of(1)])
    assert method(doc, "Drift")["outcome"] == "Command" and not method(doc, "Drift")["reached"]


@pytest.mark.parametrize("status", [None, "False", "Unknown"])
def test_an_empty_node_that_is_not_consolidatable_stays(tmp_path, status):
    """"should ignore nodes without / with false the consolidatable status condition": a candidate that no
    method keeps; the consolidation methods refuse it for the policy first."""
    doc = document(tmp_path, consolidatable(managed(1), status), [when_empty()])
    assert acted(doc) == (None, None, [])
    assert node(doc, 1)["candidate"] and not node(doc, 1).get("eligible")
    assert messages(doc, "Unconsolidatable") == {f"Node {name_of(1)}": NON_EMPTY.format("default"),
                                                 "NodeClaim default-n001": NON_EMPTY.format("default")}


@pytest.mark.parametrize("node_meta,claim_meta,blocked", [
    ({"annotations": DND}, None, True),
    ({"annotations": {"karpenter.sh/do-not-disrupt": "false"}}, None, False),
    (None, {"annotations": DND}, False),         # a registered node's annotations are the Node's
])
def test_do_not_disrupt_on_the_node(tmp_path, node_meta, claim_meta, blocked):
    doc = document(tmp_path, managed(1, node_meta=node_meta, claim_meta=claim_meta), [when_empty()])
    if not blocked:
        assert acted(doc) == ("Emptiness", "delete", [name_of(1)])
        return
    text = 'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation'
    assert acted(doc) == (None, None, [])
    assert messages(doc, "DisruptionBlocked") == {f"Node {name_of(1)}": text, "NodeClaim default-n001": text}


def test_empty_nodes_go_in_one_command_and_a_node_with_a_pod_stays(tmp_path):
    """"can delete multiple empty nodes", "should ignore nodes that have pods"."""
    doc = document(tmp_path, [*managed(1), *managed(2), *managed(3), pod("web-0", 3)], [when_empty()])
    assert acted(doc) == ("Emptiness", "delete", [name_of(1), name_of(2)])
    assert method(doc, "Emptiness")["candidates"] == [name_of(1), name_of(2)]


def test_consolidate_after_never_is_said_by_emptiness(tmp_path):
    doc = document(tmp_path, managed(1), [when_empty(after="Never")])
    assert acted(doc) == (None, None, [])
    assert method(doc, "Emptiness")["published"] == {"Unconsolidatable": 2}
    assert messages(doc, "Unconsolidatable")[f"Node {name_of(1)}"] == 'NodePool "default" has consolidation disabled'


# -- Which pods leave a node empty --------------------------------------------------------------------

@pytest.mark.parametrize("pods,empty", [
    ([owned(pod("ds", 1), "DaemonSet")], True),
    ([terminating(pod(f"web-{i}", 1)) for i in range(3)], True),
    ([phase(pod("done", 1), "Succeeded")], True),
    ([phase(pod("failed", 1), "Failed")], True),
    ([owned(pod("static", 1), "Node", api="v1")], True),
    ([terminating(owned(pod("sts-0", 1), "StatefulSet"))], False),
    ([owned(pod("old-ds", 1), "DaemonSet", api="extensions/v1beta1")], False),   # IsOwnedBy matches apps/v1 only
])
def test_daemonset_terminal_terminating_and_static_pods_leave_a_node_empty(tmp_path, pods, empty):
    """"will consider a node with a DaemonSet pod / terminating Deployment pods as empty", "will not
    consider a node with a terminating StatefulSet pod as empty" (IsReschedulable)."""
    doc = document(tmp_path, [*managed(1), *pods], [when_empty()])
    assert acted(doc) == (("Emptiness", "delete", [name_of(1)]) if empty else (None, None, []))
    assert node(doc, 1)["reschedulablePods"] == (0 if empty else 1)


@pytest.mark.parametrize("budget,deleted", [("1", [3]), ("2", [2, 3])])
def test_empty_nodes_pods_still_count_in_their_disruption_cost(tmp_path, budget, deleted):
    """ReschedulingCost sums every pod of the node, DaemonSet ones too: the node with fewer goes first."""
    ds = [owned(pod(f"ds-{i}-{j}", i), "DaemonSet") for i, n in ((1, 2), (2, 1)) for j in range(n)]
    doc = document(tmp_path, [*managed(1), *managed(2), *managed(3), *ds], [when_empty(budget=budget)])
    assert acted(doc) == ("Emptiness", "delete", [name_of(i) for i in deleted])


TOLERATES_ALL = {"tolerations": [{"operator": "Exists"}]}
POD_BLOCK = 'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/{})'


@pytest.mark.parametrize("objects,blocked", [
    ([owned(pod("ds", 1, annotations=DND), "DaemonSet")], POD_BLOCK.format("ds")),
    ([owned(pod("ds", 1, annotations=DND, spec=TOLERATES_ALL), "DaemonSet")], POD_BLOCK.format("ds")),
    ([owned(pod("static", 1, annotations=DND), "Node", api="v1")], POD_BLOCK.format("static")),
    ([owned(pod("ds", 1), "DaemonSet"), pdb_blocking()], "Pdb prevents pod evictions (PodDisruptionBudget=[default/p])"),
    ([owned(pod("ds", 1, spec=TOLERATES_ALL), "DaemonSet"), pdb_blocking()], None),   # not evictable: no PDB check
    ([owned(pod("static", 1), "Node", api="v1"), pdb_blocking()], None),
    ([terminating(pod("web-0", 1, annotations=DND)), pdb_blocking()], None),
    ([phase(pod("done", 1, annotations=DND), "Succeeded"), pdb_blocking()], None),
])
def test_what_blocks_an_empty_node(tmp_path, objects, blocked):
    """ValidatePodsDisruptable over every pod of the node: an active pod's do-not-disrupt (a DaemonSet's
    or a mirror pod's too), then a PodDisruptionBudget over the pods Karpenter would evict (active, not
    tolerating karpenter.sh/disrupted, not mirror pods)."""
    doc = document(tmp_path, [*managed(1), *objects], [when_empty()])
    if blocked is None:
        assert acted(doc) == ("Emptiness", "delete", [name_of(1)])
        return
    assert acted(doc) == (None, None, [])
    assert node(doc, 1)["blocked"] == blocked
    assert messages(doc, "DisruptionBlocked") == {f"Node {name_of(1)}": blocked, "NodeClaim default-n001": blocked}


@pytest.mark.parametrize("value,acts,published", [
    ("2h", False, {"DisruptionBlocked": 2, "DoNotDisruptUntil": 1}),   # IsDisruptable fails: no PDB check
    ("2m", True, {"DoNotDisruptGracePeriodElapsed": 2}),               # asked again by IsEvictable
    ("0s", True, {"InvalidDoNotDisruptAnnotation": 2}),
])
def test_a_do_not_disrupt_duration_on_a_daemonset_pod(tmp_path, value, acts, published):
    ds = owned(pod("ds", 1, annotations={"karpenter.sh/do-not-disrupt": value}), "DaemonSet")
    doc = document(tmp_path, [*managed(1), ds], [when_empty()])
    assert acted(doc)[0] == ("Emptiness" if acts else None)
    assert method(doc, "Emptiness")["published"] == published


# -- Pending pods, static NodePools --------------------------------------------------------------------

def metal(i: int) -> list[dict]:
    """An m5.metal node (96 vCPUs): the cheap type large enough for the 62-CPU pending pod."""
    objects = managed(i)
    for o in objects:
        o["metadata"]["labels"].update({"node.kubernetes.io/instance-type": "m5.metal",
                                         "karpenter.k8s.aws/instance-size": "metal"})
        o["status"]["capacity"] = {"cpu": "96", "memory": "380000Mi", "pods": "737"}
        o["status"]["allocatable"] = {"cpu": "95690m", "memory": "370000Mi", "pods": "737"}
    return objects


def test_a_pending_pod_that_needs_the_node_keeps_it(tmp_path):
    """"considers pending pods when consolidating": the provisioning pass nominates the large node for the
    62-CPU pod, so no method may take it."""
    doc = document(tmp_path, [*metal(1), pod("small", 1, cpu="1")], [when_empty()],
                   pending=[pod("large", None, cpu="62")])
    assert doc["nominatedNodes"] == [name_of(1)]
    assert acted(doc) == (None, None, [])
    assert messages(doc, "DisruptionBlocked")[f"Node {name_of(1)}"] == "Node is nominated for a pending pod"


def test_pending_pods_karpenter_does_not_provision_for_nominate_nothing(tmp_path):
    nominated = pod("preempting", None)
    nominated["status"]["nominatedNodeName"] = name_of(1)
    doc = document(tmp_path, managed(1), [when_empty()], pending=[owned(pod("ds", None), "DaemonSet"), nominated])
    assert not doc.get("nominatedNodes")
    assert acted(doc) == ("Emptiness", "delete", [name_of(1)])


def test_static_node_pool_empty_nodes_are_no_method_s(tmp_path):
    """"should not consolidate static NodePool nodes" (nodes without type, zone or capacity-type labels):
    every ShouldDisrupt says no before any event."""
    objects = [*managed(1, pool="static"), *managed(2, pool="static")]
    for o in objects:
        for key in ("node.kubernetes.io/instance-type", "topology.kubernetes.io/zone", "karpenter.sh/capacity-type"):
            del o["metadata"]["labels"][key]
    doc = document(tmp_path, objects, [node_pool("static", spec={"replicas": 2})])
    assert all(m["outcome"] == "NoCandidates" for m in doc["methods"])
    assert [n["candidate"] for n in doc["nodes"]] == [True, True] and not doc["events"]


# -- SingleNodeConsolidation's order ----------------------------------------------------------------------

def test_single_node_consolidation_interleaves_node_pools(tmp_path):
    """"should interweave candidates from different nodepools": by disruption cost, then round by round one
    candidate of each NodePool. np-a: a1 (cost 1, its 1.6-CPU pod fits nowhere cheaper) and a2 (cost 5);
    np-b: b1, b2 (costs 2, 3, like a1) and b3 (cost 4). By cost alone b3 would go; interleaved, a2 is tried
    in the second round whichever NodePool Go's map puts first. Multi-node finds nothing (two big pods
    need an m5.xlarge, dearer than two t3.large)."""
    tiny = lambda i, n: [pod(f"t{i}-{j}", i, cpu="10m") for j in range(n)]   # noqa: E731
    objects = [*managed(1, pool="np-a"), pod("a1", 1, cpu="1600m"),
               *managed(2, pool="np-a"), *[pod(f"a2-{j}", 2) for j in range(5)],
               *managed(3, pool="np-b"), pod("b1", 3, cpu="1600m"), *tiny(3, 1),
               *managed(4, pool="np-b"), pod("b2", 4, cpu="1600m"), *tiny(4, 2),
               *managed(5, pool="np-b"), *[pod(f"b3-{j}", 5) for j in range(4)],
               *managed(6, node_meta={"annotations": DND}), pod("fill", 6, cpu="1300m")]
    doc = document(tmp_path, objects, [node_pool(), node_pool("np-a"), node_pool("np-b")])
    assert method(doc, "MultiNodeConsolidation")["outcome"] == "NoCommand"
    assert acted(doc) == ("SingleNodeConsolidation", "delete", [name_of(2)])
    for i in (1, 3):
        assert messages(doc, "Unconsolidatable")[f"Node {name_of(i)}"] == "Can't replace with a cheaper node"

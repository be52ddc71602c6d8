"""The scenarios of Karpenter v1.13.0's `pkg/controllers/disruption/drift_test.go` ("Budgets", "Drift",
"Static NodePool") as one disruption pass each over files typed with the AWS data's instance types (t3.large
nodes, m5.xlarge where a node must hold more). Each expectation is the Go test's assertion, checked against
the vendored code on these inputs (drift.go's ShouldDisrupt and ComputeCommands: sorted by the Drifted
condition's lastTransitionTime, empty candidates first, one command per pass; types.go's NewCandidate;
BuildDisruptionBudgetMapping). Left out: metrics, the orchestration queue (commands executed, untainting
after a failed replacement) and the clock steps between reconciles. Where Karpenter's choice among equal
drift times is sort.Slice's order, only the count is asserted."""
from __future__ import annotations

import pytest

from tests.karpenter.test_disruption_consolidation_delete_multi import (DND, SHARED_AWS, acted, document, managed,
                                                                        messages, method, name_of, node_pool, pod)

pytestmark = pytest.mark.skipif(not SHARED_AWS.is_dir(), reason=f"{SHARED_AWS} is not present (a clone outside "
                                "the project's workspace)")


def drifted(objects: list[dict], at: str = "2026-01-01T11:00:00Z", *, status: str = "True",
            consolidatable: bool = False) -> list[dict]:
    """The NodeClaim of `managed` Drifted since `at` (Consolidatable cleared unless told, as the Go
    test's BeforeEach does)."""
    claim = objects[1]["status"]
    claim["conditions"] = [c for c in claim["conditions"] if c["type"] != "Consolidatable" or consolidatable]
    claim["conditions"].append({"type": "Drifted", "status": status, "reason": "NodePoolDrifted",
                                "lastTransitionTime": at})
    return objects


def plain(objects: list[dict]) -> list[dict]:
    """The NodeClaim of `managed` without its Consolidatable condition (the Go tests' NodeClaims)."""
    claim = objects[1]["status"]
    claim["conditions"] = [c for c in claim["conditions"] if c["type"] != "Consolidatable"]
    return objects


def pool(budget: str = "100%", after: str = "0s", name: str = "default", **kw) -> dict:
    return node_pool(name, spec={"disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized",
                                                "consolidateAfter": after, "budgets": [{"nodes": budget}]}}, **kw)


def deleting(objects: list[dict]) -> list[dict]:
    """A node whose NodeClaim is being deleted: it counts against the budget as disrupting."""
    objects[1]["metadata"].update(deletionTimestamp="2026-01-01T11:59:00Z", finalizers=["karpenter.sh/termination"])
    return objects


# -- Budgets -----------------------------------------------------------------------------------------

def test_a_drifted_budget_of_30_percent_allows_3_of_10(tmp_path):
    """"should only consider 3 nodes allowed to be disrupted because of budgets": ten empty drifted nodes
    (not Consolidatable, so Emptiness passes them by); Drift's budget is 3 and its one command deletes one."""
    objects = [o for i in range(10) for o in drifted(managed(i))]
    doc = document(tmp_path, objects, [pool("30%")])
    assert method(doc, "Drift")["budgets"] == {"default": 3}
    decision, verb, nodes = acted(doc)
    assert (decision, verb, len(nodes)) == ("Drift", "delete", 1)


def test_nodes_already_disrupting_use_up_the_budget(tmp_path):
    """"should disrupt 3 nodes, taking into account commands in progress": 30% of 10 is 3; two nodes
    whose NodeClaims are being deleted leave 1 for Drift (a deleting node is no candidate)."""
    objects = []
    for i in range(10):
        one = plain(managed(i))
        if i < 5:
            drifted(one)
        if i in (0, 1):
            deleting(one)
        objects += one
    objects += [pod(f"p{i}", i, cpu="1") for i in range(5)]
    doc = document(tmp_path, objects, [pool("30%")])
    assert method(doc, "Drift")["budgets"] == {"default": 1}
    decision, verb, nodes = acted(doc)
    assert decision == "Drift" and len(nodes) == 1 and nodes[0] in {name_of(i) for i in (2, 3, 4)}


def test_each_node_pools_drift_budget_is_its_own(tmp_path):
    """"should respect budgets for multiple nodepools": ten NodePools with a budget of 1 and
    consolidateAfter Never, three drifted nodes each, two of them with a pod; one pass's one command
    deletes an empty drifted node (empty ones go first)."""
    objects, pods = [], []
    for p in range(10):
        for i in range(3):
            k = p * 3 + i
            objects += drifted(managed(k, pool=f"np{p}"))
            if i < 2:
                pods.append(pod(f"p{k}", k, cpu="1"))
    doc = document(tmp_path, objects + pods, [pool(), *[pool("1", "Never", f"np{p}") for p in range(10)]])
    assert method(doc, "Drift")["budgets"] == {"default": 0, **{f"np{p}": 1 for p in range(10)}}
    decision, verb, nodes = acted(doc)
    assert (decision, verb) == ("Drift", "delete") and len(nodes) == 1
    assert nodes[0] in {name_of(p * 3 + 2) for p in range(10)}


# -- Drift -------------------------------------------------------------------------------------------

def test_drift_continues_past_a_node_whose_pods_fit_nowhere(tmp_path):
    """"should continue to the next drifted node if the first cannot reschedule all pods": the first
    drifted node's pod asks 150 CPUs (no type of the NodePool has them): Blocked, and Drift replaces the
    second one."""
    objects = [*drifted(managed(1), "2026-01-01T10:00:00Z"), *drifted(managed(2), "2026-01-01T11:00:00Z"),
               pod("big", 1, cpu="150", owned=False), pod("small", 2, cpu="1", owned=False)]
    doc = document(tmp_path, objects, [pool()])
    decision, verb, nodes = acted(doc)
    assert (decision, verb, nodes) == ("Drift", "replace", [name_of(2)])
    assert len(doc["decision"]["commands"][0]["replacements"]) == 1
    assert messages(doc, "DisruptionBlocked")[f"Node {name_of(1)}"].startswith(
        "Not all pods would schedule, default/big => no instance type has enough resources")


@pytest.mark.parametrize("status", [None, "False"])
def test_a_node_not_drifted_is_not_drift_s(tmp_path, status):
    """"should ignore nodes without the drifted status condition / set to false"."""
    objects = plain(managed(1)) if status is None else drifted(managed(1), status=status)
    doc = document(tmp_path, [*objects, pod("a", 1)], [pool()])
    assert acted(doc) == (None, None, [])
    assert method(doc, "Drift")["outcome"] != "Command"


def test_a_drifted_node_annotated_do_not_disrupt_stays(tmp_path):
    doc = document(tmp_path, drifted(managed(1, node_meta={"annotations": DND})), [pool()])
    assert acted(doc) == (None, None, [])


@pytest.mark.parametrize("annotation", ["false", "invalid-format"])
def test_a_do_not_disrupt_that_is_not_true_does_not_block(tmp_path, annotation):
    """"should delete drifted nodes with the karpenter.sh/do-not-disrupt annotation set to false" (on the
    node) and "should drift nodes with pods that have an invalid do-not-disrupt annotation format" (on the
    pod): the pod moves to the second, undrifted node."""
    dnd = {"karpenter.sh/do-not-disrupt": annotation}
    node_meta, pod_annotations = ({"annotations": dnd}, None) if annotation == "false" else (None, dnd)
    objects = [*drifted(managed(1, node_meta=node_meta)), *plain(managed(2, "m5.xlarge")),
               pod("a", 1, annotations=pod_annotations)]
    doc = document(tmp_path, objects, [pool()])
    assert acted(doc) == ("Drift", "delete", [name_of(1)])


@pytest.mark.parametrize("claim_spec", [None, {"terminationGracePeriod": "5m"}])
@pytest.mark.parametrize("blocker", ["annotation", "pdb"])
def test_a_pod_that_cannot_be_evicted_gets_no_replacement(tmp_path, claim_spec, blocker):
    """"should not create replacements for drifted nodes that have pods with the do-not-disrupt annotation
    / blocking PDBs (when the NodeClaim has a terminationGracePeriod)": without a terminationGracePeriod
    the node is no candidate; with one it is (an eventual method may wait the pod out), and SimulateScheduling
    leaves out the pod that cannot be evicted now: a delete without replacement."""
    annotations = DND if blocker == "annotation" else None
    objects = [*drifted(managed(1, claim_spec=claim_spec)), pod("a", 1, annotations=annotations, owned=False)]
    if blocker == "pdb":
        objects.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                        "metadata": {"name": "p", "namespace": "default"},
                        "spec": {"selector": {"matchLabels": {"app": "web"}}, "maxUnavailable": 0},
                        "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1,
                                   "expectedPods": 1}})
    doc = document(tmp_path, objects, [pool()])
    if claim_spec is None:
        assert acted(doc) == (None, None, [])
        return
    assert acted(doc) == ("Drift", "delete", [name_of(1)])
    assert not doc["decision"]["commands"][0].get("replacements")


@pytest.mark.parametrize("durations,acts", [(("2m",), False), (("1m", "3m"), False), (("1m",), True)])
def test_a_do_not_disrupt_duration_blocks_until_it_runs_out(tmp_path, durations, acts):
    """"should not drift nodes with pods that have a duration-based do-not-disrupt annotation that is still
    active" and "... until the longest ... expires across multiple pods": pods started 90 s ago."""
    pods = [pod(f"p{i}", 1, owned=False, annotations={"karpenter.sh/do-not-disrupt": d},
                start="2026-01-01T11:58:30Z") for i, d in enumerate(durations)]
    doc = document(tmp_path, [*drifted(managed(1)), *pods], [pool()])
    assert acted(doc)[:2] == (("Drift", "replace") if acts else (None, None))


def test_a_drifted_node_whose_pods_fit_nowhere_else_is_replaced(tmp_path):
    """"should replace drifted nodes": one replacement NodeClaim."""
    doc = document(tmp_path, [*drifted(managed(1)), pod("a", 1)], [pool()])
    assert acted(doc) == ("Drift", "replace", [name_of(1)])
    assert len(doc["decision"]["commands"][0]["replacements"]) == 1


def test_an_empty_drifted_node_goes_by_drift_when_consolidation_is_off(tmp_path):
    """"should delete drifted nodes when they are empty and consolidation is disabled"."""
    doc = document(tmp_path, drifted(managed(1), consolidatable=True), [pool(after="Never")])
    assert acted(doc) == ("Drift", "delete", [name_of(1)])


def test_an_empty_drifted_consolidatable_node_goes_by_emptiness(tmp_path):
    """"should give emptiness priority to delete drifted nodes when they are empty and consolidatable"."""
    doc = document(tmp_path, drifted(managed(1), consolidatable=True), [pool()])
    assert acted(doc) == ("Emptiness", "delete", [name_of(1)])


def test_empty_drifted_nodes_go_before_non_empty_ones(tmp_path):
    """"should drift empty nodes before non-empty nodes": the non-empty node drifted first, yet the empty
    one goes."""
    objects = [*drifted(managed(1), "2026-01-01T10:00:00Z"), *drifted(managed(2, "m5.xlarge"), "2026-01-01T11:00:00Z"),
               pod("a", 1)]
    doc = document(tmp_path, objects, [pool(after="Never")])
    assert acted(doc) == ("Drift", "delete", [name_of(2)])


def test_a_drifted_node_can_need_several_replacements(tmp_path):
    """"can replace drifted nodes with multiple nodes": three 1200m pods on an m5.xlarge whose NodePool
    now allows only t3.large (one such pod each)."""
    objects = [*drifted(managed(1, "m5.xlarge")), *[pod(f"p{i}", 1, cpu="1200m") for i in range(3)]]
    only = [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["t3.large"]}]
    doc = document(tmp_path, objects, [pool(extra=only)])
    assert acted(doc) == ("Drift", "replace", [name_of(1)])
    assert len(doc["decision"]["commands"][0]["replacements"]) == 3


def test_the_earliest_drifted_non_empty_node_goes_first(tmp_path):
    """"should drift one non-empty node at a time, starting with the earliest drift"."""
    objects = [*drifted(managed(1), "2026-01-01T11:00:00Z"), *drifted(managed(2), "2026-01-01T10:00:00Z"),
               pod("a", 1, cpu="1500m"), pod("b", 2, cpu="1500m")]
    doc = document(tmp_path, objects, [pool()])
    assert acted(doc) == ("Drift", "replace", [name_of(2)])


# -- Static NodePool -----------------------------------------------------------------------------------

def test_a_static_node_pool_s_drifted_node_is_not_drift_s(tmp_path):
    """"should not consider static nodepool for drift" (static drift is its own method)."""
    static = pool()
    static["spec"]["replicas"] = 1
    doc = document(tmp_path, [*drifted(managed(1)), pod("a", 1)], [static])
    assert method(doc, "Drift").get("candidates", []) == [] or method(doc, "Drift")["outcome"] != "Command"
    assert acted(doc)[0] != "Drift"


# -- Budgets by reason, and what counts against them -------------------------------------------------

@pytest.mark.parametrize("budget,blocked", [
    ({"nodes": "0", "reasons": ["Drifted"]}, True),
    ({"nodes": "0", "reasons": ["Empty", "Underutilized"]}, False),
    ({"nodes": "0", "schedule": "0 11 * * *", "duration": "2h"}, True),        # 11:00-13:00: active at 12:00
    ({"nodes": "0", "schedule": "0 13 * * *", "duration": "30m"}, False),      # inactive: MaxInt32
])
def test_a_drifted_reason_budget(tmp_path, budget, blocked):
    """BuildDisruptionBudgetMapping for reason Drifted: a budget of 0 that names Drifted (or names no
    reason) and is active blocks Drift and publishes the NodePool's DisruptionBlocked; one for other
    reasons, or outside its window, does not."""
    np = pool()
    np["spec"]["disruption"]["budgets"] = [budget]
    doc = document(tmp_path, [*drifted(managed(1)), pod("a", 1)], [np])
    if not blocked:
        assert acted(doc) == ("Drift", "replace", [name_of(1)])
        return
    assert acted(doc) == (None, None, [])
    assert method(doc, "Drift")["budgets"] == {"default": 0}
    assert messages(doc, "DisruptionBlocked")["NodePool default"] == (
        "No allowed disruptions for disruption reason Drifted due to blocking budget")


@pytest.mark.parametrize("change,remaining", [
    ("not-ready", 0),            # a NotReady node counts as disrupting: ceil(30% of 3) - 1
    ("no-ready", 1),             # one without a Ready condition is given Ready=True (the case format's default)
    ("uninitialized", 1),        # not counted at all: ceil(30% of 2) - 0
    ("terminating", 1),          # InstanceTerminating: not counted either
])
def test_what_counts_against_a_drift_budget(tmp_path, change, remaining):
    objects = [*drifted(managed(1)), *plain(managed(2)), pod("a", 1)]
    third = plain(managed(3, initialized=change != "uninitialized"))
    conditions = third[0]["status"]["conditions"]
    if change == "not-ready":
        conditions[0]["status"] = "False"
    elif change == "no-ready":
        conditions.clear()
    elif change == "terminating":
        third[1]["status"]["conditions"].append({"type": "InstanceTerminating", "status": "True", "reason": "x",
                                                 "lastTransitionTime": "2026-01-01T11:00:00Z"})
    doc = document(tmp_path, objects + third, [pool("30%")])
    assert method(doc, "Drift")["budgets"] == {"default": remaining}
    assert acted(doc)[0] == ("Drift" if remaining else None)


# -- What the replacement simulation counts ------------------------------------------------------------

def _pdb(spec: dict) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec},
            "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}


@pytest.mark.parametrize("spec,verb", [({"maxUnavailable": 1}, "replace"), ({"minAvailable": 1}, "replace"),
                                       ({"minAvailable": "100%"}, "delete"), ({"maxUnavailable": "0%"}, "delete")])
def test_a_pdb_that_allows_nothing_now_under_a_termination_grace_period(tmp_path, spec, verb):
    """With a terminationGracePeriod the node is Drift's candidate despite a PDB that allows no disruption
    now (graceful methods' candidate filtering still publishes it Blocked); SimulateScheduling's
    IsCurrentlyReschedulable leaves the pod out only when the PDB blocks fully (maxUnavailable 0 / "0%",
    minAvailable "100%")."""
    objects = [*drifted(managed(1, claim_spec={"terminationGracePeriod": "5m"})), pod("a", 1), _pdb(spec)]
    doc = document(tmp_path, objects, [pool()])
    assert acted(doc) == ("Drift", verb, [name_of(1)])
    assert messages(doc, "DisruptionBlocked")[f"Node {name_of(1)}"] == (
        "Pdb prevents pod evictions (PodDisruptionBudget=[default/p])")


def test_a_pod_that_tolerates_the_disrupted_taint_is_still_rescheduled(tmp_path):
    """IsReschedulable does not ask of the disrupted taint (IsEvictable does): the pod needs a replacement."""
    tol = {"tolerations": [{"key": "karpenter.sh/disrupted", "operator": "Exists", "effect": "NoSchedule"}]}
    doc = document(tmp_path, [*drifted(managed(1)), pod("a", 1, spec=tol)], [pool()])
    assert acted(doc) == ("Drift", "replace", [name_of(1)])


def test_a_deleting_node_s_pods_join_the_drift_replacement(tmp_path):
    """SimulateScheduling adds the deleting nodes' reschedulable pods: one replacement for both pods."""
    objects = [*drifted(managed(1)), *deleting(plain(managed(2))), pod("a", 1), pod("b", 2)]
    doc = document(tmp_path, objects, [pool()])
    assert acted(doc) == ("Drift", "replace", [name_of(1)])
    replacement, = doc["decision"]["commands"][0]["replacements"]
    assert replacement["pods"] == ["default/a", "default/b"]


def test_a_drifted_node_whose_pod_would_land_on_an_uninitialized_node_stays(tmp_path):
    """The pod fits the uninitialized m5.xlarge: UninitializedNodeError, so Drift publishes Blocked."""
    objects = [*drifted(managed(1)), *plain(managed(2, "m5.xlarge", initialized=False)), pod("a", 1)]
    doc = document(tmp_path, objects, [pool()])
    assert acted(doc) == (None, None, [])
    assert messages(doc, "DisruptionBlocked")[f"Node {name_of(1)}"].startswith(
        "Not all pods would schedule, default/a => would schedule against uninitialized nodeclaim/default-n002, "
        f"node/{name_of(2)}")


def test_two_pdbs_on_a_pod_block_it_fully_under_a_termination_grace_period(tmp_path):
    """isEvictable refuses a pod that two PDBs select whatever they allow: the node is a candidate only for
    Drift under a terminationGracePeriod, and the pod is left out of the simulation (fully blocked)."""
    budgets = [_pdb({"maxUnavailable": 1}), _pdb({"maxUnavailable": 1})]
    budgets[1]["metadata"]["name"] = "q"
    for b in budgets:
        b["status"]["disruptionsAllowed"] = 1
    doc = document(tmp_path, [*drifted(managed(1, claim_spec={"terminationGracePeriod": "5m"})), pod("a", 1),
                              *budgets], [pool()])
    assert acted(doc) == ("Drift", "delete", [name_of(1)])
    assert messages(doc, "DisruptionBlocked")[f"Node {name_of(1)}"] == (
        "Eviction does not support multiple PDBs (PodDisruptionBudget(s)=[default/p default/q])")


@pytest.mark.parametrize("claim_spec,acts", [(None, None), ({"terminationGracePeriod": "5m"}, "Drift")])
def test_a_daemonset_pod_s_do_not_disrupt_on_a_drifted_node(tmp_path, claim_spec, acts):
    """ValidatePodsDisruptable asks every pod (DaemonSet ones too) of the annotation; under a
    terminationGracePeriod Drift takes the node, empty of reschedulable pods: a delete."""
    ds = pod("ds", 1, annotations=DND, owned=False)
    ds["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "d", "controller": True,
                                          "uid": "00000000-0000-4000-8000-000000000009"}]
    doc = document(tmp_path, [*drifted(managed(1, claim_spec=claim_spec)), ds], [pool()])
    assert acted(doc) == ((acts, "delete", [name_of(1)]) if acts else (None, None, []))
    assert messages(doc, "DisruptionBlocked")[f"Node {name_of(1)}"] == (
        'Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/ds)')


def test_a_drift_replacement_within_the_node_pool_s_limits(tmp_path):
    """The scheduler's remaining resources subtract the nodes it is given, which leave out the candidate:
    under a limit of 3 CPUs the replacement may be any 2-CPU type, not an m5.xlarge."""
    np = pool()
    np["spec"]["limits"] = {"cpu": "3"}
    doc = document(tmp_path, [*drifted(managed(1)), pod("a", 1)], [np])
    assert acted(doc) == ("Drift", "replace", [name_of(1)])
    replacement, = doc["decision"]["commands"][0]["replacements"]
    assert replacement["instanceTypes"] == ["t3.large", "m7i-flex.large", "m5.large"]


def test_a_pending_pod_rides_on_the_drift_replacement(tmp_path):
    """SimulateScheduling starts from the pending pods: the one that fits no node shares the replacement
    with the drifted node's pod (so it needs a 4-CPU type)."""
    doc = document(tmp_path, [*drifted(managed(1)), pod("a", 1, cpu="1500m")], [pool()],
                   pending=[pod("p", None, cpu="1500m")])
    assert acted(doc) == ("Drift", "replace", [name_of(1)])
    replacement, = doc["decision"]["commands"][0]["replacements"]
    assert replacement["pods"] == ["default/a", "default/p"] and replacement["instanceTypes"][0] == "m5.xlarge"


def test_a_drifted_node_of_a_missing_node_pool_is_no_candidate(tmp_path):
    doc = document(tmp_path, [*drifted(managed(1, pool="gone")), pod("a", 1)], [pool()])
    assert acted(doc) == (None, None, [])
    assert messages(doc, "DisruptionBlocked") == {f"Node {name_of(1)}": "NodePool not found (NodePool=gone)",
                                                  "NodeClaim gone-n001": "NodePool not found (NodePool=gone)"}


def test_an_invalid_do_not_disrupt_is_published_and_ignored(tmp_path):
    """"should drift nodes with pods that have an invalid do-not-disrupt annotation format": the pod's
    Warning event quotes parseDoNotDisrupt's error."""
    objects = [*drifted(managed(1)), *plain(managed(2, "m5.xlarge")),
               pod("a", 1, annotations={"karpenter.sh/do-not-disrupt": "invalid-format"})]
    doc = document(tmp_path, objects, [pool()])
    assert acted(doc) == ("Drift", "delete", [name_of(1)])
    assert messages(doc, "InvalidDoNotDisruptAnnotation") == {"Pod default/a": (
        'Invalid karpenter.sh/do-not-disrupt annotation: failed to parse "invalid-format" as a duration: '
        'time: invalid duration "invalid-format", ignoring annotation')}


@pytest.mark.parametrize("case,expected", [
    ("node-annotated-with-grace-period", (None, None, [])),   # ValidateNodeDisruptable: no TGP exception
    ("claim-annotated", ("Drift", "replace", [name_of(1)])),   # a registered node's annotations are the Node's
    ("terminal-pod-annotated", ("Drift", "delete", [name_of(1)])),  # IsDisruptable: not active, not blocking
])
def test_where_a_do_not_disrupt_counts_for_drift(tmp_path, case, expected):
    node_meta = {"annotations": DND} if case.startswith("node") else None
    claim_meta = {"annotations": DND} if case.startswith("claim") else None
    claim_spec = {"terminationGracePeriod": "5m"} if case.startswith("node") else None
    a = pod("a", 1, annotations=DND if case.startswith("terminal") else None)
    if case.startswith("terminal"):
        a["status"]["phase"] = "Succeeded"
    doc = document(tmp_path, [*drifted(managed(1, node_meta=node_meta, claim_meta=claim_meta, claim_spec=claim_spec)),
                              a], [pool()])
    assert acted(doc) == expected

"""The scenarios of Karpenter v1.13.0's `pkg/controllers/disruption/consolidation_test.go` Contexts
"Events", "Budgets" and "Reserved Capacity" as one disruption pass each over files typed with the AWS
data's instance types (m5.xlarge standing for the fake provider's most expensive type, t3.large for
its cheapest). Each expectation is the Go test's assertion, checked against the vendored code
(consolidation.go's ShouldDisrupt and computeConsolidation, emptiness.go, multinodeconsolidation.go,
helpers.go's BuildDisruptionBudgetMapping, the scheduler's reserved offerings) on these inputs.

Not expressed: the metrics, the queue's execution (NodeClaims left after the command ran is read as
the command's candidates), several reconciles ("single node consolidation delete" is read as the
first pass: the code's multi-node delete of three, the kept nodes having room), and `IsConsolidated`
(a pass keeps no state: its "no command" is what one pass says)."""
from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

import tests.karpenter.test_disruption_consolidation_delete_multi as base
from tests.karpenter.test_disruption_consolidation_delete_multi import (SHARED_AWS, acted, managed, messages, method,
                                                                         name_of, node, node_pool, pod)

pytestmark = pytest.mark.skipif(not SHARED_AWS.is_dir(), reason=f"{SHARED_AWS} is not present (a clone outside "
                                "the project's workspace)")
ALL_TYPES = ("on-demand", "spot", "reserved")
BIG = {"cpu": "32", "memory": "14162Mi", "pods": "100"}     # the Go test's NodeClaim allocatable


def document(tmp_path: Path, objects: list[dict], pools: list[dict] | None = None, **kw) -> dict:
    tmp_path.mkdir(parents=True, exist_ok=True)
    return base.document(tmp_path, objects, pools, **kw)


def published(doc: dict, reason: str) -> int:
    """The events the methods published before the recorder's dedupe (the Go test's recorder.Calls)."""
    return sum(m.get("published", {}).get(reason, 0) for m in doc["methods"] if m.get("published"))


def pool(name: str = "default", nodes: str = "100%", **disruption: str) -> dict:
    spec = {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s", **disruption,
            "budgets": [{"nodes": nodes}]}
    return node_pool(name, spec={"disruption": spec})


def big(i: int, pool_name: str = "default") -> list[dict]:
    """The Budgets context's node: the most expensive type with 32 CPUs allocatable."""
    objects = managed(i, "m5.xlarge", pool=pool_name)
    for o in objects:
        o["status"]["allocatable"] = dict(BIG)
    return objects


# -- Events --------------------------------------------------------------------------------------------

def test_no_unconsolidatable_event_when_the_node_pool_consolidates_underutilized_nodes(tmp_path):
    doc = document(tmp_path, managed(1, "m5.xlarge"), [pool()])
    assert acted(doc) == ("Emptiness", "delete", [name_of(1)])
    assert published(doc, "Unconsolidatable") == 0


@pytest.mark.parametrize("disruption,text,calls", [
    ({"consolidationPolicy": "WhenEmpty", "consolidateAfter": "1m"},
     'NodePool "default" has non-empty consolidation disabled', 4),
    # Emptiness's ShouldDisrupt publishes it too: six calls
    ({"consolidateAfter": "Never"}, 'NodePool "default" has consolidation disabled', 6),
])
def test_consolidation_disabled_events(tmp_path, disruption, text, calls):
    doc = document(tmp_path, [*managed(1, "m5.xlarge"), pod("web-0", 1)], [pool(**disruption)])
    assert acted(doc) == (None, None, [])
    assert messages(doc, "Unconsolidatable") == {f"Node {name_of(1)}": text, "NodeClaim default-n001": text}
    assert published(doc, "Unconsolidatable") == calls


@pytest.mark.parametrize("label,text", [
    ("node.kubernetes.io/instance-type", 'Instance Type "" not found'),
    ("karpenter.sh/capacity-type", 'Node does not have label "karpenter.sh/capacity-type"'),
    ("topology.kubernetes.io/zone", 'Node does not have label "topology.kubernetes.io/zone"'),
])
def test_a_candidate_without_a_price_label_is_unconsolidatable_but_empty_it_goes(tmp_path, label, text):
    """Only the consolidation methods' ShouldDisrupt needs the labels (four calls); Emptiness deletes
    the same node once it is empty."""
    objects = managed(1, "m5.xlarge")
    for o in objects:
        del o["metadata"]["labels"][label]
    doc = document(tmp_path / "pod", [*objects, pod("web-0", 1)])
    assert acted(doc) == (None, None, [])
    assert messages(doc, "Unconsolidatable") == {f"Node {name_of(1)}": text, "NodeClaim default-n001": text}
    assert published(doc, "Unconsolidatable") == 4
    assert acted(document(tmp_path / "empty", objects)) == ("Emptiness", "delete", [name_of(1)])


# -- Budgets -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("nodes,allowed", [("30%", 3), ("100%", 10), ("0%", 0)])
def test_empty_nodes_disrupted_up_to_the_budget(tmp_path, nodes, allowed):
    doc = document(tmp_path, [o for i in range(10) for o in big(i)], [pool(nodes=nodes)])
    [budget] = doc["budgets"]
    assert budget["nodes"] == 10 and budget["allowed"]["Empty"] == allowed
    assert method(doc, "Emptiness")["budgets"] == {"default": allowed}
    if allowed:
        assert acted(doc) == ("Emptiness", "delete", [name_of(i) for i in range(allowed)])
        assert not doc["events"]
    else:
        assert doc["decision"] is None
        blocked = messages(doc, "DisruptionBlocked")
        assert [e["message"] for e in doc["events"]] == [
            f"No allowed disruptions for disruption reason {r} due to blocking budget"
            for r in ("Empty", "Underutilized")]
        assert list(blocked) == ["NodePool default"]


@pytest.mark.parametrize("cpu", ["100m", "15"])
def test_multi_node_consolidation_deletes_up_to_the_budget(tmp_path, cpu):
    """"should only allow 3 nodes to be deleted in multi node consolidation delete" (100m pods) and
    "... in single node consolidation delete" (15-CPU pods): the budget keeps three candidates, and the
    seven kept nodes have room (17 CPUs) for one 15-CPU pod each, so multi-node deletes the three."""
    objects = [o for i in range(10) for o in big(i)] + [pod(f"web-{i}", i, cpu=cpu) for i in range(10)]
    doc = document(tmp_path, objects, [pool(nodes="30%")])
    assert acted(doc) == ("MultiNodeConsolidation", "delete", [name_of(i) for i in range(3)])
    assert method(doc, "MultiNodeConsolidation")["budgets"] == {"default": 3}


@pytest.mark.parametrize("nodes,allowed", [("50%", 2), ("100%", 3), ("0%", 0)])
def test_each_node_pool_has_its_own_budget(tmp_path, nodes, allowed):
    """Ten NodePools of three empty nodes each (50% of 3 rounds up to 2); the NodePool without nodes
    allows nothing and, having no nodes, publishes no DisruptionBlocked."""
    pools = [pool(f"np-{k}", nodes) for k in range(10)]
    objects = [o for k in range(10) for j in range(3) for o in big(k * 3 + j, f"np-{k}")]
    doc = document(tmp_path, objects, [pool(), *pools])
    assert {b["nodePool"]: b["allowed"]["Empty"] for b in doc["budgets"]} == {
        "default": 0, **{f"np-{k}": allowed for k in range(10)}}
    if allowed:
        how, decision, names = acted(doc)
        assert (how, decision, len(names)) == ("Emptiness", "delete", 10 * allowed)
        cmd, = doc["decision"]["commands"]
        assert all(sum(c["nodePool"] == f"np-{k}" for c in cmd["candidates"]) == allowed for k in range(10))
        assert not doc["events"]
    else:
        assert doc["decision"] is None
        assert [m["outcome"] for m in doc["methods"]] == [
            "NoCommand", "NoCandidates", "NoCandidates", "NoCommand", "NoCommand"]
        assert {e["object"] for e in doc["events"]} == {f"NodePool np-{k}" for k in range(10)}
        assert len(doc["events"]) == 20


def empty_pass(tmp_path: Path, objects: list[dict], nodes: str) -> tuple[dict, dict]:
    doc = document(tmp_path, objects, [pool(nodes=nodes)])
    [budget] = doc["budgets"]
    return doc, {"nodes": budget["nodes"], **{k: budget["reasons"]["Empty"][k] for k in ("budgetsAllow", "disrupting")},
                 "given": method(doc, "Emptiness")["budgets"]["default"]}


def test_budget_counts_deleting_nodes_as_disrupting_and_skips_terminating_and_uninitialized_ones(tmp_path):
    """BuildDisruptionBudgetMapping: a deleting NodeClaim is counted and consumes the budget; one with
    InstanceTerminating=True is not counted at all; an uninitialized node is not counted either."""
    objects = [o for i in range(10) for o in big(i)]
    objects[1]["metadata"].update({"deletionTimestamp": "2026-01-01T11:00:00Z",
                                   "finalizers": ["karpenter.sh/termination"]})
    doc, budget = empty_pass(tmp_path / "deleting", objects, "30%")
    assert budget == {"nodes": 10, "budgetsAllow": 3, "disrupting": 1, "given": 2}
    assert acted(doc) == ("Emptiness", "delete", [name_of(1), name_of(2)])
    assert node(doc, 0)["blocked"] == "Node is deleting or marked for deletion"

    objects[1]["status"]["conditions"].append({"type": "InstanceTerminating", "status": "True", "reason": "x",
                                               "lastTransitionTime": "2026-01-01T11:00:00Z"})
    _, budget = empty_pass(tmp_path / "terminating", objects, "50%")
    assert budget == {"nodes": 9, "budgetsAllow": 5, "disrupting": 0, "given": 5}

    objects = [o for i in range(7) for o in big(i)]
    objects += [o for i in range(7, 10) for o in managed(i, "m5.xlarge", initialized=False)]
    _, budget = empty_pass(tmp_path / "uninitialized", objects, "50%")
    assert budget == {"nodes": 7, "budgetsAllow": 4, "disrupting": 0, "given": 4}


def test_empty_nodes_spend_no_underutilized_budget(tmp_path):
    """An Empty-only blocking budget: Emptiness is blocked, and multi-node consolidation skips the empty
    candidates without spending the Underutilized budget on them, deleting two nodes with pods."""
    budgets = [{"nodes": "0", "reasons": ["Empty"]}, {"nodes": "2"}]
    objects = [o for i in range(6) for o in big(i)] + [pod(f"web-{i}", i) for i in range(2, 6)]
    doc = document(tmp_path, objects, [node_pool(spec={"disruption": {
        "consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s", "budgets": budgets}})])
    assert method(doc, "Emptiness")["outcome"] == "NoCommand"
    assert acted(doc) == ("MultiNodeConsolidation", "delete", [name_of(2), name_of(3)])
    assert messages(doc, "DisruptionBlocked") == {
        "NodePool default": "No allowed disruptions for disruption reason Empty due to blocking budget"}


def test_the_budget_takes_the_cheapest_to_disrupt_empty_node(tmp_path):
    """Emptiness sorts by disruption cost: the DaemonSet pods' eviction cost (pod-deletion-cost) times
    the lifetime left (the oldest NodeClaim)."""
    def daemon(i: int, annotations: dict | None = None) -> dict:
        p = pod(f"ds-{i}", i, annotations=annotations)
        p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "ds",
                                             "uid": "00000000-0000-4000-8000-000000000002", "controller": True}]
        return p
    created = ["2026-01-01T09:00:00Z", "2025-12-10T09:00:00Z", "2026-01-01T11:00:00Z"]
    objects = [o for i in range(3) for o in managed(i, "m5.xlarge", created=created[i])] + [daemon(i) for i in range(3)]
    assert acted(empty_pass(tmp_path / "old", objects, "1")[0]) == ("Emptiness", "delete", [name_of(1)])
    cost = {"controller.kubernetes.io/pod-deletion-cost": "-1000000000"}
    objects = [o for i in range(3) for o in managed(i, "m5.xlarge")] + [daemon(i, cost if i == 2 else None)
                                                                        for i in range(3)]
    assert acted(empty_pass(tmp_path / "cost", objects, "1")[0]) == ("Emptiness", "delete", [name_of(2)])


def test_unconsolidatable_events_dedupe_on_the_object(tmp_path):
    """Emptiness's "consolidation disabled" comes first; the consolidation methods' missing-label text
    for the same node is published (six calls) but dropped by the recorder's dedupe on the object."""
    objects = managed(1, "m5.xlarge")
    for o in objects:
        del o["metadata"]["labels"]["topology.kubernetes.io/zone"]
    doc = document(tmp_path, [*objects, pod("web-0", 1)], [pool(consolidateAfter="Never")])
    assert published(doc, "Unconsolidatable") == 6
    text = 'NodePool "default" has consolidation disabled'
    assert messages(doc, "Unconsolidatable") == {f"Node {name_of(1)}": text, "NodeClaim default-n001": text}
    assert len(doc["events"]) == 2


# -- Reserved Capacity -----------------------------------------------------------------------------------

def reserved_document(tmp_path: Path, objects: list[dict], reservations: list[tuple[str, str, int]]) -> dict:
    """A pass whose EC2NodeClass selected `reservations` (id, type, free instances), all in test-zone-1a,
    the AWS data's counts holding them."""
    aws = tmp_path / "aws"
    shutil.copytree(SHARED_AWS, aws)
    counts = [{"CapacityReservationId": rid, "AvailableInstanceCount": free, "InstanceType": itype,
               "AvailabilityZone": "test-zone-1a", "State": "active"} for rid, itype, free in reservations]
    (aws / "describe-capacity-reservations.json").write_text(json.dumps({"CapacityReservations": counts}))
    node_class = copy.deepcopy(base.NODE_CLASS)
    node_class["status"] = {"capacityReservations": [
        {"availabilityZone": "test-zone-1a", "id": rid, "instanceMatchCriteria": "targeted", "instanceType": itype,
         "ownerID": "123456789012", "reservationType": "default", "state": "active"} for rid, itype, _ in reservations]}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(base, "SHARED_AWS", aws)
        mp.setattr(base, "NODE_CLASS", node_class)
        return document(tmp_path, objects, [node_pool(capacity_types=ALL_TYPES)])


def reserved_node(rid: str = "cr-m5xl") -> list[dict]:
    objects = managed(1, "m5.xlarge", ct="reserved")
    for o in objects:
        o["metadata"]["labels"]["karpenter.k8s.aws/capacity-reservation-id"] = rid
    return [*objects, pod("web-0", 1)]


def replacement(doc: dict) -> dict:
    cmd, = doc["decision"]["commands"]
    repl, = cmd["replacements"]
    return repl


def test_can_consolidate_from_one_reserved_offering_to_another(tmp_path):
    doc = reserved_document(tmp_path, reserved_node(), [("cr-m5xl", "m5.xlarge", 10), ("cr-t3l", "t3.large", 10)])
    assert acted(doc) == ("SingleNodeConsolidation", "replace", [name_of(1)])
    repl = replacement(doc)
    assert (repl["instanceTypes"], repl["capacityTypes"]) == (["t3.large"], ["reserved"])
    assert messages(doc, "ConsolidationCandidate")[f"Node {name_of(1)}"] == (
        f"Consolidation candidate: replace: [{name_of(1)}] -> [1 replacement] (savings: $0.00)")


@pytest.mark.parametrize("capacity_type", ["on-demand", "spot"])
def test_can_consolidate_into_reserved_capacity_for_the_same_instance_type(tmp_path, capacity_type):
    """The scheduler narrows the replacement to its reserved offering, so a spot node takes the plain
    price path, not spot-to-spot (off here)."""
    objects = [*managed(1, "m5.xlarge", ct=capacity_type), pod("web-0", 1)]
    doc = reserved_document(tmp_path, objects, [("cr-m5xl", "m5.xlarge", 10)])
    assert acted(doc) == ("SingleNodeConsolidation", "replace", [name_of(1)])
    repl = replacement(doc)
    assert (repl["instanceTypes"], repl["capacityTypes"]) == (["m5.xlarge"], ["reserved"])


@pytest.mark.parametrize("reservations", [[("cr-other", "m5.large", 10)], [("cr-m5xl", "m5.xlarge", 0)]])
def test_a_reserved_node_is_priced_by_its_own_offering(tmp_path, reservations):
    """getCandidatePrices: a reservation no longer selected leaves no compatible offering (price 0), a
    full one its own (unavailable) reserved price: nothing is cheaper either way."""
    doc = reserved_document(tmp_path, reserved_node(), reservations)
    assert doc["decision"] is None
    assert messages(doc, "Unconsolidatable")[f"Node {name_of(1)}"] == "Can't replace with a cheaper node"

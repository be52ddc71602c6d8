"""A budget's status worked out once per version of its namespace's pods: `NamespacePods.selection`
(the pods its selector selects, how many are healthy, their controllers' references) is shared by
every budget with that selector and every reader of the same pods, and `pods_by_namespace` hands
every reader that lists the very same pod objects the same version. A reader whose pods differ in
one namespace (a pod left out, replaced or added) gets a new version of that namespace only, whose
budgets are computed again; the answers are those computed from scratch."""
from __future__ import annotations

import copy

import pytest

from kexplain.controllers import disruption
from kexplain.controllers.disruption import NamespacePods, computed, controllers_of, notes, pods_by_namespace
from kexplain.model.labels import parse_selector
from kexplain.model.pod import PodInfo

RS = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-1", "namespace": "ns", "uid": "rs"},
      "spec": {"replicas": 4}}


def pod(name: str, namespace: str = "ns", ready: bool = True, owner: bool = True, app: str = "web") -> dict:
    meta: dict = {"name": name, "namespace": namespace, "labels": {"app": app}}
    if owner:       # (each pod its own list of references, of the same controller)
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "rs",
                                    "controller": True}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"nodeName": "n"},
            "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def budget(name: str, namespace: str = "ns", **spec) -> dict:
    return {"kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec}}


@pytest.fixture
def counted(monkeypatch):
    """How many selections are made (each a pass over the pods a selector selects)."""
    made: list[int] = []

    class Counted(disruption.Selection):
        __slots__ = ()

        def __init__(self, pods):
            made.append(len(pods))
            super().__init__(pods)

    monkeypatch.setattr(disruption, "Selection", Counted)
    monkeypatch.setattr(disruption, "_VERSIONS", disruption._Versions())
    return made


def plain(pdb: dict, pods: list[PodInfo]) -> disruption.BudgetStatus:
    """The status computed from scratch (a plain list: nothing kept)."""
    return computed(pdb, list(pods), controllers_of([RS]))


def test_budgets_with_one_selector_share_one_selection(counted):
    pods = NamespacePods(PodInfo(pod(f"p{i}", ready=i != 1, owner=i != 2)) for i in range(5))
    finders = controllers_of([RS])
    budgets = [budget("a", maxUnavailable=1), budget("b", minAvailable="50%"), budget("c", minAvailable=2),
               budget("d", maxUnavailable="25%")]
    answers = [computed(b, pods, finders) for b in budgets]
    assert len(counted) == 1
    assert answers == [plain(b, list(pods)) for b in budgets]
    assert answers[0].unmanaged == ("p2",) and (answers[0].current_healthy, answers[0].expected_pods) == (4, 4)


def test_a_controller_is_looked_up_once_per_reference_not_per_pod(monkeypatch):
    finders = controllers_of([RS])
    asked = []
    real = finders.scale
    monkeypatch.setattr(finders, "scale", lambda ref, ns: asked.append(ref) or real(ref, ns))
    status = computed(budget("a", maxUnavailable=1), NamespacePods(PodInfo(pod(f"p{i}")) for i in range(6)), finders)
    assert status.expected_pods == 4 and len(asked) == 1


def test_a_missing_controller_names_the_first_pod_that_has_it():
    other = pod("z")
    other["metadata"]["ownerReferences"][0]["name"] = "gone"
    pods = [PodInfo(p) for p in (pod("a", owner=False), other, pod("b"), copy.deepcopy(other) | {})]
    status = computed(budget("a", maxUnavailable=1), NamespacePods(pods), controllers_of([RS]))
    assert status.failed == 'found no controllers for pod "z"' and status == plain(budget("a", maxUnavailable=1), pods)


def test_readers_of_the_same_pods_share_their_namespaces(counted):
    objs = [pod("a"), pod("b", namespace="other"), pod("c"), pod("d", namespace="other")]
    first = pods_by_namespace(objs)
    again = pods_by_namespace([PodInfo(o) for o in objs])       # (the same objects, as PodInfos)
    assert all(again[ns] is first[ns] for ns in first)
    computed(budget("a", minAvailable=1), first["ns"], controllers_of([RS]))
    computed(budget("a", minAvailable=1), again["ns"], controllers_of([RS]))
    assert len(counted) == 1


def test_a_namespace_whose_pods_changed_is_computed_again_and_only_it(counted):
    objs = [pod("a"), pod("b", namespace="other"), pod("c"), pod("d", namespace="other")]
    pdbs = [budget("a", maxUnavailable=1), budget("o", namespace="other", maxUnavailable=1)]
    first = pods_by_namespace(objs)
    before = [computed(b, first[b["metadata"]["namespace"]], controllers_of([RS])) for b in pdbs]
    deleting = copy.deepcopy(objs[2])
    deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"     # (a victim terminating)
    changed = pods_by_namespace([objs[0], objs[1], deleting, objs[3]])
    assert changed["other"] is first["other"] and changed["ns"] is not first["ns"]
    after = [computed(b, changed[b["metadata"]["namespace"]], controllers_of([RS])) for b in pdbs]
    assert len(counted) == 3        # (ns twice, other once)
    assert after[1] == before[1] and (before[0].current_healthy, after[0].current_healthy) == (2, 1)
    assert after[0] == plain(pdbs[0], list(changed["ns"]))
    left_out = pods_by_namespace([objs[0], objs[1], objs[3]])       # (a pod left out: another version)
    assert computed(pdbs[0], left_out["ns"], controllers_of([RS])).current_healthy == 1


def test_a_list_changed_after_it_was_read_is_read_again():
    objs = [pod("a"), pod("b")]
    first = pods_by_namespace(objs)
    objs.append(pod("c"))
    assert len(pods_by_namespace(objs)["ns"]) == 3 and len(first["ns"]) == 2


def test_pods_added_to_a_namespace_extend_its_selections(counted):
    base = NamespacePods(PodInfo(pod(f"p{i}", owner=i != 0)) for i in range(4))
    finders = controllers_of([RS])
    pdb = budget("a", maxUnavailable=1)
    computed(pdb, base, finders)
    added = [PodInfo(pod("new-0", ready=False)), PodInfo(pod("new-1", app="db")), PodInfo(pod("new-2", owner=False))]
    grown = base.with_added(added)
    status = computed(pdb, grown, finders)
    assert counted == [4, 6]        # (the grown one from its parent's: no pass over the namespace)
    assert status == plain(pdb, list(grown)) and status.unmanaged == ("p0", "new-2")
    assert status.selected == 6 and status.current_healthy == 5


def test_notes_read_the_same_pods_once(counted):
    objs = [(o, None) for o in [budget("a", maxUnavailable=1), budget("b", minAvailable=1), RS,
                                pod("a"), pod("b", ready=False)]]
    said = notes(objs)
    assert notes(list(objs)) == said and len(counted) == 1
    assert "currentHealthy 1, desiredHealthy 3, expectedPods 4" in said[0]


@pytest.mark.parametrize("order", [[0, 2, 3, 4], [4, 3, 0, 1, 2, 5], [5, 0, 1]])
def test_another_version_selects_from_the_kept_ones(counted, monkeypatch, order):
    """A reader that leaves pods out (CA's expendable and pending pods), lists them in another order
    (Karpenter's bound, then pending) or adds one: its namespace is selected from the kept version's
    selection, not indexed again; the answer is the one computed from scratch."""
    objs = [pod(f"p{i}", ready=i != 3, owner=i != 4, app="web" if i != 1 else "db") for i in range(5)] + [pod("new")]
    pdb = budget("a", maxUnavailable=1)
    first = pods_by_namespace(objs[:5])["ns"]
    computed(pdb, first, controllers_of([RS]))
    indexed = []
    real = NamespacePods._by_key
    monkeypatch.setattr(NamespacePods, "_by_key", lambda self, key: indexed.append(key) or real(self, key))
    other = pods_by_namespace([objs[i] for i in order])["ns"]
    status = computed(pdb, other, controllers_of([RS]))
    assert not indexed and len(counted) == 2
    assert status == plain(pdb, list(other)) and [p.name for p in other.selection(parse_selector(
        pdb["spec"]["selector"])).pods] == [p.name for p in other if p.labels["app"] == "web"]


def counting(rule):
    """`rule` with the number of pods it was asked of."""
    asked: list[int] = []

    def healthy(p):
        asked.append(1)
        return rule(p)
    return healthy, asked


def test_the_same_pods_in_another_order_carry_their_healthy_counts_and_references(counted, monkeypatch):
    """A pass that lists a namespace's pods in its own order (by node, say) counts none healthy again
    and reads no controller reference again: `Selection.reordered`."""
    objs = [pod(f"p{i}", ready=i % 3 != 0) for i in range(9)]
    healthy, asked = counting(disruption.is_healthy)
    pdb = budget("a", maxUnavailable=1)
    first = disruption.statuses_of([pdb], [PodInfo(o) for o in objs], [RS], healthy)
    count = len(asked)
    read = []
    monkeypatch.setattr(disruption, "_reference_key", lambda p, real=disruption._reference_key: read.append(p)
                        or real(p))
    again = disruption.statuses_of([pdb], [PodInfo(o) for o in reversed(objs)], [RS], healthy)
    assert len(asked) == count and not read
    assert len(counted) == 2        # (the second a selection of its own, in its order)
    assert again[id(pdb)][1] == first[id(pdb)][1] == plain(pdb, [PodInfo(o) for o in reversed(objs)])


def test_a_reordered_selection_names_its_own_first_pod_whose_controller_is_missing(counted):
    objs = [pod(f"p{i}") for i in range(4)]
    for o in objs[2:]:
        o["metadata"]["ownerReferences"][0]["name"] = "gone"
    pdb = budget("a", maxUnavailable=1)
    found = disruption.statuses_of([pdb], [PodInfo(o) for o in objs], [RS])
    assert found[id(pdb)][1].failed == 'found no controllers for pod "p2"'
    again = disruption.statuses_of([pdb], [PodInfo(o) for o in reversed(objs)], [RS])
    assert again[id(pdb)][1].failed == 'found no controllers for pod "p3"'
    assert again[id(pdb)][1] == plain(pdb, [PodInfo(o) for o in reversed(objs)])


def test_unmanaged_pods_in_another_order_are_said_in_that_order(counted):
    objs = [pod(f"p{i}", owner=i % 2 == 0) for i in range(6)]
    pdb = budget("a", minAvailable="50%")
    disruption.statuses_of([pdb], [PodInfo(o) for o in objs], [RS])
    again = disruption.statuses_of([pdb], [PodInfo(o) for o in reversed(objs)], [RS])
    assert again[id(pdb)][1].unmanaged == ("p5", "p3", "p1")


def test_pods_of_one_kind_are_listed_without_a_call_per_pod(counted, monkeypatch):
    """A namespace's pods all objects (a dump's) or all plain `PodInfo`s (a pass's): their objects and
    namespaces read in C, no function of ours called per pod; the versions those of a call per pod."""
    asked: list[object] = []
    monkeypatch.setattr(disruption, "_object_of", lambda p, real=disruption._object_of: asked.append(p) or real(p))
    objs = [pod(f"p{i}", namespace=f"ns{i % 2}") for i in range(6)]
    by_objects = pods_by_namespace(objs)
    by_infos = pods_by_namespace([PodInfo(o) for o in objs])
    assert not asked
    assert sorted(by_objects) == sorted(by_infos) == ["ns0", "ns1"]
    assert [p.name for p in by_objects["ns1"]] == ["p1", "p3", "p5"]
    assert by_infos["ns0"] is by_objects["ns0"]      # (the very pod objects: one version)

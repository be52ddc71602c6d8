"""A namespace's pods indexed by label value: a budget's selector selects what matching every pod would."""
from __future__ import annotations

import pytest

from kexplain.controllers.disruption import NamespacePods, computed, controllers_of, selected_by
from kexplain.model.labels import parse_selector
from kexplain.model.pod import PodInfo


def pod(name: str, **labels: str) -> PodInfo:
    return PodInfo({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns", "labels": labels},
                    "spec": {"nodeName": "n"}, "status": {"conditions": [{"type": "Ready", "status": "True"}]}})


PODS = [pod("a", app="web", tier="front"), pod("b", app="db"), pod("c", app="web"), pod("d"),
        pod("e", app="cache", tier="front"), pod("f", app="web", tier="back")]

SELECTORS = [
    {"matchLabels": {"app": "web"}},
    {"matchLabels": {"app": "web", "tier": "front"}},
    {"matchExpressions": [{"key": "app", "operator": "In", "values": ["cache", "web"]}]},
    {"matchExpressions": [{"key": "app", "operator": "In", "values": ["db", "web"]},
                          {"key": "tier", "operator": "NotIn", "values": ["back"]}]},
    {"matchExpressions": [{"key": "tier", "operator": "Exists"}]},
    {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["web"]}]},
    {"matchLabels": {"app": "none"}},
    {},
    None,
]


@pytest.mark.parametrize("raw", SELECTORS)
def test_the_index_selects_what_matching_every_pod_selects_in_order(raw):
    selector = parse_selector(raw)
    plain = [p.name for p in PODS if not selector.nothing and selector.matches(p.labels)]
    indexed = NamespacePods(PODS)
    assert [p.name for p in selected_by(selector, indexed)] == plain
    assert [p.name for p in selected_by(selector, indexed)] == plain     # (the index made once, asked again)
    assert [p.name for p in selected_by(selector, PODS)] == plain


def test_a_budgets_status_is_the_same_over_indexed_pods():
    budget = {"kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "ns"},
              "spec": {"selector": {"matchLabels": {"app": "web"}}, "minAvailable": 2}}
    controllers = controllers_of([])
    assert computed(budget, NamespacePods(PODS), controllers) == computed(budget, PODS, controllers)
    assert computed(budget, NamespacePods(PODS), controllers).current_healthy == 3


def test_the_notes_statuses_are_the_ones_the_snapshot_gets_each_computed_once(monkeypatch):
    from kexplain.controllers import disruption
    budget = {"kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "ns"},
              "spec": {"selector": {"matchLabels": {"app": "web"}}, "minAvailable": 2}}
    pods = [p.obj for p in PODS]
    kept: disruption.Statuses = {}
    said = disruption.notes([(o, None) for o in [budget, *pods]], kept=kept)
    assert len(said) == 1 and kept[id(budget)][0] is budget
    calls = []
    real = disruption.computed
    monkeypatch.setattr(disruption, "computed", lambda *a, **k: calls.append(a) or real(*a, **k))
    given = disruption.with_status([budget], pods, kept)[0]["status"]
    assert calls == []                  # taken as the notes computed it
    assert given == disruption.with_status([budget], pods)[0]["status"] and len(calls) == 1
    other = {**budget, "metadata": {"name": "web", "namespace": "ns"}}     # an equal budget, another object
    disruption.with_status([other], pods, kept)
    assert len(calls) == 2              # computed: only the same object is taken as known

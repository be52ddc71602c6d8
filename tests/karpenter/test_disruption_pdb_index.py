"""pdb.Limits finds a pod's PodDisruptionBudgets through an index on the label pairs their selectors
require (disruption_bench's 30,000 pods against 300 budgets): the same budgets, in the same order,
as matching every budget of the namespace, for every kind of selector."""
from __future__ import annotations

import itertools

from kexplain.karpenter.disruption.pods import Limits
from kexplain.model.pod import PodInfo


def _pdb(name: str, selector: object, namespace: str = "default") -> dict:
    return {"metadata": {"name": name, "namespace": namespace}, "spec": {"selector": selector},
            "status": {"disruptionsAllowed": 1}}


SELECTORS = {
    "app-web": {"matchLabels": {"app": "web"}},
    "app-web-tier": {"matchLabels": {"tier": "front", "app": "web"}},
    "in-web-api": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "api"]}]},
    "not-api": {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["api"]}]},
    "has-tier": {"matchExpressions": [{"key": "tier", "operator": "Exists"}]},
    "everything": {},
    "nothing": None,
    "app-api": {"matchLabels": {"app": "api"}},
}


def _pod(labels: dict[str, str], namespace: str = "default") -> PodInfo:
    return PodInfo({"metadata": {"name": "p", "namespace": namespace, "labels": labels}, "spec": {}})


def test_the_index_finds_what_matching_every_budget_finds() -> None:
    limits = Limits([_pdb(n, s) for n, s in SELECTORS.items()] + [_pdb("elsewhere", {}, "other")])
    for app, tier in itertools.product(("web", "api", "db", None), ("front", None)):
        labels = {k: v for k, v in (("app", app), ("tier", tier)) if v is not None}
        pod = _pod(labels)
        want = [p.key for p in limits.items if p.namespace == "default" and p.selector.matches(labels)]
        assert [p.key for p in limits.matching(pod)] == want, labels
        assert [p.key for p in limits.matching(pod)] == want            # (asked again: the same)
    assert [p.key for p in limits.matching(_pod({"app": "web"}, "other"))] == ["other/elsewhere"]
    assert limits.matching(_pod({"app": "web"}, "none")) == []


def test_a_pod_under_two_budgets_cannot_be_evicted_and_names_both() -> None:
    from datetime import datetime, timezone

    from kexplain.karpenter.disruption.events import Recorder

    limits = Limits([_pdb("a", {"matchLabels": {"app": "web"}}), _pdb("b", {"matchExpressions": [
        {"key": "app", "operator": "NotIn", "values": ["db"]}]})])
    keys, ok = limits.can_evict_pods([_pod({"app": "web"})], datetime(2026, 1, 1, tzinfo=timezone.utc), Recorder())
    assert (keys, ok) == (["default/a", "default/b"], False)


def test_a_pod_reads_only_the_budgets_its_labels_name(monkeypatch) -> None:
    """300 budgets of one namespace, one per app: a pod's budgets are found with a selector match
    or two, once per pass, not 300 per method and simulation (a count, not a time)."""
    from kexplain.model import labels as model_labels

    limits = Limits([_pdb(f"app-{i}", {"matchLabels": {"app": f"app-{i}"}}) for i in range(300)])
    calls = []
    real = model_labels.LabelSelector.matches
    monkeypatch.setattr(model_labels.LabelSelector, "matches", lambda self, lb: calls.append(1) or real(self, lb))
    pod = _pod({"app": "app-7", "pod-template-hash": "5d8f7c"})
    for _ in range(5):
        assert [p.key for p in limits.matching(pod)] == ["default/app-7"]
    assert len(calls) == 1

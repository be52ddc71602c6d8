"""Karpenter's disruption pass computes the status of each budget written without one of every pod of
its input, its bound pods then its pending ones (`disruption.helpers.budget_statuses`): the same statuses
as `controllers.disruption.statuses_of` of that list, but each namespace's bound pods are the version
another reader of the same pods made (the cluster state's notes, CA, the drains), its selections shared,
and the pending pods added to it (`NamespacePods.with_added`): only they are read again."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from kexplain.controllers import disruption as pdbs
from kexplain.karpenter.disruption.helpers import WORKLOAD_KINDS, budget_statuses
from kexplain.model.pod import PodInfo

RS = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "a", "uid": "rs-a"},
      "spec": {"replicas": 6}}
OWNER = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs-a", "controller": True}]


def _pod(name: str, namespace: str, *, bound: bool, app: str = "web", ready: str | None = None) -> PodInfo:
    status: dict = {"phase": "Running" if bound else "Pending"}
    if ready is not None:
        status["conditions"] = [{"type": "Ready", "status": ready}]
    return PodInfo({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": name, "namespace": namespace, "labels": {"app": app},
                                 "ownerReferences": OWNER},
                    "spec": {"containers": [{"name": "c", "image": "x"}], **({"nodeName": "n1"} if bound else {})},
                    "status": status})


def _pdb(name: str, namespace: str, spec: dict) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec}}


def _inputs(tag: str) -> SimpleNamespace:
    bound = [_pod(f"{tag}-b{i}", "a", bound=True, ready="False" if i == 2 else None) for i in range(5)]
    bound += [_pod(f"{tag}-c{i}", "c", bound=True) for i in range(2)]
    bound += [_pod(f"{tag}-o{i}", "a", bound=True, app="other") for i in range(2)]
    pending = [_pod(f"{tag}-p{i}", "a", bound=False) for i in range(2)] + [_pod(f"{tag}-q0", "d", bound=False)]
    budgets = [_pdb("max", "a", {"maxUnavailable": "50%"}), _pdb("min", "a", {"minAvailable": 2}),
               _pdb("pct", "a", {"minAvailable": "50%"}), _pdb("c", "c", {"maxUnavailable": 1}),
               _pdb("d", "d", {"maxUnavailable": 0}), _pdb("none", "e", {"minAvailable": 1})]
    return SimpleNamespace(bound_pods=bound, pending=pending, objects={"ReplicaSet": [RS],
                                                                       "PodDisruptionBudget": budgets})


def _statuses_of(inputs) -> dict:
    controllers = [o for kind in WORKLOAD_KINDS for o in inputs.objects.get(kind, ())]
    return pdbs.statuses_of(inputs.objects["PodDisruptionBudget"], [*inputs.bound_pods, *inputs.pending], controllers)


@pytest.mark.parametrize("listed_before", [False, True])
def test_the_statuses_are_statuses_of_every_pod(listed_before):
    inputs, again = _inputs(f"s{listed_before}"), _inputs(f"t{listed_before}")
    if listed_before:           # (another reader of the bound pods: their version kept)
        pdbs.statuses_of(inputs.objects["PodDisruptionBudget"], inputs.bound_pods, [RS])
    got = budget_statuses(inputs, inputs.objects["PodDisruptionBudget"])
    want = _statuses_of(again)
    assert [(pdb["metadata"]["name"], str(status).replace(f"s{listed_before}-", "")) for pdb, status in got.values()] \
        == [(pdb["metadata"]["name"], str(status).replace(f"t{listed_before}-", "")) for pdb, status in want.values()]
    assert [s.selected for _, s in got.values()] == [7, 7, 7, 2, 1, 0]


def test_only_the_pending_pods_are_read_again_after_another_reader(monkeypatch):
    inputs = _inputs("r")
    pdbs.statuses_of(inputs.objects["PodDisruptionBudget"], inputs.bound_pods, [RS])     # (the other reader)
    read: list[str] = []
    added = pdbs._References.added

    def counted(self, pods):
        read.extend(p.name for p in pods)
        return added(self, pods)
    monkeypatch.setattr(pdbs._References, "added", counted)
    budget_statuses(inputs, inputs.objects["PodDisruptionBudget"])
    assert sorted(read) == ["r-p0", "r-p1", "r-q0"]      # (the pending pods alone, each once)

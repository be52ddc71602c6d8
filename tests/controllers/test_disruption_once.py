"""The disruption controller's statuses computed once per cluster state (`ClusterState.budgets`),
with the one countHealthyPods rule for its pods (`disruption.healthy_rule`): read as stored, the
controller's own (IsPodReady: no Ready condition, not healthy); written as manifests, a bound pod
saying nothing of readiness is taken as ready. The notes, the snapshot and the drain read the same
statuses; a stored pod's Ready condition is read off its view."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from kexplain.apimachinery.pod_lists import dump_list
from kexplain.app.eviction.request import EvictRequest, read_state
from kexplain.controllers.disruption import healthy_as_stored, is_healthy, known_status
from kexplain.explain.inputs import read_config
from kexplain.features.kube_version import resolve
from kexplain.model.pod import PodInfo
from kexplain.state.cluster import state_of
from tests.eviction.drain_cluster import budget, node, pod, workload, write

KUBE = resolve(None, None)[0]


def objects() -> list[dict]:
    """web: three pods of a Deployment's ReplicaSet; one says nothing of readiness, one is not ready."""
    silent = pod("web-c", ("apps/v1", "ReplicaSet", "web-1"), node_name="node-b")
    silent["status"] = {"phase": "Running"}
    unready = pod("web-b", ("apps/v1", "ReplicaSet", "web-1"))
    unready["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    rs = workload("ReplicaSet", "web-1", 3, "web")
    rs["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                                          "uid": "uid-web", "controller": True}]
    deployment = workload("Deployment", "web", 4, "web")
    return [node("node-a"), node("node-b"), deployment, rs, pod("web-a", ("apps/v1", "ReplicaSet", "web-1")),
            unready, silent, budget("web-pdb", "web", maxUnavailable=1)]


def state(tmp_path, stored: bool):
    if stored:
        req = EvictRequest("node-a", (str(write(tmp_path / "c.yaml", objects())),), datetime.now(timezone.utc), KUBE)
        return read_state(req)
    from kexplain.load.manifests import load_objects
    loaded = load_objects((str(write(tmp_path / "c.yaml", objects())),), 10 ** 8)
    return state_of(loaded, read_config(None, kube=KUBE), stored=False)


@pytest.mark.parametrize("stored, healthy", [(True, 1), (False, 2)])
def test_one_status_per_budget_with_the_states_rule(tmp_path, stored, healthy):
    st = state(tmp_path, stored)
    (pdb, status), = st.budgets.values()
    assert known_status(st.budgets, pdb) is status
    # the Deployment's 4 replicas are the expected scale (a finder the state keeps apart from its kinds)
    assert (status.current_healthy, status.expected_pods, status.desired_healthy) == (healthy, 4, 3)
    note = next(w for w in st.warnings if "web-pdb" in w)
    assert f"currentHealthy {healthy}, desiredHealthy 3, expectedPods 4" in note
    written, = st.snapshot.of_kind("PodDisruptionBudget")
    assert written["status"]["currentHealthy"] == healthy


def test_the_drain_reads_the_states_statuses(tmp_path, monkeypatch):
    """The drain computes no status the state computed (only those of budgets a fix changed)."""
    from kexplain.app.eviction import drain, drain_budgets

    asked: list[dict] = []
    real = drain_budgets.computed
    monkeypatch.setattr(drain_budgets, "computed", lambda pdb, *args: asked.append(pdb) or real(pdb, *args))
    req = EvictRequest("node-a", (str(write(tmp_path / "c.yaml", objects())),), datetime.now(timezone.utc), KUBE,
                       {"force": True})
    st = read_state(req)
    monkeypatch.setattr(drain, "read_cluster", lambda *_, **__: (st, {}))
    doc = drain.document(req)
    assert doc["pdbs"][0]["status"]["currentHealthy"] == 1 and doc["pdbs"][0]["statusFrom"] == "disruption-controller"
    assert doc["fixes"] and asked and all(pdb["metadata"]["generation"] > 1 for pdb in asked)   # (fixes')


STATUSES = [{"phase": "Running"}, {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
            {"conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}]},
            {"conditions": [{"type": "Ready"}]}, {"phase": "Succeeded"}]


@pytest.mark.parametrize("status", STATUSES)
def test_a_stored_pods_ready_condition_is_read_off_its_view(status):
    obj = pod("p", None)
    obj["status"] = status
    obj["metadata"]["resourceVersion"] = "1"
    read = dump_list(json.dumps({"apiVersion": "v1", "kind": "List", "items": [obj]}).encode())
    stored = PodInfo(read["items"][0])
    plain = PodInfo(obj)
    assert stored.condition_status("Ready") == plain.condition_status("Ready")
    assert (is_healthy(stored), healthy_as_stored(stored)) == (is_healthy(plain), healthy_as_stored(plain))
    assert read["items"][0]._obj is None        # (the object itself never decoded for it)


def test_the_pods_the_statuses_read_are_the_drains(tmp_path):
    """The state keeps the pods by namespace its statuses were computed of; the drain's index takes
    them as they are (their label indexes built once), not a PodInfo per pod again."""
    from kexplain.app.eviction.drain_index import DrainIndex

    st = state(tmp_path, stored=True)
    assert [p.name for p in st.budget_pods["default"]] == ["web-a", "web-b", "web-c"]
    index = DrainIndex.of((o for o, _ in (*st.objects, *st.other_kinds)), st.budget_pods)
    assert index.pods["default"] is st.budget_pods["default"] and len(index.pdbs) == 1
    assert ("Deployment", "default", "web") in index.workloads

"""A blocked drain's fixes ask each question once: the budget changes together are drained once
(`settled` hands its drain on), and a scale fix's new pods are placed once per shapes and cordoned cluster
(`Cordoned.nodes`: a workload asked for fewer pods reads the first ones' nodes). The answers are
those worked out afresh."""
from __future__ import annotations

from datetime import datetime, timezone

from kexplain.app.eviction import drain as drain_module, drain_fixes
from kexplain.app.eviction.drain import document, shared_cordoned
from kexplain.app.eviction.drain_fixes import SCALED, Cordoned, with_replicas
from kexplain.app.eviction.replacements import cordoned
from kexplain.app.eviction.request import EvictRequest, read_state
from kexplain.controllers.workloads import pod_from_workload
from kexplain.features.kube_version import resolve
from kexplain.model.pod import PodInfo
from tests.eviction.drain_cluster import budget, cluster, node, pod, workload, write

KUBE = resolve(None, None)[0]
NOW = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)


def blocked(tmp_path) -> EvictRequest:
    """node-a's drain blocked by three budgets (web's, db's, api's), each relaxed, all three together."""
    objects = cluster({"minAvailable": 2}, b_pods=20, c_pods=20) + [
        workload("ReplicaSet", "api-5f6", 2, "api"),
        pod("api-5f6-aaaaa", ("apps/v1", "ReplicaSet", "api-5f6"), app="api"),
        pod("api-5f6-bbbbb", ("apps/v1", "ReplicaSet", "api-5f6"), app="api"),
        budget("api-pdb", "api", minAvailable="100%")]
    for o in objects:
        if o["kind"] == "PodDisruptionBudget" and o["metadata"]["name"] == "db-pdb":
            o["spec"] = {"selector": o["spec"]["selector"], "maxUnavailable": 0}
    return EvictRequest("node-a", (str(write(tmp_path / "c.yaml", objects)),), NOW, KUBE)


def test_the_budget_changes_together_are_drained_once(tmp_path, monkeypatch):
    req = blocked(tmp_path)
    drained = []
    real = drain_module.drain
    monkeypatch.setattr(drain_module, "drain", lambda index, *a, **k: drained.append(index) or real(index, *a, **k))
    doc = document(req)
    together = [f for f in doc["fixes"] if f["fix"].count(";") >= 2]
    assert together and together[0]["drains"]
    assert len(drained) == len({id(i) for i in drained})         # no index drained twice


def scaled_nodes(req: EvictRequest, asks: list[tuple[dict, int, int]], monkeypatch) -> tuple[list, int]:
    """Each ask (creator, first ordinal, new pods) of one cordoned cluster's `nodes`, and how many
    placements ran."""
    state = read_state(req)
    here = Cordoned(cordoned(state, "node-a", []))
    ran = []
    real = drain_fixes.placements
    monkeypatch.setattr(drain_fixes, "placements", lambda *a, **k: ran.append(1) or real(*a, **k))
    evicted = PodInfo(pod("web-7d9-aaaaa", ("apps/v1", "ReplicaSet", "web-7d9")))
    answers = [here.nodes(creator, first, [pod_from_workload(creator, SCALED, first + i) for i in range(n)], evicted)
               for creator, first, n in asks]
    return answers, len(ran)


def test_new_pods_are_placed_once_per_shapes_and_a_shorter_ask_reads_a_longer_one(tmp_path, monkeypatch):
    objects = cluster(b_pods=2, c_pods=1) + [node("node-d", 1)]
    req = EvictRequest("node-a", (str(write(tmp_path / "c.yaml", objects)),), NOW, KUBE)
    web = next(o for o in objects if o["kind"] == "ReplicaSet")
    more = with_replicas(web, 2)            # a fix's copy: another object, another first ordinal
    answers, ran = scaled_nodes(req, [(web, 102, 4), (web, 102, 2), (more, 104, 3), (web, 102, 4)], monkeypatch)
    assert ran == 1
    alone = [scaled_nodes(req, [ask], monkeypatch)[0][0] for ask in [(web, 102, 2), (more, 104, 3)]]
    assert answers[1:3] == alone and answers[0][:2] == alone[0] and answers[3] == answers[0]
    assert None in answers[0] and answers[0][0] is not None         # the last one does not fit


def test_a_statefulsets_new_pods_with_claims_are_not_read_from_a_longer_ask(tmp_path, monkeypatch):
    from tests.eviction.test_drain_fixes import with_claims
    objects = with_claims(cluster())
    req = EvictRequest("node-a", (str(write(tmp_path / "c.yaml", objects)),), NOW, KUBE)
    db = next(o for o in objects if o["kind"] == "StatefulSet")
    answers, ran = scaled_nodes(req, [(db, 2, 2), (db, 2, 1), (db, 2, 2)], monkeypatch)
    assert ran == 2 and answers[2] == answers[0]     # the claims made for one pod are not those for two


def test_a_node_cordoned_already_leaves_the_states_own_snapshot(tmp_path):
    objects = cluster()
    objects[0]["spec"]["unschedulable"] = True          # node-a, cordoned already
    state = read_state(EvictRequest("node-a", (str(write(tmp_path / "c.yaml", objects)),), NOW, KUBE))
    assert shared_cordoned(state).state.snapshot is state.snapshot     # what was built on it serves the drains
    assert cordoned(state, "node-a", []).snapshot is state.snapshot
    other = cordoned(state, "node-b", [])
    assert other.snapshot is not state.snapshot and other.snapshot.get("node-b").node.unschedulable
    assert not state.snapshot.get("node-b").node.unschedulable

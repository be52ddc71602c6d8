"""Pod set groups (`kueue.x-k8s.io/podset-group-name`) placed together by the TAS flavor assigner
(kexplain/kueue/cache/tas_leader.py, the snapshot's `find` with a leader, the flavor assigner's
grouping): the leader's one pod and the workers in one domain of the requested level, counts that
take the leader's requests off the leader's node, Kueue's message when only the workers fit, v0.17's
and v0.19's rules, and the per-level report naming who falls short."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.kueue.apis.topology import DomainAssignment, TopologyAssignment, TopologyRequest
from kexplain.kueue.cache.tas_snapshot import PodSetRequest, TASFlavorSnapshot
from kexplain.kueue.cache import tas_report
from tests.support.cli_helpers import run_cli as kexplain
from tests.kueue.test_tas import TAS_TOPOLOGY

HOST = "kubernetes.io/hostname"
LEVELS = ("block", "rack", HOST)


def snap_of(nodes: list[tuple[str, str, str, dict]], levels: tuple[str, ...] = LEVELS,
            used: dict[str, dict] | None = None) -> TASFlavorSnapshot:
    """A snapshot of (name, block, rack, allocatable) nodes, less `used` (non-TAS usage per node)."""
    snap = TASFlavorSnapshot("topo", levels)
    for name, block, rack, alloc in nodes:
        labels = {"block": block, "rack": rack, HOST: name}
        snap.add_node({"metadata": {"name": name, "labels": labels}, "spec": {}}, dict(alloc))
    snap.initialize()
    for name, usage in (used or {}).items():
        snap.add_non_tas_usage(name, usage)
    return snap


def ps(name: str, count: int, cpu: int, **kw) -> PodSetRequest:
    return PodSetRequest(name, count, {"cpu": cpu}, {}, TopologyRequest(pod_set_group="g", **kw), False)


def hosts(*pairs: tuple[str, int]) -> TopologyAssignment:
    return TopologyAssignment((HOST,), tuple(DomainAssignment((h,), n) for h, n in pairs))


CPU = {"cpu": 2800, "pods": 10}
ONLY_WORKERS_FIT = [("small-used", "b1", "small", CPU), ("small-free", "b1", "small", CPU)]
LARGE = ("large-free", "b1", "large", {"cpu": 6000, "pods": 10})


def test_the_group_goes_to_the_rack_that_holds_the_leader_beside_the_workers() -> None:
    # rack `small` holds the one worker (or the leader), not both; rack `large` holds both
    snap = snap_of([*ONLY_WORKERS_FIT, LARGE], used={"small-used": {"cpu": 2500}})
    placed = snap.find(ps("workers", 1, 2500, required="rack"), {}, leader=ps("leader", 1, 2500, required="rack"))
    assert placed.reason == ""
    assert placed.assignment == hosts(("large-free", 1)) and placed.leader == hosts(("large-free", 1))


def test_only_the_workers_fitting_is_refused_with_kueues_text() -> None:
    snap = snap_of(ONLY_WORKERS_FIT, used={"small-used": {"cpu": 2500}})
    workers = ps("workers", 1, 2500, required="rack")
    alone = snap.find(workers, {})
    assert alone.assignment == hosts(("small-free", 1))
    refused = snap.find(workers, {}, leader=ps("leader", 1, 2500, required="rack"))
    # findLevelWithFitDomains: the top domain's workers without the leader, out of the workers wanted
    assert refused.assignment is None and refused.leader is None
    assert refused.reason == ('topology "topo" allows to fit only 1 out of 1 pod(s). Total nodes: 2; '
                              'excluded: resource "cpu": 1')


def test_the_leaders_requests_come_off_its_node_and_the_workers_fill_the_rest() -> None:
    # one rack, two nodes of 4 cpus: the leader (2 cpus) and 5 workers of 1 cpu fit together
    nodes = [("n1", "b1", "r1", {"cpu": 4000, "pods": 10}), ("n2", "b1", "r1", {"cpu": 4000, "pods": 10})]
    snap = snap_of(nodes)
    leader = ps("leader", 1, 2000, required="rack")
    placed = snap.find(ps("workers", 5, 1000, required="rack"), {}, leader=leader)
    assert placed.leader == hosts(("n1", 1)) or placed.leader == hosts(("n2", 1))
    assert placed.assignment is not None and sum(d.count for d in placed.assignment.domains) == 5
    on_leader = placed.leader.domains[0].values
    assert {d.values: d.count for d in placed.assignment.domains}[on_leader] == 2
    assert snap.find(ps("workers", 7, 1000, required="rack"), {}, leader=leader).reason == \
        'topology "topo" allows to fit only 8 out of 7 pod(s)'     # (Kueue reports the workers alone)


def test_a_group_in_a_one_level_topology_as_kueue_places_it() -> None:
    nodes = [("b1", "b1", "", {"cpu": 2000, "gpu": 2, "pods": 10}), ("b2", "b2", "", {"cpu": 5000, "gpu": 4, "pods": 10}),
             ("b3", "b3", "", {"cpu": 2000, "gpu": 2, "pods": 10})]
    snap = TASFlavorSnapshot("topo", ("block",))
    for name, block, _, alloc in nodes:
        snap.add_node({"metadata": {"name": name, "labels": {"block": block}}}, dict(alloc))
    snap.initialize()
    workers = PodSetRequest("workers", 4, {"cpu": 1000, "gpu": 1}, {}, TopologyRequest(required="block"), False)
    placed = snap.find(workers, {}, leader=ps("leader", 1, 1000, required="block"))
    b2 = TopologyAssignment(("block",), (DomainAssignment(("b2",), 4),))
    assert placed.assignment == b2 and placed.leader == TopologyAssignment(("block",), (DomainAssignment(("b2",), 1),))


def test_the_leader_takes_a_node_no_worker_fits_beside_and_the_workers_the_others() -> None:
    nodes = [(f"n{i}", "b1", "r1", {"gpu": 8, "pods": 10}) for i in range(3)]
    workers = PodSetRequest("workers", 2, {"gpu": 8}, {}, TopologyRequest(required="rack", pod_set_group="g"), False)
    leader = PodSetRequest("leader", 1, {"gpu": 4}, {}, TopologyRequest(required="rack", pod_set_group="g"), False)
    for prioritized in (False, True):
        placed = snap_of(nodes).find(workers, {}, leader=leader, prioritized=prioritized)
        assert placed.leader == hosts(("n0", 1)) and placed.assignment == hosts(("n1", 1), ("n2", 1))


def test_v017s_best_fit_picks_a_node_without_the_leader_and_refuses_v019s_does_not() -> None:
    # A holds the leader and two workers beside it, B one worker and no leader
    nodes = [("a", "b1", "r1", {"cpu": 4000, "pods": 10}), ("b", "b1", "r1", {"cpu": 1000, "pods": 10})]
    workers, leader = ps("workers", 1, 1000, required=HOST), ps("leader", 1, 2000, required=HOST)
    v017 = snap_of(nodes).find(workers, {}, leader=leader)
    # findBestFitDomainBy (v0.17.8) takes B (the fewest beside the leader that still hold the one
    # worker), which holds no leader: refused, with B's workers alone in the message
    assert (v017.reason, v017.assignment) == ('topology "topo" allows to fit only 1 out of 1 pod(s)', None)
    v019 = snap_of(nodes).find(workers, {}, leader=leader, prioritized=True)
    assert v019.leader == hosts(("a", 1)) and v019.assignment == hosts(("a", 1))


def test_the_report_says_which_of_leader_and_workers_falls_short() -> None:
    snap = snap_of(ONLY_WORKERS_FIT, used={"small-used": {"cpu": 2500}})
    workers, leader = ps("workers", 1, 2500, required="rack"), ps("leader", 1, 2500, required="rack")
    failed = snap.find(workers, {}, leader=leader)
    explained = tas_report.explained(snap, workers, failed, {}, leader=leader)
    rack = explained.closest[0]
    assert rack["level"] == "rack"
    assert {k: rack["domains"][0][k] for k in ("domain", "fit", "leaderFits", "fitWithLeader", "short", "shortOf")} == \
        {"domain": ["b1", "small"], "fit": 1, "leaderFits": True, "fitWithLeader": 0, "short": 1, "shortOf": "workers"}
    tight = snap_of([("n1", "b1", "r1", {"cpu": 1000, "pods": 10})])
    workers, leader = ps("workers", 1, 1000, required="rack"), ps("leader", 1, 3000, required="rack")
    refused = tight.find(workers, {}, leader=leader)
    entry = tas_report.explained(tight, workers, refused, {}, leader=leader).closest[0]["domains"][0]
    assert (entry["leaderFits"], entry["shortOf"]) == (False, "leader")


# -- through `kexplain kueue`: a LeaderWorkerSet and an MPIJob -------------------------------------
CLUSTER = TAS_TOPOLOGY + """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors: [{name: tas, resources: [{name: cpu, nominalQuota: "1000"}, {name: nvidia.com/gpu, nominalQuota: "100"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
"""
NODE = """---
apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{pool: gpu, rack: {rack}, kubernetes.io/hostname: {name}}}}}
status:
  allocatable: {{cpu: "16", pods: "110", nvidia.com/gpu: "8"}}
  conditions: [{{type: Ready, status: "True"}}]
"""
GROUPED = "{kueue.x-k8s.io/podset-required-topology: rack, kueue.x-k8s.io/podset-group-name: g}"
LWS = f"""apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {{name: serve, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 3
    leaderTemplate:
      metadata: {{annotations: {GROUPED}}}
      spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "4", nvidia.com/gpu: "2"}}}}}}]}}
    workerTemplate:
      metadata: {{annotations: {GROUPED}}}
      spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "4", nvidia.com/gpu: "8"}}}}}}]}}
"""
MPI = f"""apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {{name: mpi, namespace: default, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec:
  runPolicy: {{suspend: true}}
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        metadata: {{annotations: {GROUPED}}}
        spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "4", nvidia.com/gpu: "2"}}}}}}]}}
    Worker:
      replicas: 2
      template:
        metadata: {{annotations: {GROUPED}}}
        spec: {{containers: [{{name: c, image: x, resources: {{requests: {{cpu: "4", nvidia.com/gpu: "8"}}}}}}]}}
"""
# rack r-a: two nodes, the two workers fit (and best: exactly) but not the leader beside them; r-b: three
RACK_A = [("a1", "r-a"), ("a2", "r-a")]
RACK_B = [("b1", "r-b"), ("b2", "r-b"), ("b3", "r-b")]


def _kueue_doc(tmp_path: Path, nodes: list[tuple[str, str]], job: str, *extra: str) -> dict:
    (tmp_path / "cluster.yaml").write_text(CLUSTER + "".join(NODE.format(name=n, rack=r) for n, r in nodes))
    (tmp_path / "jobs.yaml").write_text(job)
    code, out, err = kexplain("kueue", str(tmp_path / "jobs.yaml"), "--nodes", str(tmp_path / "cluster.yaml"),
                              "--now", "2026-01-01T00:00:00Z", "--no-suggestions", "-o", "json", *extra)
    assert code in (0, 1), err
    return json.loads(out)


def _stored(doc: dict) -> dict[str, dict]:
    [wl] = doc["workloads"]
    return {p["name"]: p["topologyAssignment"] for p in wl.get("podSetAssignments") or ()}


@pytest.mark.parametrize("version", ["0.17", "0.19"])
def test_a_leaderworkerset_group_goes_to_the_rack_that_holds_its_leader_too(tmp_path: Path, version: str) -> None:
    doc = _kueue_doc(tmp_path, RACK_A + RACK_B, LWS, "--kueue-version", version)
    hostname = ["kubernetes.io/hostname"]
    assert _stored(doc) == {      # (v1beta2's slices, as Kueue stores them)
        "leader": {"levels": hostname, "slices": [{"domainCount": 1, "valuesPerLevel": [{"universal": "b1"}],
                                                   "podCounts": {"universal": 1}}]},
        "worker": {"levels": hostname, "slices": [{"domainCount": 2, "valuesPerLevel": [
            {"individual": {"prefix": "b", "roots": ["2", "3"]}}], "podCounts": {"universal": 1}}]}}


def test_a_leaderworkerset_group_only_its_workers_fit_is_refused_with_kueues_message(tmp_path: Path) -> None:
    doc = _kueue_doc(tmp_path, RACK_A + RACK_B[:2], LWS)
    [wl] = doc["workloads"]
    [cond] = [c for c in wl["conditions"] if c["type"] == "QuotaReserved"]
    # FindTopologyAssignmentsForWorkload gives both pod sets the reason; Kueue reports one (the first)
    assert cond["message"] == ("couldn't assign flavors to pod set leader: "
                               'topology "topo" allows to fit only 2 out of 2 pod(s)')
    assert wl["quotaReserved"] is False


def test_an_mpijobs_launcher_and_workers_grouped_are_placed_together(tmp_path: Path) -> None:
    stored = _stored(_kueue_doc(tmp_path, RACK_A + RACK_B, MPI))
    assert [s["valuesPerLevel"] for s in stored["launcher"]["slices"]] == [[{"universal": "b1"}]]
    assert [s["valuesPerLevel"] for s in stored["worker"]["slices"]] == [
        [{"individual": {"prefix": "b", "roots": ["2", "3"]}}]]

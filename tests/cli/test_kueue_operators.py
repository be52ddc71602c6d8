"""The chain for the operators' kinds Kueue manages (`kexplain FILE --nodes CLUSTER` with Kueue's
objects): a RayJob admitted becomes KubeRay's pods (named as KubeRay names them, the flavor's node
labels in them) and its submitter Job; the pod that fits no node goes to the Cluster Autoscaler,
which adds an on-demand node; held, its pod sets' templates are explained without taking room. A
LeaderWorkerSet's group pods, a PyTorchJob's and an MPIJob's, named as their controllers name
them; `kexplain kueue` in text and JSON."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import yaml

from tests.support.cli_helpers import run_cli
from tests.support.paths import FIXTURES

CASE = FIXTURES / "kueue"
CLUSTER = ["--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodes.yaml")]
RAYJOB = str(CASE / "rayjob.yaml")
SELECTOR = {"cloud.example.com/capacity": "on-demand"}
QUEUE = {"kueue.x-k8s.io/queue-name": "a-queue"}
# GetWorkloadNameForOwnerWithGVK: kind-name-hash, sha1 over kind, group, name and the fixture's uid
WORKLOAD = "rayjob-tune-" + hashlib.sha1(b"RayJob\nray.io\ntune\n5e9c1a7b-3d2f-4c8e-9a1b-7f6e5d4c3b2a").hexdigest()[:5]


kexplain = run_cli


def _json(*args: str) -> tuple[int, dict]:
    code, out, err = kexplain(*args, "-o", "json")
    assert out, err
    return code, json.loads(out)


def _spec(cpu: str) -> dict:
    return {"restartPolicy": "Never", "containers": [{"name": "c", "image": "registry.example.com/t:1",
                                                      "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}


def _write(tmp_path: Path, obj: dict) -> str:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(obj))
    return str(path)


def test_an_admitted_rayjob_is_kuberays_pods_through_the_scheduler_to_ca() -> None:
    code, doc = _json(RAYJOB, *CLUSTER, "--node-groups", str(CASE / "node-groups.yaml"))
    objects = [(p["object"]["kind"], p["object"]["name"]) for p in doc["placements"]]
    assert [k for k, _ in objects] == ["Pod", "Pod", "Job"]
    head, worker, submitter = (n for _, n in objects)
    cluster = re.fullmatch(r"(tune-raycluster-[b-z2-9]{5})-head-[b-z2-9]{5}", head)
    assert cluster is not None                                  # KubeRay's RayCluster of the RayJob, its head pod
    assert re.fullmatch(rf"{cluster.group(1)}-workers-worker-[b-z2-9]{{5}}", worker) and submitter == "tune"
    answers = [p["kueue"] for p in doc["placements"]]
    assert {a["verdict"] for a in answers} == {"Admitted"} and {a["workload"] for a in answers} == {f"team-a/{WORKLOAD}"}
    assert [a["podSet"] for a in answers] == ["head", "workers", "submitter"]
    assert all(ps["nodeSelector"] == SELECTOR for ps in answers[0]["podSets"])
    assert doc["placements"][0]["pods"][0]["node"] in ("od-1", "od-2")
    assert doc["placements"][1]["pods"][0]["status"] == "Unschedulable"      # 15Gi: no on-demand node has it free
    ca = doc["autoscaler"]
    assert ca["result"] == "ScaleUpSuccessful" and [p["name"] for p in ca["pods"]] == [worker]
    assert ca["pods"][0]["events"][0]["message"] == "pod triggered scale-up: [{on-demand-large 0->1 (max: 3)}]"
    assert code == 1


def test_the_text_says_kueues_answer_per_pod_set() -> None:
    code, out, _ = kexplain(RAYJOB, *CLUSTER, "--node-groups", str(CASE / "node-groups.yaml"))
    flat = " ".join(out.split())
    assert f"Kueue v0.17.8, LocalQueue a-queue (RayJob team-a/tune): Workload team-a/{WORKLOAD} is admitted " \
           "in ClusterQueue team-a-cq; the RayJob is unsuspended, its pods as Kueue sets them: Pod set workers: 1 " \
           "pod, flavor on-demand nodeSelector cloud.example.com/capacity=on-demand" in flat
    assert "pod triggered scale-up: [{on-demand-large 0->1 (max: 3)}]" in flat


def test_a_held_rayjob_has_no_pod_its_templates_explained_without_room(tmp_path: Path) -> None:
    obj = yaml.safe_load(Path(RAYJOB).read_text())
    obj["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["replicas"] = 3      # 8.5 cpu: more than team-a may use
    code, doc = _json(_write(tmp_path, obj), *CLUSTER)
    assert code == 1
    placements = doc["placements"]
    assert [p["kueue"]["podSet"] for p in placements] == ["head", "workers", "submitter"]    # one per pod set
    assert all(p["kueue"]["verdict"] == "Pending" for p in placements)
    assert placements[0]["kueue"]["idle"].startswith("RayJob team-a/tune is held by Kueue (spec.suspend true)")
    assert "explanation" in placements[0]["kueue"] and "explanation" not in placements[1]["kueue"]
    code, out, _ = kexplain(_write(tmp_path, obj), *CLUSTER)
    flat = " ".join(out.split())
    assert "is not admitted; the RayJob stays suspended (KubeRay creates no RayCluster)" in flat
    assert "KubeRay creates no pod until its Workload is admitted; its template, explained without taking room" in flat


def test_kueue_command_shows_the_rayjobs_workload() -> None:
    code, doc = _json("kueue", RAYJOB, "--nodes", str(CASE / "cluster.yaml"))
    [job] = doc["jobs"]
    assert job["kind"] == "RayJob" and job["workload"] == WORKLOAD
    [wl] = [w for w in doc["workloads"] if w["name"] == WORKLOAD]
    assert [(p["name"], p["count"], p["resourceUsage"]) for p in wl["podSetAssignments"]] == [
        ("head", 1, {"memory": "2Gi", "cpu": "1"}), ("workers", 1, {"memory": "15Gi", "cpu": "2"}),
        ("submitter", 1, {"memory": "200Mi", "cpu": "500m"})]       # KubeRay's default submitter
    code, out, _ = kexplain("kueue", RAYJOB, "--nodes", str(CASE / "cluster.yaml"))
    assert code == 0 and f"team-a/{WORKLOAD}" in out and "admitted in team-a-cq" in " ".join(out.split())


def test_a_leaderworkersets_groups_are_its_pods(tmp_path: Path) -> None:
    lws = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
           "metadata": {"name": "serve", "namespace": "team-a", "labels": QUEUE},
           "spec": {"replicas": 2, "leaderWorkerTemplate": {"size": 2, "leaderTemplate": {"spec": _spec("500m")},
                                                            "workerTemplate": {"spec": _spec("500m")}}}}
    code, doc = _json(_write(tmp_path, lws), *CLUSTER)
    names = [p["object"]["name"] for p in doc["placements"]]
    assert names == ["serve-0", "serve-0-1", "serve-1", "serve-1-1"]        # a Workload per group, all admitted
    assert {p["kueue"]["verdict"] for p in doc["placements"]} == {"Admitted"}
    assert len({p["kueue"]["workload"] for p in doc["placements"]}) == 2 and code == 0
    lws["spec"]["replicas"] = 5         # 5 cpu: four groups' Workloads fit the 4 cpu left, one waits
    code, doc = _json(_write(tmp_path, lws), *CLUSTER)
    verdicts = [p["kueue"]["verdict"] for p in doc["placements"]]
    assert verdicts.count("Admitted") == 8 and "Pending" in verdicts
    gated = [p for p in doc["placements"] if p["kueue"]["verdict"] != "Admitted"]
    assert all(p["pods"][0]["status"] == "Gated" for p in gated) and len(gated) == 2


def test_a_pytorchjob_and_an_mpijob_are_their_operators_pods(tmp_path: Path) -> None:
    job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
           "metadata": {"name": "train", "namespace": "team-a", "labels": QUEUE},
           "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 2, "template": {"spec": _spec("1")}},
                                            "Master": {"template": {"spec": _spec("1")}}}}}
    code, doc = _json(_write(tmp_path, job), *CLUSTER)
    assert [p["object"]["name"] for p in doc["placements"]] == ["train-master-0", "train-worker-0", "train-worker-1"]
    assert all(p["pods"][0]["node"] for p in doc["placements"]) and code == 0
    mpi = {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob",
           "metadata": {"name": "mpi", "namespace": "team-a", "labels": QUEUE},
           "spec": {"mpiReplicaSpecs": {"Launcher": {"template": {"spec": _spec("500m")}},
                                        "Worker": {"replicas": 2, "template": {"spec": _spec("1")}}}}}
    code, doc = _json(_write(tmp_path, mpi), *CLUSTER)
    assert [(p["object"]["kind"], p["object"]["name"]) for p in doc["placements"]] == [
        ("Job", "mpi-launcher"), ("Pod", "mpi-worker-0"), ("Pod", "mpi-worker-1")]


def test_without_kueues_objects_a_modelled_kind_asks_for_them() -> None:
    code, out, err = kexplain(RAYJOB, "--nodes", str(CASE / "nodes.yaml"))
    assert code == 2 and out == ""
    assert ("RayJob team-a/tune: Kueue holds it (LocalQueue a-queue: its ray.io/rayjob integration, on by default, "
            "suspends it until its Workload is admitted); kexplain models RayJob through Kueue: give Kueue's objects") \
        in err


def test_an_admitted_appwrapper_is_its_components(tmp_path: Path) -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "inner"},
           "spec": {"parallelism": 2, "completions": 2, "template": {"spec": _spec("1")}}}
    aw = {"apiVersion": "workload.codeflare.dev/v1beta2", "kind": "AppWrapper",
          "metadata": {"name": "wrapped", "namespace": "team-a", "labels": QUEUE},
          "spec": {"components": [{"template": job}]}}
    code, doc = _json(_write(tmp_path, aw), *CLUSTER)
    [placement] = doc["placements"]
    assert placement["object"] == {"kind": "Job", "namespace": "team-a", "name": "inner"}
    assert placement["kueue"]["verdict"] == "Admitted" and placement["kueue"]["podSet"] == "wrapped-0"
    assert [p["node"] for p in placement["pods"]] == ["od-1", "od-1"] and code == 0     # the flavor's od nodes
    job["spec"]["parallelism"] = job["spec"]["completions"] = 5         # 5 cpu: held
    code, doc = _json(_write(tmp_path, aw), *CLUSTER)      # one pod set's template: explained alone, a trace
    answer = doc["kueue"]
    assert answer["verdict"] == "Pending" and answer["podSet"] == "wrapped-0" and code == 1
    assert answer["idle"].startswith("AppWrapper team-a/wrapped is held by Kueue (spec.suspend true)")


def test_lint_schedules_what_kueue_starts_of_an_operators_job(tmp_path: Path) -> None:
    code, out, _ = kexplain("lint", RAYJOB, *CLUSTER)
    flat = " ".join(out.split())
    assert "error [unschedulable] RayJob team-a/tune: 0/3 nodes are available" in flat     # its 15Gi worker
    assert "1 scheduled against the pool: 1 error" in flat and code == 1
    obj = yaml.safe_load(Path(RAYJOB).read_text())
    obj["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["replicas"] = 3      # held: no pod exists, none scheduled
    code, out, _ = kexplain("lint", _write(tmp_path, obj), *CLUSTER)
    flat = " ".join(out.split())
    assert "[unschedulable]" not in out and "[fits]" not in out
    # never silence where Kueue holds it: Kueue's reason, as for a held Job (`kueue-held`)
    assert (f"warning [kueue-held] RayJob team-a/tune: Kueue holds it (Workload team-a/rayjob-tune-e60d0 Pending: "
            "couldn't assign flavors to pod set head: untolerated taint") in flat
    assert "KubeRay creates no pod until its Workload is admitted" in flat


def test_the_page_has_kueues_answer_for_each_pod_set(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    kexplain(RAYJOB, *CLUSTER, "--node-groups", str(CASE / "node-groups.yaml"), "--html", str(page))
    html = " ".join(page.read_text().split())
    assert f"(RayJob team-a/tune): Workload team-a/{WORKLOAD} is admitted in ClusterQueue team-a-cq" in html
    assert "tune-raycluster-" in html and "on-demand-large" in html


def test_a_leaderworkersets_pods_are_owned_by_its_statefulsets(tmp_path: Path) -> None:
    from kexplain.kueue.operator_pods import operator_objects
    from kexplain.kueue.apis.workload import PodSet
    lws = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
           "metadata": {"name": "serve", "namespace": "team-a"}, "spec": {}}
    made = operator_objects(lws, (PodSet("leader", 1, {"spec": _spec("1")}), PodSet("worker", 2, {"spec": _spec("1")})),
                            None, index=1)
    owners = {m["metadata"]["name"]: m["metadata"]["ownerReferences"][0]["name"] for m, _ in made}
    assert owners == {"serve-1": "serve", "serve-1-1": "serve-1", "serve-1-2": "serve-1"}
    assert all(g["name"] == "kueue.x-k8s.io/admission" for m, _ in made for g in m["spec"]["schedulingGates"][:1])


def _rayservice() -> dict:
    rayjob = yaml.safe_load(Path(RAYJOB).read_text())
    return {"apiVersion": "ray.io/v1", "kind": "RayService",
            "metadata": {**rayjob["metadata"], "name": "serve"},
            "spec": {"serveConfigV2": "applications: []", "rayClusterSpec": rayjob["spec"]["rayClusterSpec"]}}


def test_an_admitted_rayservice_is_its_rayclusters_pods(tmp_path: Path) -> None:
    code, doc = _json(_write(tmp_path, _rayservice()), *CLUSTER, "--node-groups", str(CASE / "node-groups.yaml"))
    objects = [(p["object"]["kind"], p["object"]["name"]) for p in doc["placements"]]
    assert [k for k, _ in objects] == ["Pod", "Pod"]       # head and worker, no submitter
    cluster = re.fullmatch(r"(serve-raycluster-[b-z2-9]{5})-head-[b-z2-9]{5}", objects[0][1])
    assert cluster is not None and re.fullmatch(rf"{cluster.group(1)}-workers-worker-[b-z2-9]{{5}}", objects[1][1])
    answers = [p["kueue"] for p in doc["placements"]]
    name = "rayservice-serve-" + hashlib.sha1(b"RayService\nray.io\nserve\n5e9c1a7b-3d2f-4c8e-9a1b-7f6e5d4c3b2a"
                                              ).hexdigest()[:5]
    assert {a["workload"] for a in answers} == {f"team-a/{name}"} and {a["verdict"] for a in answers} == {"Admitted"}
    assert [a["podSet"] for a in answers] == ["head", "workers"]
    assert all(ps["nodeSelector"] == SELECTOR for ps in answers[0]["podSets"])


def test_a_held_rayservice_has_no_pod(tmp_path: Path) -> None:
    obj = _rayservice()
    obj["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["replicas"] = 3      # more than team-a may use
    code, doc = _json(_write(tmp_path, obj), *CLUSTER)
    assert code == 1
    idle = doc["placements"][0]["kueue"]["idle"]
    assert idle.startswith("RayService team-a/serve is held by Kueue (spec.rayClusterSpec.suspend true): KubeRay "
                           "creates no pod until its Workload is admitted")


def test_the_text_says_what_kueue_does_to_a_rayservice(tmp_path: Path) -> None:
    _, text, _ = kexplain(_write(tmp_path, _rayservice()), *CLUSTER)
    assert "the RayService is unsuspended, its pods as Kueue sets them" in " ".join(text.split())
    obj = _rayservice()
    obj["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["replicas"] = 3
    _, text, _ = kexplain(_write(tmp_path, obj), *CLUSTER)
    assert "the RayService stays suspended (its RayCluster creates no pod)" in " ".join(text.split())

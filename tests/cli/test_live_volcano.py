"""Volcano's objects read live (kexplain/load/live.py `VOLCANO`, `ClusterReader.read_volcano`): Queues and
PodGroups (scheduling.volcano.sh/v1beta1) and Jobs (batch.volcano.sh/v1alpha1) from the stand-in API
server (tests/support/live_server.py) serving the recorded cluster and tests/data/live/volcano/. A pod
with `schedulerName: volcano` gets Volcano's answer (`kexplain.app.volcano_pod`), compared with the
PodScheduled condition Volcano wrote; a refused read is said once and the answer goes on without it;
`kexplain snapshot` keeps them and the replay gives the same answer; a cluster without Volcano's CRDs is
asked nothing more."""
from __future__ import annotations

import json

import pytest
import yaml

from kexplain.load.live import RESOURCES, VOLCANO, VOLCANO_CONFIG_MAP, VOLCANO_NAMESPACE
from kexplain.volcano.conf import CONFIGMAP_NAME
from tests.support.paths import ROOT
from tests.support.live_server import Rbac, isolated, recorded_api, run_cli  # noqa: F401 (isolated: autouse)

JOB_UID = "7c1e9a2b-4d3f-4e8a-9b6c-1a2b3c4d5e6f"
GROUP = f"train-{JOB_UID}"
# what Volcano wrote of each worker: 3 cpu fit no node of the recorded cluster
SAID = ("0/6 nodes are unavailable: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable, "
        "4 Insufficient cpu.")
EVERY_KIND = frozenset(r.plural for r in (*RESOURCES, *VOLCANO)) | {"daemonsets"}


def worker(index: int, cpu: str = "3", group: str | None = GROUP) -> dict:
    annotations = {"scheduling.k8s.io/group-name": group, "volcano.sh/job-name": "train",
                   "volcano.sh/task-spec": "worker"} if group else {}
    return {"metadata": {"name": f"train-worker-{index}", "namespace": "shop", "uid": f"w-{index}",
                         "resourceVersion": f"6002{index}", "creationTimestamp": f"2025-11-03T10:00:0{index + 1}Z",
                         "annotations": annotations,
                         "ownerReferences": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "train",
                                              "uid": JOB_UID, "controller": True}] if group else []},
            "spec": {"schedulerName": "volcano", "priority": 0, "restartPolicy": "Never",
                     "preemptionPolicy": "PreemptLowerPriority", "serviceAccountName": "default",
                     "containers": [{"name": "main", "image": "registry.example.com/train:1",
                                     "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]},
            "status": {"phase": "Pending", "qosClass": "Burstable",
                       "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                       "message": SAID}]}}


@pytest.fixture
def api(tmp_path):
    """The recorded cluster with Volcano installed and a Volcano Job's two workers of 3 cpu pending."""
    with recorded_api(tmp_path, collections=("volcano",)) as server:
        server.collections["/api/v1/pods"]["items"] += [worker(0), worker(1)]
        yield server


def pod_json(capsys, api, name: str = "train-worker-0", *more: str) -> tuple[int, dict, str]:
    code, out, err = run_cli(capsys, "pod", name, "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json", *more)
    return code, json.loads(out) if out else {}, err




def test_a_volcano_pod_gets_volcanos_answer_compared_with_what_volcano_wrote(api, capsys) -> None:
    code, trace, err = pod_json(capsys, api)
    assert code == 1, err
    vc = trace["volcano"]
    assert trace["profile"] == "volcano" and vc["scheduler"].startswith("Scheduled by Volcano (v1.15.1)")
    assert vc["podGroup"]["name"] == f"shop/{GROUP}" and vc["podGroup"]["queue"] == "research"    # as read
    assert vc["queue"]["name"] == "research"
    assert trace["result"]["message"] == SAID
    assert {n["node"]: n["reasons"] for n in vc["nodes"]}["node-b1"] == ["node(s) were unschedulable"]
    assert trace["live"]["agrees"] is True
    asked = {r.path for r in api.requests}
    assert {"/apis/scheduling.volcano.sh/v1beta1/queues", "/apis/scheduling.volcano.sh/v1beta1/podgroups",
            "/apis/batch.volcano.sh/v1alpha1/jobs"} <= asked


def test_the_text_says_who_answers_and_what_volcano_said(api, capsys) -> None:
    code, out, _ = run_cli(capsys, "pod", "train-worker-0", "-n", "shop", "--kubeconfig", api.kubeconfig)
    flat = " ".join(out.split())
    assert code == 1
    assert "Scheduled by Volcano (v1.15.1), not kube-scheduler" in flat
    assert f"PodGroup shop/{GROUP} (queue research, minMember 2): Inqueue -> Inqueue" in flat
    assert "kexplain agrees with the scheduler." in flat


def test_a_refused_podgroups_read_is_said_once_and_volcanos_own_word_answers(api, capsys) -> None:
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"podgroups"})
    code, trace, err = pod_json(capsys, api)
    assert err.count("list podgroups") == 1, err
    assert code == 1
    assert trace["volcano"]["unread"] == "podgroups" and "podGroup" not in trace["volcano"]
    assert trace["result"]["message"].endswith(f"its PodScheduled condition (Unschedulable): {SAID}")


def test_refused_queues_are_taken_as_open_and_said(api, capsys) -> None:
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"queues"})
    code, trace, err = pod_json(capsys, api)
    assert err.count("list queues") == 1, err
    vc = trace["volcano"]
    assert vc["podGroup"]["queue"] == "research" and "skipped" not in vc    # not a job of a missing queue
    assert any(n.startswith("Volcano's Queues could not be read (RBAC): research taken as open") for n in vc["notes"])
    assert trace["result"]["message"] == SAID and code == 1


def test_snapshot_keeps_them_and_the_replay_gives_the_same_answer(api, capsys, tmp_path) -> None:
    _, live, _ = pod_json(capsys, api)
    snap = tmp_path / "cluster.json"
    code, _, err = run_cli(capsys, "snapshot", "train-worker-0", "-n", "shop", "-o", str(snap),
                           "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    kinds = {item.get("kind") for item in json.loads(snap.read_text())["items"]}
    assert {"Queue", "PodGroup", "Job"} <= kinds
    assert "3 queues, 1 podgroups, 1 jobs" in err       # counted as the others are
    code, out, err = run_cli(capsys, str(tmp_path / "cluster.pod.json"), "--nodes", str(snap), "--stored",
                             "-o", "json")
    assert code == 1, err
    replay = json.loads(out)
    assert replay["result"] == live["result"]
    assert {k: v for k, v in replay["volcano"].items()} == live["volcano"]


def test_the_gang_binds_when_the_cluster_has_room(tmp_path, capsys) -> None:
    with recorded_api(tmp_path, collections=("volcano",)) as server:
        server.collections["/api/v1/pods"]["items"] += [worker(0, cpu="500m"), worker(1, cpu="500m")]
        code, trace, err = pod_json(capsys, server)
    assert code == 0, err
    assert trace["result"]["status"] == "Scheduled"
    assert trace["volcano"]["pod"]["boundTo"] == trace["result"]["suggestedHost"]


def test_a_cluster_without_volcano_is_asked_nothing_more(tmp_path, capsys) -> None:
    with recorded_api(tmp_path) as plain:
        code, out, _ = run_cli(capsys, "pod", "upload-0", "-n", "default", "--kubeconfig", plain.kubeconfig,
                               "-o", "json")
        assert not any("volcano.sh" in r.path for r in plain.requests)
    assert json.loads(out)["profile"] == "default-scheduler"


def test_the_page_is_volcanos_answer(api, capsys, tmp_path) -> None:
    page = tmp_path / "page.html"
    code, _, err = run_cli(capsys, "pod", "train-worker-0", "-n", "shop", "--kubeconfig", api.kubeconfig,
                           "--html", str(page))
    assert code == 1, err
    text = page.read_text()
    assert "Scheduled by Volcano (v1.15.1), not kube-scheduler" in text and "filter and score pipeline" not in text
    assert "<td>node-b1</td><td>node(s) were unschedulable</td>" in text


def test_a_redacted_snapshot_says_it_leaves_volcanos_objects_out(api, capsys, tmp_path) -> None:
    code, _, err = run_cli(capsys, "snapshot", "-o", str(tmp_path / "s.json"), "--redact",
                           "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    assert "leaves out 3 queues, 1 podgroups, 1 jobs" in err
    assert "a replay finds none of Volcano's Queues and PodGroups" in err


# --- the scheduler's ConfigMap (volcano-system/volcano-scheduler-configmap), --scheduler-conf, --volcano-version

CONF_PATH = "/api/v1/namespaces/volcano-system/configmaps/volcano-scheduler-configmap"
CONF = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n- plugins:\n  - name: predicates\n  - name: proportion\n  - name: binpack\n'


def configmap(text: str = CONF) -> dict:
    return {"kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system", "uid": "cm-1",
                         "resourceVersion": "7001", "creationTimestamp": "2025-11-01T00:00:00Z"},
            "data": {"volcano-scheduler.conf": text}}


def test_the_schedulers_configmap_is_got_and_its_configuration_runs(api, capsys, tmp_path) -> None:
    api.objects[CONF_PATH] = configmap()
    code, trace, err = pod_json(capsys, api)
    assert code == 1, err
    config = trace["volcano"]["config"]
    assert config["actions"] == ["enqueue", "allocate"] and "binpack" in config["tiers"][1]
    assert ("GET", CONF_PATH) in {(r.method, r.path) for r in api.requests}
    assert "no ConfigMap volcano-system" not in err
    snap = tmp_path / "cluster.json"          # the snapshot keeps it: the replay runs the same configuration
    code, _, err = run_cli(capsys, "snapshot", "train-worker-0", "-n", "shop", "-o", str(snap),
                           "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    assert any(i.get("kind") == "ConfigMap" and i["metadata"]["name"] == "volcano-scheduler-configmap"
               for i in json.loads(snap.read_text())["items"])
    code, out, err = run_cli(capsys, str(tmp_path / "cluster.pod.json"), "--nodes", str(snap), "--stored",
                             "-o", "json")
    replay = json.loads(out)
    source = replay["volcano"]["config"].pop("source")        # where it was read: the file, not the server
    assert source.startswith(str(snap)) and trace["volcano"]["config"].pop("source").startswith(api.url)
    assert (replay["volcano"], replay["result"]) == (trace["volcano"], trace["result"])


def test_without_the_configmap_volcanos_default_runs_said_once(api, capsys) -> None:
    code, trace, err = pod_json(capsys, api)
    assert code == 1
    assert err.count("note: no ConfigMap volcano-system/volcano-scheduler-configmap: Volcano's scheduler "
                     "configuration is taken as its default") == 1, err
    assert trace["volcano"]["config"]["actions"] == ["enqueue", "allocate", "backfill"]


def test_a_refused_configmap_is_said_once_and_the_default_runs_with_a_note(api, capsys) -> None:
    api.objects[CONF_PATH] = configmap()
    api.faults.rbac = Rbac(cluster=EVERY_KIND)      # not configmaps (deploy/rbac.yaml grants this one by name)
    code, trace, err = pod_json(capsys, api)
    assert code == 1, err
    assert err.count("get configmaps") == 1, err
    vc = trace["volcano"]
    assert vc["config"]["actions"] == ["enqueue", "allocate", "backfill"]
    assert ("Volcano's scheduler ConfigMap volcano-system/volcano-scheduler-configmap could not be read (RBAC): "
            "Volcano's default configuration runs; give the cluster's with --scheduler-conf FILE") in vc["notes"]
    assert trace["result"]["message"] == SAID


def test_scheduler_conf_and_volcano_version_as_kexplain_pod_takes_them(api, capsys, tmp_path) -> None:
    api.objects[CONF_PATH] = configmap()
    given = tmp_path / "conf.yaml"
    given.write_text('actions: "enqueue, allocate, backfill"\ntiers:\n- plugins:\n  - name: gang\n'
                     '  - name: predicates\n')
    code, trace, err = pod_json(capsys, api, "train-worker-0", "--scheduler-conf", str(given),
                                "--volcano-version", "1.15")
    assert code == 1, err
    vc = trace["volcano"]
    assert vc["config"]["tiers"] == [["gang", "predicates"]] and vc["config"]["source"].startswith(str(given))
    assert vc["scheduler"].startswith("Scheduled by Volcano (v1.15.1)")
    asked = len(api.requests)
    code, _, err = pod_json(capsys, api, "train-worker-0", "--volcano-version", "1.2")
    assert code == 2 and "1.2" in err and len(api.requests) == asked        # refused before the cluster is asked
    missing = tmp_path / "none.yaml"
    code, _, err = pod_json(capsys, api, "train-worker-0", "--scheduler-conf", str(missing))
    assert code == 2 and str(missing) in err and len(api.requests) == asked
    given.write_text("actions: [")      # one Volcano refuses: its default runs, said first (as `kexplain POD`)
    code, trace, err = pod_json(capsys, api, "train-worker-0", "--scheduler-conf", str(given))
    assert code == 1, err
    assert trace["volcano"]["notes"][0].startswith(f"Scheduler config {given} is invalid: not YAML")
    assert trace["volcano"]["config"]["actions"] == ["enqueue", "allocate", "backfill"]


def test_the_cluster_role_grants_the_get_of_that_configmap_only() -> None:
    role = next(yaml.safe_load_all((ROOT / "deploy" / "rbac.yaml").read_text()))
    rules = [r for r in role["rules"] if "configmaps" in r["resources"]]
    assert {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [VOLCANO_CONFIG_MAP],
            "verbs": ["get"]} in rules
    assert all(r.get("resourceNames") for r in rules)          # no ConfigMap listed or got but by name
    assert f"{VOLCANO_NAMESPACE}/{VOLCANO_CONFIG_MAP}" == CONFIGMAP_NAME      # the one `volcano.conf.chosen` reads first

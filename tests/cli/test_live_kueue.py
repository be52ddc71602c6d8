"""Kueue's objects read live (kexplain/load/live.py `KUEUE`, `ClusterReader.read_kueue`):
ResourceFlavors, Cohorts, ClusterQueues, LocalQueues, WorkloadPriorityClasses and Workloads
(kueue.x-k8s.io/v1beta2) from the stand-in API server (tests/support/live_server.py) serving the
recorded cluster and tests/data/live/kueue/. A pod Kueue gates gets Kueue's answer, with its
Workload's status as the cluster stores it beside; a refused read is said once and the rest
goes on; `kexplain snapshot` keeps them; a cluster without Kueue is asked nothing more."""
from __future__ import annotations

import html
import json
import re

import pytest

from kexplain.load.live import KUEUE, RESOURCES
from tests.support.live_server import Rbac, isolated, recorded_api, run_cli  # noqa: F401 (isolated: autouse)

POD_UID = "5b0e2d7c-3a1f-4c8e-9d6b-7e2f1a3c5d90"
NOTEBOOK = {"metadata": {"name": "notebook", "namespace": "shop", "uid": POD_UID, "resourceVersion": "52010",
                         "creationTimestamp": "2025-11-03T10:00:00Z",
                         "labels": {"kueue.x-k8s.io/queue-name": "shop-queue", "kueue.x-k8s.io/managed": "true"}},
            "spec": {"containers": [{"name": "main", "image": "registry.example.com/notebook:3",
                                     "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
                     "schedulingGates": [{"name": "kueue.x-k8s.io/admission"}],
                     "schedulerName": "default-scheduler", "priority": 0, "restartPolicy": "Always",
                     "preemptionPolicy": "PreemptLowerPriority", "serviceAccountName": "default"},
            "status": {"phase": "Pending", "qosClass": "Burstable",
                       "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
                                       "message": "Scheduling is blocked due to non-empty scheduling gates"}]}}
CLUSTER_QUEUES = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues"
WORKLOADS = "/apis/kueue.x-k8s.io/v1beta2/workloads"
ZONE_B = ("node-b1", "node-b2")     # the recorded cluster's nodes outside the flavor's zone (us-east-1a)
EVERY_KIND = frozenset(r.plural for r in (*RESOURCES, *KUEUE)) | {"daemonsets", "nodepools", "nodeclaims"}


@pytest.fixture
def api(tmp_path):
    """The recorded cluster with Kueue installed and a pod it gates (shop/notebook)."""
    with recorded_api(tmp_path, collections=("kueue",)) as server:
        server.collections["/api/v1/pods"]["items"].append(NOTEBOOK)
        yield server


def test_a_gated_pod_gets_kueues_answer_and_its_workloads_stored_status(api, capsys) -> None:
    code, out, err = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    trace = json.loads(out)
    kueue = trace["kueue"]
    assert kueue["workload"] == "shop/pod-notebook-8c1d2"       # its own Workload, found by owner
    assert kueue["verdict"] == "Admitted" and kueue["clusterQueue"] == "shop-cq"   # what kexplain computes
    assert kueue["podSets"][0]["nodeSelector"] == {"topology.kubernetes.io/zone": "us-east-1a"}
    live = kueue["live"]        # beside it, what the cluster stores
    assert live["workload"] == "shop/pod-notebook-8c1d2"
    assert [(c["type"], c["status"], c["reason"]) for c in live["conditions"]] == [("QuotaReserved", "False", "Pending")]
    assert live["requeueState"] == {"count": 2}
    assert code == 1


def test_the_text_shows_both(api, capsys) -> None:
    _, out, _ = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig)
    flat = " ".join(out.split())
    assert "Workload shop/pod-notebook-8c1d2 is admitted in ClusterQueue shop-cq" in flat
    assert "In the cluster, Workload shop/pod-notebook-8c1d2 (as stored):" in flat
    assert "QuotaReserved False (Pending): couldn't assign flavors to pod set main" in flat


def test_a_refused_read_is_said_once_and_the_rest_goes_on(api, capsys) -> None:
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"workloads"})
    code, out, err = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    trace = json.loads(out)
    assert err.count("list workloads: Kueue's Workloads") == 1, err
    assert trace["kueue"]["verdict"] == "Admitted" and "live" not in trace["kueue"]


def test_snapshot_keeps_them(api, capsys, tmp_path) -> None:
    snap = tmp_path / "cluster.json"
    code, _, err = run_cli(capsys, "snapshot", "-o", str(snap), "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    kinds = {item.get("kind") for item in json.loads(snap.read_text())["items"]}
    assert {r.kind for r in KUEUE if r.kind not in ("Cohort", "WorkloadPriorityClass")   # (none recorded)
            and r.group != "trainer.kubeflow.org"} <= kinds     # (Kubeflow Trainer's: tests/cli/test_live_trainer.py)


def test_a_cluster_without_kueue_is_asked_nothing_more(tmp_path, capsys) -> None:
    with recorded_api(tmp_path) as plain:
        code, out, _ = run_cli(capsys, "pod", "gated-report", "-n", "shop", "--kubeconfig", plain.kubeconfig,
                               "-o", "json")
        assert not any("kueue.x-k8s.io" in r.path for r in plain.requests)
    assert "kueue" not in json.loads(out)


@pytest.mark.parametrize(("flag", "release"), [([], "v0.17.8"), (["--kueue-version", "0.19"], "v0.19.2")])
def test_kueue_version_picks_the_release_that_answers_live(api, capsys, flag, release) -> None:
    _, out, err = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json",
                          *flag)
    assert json.loads(out)["kueue"]["kueueVersion"].startswith(release), err


def test_a_pod_kueue_admits_is_scheduled_as_kueue_starts_it(api, capsys) -> None:
    code, out, err = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    trace = json.loads(out)
    assert trace["kueue"]["verdict"] == "Admitted"
    assert trace["result"]["status"] == "Unschedulable"      # ungated: the scheduler's answer, not the gate's
    for node in ZONE_B:     # the flavor's node label merged into the pod's node selector
        assert trace["filterAll"][node]["NodeAffinity"]["code"] == "UnschedulableAndUnresolvable"
    live = trace["live"]    # the cluster's pod is still gated: nothing to agree with, said why
    assert live["agrees"] is None and live["podScheduled"]["reason"] == "SchedulingGated"
    assert live["hints"][0].startswith("kexplain scheduled the pod as Kueue would start it")
    assert code == 1


def test_a_pod_kueue_would_not_admit_keeps_its_gate(api, capsys) -> None:
    quota = api.collections[CLUSTER_QUEUES]["items"][0]["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    quota[0]["nominalQuota"] = "0"
    code, out, err = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    trace = json.loads(out)
    assert trace["kueue"]["verdict"] == "Pending"
    assert trace["kueue"]["message"].startswith("couldn't assign flavors to pod set main: insufficient quota for cpu")
    assert trace["result"]["status"] == "Gated"          # the pod as the cluster has it
    assert trace["live"]["agrees"] is True and not trace["live"]["hints"]
    assert code == 1


def test_a_pod_the_cluster_admitted_is_scheduled_as_started(api, capsys) -> None:
    # no quota left to admit it now, but its Workload holds quota in the cluster (status.admission)
    quota = api.collections[CLUSTER_QUEUES]["items"][0]["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    quota[0]["nominalQuota"] = "0"
    api.collections[WORKLOADS]["items"][0]["status"] = {
        "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                        "message": "Quota reserved in ClusterQueue shop-cq",
                        "lastTransitionTime": "2025-11-03T10:00:02Z"}],
        "admission": {"clusterQueue": "shop-cq",
                      "podSetAssignments": [{"name": "main", "flavors": {"cpu": "zone-a", "memory": "zone-a"},
                                             "resourceUsage": {"cpu": "1", "memory": "1Gi"}, "count": 1}]}}
    code, out, err = run_cli(capsys, "pod", "notebook", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    trace = json.loads(out)
    assert trace["kueue"]["verdict"] == "Admitted" and trace["kueue"]["live"]["admission"]["clusterQueue"] == "shop-cq"
    assert trace["result"]["status"] != "Gated"
    assert trace["filterAll"]["node-b1"]["NodeAffinity"]["code"] == "UnschedulableAndUnresolvable"


def _items(out: str) -> dict[str, dict]:
    return {f"{i['pod']['namespace']}/{i['pod']['name']}": i for i in json.loads(out)["items"]}


def test_pending_gives_kueues_answer_and_schedules_the_admitted_as_started(api, capsys) -> None:
    code, out, err = run_cli(capsys, "pod", "-A", "--kubeconfig", api.kubeconfig, "-o", "json")
    items = _items(out)
    notebook = items["shop/notebook"]
    assert notebook["kueue"]["verdict"] == "Admitted" and notebook["kueue"]["workload"] == "shop/pod-notebook-8c1d2"
    assert notebook["result"]["status"] == "Unschedulable"      # as Kueue starts it, not "Gated"
    assert notebook["live"]["agrees"] is None
    assert notebook["live"]["hints"][0].startswith("kexplain scheduled the pod as Kueue would start it")
    others = [i for key, i in items.items() if key != "shop/notebook"]
    assert others and not any("kueue" in i for i in others)      # pods Kueue does not manage: as they were


def test_pending_keeps_the_gate_kueue_would_not_lift(api, capsys) -> None:
    quota = api.collections[CLUSTER_QUEUES]["items"][0]["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    quota[0]["nominalQuota"] = "0"
    code, out, err = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json",
                             "--kueue-version", "0.19")
    notebook = _items(out)["shop/notebook"]
    assert notebook["kueue"]["verdict"] == "Pending" and notebook["kueue"]["kueueVersion"].startswith("v0.19.2")
    assert notebook["result"]["status"] == "Gated" and notebook["live"]["agrees"] is True


def test_pending_text_says_kueues_answer_in_the_row(api, capsys) -> None:
    _, out, _ = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig)
    row = next(line for line in out.splitlines() if line.startswith("shop/notebook"))
    assert "Kueue admits it in ClusterQueue shop-cq; 0/6 nodes are available" in row
    assert not any("Kueue" in line for line in out.splitlines() if not line.startswith("shop/notebook"))


def test_pending_pods_compete_for_kueues_quota_in_one_pass(api, capsys) -> None:
    # a second gated pod, created first, asks all the ClusterQueue's 4 cpu: Kueue admits it first, and
    # the notebook (admitted when it is alone: test above) waits for quota
    first = json.loads(json.dumps(NOTEBOOK))
    first["metadata"].update(name="trainer", uid="9a8b7c6d-0000-4000-8000-00000000000a",
                             creationTimestamp="2025-11-03T09:00:00Z")
    first["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "4"
    api.collections["/api/v1/pods"]["items"].append(first)
    _, out, err = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    items = _items(out)
    assert items["shop/trainer"]["kueue"]["verdict"] == "Admitted", err
    assert items["shop/notebook"]["kueue"]["verdict"] != "Admitted"
    assert items["shop/notebook"]["result"]["status"] == "Gated"


JOB_UID = "7c6b5a49-0000-4000-8000-0000000000b1"


@pytest.fixture
def held(tmp_path):
    """A cluster with no pending pod, where Kueue holds a suspended Job (shop/train): its Workload
    stored with QuotaReserved=False and no pod created yet, asking more cpu than shop-cq's 4."""
    with recorded_api(tmp_path, collections=("kueue",)) as server:
        pods = server.collections["/api/v1/pods"]["items"]
        pods[:] = [p for p in pods if (p.get("status") or {}).get("phase") != "Pending"]
        yield _hold_train(server)


def _hold_train(server):
    """`server` with the Workload of a suspended Job shop/train that Kueue holds (see `held`)."""
    workload = server.collections[WORKLOADS]["items"][0]      # (the notebook's, made the Job's)
    workload["metadata"].update(
        name="job-train-1a2b3", uid="c1f0a2b3-0000-4000-8000-0000000000b2",
        labels={"kueue.x-k8s.io/job-uid": JOB_UID},
        ownerReferences=[{"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": JOB_UID,
                          "controller": True, "blockOwnerDeletion": True}])
    workload["spec"]["podSets"][0].update(count=3)
    workload["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2"
    workload["status"]["conditions"][0]["message"] = "couldn't assign flavors to pod set main: insufficient quota"
    return server


@pytest.mark.parametrize("flags", [["-A"], ["--pending", "-n", "shop"]])
def test_pending_lists_the_job_kueue_holds_and_exits_1(held, capsys, flags) -> None:
    code, out, err = run_cli(capsys, "pod", *flags, "--kubeconfig", held.kubeconfig)
    assert code == 1, (out, err)
    lines = out.splitlines()
    assert lines[0].endswith("is Pending with PodScheduled=False;")       # no pod, but work held: no all-clear
    assert lines[1] == "Kueue holds 1 Workload(s) whose pods are not created yet:"
    row = next(line for line in lines if line.startswith("Job shop/train"))
    assert "shop/job-train-1a2b3" in row and "Pending" in row
    # Kueue's answer now, as kexplain computes it: 6 cpu can never fit 4
    assert "Pending  couldn't assign flavors to pod set main: insufficient quota for cpu" in row


def test_pending_page_counts_and_shows_the_held_workloads(tmp_path, capsys) -> None:
    """The page of `pod -A --html` (issue 77 item 2): beside a pod that fits, the Job Kueue holds
    is in the headline and in a row as the text has it, badged held, not only in the data."""
    with recorded_api(tmp_path, collections=("kueue",)) as server:
        pods = server.collections["/api/v1/pods"]["items"]
        pods[:] = [p for p in pods if (p.get("status") or {}).get("phase") != "Pending"
                   or p["metadata"]["name"] == "upload-0"]          # (the one pending pod: it fits)
        _hold_train(server)
        page = tmp_path / "page.html"
        code, out, _ = run_cli(capsys, "pod", "-A", "--kubeconfig", server.kubeconfig, "--html", str(page))
    markup = re.sub(r"<script\b.*?</script>", "", page.read_text(), flags=re.S)
    title = html.unescape(re.search(r"<title>(.*?)</title>", markup).group(1))
    assert title == ("kexplain: 1 pod(s): 1 would be scheduled, 0 would not; "
                     "Kueue holds 1 Workload(s) whose pods are not created yet") and code == 1
    row = next(line for line in out.splitlines() if line.startswith("Job shop/train"))
    cells = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
             for c in re.findall(r"<td[^>]*>(.*?)</td>", markup[markup.index('class="kueue-held"'):], re.S)[:4]]
    assert cells[:2] == ["Job shop/train", "shop/job-train-1a2b3"] and cells[2] == "\u2016 Pending"
    assert row.split()[:4] == ["Job", "shop/train", "shop/job-train-1a2b3", "Pending"] and row.endswith(cells[3])
    assert 'class="badge st-Gated"' in markup


def test_pending_json_carries_the_held_workloads(held, capsys) -> None:
    code, out, _ = run_cli(capsys, "pod", "-A", "--kubeconfig", held.kubeconfig, "-o", "json")
    doc = json.loads(out)
    assert doc["items"] == [] and code == 1
    [found] = doc["kueueHeld"]
    assert found["workload"] == "shop/job-train-1a2b3"
    assert found["owner"] == {"kind": "Job", "namespace": "shop", "name": "train"}
    assert found["kueue"]["verdict"] == "Pending" and found["kueue"]["clusterQueue"] == "shop-cq"
    assert [(c["type"], c["status"]) for c in found["kueue"]["live"]["conditions"]] == [("QuotaReserved", "False")]


def test_a_held_workload_kueue_would_admit_now_is_listed_with_its_stored_status(held, capsys) -> None:
    requests = held.collections[WORKLOADS]["items"][0]["spec"]["podSets"][0]["template"]["spec"]["containers"][0]
    requests["resources"]["requests"]["cpu"] = "1"      # 3 cpu: fits shop-cq's 4 now
    code, out, _ = run_cli(capsys, "pod", "-A", "--kubeconfig", held.kubeconfig)
    row = next(line for line in out.splitlines() if line.startswith("Job shop/train"))
    assert row.endswith("Admitted  Kueue admits it in ClusterQueue shop-cq now; the cluster stores QuotaReserved "
                        "False (Pending): no pod until Kueue's next cycle admits it") and code == 1


def test_workloads_with_quota_finished_or_elsewhere_are_not_held(held, capsys) -> None:
    status = held.collections[WORKLOADS]["items"][0]["status"]
    status["conditions"].append({"type": "Finished", "status": "True", "reason": "Succeeded", "message": "done"})
    code, out, _ = run_cli(capsys, "pod", "-A", "--kubeconfig", held.kubeconfig)
    assert out == "No pod in any namespace is Pending with PodScheduled=False.\n" and code == 0
    status["conditions"].pop()
    code, out, _ = run_cli(capsys, "pod", "--pending", "-n", "default", "--kubeconfig", held.kubeconfig)
    assert out == 'No pod in namespace "default" is Pending with PodScheduled=False.\n' and code == 0

"""Live, the pods of a Job Kueue admitted by TAS that still carry its topology gate are explained as
Kueue's topology ungater leaves them (kexplain/kueue/linked.py `topology_ungated`): each given its
rank's rack (the index label the pod set's topology request names), else the racks filled in order,
a pod already bound counting against its rack; `kexplain pod NAME` and `--pending` say the same
(fixtures/kueue/ai served by the stand-in API server)."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.support.fixture_cluster import serve
from tests.support.kueue_chain_facts import flat
from tests.support.live_server import isolate, recorded_api, run_cli
from tests.support.paths import FIXTURES

CASE = FIXTURES / "kueue" / "ai"
RACK = "cloud.example.com/topology-rack"
INDEX = "batch.kubernetes.io/job-completion-index"
UID = "7d1c2b3a-0000-4e6a-9c8b-2a1d3e4f5a61"
GATED = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
                                             "message": "Scheduling is blocked due to non-empty scheduling gates"}]}
# pod name -> its completion index: the names' order (the cluster's) is not the ranks' order
PODS = {"train-a": 2, "train-b": 0, "train-c": 3, "train-d": 1}


def workload(index_label: bool) -> dict:
    """Job ml/train's Workload as stored: admitted in tas-cq on racks b1-r2 and b2-r2, two pods each."""
    request = {"required": RACK, **({"podIndexLabel": INDEX} if index_label else {})}
    resources = {"requests": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "8"}, "limits": {"nvidia.com/gpu": "8"}}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "job-train-5d2c1", "namespace": "ml", "uid": "wl-5d2c1",
                         "creationTimestamp": "2026-01-01T00:00:10Z",
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": UID,
                                              "controller": True}]},
            "spec": {"queueName": "tas", "priority": 0, "podSets": [{
                "name": "main", "count": 4, "topologyRequest": request,
                "template": {"spec": {"restartPolicy": "Never",
                                      "containers": [{"name": "train", "image": "train:1.4", "resources": resources}]}}}]},
            "status": {"admission": {"clusterQueue": "tas-cq", "podSetAssignments": [{
                "name": "main", "count": 4, "flavors": {"cpu": "h100", "memory": "h100", "nvidia.com/gpu": "h100"},
                "topologyAssignment": {"levels": [RACK], "slices": [{
                    "domainCount": 2, "valuesPerLevel": [{"individual": {"roots": ["b1-r2", "b2-r2"]}}],
                    "podCounts": {"universal": 2}}]}}]},
                "conditions": [{"type": t, "status": "True", "reason": t, "message": "",
                                "lastTransitionTime": "2026-01-01T00:00:20Z"} for t in ("QuotaReserved", "Admitted")]}}


def pod(name: str, index: int, *, bound: str | None = None) -> dict:
    """A pod of Job ml/train as Kueue started it: still gated by TAS, or (`bound`: a node of rack b1-r2)
    ungated onto that rack and running."""
    resources = {"requests": {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "8"}, "limits": {"nvidia.com/gpu": "8"}}
    spec: dict = {"restartPolicy": "Never", "nodeSelector": {"cloud.example.com/node-pool": "h100"},
                  "containers": [{"name": "train", "image": "train:1.4", "resources": resources}]}
    if bound:
        spec["nodeSelector"][RACK] = "b1-r2"
        spec["nodeName"] = bound
    else:
        spec["schedulingGates"] = [{"name": "kueue.x-k8s.io/topology"}]
    return {"apiVersion": "v1", "kind": "Pod", "spec": spec,
            "status": {"phase": "Running"} if bound else GATED,
            "metadata": {"name": name, "namespace": "ml",
                         "annotations": {"kueue.x-k8s.io/workload": "job-train-5d2c1"},
                         "labels": {"kueue.x-k8s.io/podset": "main", INDEX: str(index),
                                    "batch.kubernetes.io/job-name": "train"},
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": UID,
                                              "controller": True}]}}


def explained(tmp_path: Path, monkeypatch, capsys, objects: list[dict]) -> tuple[dict, dict, dict]:
    """`kexplain pod --pending -o json`, and each gated pod alone (`-o json` and text): by pod name."""
    isolate(monkeypatch, tmp_path / "home")
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    with recorded_api(tmp_path) as api:
        serve(api, [CASE / "cluster.yaml", path])
        code, out, err = run_cli(capsys, "pod", "--pending", "-n", "ml", "--kubeconfig", api.kubeconfig, "-o", "json")
        assert code == 0, err
        pending = {t["pod"]["name"]: t for t in json.loads(out)["items"]}
        alone, text = {}, {}
        for name in pending:
            code, out, err = run_cli(capsys, "pod", name, "-n", "ml", "--kubeconfig", api.kubeconfig, "-o", "json")
            alone[name] = json.loads(out)
            text[name] = flat(run_cli(capsys, "pod", name, "-n", "ml", "--kubeconfig", api.kubeconfig)[1])
    return pending, alone, text


def racks(traces: dict) -> dict[str, tuple[str, str]]:
    """Per pod: the rack the ungater gives it and the rack of the node the scheduler binds it to."""
    out = {}
    for name, t in traces.items():
        host = ((t.get("queue") or {}).get("result") or t["result"]).get("suggestedHost") or ""
        out[name] = (t["kueue"]["topologyUngated"]["nodeSelector"][RACK], "-".join(host.split("-")[1:3]))
    return out


def test_gated_pods_get_their_ranks_rack_and_run_there(tmp_path, capsys, monkeypatch) -> None:
    pending, alone, text = explained(tmp_path, monkeypatch, capsys,
                                     [workload(True), *(pod(n, i) for n, i in PODS.items())])
    want = {"train-a": ("b2-r2",) * 2, "train-b": ("b1-r2",) * 2, "train-c": ("b2-r2",) * 2, "train-d": ("b1-r2",) * 2}
    assert racks(pending) == want
    assert {n: racks({n: t})[n][0] for n, t in alone.items()} == {n: r for n, (r, _) in want.items()}
    assert all(t["live"]["agrees"] is None and "topology ungater would ungate it" in t["live"]["hints"][0]
               for t in pending.values())
    for name, t in alone.items():
        assert t["kueue"]["topologyUngated"] == {"podSet": "main", "nodeSelector": {RACK: want[name][0]},
                                                 "by": "rank", "indexLabel": INDEX}
        assert t["result"]["status"] == "Scheduled" and t["live"]["agrees"] is None
        assert (f"Kueue's topology ungater gives this pod domain {RACK}={want[name][0]} by its rank ({INDEX}); "
                "explained ungated there") in text[name]
        assert "topology ungater would ungate it" in text[name]


def test_without_an_index_label_the_racks_fill_in_order(tmp_path, capsys, monkeypatch) -> None:
    pending, alone, _ = explained(tmp_path, monkeypatch, capsys,
                                  [workload(False), *(pod(n, i) for n, i in PODS.items())])
    want = {"train-a": ("b1-r2",) * 2, "train-b": ("b1-r2",) * 2, "train-c": ("b2-r2",) * 2, "train-d": ("b2-r2",) * 2}
    assert racks(pending) == want
    assert {n: t["kueue"]["topologyUngated"]["by"] for n, t in alone.items()} == dict.fromkeys(PODS, "order")
    assert {n: racks({n: t})[n][0] for n, t in alone.items()} == {n: r for n, (r, _) in want.items()}


def test_a_bound_pod_counts_against_its_rack(tmp_path, capsys, monkeypatch) -> None:
    """train-b runs on h100-b1-r2-n1 (ungated to rack b1-r2): greedily, one gated pod is left for b1-r2."""
    objects = [workload(False), pod("train-a", 2), pod("train-b", 0, bound="h100-b1-r2-n1"), pod("train-c", 3),
               pod("train-d", 1)]
    pending, alone, _ = explained(tmp_path, monkeypatch, capsys, objects)
    want = {"train-a": ("b1-r2", "b1-r2"), "train-c": ("b2-r2",) * 2, "train-d": ("b2-r2",) * 2}
    assert racks(pending) == want
    assert {n: racks({n: t})[n][0] for n, t in alone.items()} == {n: r for n, (r, _) in want.items()}
    host = ((pending["train-a"].get("queue") or {}).get("result") or pending["train-a"]["result"])["suggestedHost"]
    assert host == "h100-b1-r2-n2"       # (its rack's other node: the bound pod holds the first's GPUs)

"""`kexplain evict drain NODE` live (no --nodes): the cluster read through the API server as
`kexplain pod` reads it, the node's pods as `kubectl drain` lists them (finished ones too), only
GETs; the same document as the files of the same objects."""
from __future__ import annotations

import copy
import json

import pytest

from kexplain.app.eviction.request import LiveRead, live_cluster
from kexplain.load.live import version_record
from tests.support.live_server import POD_PATH, isolated, recorded_api, run_cli  # noqa: F401

NODE = "node-a1"
BOUND = "web-5f6d8c7b9-2xkqp"       # the recorded cluster's web pod on node-a1


@pytest.fixture
def api(tmp_path):
    """The recorded cluster with a finished pod on node-a1 (the scheduler's list leaves it out,
    kubectl drain's does not)."""
    with recorded_api(tmp_path) as server:
        items = server.collections[POD_PATH]["items"]
        done = copy.deepcopy(next(i for i in items if i["metadata"]["name"] == BOUND))
        done["metadata"]["name"], done["status"] = "web-done", {"phase": "Succeeded"}
        items.append(done)
        yield server


def snapshot_of(api, path):
    """The live objects as a snapshot keeps them: with the API server's /version recorded, so that
    the files follow the versions the cluster runs, as live does."""
    live = live_cluster(LiveRead(api.kubeconfig), NODE)
    objects, version = live.objects, live.version
    items = [version_record(version), *(o for o, _ in objects)]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, default=dict))
    return path


def drain(capsys, api, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, "evict", "drain", *args, "--kubeconfig", api.kubeconfig)


def test_live_drain_reads_the_nodes_pods_as_kubectl_does(capsys, api):
    code, out, err = drain(capsys, api, NODE, "-o", "json")
    doc = json.loads(out)
    pods = [p["pod"] for p in doc["pods"]]
    assert "shop/web-done" in pods and f"shop/{BOUND}" in pods      # finished pods are drain's too
    done = next(p for p in doc["pods"] if p["pod"] == "shop/web-done")
    assert done["delete"] is True and done["reason"] != "Error"
    assert doc["node"] == NODE and code == 1 and doc["errors"]       # the DaemonSet pod refused
    assert api.methods == {"GET"}
    selectors = [r.query.get("fieldSelector", [""])[0] for r in api.requests if r.path == POD_PATH]
    assert f"spec.nodeName={NODE}" in selectors


def test_live_drain_equals_the_files_of_the_same_objects(capsys, api, tmp_path):
    dump = snapshot_of(api, tmp_path / "cluster.json")
    live_code, live_out, _ = drain(capsys, api, NODE, "-o", "json", "--ignore-daemonsets")
    file_code, file_out, _ = run_cli(capsys, "evict", "drain", NODE, "--nodes", str(dump), "-o", "json",
                                     "--ignore-daemonsets")
    assert live_code == file_code and json.loads(live_out) == json.loads(file_out)


def test_live_drain_text(capsys, api):
    code, out, _ = drain(capsys, api, NODE, "--force")
    assert out.startswith(f"kubectl drain {NODE} ")
    assert f"delete shop/{BOUND}" in out


def test_live_drain_of_an_unknown_node(capsys, api):
    code, out, err = drain(capsys, api, "node-zz")
    assert code == 2 and "node-zz" in err and len(err.strip().splitlines()) == 1


# --- kexplain evict pressure NODE live: the node's Summary and configz through the node proxy ----------

SUMMARY_PATH = f"/api/v1/nodes/{NODE}/proxy/stats/summary"
CONFIGZ_PATH = f"/api/v1/nodes/{NODE}/proxy/configz"
CONFIGZ = {"kubeletconfig": {"evictionHard": {"memory.available": "100Mi"},
                             "evictionPressureTransitionPeriod": "5m0s"}}
NOW = "2026-11-27T05:00:00Z"


def summary(api) -> dict:
    """node-a1 low on memory (50Mi available), every pod of it using 600Mi."""
    pods = [p for p in api.collections[POD_PATH]["items"] if p["spec"].get("nodeName") == NODE]
    stamp = {"time": "2026-11-27T04:59:58Z"}
    return {"node": {"nodeName": NODE, "memory": {**stamp, "availableBytes": 50 * 2**20,
                                                  "workingSetBytes": 15 * 2**30}},
            "pods": [{"podRef": {k: p["metadata"][k] for k in ("name", "namespace", "uid")},
                      "memory": {**stamp, "workingSetBytes": 600 * 2**20},
                      "containers": [{"name": c["name"], "memory": {**stamp, "workingSetBytes": 600 * 2**20}}
                                     for c in p["spec"]["containers"]]} for p in pods]}


def pressure(capsys, api, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, "evict", "pressure", NODE, "--now", NOW, *args, "--kubeconfig", api.kubeconfig)


def test_live_pressure_reads_the_node_through_its_proxy(capsys, api, tmp_path):
    api.objects[SUMMARY_PATH], api.objects[CONFIGZ_PATH] = summary(api), CONFIGZ
    live_code, live_out, err = pressure(capsys, api, "-o", "json")
    assert {SUMMARY_PATH, CONFIGZ_PATH} <= set(api.paths()) and api.methods == {"GET"}
    doc = json.loads(live_out)
    assert doc["evictionHard"] == {"memory.available": "100Mi"} and live_code == 1
    stats, config, dump = tmp_path / "stats.json", tmp_path / "configz.json", tmp_path / "cluster.json"
    stats.write_text(json.dumps(api.objects[SUMMARY_PATH]))
    config.write_text(json.dumps(CONFIGZ))
    snapshot_of(api, dump)
    file_code, file_out, _ = run_cli(capsys, "evict", "pressure", NODE, "--now", NOW, "--nodes", str(dump),
                                     "--stats", str(stats), "--kubelet-config", str(config), "-o", "json")
    assert (file_code, json.loads(file_out)) == (live_code, doc)


def test_live_pressure_files_given_are_not_asked_of_the_node(capsys, api, tmp_path):
    stats, config = tmp_path / "stats.json", tmp_path / "config.json"
    stats.write_text(json.dumps(summary(api)))
    config.write_text(json.dumps(CONFIGZ))
    code, _, err = pressure(capsys, api, "--stats", str(stats), "--kubelet-config", str(config), "-o", "json")
    assert code == 1, err
    assert not any("/proxy/" in p for p in api.paths())


@pytest.mark.parametrize("refused, given, instead", [(SUMMARY_PATH, (), "--stats FILE"),
                                                     (CONFIGZ_PATH, ("--stats",), "--kubelet-config FILE")])
def test_live_pressure_refused_names_nodes_proxy(capsys, api, tmp_path, refused, given, instead):
    api.objects[SUMMARY_PATH], api.objects[CONFIGZ_PATH] = summary(api), CONFIGZ
    api.faults.forbidden[refused] = "forbidden-get-nodes-proxy.json"
    args: list[str] = []
    if given:
        stats = tmp_path / "stats.json"
        stats.write_text(json.dumps(summary(api)))
        args = ["--stats", str(stats)]
    code, out, err = pressure(capsys, api, *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert '"nodes/proxy"' in err and instead in err and "forbidden (403)" in err
    assert 'cannot get resource "nodes/proxy"' in err       # the API server's own words kept


# --- kexplain evict taints NODE live: the node, its pods, their controllers; only GETs --------------

TAINTS_NOW = "2026-11-27T05:00:00Z"


def taints(capsys, api, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, "evict", "taints", NODE, "--now", TAINTS_NOW, *args, "--kubeconfig", api.kubeconfig)


def test_live_taints_what_if_unreachable(capsys, api):
    """node-a1 unreachable: the web and coredns pods go after their 300 s (DefaultTolerationSeconds'),
    the DaemonSet's pod tolerates everything; the replacements scheduled elsewhere."""
    code, out, err = taints(capsys, api, "--taint", "node.kubernetes.io/unreachable:NoExecute", "-o", "json")
    doc = json.loads(out)
    decisions = {p["pod"]: (p["decision"], p.get("afterSeconds")) for p in doc["pods"]}
    assert decisions[f"shop/{BOUND}"] == ("evictAfter", 300)
    assert decisions["kube-system/ebs-csi-node-4hx9t"][0] == "keep"
    gone = {row["pod"]: row for row in doc["whereTheyGo"]}
    assert gone[f"shop/{BOUND}"]["replaced"] is True and gone[f"shop/{BOUND}"].get("node") != NODE
    assert code == 1 and api.methods == {"GET"}


def test_live_taints_reads_the_node_as_it_is(capsys, api):
    nodes = api.collections["/api/v1/nodes"]["items"]
    node = next(n for n in nodes if n["metadata"]["name"] == NODE)
    node["spec"]["taints"] = [{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute",
                               "timeAdded": "2026-11-27T04:58:00Z"}]
    code, out, _ = taints(capsys, api, "-o", "json")
    doc = json.loads(out)
    assert doc["noExecuteTaints"] == [{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]
    evict_at = {m["pod"]: m.get("evictAt") for m in doc["matches"]}
    assert evict_at[f"shop/{BOUND}"] == "2026-11-27T05:05:00Z"      # 300 s after the controller sees it (--now)
    assert code == 1


def test_live_taints_equals_the_files_of_the_same_objects(capsys, api, tmp_path):
    dump = snapshot_of(api, tmp_path / "cluster.json")
    args = ("--taint", "node.kubernetes.io/not-ready:NoExecute", "-o", "json")
    live_code, live_out, _ = taints(capsys, api, *args)
    file_code, file_out, _ = run_cli(capsys, "evict", "taints", NODE, "--now", TAINTS_NOW, "--nodes", str(dump), *args)
    assert live_code == file_code and json.loads(live_out) == json.loads(file_out)


def test_live_taints_text_and_unknown_node(capsys, api):
    code, out, _ = taints(capsys, api)
    assert code == 0 and NODE in out
    code, out, err = run_cli(capsys, "evict", "taints", "node-zz", "--kubeconfig", api.kubeconfig)
    assert code == 2 and "node-zz" in err and len(err.strip().splitlines()) == 1

"""`kexplain snapshot --node-stats NODE` / `--node-stats-pressured` (issue 71 item 5): the chosen
nodes' stats Summary and configz kept (read through the node proxy, two GETs a node, no other
node's), with their finished pods; `kexplain evict pressure NODE --nodes SNAPSHOT` and an evicted
pod's replay read them back and answer as live mode does. A refused read is a note."""
from __future__ import annotations

import copy
import json

import pytest

from kexplain.errors import KexplainError, Source
from kexplain.load.node_stats import NODE_STATS_KIND, node_of_pod, node_stats_record, recorded_node_stats
from tests.support.live_server import POD_PATH, isolated, recorded_api, run_cli  # noqa: F401

NODE = "node-a1"
BOUND = "web-5f6d8c7b9-2xkqp"
NOW = "2026-11-27T05:00:00Z"
CONFIGZ = {"kubeletconfig": {"evictionHard": {"memory.available": "100Mi"}}}
MESSAGE = ("The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki. "
           "Container web was using 1536Mi, request is 1Gi, has larger consumption of memory. ")


def proxy(node: str, what: str) -> str:
    return f"/api/v1/nodes/{node}/proxy/{what}"


def summary(items: list[dict], node: str, available: int) -> dict:
    pods = [p for p in items if p["spec"].get("nodeName") == node]
    stamp = {"time": "2026-11-27T04:59:58Z"}
    return {"node": {"nodeName": node, "memory": {**stamp, "availableBytes": available, "workingSetBytes": 15 << 30}},
            "pods": [{"podRef": {k: p["metadata"][k] for k in ("name", "namespace", "uid")},
                      "memory": {**stamp, "workingSetBytes": 600 << 20}} for p in pods]}


@pytest.fixture
def api(tmp_path):
    """The recorded cluster: node-a1 low on memory with a finished pod and a pod the kubelet
    evicted (still named by the Summary), node-b2 reporting MemoryPressure; both nodes serve
    their Summary and configz."""
    with recorded_api(tmp_path) as server:
        items = server.collections[POD_PATH]["items"]
        done = copy.deepcopy(next(i for i in items if i["metadata"]["name"] == BOUND))
        done["metadata"].update(name="web-evicted", uid="uid-web-evicted")
        done["status"] = {"phase": "Failed", "reason": "Evicted", "message": MESSAGE}
        items.append(done)
        for node, available in ((NODE, 50 << 20), ("node-b2", 8 << 30)):
            server.objects[proxy(node, "stats/summary")] = summary(items, node, available)
            server.objects[proxy(node, "configz")] = CONFIGZ
        for node in server.collections["/api/v1/nodes"]["items"]:
            if node["metadata"]["name"] == "node-b2":
                node["status"].setdefault("conditions", []).append({"type": "MemoryPressure", "status": "True"})
        yield server


def snapshot(capsys, api, path, *args: str) -> tuple[int, str]:
    code, _, err = run_cli(capsys, "snapshot", *args, "-o", str(path), "--kubeconfig", api.kubeconfig)
    return code, err


def records(path) -> list[dict]:
    return [o for o in json.loads(path.read_text())["items"] if o.get("kind") == NODE_STATS_KIND]


def test_the_named_node_kept_and_read_back_as_live(capsys, api, tmp_path):
    path = tmp_path / "snap.json"
    code, err = snapshot(capsys, api, path, "--node-stats", NODE)
    assert code == 0 and "1 nodes' stats" in err
    [record] = records(path)
    assert record["metadata"]["name"] == NODE and record["configz"] == CONFIGZ
    assert record["summary"] == api.objects[proxy(NODE, "stats/summary")]
    asked = [p for p in api.paths() if "/proxy/" in p]
    assert sorted(asked) == sorted([proxy(NODE, "stats/summary"), proxy(NODE, "configz")])
    assert api.methods == {"GET"}
    names = [o["metadata"].get("name") for o in json.loads(path.read_text())["items"] if o.get("kind") == "Pod"]
    assert "web-evicted" in names           # the node's finished pods, which its Summary names
    _, live, _ = run_cli(capsys, "evict", "pressure", NODE, "--now", NOW, "-o", "json", "--kubeconfig", api.kubeconfig)
    code, replay, err = run_cli(capsys, "evict", "pressure", NODE, "--now", NOW, "-o", "json", "--nodes", str(path))
    assert code == 1, err
    ours, theirs = json.loads(replay), json.loads(live)
    assert ours["evicted"] == theirs["evicted"] and ours["ranking"] == theirs["ranking"]
    assert ours["evictionHard"] == {"memory.available": "100Mi"}


def test_the_nodes_under_pressure(capsys, api, tmp_path):
    path = tmp_path / "snap.json"
    code, _ = snapshot(capsys, api, path, "--node-stats-pressured")
    assert code == 0 and [r["metadata"]["name"] for r in records(path)] == ["node-b2"]
    assert {p for p in api.paths() if "/proxy/" in p} == {proxy("node-b2", "stats/summary"),
                                                          proxy("node-b2", "configz")}


def test_without_the_option_no_node_is_asked(capsys, api, tmp_path):
    path = tmp_path / "snap.json"
    assert snapshot(capsys, api, path)[0] == 0
    assert records(path) == [] and not any("/proxy/" in p for p in api.paths())


def test_a_refused_node_proxy_is_a_note(capsys, api, tmp_path):
    api.faults.forbidden[proxy(NODE, "stats/summary")] = "forbidden-get-nodes-proxy.json"
    path = tmp_path / "snap.json"
    code, err = snapshot(capsys, api, path, "--node-stats", NODE, "--node-stats", "node-zz")
    assert code == 0
    assert f"note: node {NODE}'s stats/summary not kept: forbidden (403)" in err
    assert "note: node node-zz is not in the cluster: no stats kept for it" in err
    [record] = records(path)
    assert "summary" not in record and record["configz"] == CONFIGZ
    code, out, err = run_cli(capsys, "evict", "pressure", NODE, "--nodes", str(path))
    assert code == 2 and "--stats FILE is required" in err


def test_redacted_snapshots_keep_no_stats(capsys, api, tmp_path):
    code, err = snapshot(capsys, api, tmp_path / "snap.json", "--node-stats", NODE, "--redact")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--redact" in err
    assert not any("/proxy/" in p for p in api.paths())


def test_an_evicted_pods_replay_ranks_its_node_now(capsys, api, tmp_path):
    path = tmp_path / "snap.json"
    code, err = snapshot(capsys, api, path, "web-evicted", "-n", "shop", "--node-stats", NODE)
    assert code == 0, err
    pod = tmp_path / "snap.pod.json"
    code, out, err = run_cli(capsys, str(pod), "--nodes", str(path), "--stored", "-o", "json")
    removed = json.loads(out)["eviction"]
    assert "node" not in removed        # the snapshot's pod is unbound: the node whose stats it kept
    now = removed["now"]
    order = [r["pod"] for r in now["ranking"]]
    assert now["node"] == NODE and order[-1] == f"shop/{BOUND}"      # the only pod within its request
    assert now["places"] == [{"pod": f"shop/{BOUND}", "place": len(order), "as": "replacement"}]


def test_two_records_of_one_node_are_refused():
    """Two snapshots given together that both kept a node: which to read is the user's choice."""
    record = node_stats_record(NODE, {"stats/summary": {"node": {}}, "configz": CONFIGZ})
    one, two = Source("a.json", 3), Source("b.json", 9)
    assert recorded_node_stats([(record, one)], NODE)["configz"][0] == CONFIGZ
    assert recorded_node_stats([(record, one)], "node-b2") == {}
    with pytest.raises(KexplainError, match="a.json: document 3 and b.json: document 9 both record node node-a1"):
        recorded_node_stats([(record, one), (record, two)], NODE)


def test_the_node_of_an_unbound_pod():
    kept = node_stats_record(NODE, {"stats/summary": {"pods": [{"podRef": {"uid": "u-1"}}]}})
    other = node_stats_record("node-b2", {"stats/summary": {"pods": []}})
    src = Source("s.json")
    assert node_of_pod([(other, src), (kept, src)], "u-1") == NODE          # its Summary names the pod
    assert node_of_pod([(kept, src)], "u-9") == NODE                        # the one node kept
    assert node_of_pod([(other, src), (kept, src)], "u-9") is None          # two, neither names it

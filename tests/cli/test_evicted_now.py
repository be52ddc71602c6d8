"""The evicted pod's node ranked now (issue 71 item 4): `kexplain POD.yaml --stats FILE
--kubelet-config FILE` and `kexplain pod NAME` live (the node's Summary and configz through the
node proxy, or the files given); said as now, with the pod's place or its replacement's; the
scheduling answer and the exit code as without it."""
from __future__ import annotations

import copy
import json

import pytest
import yaml

from tests.support.live_server import POD_PATH, isolated, recorded_api, run_cli  # noqa: F401
from tests.support.paths import TESTS

CASE = TESTS / "eviction" / "cases" / "pressure-0002"     # node-a: shop/agent-434 evicted for memory
ARGS = ("--stored", "--nodes", str(CASE / "cluster.yaml"))
STATS = ("--stats", str(CASE / "stats.json"), "--kubelet-config", str(CASE / "kubelet-config.yaml"))


@pytest.fixture
def evicted_file(tmp_path):
    """shop/agent-434 as the kubelet left it: Failed, Evicted, its message and condition."""
    pod = next(o for o in yaml.safe_load_all((CASE / "cluster.yaml").read_text())
               if o and o["metadata"]["name"] == "agent-434")
    gone = json.loads((CASE / "expected.json").read_text())["evicted"][0]
    pod["status"] = {"phase": "Failed", "reason": "Evicted", "message": gone["message"],
                     "conditions": gone["conditions"]}
    path = tmp_path / "evicted.yaml"
    path.write_text(yaml.safe_dump(pod))
    return path


def test_files_ranking_now(capsys, evicted_file):
    code, out, _ = run_cli(capsys, str(evicted_file), *ARGS, *STATS, "-o", "json")
    trace = json.loads(out)
    now = trace["eviction"]["now"]
    assert now["node"] == "node-a" and now["signal"] == "memory.available" and now["underPressure"] is True
    assert [r["pod"] for r in now["ranking"]] == json.loads((CASE / "expected.json").read_text())["ranking"]
    assert now["places"] == [{"pod": "shop/agent-434", "place": 1, "as": "itself"}]
    plain_code, plain_out, _ = run_cli(capsys, str(evicted_file), *ARGS, "-o", "json")
    plain = json.loads(plain_out)
    assert "now" not in plain["eviction"] and (plain_code, plain["result"]) == (code, trace["result"])


def test_files_ranking_now_text(capsys, evicted_file):
    _, out, _ = run_cli(capsys, str(evicted_file), *ARGS, *STATS)
    assert "Now, not then: node node-a at 2025-12-31T23:59:54Z is under pressure for memory" in out
    assert "Now it is 1 of 5 (1: evicted first)." in out
    assert "Its ranking now (first evicted first" in out
    row = next(line for line in out.splitlines() if line.lstrip().startswith("1 "))
    assert "shop/agent-434" in row and row.rstrip().endswith("itself")
    assert out.index("Now, not then") < out.index("Below: whether its node's kubelet")
    assert all(len(line) <= 80 for line in out.splitlines()[:30])
    _, plain, _ = run_cli(capsys, str(evicted_file), *ARGS)
    assert "give the node's stats Summary (--stats FILE" in plain and "Now, not then" not in plain


def test_files_a_summary_naming_pods_the_node_does_not_hold(capsys, evicted_file, tmp_path):
    stats = json.loads((CASE / "stats.json").read_text())
    stats["pods"][0]["podRef"]["uid"] = "elsewhere"
    path = tmp_path / "stats.json"
    path.write_text(json.dumps(stats))
    code, out, err = run_cli(capsys, str(evicted_file), *ARGS, "--stats", str(path))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert str(path) in err and "is not bound to node node-a" in err and "Summary pods[0].podRef" in err


# --- live: the recorded cluster, the web pod's evicted copy on node-a1 ---------------------------------

NODE = "node-a1"
BOUND = "web-5f6d8c7b9-2xkqp"
MESSAGE = ("The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki. "
           "Container web was using 1536Mi, request is 1Gi, has larger consumption of memory. ")
SUMMARY_PATH = f"/api/v1/nodes/{NODE}/proxy/stats/summary"
CONFIGZ_PATH = f"/api/v1/nodes/{NODE}/proxy/configz"
CONFIGZ = {"kubeletconfig": {"evictionHard": {"memory.available": "100Mi"}}}


@pytest.fixture
def api(tmp_path):
    """The recorded cluster with web-evicted (the web ReplicaSet's pod the kubelet evicted from
    node-a1, its own uid); the ReplicaSet's web pod still runs there: its replacement."""
    with recorded_api(tmp_path) as server:
        items = server.collections[POD_PATH]["items"]
        pod = copy.deepcopy(next(i for i in items if i["metadata"]["name"] == BOUND))
        pod["metadata"].update(name="web-evicted", uid="uid-web-evicted")
        pod["status"] = {"phase": "Failed", "reason": "Evicted", "message": MESSAGE}
        items.append(pod)
        running = [p for p in items if p["spec"].get("nodeName") == NODE and p["metadata"]["name"] != "web-evicted"]
        stamp = {"time": "2026-11-27T06:00:00Z"}
        server.objects[SUMMARY_PATH] = {
            "node": {"nodeName": NODE, "memory": {**stamp, "availableBytes": 6 << 30, "workingSetBytes": 9 << 30}},
            "pods": [{"podRef": {k: p["metadata"][k] for k in ("name", "namespace", "uid")},
                      "memory": {**stamp, "workingSetBytes": (1200 if p["metadata"]["name"] == BOUND else 10) << 20}}
                     for p in running]}
        server.objects[CONFIGZ_PATH] = CONFIGZ
        yield server


def live(capsys, api, *more: str) -> tuple[int, str, str]:
    return run_cli(capsys, "pod", "web-evicted", "-n", "shop", "--kubeconfig", api.kubeconfig, *more)


def test_live_ranking_now_through_the_node_proxy(capsys, api):
    code, out, _ = live(capsys, api, "-o", "json")
    now = json.loads(out)["eviction"]["now"]
    assert now["node"] == NODE and now["underPressure"] is False and now["at"] == "2026-11-27T06:00:00Z"
    assert now["places"] == [{"pod": f"shop/{BOUND}", "place": 1, "as": "replacement"}]
    assert {SUMMARY_PATH, CONFIGZ_PATH} <= set(api.paths()) and api.methods == {"GET"}


def test_live_files_given_are_not_asked_of_the_node(capsys, api, tmp_path):
    stats, config = tmp_path / "stats.json", tmp_path / "configz.json"
    stats.write_text(json.dumps(api.objects[SUMMARY_PATH]))
    config.write_text(json.dumps(CONFIGZ))
    code, out, _ = live(capsys, api, "--stats", str(stats), "--kubelet-config", str(config), "-o", "json")
    assert json.loads(out)["eviction"]["now"]["places"][0]["as"] == "replacement"
    assert not any("/proxy/" in p for p in api.paths())


def test_live_refused_node_proxy_is_said_and_the_answer_stands(capsys, api):
    _, before, _ = live(capsys, api, "-o", "json")
    api.faults.forbidden[SUMMARY_PATH] = "forbidden-get-nodes-proxy.json"
    code, out, err = live(capsys, api, "-o", "json")
    trace = json.loads(out)
    said = trace["eviction"]["now"]["unavailable"]
    assert '"nodes/proxy"' in said and "--stats FILE" in said
    assert trace["result"] == json.loads(before)["result"]
    _, text, _ = live(capsys, api)
    assert "Its node's ranking now: not read: forbidden (403)" in text


def test_live_a_pod_not_evicted_reads_no_node(capsys, api):
    run_cli(capsys, "pod", BOUND, "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    assert not any("/proxy/" in p for p in api.paths())


def test_docs_show_the_real_output(capsys):
    """docs/eviction.md's "Its node's ranking now" shows what kexplain prints for its fixture."""
    from tests.support.paths import ROOT
    folder = ROOT / "fixtures" / "eviction" / "ranking-now"
    _, out, _ = run_cli(capsys, str(folder / "evicted.yaml"), "--stored", "--nodes", str(folder / "cluster.yaml"),
                        "--stats", str(folder / "stats.json"), "--kubelet-config", str(folder / "kubelet-config.yaml"))
    docs = (ROOT / "docs" / "eviction.md").read_text()
    shown = docs[docs.index("$ kexplain fixtures/eviction/ranking-now/evicted.yaml"):]
    assert "\n".join(out.splitlines()[:29]) in shown

"""`--html FILE` on every command that explains: the page holds the document `-o json` prints
(with every node's facts), and nothing printed changes because a page was asked for."""
from __future__ import annotations

import json
import sys

import pytest

from kexplain.cli.app import main
from tests.support.html_pages import fetches, page_data
from tests.support.live_server import RecordedApiServer, write_kubeconfig
from tests.support.paths import FIXTURES, ROOT

CLUSTER = str(FIXTURES / "cluster.yaml")
TOO_BIG = str(FIXTURES / "pod-too-big.yaml")
WEB = str(FIXTURES / "pod-web.yaml")
DRA = FIXTURES / "dra"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def node_names(cluster: str = CLUSTER) -> set[str]:
    from kexplain.explain.inputs import load_pool
    return {ni.name for ni in load_pool((cluster,)).snapshot.node_infos}


@pytest.mark.parametrize("output", ["table", "wide", "json", "yaml"])
def test_what_is_printed_does_not_change(capsys, tmp_path, output):
    page = tmp_path / "p.html"
    plain = run(capsys, TOO_BIG, "--nodes", CLUSTER, "-o", output)
    with_page = run(capsys, TOO_BIG, "--nodes", CLUSTER, "-o", output, "--html", str(page))
    assert with_page == plain and plain[0] == 1
    assert page.stat().st_size > 0


def test_the_page_holds_the_trace_with_every_nodes_facts(capsys, tmp_path):
    page = tmp_path / "p.html"
    code, out, _ = run(capsys, TOO_BIG, "--nodes", CLUSTER, "-o", "json", "--html", str(page))
    trace = json.loads(out)
    data = page_data(page)
    doc = data["doc"]
    assert {k: doc[k] for k in trace} == trace        # every key of -o json, the same
    nodes = doc["details"]["nodes"]
    assert set(nodes) == node_names()
    assert all(nodes[n]["resources"] for n in nodes)
    words = data["extra"][0]["words"]                  # every node's facts, in the words of --node
    assert set(words) == node_names() and all("NodeResourcesFit" in words[n] for n in nodes)
    _, node_view, _ = run(capsys, TOO_BIG, "--nodes", CLUSTER, "--node", "node-4")
    for line in words["node-4"]["TaintToleration"][0]:
        assert line in " ".join(node_view.split())
    assert fetches(page) == []


def test_a_node_the_search_never_reached_has_its_verdict(capsys, tmp_path):
    """A pod that fits on a large cluster: the search stops early, the page still holds every
    node, the ones never examined with what Filter would have said (`filterAll`)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import generate

    files = generate.write(tmp_path / "gen", 300, pods_per_node=6, apps=50, formats=("json",))
    page = tmp_path / "p.html"
    code, out, _ = run(capsys, str(files["pod-plain"]), "--nodes", str(files["json"]), "-o", "json",
                       "--html", str(page))
    trace = json.loads(out)
    doc = page_data(page)["doc"]
    visited = set(trace["search"]["order"])
    never = [n for n in doc["details"]["nodes"] if n not in visited]
    assert len(visited) < 300 and len(doc["details"]["nodes"]) == 300
    assert set(never) == set(doc["unexamined"]["nodes"])
    assert all(doc["details"]["nodes"][n]["examined"] is False and doc["details"]["nodes"][n]["filterAll"]
               for n in never)
    # The page is a small multiple of the trace -o json prints.
    assert page.stat().st_size < 4 * len(out.encode())


def test_replicas(capsys, tmp_path):
    page = tmp_path / "p.html"
    plain = run(capsys, WEB, "--nodes", CLUSTER, "--replicas", "5", "-o", "json")
    code, out, err = run(capsys, WEB, "--nodes", CLUSTER, "--replicas", "5", "-o", "json", "--html", str(page))
    assert (code, out, err) == plain
    printed = json.loads(out)
    doc = page_data(page)["doc"]
    assert doc["kind"] == "SchedulingTraceList"
    assert doc["placements"] == printed["placements"]
    pods = [p["name"] for p in printed["placements"][0]["pods"]]
    kept = [t["pod"]["name"] for t in doc["items"]]
    assert kept[0] == pods[0] and kept[-1] == pods[-1]      # the first copy, and the last (which did not fit)
    by_name = {t["pod"]["name"]: t for t in printed["items"]}
    for item in doc["items"]:
        assert {k: item[k] for k in by_name[item["pod"]["name"]]} == by_name[item["pod"]["name"]]
        assert set(item["details"]["nodes"]) == node_names()


def test_several_pods_and_their_devices(capsys, tmp_path):
    page = tmp_path / "p.html"
    code, out, _ = run(capsys, str(DRA / "pod.yaml"), "--nodes", str(DRA / "cluster.yaml"), "--html", str(page))
    assert code == 1
    doc = page_data(page)["doc"]
    assert [t["pod"]["name"] for t in doc["items"]] == ["llm-finetune", "render-2"]
    facts = doc["items"][1]["details"]["nodes"]["gpu-node-3"]["plugins"]["DynamicResources"]
    devices = facts["claims"][0]["requests"][0]["devices"]
    assert len(devices) == 8 and {d["reason"] for d in devices} == {"inUse"}


def test_lint(capsys, tmp_path):
    page = tmp_path / "p.html"
    code, out, _ = run(capsys, "lint", TOO_BIG, WEB, "--nodes", CLUSTER, "-o", "json", "--html", str(page))
    report = json.loads(out)
    doc = page_data(page)["doc"]
    assert doc["kind"] == "LintReport" and doc["findings"] == report["findings"]
    explained = {(e["file"], e["object"]["name"]): e for e in doc["explanations"]}
    assert set(explained) == {(TOO_BIG, "analytics"), (WEB, "web")}
    too_big = explained[(TOO_BIG, "analytics")]["items"]
    assert [t["result"]["status"] for t in too_big] == ["Unschedulable"]
    assert set(too_big[0]["details"]["nodes"]) == node_names()
    assert "explanations" not in report          # -o json is as it was


def test_an_unwritable_page_is_one_error_line(capsys, tmp_path):
    code, _, err = run(capsys, TOO_BIG, "--nodes", CLUSTER, "--html", str(tmp_path / "no" / "such" / "p.html"))
    assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1


# -- live clusters ----------------------------------------------------------------------------------

@pytest.fixture
def api(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with RecordedApiServer(token="t") as server:
        server.kubeconfig = str(write_kubeconfig(tmp_path / "kubeconfig", server.url, token="t"))
        yield server


def test_pending(capsys, tmp_path, api):
    page = tmp_path / "p.html"
    plain = run(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json")
    with_page = run(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig, "-o", "json",
                    "--html", str(page))
    assert with_page == plain
    printed = json.loads(plain[1])
    doc = page_data(page)["doc"]
    assert [t["pod"] for t in doc["items"]] == [t["pod"] for t in printed["items"]]
    for item, shown in zip(doc["items"], printed["items"]):
        assert {k: item[k] for k in shown} == shown          # the live key included
        assert "details" in item


def test_a_named_live_pod(capsys, tmp_path, api):
    page = tmp_path / "p.html"
    code, out, _ = run(capsys, "pod", "checkout-6b8d9f7c4-lm3np", "-n", "shop", "--kubeconfig", api.kubeconfig,
                       "-o", "json", "--html", str(page))
    trace = json.loads(out)
    doc = page_data(page)["doc"]
    assert {k: doc[k] for k in trace} == trace and doc["live"]["agrees"] is True

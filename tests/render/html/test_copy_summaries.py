"""Every copy of a many-pods run carries its own explanation in brief (`placements[].pods[].summary`):
what its full trace says of its verdict, search, best nodes and rejections, whether or not that
trace is kept; the page holds them all."""
from __future__ import annotations

import json
from typing import Any

from kexplain.cli.app import main
from tests.support.html_pages import page_data
from tests.support.paths import FIXTURES

CLUSTER = str(FIXTURES / "cluster.yaml")
WEB = str(FIXTURES / "pod-web.yaml")
LARGE = FIXTURES / "large-cluster"
REJECTED = ("Unschedulable", "UnschedulableAndUnresolvable", "Error")


def run(capsys, *args: str) -> tuple[int, dict[str, Any]]:
    code = main(list(args))
    out, _ = capsys.readouterr()
    return code, json.loads(out)


def said_by(trace: dict[str, Any]) -> dict[str, Any]:
    """What a copy's full trace (an item of -o json) says, read off the trace itself."""
    result, search = trace["result"], trace["search"]
    out: dict[str, Any] = {}
    if result["status"] != "Scheduled":
        out["message"] = result["message"]
    out["search"] = {k: search[k] for k in ("numAllNodes", "startIndex", "numNodesSearched", "numFilterSuccess")}
    score = trace["score"] or {}
    if score:
        ranked = sorted(score, key=lambda n: (-score[n]["total"], n != result.get("suggestedHost"), n))
        out["top"] = [{"node": n, "total": score[n]["total"],
                       "plugins": {p: v["weighted"] for p, v in score[n]["plugins"].items()}} for n in ranked[:3]]
    rejected: dict[tuple[str, str], int] = {}
    for verdict in trace["filter"].values():
        if verdict["code"] in REJECTED:
            for reason in verdict["reasons"]:
                rejected[(verdict["plugin"], reason)] = rejected.get((verdict["plugin"], reason), 0) + 1
    if rejected:
        out["rejected"] = [{"plugin": p, "reason": r, "nodes": n}
                           for (p, r), n in sorted(rejected.items(), key=lambda kv: (-kv[1], kv[0]))]
    return out


def test_each_copys_summary_is_what_its_trace_says(capsys):
    """-o json lists every copy's trace (most without filterAll): each copy's summary says
    the same as its trace, fitting copies and the one that does not alike."""
    summaries = []
    for args in ((WEB, "--nodes", CLUSTER, "--replicas", "8"),
                 (str(LARGE / "pod.yaml"), "--nodes", str(LARGE / "cluster.yaml"), "--replicas", "12")):
        _, doc = run(capsys, *args, "-o", "json", "--kubernetes-version", "1.35")
        pods = doc["placements"][0]["pods"]
        assert len(pods) == len(doc["items"])
        for copy, trace in zip(pods, doc["items"]):
            assert copy["name"] == trace["pod"]["name"]
            assert copy["summary"] == said_by(trace), copy["name"]
        summaries += [c["summary"] for c in pods]
    assert any("top" in s for s in summaries) and any("rejected" in s for s in summaries)
    assert any("message" in s for s in summaries)


def test_the_page_holds_every_copys_summary(capsys, tmp_path):
    page = tmp_path / "p.html"
    _, doc = run(capsys, WEB, "--nodes", CLUSTER, "--replicas", "8", "-o", "json", "--html", str(page))
    data = page_data(page)["doc"]
    assert data["placements"] == doc["placements"]
    kept = {t["pod"]["name"] for t in data["items"]}
    copies = data["placements"][0]["pods"]
    assert len(kept) < len(copies)          # some copies are kept in brief only
    assert all(c["summary"]["search"]["numAllNodes"] == 6 for c in copies)
    unfit = [c for c in copies if c["node"] is None]
    assert unfit and unfit[0]["summary"]["message"].startswith("0/6 nodes are available")

"""`kexplain evict pressure|drain|taints --html FILE` (issue 71 item 7): a self-contained page of
the same document, the order with its numbers, the budgets, where the pods go, the fixes, and the
answer exactly as the terminal prints it."""
from __future__ import annotations

import html
import json
import re

import pytest

from kexplain.render.html import render_page
from tests.support.html_pages import fetches, visible_text
from tests.support.live_server import run_cli
from tests.support.paths import TESTS

CASES = TESTS / "eviction" / "cases"


def args_of(case: str) -> list[str]:
    folder = CASES / case
    params = json.loads((folder / "params.yaml").read_text())
    argv = ["evict", params["family"], params["node"], "--nodes", str(folder / "cluster.yaml"),
            "--now", params["now"], *params.get("flags", ())]
    if params["family"] == "pressure":
        argv += ["--stats", str(folder / "stats.json"), "--kubelet-config", str(folder / "kubelet-config.yaml")]
    return argv


def page_and_runs(capsys, tmp_path, case: str) -> tuple[str, str, dict, int]:
    """The page written beside the text, the text alone, the JSON document, the exit code."""
    out = tmp_path / "page.html"
    code, text, _ = run_cli(capsys, *args_of(case), "--html", str(out))
    same_code, plain, _ = run_cli(capsys, *args_of(case))
    _, doc, _ = run_cli(capsys, *args_of(case), "-o", "json")
    assert (code, text) == (same_code, plain)          # --html changes nothing on stdout nor the exit code
    return out.read_text(encoding="utf-8"), text, json.loads(doc), code


def the_text(page: str) -> str:
    found = re.search(r'<pre class="text">(.*?)</pre>', page, re.S)
    assert found is not None
    return html.unescape(found.group(1))


def rows_of(page: str, anchor: str) -> list[list[str]]:
    """The body rows of the table in the section whose heading has `anchor`."""
    section = page[page.index(f'id="{anchor}"'):]
    section = section[:section.index("</section>")]
    body = section[section.index("<tbody>"):section.index("</tbody>")]
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


@pytest.mark.parametrize("case", ["pressure-0002", "drain-0012", "taints-0012"])
def test_the_page_says_the_text_and_needs_nothing_else(capsys, tmp_path, case):
    page, text, doc, _ = page_and_runs(capsys, tmp_path, case)
    assert the_text(page) == text.rstrip("\n")
    assert fetches(page) == [] and "<script" not in page
    assert f"kexplain: evict {doc['family']} {doc['node']}" in visible_text(page)


def test_pressure_page_ranks_with_the_numbers(capsys, tmp_path):
    page, _, doc, _ = page_and_runs(capsys, tmp_path, "pressure-0002")
    rows = rows_of(page, "ranking")
    assert [r[1] for r in rows] == doc["ranking"]
    first = doc["rankingKeys"][0]
    assert rows[0][2:-1] == [{True: "yes", False: "no"}.get(k["value"], str(k["value"])) for k in first["keys"]]
    assert rows[0][-1] == "evicted"
    met = {r[0]: r[-1] for r in rows_of(page, "signals")}
    assert met["memory.available"] == "yes" and met["allocatableMemory.available"] == "no"
    assert doc["whatIf"][0]["says"] in visible_text(page)


def test_drain_page_spends_the_budgets_in_order(capsys, tmp_path):
    page, _, doc, _ = page_and_runs(capsys, tmp_path, "drain-0012")
    evictions = rows_of(page, "evictions")
    assert [r[0] for r in evictions] == [e["pod"] for e in doc["evictions"]]
    spent = {s["pod"]: s for s in doc["spending"]}
    for row in evictions:
        before = spent[row[0]]["before"]
        if before:
            assert row[3] == before["name"] and row[4] == "/".join(str(before[k]) for k in (
                "currentHealthy", "desiredHealthy", "expectedPods", "disruptionsAllowed"))
    budgets = {r[0]: r for r in rows_of(page, "budgets")}
    for pdb in doc["pdbs"]:
        assert budgets[pdb["name"]][5] == str(pdb["status"]["disruptionsAllowed"])
    assert [r[0] for r in rows_of(page, "where")] == [r["evicted"] for r in doc["replacements"]]
    assert [r[0] for r in rows_of(page, "fixes")] == [f["fix"] for f in doc["fixes"]]


def test_taints_page_decides_each_pod(capsys, tmp_path):
    page, _, doc, _ = page_and_runs(capsys, tmp_path, "taints-0012")
    rows = rows_of(page, "decisions")
    assert [(r[0], r[1]) for r in rows] == [(p["pod"], p["decision"]) for p in doc["pods"]]
    if doc["whereTheyGo"]:
        assert [r[0] for r in rows_of(page, "where")] == [r["pod"] for r in doc["whereTheyGo"]]


def test_every_family_document_has_its_page():
    """A document of each family renders without the command (the page reads only the document)."""
    for family in ("pressure", "drain", "taints"):
        page = render_page({"family": family, "node": "n", "kubernetesVersion": "v1.36.3"})
        assert f"evict {family} n" in page


def test_an_unwritable_page_is_one_line(capsys, tmp_path):
    code, out, err = run_cli(capsys, *args_of("taints-0012"), "--html", str(tmp_path / "no" / "page.html"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "page.html" in err

"""`kexplain evict pressure|drain|taints --html FILE` (issue 71 item 7): a self-contained page of
the same document, the order with its numbers, the budgets, where the pods go, the fixes, and the
answer exactly as the terminal prints it."""
from __future__ import annotations

import html
import json
import re

import pytest

from kexplain.render.html import render_page
from tests.eviction.drain_cluster import cluster, write
from tests.eviction.test_drain_autoscaled import MACHINE_SET
from tests.support.cli_helpers import run_cli as run_plain
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
    assert rows[0][-1] == "evicted"
    met = {r[0]: r[-1] for r in rows_of(page, "signals")}
    assert met["memory.available<100Mi"] == "MET" and met["allocatableMemory.available<100Mi"] == "no"
    assert doc["whatIf"][0]["says"] in visible_text(page)


def test_pressure_page_says_quantities_conditions_and_thresholds_as_the_text(capsys, tmp_path):
    """Issue 77 item 24: the page's numbers are the text's (`~68.7Mi`, never `72079393` beside
    `100Mi`), with the thresholds met and the node conditions, under the text's first line."""
    page, text, doc, _ = page_and_runs(capsys, tmp_path, "pressure-0002")
    lines = text.splitlines()
    ranking = lines.index("Ranking (first evicted first; keys compared left to right)")
    printed = [line.split()[:-1] if line.split()[-1] in ("EVICTED", "critical") else line.split()
               for line in lines[ranking + 3:ranking + 3 + len(doc["ranking"])]]
    assert [r[:-1] for r in rows_of(page, "ranking")] == printed
    signals = lines.index("Signals against thresholds")
    assert rows_of(page, "signals") == [line.split() for line in lines[signals + 3:signals + 3 + len(
        [s for s in doc["signals"] if s.get("operator")])]]
    met = visible_text(page[page.index('id="met"'):page.index('id="ranking"')])
    assert "memory.available <100Mi hard: met since 2026-01-01T00:00:00Z; grace period met" in met
    assert "Node conditions reported: MemoryPressure" in met
    verdict = visible_text(page[page.index('id="verdict"'):page.index('id="signals"')])
    assert " ".join(" ".join(lines[:2]).split()) in verdict


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


def test_drain_page_gives_the_verdict_and_the_budget_that_blocks_first(capsys, tmp_path):
    """Issue 77 item 24: above the text, the text's first line and which budget refuses whom."""
    page, text, doc, _ = page_and_runs(capsys, tmp_path, "drain-0012")
    verdict = page[page.index('id="verdict"'):]
    verdict = visible_text(verdict[:verdict.index("</section>")])
    assert " ".join(text.split("\n\n")[0].split()) in verdict          # (the first line, wrapped at 80)
    assert "blocked: 3 of 5 evictions refused" in verdict and page.index('id="verdict"') < page.index('id="text"')
    assert ("default/db1-pdb refuses default/db1-2, default/db1-4: 429 Cannot evict pod as it would violate the "
            "pod's disruption budget. (The disruption budget db1-pdb needs 4 healthy pods and has 3 currently)") \
        in verdict
    assert "default/cart0-0 refused: 500 This pod has more than one PodDisruptionBudget" in verdict


def test_drain_page_says_what_an_autoscaler_would_add(tmp_path):
    """Issue 77 item 24: the replacements' `autoscalers` (Karpenter's NodeClaim, CA's scale-up)
    are in the table of where the evicted pods go, as the text says them."""
    path = str(write(tmp_path / "cluster.yaml", [*cluster({"minAvailable": 0}, b_pods=1, c_pods=1), MACHINE_SET]))
    argv = ["evict", "drain", "node-a", "--nodes", path, "--now", "2026-01-01T00:00:00Z"]
    out = tmp_path / "page.html"
    run_plain(*argv, "--html", str(out))
    _, doc, _ = run_plain(*argv, "-o", "json")
    page = out.read_text(encoding="utf-8")
    pending = [r for r in json.loads(doc)["replacements"] if r.get("autoscalers")]
    rows = {r[0]: r for r in rows_of(page, "where")}
    assert pending and all(rows[r["evicted"]][-1].startswith("the Cluster Autoscaler: TriggeredScaleUp (MachineSet/"
                                                             "capi/workers 0->1 (max: 3))") for r in pending)


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

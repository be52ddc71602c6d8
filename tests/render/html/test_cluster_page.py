"""`kexplain cluster --html FILE` (issue 94): one self-contained page, the summary at the top, each
row a `<details>` opening into its single-object answer as that command's page shows it (a pending
group's first pod as `kexplain POD`, a blocked drain as `kexplain evict drain`); a section the page
does not know shows with its title, count and rows all the same; -o json the same with or without."""
from __future__ import annotations

import copy
import html
import json
import re
from html.parser import HTMLParser

from kexplain.app.cluster.report import as_written, report
from kexplain.render.html import render_page
from kexplain.render.html.cluster import scoped
from kexplain.render.cluster import pressure_lines, scaledown_node_lines, taint_lines, workload_lines
from kexplain.render.html.eviction import eviction_body
from kexplain.render.html.kueue import kueue_section
from kexplain.render.html.markup import join
from kexplain.render.html.static import trace_section
from kexplain.render.kueue_chain import summary as kueue_summary
from tests.app.cluster.helpers import SHOP, request
from tests.support.cli_helpers import run_cli
from tests.support.html_pages import fetches, visible_text
from tests.support.paths import FIXTURES, ROOT

NOW = "2026-01-01T12:00:00Z"


def _rows(page: str) -> list[str]:
    """Each row's `<details>`, in the page's order."""
    return re.findall(r'<details class="row".*?</div></details>', page, re.S)


def _row(page: str, section: str, i: int = 0) -> str:
    return next(r for r in _rows(page) if f'id="s-{section}-{i}"' in r)


def test_the_summary_comes_first_and_names_every_section():
    doc = report(request(SHOP, html=True))
    page = render_page(doc)
    main = page[page.index("<main"):]
    assert main.index('id="summary"') < main.index('id="s-pending"')
    text = visible_text(page)
    assert ("3 pending groups (5 pods), 1 budget allows no disruption, 1 drain blocked, 0 evictions coming (no node "
            "reports pressure), queued skipped, scaledown skipped, karpenter skipped") in text
    assert "no Karpenter NodePool (karpenter.sh/v1) among the inputs" in text
    assert fetches(page) == [] and "<script" not in page


def test_a_pending_group_opens_into_its_first_pods_answer():
    doc = report(request(SHOP, html=True))
    rows = next(s for s in doc["sections"] if s["name"] == "pending")["rows"]
    assert [r["trace"]["pod"]["name"] for r in rows] == ["render-7f9d4-r1", "batch-1", "ssd-cache"]
    page = render_page(doc)
    row = _row(page, "pending", 0)
    assert "<summary>Deployment shop/render: 3 pods Unschedulable</summary>" in row
    assert join(scoped([trace_section(rows[0]["trace"], 0, "First pod: ")], "s-pending-0")) in row   # `kexplain POD`'s
    assert "lower the cpu request from 6 to 4 (container render)" in visible_text(row)


def test_a_blocked_drain_opens_into_evict_drains_answer():
    doc = report(request(SHOP, html=True))
    (drain,) = next(s for s in doc["sections"] if s["name"] == "drains")["rows"]
    row = _row(render_page(doc), "drains", 0)
    assert "<summary>kubectl drain node-b (v1.36.3): blocked: 2 of 2 evictions refused</summary>" in row
    assert join(scoped(eviction_body(drain["drain"]), "s-drains-0")) in row


def test_a_section_the_page_does_not_know_shows_with_its_title_count_and_rows():
    doc = copy.deepcopy(report(request(SHOP, sections=("drains",))))
    drain = doc["sections"][0]["rows"][0]["drain"]
    doc["sections"].append({"name": "later", "title": "A later section", "held": 2, "rows": [
        {"workload": "team-a/job-1", "reason": "insufficient quota for cpu in flavor default", "position": 3},
        {"node": "node-b", "evictions": drain}]})
    page = render_page(doc)
    assert re.search(r'<h2 id="s-later">A later section: 2 rows held</h2>', page)
    first, second = _row(page, "later", 0), _row(page, "later", 1)
    assert "<summary>team-a/job-1: insufficient quota for cpu in flavor default</summary>" in first
    assert "<dt>position</dt><dd>3</dd>" in first
    assert join(scoped(eviction_body(drain), "s-later-1")) in second     # a document it carries: that command's answer
    assert "A later section" in visible_text(page[:page.index('id="s-drains"')])    # in the summary, at the top


def test_json_is_the_same_with_or_without_the_page(tmp_path):
    out = tmp_path / "cluster.html"
    args = ("cluster", "--nodes", SHOP, "--now", NOW, "-o", "json")
    code, plain, _ = run_cli(*args)
    same, with_page, _ = run_cli(*args, "--html", str(out))
    assert (code, plain) == (same, with_page) == (1, plain)
    assert "trace" not in json.dumps(json.loads(plain)["sections"][0]["rows"][0])
    assert 'data-kind="cluster"' in out.read_text(encoding="utf-8")


def test_the_text_is_the_same_with_or_without_the_page(tmp_path):
    args = ("cluster", "--nodes", str(FIXTURES / "karpenter-disruption" / "cluster.yaml"), "--nodes",
            str(FIXTURES / "karpenter-disruption" / "nodepools.yaml"), "--now", NOW)
    plain = run_cli(*args)
    assert run_cli(*args, "--html", str(tmp_path / "page.html")) == plain
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "ip-10-0-2-17.ec2.internal (NodePool general, 1 pod): Pdb prevents pod evictions" in visible_text(page)


def test_a_page_that_cannot_be_written_is_bad_input(tmp_path):
    code, _, err = run_cli("cluster", "--nodes", SHOP, "--now", NOW, "--html", str(tmp_path / "no" / "page.html"))
    assert code == 2 and "page.html" in err


def test_as_written_leaves_out_only_the_pages_keys():
    doc = report(request(SHOP, html=True))
    assert as_written(doc) == report(request(SHOP))


def _section_rows(doc: dict, name: str) -> list[dict]:
    return next(s for s in doc["sections"] if s["name"] == name)["rows"]


def _first_line(lines: list) -> str:
    """The text's first line of a row, as the page writes it (escaped)."""
    return html.escape(lines[0][1].removeprefix("- "), quote=True)


def test_a_held_workload_says_the_texts_line_and_opens_into_kueues_answer():
    doc = report(request(FIXTURES / "kueue" / "cluster.yaml", FIXTURES / "cluster" / "kueue-held.yaml", html=True))
    rows = _section_rows(doc, "queued")
    page = render_page(doc)
    assert len(rows) == 3
    for i, workload in enumerate(rows):
        row = _row(page, "queued", i)
        assert f"<summary>{_first_line(workload_lines(workload))}</summary>" in row
        assert join(scoped(kueue_section({"kueue": workload["kueue"]}, i), f"s-queued-{i}")) in row   # `kexplain pod`'s
    assert "3 Workloads held" in visible_text(page[:page.index('id="s-queued"')])


def test_a_node_the_cluster_autoscaler_keeps_says_the_texts_line():
    case = ROOT / "tests" / "autoscaler" / "cases" / "scaledown-0011"
    doc = report(request(case / "cluster.yaml", node_groups=str(case / "nodegroups.yaml"),
                         autoscaler_config=str(case / "params.yaml"), html=True))
    rows = _section_rows(doc, "scaledown")
    page = render_page(doc)
    assert len(rows) == 4
    for i, node in enumerate(rows):
        row = _row(page, "scaledown", i)
        assert f"<summary>{_first_line(scaledown_node_lines(node))}</summary>" in row
        assert f"<dt>reason</dt><dd>{node['reason']}</dd>" in row
    assert "4 nodes kept (4 by the Cluster Autoscaler)" in visible_text(page[:page.index('id="s-scaledown"')])


def test_a_nodes_evictions_open_into_evict_pressure_and_evict_taints():
    ranking = FIXTURES / "eviction" / "ranking-now"
    doc = report(request(ranking / "cluster.yaml", FIXTURES / "eviction" / "taints.yaml",
                         FIXTURES / "cluster" / "cordoned.yaml", node_stats=(("node-a", str(ranking / "stats.json")),),
                         kubelet_config=str(ranking / "kubelet-config.yaml"), html=True))
    rows = _section_rows(doc, "evictions")
    page = render_page(doc)
    assert [r["family"] for r in rows] == ["pressure", "taints"]
    pressure, taints = _row(page, "evictions", 0), _row(page, "evictions", 1)
    assert f"<summary>{_first_line(pressure_lines(rows[0]))}</summary>" in pressure
    assert join(scoped(eviction_body(rows[0]["pressure"]), "s-evictions-0")) in pressure
    assert f"<summary>{_first_line(taint_lines(rows[1]))}</summary>" in taints
    assert join(scoped(eviction_body(rows[1]["taints"]), "s-evictions-1")) in taints


def test_a_held_workloads_kueue_sentence_ends_as_a_sentence():
    """A Workload the cluster stores alone (no job object named in Kueue's answer): "is not admitted",
    no dangling "; " and no pod template announced that nothing follows, in the page's note and text."""
    doc = report(request(FIXTURES / "kueue" / "cluster.yaml", FIXTURES / "cluster" / "kueue-held.yaml", html=True))
    rows = _section_rows(doc, "queued")
    page = render_page(doc)
    for i, workload in enumerate(rows):
        said = kueue_summary(workload["kueue"])
        assert said.endswith(f"Workload {workload['workload']} is not admitted"), said
        row = visible_text(_row(page, "queued", i))
        assert "is not admitted;" not in row and "Its pod template" not in row


class _Ids(HTMLParser):
    """Every id of a page, and every in-page reference (`href="#X"`, `aria-labelledby`)."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        for key, value in attrs:
            if key == "id":
                self.ids.append(value)
            elif key == "href" and value and value.startswith("#"):
                self.refs.append(value[1:])
            elif key == "aria-labelledby":
                self.refs.append(value)


def test_no_id_repeats_on_a_page_of_several_drains_evictions_and_workloads(tmp_path):
    """Each embedded single-object page names its sections alike ("verdict", "fixes", "text"): under
    its row's id on the cluster's page, every id once, every in-page link and label resolving."""
    ranking = FIXTURES / "eviction" / "ranking-now"
    pressure = ("--nodes", ranking / "cluster.yaml", "--nodes", FIXTURES / "eviction" / "taints.yaml", "--nodes",
                FIXTURES / "cluster" / "cordoned.yaml", "--node-stats", f"node-a={ranking / 'stats.json'}",
                "--kubelet-config", ranking / "kubelet-config.yaml", "--drain-check")
    karpenter = ("--nodes", FIXTURES / "karpenter-disruption" / "cluster.yaml", "--nodes",
                 FIXTURES / "karpenter-disruption" / "nodepools.yaml", "--drain-check")
    kueue = ("--nodes", FIXTURES / "kueue" / "cluster.yaml", "--nodes", FIXTURES / "cluster" / "kueue-held.yaml",
             "--nodes", SHOP)
    for i, args in enumerate((pressure, karpenter, kueue)):
        out = tmp_path / f"page-{i}.html"
        run_cli("cluster", *map(str, args), "--now", NOW, "--html", str(out))
        parsed = _Ids()
        parsed.feed(out.read_text(encoding="utf-8"))
        rows = [x for x in parsed.ids if re.fullmatch(r"s-[a-z]+-\d+", x)]
        assert len(rows) >= 3, rows                  # (several rows embedding pages: the check can fail)
        repeated = sorted({x for x in parsed.ids if parsed.ids.count(x) > 1})
        assert repeated == [], f"page {i}: {repeated}"
        assert set(parsed.refs) <= set(parsed.ids), f"page {i}: {set(parsed.refs) - set(parsed.ids)}"

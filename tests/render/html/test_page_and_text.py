"""The page and the text of one run are one answer: `--html FILE` renders the very result
document the text renders (each pod's verdict in the scheduler's queue, `queue_order.in_queue`;
its line, `render.queue.pending_line`), never a placement of its own. Each case runs one command
once, with `--html`, and reads the verdicts back from both: how many pods are scheduled and
how many not, where each pod goes, and each pod's NodeClaim in Karpenter's pass. For a file of
pods (offline: a batch), for `kexplain pod --pending -A` where the scheduler's queue changes
what the pods get alone (the stand-in API server), and for that on a cluster with Karpenter."""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Iterator

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.html_pages import page_data
from tests.support.live_server import isolated, recorded_api  # noqa: F401 (isolated: autouse)
from tests.support.paths import FIXTURES
from tests.support.queue_cases import APPS, crowd

WIDE = 400      # columns: no table of the text wraps


class _Tables(HTMLParser):
    """The page's tables without script (class -> rows of cell texts) and its title."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.title = ""
        self._table: list[list[str]] | None = None
        self._cell: list[str] | None = None
        self._in: list[str] = []

    def handle_starttag(self, tag, attrs):
        self._in.append(tag)
        if tag == "table":
            self._table = self.tables.setdefault(dict(attrs).get("class") or "", [])
        elif tag == "tr" and self._table is not None:
            self._table.append([])
        elif tag == "td" and self._table is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if self._in:
            self._in.pop()
        if tag == "td" and self._cell is not None and self._table:
            self._table[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        elif self._in and self._in[-1] == "title":
            self.title += data


def page_of(path: Path) -> _Tables:
    parser = _Tables()
    parser.feed(path.read_text(encoding="utf-8"))
    for rows in parser.tables.values():
        rows[:] = [r for r in rows if r]        # (the header row has no td)
    return parser


def once(tmp_path: Path, *args: str) -> tuple[int, str, _Tables, dict]:
    """One run: exit code, the text (wide), the page's tables and its data."""
    page = tmp_path / "page.html"
    env = TestEnvironment(width=WIDE)
    code = main([*args, "--html", str(page)], env=env)
    assert code in (0, 1), env.err
    return code, env.out, page_of(page), page_data(page)


def text_rows(out: str) -> dict[str, tuple[str, str, str]]:
    """`--pending`'s list: pod -> (verdict, node it goes to, why)."""
    lines = out.split("\n\n")[0].splitlines()
    assert lines[0].split() == ["POD", "KEXPLAIN", "SCHEDULER", "WHY"]
    rows = {}
    for line in lines[1:]:
        pod, status, _, why = line.split(None, 3)
        found = re.search(r"(?:fits now: would be bound to|it goes to) ([\w.-]+)", why)
        rows[pod] = (status, found.group(1) if found and status == "Scheduled" else "", why)
    return rows


def page_rows(page: _Tables) -> dict[str, tuple[str, str, str]]:
    """The page's table of pods: pod -> (verdict, the node it goes to, why)."""
    return {pod: (badge.split(" ", 1)[1], "" if node == "-" else node, why)
            for pod, badge, node, why in page.tables["pods"]}


def counts(statuses: Iterator[str]) -> tuple[int, int]:
    statuses = list(statuses)
    return sum(1 for s in statuses if s == "Scheduled"), sum(1 for s in statuses if s != "Scheduled")


def assert_one_list(code: int, out: str, page: _Tables) -> dict[str, tuple[str, str, str]]:
    """The list's verdicts, nodes and whys alike in both; the page's title counts what the text
    counts, and the exit code follows them."""
    text, shown = text_rows(out), page_rows(page)
    explained = {k: v for k, v in text.items() if v[0] != "skipped"}
    assert shown == explained
    scheduled, not_scheduled = counts(v[0] for v in explained.values())
    assert page.title.endswith(f"{len(explained)} pod(s): {scheduled} would be scheduled, {not_scheduled} would not")
    assert code == (1 if not_scheduled else 0)
    return explained


# -- a file of pods ------------------------------------------------------------------------------
# fixtures/autoscaler/cluster.yaml: two nodes with 1920m cpu free each.
BATCH = """apiVersion: v1
kind: Pod
metadata: {name: solo}
spec:
  containers: [{name: c, image: app:1, resources: {requests: {cpu: 1500m, memory: 1Gi}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: web:1, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: late}
spec:
  containers: [{name: c, image: app:1, resources: {requests: {cpu: 300m, memory: 1Gi}}}]
"""


def text_batch(out: str) -> tuple[dict[str, int], dict[str, str | None]]:
    """A file's sections: object -> pods that fit; pod -> node (None: does not fit)."""
    fit: dict[str, int] = {}
    nodes: dict[str, str | None] = {}
    for section in out.split("=== ")[1:]:
        head = section.splitlines()[0]
        obj = head.split(" (priority")[0]
        replicas = re.search(r": (\d+) of (\d+) replicas fit", head)
        if replicas:
            fit[obj] = int(replicas.group(1))
            for name, where in re.findall(r"^ +\d+ +(\S+) +(.+)$", section.split("Copies, in the order")[1]
                                          .split("\n\n")[0], re.M):
                nodes[name] = None if where.startswith("(does not fit") else where.strip()
        else:
            bound = re.search(r"^Would be bound to ([\w.-]+)", section, re.M)
            fit[obj] = 1 if bound else 0
            nodes[obj.split("/")[1]] = bound.group(1) if bound else None
    return fit, nodes


def test_a_file_of_pods(tmp_path):
    pods = tmp_path / "pods.yaml"
    pods.write_text(BATCH)
    code, out, page, data = once(tmp_path, str(pods), "--nodes", str(FIXTURES / "autoscaler" / "cluster.yaml"),
                                 "--no-suggestions")
    fit, nodes = text_batch(out)
    assert fit == {"Pod default/solo": 1, "Deployment default/web": 1, "Pod default/late": 1}
    rows = {f"{kind} {name}": [int(n) for n in fitted.split(" of ")] for kind, name, _, fitted, *_ in
            page.tables["placements"]}
    assert {k: f for k, (f, _) in rows.items()} == fit
    assert page.title.endswith(f"{len(fit)} object(s): {sum(fit.values())} of 5 pods fit, 1 never tried")
    placed = {p["name"]: p["node"] for o in data["doc"]["placements"] for p in o["pods"]}
    assert placed == nodes
    assert code == (1 if any(f < n for f, n in rows.values()) else 0) == 1      # 1 of web's 3 copies fits


# -- the scheduler's queue: --pending -A -------------------------------------------------------------

@pytest.fixture(params=["plain", "karpenter"])
def served(request, tmp_path):
    """The recorded cluster (and Karpenter's objects beside it) with the four pods pending."""
    with recorded_api(tmp_path, collections=("karpenter",) if request.param == "karpenter" else ()) as api:
        crowd(api)
        api.karpenter = request.param == "karpenter"
        yield api


def text_claims(out: str) -> dict[str, tuple[str, str]]:
    """Karpenter's section: pod -> (the node, the NodeClaim) its pass puts it on."""
    section = out.split("\nPending pods\n", 1)[1].split("\n\n")[0].splitlines()[2:]
    return {cells[0]: where(cells[2] if len(cells) > 2 else "")
            for cells in (re.split(r"\s{2,}", line.strip()) for line in section)}


def where(text: str) -> tuple[str, str]:
    node, claim = re.search(r"\bnode ([\w.-]+)", text), re.search(r"NodeClaim ([\w.-]+)", text)
    return node.group(1) if node else "", claim.group(1) if claim else ""


def test_the_pending_list_in_the_queue(tmp_path, served):
    code, out, page, data = once(tmp_path, "pod", "--pending", "-A", "--kubeconfig", served.kubeconfig)
    explained = assert_one_list(code, out, page)
    # the queue: two of them take node-a2's room, the others no longer fit (alone, each fits it)
    assert {k: explained[k][:2] for k in APPS} == {"team-a/app-0": ("Scheduled", "node-a2"),
                                                    "team-a/app-1": ("Scheduled", "node-a2"),
                                                    "team-a/app-2": ("Unschedulable", ""),
                                                    "team-a/app-3": ("Unschedulable", "")}
    items = {f"{i['pod']['namespace']}/{i['pod']['name']}": i for i in data["doc"]["items"]}
    assert all(items[k]["result"]["suggestedHost"] == "node-a2" for k in APPS)
    if not served.karpenter:
        assert "kp-pods" not in page.tables
        return
    claims = text_claims(out)
    assert {row[0]: where(row[2]) for row in page.tables["kp-pods"]} == claims
    assert claims["team-a/app-0"] == ("node-a2", "")
    assert {claims[k][1] for k in APPS[1:]} == {"gpu-00001"}       # one new NodeClaim for those left

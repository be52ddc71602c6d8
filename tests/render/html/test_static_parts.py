"""The page's parts that read without script: where a node's name leads (a brief of the node,
below its explanation), the header saying what needs JavaScript, the copies of a workload never
tried and why, the devices section as HTML, and the verdict linking to the fixes and to
preemption."""
from __future__ import annotations

import json
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from kexplain.cli.app import main
from kexplain.render.devices import selector_words, where
from kexplain.render.html import render_page
from kexplain.render.html.static import untried_note
from tests.support.cli_helpers import TestEnvironment
from tests.support.html_pages import page_data, visible_text
from tests.support.paths import FIXTURES
from tests.support.render_helpers import trace_of

CLUSTER = str(FIXTURES / "cluster.yaml")


def page_of(tmp_path: Path, *args: str) -> str:
    out = tmp_path / "p.html"
    env = TestEnvironment()
    assert main([*args, "--kubernetes-version", "1.35", "--html", str(out)], env=env) in (0, 1), env.err
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def too_big(tmp_path_factory) -> str:
    return page_of(tmp_path_factory.mktemp("p"), str(FIXTURES / "pod-too-big.yaml"), "--nodes", CLUSTER)


@pytest.fixture(scope="module")
def dra(tmp_path_factory) -> str:
    return page_of(tmp_path_factory.mktemp("p"), str(FIXTURES / "dra" / "pod.yaml"), "--nodes",
                   str(FIXTURES / "dra" / "cluster.yaml"))


class _Ids(HTMLParser):
    """Every element's id, every link's href and the class of the element holding each id."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, str] = {}
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids[a["id"]] = a.get("class") or ""
        if tag == "a" and (a.get("href") or "").startswith("#"):
            self.hrefs.append(a["href"])


def ids_and_links(page: str) -> _Ids:
    parser = _Ids()
    parser.feed(page)
    return parser


def section_text(page: str, element_id: str) -> str:
    """The visible text of the element with this id (up to its end tag, tags of the same name nested)."""
    start = page.index(f'id="{element_id}"')
    tag = page.rfind("<", 0, start)
    name = re.match(r"<(\w+)", page[tag:])[1]
    depth, at = 0, tag
    for m in re.finditer(rf"<(/?){name}\b", page[tag:]):
        depth += -1 if m[1] else 1
        if depth == 0:
            at = tag + m.start()
            break
    return visible_text(page[tag:at])


# -- without JavaScript: every link leads somewhere --------------------------------------------------

@pytest.mark.parametrize("which", ["too_big", "dra"])
def test_every_link_of_the_page_leads_to_an_element_of_it(request, which):
    page = request.getfixturevalue(which)
    found = ids_and_links(page)
    targets = {unescape(h[1:]) for h in found.hrefs}
    assert targets and targets <= set(found.ids)
    nodes = {t for t in targets if "/node/" in t}
    assert nodes and all(found.ids[t] == "node-brief" for t in nodes)
    # Briefs of the nodes the page names, and of no other.
    assert {i for i, c in found.ids.items() if c == "node-brief"} == nodes


def test_a_nodes_brief_says_why_it_is_rejected_in_the_words_of_node(too_big):
    trace = page_data(too_big)["doc"]
    for node, first in trace["filter"].items():
        text = section_text(too_big, f"t0/node/{node}")
        assert text.startswith(f"Node {node}")
        assert f"Rejected by {first['plugin']} ({first['code']}): {first['reasons'][0]}" in text
        assert f"{first['plugin']} * {first['code']}" in text
    assert "cpu: the pod requests 6, more than the node's whole allocatable (4)" in section_text(too_big,
                                                                                               "t0/node/node-1")
    # A node a suggestion adds is no node of the cluster.
    added = next(n for s in trace["suggestions"] for n in s.get("openedNodes") or () if n not in trace["filter"])
    assert section_text(too_big, f"t0/node/{added}") == \
        f"Node {added} Not a node of the cluster: the node a suggested change would add."
    # A node that fits: its score.
    web = render_page(trace_of("pod-web"))
    assert "Score plugins (total 461)" in section_text(web, "t0/node/node-2")


def test_the_header_promises_the_click_only_with_javascript(too_big):
    header = too_big[too_big.index("<header>"):too_big.index("</header>")]
    assert '<span class="js-only"> A click on a node opens its full verdict.</span>' in header
    assert "A click on a node" not in header.replace('<span class="js-only"> A click on a node', "")
    notice = visible_text(header[header.index("<noscript>"):header.index("</noscript>")])
    assert "a node's name leads to its verdict in brief" in notice
    assert ".js .nojs-only, .nojs .js-only { display: none; }" in too_big


# -- replicas: the copies never tried ----------------------------------------------------------------

def test_the_copies_never_tried_are_said_and_why(tmp_path):
    page = page_of(tmp_path, str(FIXTURES / "pod-web.yaml"), "--nodes", CLUSTER, "--replicas", "20")
    doc = page_data(page)["doc"]
    placement = doc["placements"][0]
    tried = placement["pods"]
    assert placement["replicas"] == 20 and len(tried) < 20 and tried[-1]["node"] is None
    stopped = tried[-1]["name"]
    text = visible_text(page)
    assert (f"Pod default/web: copies {len(tried) + 1} to 20 ({20 - len(tried)} of them) of 20 were never scheduled: "
            f"kexplain places the copies one by one and stops at the first that does not fit, {stopped} (copy "
            f"{len(tried)}): {stopped} is not bound, so the cluster stays as {stopped} found it, and each later "
            "copy, the same pod under another name, would be rejected the same way.") in text
    assert f"<title>kexplain: 1 object(s): {placement['fit']} of 20 pods fit, {20 - len(tried)} never tried" in page


def test_no_note_when_every_copy_was_tried():
    pods = [{"name": "web-0", "node": "n1"}, {"name": "web-1", "node": None}]
    assert untried_note({"object": {"kind": "Deployment"}, "replicas": 2, "pods": pods}) is None
    assert untried_note({"object": {"kind": "Deployment"}, "replicas": 3, "pods": pods[:1]}) is None   # all fit
    note = untried_note({"object": {"kind": "StatefulSet", "namespace": "db", "name": "pg"}, "replicas": 3,
                         "pods": [{"name": "pg-0", "node": None}]})
    assert note.startswith("StatefulSet db/pg: copies 2 to 3 (2 of them) of 3 were never scheduled")
    assert "with podManagementPolicy OrderedReady (the default) the StatefulSet's controller creates the next " \
           "ordinal only once it runs" in note


@pytest.mark.parametrize("groups", [False, True])
def test_a_parallel_statefulsets_copies_are_each_tried(tmp_path, groups):
    """With podManagementPolicy Parallel the controller creates every ordinal, and a StatefulSet's
    copies differ (each its own claims): each is placed, none left untried, so no note says they
    were never scheduled; an OrderedReady StatefulSet keeps its note. The placement says the policy
    (`-o json` too)."""
    aws = FIXTURES / "autoscaler"
    extra = ["--node-groups", str(aws / "nodegroups.yaml")] if groups else []
    parallel = aws / "statefulset-parallel.yaml"
    text = visible_text(page_of(tmp_path, str(parallel), "--nodes", str(aws / "cluster.yaml"), *extra))
    assert "were never scheduled" not in text and "Pod default/db-2" in text      # (the last copy, explained)
    ordered = visible_text(page_of(tmp_path, str(aws / "statefulset.yaml"), "--nodes", str(aws / "cluster.yaml"),
                                   *extra))
    assert "with podManagementPolicy OrderedReady (the default) the StatefulSet's controller creates the next " \
           "ordinal only once it runs" in ordered
    env = TestEnvironment()
    main([str(parallel), "--nodes", str(aws / "cluster.yaml"), "-o", "json"], env=env)
    (placement,) = json.loads(env.out)["placements"]
    assert placement["podManagementPolicy"] == "Parallel"
    assert [p["name"] for p in placement["pods"]] == ["db-0", "db-1", "db-2"]


def test_a_parallel_statefulset_of_alike_copies_keeps_its_note():
    note = untried_note({"object": {"kind": "StatefulSet", "namespace": "default", "name": "db"}, "replicas": 3,
                         "podManagementPolicy": "Parallel", "pods": [{"name": "db-0", "node": None}]})
    assert ("db-0 is not bound, and with podManagementPolicy Parallel the StatefulSet's controller creates every "
            "ordinal at once: they are pending as db-0 is") in note


ADMISSION = FIXTURES / "admission"


def test_what_happened_before_the_scheduler_is_on_the_page(tmp_path):
    """The page says what the table's sections and stderr say of a set's objects before the
    scheduler met their pods: the FailedCreate of a controller whose creates the quota refused
    (and the title does not count those pods as never tried), the HPA that set the replicas."""
    nodes = str(ADMISSION / "cluster.yaml")
    page = page_of(tmp_path, str(ADMISSION / "pod.yaml"), "--nodes", nodes)
    text = visible_text(page)
    [cart, reindex] = page_data(page)["doc"]["placements"]
    assert f"Deployment shop/cart: 3 of 4 pods created (FailedCreate: {cart['failedCreate']})" in text
    assert f"Job shop/reindex: 0 of 1 pods created (FailedCreate: {reindex['failedCreate']})" in text
    assert f"<title>kexplain: 2 object(s): {cart['fit']} of 5 pods fit, 2 not created</title>" in page
    page = page_of(tmp_path, str(ADMISSION / "hpa.yaml"), "--nodes", nodes)
    [placement] = page_data(page)["doc"]["placements"]
    assert placement["horizontalPodAutoscaler"]["message"].startswith(
        "Deployment shop/storefront: HorizontalPodAutoscaler shop/storefront sets spec.replicas from 1 to 3 at once")
    assert placement["horizontalPodAutoscaler"]["message"] in visible_text(page)


def test_an_idle_workloads_template_is_said_so(tmp_path):
    (tmp_path / "standby.yaml").write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: standby, namespace: shop}
spec:
  replicas: 0
  selector: {matchLabels: {app: standby}}
  template:
    metadata: {labels: {app: standby}}
    spec:
      containers: [{name: app, image: registry.example.com/standby:1.0}]
""")
    text = visible_text(page_of(tmp_path, str(tmp_path / "standby.yaml"), "--nodes", CLUSTER))
    assert ("Deployment shop/standby: spec.replicas is 0: the Deployment controller creates no pod; its template is "
            "explained as its first pod would meet the cluster, and takes no room") in text


def test_the_queues_retry_is_on_the_page(tmp_path):
    """web-before-cache: the web tier's first attempt finds no cache; the page lists what the
    scheduling queue's retry did (as the table's section and `-o json`'s retries), the untried
    note points to it, and the title counts the pod that landed on the retry."""
    page = page_of(tmp_path, str(ADMISSION / "web-before-cache.yaml"), "--nodes", str(ADMISSION / "cluster.yaml"))
    doc = page_data(page)["doc"]
    [landed, still] = doc["retries"]
    text = visible_text(page)
    assert "Retried by the scheduling queue (after the pass in creation order: where the pods end up)" in text
    assert (f"Deployment shop/web {landed['pod']} bound to pool-b pod shop/session-cache-0 bound to pool-b "
            "(InterPodAffinity: Queue) (round 1)") in " ".join(text.split())
    assert f"{still['pod']} still unschedulable: 0/2 nodes are available" in " ".join(text.split())
    assert "The scheduling queue retried them after the pass: see the table below." in text
    assert "1 of 4 pods fit, 1 more once the scheduling queue retried them, 1 never tried</title>" in page


# -- devices -------------------------------------------------------------------------------------------

def test_the_devices_section_is_html_with_the_nodes_linked(dra):
    part = dra[dra.index('id="t0-devices"'):dra.index('<h3>The search</h3>')]
    assert "<pre" not in part and "--node NAME" not in part
    text = visible_text(part)
    assert "2 nodes: gpu-node-1 , gpu-node-2" in text
    assert "8 rejected by claim ml/llm-finetune-gpus selectors[0]: capacity memory 40Gi, selector wants >= 80Gi" in text
    assert 'href="#t0/node/gpu-node-3"' in part
    classes = re.findall(r"<tr><td>gpu\.nvidia\.com</td>(.*?)</tr>", part)
    assert len(classes) == 3 and 'class="device-classes"' in part


def test_each_selector_comes_with_its_one_line_reason(dra):
    data = page_data(dra)
    trace = data["doc"]["items"][0]
    device = trace["details"]["nodes"]["gpu-node-1"]["plugins"]["DynamicResources"]["claims"][0]["requests"][0][
        "devices"][0]
    sel = device["selector"]
    line = data["extra"][0]["selectors"][sel["summary"]]
    assert line == f"{where(sel)}: {selector_words(sel)}" == \
        "claim ml/llm-finetune-gpus selectors[0]: capacity memory 40Gi, selector wants >= 80Gi"


# -- the verdict links to the fixes and to preemption -------------------------------------------------

def test_the_verdict_links_to_the_fixes(too_big):
    trace = page_data(too_big)["doc"]
    verdict = too_big[too_big.index('<p class="verdict">'):too_big.index('id="t0-nodes"')]
    n = len(trace["suggestions"])
    assert f'<a href="#t0-fixes">What would make it schedule: {n} verified changes</a>' in verdict
    assert 'id="t0-fixes"' in too_big


def test_see_preemption_is_a_link(tmp_path):
    page = page_of(tmp_path, str(FIXTURES / "preemption" / "pod.yaml"), "--nodes",
                   str(FIXTURES / "preemption" / "cluster.yaml"))
    assert '(see <a href="#t0-preemption">Preemption</a>).' in page
    assert '<h3 id="t0-preemption">Preemption</h3>' in page

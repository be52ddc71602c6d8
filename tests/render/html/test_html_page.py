"""The page `--html` writes, read without a browser: self-contained, its data the document
itself, its static part (what reads without script, and prints) saying the verdict, the event
and the top nodes, every string of the user escaped."""
from __future__ import annotations

import copy
import json
import re

import pytest

from kexplain.render.html import render_page
from kexplain.render.views import ranking
from tests.support.html_pages import fetches, page_data, visible_text
from tests.support.render_helpers import trace_of


@pytest.fixture(scope="module")
def too_big() -> dict:
    return trace_of("pod-too-big")


@pytest.fixture(scope="module")
def web() -> dict:
    return trace_of("pod-web")


def test_the_data_is_the_trace(too_big):
    data = page_data(render_page(too_big))
    assert data["kind"] == "trace"
    assert data["doc"] == json.loads(json.dumps(too_big))


def test_nothing_is_fetched(too_big):
    page = render_page(too_big)
    assert fetches(page) == []
    assert "default-src 'none'" in page       # and the browser is told so


def test_without_script_the_verdict_the_event_and_the_top_nodes(too_big, web):
    text = visible_text(render_page(too_big))
    assert "default/analytics" in text and "Unschedulable" in text
    assert too_big["result"]["message"] in text
    for node in too_big["filter"]:            # every rejected node, by reason
        assert node in text
    assert "Insufficient cpu" in text and "NodeResourcesFit" in text
    text = visible_text(render_page(web))
    assert "Would be bound to node-2" in text
    top = [r.node for r in ranking(web)]
    assert top and all(n in text for n in top)
    assert "Warning FailedScheduling" not in text        # a pod that fits has no event


def test_the_search_preemption_and_suggestions_read_without_script(too_big):
    from kexplain.app.explain import explain_one
    from kexplain.explain.inputs import load_inputs
    from kexplain.explain.request import Request, RunOptions
    from tests.support.render_helpers import fixture_paths

    pod, cluster = fixture_paths("pod-too-big")
    trace = explain_one(load_inputs(Request(str(pod), (str(cluster),))), RunOptions(details=True), True)
    assert trace["suggestions"]
    text = visible_text(render_page(trace))
    assert "round-robin started at index 0" in text
    assert "Would not help" in text
    for s in trace["suggestions"]:
        assert s["description"] in text


def test_a_name_cannot_break_out_of_the_page(too_big):
    hostile = copy.deepcopy(too_big)
    name = "</script><script>alert(1)</script><!--"
    hostile["pod"]["name"] = name
    hostile["filter"][name] = hostile["filter"].pop("node-1")
    page = render_page(hostile)
    assert "<script>alert(1)" not in page
    assert len(re.findall(r"<script\b", page)) == 2          # the data and the page's own script
    data = page_data(page)
    assert data["doc"]["pod"]["name"] == name and name in data["doc"]["filter"]
    assert f"default/{name}" in visible_text(page)          # shown as text


def test_every_node_has_its_words(web):
    full = trace_of("pod-web", "node-1", "node-3")
    data = page_data(render_page(full))
    words = data["extra"][0]["words"]
    assert any("cordoned" in w for w in words["node-3"]["NodeUnschedulable"][0])
    assert any(w.startswith("cpu: the pod requests 1") for w in words["node-1"]["NodeResourcesFit"][0])


def test_a_list_links_each_pod_to_its_explanation():
    a, b = trace_of("pod-web"), trace_of("pod-too-big")
    doc = {"apiVersion": "kexplain/v1", "kind": "SchedulingTraceList", "items": [a, b]}
    page = render_page(doc)
    assert 'href="#t0"' in page and 'href="#t1"' in page
    assert 'id="t0"' in page and 'id="t1"' in page
    assert page_data(page)["doc"]["items"][1]["pod"]["name"] == "analytics"


def test_not_a_document_it_shows():
    with pytest.raises(ValueError):
        render_page({"kind": "List"})


def test_the_page_names_the_scheduler_release_its_traces_followed(too_big):
    release = too_big["kubernetesVersion"]["scheduler"]
    page = render_page(too_big)
    assert f"kube-scheduler {release}'s filter and score pipeline" in visible_text(page)
    assert f'<meta name="generator" content="kexplain (kube-scheduler {release})">' in page
    other = {**too_big, "kubernetesVersion": {**too_big["kubernetesVersion"], "scheduler": "v1.33.3"}}
    assert "kube-scheduler v1.33.3's filter" in visible_text(render_page(other))

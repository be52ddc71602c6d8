"""The pages that need nothing else (`markup.static_page`): `kexplain cluster --html` and
`kexplain volcano --html` open the same way (one head: its CSP lets in only the inline style, no
script, nothing fetched), each with its title, kind and words."""
from __future__ import annotations

import re

from kexplain.app.cluster.report import report
from kexplain.render.html import render_page
from kexplain.render.html.markup import CSP, static_page
from tests.app.cluster.helpers import SHOP, request
from tests.support.cli_helpers import run_cli
from tests.support.html_pages import fetches
from tests.support.paths import FIXTURES

NOW = "2026-01-01T12:00:00Z"


def test_a_static_page_is_whole_and_escapes_what_it_is_given():
    page = static_page("a <b>", "kexplain (x & y)", "p{}", {"data-kind": "k"}, "m <i>", "<p>main</p>")
    assert page.startswith("<!DOCTYPE html>\n<html lang=\"en\"><head>") and page.endswith("</body></html>\n")
    assert CSP in page and '<meta name="generator" content="kexplain (x &amp; y)">' in page
    assert '<body data-kind="k"><header><h1>kexplain: <span class="title">a &lt;b&gt;</span></h1>' in page
    assert '<p class="meta">m &lt;i&gt;</p></header><main id="main"><p>main</p></main>' in page
    assert "<script" not in page and fetches(page) == []


def _head(page: str) -> str:
    """The page up to its body, its title and generator left out (each page's own)."""
    head = page[:page.index("<body")]
    return re.sub(r'<title>.*?</title>|<meta name="generator"[^>]*>|<style>.*?</style>', "", head, flags=re.S)


def test_the_cluster_and_volcano_pages_open_as_one(tmp_path):
    cluster = render_page(report(request(SHOP, sections=("drains",))))
    out = tmp_path / "volcano.html"
    run_cli("volcano", "--nodes", str(FIXTURES / "volcano" / "gang-cluster.yaml"),
            str(FIXTURES / "volcano" / "gang-pods.yaml"), "--html", str(out))
    volcano = out.read_text(encoding="utf-8")
    reference = static_page("t", "g", "", {}, "", "")
    assert _head(cluster) == _head(volcano) == _head(reference)
    assert '<body class="nojs" data-kind="cluster"><header>' in cluster
    assert '<body data-kind="volcano-session"><header>' in volcano

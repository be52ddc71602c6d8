"""The page of an evicted pod (issue 77 item 23): its heading says it was evicted, by whom and why
(never the verdict now alone, a green "Scheduled"), a section gives the removal as the text does
(the kubelet's message taken apart, the node's ranking now with --stats), and its text block is
what the terminal printed: the ranking the Summary gave, not the hint to give one."""
from __future__ import annotations

import html
import json
import re

from kexplain.render.evicted import NOW_HINT
from tests.support.cli_helpers import run_cli
from tests.support.paths import FIXTURES

NOW = FIXTURES / "eviction" / "ranking-now"
RANKED = [str(NOW / "evicted.yaml"), "--stored", "--nodes", str(NOW / "cluster.yaml"), "--stats",
          str(NOW / "stats.json"), "--kubelet-config", str(NOW / "kubelet-config.yaml")]
REPLACED = [str(FIXTURES / "eviction" / "evicted-pod.yaml"), "--nodes", str(FIXTURES / "cluster.yaml")]


def page_of(tmp_path, args: list[str]) -> tuple[str, str, dict]:
    """The page, the terminal's text (at the page's text width) and the JSON document."""
    out = tmp_path / "page.html"
    run_cli(*args, "--html", str(out))
    _, text, _ = run_cli(*args)
    _, doc, _ = run_cli(*args, "-o", "json")
    return out.read_text(encoding="utf-8"), text, json.loads(doc)


def plain(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def heading(markup: str) -> str:
    return plain(re.search(r'<h2 id="t0-h">(.*?)</h2>', markup, re.S).group(1))


def text_block(markup: str) -> str:
    return html.unescape(re.search(r'<pre class="text">(.*?)</pre>', markup, re.S).group(1))


def test_the_heading_says_evicted_by_whom_and_why(tmp_path) -> None:
    for args in (RANKED, REPLACED):
        markup, _, doc = page_of(tmp_path, args)
        on = " of node-a" if doc["eviction"].get("node") else ""
        assert heading(markup).endswith(f"\u2717 Evicted by the kubelet{on}: the node was low on memory "
                                        "(MemoryPressure)")
        assert "st-Scheduled" not in re.search(r'<h2 id="t0-h">(.*?)</h2>', markup, re.S).group(1)
        title = html.unescape(re.search(r"<title>(.*?)</title>", markup).group(1))
        assert title.startswith(f"kexplain: Pod {doc['pod']['namespace']}/{doc['pod']['name']}: Evicted by ")
        assert title.endswith(f"; now {doc['result']['status']}")


def test_the_page_holds_what_the_terminal_printed(tmp_path) -> None:
    markup, text, doc = page_of(tmp_path, RANKED)
    assert text_block(markup) == text.rstrip("\n")
    assert " ".join(NOW_HINT.split()) not in plain(markup)       # --stats was given: no hint to give it
    rows = re.findall(r"<tr>(.*?)</tr>", markup[markup.index('class="ranking-now"'):].split("</table>")[0], re.S)
    ranked = [plain(r).split()[1] for r in rows[1:]]
    assert ranked == [r["pod"] for r in doc["eviction"]["now"]["ranking"]]
    removed = plain(markup[markup.index('id="t0-removed"'):markup.index('class="ranking-now"')])
    assert "Starved resource: memory (signals memory.available, allocatableMemory.available; node condition " \
           "MemoryPressure)" in removed and "Now it is 1 of 5 (1: evicted first)." in removed

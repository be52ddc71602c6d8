"""The page's data: the document as `-o json` writes it, and the plugins' facts in words.

The script reads the trace itself (every node, every plugin's verdict and score, the search,
preemption, suggestions); what it cannot read from the trace is how the terminal puts each
plugin's facts in words (`--node`), which `kexplain.render.facts` knows. So each trace comes
with `words`: per node and plugin, the sentences behind its Filter verdict and behind its
score, exactly as `--node` prints them. The lot is packed (`pack`): repeated values once.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from kexplain.render.html.pack import pack
from kexplain.render.node import _filter_words as filter_words
from kexplain.render.node import _score_words as score_words

Trace = Mapping[str, Any]


def node_words(trace: Trace) -> dict[str, dict[str, list[list[str]]]]:
    """node -> plugin -> [the Filter verdict's sentences, the score's], for every node the
    trace has facts of (`details.nodes.<node>.plugins`)."""
    out: dict[str, dict[str, list[list[str]]]] = {}
    for node, facts in ((trace.get("details") or {}).get("nodes") or {}).items():
        plugins = facts.get("plugins") if isinstance(facts, Mapping) else None
        if not plugins:
            continue
        mine: dict[str, list[list[str]]] = {}
        for plugin, f in plugins.items():
            fw, sw = filter_words(plugin, f), score_words(plugin, f)
            if fw or sw:
                mine[plugin] = [fw, sw]
        out[node] = mine
    return out


def page_data(kind: str, doc: Mapping[str, Any], traces: list[Trace]) -> dict[str, Any]:
    """What the script reads: the document, and per trace (in the page's order) its words."""
    return {"kind": kind, "doc": doc, "extra": [{"words": node_words(t)} for t in traces]}


def data_script(data: Mapping[str, Any]) -> str:
    """The packed data as the text of a `<script type="application/json">`: every `<` written
    as \\u003c, so no string of the data can end the element or open a comment."""
    text = json.dumps(pack(data), ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c")

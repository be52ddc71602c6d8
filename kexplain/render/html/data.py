"""The page's data: the `-o json` document plus, per node and plugin, the facts in `--node`'s
words (`words`: the script cannot word them), the worded facts then left out; packed."""
from __future__ import annotations

import json
from typing import Any, Mapping

from kexplain.render.devices import SELECTOR_FALSE, where
from kexplain.render.devices import selector_words as device_selector_words
from kexplain.render.html.pack import pack
from kexplain.render.node import filter_words, score_words
from kexplain.render.views import tie_rule

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


# The plugins whose recorded facts the page reads as they are (the device view); of the
# others it carries the words only, which say the same and are what `--node` shows.
RAW_FACTS = ("DynamicResources",)


def without_worded_facts(trace: Trace) -> Trace:
    """The trace with each node's plugin facts left out where the words say them (`RAW_FACTS`
    kept): the facts of 5,000 nodes weigh as much again as their words."""
    nodes = (trace.get("details") or {}).get("nodes")
    if not nodes:
        return trace
    kept: dict[str, Any] = {}
    for node, facts in nodes.items():
        plugins = facts.get("plugins") if isinstance(facts, Mapping) else None
        if plugins:
            facts = {**facts, "plugins": {p: f for p, f in plugins.items() if p in RAW_FACTS}}
            if not facts["plugins"]:
                del facts["plugins"]
        kept[node] = facts
    return {**trace, "details": {**trace["details"], "nodes": kept}}


def selector_words(trace: Trace) -> dict[str, str]:
    """Per device selector evaluation that rejects a device, the one line of `--node` that says
    why; keyed by the evaluation, so devices reading the same values share it."""
    out: dict[str, str] = {}

    def requests(reqs: Any) -> None:
        for req in reqs or ():
            requests(req.get("subrequests"))
            for d in req.get("devices") or ():
                sel = d.get("selector") if d.get("reason") == SELECTOR_FALSE else None
                if isinstance(sel, Mapping) and sel.get("summary") and sel["summary"] not in out:
                    out[sel["summary"]] = f"{where(sel)}: {device_selector_words(sel)}"

    for facts in ((trace.get("details") or {}).get("nodes") or {}).values():
        dra = ((facts.get("plugins") or {}) if isinstance(facts, Mapping) else {}).get("DynamicResources") or {}
        for claim in dra.get("claims") or ():
            requests(claim.get("requests"))
    return out


def page_data(kind: str, doc: Mapping[str, Any], traces: list[Trace]) -> dict[str, Any]:
    """What the script reads: the document, and per trace (in the page's order) its facts in
    words, where a tie at the top score goes (`tie_rule`) and its device selectors' one-line
    reasons; its plugin facts only where the page reads them as they are."""
    words = [{"words": node_words(t), "tie": tie_rule(t), "selectors": selector_words(t)} for t in traces]
    if kind == "trace":
        doc = without_worded_facts(doc)
    elif kind == "list":
        doc = {**doc, "items": [without_worded_facts(t) for t in doc.get("items") or ()]}
    else:
        doc = {**doc, "explanations": [{**e, "items": [without_worded_facts(t) for t in e.get("items") or ()]}
                                       for e in doc.get("explanations") or ()]}
    return {"kind": kind, "doc": doc, "extra": words}


def data_script(data: Mapping[str, Any]) -> str:
    """The packed data as the text of a `<script type="application/json">`: every `<` written
    as \\u003c, so no string of the data can end the element or open a comment."""
    text = json.dumps(pack(data), ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c")

"""The page's "Karpenter" section (the trace's `karpenter` key, or a list's pass), as the
terminal's (`render.karpenter_section`), in `kexplain karpenter`'s words (`render.karpenter`'s
line functions, never reworded). Long words (requirements, instance-type lists) wrap, so the
section fits the page."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from kexplain.render.html.markup import Html, el, join, table
from kexplain.render.karpenter import (RESULT_WORDS, aws_source, cheapest_types, nodes_lines, pool_lines, skipped_lines,
                                       suggestion_places)
from kexplain.render.karpenter_section import PLACED, does_line, pod_key
from kexplain.render.views import admission_text

Trace = Mapping[str, Any]


def does_html(trace: Trace, i: int | str) -> Html | None:
    """What Karpenter does for the pod (`does_line`), linked to the section."""
    line = does_line(trace)
    if line is None:
        return None
    where = f"#t{i}-karpenter" if trace.get("karpenter") else "#tlist-karpenter"     # a list's: after the overview
    return join([el("a", "Karpenter", href=where), line[len("Karpenter"):]])


def _summary(doc: Mapping[str, Any]) -> list[Html]:
    summary = doc.get("summary") or {}
    counts = ", ".join(f"{n} {r}" for r, n in (summary.get("pods") or {}).items())
    claims = summary.get("newNodeClaims", 0)
    out = [el("p", el("b", f"{claims} new NodeClaim{'s' if claims != 1 else ''}"), f"; pods: {counts or 'none'}",
              cls="kp-summary"),
           el("p", doc.get("karpenter", ""), cls="note")]
    aws = (doc.get("explained") or {}).get("awsData")
    if aws:
        out.append(el("p", aws_source(aws) + (f". Prices: {aws['prices']}" if aws.get("prices") else ""), cls="note"))
    admission = admission_text(doc)        # the tolerations the cluster's API server gave the pods
    if admission:
        out.append(el("p", admission, cls="note"))
    if doc.get("scheduleError"):
        out.append(el("p", f"error: {doc['scheduleError']}", cls="kp-error"))
    return out


def _where(pod: Mapping[str, Any]) -> str:
    if pod.get("result") == "NewNodeClaim":
        return f"NodeClaim {pod.get('nodeClaim')} (NodePool {pod.get('nodePool')})"
    if pod.get("result") == "ExistingNode":
        return f"node {pod['node']}" if pod.get("node") else f"in-flight NodeClaim {pod.get('nodeClaim', '')}"
    return ""


def _pods(doc: Mapping[str, Any]) -> Html:
    rows = []
    for p in doc.get("pods") or ():
        result = str(p.get("result") or "")
        words = f"{result} ({RESULT_WORDS[result]})" if result in RESULT_WORDS else result
        rows.append((p.get("pod", ""), el("b", words), _where(p)))
    return table(("pod", "result", "where"), rows, cls="kp-pods",
                 caption="Pending pods, each Karpenter's answer in one provisioning pass over all of them")


def _lines(items: Iterable[tuple[int, str]]) -> Html:
    """`render.karpenter`'s (level, text) lines, each indented by its level."""
    return el("div", *(el("div", text, cls=f"kp-line kp-l{min(level, 4)}") for level, text in items), cls="kp-why")


def _claims(claims: Sequence[Mapping[str, Any]]) -> Html:
    rows = []
    for c in claims:
        requests = ", ".join(f"{k} {v}" for k, v in (c.get("requests") or {}).items())
        rows.append((join([el("b", c.get("name", "")), el("div", f"NodePool {c.get('nodePool', '')}")]),
                     join([*(el("div", p) for p in c.get("pods") or ()),
                           el("div", f"requests: {requests}", cls="note") if requests else ""]),
                     join([cheapest_types(c), el("div", f"create failed: {c['createError']}", cls="kp-error")
                           if c.get("createError") else ""])))
    return table(("NodeClaim", "pods (requests with DaemonSets)", "instance types ($/hour), cheapest first"), rows,
                 cls="kp-claims", caption="New NodeClaims")


def _why(doc: Mapping[str, Any], key: str) -> list[Html]:
    explained = doc.get("explained") or {}
    entry = next((e for e in explained.get("pods") or () if e.get("pod") == key), None)
    if entry is None:
        return []
    skipped = [p for p in explained.get("nodePools") or () if not p.get("tried")]
    items: list[tuple[int, str]] = []
    for text in (entry.get("karpenter") and f"Karpenter: {entry['karpenter']}", entry.get("why"), entry.get("dra")):
        if text:
            items.append((1, text))
    out = [el("h4", f"Why not placed: {key} ({entry.get('result')})")]
    if items and not all(p.get("karpenter") for p in entry.get("nodePools") or ()):
        out.append(_lines(items))
    for pool in entry.get("nodePools") or ():
        out.append(_lines(pool_lines(pool)))
    for lines in (nodes_lines(entry), skipped_lines(skipped)):
        if lines:
            out.append(_lines(lines))
    return out


def _fixes(doc: Mapping[str, Any], key: str | None) -> list[Html]:
    if "suggestions" not in doc:
        return []
    found = [s for s in doc.get("suggestions") or () if key is None or key in (s.get("pods") or ())]
    if not found:
        return [el("p", "No single change was verified to make Karpenter place it.", cls="note")]
    items = []
    for s in found:         # where the pass run again puts the pods, in the text's words (instance types, prices)
        places = [el("div", f"{shown} -> {where}", cls="note") for shown, where in suggestion_places(s)]
        items.append(el("li", s.get("description", ""), *places,
                        el("pre", s.get("yaml", ""), cls="text") if s.get("yaml") else ""))
    return [el("h4", "What would make Karpenter place it (each change verified by running Karpenter's pass again)"),
            el("ol", *items, cls="kp-fixes")]


def karpenter_section(trace: Trace, i: int | str) -> list[Html]:
    """The section of a trace (`i`: its index), or of a list's pass (`i`: "list"); nothing
    without the `karpenter` key (a list's pod: its answer is among the autoscalers' lines)."""
    doc = trace.get("karpenter")
    if not doc:
        return []
    out: list[Html] = [el("h3", "Karpenter", id=f"t{i}-karpenter"), *_summary(doc)]
    if i == "list" or len(doc.get("pods") or ()) > 1:
        out.append(_pods(doc))
    if i == "list":
        for p in doc.get("pods") or ():
            if p.get("result") not in PLACED:
                out += _why(doc, str(p.get("pod")))
        if doc.get("nodeClaims"):
            out.append(_claims(doc["nodeClaims"]))
        return out + _fixes(doc, None)
    key = pod_key(trace)
    record = next((p for p in doc.get("pods") or () if p.get("pod") == key), None)
    if record is None:
        return out + [el("p", f"Pod {key} is not among the pods Karpenter's pass held.")]
    if record.get("result") in PLACED:
        answer = next((a for a in trace.get("autoscalers") or () if a.get("autoscaler") == "Karpenter"), {})
        out.append(el("p", el("b", f"Pod {key}: {record.get('result')}"), ": ", "; ".join(answer.get("reasons") or ()),
                      cls="kp-placed"))
        claims = [c for c in doc.get("nodeClaims") or () if c.get("name") == record.get("nodeClaim")]
        if claims:
            out.append(_claims(claims))
        return out
    return out + _why(doc, key) + _fixes(doc, key)

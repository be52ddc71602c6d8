"""The page's "Cluster autoscaler" section: the terminal's (`render.cluster_autoscaler`), and each
group's full verdict in a `<details>` at `#t<i>/group/<name>` (as a node's is `#t<i>/node/<name>`),
so the group's name in the table links there with or without script. Long names (a MIG's URL)
break after each `/`, so the table fits the page."""
from __future__ import annotations

import re
from typing import Any, Mapping

from kexplain.render.cluster_autoscaler import (FAILED, TEMPLATE, answer_lines, choice_line, does_line, explained_pod,
                                                explained_record, found_lines, group_rows, min_size_line, others_line,
                                                outcome_line, pod_rows, provider_lines, random_pick, several, size_words,
                                                taint_text, template_source, template_words, tie_lines,
                                                version_note)
from kexplain.render.html.markup import Html, el, esc, join, table
from kexplain.render.node import filter_words
from kexplain.render.views import admission_text

Trace = Mapping[str, Any]


def group_id(i: int | str, group: str) -> str:
    """A group's full verdict: its element's id and its address (`#` + id)."""
    return f"t{i}/group/{group}"


def breakable(text: str) -> Html:
    """Text that may break after each `/` (a MIG's URL) where the page has no room for it whole."""
    return Html(Html("<wbr>").join(esc(part) for part in re.findall(r"[^/]*/+|[^/]+", text)) if text else "")


def lines_html(text: str) -> Html:
    """Text of several lines (a pod's answer under each of CA's picks), a block each."""
    lines = text.split("\n")
    return breakable(text) if len(lines) == 1 else join(el("span", breakable(line), cls="ca-line") for line in lines)


def does_html(trace: Trace, i: int | str) -> Html | None:
    """What the Cluster Autoscaler will do for the pod (`does_line`), linked to the section."""
    line = does_line(trace)
    if line is None:
        return None
    return join([el("a", "Cluster autoscaler", href=f"#t{i}-ca"), breakable(line[len("Cluster autoscaler"):])])


def autoscaler_section(trace: Trace, i: int | str) -> list[Html]:
    """The section of a trace (`i`: its index), or of a list's loop (`i`: "list")."""
    doc = trace.get("autoscaler")
    if not doc:     # a list's pod: its answers (the pass's section follows the overview)
        lines = answer_lines(trace)
        return [el("p", *(el("div", el("code", line if "\n" not in line else lines_html(line))) for line in lines),
                   cls="ca-answer", id=f"t{i}-ca")] \
            if lines else []
    out: list[Html] = [el("h3", "Cluster autoscaler", id=f"t{i}-ca"),
                       el("p", version_note(doc, trace), cls="note"),
                       *(el("p", line, cls="note ca-found") for line in [*provider_lines(doc), *found_lines(doc)]),
                       *([el("p", admission_text(doc), cls="note")] if admission_text(doc) else [])]
    rows = pod_rows(doc)
    if len(rows) > 1 or (rows and len((doc.get("pendingPass") or {}).get("pods") or ()) > 1):
        out.append(table(("pods", "outcome", "event, or why none"),
                         [(who, el("b", outcome), lines_html(why)) for who, outcome, why in rows],
                         cls="ca-pods", caption="Pending pods, each CA's answer in one loop over all of them"))
    pod = explained_pod(doc)
    record = explained_record(doc)
    head, *picks = outcome_line(record, doc).split("\n")      # where CA's pick decides: each pick's answer
    out.append(el("p", f"Pod {pod}: " if several(doc) and pod else "", el("code", breakable(head)),
                  *(el("span", el("code", breakable(line)), cls="ca-pick") for line in picks), cls="ca-event"))
    if random_pick(doc) and not picks and head.startswith("Event: Normal TriggeredScaleUp"):
        out.append(el("p", "The event names the group CA picks at random among the tied ones (the expander's tie "
                           "below).", cls="note"))
    others = others_line(doc)
    if others:
        out.append(el("p", others, cls="note ca-others"))
    rows = []
    marked = False
    for name, size, verdict, lines in group_rows(doc):
        why = []
        for plugin, reasons, words in lines:
            marked = marked or plugin.endswith("*")
            why.append(el("div", el("b", plugin + ": ") if plugin else "", breakable(reasons),
                          *(el("div", w, cls="words") for w in words),
                          cls="ca-template" if plugin == TEMPLATE else None))
        link = el("a", breakable(name), href=f"#{group_id(i, name)}", cls="group", data_group=group_id(i, name))
        rows.append((link, size, el("span", verdict, cls=f"ca-{verdict.replace(' ', '-')}"), join(why)))
    out.append(table(("node group", "size", "verdict", "why (on the group's template node)"), rows,
                     cls="ca-groups", caption=f"Node groups, for pod {pod}" if several(doc) and pod else "Node groups"))
    if marked:
        out.append(el("p", "* = the plugin CA reports for the group (its first failing one); every plugin that "
                           "fails on the template is listed.", cls="note"))
    tie = tie_lines(doc)
    if tie:
        head, items = tie
        out.append(el("div", el("p", head), el("ul", *(el("li", breakable(item)) for item in items)),
                      cls="ca-tie"))
    line = choice_line(doc)
    if line:
        out.append(el("p", breakable(line), cls="ca-choice"))
    grown = min_size_line(doc)
    if grown:
        out.append(el("p", breakable(grown), cls="ca-choice"))
    out += [_group_details(doc, g, i) for g in doc.get("nodeGroups") or ()]
    return out


def _group_details(doc: Mapping[str, Any], g: Mapping[str, Any], i: int | str) -> Html:
    """One group's full verdict, as `--node-group` prints it."""
    name = g.get("name", "")
    verdict = ((explained_record(doc) or {}).get("nodeGroups") or {}).get(name) or {}
    entry = ((doc.get("explained") or {}).get("nodeGroups") or {}).get(name) or {}
    own = verdict.get("predicate") if verdict.get("verdict") == "rejected" else None
    template = g.get("template")
    items = [el("p", f"{size_words(g)}; template: ", breakable(template_words(doc, template)))]
    if verdict.get("verdict") == "skipped":
        items.append(el("p", "Skipped by CA: " + "; ".join(verdict.get("reasons") or ())))
    pre = entry.get("preFilter")
    if pre is not None:
        items.append(el("p", f"PreFilter plugin {pre.get('plugin')} rejects the pod for every node: "
                             + "; ".join(pre.get("reasons") or ())))
    facts = entry.get("plugins") or {}
    rows = []
    for plugin, st in (entry.get("filterAll") or {}).items():
        words = filter_words(plugin, facts.get(plugin))
        if st.get("code") == "Skip" and not words:
            continue
        code = st.get("code", "")
        status = el("span", code + (": " + "; ".join(st["reasons"]) if st.get("reasons") else ""),
                    cls="rejected" if code in FAILED else None)
        rows.append((plugin + (" *" if plugin == own else ""), status, join(el("div", w) for w in words)))
    if rows:
        items.append(table(("Filter plugin", "on the template", "why"), rows, cls="ca-plugins"))
    items.append(_template(doc, template))
    summary = el("summary", "Node group ", el("span", breakable(name), cls="name"),
                 f": {verdict.get('verdict') or '-'}")
    return el("details", summary, *items, cls="ca-group", id=group_id(i, name))


def _template(doc: Mapping[str, Any], template: Mapping[str, Any] | None) -> Html:
    """The template node CA judged the pod on: which node it was built from, its labels,
    allocatable, taints and pods (those of its DaemonSets)."""
    if not template:
        return el("p", "No template node: neither a ready member nor a template.", cls="ca-template")
    rows = [("built from", template_source(doc, template)),
            ("labels", join((el("div", f"{k}={v}") for k, v in (template.get("labels") or {}).items()))),
            ("allocatable", ", ".join(f"{k} {q}" for k, q in (template.get("allocatable") or {}).items())),
            ("taints", ", ".join(taint_text(t) for t in template.get("taints") or ()) or "none"),
            ("pods", ", ".join(template.get("pods") or ()) or "none")]
    return el("div", el("h5", "The template node"),
              el("dl", *(Html(el("dt", k) + el("dd", v)) for k, v in rows), cls="figures"), cls="ca-template")

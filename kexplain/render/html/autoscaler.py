"""The page's "Cluster autoscaler" section (the trace's `autoscaler` key): the same as the
terminal's (`render.cluster_autoscaler`), the event, the node groups' table, the expander's
choice; and each group's full verdict, plugin by plugin on its template in `--node`'s words,
in a `<details>` the group's name in the table links to (the script opens it; without script
it opens by hand)."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.render.cluster_autoscaler import (FAILED, answer_lines, choice_line, explained_pod, explained_record,
                                                found_lines, group_rows, others_line, outcome_line, pod_rows, several,
                                                version_note)
from kexplain.render.html.markup import Html, el, join, table
from kexplain.render.node import filter_words

Trace = Mapping[str, Any]


def group_id(i: int | str, group: str) -> str:
    return f"t{i}-group-{group}"


def autoscaler_section(trace: Trace, i: int | str) -> list[Html]:
    """The section of a trace (`i`: its index), or of a list's loop (`i`: "list")."""
    doc = trace.get("autoscaler")
    if not doc:     # a list's pod: its answers (the pass's section follows the overview)
        lines = answer_lines(trace)
        return [el("p", *(el("div", el("code", line)) for line in lines), cls="ca-answer", id=f"t{i}-ca")] \
            if lines else []
    out: list[Html] = [el("h3", "Cluster autoscaler", id=f"t{i}-ca"),
                       el("p", version_note(doc, trace), cls="note"),
                       *(el("p", line, cls="note ca-found") for line in found_lines(doc))]
    rows = pod_rows(doc)
    if len(rows) > 1 or (rows and len((doc.get("pendingPass") or {}).get("pods") or ()) > 1):
        out.append(table(("pods", "outcome", "event, or why none"),
                         [(who, el("b", outcome), why) for who, outcome, why in rows],
                         cls="ca-pods", caption="Pending pods, each CA's answer in one loop over all of them"))
    pod = explained_pod(doc)
    line = outcome_line(explained_record(doc))
    out.append(el("p", f"Pod {pod}: " if several(doc) and pod else "", el("code", line), cls="ca-event"))
    others = others_line(doc)
    if others:
        out.append(el("p", others, cls="note ca-others"))
    rows = []
    marked = False
    for name, size, verdict, lines in group_rows(doc):
        why = []
        for plugin, reasons, words in lines:
            marked = marked or plugin.endswith("*")
            why.append(el("div", el("b", plugin + ": ") if plugin else "", reasons,
                          *(el("div", w, cls="words") for w in words)))
        link = el("a", name, href=f"#{group_id(i, name)}", cls="group", data_group=group_id(i, name))
        rows.append((link, size, el("span", verdict, cls=f"ca-{verdict.replace(' ', '-')}"), join(why)))
    out.append(table(("node group", "size", "verdict", "why (on the group's template node)"), rows,
                     cls="ca-groups", caption=f"Node groups, for pod {pod}" if several(doc) and pod else "Node groups"))
    if marked:
        out.append(el("p", "* = the plugin CA reports for the group (its first failing one); every plugin that "
                           "fails on the template is listed.", cls="note"))
    line = choice_line(doc)
    if line:
        out.append(el("p", line, cls="ca-choice"))
    out += [_group_details(doc, g, i) for g in doc.get("nodeGroups") or ()]
    return out


def _group_details(doc: Mapping[str, Any], g: Mapping[str, Any], i: int | str) -> Html:
    """One group's full verdict, as `--node-group` prints it."""
    name = g.get("name", "")
    verdict = ((explained_record(doc) or {}).get("nodeGroups") or {}).get(name) or {}
    entry = ((doc.get("explained") or {}).get("nodeGroups") or {}).get(name) or {}
    own = verdict.get("predicate") if verdict.get("verdict") == "rejected" else None
    items = [el("p", f"size {g.get('targetSize')} (min {g.get('minSize')}, max {g.get('maxSize')}); members: "
                     f"{', '.join(g.get('nodes') or ()) or 'none'}")]
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
    summary = el("summary", "Node group ", el("span", name, cls="name"), f": {verdict.get('verdict') or '-'}")
    return el("details", summary, *items, cls="ca-group", id=group_id(i, name))

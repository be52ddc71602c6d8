"""The `--html` page of `kexplain karpenter --disruption`: the document `-o json` writes (its
`pass`), as static sections with the page's style, in the text's words (`render.karpenter_disruption`
and `render.karpenter_disruption_chain`, never reworded): the verdict (which method acts, which
nodes go), the budgets per NodePool and reason with their arithmetic, the chain (each node's drain,
the Eviction API's answers, where the pods land), each method with its candidates and commands,
each node's verdict in Karpenter's words, the events, then the answer as the terminal prints it.
No script."""
from __future__ import annotations

import io
from typing import Any, Mapping

from kexplain.render.consoles import text_console
from kexplain.render.html.markup import Html, el, static_page, table
from kexplain.render.karpenter_disruption import NODE_HEADERS, budget_logs, budget_rows, decision_line, method_lines, \
    node_rows, node_sections, print_disruption, print_node, stopped_by, tie_lines
from kexplain.render.karpenter_events import event_line as live_event_line, print_live_events
from kexplain.render.karpenter_disruption_chain import HEADING, answer_text, event_line, grace_line, ignored_text, \
    lands_text, node_heading, pdb_line

TEXT_WIDTH = 100        # the terminal's: the same answer as the text
PASS = "disruption"

Doc = Mapping[str, Any]


def is_disruption(doc: Doc) -> bool:
    return doc.get("pass") == PASS and "kind" not in doc


def _section(title: str, anchor: str, *parts: Any) -> list[Html]:
    shown = [p for p in parts if p]
    return [el("section", el("h2", title, id=anchor), *shown, cls="eviction disruption")] if shown else []


def _verdict(doc: Doc) -> list[Html]:
    """Which method acts and which nodes go (or that none does), with the summary's counts."""
    decision = doc.get("decision") or {}
    going = [(c.get("decision", ""), n.get("node", ""), n.get("nodePool", ""), n.get("instanceType", ""),
              c.get("text", ""), f"${c.get('estimatedSavings')}/h")
             for c in decision.get("commands") or () for n in c.get("candidates") or ()]
    s = doc.get("summary") or {}
    counts = (f"{s.get('candidates', 0)} candidate node(s), {s.get('blocked', 0)} blocked, "
              f"{s.get('disrupted', 0)} disrupted by the decision")
    tie = tie_lines(decision.get("ties"))
    return _section("Verdict", "verdict", el("p", decision_line(doc), cls="verdict"), el("p", counts, cls="note"),
                    table(("Decision", "Node", "NodePool", "Type", "Command", "Savings"), going) if going else None,
                    el("p", tie[0], cls="note tie") if tie else None,
                    el("ul", *(el("li", line.strip()) for line in tie[1:])) if tie else None)


def _node(doc: Doc) -> list[Html]:
    """`--node NAME`: why Karpenter keeps this node, first, in the text's words."""
    if not doc.get("node"):
        return []
    head, parts = node_sections(doc)
    shown: list[Any] = [el("p", head, cls="verdict")]
    for title, lines in parts:
        shown += [el("h3", title), el("pre", "\n".join(lines), cls="text wrap")]
    return _section(f"Node {doc['node'].get('name', '')}", "node", *shown)


def _budgets(doc: Doc) -> list[Html]:
    rows = budget_rows(doc)
    return _section("Budgets (per NodePool and reason)", "budgets",
                    table(("NodePool", "Reason", "Nodes", "Allowed", "How"), rows, numeric=(2, 3)) if rows else None,
                    *(el("pre", text, cls="text") for text in budget_logs(doc)))


def _chain(doc: Doc) -> list[Html]:
    chain = (doc.get("decision") or {}).get("chain") or {}
    nodes = chain.get("nodes") or ()
    if not nodes:
        return []
    parts: list[Any] = [el("p", HEADING + ".", cls="note")]
    parts += [el("p", pdb_line(b)) for b in chain.get("pdbs") or ()]
    for n in nodes:
        rows = [(p.get("pod", ""), p.get("group", ""), "; ".join(filter(None, (answer_text(p), ignored_text(p)))),
                 lands_text(p.get("lands"), p.get("outcome") == "refused")) for p in n.get("pods") or ()]
        parts.append(el("h3", node_heading(n)))
        if grace_line(n):
            parts.append(el("p", grace_line(n), cls="note"))
        parts.append(table(("Pod", "Group", "Eviction", "Lands"), rows) if rows else el("p", "no pods"))
        events = [event_line(e) for e in n.get("events") or ()]
        if events:
            parts.append(el("ul", *(el("li", line) for line in events)))
    return _section("The chain: evictions, budgets, where the pods land", "chain", *parts)


def _methods(doc: Doc) -> list[Html]:
    stopped = stopped_by(doc)
    items = [el("li", el("pre", "\n".join(method_lines(m, stopped)), cls="text wrap")) for m in doc.get("methods") or ()]
    return _section("Methods, in Karpenter's order", "methods", el("ol", *items) if items else None)


def _nodes(doc: Doc) -> list[Html]:
    rows = node_rows(doc)
    return _section("Nodes", "nodes", table([h[:1].upper() + h[1:] for h in NODE_HEADERS], rows) if rows else None)


def _events(doc: Doc) -> list[Html]:
    rows = [(e.get("object", ""), e.get("type", ""), e.get("reason", ""), e.get("message", ""))
            for e in doc.get("events") or ()]
    return _section("Events (as Karpenter's recorder dedupes them)", "events",
                    table(("Object", "Type", "Reason", "Message"), rows) if rows else el("p", "No event."))


def _live(doc: Doc) -> list[Html]:
    """Read live: Karpenter's own events in the cluster, beside what the pass says now."""
    live = doc.get("live")
    if not live:
        return []
    if live.get("eventsRefused"):
        return _section("Karpenter's events in the cluster", "live",
                        el("p", f"Not read from {live.get('server', '')}: RBAC refused (403)."))
    lines = [live_event_line(e).strip() for e in live.get("events") or ()]
    return _section("Karpenter's events in the cluster", "live", el("p", f"Read from {live.get('server', '')}."),
                    el("ul", *(el("li", line) for line in lines)) if lines else el("p", "None."))


def _text(doc: Doc) -> str:
    buf = io.StringIO()
    console = text_console(buf, width=TEXT_WIDTH, force_terminal=False, color_system=None)
    if doc.get("node"):                      # --node NAME: the text is the node's answer
        print_node(doc, console)
    else:
        print_disruption(doc, console)
        print_live_events(doc, console)      # (read live: Karpenter's own events, as the text ends)
    return buf.getvalue().rstrip("\n")


def disruption_body(doc: Doc) -> list[Html]:
    """The page's sections of one disruption document, without the page around them (`kexplain
    cluster --html` shows one in a row that carries it)."""
    return [*_node(doc), *_verdict(doc), *_budgets(doc), *_chain(doc), *_methods(doc), *_nodes(doc), *_events(doc),
            *_live(doc), el("section", el("h2", "As the terminal prints it", id="text"),
                            el("pre", _text(doc), cls="text"), cls="eviction disruption")]


def render_disruption(doc: Doc, style: str) -> str:
    """The page of one disruption document (`style`: the page's css)."""
    decision = doc.get("decision") or {}
    title = (f"Karpenter disruption: {decision.get('method')} acts" if decision
             else "Karpenter disruption: no method acts")
    if doc.get("node"):
        title = node_sections(doc)[0]
    body = disruption_body(doc)
    meta = f"Karpenter's disruption pass, as {doc.get('karpenter', '')}; nothing was changed in the cluster."
    return static_page(title, f"kexplain ({doc.get('karpenter', '')})", style, {"data-kind": "karpenter-disruption"},
                       meta, "".join(body))

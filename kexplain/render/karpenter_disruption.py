"""`kexplain karpenter --disruption` in words, read only from the document: the decision, the
budgets per NodePool and reason with their arithmetic, each method's candidates, command and where
the pods go, each node's verdict in Karpenter's words, the events."""
from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console
from rich.text import Text

from kexplain.render.blocks import Block, print_blocks
from kexplain.render.karpenter import table_block
from kexplain.render.karpenter_disruption_chain import chain_lines
from kexplain.render.style import Look

UNLIMITED = 2147483647


def _n(v: int) -> str:
    return "unlimited" if v >= UNLIMITED else str(v)


def decision_line(doc: Mapping[str, Any]) -> str:
    d = doc.get("decision")
    if not d:
        return "Karpenter would disrupt no node now: no method computed a command."
    cmds = "; ".join(c.get("text", "") + f" (savings ${c.get('estimatedSavings')}/h)" for c in d.get("commands") or ())
    return f"Karpenter would start {d['method']} ({d['reason']}): {cmds}"


ORDERED_BY = {"disruptionCost": "disruption cost", "savingsRatio": "savings ratio",
              "driftedAt": "Drifted time"}


def tie_lines(ties: Any) -> list[str]:
    """A tie Karpenter breaks at random (`ties` of the decision or a method): which candidates
    tie (or which NodePools single-node consolidation interleaves in Go's map order), that
    Karpenter takes one of them, the commands it may give and their savings' range."""
    if not isinstance(ties, Mapping) or not (ties.get("tied") or ties.get("nodePools")):
        return []
    key = str(ties.get("orderedBy") or "disruptionCost")
    what = ORDERED_BY.get(key, key)
    said = []
    if ties.get("tied"):
        groups = "; ".join(f"{', '.join(t.get('candidates') or ())} ({what} {t.get(key)})" for t in ties["tied"])
        said.append(f"tie: {groups}: Karpenter orders candidates of equal {what} in Go's map order, which changes "
                    "from run to run, and takes one of them")
    if ties.get("nodePools"):
        said.append(f"NodePools {', '.join(ties['nodePools'])}: single-node consolidation interleaves their "
                    "candidates in Go's map order, which changes from run to run")
    shown, *others = ties.get("commands") or [{}]
    s = ties.get("savings") or {}
    lines = ["; ".join(said) + f"; {shown.get('text')} is one possibility (kexplain takes name order)"]
    lines += [f"  or: {c.get('text')} (savings ${c.get('estimatedSavings')}/h)" for c in others]
    lines.append(f"  savings from ${s.get('min')}/h to ${s.get('max')}/h, by Karpenter's choice")
    return lines


def _budget_part(b: Mapping[str, Any], nodes: int) -> str:
    """One budget: its value, its window, what it allows now."""
    value = str(b.get("nodes", ""))
    if not b.get("applies"):
        return f"nodes {value} (only for {', '.join(b.get('reasons') or ())})"
    what = f"nodes {value}"
    if value.endswith("%") and b.get("active") and not b.get("error"):
        what = f"nodes {value} of {nodes} = roundup({value[:-1]} × {nodes} / 100)"
    if b.get("schedule"):
        window = "active now" if b.get("active") else "inactive now, no limit"
        if b.get("alwaysActive"):
            window = "active at every instant: each window reaches the next firing"
        elif b.get("closes") or b.get("opens"):
            window += f", {'closes' if b.get('closes') else 'opens'} {b.get('closes') or b.get('opens')}"
        what += f" during '{b['schedule']}' for {b.get('duration')} ({window})"
    if b.get("error"):
        return what + f": {b['error']} (fails closed: 0)"
    if b.get("active"):
        what += f" = {b['allowed']}"
    return what


def _budget_text(reason: Mapping[str, Any], nodes: int) -> str:
    """The arithmetic of one NodePool's budget for one reason: every budget, the most restrictive
    active one that applies, less the nodes NotReady or being deleted."""
    budgets = reason.get("budgets") or ()
    if not budgets:
        return "no budgets: no limit"
    text = "; ".join(_budget_part(b, nodes) for b in budgets)
    applying = [b for b in budgets if b.get("applies") and b.get("active")]
    if len(applying) > 1:
        text += f"; the most restrictive: {_n(reason.get('budgetsAllow', 0))}"
    elif not applying and not any(b.get("error") for b in budgets):
        text += "; none active for this reason: no limit"
    disrupting = reason.get("disrupting", 0)
    if disrupting:
        text += f"; less {disrupting} node(s) NotReady or being deleted"
    return text


def invalid_text(bad: Mapping[str, Any]) -> str:
    """A budget whose schedule Karpenter cannot parse: its error, what it blocks, the corrected
    schedule and what the budgets allow with it."""
    text = (f"budgets[{bad['index']}] schedule \"{bad['schedule']}\": Karpenter cannot parse it "
            f"(\"{bad['error']}\"), so it allows no disruption for any reason of this NodePool "
            "(Drifted, Empty, Underutilized), whatever the other budgets allow")
    if not bad.get("fix"):
        return text + "; fix: write the schedule in robfig/cron's five fields (names: sun-sat, jan-dec)"
    allows = ", ".join(f"{r} {_n(v)}" for r, v in (bad.get("allowsWithFix") or {}).items())
    return text + f"; fix: schedule \"{bad['fix']}\" (it parses; the budgets then allow {allows} now)"


def _invalid_row(bad: Mapping[str, Any], reason: str) -> str:
    then = (bad.get("allowsWithFix") or {}).get(reason)
    return (f"budgets[{bad['index']}] schedule \"{bad['schedule']}\" does not parse: no disruption for any reason"
            + (f"; with \"{bad['fix']}\": {_n(then)}" if bad.get("fix") and then is not None else ""))


def budget_rows(doc: Mapping[str, Any]) -> list[list[str]]:
    """Per NodePool and reason: the nodes, what is allowed now and the arithmetic behind it (a
    schedule Karpenter cannot parse instead: it alone decides)."""
    rows = []
    for b in doc.get("budgets") or ():
        for reason, allowed in sorted((b.get("allowed") or {}).items()):
            detail = (b.get("reasons") or {}).get(reason) or {}
            how = ("; ".join(_invalid_row(bad, reason) for bad in b["invalidBudgets"]) if b.get("invalidBudgets")
                   else _budget_text(detail, b.get("nodes", 0)))
            rows.append([b["nodePool"], reason, str(b.get("nodes", 0)), _n(allowed), how])
    return rows


def budget_logs(doc: Mapping[str, Any]) -> list[str]:
    """Per NodePool whose budgets Karpenter cannot read: each bad schedule in full, with its fix, and
    Karpenter's log (Controller.logInvalidBudgets)."""
    out = []
    for b in doc.get("budgets") or ():
        lines = [f"NodePool {b['nodePool']}: {invalid_text(bad)}" for bad in b.get("invalidBudgets") or ()]
        if b.get("log"):
            lines.append(f'  Karpenter logs "{b["log"]["message"]}": {b["log"]["error"]}')
        if lines:
            out.append("\n".join(lines))
    return out


def stopped_by(doc: Mapping[str, Any]) -> str:
    """Why Reconcile reaches no later method: the last one it reached started a command, or
    returned an error."""
    reached = [m for m in doc.get("methods") or () if m.get("reached")]
    if reached and reached[-1].get("outcome") == "Error":
        return f"{reached[-1]['method']}'s error ends Reconcile"
    return "an earlier method acts"


def method_lines(m: Mapping[str, Any], stopped: str = "an earlier method acts") -> list[str]:
    """One method's turn: its outcome, candidates, the budgets it was given, its commands with
    where the pods go, its events. `stopped`: why Reconcile does not reach it (`stopped_by`)."""
    lines = [f"{m['method']} ({m['reason']}): {m['outcome']}"
             + ("" if m.get("reached") else f" — not reached: {stopped}")]
    if m.get("candidates"):
        lines.append("  candidates: " + ", ".join(m["candidates"]))
    if m.get("budgets"):
        lines.append("  budgets given: " + ", ".join(f"{k} {_n(v)}" for k, v in m["budgets"].items()))
        blocked = [k for k, v in m["budgets"].items() if v == 0]
        if blocked:
            lines.append(f"  no disruption allowed for {m['reason']} in NodePool(s) {', '.join(blocked)}: "
                         "their candidates are skipped")
    if m.get("error"):
        lines.append(f"  error: {m['error']}")
    for c in m.get("commands") or ():
        lines.append(f"  command: {c['text']} (savings ${c.get('estimatedSavings')}/h)")
        for r in c.get("replacements") or ():
            types = (", ".join(f"{t} ${p}" for t, p in zip(r.get("instanceTypes") or (), r.get("prices") or ()))
                     or "the NodePool's template (its type chosen at launch)")
            pods = f"; pods: {', '.join(r['pods'])}" if r.get("pods") else ""
            lines.append(f"    new NodeClaim of {r['nodePool']} ({', '.join(r.get('capacityTypes') or ())}): "
                         f"{types}{pods}")
        for e in c.get("existingNodes") or ():
            lines.append(f"    onto {e['node']}: {', '.join(e.get('pods') or ())}")
    lines += [f"  {line}" for line in tie_lines(m.get("ties"))]
    for e in m.get("events") or ():
        lines.append(f"  event {e['reason']} on {e['object']}: {e['message']}")
    return lines


NODE_HEADERS = ["node", "NodePool", "type", "pods (moving/all)", "cost", "methods", "verdict"]


def node_rows(doc: Mapping[str, Any]) -> list[list[str]]:
    """Per node: whether it is a candidate and, when not, Karpenter's words (with what a method
    said of a candidate)."""
    said: dict[str, list[str]] = {}
    for m in doc.get("methods") or ():
        for e in m.get("events") or ():
            if e.get("object", "").startswith("Node ") and e.get("reason") in ("Unconsolidatable", "DisruptionBlocked"):
                said.setdefault(e["object"][len("Node "):], []).append(f"{m['method']}: {e['message']}")
    rows = []
    for n in doc.get("nodes") or ():
        verdict = "candidate" if n.get("candidate") else (n.get("blocked") or n.get("error") or "not a candidate")
        if n.get("candidate") and said.get(n["node"]):
            verdict += "; " + "; ".join(said[n["node"]])
        if n.get("candidateEventual") is True and not n.get("candidate"):
            verdict += " (a candidate for Drift: its terminationGracePeriod bounds the drain)"
        cost = f"{n['disruptionCost']:.3f}" if "disruptionCost" in n else ""
        rows.append([n["node"], n.get("nodePool", ""), n.get("instanceType", ""),
                     f"{n.get('reschedulablePods', 0)}/{n.get('pods', 0)}", cost,
                     ", ".join(n.get("eligible") or ()), verdict])
    return rows


def render(doc: Mapping[str, Any], look: Look) -> list[Block]:
    blocks = [Block(Text(decision_line(doc), style="bold"))]
    tie = tie_lines((doc.get("decision") or {}).get("ties"))
    if tie:
        blocks.append(Block(Text("\n".join(tie))))
    chain = chain_lines(doc)
    if chain:
        blocks.append(Block(Text("\n".join("  " * level + line for level, line in chain))))
    if doc.get("provisioningScheduleError"):
        blocks.append(Block(Text(f"provisioning schedule error: {doc['provisioningScheduleError']}")))
    if doc.get("nominatedNodes"):
        blocks.append(Block(Text("nominated for pending pods (not candidates): " + ", ".join(doc["nominatedNodes"]))))
    rows = budget_rows(doc)
    if rows:
        blocks.append(table_block(look, "Budgets (per NodePool and reason)",
                                  ["NodePool", "reason", "nodes", "allowed", "how"], rows, right=(2, 3)))
    for line in budget_logs(doc):
        blocks.append(Block(Text(line)))
    stopped = stopped_by(doc)
    for m in doc.get("methods") or ():
        blocks.append(Block(Text("\n".join(method_lines(m, stopped)))))
    rows = node_rows(doc)
    if rows:
        blocks.append(table_block(look, "Nodes", NODE_HEADERS, rows))
    return blocks


def print_disruption(doc: Mapping[str, Any], console: Console) -> None:
    look = Look(plain=not console.is_terminal, width=console.width)
    print_blocks(render(doc, look), console)


# -- --node NAME ------------------------------------------------------------------------------------
VERDICTS = {"disrupted": "Karpenter would disrupt it now, by {method}",
            "command-not-reached": "{method} would disrupt it, but an earlier method acts first: it stays this pass",
            "stays": "Karpenter keeps it"}


MOVING_SHOWN = 10          # the pods named for a node that is not empty


def _detail_lines(check: Mapping[str, Any], said: set[str]) -> list[str]:
    """The facts behind one check: pods and PDBs, the pods that keep a node from being empty, pods that
    would not schedule, new NodeClaims, the cheapest type against the node's price, the condition, a
    budget schedule Karpenter cannot parse (in full once: `said`, what earlier checks said)."""
    d = check.get("detail") or {}
    out = []
    if d.get("pods") and d.get("pdbs"):
        out.append(f"pods: {', '.join(d['pods'])}")
    if d.get("moving"):
        more = len(d["moving"]) - MOVING_SHOWN
        out.append("pods that would have to move: " + ", ".join(d["moving"][:MOVING_SHOWN])
                   + (f", and {more} more" if more > 0 else ""))
    for p in d.get("unschedulable") or ():
        out.append(f"{p['pod']}: {p['error']}")
    for i, c in enumerate(d.get("newNodeClaims") or (), 1):
        zones = f" in {', '.join(c['zones'])}" if c.get("zones") else ""
        out.append(f"new NodeClaim {i} of {c['nodePool']}{zones} ({', '.join(c.get('instanceTypes') or ())}, ...) "
                   f"for {', '.join(c.get('pods') or ())}")
    if d.get("cheapestType"):
        out.append(f"the cheapest type that would hold its pods: {d['cheapestType']} ${d['cheapestPrice']}/h "
                   f"({', '.join(d.get('capacityTypes') or ())}) against the node's {d.get('nodeType')} "
                   f"${d.get('nodePrice')}/h")
        if d.get("nodePriceNote"):
            out.append(d["nodePriceNote"])
    if d.get("reason") and "budgetsAllow" in d:
        out.append(f"NodePool {d['nodePool']} for {d['reason']}: its budgets allow {_n(d['budgetsAllow'])} of "
                   f"{d['nodes']} node(s), {d['disrupting']} disrupting already")
    for bad in d.get("invalidBudgets") or ():
        text = invalid_text(bad)
        out.append(text if text not in said else f"budgets[{bad['index']}] schedule \"{bad['schedule']}\" does not "
                   "parse (above): no disruption for any reason")
        said.add(text)
    if "condition" in d:
        since = f" since {d['lastTransitionTime']}" if d.get("lastTransitionTime") else ""
        why = f" ({d['reason']})" if d.get("reason") else ""
        out.append(f"the NodeClaim's condition: {d['condition']}{why}{since} (input: its status as given)")
    if d.get("drift"):
        out.append(d["drift"])
    return out


def node_sections(doc: Mapping[str, Any]) -> tuple[str, list[tuple[str, list[str]]]]:
    """`--node NAME`'s answer in words: its headline, then each part's title and lines (the checks
    that stop it, the verified fixes, Karpenter's events read live, what time alone changes); the
    text and the page both print these."""
    node = doc.get("node") or {}
    head = f"Node {node.get('name')}: " + VERDICTS.get(node.get("verdict", ""), "").format(method=node.get("method"))
    lines: list[str] = []
    said: set[str] = set()
    for i, c in enumerate(node.get("checks") or (), 1):
        words = f'"{c["message"]}"' if c.get("karpenter") else c["message"]
        lines.append(f"  {i}. {c['step']}: {words}")
        lines.extend(f"       {line}" for line in _detail_lines(c, said))
    fixes = []
    for f in node.get("fixes") or ():
        v = f["verified"]
        then = f"{v['method']} acts: {v['command']}" if v["acts"] else \
            f"{v['method']} would take it ({v['command']}), though not as this pass's decision"
        fixes.append(f"  - {f['description']}\n      verified: {then}")
    parts = [("What stops it, in the order Karpenter checks (quoted: Karpenter's words):", lines),
             ("Annotations Karpenter ignores (they protect nothing):", [line for i in node.get("ignored") or ()
                                                                       for line in _ignored_lines(i)]),
             ("Changes that let it go (each verified by running the disruption pass again):", fixes),
             ("What Karpenter said of it (its events in the cluster):", live_events(doc, node.get("name", ""))),
             ("What time alone changes (and what stops it then, in the order Karpenter checks):",
              [line for w in node.get("when") or () for line in _when_lines(w)])]
    return head, [(title, shown) for title, shown in parts if shown]


def _ignored_lines(i: Mapping[str, Any]) -> list[str]:
    out = [f"  - {i['object']}: karpenter.sh/do-not-disrupt: \"{i['value']}\": {i['message']}"]
    if i.get("event"):
        out.append(f"      event {i['event']['reason']}: \"{i['event']['message']}\"")
    return out


def _when_lines(w: Mapping[str, Any]) -> list[str]:
    """One time event and, once it has come, the node's verdict and every check that stops it."""
    out = [f"  - {w['at']}: {w['text']}"]
    then = w.get("then")
    if then is None:
        return out
    verdict = VERDICTS.get(then.get("verdict", ""), "").format(method=then.get("method")).replace(" now,", " then,")
    out.append(f"      then: {verdict}" + (":" if then.get("checks") else ""))
    for i, c in enumerate(then.get("checks") or (), 1):
        words = f'"{c["message"]}"' if c.get("karpenter") else c["message"]
        out.append(f"        {i}. {c['step']}: {words}")
    return out


def render_node(doc: Mapping[str, Any]) -> list[Block]:
    head, parts = node_sections(doc)
    return [Block(Text(head, style="bold")), *(Block(Text(title + "\n" + "\n".join(lines))) for title, lines in parts)]


def live_events(doc: Mapping[str, Any], name: str) -> list[str]:
    """Live: Karpenter's own events on the node and its NodeClaim, as read from the cluster."""
    claim = next((n.get("nodeClaim") for n in doc.get("nodes") or () if n.get("node") == name), None)
    objects = {f"Node/{name}", *([f"NodeClaim/{claim}"] if claim else [])}
    return [f"  - {e['object']} {e['reason']}: {e['message']}" + (f" (×{e['count']})" if e.get("count") else "")
            for e in (doc.get("live") or {}).get("events") or () if e.get("object") in objects]


def print_node(doc: Mapping[str, Any], console: Console) -> None:
    print_blocks(render_node(doc), console)

"""`kexplain autoscale` in words, read only from the `-o json` document (`kexplain.autoscaler.document`):
the loop's result and versions, each pending pod's outcome, the node groups' table and the
expander's choice. Names are never cut (`cluster_autoscaler.names_table`)."""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from rich.console import Console, Group
from rich.text import Text

from kexplain.render.blocks import Block, print_blocks
from kexplain.autoscaler.plan import scale_up_plan
from kexplain.render.cluster_autoscaler import (depending_words, found_blocks, indented,
                                                min_size_line, names_table, outcome_label, template_words, tie_lines,
                                                why_none)
from kexplain.render.style import Look, wrap, wrapped
from kexplain.render.views import admission_text
from kexplain.render.words import tables

(RESULT_WORDS,) = tables("autoscale", "RESULT_WORDS")


def print_scale_up(doc: Mapping[str, Any], console: Console) -> None:
    """The document as text on `console`."""
    look = Look(plain=not console.is_terminal, width=console.width)
    print_blocks(scale_up_blocks(doc, look), console)


def scale_up_blocks(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """The result, the expander's choice, the pending pods, the node groups, the cluster's
    events and, in scale-down mode, the scale-down."""
    result = doc.get("result", "")
    line = Text.assemble(("Cluster Autoscaler: ", "bold"), (result, "bold"),
                         (f" ({RESULT_WORDS[result]})" if result in RESULT_WORDS else "", ""))
    blocks = [Block(line, gap=False)]
    if doc.get("error"):
        blocks.append(Block(Text(wrap(f"error: {doc['error']}", look.width)), gap=False))
    blocks += _choice(doc, look)
    notes = found_blocks(doc, look.width)     # the CA and Kubernetes versions, the cloud provider
    blocks += [Block(notes[0].renderable), *notes[1:]]
    admission = admission_text(doc)       # the tolerations the cluster's API server gave the pods (EKS, GKE)
    if admission:
        blocks.append(Block(Text(wrap(admission, look.width), style="dim"), gap=False))
    pods = [(f"{p['namespace']}/{p['name']}", (outcome_label(p),), wrapped(why_none(p, doc))) for p in doc.get("pods") or ()]
    if pods:
        blocks.append(Block(names_table(look, "Pending pods", ("pod", "outcome", "event, or why none"), pods)))
    rows = []
    verdicts = _verdicts_by_group(doc)
    for g in doc.get("nodeGroups") or ():
        size = f"{g['targetSize']}->{g['newTargetSize']} ({g['minSize']}..{g['maxSize']})"
        option = g.get("option")
        opt = f"{option['nodeCount']} node(s), {len(option['pods'])} pod(s)" if option else \
            ("skipped: " + "; ".join(g["skipped"]) if g.get("skipped") else "no option")
        cell = Group(Text(opt, style="bold"), *(Text(v) for v in verdicts.get(g["name"], ())),
                     Text(f"template: {template_words(doc, g.get('template'))}", style="dim"))
        rows.append((g["name"], (size,), cell))
    if rows:
        blocks.append(Block(names_table(look, "Node groups", ("group", "size", "option; the pending pods' verdicts"),
                                        rows)))
    events = [f"{e['object']}: {e['type']} {e['reason']}: {e['message']}" for e in doc.get("clusterEvents") or ()]
    if events:
        blocks.append(Block(Text("\n".join(wrap(e, look.width) for e in events)), gap=False))
    if doc.get("scaleDown") is not None:
        blocks += _scale_down(doc["scaleDown"], look)
    return blocks


def _choice(doc: Mapping[str, Any], look: Look) -> list[Block]:
    """The expander's choice and CA's plan; a tie as CA's random pick among the tied options,
    the plan shown being the first's, which kexplain follows."""
    expansion = doc.get("expansion") or {}
    best = expansion.get("bestOption")
    lines: list[str] = []
    tie = tie_lines(doc)
    if tie:
        head, items = tie
        lines += [wrap(head, look.width), *(indented(item, look.width) for item in items),
                  wrap("kexplain follows the first; CA may scale up another of them instead:", look.width)]
    elif best:
        lines.append(wrap(f"Expander ({(doc.get('autoscaler') or {}).get('expander')}) chose {best['nodeGroup']}: "
                          f"{best['nodeCount']} node(s) for {len(best['pods'])} pod(s)", look.width))
    lines += [indented(f"{s['nodeGroup']}: {s['currentSize']} -> {s['newSize']} (max {s['maxSize']})", look.width)
              for s in scale_up_plan(doc)]
    if tie and depending_words(doc):
        lines.append(wrap(depending_words(doc).strip(), look.width))
    grown = min_size_line(doc)
    if grown:
        lines.append(wrap(grown, look.width))
    return [Block(Text("\n".join(lines)), gap=False)] if lines else []


# -- scale-down mode: the document's scaleDown key (kexplain.autoscaler.scaledown) -------------
def _scale_down(sd: Mapping[str, Any], look: Look) -> list[Block]:
    """The scale-down's result, its unneeded nodes, and a row per node: its group, whether CA
    looked at it, the reason it stays (with the blocking pod) and its utilization."""
    head = Text.assemble(("Scale-down: ", "bold"), (sd.get("result", ""), "bold"))
    unneeded = (f"unneeded: {', '.join(sd.get('unneeded') or ()) or 'none'}"
                + (f"; deletion started: {', '.join(sd['scaledDown'])}" if sd.get("scaledDown") else ""))
    nodes = look.table("Nodes")
    for column in ("node", "group", "unneeded", "reason", "utilization"):
        nodes.add_column(column, overflow="fold")
    for n in sd.get("nodes") or ():
        reason = n.get("reason") or ("" if n.get("candidate") else "not a candidate")
        blocking = n.get("blockingPod")
        if blocking:
            reason += f": {blocking['pod']} ({blocking['reason']})"
        util = n.get("utilization")
        used = f"{util['resourceName']} {util['utilization']:.1%}" if util else ""
        nodes.add_row(n["name"], n.get("nodeGroup") or "-", "yes" if n.get("unneeded") else "", reason, used)
    return [Block(head), Block(Text(wrap(unneeded, look.width)), gap=False), Block(nodes)]


def _verdicts_by_group(doc: Mapping[str, Any]) -> dict[str, list[str]]:
    """Per group, one line per verdict of the scale-up on the pending pods that reached it, with
    its number of pods (a skipped group CA checked anyway: its reasons from `pods[].rejected`)."""
    counts: dict[str, Counter[str]] = {}
    for pod in doc.get("pods") or ():
        simulated = pod.get("rejected") or {}
        for group, v in (pod.get("nodeGroups") or {}).items():
            verdict = v.get("verdict", "")
            if verdict == "rejected":
                verdict = f"{v.get('predicate', '')}: {', '.join(v.get('reasons') or ())}"
            elif verdict == "skipped" and group in simulated:
                verdict = f"skipped, then checked on its template: {', '.join(simulated[group])}"
            elif verdict == "skipped":
                verdict = f"skipped: {', '.join(v.get('reasons') or ())}"
            counts.setdefault(group, Counter())[verdict] += 1
    return {g: [f"{text} ({n} pod{'s' if n != 1 else ''})" for text, n in v.items()] for g, v in counts.items()}

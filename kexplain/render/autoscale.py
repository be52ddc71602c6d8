"""`kexplain autoscale` in words: the loop's result, each pending pod's outcome and event, a
table of the node groups (fits, rejected by which plugin and why, skipped and why), and the
expander's choice with its node count. Reads only the document `-o json` prints
(`kexplain.autoscaler.document`)."""
from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console
from rich.table import Table
from rich.text import Text

RESULT_WORDS = {
    "ScaleUpSuccessful": "scale-up",
    "ScaleUpNoOptionsAvailable": "no node group can take any pending pod",
    "ScaleUpNotNeeded": "no scale-up needed: every pending pod fits the cluster or was filtered out",
    "ScaleUpLimitedByMaxNodesTotal": "no scale-up: the cluster has --max-nodes-total ready nodes",
    "ScaleUpError": "scale-up failed",
}


def print_scale_up(doc: Mapping[str, Any], console: Console) -> None:
    """The document as text on `console`."""
    result = doc.get("result", "")
    line = Text.assemble(("Cluster Autoscaler: ", "bold"), (result, "bold"),
                         (f" ({RESULT_WORDS[result]})" if result in RESULT_WORDS else "", ""))
    console.print(line)
    if doc.get("error"):
        console.print(f"error: {doc['error']}")
    expansion = doc.get("expansion") or {}
    best = expansion.get("bestOption")
    if best:
        console.print(f"Expander ({(doc.get('autoscaler') or {}).get('expander')}) chose {best['nodeGroup']}: "
                      f"{best['nodeCount']} node(s) for {len(best['pods'])} pod(s)")
    for s in expansion.get("scaleUps") or ():
        console.print(f"  {s['nodeGroup']}: {s['currentSize']} -> {s['newSize']} (max {s['maxSize']})")
    console.print()
    pods = Table(title="Pending pods", title_justify="left", show_edge=False)
    for column in ("pod", "outcome", "event"):
        pods.add_column(column)
    for pod in doc.get("pods") or ():
        outcome = pod.get("outcome", "")
        if pod.get("filteredBy"):
            outcome += f" ({pod['filteredBy']})"
        events = "; ".join(e.get("message", "") for e in pod.get("events") or ())
        pods.add_row(f"{pod['namespace']}/{pod['name']}", outcome, events)
    console.print(pods)
    console.print()
    groups = Table(title="Node groups", title_justify="left", show_edge=False)
    for column in ("group", "size", "template", "option", "pending pods"):
        groups.add_column(column)
    verdicts = _verdicts_by_group(doc)
    for g in doc.get("nodeGroups") or ():
        size = f"{g['targetSize']}->{g['newTargetSize']} ({g['minSize']}..{g['maxSize']})"
        template = (g.get("template") or {}).get("source", "none")
        option = g.get("option")
        opt = f"{option['nodeCount']} node(s), {len(option['pods'])} pod(s)" if option else \
            ("skipped: " + "; ".join(g["skipped"]) if g.get("skipped") else "-")
        groups.add_row(g["name"], size, template, opt, "\n".join(verdicts.get(g["name"], ())))
    console.print(groups)
    for e in doc.get("clusterEvents") or ():
        console.print(f"{e['object']}: {e['type']} {e['reason']}: {e['message']}")


def _verdicts_by_group(doc: Mapping[str, Any]) -> dict[str, list[str]]:
    """Per group, what the scale-up found for the pending pods that reached it, one line per
    verdict with its number of pods: `fits`, `PLUGIN: reasons`, `skipped: reasons`."""
    counts: dict[str, dict[str, int]] = {}
    for pod in doc.get("pods") or ():
        for group, v in (pod.get("nodeGroups") or {}).items():
            verdict = v.get("verdict", "")
            if verdict == "rejected":
                verdict = f"{v.get('predicate', '')}: {', '.join(v.get('reasons') or ())}"
            elif verdict == "skipped":
                verdict = f"skipped: {', '.join(v.get('reasons') or ())}"
            by_verdict = counts.setdefault(group, {})
            by_verdict[verdict] = by_verdict.get(verdict, 0) + 1
    return {g: [f"{text} ({n} pod{'s' if n != 1 else ''})" for text, n in v.items()] for g, v in counts.items()}

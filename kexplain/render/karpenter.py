"""`kexplain karpenter` in words: each pending pod's result and reason (per NodePool when it
failed on several), the NodeClaims Karpenter would create with their NodePool, instance types
and prices, the NodePools, and the events. Reads only the document `-o json` prints
(`kexplain.karpenter.document`)."""
from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console
from rich.table import Table
from rich.text import Text

RESULT_WORDS = {
    "NewNodeClaim": "a new NodeClaim",
    "ExistingNode": "an existing node or in-flight NodeClaim",
    "Failed": "no NodePool can take it",
    "Ignored": "refused before scheduling",
    "NotProvisionable": "not a pod Karpenter provisions for",
    "NotConsidered": "never reached the scheduler",
}
MAX_TYPES_SHOWN = 5


def _where(pod: Mapping[str, Any]) -> str:
    if pod.get("result") == "NewNodeClaim":
        return f"NodeClaim {pod.get('nodeClaim')} (NodePool {pod.get('nodePool')})"
    if pod.get("result") == "ExistingNode":
        parts = [f"node {pod['node']}" if pod.get("node") else "", f"NodeClaim {pod['nodeClaim']}"
                 if pod.get("nodeClaim") else ""]
        return ", ".join(p for p in parts if p)
    return ""


def _reasons(pod: Mapping[str, Any]) -> list[str]:
    """Karpenter's error, one line per NodePool tried when there is one part for each."""
    per_pool = pod.get("nodePoolErrors") or ()
    if per_pool:
        return [f"NodePool {e['nodePool']}: {e['error']}" for e in per_pool]
    if pod.get("error"):
        return [pod["error"]] + ([f"({pod['why']})"] if pod.get("why") else [])
    return [pod["why"]] if pod.get("why") else []


def _types(claim: Mapping[str, Any]) -> str:
    pairs = [f"{t} ${p}" for t, p in zip(claim.get("instanceTypes") or (), claim.get("prices") or ())]
    shown = ", ".join(pairs[:MAX_TYPES_SHOWN])
    if len(pairs) > MAX_TYPES_SHOWN:
        shown += f" and {len(pairs) - MAX_TYPES_SHOWN} more"
    return shown


def print_pass(doc: Mapping[str, Any], console: Console) -> None:
    """The document as text on `console`."""
    summary = doc.get("summary") or {}
    counts = ", ".join(f"{n} {r}" for r, n in (summary.get("pods") or {}).items())
    console.print(Text.assemble(("Karpenter: ", "bold"),
                                (f"{summary.get('newNodeClaims', 0)} new NodeClaim(s)", "bold"),
                                (f"; pods: {counts or 'none'}", "")))
    console.print(Text(doc.get("karpenter", ""), style="dim"))
    if doc.get("scheduleError"):
        console.print(f"error: {doc['scheduleError']}")
    console.print()
    pods = Table(title="Pending pods", title_justify="left", show_edge=False)
    for column in ("pod", "result", "where"):
        pods.add_column(column, overflow="fold")
    for pod in doc.get("pods") or ():
        result = pod.get("result", "")
        pods.add_row(pod.get("pod", ""), f"{result} ({RESULT_WORDS[result]})" if result in RESULT_WORDS else result,
                     _where(pod))
    console.print(pods)
    why = [(pod["pod"], _reasons(pod)) for pod in doc.get("pods") or () if _reasons(pod)]
    if why:
        console.print()
        console.print(Text("Why", style="bold"))
        for name, lines in why:
            console.print(f"{name}:", soft_wrap=True)
            for line in lines:
                console.print(f"  {line}", soft_wrap=True)
    claims = doc.get("nodeClaims") or ()
    if claims:
        console.print()
        table = Table(title="New NodeClaims", title_justify="left", show_edge=False)
        for column in ("nodeclaim", "nodepool", "pods", "requests", "instance types (cheapest first)"):
            table.add_column(column, overflow="fold")
        for c in claims:
            requests = ", ".join(f"{k}={v}" for k, v in (c.get("requests") or {}).items())
            status = f"\ncreate failed: {c['createError']}" if c.get("createError") else ""
            table.add_row(c.get("name", ""), c.get("nodePool", ""), "\n".join(c.get("pods") or ()), requests,
                          _types(c) + status)
        console.print(table)
    console.print()
    pools = Table(title="NodePools", title_justify="left", show_edge=False)
    for column in ("nodepool", "weight", "ready", "instance types"):
        pools.add_column(column, overflow="fold")
    for np in doc.get("nodePools") or ():
        ready = "yes" if np.get("ready") else "no: " + "; ".join(np.get("notReady") or ())
        pools.add_row(np.get("name", ""), str(np.get("weight", 0)), ready, str(np.get("instanceTypeCount", 0)))
    console.print(pools)
    events = doc.get("events") or ()
    if events:
        console.print()
        console.print(Text("Events", style="bold"))
        for e in events:
            console.print(f"{e['object']}: {e['type']} {e['reason']}: {e['message']}", soft_wrap=True)
    print_suggestions(doc, console)


def print_suggestions(doc: Mapping[str, Any], console: Console) -> None:
    """The verified fix suggestions (`suggestions`): each change, the pods it places and where,
    and the change as YAML; said plainly when none was verified."""
    if "suggestions" not in doc:
        return
    found = doc.get("suggestions") or ()
    console.print()
    if not found:
        console.print(Text("No single change was verified to make Karpenter place the pods it could not place.",
                           style="bold"))
        return
    shapes = any((s.get("verified") or {}).get("scope") == "shape" for s in found)
    console.print(Text("What would make Karpenter place them (each change verified by running Karpenter's pass "
                       "again" + (", with one pod of each shape it concerns" if shapes else "") + ")", style="bold"))
    for number, s in enumerate(found, start=1):
        console.print(Text(f"{number:>2}. {s.get('description', '')}"), soft_wrap=True)
        verified = s.get("verified") or {}
        claim_of = {pod: c for c in verified.get("nodeClaims") or () for pod in c.get("pods") or ()}
        places: dict[str, tuple[list[str], set[str]]] = {}
        for p in verified.get("pods") or ():
            claim = claim_of.get(p.get("pod"))
            if p.get("result") == "NewNodeClaim" and claim is not None:
                more = claim.get("instanceTypeCount", 0) - len(claim.get("instanceTypes") or ())
                where = (f"NodePool {claim.get('nodePool')}" + (" (for one such pod alone)" if claim.get("alone") else "")
                         + ": " + _types(claim) + (f" and {more} more" if more > 0 else ""))
            else:
                where = _where(p)
            pods, names = places.setdefault(where, ([], set()))
            pods.append(str(p.get("pod")))
            names.add(str(claim.get("name") or "") if claim is not None else str(p.get("node") or ""))
        for where, (pods, names) in places.items():
            shown = ", ".join(pods[:MAX_TYPES_SHOWN]) + (f" and {len(pods) - MAX_TYPES_SHOWN} more"
                                                        if len(pods) > MAX_TYPES_SHOWN else "")
            if where.startswith("NodePool "):
                where = (f"{len(names)} new NodeClaims from " if len(names) > 1 else "a new NodeClaim from ") + where
            console.print(Text(f"    {shown} -> {where}"), soft_wrap=True)
        for line in str(s.get("yaml") or "").splitlines():
            console.print(Text(f"      {line}", style="dim"), soft_wrap=True)

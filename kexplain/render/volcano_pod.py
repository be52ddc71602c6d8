"""The human view of a pod Volcano schedules (`kexplain POD` for `schedulerName: volcano`, the trace's key
`volcano`, made by `kexplain.app.volcano_pod`): who answers, the verdict, the PodGroup's phase and gang
condition, the queue, the predicates per node and the events, as `kexplain volcano` says them."""
from __future__ import annotations

from typing import Any, Mapping

from rich.text import Text

from kexplain.render.blocks import VERDICT_STYLE, Block
from kexplain.render.cluster_autoscaler import autoscaler_blocks
from kexplain.render.karpenter_section import karpenter_blocks
from kexplain.render.style import Look
from kexplain.render.volcano import fix_lines


def volcano_blocks(trace: Mapping[str, Any], node: str | None = None, look: Look | None = None) -> list[Block]:
    """The blocks of the default view of a Volcano pod's trace; with `node`, that node's predicates only;
    then the autoscalers' sections over its job's pending pods (`look`: theirs)."""
    vc, pod, result = trace["volcano"], trace["pod"], trace["result"]
    status = result["status"]
    head = Text.assemble(("Pod ", ""), (f"{pod['namespace']}/{pod['name']}", "bold"), (" (Volcano): ", ""),
                         (status, VERDICT_STYLE.get(status, "bold")))
    blocks = [Block(head, gap=False), Block(Text(vc["scheduler"], style="dim"), gap=False)]
    for note in (vc.get("podGroupMade"), vc.get("skipped") and f"its PodGroup is left out: {vc['skipped']}",
                 *(vc.get("notes") or ())):
        if note:
            blocks.append(Block(Text(f"note: {note}"), gap=False))
    if status == "Scheduled":
        one_of = result["selectedNodes"]
        where = f"one of {', '.join(one_of)} (Volcano picks among equals)" if len(one_of) > 1 else one_of[0]
        blocks.append(Block(Text(f"Bound to {where}.")))
    else:
        blocks.append(Block(Text(f"Not bound: {result['message']}"), whole=True))
    blocks += _pod_group(vc)
    if node is not None:
        return blocks + _node(vc, node)
    blocks += _nodes(vc)
    blocks += _events(vc)
    blocks += _fixes(vc)
    return blocks + _chain(trace, look or Look())


def _chain(trace: Mapping[str, Any], look: Look) -> list[Block]:
    """The Cluster Autoscaler's and Karpenter's sections, as for a pod of kube-scheduler's, after the note
    that they see the job's pods one by one."""
    chain = trace["volcano"].get("chain")
    if not chain:
        return []
    return [Block(Text(f"note: {chain}", style="dim"), whole=True),
            *autoscaler_blocks(trace, look), *karpenter_blocks(trace, look)]


def _fixes(vc: Mapping[str, Any]) -> list[Block]:
    """Its PodGroup's verified fixes, as `kexplain volcano` says them."""
    entry = vc.get("fixes")
    if not entry:
        return []
    lines = ["Fixes (each verified by running the session again with it):", *fix_lines(entry, vc["pod"]["name"])[1:]]
    return [Block(Text("\n".join(lines)), whole=True)]


def _node(vc: Mapping[str, Any], node: str) -> list[Block]:
    """`--node NAME`: the reasons the predicates gave on that node, or that they gave none."""
    found = next((n for n in vc.get("nodes") or () if n["node"] == node), None)
    if found is None:
        return [Block(Text(f"Node {node}: no predicate refused the pod there this session."))]
    return [Block(Text(f"Node {node}: {', '.join(found['reasons']) or '(no reason)'}"), whole=True)]


def _pod_group(vc: Mapping[str, Any]) -> list[Block]:
    pg = vc.get("podGroup")
    if pg is None:
        return []
    lines = [f"PodGroup {pg['name']} (queue {pg['queue']}, minMember {pg['minMember']}): "
             f"{pg['phaseBefore']} -> {pg['phase']}"]
    for c in pg.get("conditions") or ():
        lines.append(f"  {c['type']}={c['status']} {c['reason']}" + (f": {c['message']}" if c.get("message") else ""))
    queue = vc.get("queue")
    if queue is not None:
        alloc = ", ".join(f"{k} {v}" for k, v in queue["allocated"].items())
        lines.append(f"Queue {queue['name']} ({queue['state']}): allocated {alloc}")
        for w in queue.get("waiting") or ():
            if w["podGroup"] == pg["name"]:
                lines.append(f"  waits on {w['plugin']}, not on nodes: {w['reason']}")
    return [Block(Text("\n".join(lines)), whole=True)]


def _nodes(vc: Mapping[str, Any]) -> list[Block]:
    nodes = vc.get("nodes") or []
    if not nodes:
        return []
    lines = ["Predicates per node:"] + [f"  {n['node']}: {', '.join(n['reasons']) or '(no reason)'}" for n in nodes]
    return [Block(Text("\n".join(lines)), whole=True)]


def _events(vc: Mapping[str, Any]) -> list[Block]:
    events = vc.get("events") or []
    if not events:
        return []
    lines = ["Events:"]
    for e in events:
        count = f" (x{e['count']})" if e.get("count", 1) > 1 else ""
        lines.append(f"  {e['object']}: {e['type']} {e['reason']}: {e['message']}{count}")
    return [Block(Text("\n".join(lines)), whole=True)]

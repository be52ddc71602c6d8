"""The preemption dry run in words: the nominated node, each victim (priority, node, the
PodDisruptionBudget its eviction would violate), and for every other node why it was not
chosen. Reads the trace's `postFilter` and kexplain's `preemption` key (DefaultPreemption's
candidates)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from rich.console import Group
from rich.padding import Padding
from rich.text import Text

from kexplain.render.blocks import Block
from kexplain.render.style import GAP, Look, names_layout
from kexplain.render.views import EMPTY, REJECTED, SharedReads, shorten

NO_VICTIMS = "No preemption victims found for incoming pod"


@dataclass(frozen=True)
class Victim:
    pod: str
    priority: int | None
    node: str
    pdbs: tuple[str, ...] = ()


@dataclass
class PreemptionView:
    ran: bool                                  # DefaultPreemption's PostFilter ran
    message: str                               # its status message ("" on success)
    nominated: str
    victims: list[Victim] = field(default_factory=list)
    why_not: dict[str, list[str]] = field(default_factory=dict)   # reason -> nodes


def preemption_view(trace: Mapping[str, Any]) -> PreemptionView | None:
    """None when DefaultPreemption did not run (the pod fits, or preemption is off); read once for the
    traces that share a cycle (`SharedReads`)."""
    post = trace.get("postFilter")
    if not isinstance(post, dict) or post.get("plugin") != "DefaultPreemption":
        return None
    read = (post, trace.get("preemption") or EMPTY, trace.get("filter") or EMPTY)
    return _VIEWS.get(read, lambda: _preemption_view(*read))


_VIEWS = SharedReads()


def _preemption_view(post: Mapping[str, Any], details: Mapping[str, Any], first: Mapping[str, Any]) -> PreemptionView:
    nominated = post.get("nominatedNodeName") or ""
    view = PreemptionView(True, post.get("message") or "", nominated)
    candidates = {c["node"]: c for c in details.get("candidates") or ()}
    chosen = candidates.get(nominated) or {}
    info = {v["pod"]: v for v in chosen.get("victimDetails") or ()}
    for pod in post.get("victims") or ():
        v = info.get(pod, {})
        view.victims.append(Victim(pod, v.get("priority"), nominated, tuple(v.get("pdbs") or ())))
    if not details:
        return view
    potential = set(details.get("potentialNodes") or ())
    visited = set(details.get("visited") or ())
    statuses: Mapping[str, Any] = details.get("nodeStatuses") or {}
    nodes = list(dict.fromkeys([*first, *(details.get("potentialNodes") or ())]))

    def add(reason: str, node: str) -> None:
        view.why_not.setdefault(reason, []).append(node)

    for node in nodes:
        if node == nominated:
            continue
        if node in candidates:
            add(_lost(candidates[node], chosen), node)
        elif node in statuses:
            st = statuses[node]
            reasons = st.get("reasons") or [st.get("code", "")]
            if reasons == [NO_VICTIMS]:
                add("no pod of lower priority runs there", node)
            else:
                add("does not fit even with every lower-priority pod gone: " + "; ".join(reasons), node)
        elif node in potential and node not in visited:
            add("not examined: enough candidates were found first", node)
        elif node not in potential:
            st = first.get(node) or {}
            if st.get("code") in REJECTED:
                add(f"evicting pods cannot help ({st.get('code')}): {'; '.join(st.get('reasons') or [])}", node)
    return view


def _lost(candidate: Mapping[str, Any], chosen: Mapping[str, Any]) -> str:
    victims = candidate.get("victims") or []
    pdbs = sorted({b for v in candidate.get("victimDetails") or () for b in v.get("pdbs") or ()})
    breaks = f"; violates {', '.join(pdbs)}" if pdbs else ""
    what = f"a candidate too ({len(victims)} victim(s): {shorten(list(victims), 3)}{breaks})"
    if candidate.get("lostOn"):
        return f"{what}, but {chosen.get('node', 'the nominated node')} wins on {candidate['lostOn']}"
    return what + ", not the one selected"


def preemption_blocks(trace: Mapping[str, Any], look: Look) -> list[Block]:
    view = preemption_view(trace)
    if view is None:
        return []
    blocks = [Block(Text("Preemption (DefaultPreemption dry run: nothing is evicted)", style="bold"))]
    if view.nominated:
        blocks.append(Block(Text(f"Would nominate {view.nominated} and evict {len(view.victims)} pod(s); the pod "
                                 "is scheduled there once they are gone."), gap=False))
        rows = [(v.pod, "-" if v.priority is None else str(v.priority), v.node, ", ".join(v.pdbs) or "-")
                for v in view.victims]
        # Every victim is on the nominated node, named above: its column goes when it leaves no room.
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(("victim", "priority", "node"))]
        with_node = sum(widths) + 3 * GAP + len("PodDisruptionBudget") <= look.width
        table = look.table()
        table.add_column("victim", overflow="fold")
        table.add_column("priority", justify="right", no_wrap=True)
        if with_node:
            table.add_column("node", no_wrap=True)
        table.add_column("PodDisruptionBudget violated", overflow="fold")
        for pod, priority, node, pdbs in rows:
            table.add_row(pod, priority, *([node] if with_node else []), pdbs)
        blocks.append(Block(table, gap=False))
    else:
        blocks.append(Block(Text(f"Would not help: {view.message.removeprefix('preemption: ')}"), gap=False))
    hopeless = all(r.startswith("evicting pods cannot help") for r in view.why_not)
    if view.why_not and hopeless and not view.nominated:
        blocks.append(Block(Text("Every node was rejected for a reason evicting pods cannot fix "
                                 "(UnschedulableAndUnresolvable): see the rejected nodes above."), gap=False))
    elif view.why_not:
        limit = None if look.wide else 8
        rows = [(reason, shorten(nodes, limit)) for reason, nodes in view.why_not.items()]
        # The reasons take the room the node names leave, and wrap first: names are never broken.
        layout = names_layout(look.width, [("reason", "nodes"), *rows])
        table = look.table("Why not the other nodes")
        if layout.stacked:
            table.add_column("reason (nodes below)", overflow="fold", width=layout.text)
            for reason, nodes in rows:
                table.add_row(Group(Text(reason), Padding(Text(nodes), (0, 0, 0, 2))))
        else:
            table.add_column("reason", overflow="fold", width=layout.text)
            table.add_column("nodes", overflow="fold", width=layout.names)
            for reason, nodes in rows:
                table.add_row(reason, nodes)
        blocks.append(Block(table))
    return blocks

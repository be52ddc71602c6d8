"""combined: every pod change one node needs, at once, when no single pod change schedules the pod:
on nodes two or more pod-fixable plugins reject, the fewest operations winning."""
from __future__ import annotations

from typing import Callable

from kexplain.model.nodeinfo import NodeInfo
from kexplain.suggest import node_selection, ports, resources, tolerations
from kexplain.suggest.change import Candidate, Fix, Op
from kexplain.suggest.context import MAX_GROUPS, Context

ID = "combined"
COMBINED = "combined"
KINDS = (COMBINED,)

# The families that can remove one plugin's rejection of one node, by the plugin they answer.
NODE_FIXES: dict[str, Callable[[Context, str, NodeInfo], Fix | None]] = {
    family.PLUGIN: family.node_fix for family in (resources, tolerations, node_selection, ports)}


def candidates(ctx: Context) -> list[Candidate]:
    """For a node that only pod changes keep from the pod, but several of them: every change at
    once. Nodes with the fewest reasons, and the least lowering of requests, are tried first."""
    request = resources.fit_request(ctx.pod.spec)
    lacking: dict[int, list[str] | None] = {}       # per shared rejection (`blocked_nodes`)

    def rank(item: tuple[int, str]) -> tuple[int, float, int]:
        position, node = item
        info = ctx.info(node)
        kept = 1.0
        rejection = ctx.blocked[node]
        if id(rejection) not in lacking:
            lacking[id(rejection)] = resources.insufficient(ctx, node) if resources.PLUGIN in rejection else []
        names = lacking[id(rejection)]
        for name in names or ():
            if info is not None and request.get(name) > 0:
                kept = min(kept, resources.free(info, name) / request.get(name))
        return (len(ctx.blocked[node]), -kept, position)

    nodes = [(i, n) for i, n in enumerate(ctx.within(NODE_FIXES)) if len(ctx.blocked[n]) >= 2]
    best: tuple[int, list[Op], list[str]] | None = None
    for _, node in sorted(nodes, key=rank)[:MAX_GROUPS * 4]:
        info = ctx.info(node)
        if info is None:
            continue
        ops: list[Op] = []
        words: list[str] = []
        for plugin in sorted(ctx.blocked[node]):
            part = NODE_FIXES[plugin](ctx, node, info)
            if part is None:
                ops = []
                break
            ops += part[0]
            words += part[1]
        if ops and (best is None or len(ops) < best[0]):
            best = (len(ops), ops, words)
    if best is None:
        return []
    return [Candidate(COMBINED, ctx.pod_target, "; and ".join(best[2]), tuple(best[1]))]

"""free-resources: free room on the node that needs the fewest pods to go.

For each node NodeResourcesFit alone rejects (and could accept: not for a resource it does not
have at all), the pods whose requests cover what is missing (pod slots included) are chosen,
lowest priority first, never a DaemonSet's pod (it would come back), a static pod or one already
being deleted; the node needing the fewest, then the least important, pods wins.
"""
from __future__ import annotations

from kexplain.admission.validate_pod import MIRROR_ANNOTATION
from kexplain.framework.status import Code
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.resources import PODS
from kexplain.plugins.names import NODE_RESOURCES_FIT
from kexplain.plugins.node_resources_fit import ERR_REASON_TOO_MANY_PODS
from kexplain.suggest.change import Candidate, pod_ref
from kexplain.suggest.context import Context
from kexplain.suggest.resources import INSUFFICIENT, fit_request, format_amount, free

ID = "free-room"
FREE_RESOURCES = "free-resources"
KINDS = (FREE_RESOURCES,)


def evictable(pod: PodInfo) -> bool:
    """A bound pod a suggestion may ask to go: not static, not a DaemonSet's, not already going."""
    if MIRROR_ANNOTATION in (pod.metadata.get("annotations") or {}) or pod.deletion_timestamp:
        return False
    return not any(o.get("kind") == "DaemonSet" for o in pod.metadata.get("ownerReferences") or ())


def _pods_to_free(info: NodeInfo, needs: dict[str, int]) -> list[PodInfo] | None:
    """Few pods, lowest priority first, whose requests cover `needs` (name -> amount; `pods`: a count)."""
    def gives(p: PodInfo, name: str) -> int:
        return 1 if name == PODS else p.resource.resource.get(name)

    left = dict(needs)
    chosen: list[PodInfo] = []
    pool = [p for p in info.pods if evictable(p)]
    while any(v > 0 for v in left.values()):
        useful = [p for p in pool if p not in chosen and any(gives(p, n) > 0 for n, v in left.items() if v > 0)]
        if not useful:
            return None
        p = min(useful, key=lambda q: (q.priority, -sum(min(gives(q, n), v) / v for n, v in left.items() if v > 0)))
        chosen.append(p)
        for n in left:
            left[n] -= gives(p, n)
    for p in reversed(list(chosen)):       # drop any that the others make unnecessary
        rest = [q for q in chosen if q is not p]
        if all(sum(gives(q, n) for q in rest) >= v for n, v in needs.items()):
            chosen = rest
    return chosen


def candidates(ctx: Context) -> list[Candidate]:
    """Free room on the node that needs the fewest pods to go."""
    request = fit_request(ctx.pod.spec)
    best: tuple[tuple[int, int, int], str, dict[str, int], list[PodInfo]] | None = None
    for position, node in enumerate(ctx.only(NODE_RESOURCES_FIT)):
        if ctx.blocked[node][NODE_RESOURCES_FIT].get("code") == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            continue
        info = ctx.info(node)
        if info is None:
            continue
        needs: dict[str, int] = {}
        for r in ctx.reasons(node, NODE_RESOURCES_FIT):
            if r == ERR_REASON_TOO_MANY_PODS:
                needs[PODS] = len(info.pods) + 1 - info.allocatable.allowed_pod_number
            elif r.startswith(INSUFFICIENT):
                name = r[len(INSUFFICIENT):]
                needs[name] = request.get(name) - free(info, name)
        needs = {k: v for k, v in needs.items() if v > 0}
        if not needs:
            continue
        pods = _pods_to_free(info, needs)
        if not pods:
            continue
        rank = (len(pods), max(p.priority for p in pods), position)
        if best is None or rank < best[0]:
            best = (rank, node, needs, pods)
    if best is None:
        return []
    _, node, needs, pods = best
    amounts = " and ".join(f"{v} pod slot{'s' if v > 1 else ''}" if n == PODS else f"{format_amount(n, v)} {n}"
                           for n, v in needs.items())
    names = ", ".join(p.key for p in pods)
    ops = tuple({"op": "delete", "object": pod_ref(p)} for p in pods)
    return [Candidate(FREE_RESOURCES, f"node {node}",
                      f"free {amounts} on node {node}: {'pod' if len(pods) == 1 else 'pods'} {names} would have "
                      f"to go (moved elsewhere or deleted)", ops)]

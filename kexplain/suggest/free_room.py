"""free-resources: free room on the node that needs the fewest pods to go, lowest priority first,
never a DaemonSet's, static or terminating pod, on nodes NodeResourcesFit alone rejects."""
from __future__ import annotations

from kexplain.framework.status import Code
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.owners import is_mirror_pod, is_owned_by_daemonset
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
POOLS = "free_room.evictable"       # the snapshot's cache of each NodeInfo's evictable pods


def evictable(pod: PodInfo) -> bool:
    """A bound pod a suggestion may ask to go: not static, not a DaemonSet's, not already going."""
    return not (is_mirror_pod(pod) or pod.deletion_timestamp or is_owned_by_daemonset(pod))


def _evictable_pods(ctx: Context, info: NodeInfo) -> list[PodInfo]:
    """`info`'s pods that may be asked to go (`evictable`), worked out once per NodeInfo of the
    snapshot: each pending pod's suggestions ask it of the same nodes again."""
    known: dict[int, tuple[NodeInfo, list[PodInfo]]] = ctx.snapshot.cached(POOLS, dict)
    found = known.get(id(info))
    if found is None or found[0] is not info:
        found = known[id(info)] = (info, [p for p in info.pods if evictable(p)])
    return found[1]


def _pods_to_free(info: NodeInfo, needs: dict[str, int], beat: tuple[int, int] | None = None,
                  pool: list[PodInfo] | None = None) -> list[PodInfo] | None:
    """Few pods, lowest priority first, whose requests cover `needs` (greedy, then the unneeded dropped,
    last chosen first); None when no choice could rank before `beat` (count, highest priority)."""
    names = list(needs)
    pool = [p for p in info.pods if evictable(p)] if pool is None else pool
    gives = [tuple(1 if n == PODS else p.resource.resource.get(n) for n in names) for p in pool]
    if beat is not None and not _may_beat(pool, gives, [needs[n] for n in names], beat):
        return None
    left = [needs[n] for n in names]
    chosen: list[int] = []                 # indexes into `pool`, in the order chosen
    taken = [False] * len(pool)
    while True:
        active = [i for i, v in enumerate(left) if v > 0]
        if not active:
            break
        best, best_key = -1, None
        for j, amounts in enumerate(gives):
            if taken[j] or not any(amounts[i] > 0 for i in active):
                continue
            key = (pool[j].priority, -sum(min(amounts[i], left[i]) / left[i] for i in active))
            if best_key is None or key < best_key:
                best, best_key = j, key
        if best < 0:
            return None
        chosen.append(best)
        taken[best] = True
        left = [v - g for v, g in zip(left, gives[best])]
    totals = [sum(gives[j][i] for j in chosen) for i in range(len(names))]
    kept = list(chosen)
    for j in reversed(chosen):             # drop any that the others make unnecessary
        without = [t - g for t, g in zip(totals, gives[j])]
        if all(w >= needs[n] for w, n in zip(without, names)):
            kept.remove(j)
            totals = without
    return [pool[j] for j in kept]


def _may_beat(pool: list[PodInfo], gives: list[tuple[int, ...]], needs: list[int], beat: tuple[int, int]) -> bool:
    """Whether some choice of pods could cover `needs` and rank before `beat` (fewest pods by the
    largest amounts; highest priority at least the lowest of those that give; a tie: earlier node)."""
    fewest = 0
    for i, need in enumerate(needs):
        covered, count = 0, 0
        for amount in sorted((g[i] for g in gives), reverse=True):
            if covered >= need or amount <= 0:
                break
            covered += amount
            count += 1
        if covered < need:
            return False          # nothing covers it: the greedy choice finds no pods either
        fewest = max(fewest, count)
    if fewest != beat[0]:
        return fewest < beat[0]
    useful = [p.priority for p, g in zip(pool, gives) if any(a > 0 for a in g)]
    return min(useful) < beat[1]


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
        pods = _pods_to_free(info, needs, best[0][:2] if best is not None else None, _evictable_pods(ctx, info))
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

"""remove-conflicting-pods: name the bound pods whose required anti-affinity keeps the pod off a
node: the node the fewest such (evictable: `free_room.evictable`) pods hold."""
from __future__ import annotations

from kexplain.model.nodeinfo import Node
from kexplain.model.pod import PodInfo
from kexplain.plugins.inter_pod_affinity import ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH
from kexplain.plugins.names import INTER_POD_AFFINITY
from kexplain.suggest.change import Candidate, pod_ref
from kexplain.suggest.context import Context
from kexplain.suggest.free_room import evictable

ID = "conflicting-pods"
REMOVE_CONFLICTING_PODS = "remove-conflicting-pods"
KINDS = (REMOVE_CONFLICTING_PODS,)


def _conflicting_pods(ctx: Context, node: Node) -> list[PodInfo]:
    """Bound pods whose required anti-affinity refuses this pod in the node's topology domain."""
    pod, ns_labels = ctx.pod, ctx.snapshot.namespace_labels(ctx.pod.namespace)
    out = []
    for ni in ctx.snapshot.have_pods_with_required_anti_affinity:
        for other in ni.pods_with_required_anti_affinity:
            for term in other.required_anti_affinity_terms:
                key = term.topology_key
                if (key in node.labels and ni.node.labels.get(key) == node.labels[key]
                        and term.matches(pod, ns_labels)):
                    out.append(other)
                    break
    return out


def candidates(ctx: Context) -> list[Candidate]:
    """Free the node that the fewest existing pods' anti-affinity keeps from the pod."""
    best: tuple[tuple[int, int], str, list[PodInfo]] | None = None
    for position, node in enumerate(ctx.only(INTER_POD_AFFINITY)):
        info = ctx.info(node)
        if info is None or ctx.reasons(node, INTER_POD_AFFINITY) != [ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH]:
            continue
        pods = _conflicting_pods(ctx, info.node)
        if pods and all(evictable(p) for p in pods) and (best is None or (len(pods), position) < best[0]):
            best = ((len(pods), position), node, pods)
    if best is None:
        return []
    _, node, pods = best
    names = ", ".join(p.key for p in pods)
    ops = tuple({"op": "delete", "object": pod_ref(p)} for p in pods)
    return [Candidate(REMOVE_CONFLICTING_PODS, f"node {node}",
                      f"make room on node {node}: {'pod' if len(pods) == 1 else 'pods'} {names}, whose required "
                      f"anti-affinity excludes this pod there, would have to go (moved elsewhere or deleted)", ops)]

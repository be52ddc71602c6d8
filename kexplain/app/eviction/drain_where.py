"""Where a drain's evicted pods go: each evicted pod's controller's replacement, scheduled in queue
order over the cluster without the evicted pods and with the node cordoned (spec.unschedulable, as
kubectl drain sets it), each with its own scheduling answer (`replacements`, the mechanism the
eviction commands share)."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from kexplain.app.eviction.request import EvictRequest
from kexplain.app.eviction.autoscaled import autoscaled
from kexplain.app.eviction.replacements import answer, controllers_index, cordon, left, placements, replacement_of
from kexplain.explain.pending_pass import PassBuilder
from kexplain.model.pod import PodInfo
from kexplain.state.cluster import ClusterState


def where_they_go(state: ClusterState, node: str, evicted: Sequence[PodInfo], req: Optional[EvictRequest] = None
                  ) -> tuple[list[dict[str, Any]], Optional[dict[str, Any]]]:
    """The document's `replacements`: per evicted pod, its controller's replacement and where the
    scheduler puts it (or why it stays pending, or why there is none); and, with `req`, what the
    Cluster Autoscaler would add for those left pending (`autoscaled`; None: nothing said)."""
    index = controllers_index([*state.objects, *state.other_kinds])
    made: dict[str, int] = {}
    replacements = [replacement_of(p, index, made) for p in evicted]
    info = state.snapshot.get(node)
    nodes = {node: cordon(info.node.obj)} if info is not None and not info.node.unschedulable else {}
    after = left(state, nodes, evicted)
    gathered = PassBuilder()
    answers = placements(after, replacements, gathered) if any(r.pod for r in replacements) else {}
    added = autoscaled(req, after, nodes, evicted, gathered) if req is not None and answers else None
    out = []
    for i, r in enumerate(replacements):
        item: dict[str, Any] = {"evicted": f"{r.evicted.namespace}/{r.evicted.name}", "controller": r.controller}
        if r.pod is None:
            out.append({**item, "replacement": None, "why": r.why})
            continue
        item["replacement"] = str((r.pod.get("metadata") or {}).get("name") or "")
        item.update(answer(answers.get(i) or {}))
        found = (added or {}).get("replacements", {}).get(f"{r.evicted.namespace}/{item['replacement']}")
        out.append({**item, "autoscalers": found} if found else item)
    return out, added

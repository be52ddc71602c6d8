"""Where a drain's evicted pods go: each evicted pod's controller's replacement, scheduled in queue
order over the cluster without the evicted pods and with the node cordoned (spec.unschedulable, as
kubectl drain sets it), each with its own scheduling answer (`replacements`, the mechanism the
eviction commands share)."""
from __future__ import annotations

from typing import Any, Sequence

from kexplain.app.eviction.replacements import answer, controllers_index, cordoned, placements, replacement_of
from kexplain.model.pod import PodInfo
from kexplain.state.cluster import ClusterState


def where_they_go(state: ClusterState, node: str, evicted: Sequence[PodInfo]) -> list[dict[str, Any]]:
    """The document's `replacements`: per evicted pod, its controller's replacement and where the
    scheduler puts it (or why it stays pending, or why there is none)."""
    index = controllers_index([*state.objects, *state.other_kinds])
    made: dict[str, int] = {}
    replacements = [replacement_of(p, index, made) for p in evicted]
    answers = placements(cordoned(state, node, evicted), replacements) if any(r.pod for r in replacements) else {}
    out = []
    for i, r in enumerate(replacements):
        item: dict[str, Any] = {"evicted": f"{r.evicted.namespace}/{r.evicted.name}", "controller": r.controller}
        if r.pod is None:
            out.append({**item, "replacement": None, "why": r.why})
            continue
        item["replacement"] = str((r.pod.get("metadata") or {}).get("name") or "")
        out.append({**item, **answer(answers.get(i) or {})})
    return out

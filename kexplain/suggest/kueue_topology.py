"""Fixes for a pod set no topology domain holds (topology-aware scheduling): let Kueue admit as many
pods as the largest domain takes (partial admission: a Job's `kueue.x-k8s.io/job-min-parallelism`,
a Workload's minCount, with the count `cache/tas_report` verified), require the next level up whose
closest domain holds every pod, or prefer the level instead of requiring it. Each is only an idea
until Kueue's pass run again on the changed objects admits the Workload (`suggest/kueue.py`)."""
from __future__ import annotations

from typing import Any, Iterator, Mapping

from kexplain.kueue.apis.constants import JOB_MIN_PARALLELISM_ANNOTATION
from kexplain.kueue.apis.topology import PREFERRED_ANNOTATION, REQUIRED_ANNOTATION
from kexplain.suggest.change import Op, pointer
from kexplain.suggest.kueue_context import Idea, KueueContext, ref

ID = "kueue-topology"
KINDS = ("partial-admission", "topology-level-up", "topology-preferred")


def ideas(ctx: KueueContext) -> list[Idea]:
    if ctx.owner is None or ctx.entry is None or ctx.entry.assignment is None:
        return []
    out: list[Idea] = []
    for i, name, count, placement in _unplaced(ctx):
        request = (placement.closest and _request(ctx, i)) or None
        out.extend(_partial(ctx, i, name, count, placement.largest_fit))
        if request is not None and request[0] == "required":
            out.extend(_level_up(ctx, i, name, request[1], placement.closest))
            out.extend(_preferred(ctx, i, name, request[1]))
    return out


def _unplaced(ctx: KueueContext) -> Iterator[tuple[int, str, int, Any]]:
    """Each pod set whose topology placement failed: (index, name, pods, placement)."""
    assert ctx.entry is not None and ctx.entry.assignment is not None
    for i, psa in enumerate(ctx.entry.assignment.pod_sets):
        placement = psa.placement
        if placement is not None and placement.assignment is None and placement.reason:
            yield i, psa.name, psa.count, placement


def _request(ctx: KueueContext, i: int) -> tuple[str, str] | None:
    """The pod set's topology request as written: ("required" | "preferred", the level's label)."""
    if ctx.owner_kind == "Workload":
        pod_sets = (ctx.owner.get("spec") or {}).get("podSets") or ()       # type: ignore[union-attr]
        raw = (pod_sets[i].get("topologyRequest") or {}) if i < len(pod_sets) else {}
        for key in ("required", "preferred"):
            if raw.get(key):
                return key, str(raw[key])
        return None
    annotations = _template_annotations(ctx, i)
    if annotations.get(REQUIRED_ANNOTATION):
        return "required", str(annotations[REQUIRED_ANNOTATION])
    if annotations.get(PREFERRED_ANNOTATION):
        return "preferred", str(annotations[PREFERRED_ANNOTATION])
    return None


def _meta_path(ctx: KueueContext, i: int) -> tuple[Any, ...] | None:
    """Where the pod set's template keeps its metadata (beside its spec)."""
    path = ctx.template_path(i)
    return None if path is None else (*path[:-1], "metadata")


def _template_annotations(ctx: KueueContext, i: int) -> Mapping[str, Any]:
    path = _meta_path(ctx, i)
    node: Any = ctx.owner
    for tok in (*path, "annotations") if path is not None else ():
        if isinstance(node, list) and isinstance(tok, int) and tok < len(node):
            node = node[tok]
        elif isinstance(node, Mapping):
            node = node.get(tok)
        else:
            return {}
    return node if isinstance(node, Mapping) else {}


def _partial(ctx: KueueContext, i: int, name: str, count: int, largest: Any) -> list[Idea]:
    """As many pods as one domain of the level takes (tas_report's count, verified there)."""
    fits = largest.get("count") if isinstance(largest, Mapping) else None
    if not isinstance(fits, int) or not 1 <= fits < count:
        return []
    values = {"object": _described(ctx), "podSet": name, "count": count, "minCount": fits}
    if ctx.owner_kind == "Job":
        op: Op = {"op": "add", "object": ref(ctx.owner), "value": str(fits),      # type: ignore[arg-type]
                  "path": pointer("metadata", "annotations", JOB_MIN_PARALLELISM_ANNOTATION)}
    elif ctx.owner_kind == "Workload":
        op = {"op": "add", "object": ref(ctx.owner), "path": pointer("spec", "podSets", i, "minCount"),  # type: ignore[arg-type]
              "value": fits}
    else:
        return []
    return [Idea("partial-admission", values, (op,))]


def _level_up(ctx: KueueContext, i: int, name: str, level: str, closest: Any) -> list[Idea]:
    """The nearest level above the required one whose closest domain holds every pod."""
    for entry in list(closest)[1:]:
        domains = entry.get("domains") or ()
        if domains and domains[0].get("short") == 0:
            ops = _set_request(ctx, i, "required", level, entry["level"])
            return [] if ops is None else [Idea("topology-level-up", {
                "object": _described(ctx), "podSet": name, "from": level, "to": entry["level"]}, ops)]
    return []


def _preferred(ctx: KueueContext, i: int, name: str, level: str) -> list[Idea]:
    ops = _set_request(ctx, i, "preferred", level, level)
    return [] if ops is None else [Idea("topology-preferred", {"object": _described(ctx), "podSet": name,
                                                               "level": level}, ops)]


def _set_request(ctx: KueueContext, i: int, kind: str, old: str, new: str) -> tuple[Op, ...] | None:
    """The operations that make the pod set's request `kind` (required or preferred) of level `new`,
    its required one (`old`) gone."""
    obj = ref(ctx.owner)      # type: ignore[arg-type]
    if ctx.owner_kind == "Workload":
        base = ("spec", "podSets", i, "topologyRequest")
        if kind == "required":
            return ({"op": "replace", "object": obj, "path": pointer(*base, "required"), "value": new},)
        return ({"op": "remove", "object": obj, "path": pointer(*base, "required")},
                {"op": "add", "object": obj, "path": pointer(*base, "preferred"), "value": new})
    meta = _meta_path(ctx, i)
    if meta is None:
        return None
    required = pointer(*meta, "annotations", REQUIRED_ANNOTATION)
    if kind == "required":
        return ({"op": "replace", "object": obj, "path": required, "value": new},)
    return ({"op": "remove", "object": obj, "path": required},
            {"op": "add", "object": obj, "path": pointer(*meta, "annotations", PREFERRED_ANNOTATION), "value": new})


def _described(ctx: KueueContext) -> str:
    r = ref(ctx.owner)      # type: ignore[arg-type]
    return f"{r['kind']} {r.get('namespace', '')}/{r['name']}".replace(" /", " ")

"""The Resource comparisons only the capacity plugin asks (api/resource_info.go): on the dimensions a
request asks for, partly less-equal or partly greater, and the dimensions two resources share."""
from __future__ import annotations

from kexplain.volcano.api.resource import MIN_RESOURCE, PODS, Resource
from kexplain.volcano.api.task import TaskInfo


def _le(l: float, r: float) -> bool:
    return l < r or abs(l - r) < MIN_RESOURCE


def less_equal_partly(r: Resource, rr: Resource, req: Resource | None) -> tuple[bool, list[str]]:
    """LessEqualPartlyWithDimension: the dimensions `req` asks for on which `r` is within `rr`."""
    if req is None:
        return False, []
    out = []
    if req.milli_cpu > 0 and _le(r.milli_cpu, rr.milli_cpu):
        out.append("cpu")
    if req.memory > 0 and _le(r.memory, rr.memory):
        out.append("memory")
    for name, q in (req.scalars or {}).items():
        if name != PODS and q > 0 and _le(r.get(name), rr.get(name)):
            out.append(name)
    return bool(out), out


def less_equal_partly_zero_filtered(r: Resource, rr: Resource, req: Resource | None) -> tuple[bool, list[str]]:
    """LessEqualPartlyWithDimensionZeroFiltered: as less_equal_partly, leaving out the dimensions that
    both `r` and `rr` lack."""
    if req is None:
        return False, []
    kept = Resource()
    if req.milli_cpu > 0 and not (r.milli_cpu < MIN_RESOURCE and rr.milli_cpu < MIN_RESOURCE):
        kept.milli_cpu = req.milli_cpu
    if req.memory > 0 and not (r.memory < MIN_RESOURCE and rr.memory < MIN_RESOURCE):
        kept.memory = req.memory
    if req.scalars is not None:
        kept.scalars = {n: q for n, q in req.scalars.items()
                        if q > 0 and not (r.get(n) < MIN_RESOURCE and rr.get(n) < MIN_RESOURCE)}
    return less_equal_partly(r, rr, kept)


def greater_partly_relevant(r: Resource, rr: Resource | None, req: Resource | None) -> tuple[bool, list[str]]:
    """GreaterPartlyWithRelevantDimensions: the dimensions `req` asks for and `rr` sets on which `r`
    exceeds `rr`."""
    if req is None:
        return False, []
    rr = rr if rr is not None else Resource()
    out = []
    if req.milli_cpu > 0 and rr.milli_cpu >= MIN_RESOURCE and r.milli_cpu > rr.milli_cpu:
        out.append("cpu")
    if req.memory > 0 and rr.memory >= MIN_RESOURCE and r.memory > rr.memory:
        out.append("memory")
    for name, q in (req.scalars or {}).items():
        if name == PODS or q <= 0 or rr.scalars is None or name not in rr.scalars:
            continue
        if r.get(name) > rr.get(name):
            out.append(name)
    return bool(out), out


def intersection(a: Resource, b: Resource, ignore_pods: bool = False) -> list[str]:
    """Intersection (IntersectionWithIgnoredScalarResources with `ignore_pods`): the names both set."""
    theirs = set(b.resource_names())
    return [n for n in a.resource_names() if n in theirs and not (ignore_pods and n == PODS)]


def has_relevant_deserved(task: TaskInfo | None, deserved: Resource | None) -> bool:
    """hasRelevantDeserved: the task asks for a dimension the queue deserves."""
    if task is None or deserved is None:
        return False
    return bool(intersection(task.resreq, deserved))

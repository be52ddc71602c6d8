"""Volcano's Resource (api/resource_info.go): milli-CPU, memory bytes and scalar resources as floats,
mutated in place as Go's methods are. Scalars are milli-units except `pods` (whole pods)."""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Mapping

from kexplain.apimachinery import quantity

MIN_RESOURCE = 0.1            # minResource
PODS = "pods"
ZERO, INFINITY = "Zero", "Infinity"       # DimensionDefaultValue
# Count quotas (`requests.cpu`, `count/pods`...) NewResource skips; native names other than cpu,
# memory, pods and ephemeral-storage are not scalar resources (v1helper.IsScalarResourceName).


def _is_scalar_name(name: str) -> bool:
    """v1helper.IsScalarResourceName: extended, hugepages-, attachable-volumes- or prefixed names."""
    if name.startswith(("hugepages-", "attachable-volumes-")):
        return True
    return "/" in name and not name.startswith("requests.")


def _is_count_quota(name: str) -> bool:
    return name.startswith(("requests.", "limits.", "count/"))


class Resource:
    """api.Resource; `scalars` None is Go's nil map."""

    __slots__ = ("milli_cpu", "memory", "scalars", "max_task_num")

    def __init__(self, milli_cpu: float = 0.0, memory: float = 0.0, scalars: dict[str, float] | None = None,
                 max_task_num: int = 0) -> None:
        self.milli_cpu = milli_cpu
        self.memory = memory
        self.scalars = scalars
        self.max_task_num = max_task_num

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def of(cls, rl: Mapping[str, Any] | None) -> "Resource":
        """NewResource: a ResourceList read as the scheduler reads it."""
        r = cls()
        for name, raw in (rl or {}).items():
            q = quantity.parse_quantity(raw)
            if name == "cpu":
                r.milli_cpu += float(quantity.milli_value(q))
            elif name == "memory":
                r.memory += float(quantity.value(q))
            elif name == PODS:
                r.max_task_num += quantity.value(q)
                r.add_scalar(name, float(quantity.value(q)))
            elif name == "ephemeral-storage":
                r.add_scalar(name, float(quantity.milli_value(q)))
            elif not _is_count_quota(name) and _is_scalar_name(name):
                r.add_scalar(name, float(quantity.milli_value(q)))
        return r

    def clone(self) -> "Resource":
        return Resource(self.milli_cpu, self.memory, dict(self.scalars) if self.scalars is not None else None,
                        self.max_task_num)

    def add_scalar(self, name: str, value: float) -> None:
        if self.scalars is None:
            self.scalars = {}
        self.scalars[name] = self.scalars.get(name, 0.0) + value

    def get(self, name: str) -> float:
        if name == "cpu":
            return self.milli_cpu
        if name == "memory":
            return self.memory
        return (self.scalars or {}).get(name, 0.0)

    # -- arithmetic (in place, returning self as Go's do) -----------------------------------
    def add(self, rr: "Resource") -> "Resource":
        self.milli_cpu += rr.milli_cpu
        self.memory += rr.memory
        for name, q in (rr.scalars or {}).items():
            if self.scalars is None:
                self.scalars = {}
            self.scalars[name] = self.scalars.get(name, 0.0) + q
        return self

    def sub(self, rr: "Resource") -> "Resource":
        """sub (SubWithoutAssert and Sub alike: Go's assertion only logs)."""
        self.milli_cpu -= rr.milli_cpu
        self.memory -= rr.memory
        if self.scalars is None:
            return self
        for name, q in (rr.scalars or {}).items():
            self.scalars[name] = self.scalars.get(name, 0.0) - q
        return self

    def multi(self, ratio: float) -> "Resource":
        self.milli_cpu *= ratio
        self.memory *= ratio
        for name in list(self.scalars or {}):
            self.scalars[name] *= ratio       # type: ignore[index]
        return self

    def set_max(self, rr: "Resource") -> None:
        """SetMaxResource."""
        self.milli_cpu = max(self.milli_cpu, rr.milli_cpu)
        self.memory = max(self.memory, rr.memory)
        for name, q in (rr.scalars or {}).items():
            if self.scalars is None:
                self.scalars = dict(rr.scalars or {})
                return
            if name not in self.scalars or q > self.scalars[name]:
                self.scalars[name] = q

    def min_dimension(self, rr: "Resource", default: str) -> "Resource":
        """MinDimensionResource."""
        self.milli_cpu = min(self.milli_cpu, rr.milli_cpu)
        self.memory = min(self.memory, rr.memory)
        if self.scalars is None:
            return self
        if rr.scalars is None:
            if default != INFINITY:
                for name in self.scalars:
                    self.scalars[name] = 0.0
            return self
        for name, q in self.scalars.items():
            if name in rr.scalars:
                self.scalars[name] = min(q, rr.scalars[name])
            elif default != INFINITY:
                self.scalars[name] = 0.0
        return self

    def diff(self, rr: "Resource") -> tuple["Resource", "Resource"]:
        """Diff with Zero defaults: (increased, decreased)."""
        up, down = Resource(scalars={}), Resource(scalars={})
        if self.milli_cpu > rr.milli_cpu:
            up.milli_cpu = self.milli_cpu - rr.milli_cpu
        else:
            down.milli_cpu = rr.milli_cpu - self.milli_cpu
        if self.memory > rr.memory:
            up.memory = self.memory - rr.memory
        else:
            down.memory = rr.memory - self.memory
        names = list(self.scalars or {}) + [n for n in (rr.scalars or {}) if n not in (self.scalars or {})]
        for name in names:
            lq, rq = self.get(name), rr.get(name)
            if lq > rq:
                up.scalars[name] = lq - rq      # type: ignore[index]
            else:
                down.scalars[name] = rq - lq    # type: ignore[index]
        return up, down

    # -- comparisons -----------------------------------------------------------------------
    def is_empty(self) -> bool:
        if not (self.milli_cpu < MIN_RESOURCE and self.memory < MIN_RESOURCE):
            return False
        return all(q < MIN_RESOURCE for n, q in (self.scalars or {}).items() if n != PODS)

    def resource_names(self) -> list[str]:
        out = [n for n, v in (("cpu", self.milli_cpu), ("memory", self.memory)) if v >= MIN_RESOURCE]
        return out + [n for n, q in (self.scalars or {}).items() if q >= MIN_RESOURCE]

    def less_equal(self, rr: "Resource", default: str = ZERO) -> bool:
        return self.less_equal_names(rr, default, first_only=True)[0]

    def less_equal_names(self, rr: "Resource", default: str = ZERO, first_only: bool = False
                         ) -> tuple[bool, list[str]]:
        """LessEqualWithResourcesName (LessEqual when `first_only`: it stops at the first)."""
        out: list[str] = []
        if not _le(self.milli_cpu, rr.milli_cpu):
            out.append("cpu")
        if not _le(self.memory, rr.memory):
            out.append("memory")
        if first_only and out:
            return False, out
        if first_only and default == INFINITY and any(n not in (self.scalars or {}) for n in (rr.scalars or {})):
            return False, out
        for name, lq in (self.scalars or {}).items():
            present = rr.scalars is not None and name in rr.scalars
            if not present and default == INFINITY:
                continue
            if not _le(lq, rr.get(name)):
                out.append(name)
                if first_only:
                    return False, out
        return not out, out

    def less_equal_with_dimension(self, rr: "Resource | None", req: "Resource | None") -> tuple[bool, list[str]]:
        """LessEqualWithDimensionAndResourcesName: only the dimensions `req` asks for."""
        if rr is None:
            return False, self.resource_names()
        if req is None:
            return self.less_equal_names(rr)
        out: list[str] = []
        if req.milli_cpu > 0 and self.milli_cpu > rr.milli_cpu:
            out.append("cpu")
        if req.memory > 0 and self.memory > rr.memory:
            out.append("memory")
        if self.scalars is None:
            return not out, out
        for name, q in (req.scalars or {}).items():
            if name == PODS:
                continue
            if q > 0 and self.get(name) > rr.get(name):
                out.append(name)
        return not out, out

    def __repr__(self) -> str:
        return f"cpu {self.milli_cpu:.2f}, memory {self.memory:.2f}, scalars {self.scalars}"

    def as_list(self) -> dict[str, str]:
        """util.ConvertRes2ResList, each quantity as Quantity.String() prints it."""
        out = {"cpu": _milli(self.milli_cpu),
               "memory": str(quantity.new_quantity(_trunc(self.memory), quantity.BINARY_SI))}
        for name, q in (self.scalars or {}).items():
            out[name] = str(quantity.new_quantity(_trunc(q))) if name == PODS else _milli(q)
        return out


def _milli(value: float) -> str:
    return str(quantity.new_quantity(Fraction(_trunc(value), 1000)))


def _trunc(value: float) -> int:
    return int(value) if math.isfinite(value) else 0


def _le(l: float, r: float) -> bool:
    return l < r or abs(l - r) < MIN_RESOURCE


def exceeded_part(left: Resource, right: Resource | None) -> Resource:
    if right is None:
        return left
    return left.diff(right)[0]


def share(l: float, r: float) -> float:
    """helpers.Share."""
    if r == 0:
        return 0.0 if l == 0 else 1.0
    return l / r


def max_of(l: Resource, r: Resource) -> Resource:
    """helpers.Max."""
    res = Resource(max(l.milli_cpu, r.milli_cpu), max(l.memory, r.memory))
    if l.scalars is None and r.scalars is None:
        return res
    res.scalars = {n: q for n, q in (l.scalars or {}).items() if q >= 0}
    for n, q in (r.scalars or {}).items():
        if q >= 0:
            res.scalars[n] = max(q, res.scalars.get(n, 0.0))
    return res

"""Karpenter's pkg/utils/resources: resource lists summed, subtracted, compared and printed."""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Iterable, Mapping

from kexplain.apimachinery.fielderrors import go_json
from kexplain.apimachinery.quantity import (DECIMAL_EXPONENT, DECIMAL_SI, Quantity, QuantityError, add, canonical, parse,
                                           sub)
from kexplain.model.shapes import requests_key

ResourceList = dict[str, Quantity]

ZERO = Quantity(Fraction(0), "")        # Go's zero Quantity: a missing key
NODE = "nodes"                          # resources.Node: a NodePool limit on its node count
PODS = "pods"
CPU = "cpu"
MEMORY = "memory"
_POD_LEVEL = ("cpu", "memory")


def quantity_of(count: int, fmt: str = DECIMAL_EXPONENT) -> Quantity:
    """resource.NewQuantity(count, fmt)."""
    return Quantity(Fraction(count), fmt)


def merge(*lists: Mapping[str, Quantity]) -> ResourceList:
    """resources.Merge: the sum of the lists."""
    out: ResourceList = {}
    for rl in lists:
        for name, q in rl.items():
            out[name] = add(out.get(name, ZERO), q)
    return out


def subtract(lhs: Mapping[str, Quantity], rhs: Mapping[str, Quantity]) -> ResourceList:
    """resources.Subtract: lhs less rhs, over lhs's keys only."""
    return {name: sub(q, rhs[name]) if name in rhs else q for name, q in lhs.items()}


def fits(candidate: Mapping[str, Quantity], total: Mapping[str, Quantity]) -> bool:
    """resources.Fits: no total is negative and every candidate quantity is within its total."""
    for q in total.values():
        if q.value < 0:
            return False
    for name, q in candidate.items():
        have = total.get(name)
        if q.value > (have.value if have is not None else 0):
            return False
    return True


def is_zero(q: Quantity | None) -> bool:
    return q is None or not q.value


def to_string(rl: Mapping[str, Quantity]) -> str:
    """resources.String: `{}` when empty, else pretty.Concise (json.Marshal: keys sorted)."""
    if not rl:
        return "{}"
    return go_json({name: canonical(rl[name]) for name in sorted(rl)})


def to_json(rl: Mapping[str, Quantity]) -> dict[str, str]:
    """The list as the document writes it: names sorted, quantities as String() prints them."""
    return {name: canonical(rl[name]) for name in sorted(rl)}


def parse_list(raw: Any) -> ResourceList:
    """A `{name: quantity}` mapping of an admitted object; a value that does not decode is left
    out (admission refused such objects before)."""
    out: ResourceList = {}
    if not isinstance(raw, dict):
        return out
    for name, value in raw.items():
        if value is None:
            continue
        try:
            out[str(name)] = parse(value)
        except QuantityError:
            continue
    return out


def _add_list(into: ResourceList, rl: Mapping[str, Quantity]) -> None:
    """addResourceList of component-helpers: a new key is copied, else added."""
    for name, q in rl.items():
        into[name] = add(into[name], q) if name in into else q


def _max_list(into: ResourceList, rl: Mapping[str, Quantity]) -> None:
    for name, q in rl.items():
        have = into.get(name)
        if have is None or q.value > have.value:
            into[name] = q


_REQUESTS_CACHE: dict[bytes, ResourceList] = {}
_CACHE_MAX = 65536


def pod_requests(spec: Mapping[str, Any]) -> ResourceList:
    """resourcehelper.PodRequests(pod, PodResourcesOptions{}) with formats; pods of one template share
    the (not to be mutated) result."""
    key = requests_key(spec)
    if key is None:
        return _pod_requests(spec)
    got = _REQUESTS_CACHE.get(key)
    if got is None:
        got = _pod_requests(spec)
        if len(_REQUESTS_CACHE) < _CACHE_MAX:
            _REQUESTS_CACHE[key] = got
    return got


def _requests_of(container: Any) -> ResourceList:
    if not isinstance(container, dict):
        return {}
    return parse_list((container.get("resources") or {}).get("requests"))


def _pod_requests(spec: Mapping[str, Any]) -> ResourceList:
    reqs: ResourceList = {}
    for c in spec.get("containers") or ():
        _add_list(reqs, _requests_of(c))
    restartable: ResourceList = {}
    init_max: ResourceList = {}
    for c in spec.get("initContainers") or ():
        creqs = _requests_of(c)
        if isinstance(c, dict) and c.get("restartPolicy") == "Always":
            _add_list(reqs, creqs)
            _add_list(restartable, creqs)
            creqs = restartable
        else:
            tmp: ResourceList = {}
            _add_list(tmp, creqs)
            _add_list(tmp, restartable)
            creqs = tmp
        _max_list(init_max, creqs)
    _max_list(reqs, init_max)
    pod_level = parse_list(((spec.get("resources") or {}) if isinstance(spec.get("resources"), dict) else {})
                           .get("requests"))
    if any(name in _POD_LEVEL or name.startswith("hugepages-") for name in pod_level):
        for name, q in pod_level.items():
            if name in _POD_LEVEL or name.startswith("hugepages-"):
                reqs[name] = q
    _add_list(reqs, parse_list(spec.get("overhead")))
    return reqs


def requests_for_pods(specs: Iterable[Mapping[str, Any]]) -> ResourceList:
    """resources.RequestsForPods: the pods' requests merged, plus `pods` = their number."""
    lists = [pod_requests(s) for s in specs]
    out = merge(*lists)
    out[PODS] = quantity_of(len(lists))
    return out


_ONE_POD: dict[int, tuple[ResourceList, ResourceList]] = {}


def requests_for_pod(spec: Mapping[str, Any]) -> ResourceList:
    """requests_for_pods of one pod, shared by the pods of a shape: not to be mutated."""
    reqs = pod_requests(spec)
    got = _ONE_POD.get(id(reqs))
    if got is None or got[0] is not reqs:
        got = (reqs, {**reqs, PODS: quantity_of(1)})
        if len(_ONE_POD) < _CACHE_MAX:
            _ONE_POD[id(reqs)] = got
    return got[1]


# -- integer views, for the comparisons a pass makes millions of ----------------------------------
Nanos = dict[str, int]
_NANO = 10 ** 9
_NANOS: dict[int, tuple[Mapping[str, Quantity], Nanos]] = {}


def to_nanos(rl: Mapping[str, Quantity]) -> Nanos:
    """The list's values in billionths (exact: quantities are rounded to nano precision)."""
    return {name: _nanos(q.value.numerator * _NANO, q.value.denominator) for name, q in rl.items()}


def _nanos(n: int, d: int) -> int:
    """`int(Fraction(n, d))` (toward zero) in integers: no Fraction made."""
    return n // d if n >= 0 else -(-n // d)


def nanos_of(rl: Mapping[str, Quantity]) -> Nanos:
    """`to_nanos` remembered for a list that is shared and never changed (a pod shape's
    requests, an instance type's allocatable): kept alive beside its value, so its id is its."""
    got = _NANOS.get(id(rl))
    if got is None or got[0] is not rl:
        got = (rl, to_nanos(rl))
        if len(_NANOS) < _CACHE_MAX:
            _NANOS[id(rl)] = got
    return got[1]


def fits_nanos(candidate: Mapping[str, int], total: Mapping[str, int]) -> bool:
    """`fits` over integer views."""
    for v in total.values():
        if v < 0:
            return False
    for name, v in candidate.items():
        if v > total.get(name, 0):
            return False
    return True


def from_nanos(nanos: Mapping[str, int], like: Mapping[str, Quantity] | None = None) -> ResourceList:
    """An integer view back as a resource list, each value in the format of its name's quantity in
    `like`, else DecimalSI."""
    like = like or {}
    return {name: Quantity(Fraction(v, _NANO), like[name].fmt if name in like else DECIMAL_SI)
            for name, v in nanos.items()}

"""List functions: the Kubernetes lists library (apiserver/pkg/cel/library/lists.go:
isSorted, sum, min, max, indexOf, lastIndexOf) and cel-go's lists extension at version 3
(ext/lists.go: slice, flatten, sort, sortBy, lists.range, reverse, distinct), with their
runtime cost trackers."""
from __future__ import annotations

import functools
from typing import Any

from kexplain.cel.errors import CelEvalError
from kexplain.cel.functions import fn, mov, ov
from kexplain.cel.values import UInt, compare, equals
from kexplain.cel.library.stdlib import add


def _cmp(a: Any, b: Any) -> int:
    try:
        return compare(a, b)
    except CelEvalError:
        raise CelEvalError("no such overload") from None


def is_sorted(items: Any) -> bool:
    for prev, nxt in zip(items, items[1:]):
        if _cmp(prev, nxt) == 1:
            return False
    return True


def _sum(zero: Any):
    def impl(items: Any) -> Any:
        acc = zero
        for x in items:
            try:
                acc = add(acc, x)
            except CelEvalError as err:
                if str(err).startswith("no such overload"):
                    raise CelEvalError("no such overload") from None
                raise
        return acc
    return impl


def _extreme(name: str, prefer: int):
    def impl(items: Any) -> Any:
        if not items:
            raise CelEvalError(f"{name} called on empty list")
        result = items[0]
        for x in items[1:]:
            if _cmp(result, x) == prefer:
                result = x
        return result
    return impl


def _eq(a: Any, b: Any) -> bool:
    try:
        return equals(a, b)
    except CelEvalError:
        return False


def index_of(items: Any, item: Any) -> int:
    for i, x in enumerate(items):
        if _eq(x, item):
            return i
    return -1


def last_index_of(items: Any, item: Any) -> int:
    for i in range(len(items) - 1, -1, -1):
        if _eq(items[i], item):
            return i
    return -1


def slice_(items: Any, start: int, end: int) -> tuple[Any, ...]:
    if start < 0 or end < 0:
        raise CelEvalError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise CelEvalError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if len(items) < end:
        raise CelEvalError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return tuple(items[start:end])


def flatten(items: Any, depth: int = 1) -> tuple[Any, ...]:
    if depth < 0:
        raise CelEvalError("level must be non-negative")
    out: list[Any] = []
    for x in items:
        if type(x) is tuple and depth > 0:
            out.extend(flatten(x, depth - 1))
        else:
            out.append(x)
    return tuple(out)


def sort_by_keys(items: Any, keys: Any) -> tuple[Any, ...]:
    if len(items) != len(keys):
        raise CelEvalError("@sortByAssociatedKeys() expected a list of the same size as the associated "
                           f"keys list, but got {len(items)} and {len(keys)} elements respectively")
    if not items:
        return tuple(items)
    first = type(keys[0])
    if first not in (int, UInt, float, bool, str, bytes):
        raise CelEvalError("list elements must be comparable")
    if any(type(k) is not first for k in keys):
        raise CelEvalError("list elements must have the same type")
    order = sorted(range(len(items)), key=functools.cmp_to_key(lambda i, j: _cmp(keys[i], keys[j])))
    return tuple(items[i] for i in order)


def sort(items: Any) -> tuple[Any, ...]:
    return sort_by_keys(items, items)


def lists_range(n: int) -> tuple[int, ...]:
    return tuple(range(n)) if n > 0 else ()


def reverse(items: Any) -> tuple[Any, ...]:
    return tuple(reversed(items))


def distinct(items: Any) -> tuple[Any, ...]:
    out: list[Any] = []
    for x in items:
        if not any(_eq(x, y) for y in out):
            out.append(x)
    return tuple(out)


def _traversal_cost(v: Any) -> int:
    """The Kubernetes estimator's `traversalCost`: strings by length, containers by content."""
    t = type(v)
    if t is str or t is bytes:
        return int(len(v) * 0.1)
    if t is tuple or t is list:
        return sum(_traversal_cost(x) for x in v)
    if isinstance(v, dict):
        return sum(_traversal_cost(k) + _traversal_cost(x) for k, x in v.items())
    return 1


def _trav(args: tuple[Any, ...]) -> int:
    return _traversal_cost(args[0])


def _alloc(factor: float, size: int) -> int:
    """cel-go `trackAllocatingListCall`: size * factor + call + list creation."""
    return int(size * factor) + 1 + 10


def _out_size(args: tuple[Any, ...], result: Any) -> int:
    return _alloc(1, len(result))


def _range_cost(args: tuple[Any, ...]) -> int:
    return _alloc(1, max(args[0], 0))


def _flatten_cost(args: tuple[Any, ...]) -> int:
    depth = args[1] if len(args) == 2 else 1
    return _alloc(float(depth), len(args[0]))


def _self_compare(items: Any) -> int:
    factor = 2.0
    if items and type(items[0]) in (str, bytes):
        factor += 0.1
    return _alloc(factor, len(items) * len(items))


def _sort_cost(args: tuple[Any, ...]) -> int:
    return _self_compare(args[0])


def _sort_by_cost(args: tuple[Any, ...]) -> int:
    return _self_compare(args[1])


_COMPARABLE = ("int", "uint", "double", "bool", "string", "bytes")
_SUMMABLE = (("int", 0), ("uint", UInt(0)), ("double", 0.0))

FUNCTIONS = [
    fn("isSorted", *(mov(f"list_{t}_is_sorted_bool", f"list({t})", "bool", is_sorted, precost=_trav)
                     for t in _COMPARABLE)),
    fn("sum", *(mov(f"list_{t}_sum_{t}", f"list({t})", t, _sum(z), precost=_trav) for t, z in _SUMMABLE)),
    fn("max", *(mov(f"list_{t}_max_{t}", f"list({t})", t, _extreme("max", -1), precost=_trav)
                for t in _COMPARABLE)),
    fn("min", *(mov(f"list_{t}_min_{t}", f"list({t})", t, _extreme("min", 1), precost=_trav)
                for t in _COMPARABLE)),
    fn("indexOf", mov("list_a_index_of_int", "list(A), A", "int", index_of, precost=_trav)),
    fn("lastIndexOf", mov("list_a_last_index_of_int", "list(A), A", "int", last_index_of, precost=_trav)),
    fn("slice", mov("list_slice", "list(T), int, int", "list(T)", slice_, cost=_out_size)),
    fn("flatten",
       mov("list_flatten", "list(list(T))", "list(T)", flatten, precost=_flatten_cost),
       mov("list_flatten_int", "list(dyn), int", "list(dyn)", flatten, precost=_flatten_cost)),
    fn("sort", *(mov(f"list_{t}_sort", f"list({t})", f"list({t})", sort, precost=_sort_cost)
                 for t in _COMPARABLE)),
    fn("@sortByAssociatedKeys", *(mov(f"list_{t}_sortByAssociatedKeys", f"list(T), list({t})", "list(T)",
                                      sort_by_keys, precost=_sort_by_cost) for t in _COMPARABLE)),
    fn("lists.range", ov("lists_range", "int", "list(int)", lists_range, precost=_range_cost)),
    fn("reverse", mov("list_reverse", "list(T)", "list(T)", reverse, cost=_out_size)),
    fn("distinct", mov("list_distinct", "list(T)", "list(T)", distinct, precost=_sort_cost)),
]


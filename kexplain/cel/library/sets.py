"""cel-go's sets extension (ext/sets.go): `sets.contains`, `sets.equivalent`,
`sets.intersects` over lists, with CEL equality (numbers equal across types)."""
from __future__ import annotations

from typing import Any

from kexplain.cel.functions import fn, ov
from kexplain.cel.values import list_has


def contains(items: Any, sub: Any) -> bool:
    return all(list_has(items, x) for x in sub)


def equivalent(a: Any, b: Any) -> bool:
    return contains(a, b) and contains(b, a)


def intersects(a: Any, b: Any) -> bool:
    return any(list_has(b, x) for x in a)


def _cost(factor: float):
    def cost(args: tuple[Any, ...]) -> int:
        return 1 + int(len(args[0]) * len(args[1]) * factor)
    return cost


FUNCTIONS = [
    fn("sets.contains", ov("list_sets_contains_list", "list(T), list(T)", "bool", contains, precost=_cost(1))),
    fn("sets.equivalent", ov("list_sets_equivalent_list", "list(T), list(T)", "bool", equivalent,
                             precost=_cost(2))),
    fn("sets.intersects", ov("list_sets_intersects_list", "list(T), list(T)", "bool", intersects,
                             precost=_cost(1))),
]

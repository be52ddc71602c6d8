"""What is made of an object read, remembered by the object's identity (bounded)."""
from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

T = TypeVar("T")
MAX_OBJECTS = 65536         # per function; past it the memo starts over


def by_identity(fn: Callable[[Any, Any], T]) -> Callable[[Any, Any], T]:
    """`fn(obj, source)` made once per object and equal source; what raises is not remembered."""
    made: dict[int, tuple[Any, Any, T]] = {}

    @functools.wraps(fn)
    def once(obj: Any, source: Any) -> T:
        hit = made.get(id(obj))
        if hit is not None and hit[0] is obj and hit[1] == source:
            return hit[2]
        out = fn(obj, source)
        if len(made) >= MAX_OBJECTS:
            made.clear()
        made[id(obj)] = (obj, source, out)
        return out
    return once

"""A value made once per object while the object lives: the loops ask the same pods, specs and
configurations again in each search, and an id alone could be reused by a new object."""
from __future__ import annotations

from typing import Any, Callable, TypeVar

V = TypeVar("V")
A = TypeVar("A")


def remembered(cache: dict[int, tuple[Any, V]], key: object, kept: int, make: Callable[[A], V], arg: A) -> V:
    """`make(arg)`, kept in `cache` by `key`'s identity (the key held, so its id is not reused); the
    cache is cleared when it holds `kept` entries, so it stays bounded."""
    found = cache.get(id(key))
    if found is None or found[0] is not key:
        if len(cache) >= kept:
            cache.clear()
        found = cache[id(key)] = (key, make(arg))
    return found[1]

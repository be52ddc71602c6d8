"""Values remembered by the marshal bytes of an equal object, cheaply and by value.

marshal's version 4 writes ASCII strings as they are (a third faster than version 2, which
encodes each one) but also marks objects the dump refers to more than once, which depends on
what else shares them: equal values can give other version-4 bytes. So bytes not met before
are written again without back-references (version 2: the value alone), once per new version-4
key, and an equal value met before is found that way.
"""
from __future__ import annotations

import marshal
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class MarshalMemo(Generic[T]):
    """`remember(obj, value)`: the value first remembered for an object equal to `obj` (equal
    values of equal types in equal key order), else `value` (None: `obj`'s version-4 bytes, a
    key naming its value), now remembered. Raises ValueError where marshal cannot write `obj`."""

    __slots__ = ("_fast", "_by_value")

    def __init__(self) -> None:
        self._fast: dict[bytes, T] = {}
        self._by_value: dict[bytes, T] = {}

    def __len__(self) -> int:
        """How many distinct values are remembered."""
        return len(self._by_value)

    def remember(self, obj: Any, value: T | None = None) -> T:
        key = marshal.dumps(obj, 4)
        found = self._fast.get(key)
        if found is None:
            first: Any = key if value is None else value
            found = self._fast[key] = self._by_value.setdefault(marshal.dumps(obj, 2), first)
        return found

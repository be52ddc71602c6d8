"""Facts the explanations of one cycle share, made on first use (kexplain's own): PreFilter writes
an empty `ExplainMemo` into the cycle state, every clone shares it and the first node explained
fills it; it depends only on the snapshot and the pod, which no clone changes."""
from __future__ import annotations

from typing import Callable, Generic, TypeVar

T = TypeVar("T")


class ExplainMemo(Generic[T]):
    """One value per cycle, made by the first `get`; shared by the clones of the cycle state."""

    __slots__ = ("_value", "_made")

    def __init__(self) -> None:
        self._value: T | None = None
        self._made = False

    def clone(self) -> "ExplainMemo[T]":
        return self

    def get(self, make: Callable[[], T]) -> T:
        if not self._made:
            self._value, self._made = make(), True
        return self._value      # type: ignore[return-value]

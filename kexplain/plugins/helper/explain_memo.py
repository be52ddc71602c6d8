"""Facts the explanations of one cycle share, made on first use (kexplain's own).

The explanation of a node (`Explainer.explain`) may say what the cluster's pods hold for
that node's topology domains; the framework asks it of every node a page records, each time
on a fresh clone of the cycle state. What is the same for every node is gathered once:
PreFilter writes an empty `ExplainMemo` into the cycle state (nothing is computed unless a
node is explained), every clone of the state shares it, and the first node explained fills
it. Its value depends only on the snapshot and the incoming pod of that cycle, which no
clone (preemption's what-ifs) changes.
"""
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

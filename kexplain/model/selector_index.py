"""Items with label selectors, found by the labels they may select.

Many selectors over many pods (a cluster's PodDisruptionBudgets, a scheduling pass's topology groups)
would ask every selector of every pod. A selector with an `In` requirement selects only pods holding
one of its values, so each item is filed under the (key, value) pairs of its first `In` requirement;
a pod's labels then name the items worth asking, plus those no pair narrows (no `In` requirement).
The index only narrows: whether a selector selects the pod is still its own `matches`.
"""
from __future__ import annotations

from typing import Generic, Mapping, TypeVar

from kexplain.apimachinery.selectors import IN
from kexplain.model.labels import LabelSelector

T = TypeVar("T")


class SelectorIndex(Generic[T]):
    """Items filed by their selectors' first `In` requirement, given back in the order they were added.
    A null selector selects nothing: its item is never given back."""

    __slots__ = ("_by_pair", "_loose", "_count")

    def __init__(self) -> None:
        self._by_pair: dict[tuple[str, str], list[tuple[int, T]]] = {}
        self._loose: list[tuple[int, T]] = []       # the items whose selectors have no `In` requirement
        self._count = 0

    def __bool__(self) -> bool:
        return bool(self._by_pair or self._loose)

    def add(self, item: T, selector: LabelSelector) -> None:
        place = self._count
        self._count += 1
        if selector.nothing:
            return
        first = next((r for r in selector.requirements if r.op == IN and r.values), None)
        if first is None:
            self._loose.append((place, item))
            return
        for value in first.values:
            self._by_pair.setdefault((first.key, value), []).append((place, item))

    def candidates(self, labels: Mapping[str, str]) -> list[T]:
        """The items whose selectors may select a pod with `labels`, each once (a pod holds one value
        of a key), in the order added."""
        found = self._loose
        merged = False
        by_pair = self._by_pair
        if by_pair:
            for pair in labels.items():
                filed = by_pair.get(pair)
                if filed:
                    if found:
                        found, merged = [*found, *filed], True
                    else:
                        found = filed
        if merged:
            found = sorted(found, key=_place)
        return [item for _, item in found]


def _place(entry: tuple[int, object]) -> int:
    return entry[0]

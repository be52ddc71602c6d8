"""A claim's constraints while the allocator adds devices to it and takes them back.

`matchAttribute`: the first device fixes the value, every later one must carry the same typed
value. `distinctAttribute` (consumable capacity): every device must differ from the others; as
the allocator keeps it, one value per request name (a request's second device replaces its
first's, and taking one back forgets the request's value), which is reproduced.
"""
from __future__ import annotations

from typing import Any, Hashable, Sequence

from kexplain.model.dra import Attribute, Device


class _Constraint:
    def __init__(self, attribute: str, requests: Sequence[str]) -> None:
        self.attribute = attribute
        self.requests = frozenset(requests)
        self.count = 0

    def applies(self, base: str, sub: str) -> bool:
        if not self.requests:
            return True
        return base in self.requests or (bool(sub) and f"{base}/{sub}" in self.requests)

    def add(self, base: str, sub: str, device: Device) -> bool:
        """Whether the device may join: always when the constraint does not name its request,
        never when it lacks the attribute, else as the constraint's own rule says."""
        if not self.applies(base, sub):
            return True
        value = device.attribute(self.attribute)
        return value is not None and self._admit(base, value)

    def _admit(self, base: str, value: Attribute) -> bool:
        raise NotImplementedError


class MatchAttribute(_Constraint):
    """matchAttributeConstraint."""

    def __init__(self, attribute: str, requests: Sequence[str]) -> None:
        super().__init__(attribute, requests)
        self.value: Attribute | None = None

    def _admit(self, base: str, value: Attribute) -> bool:
        if self.count == 0:
            self.value, self.count = value, 1
            return True
        if value[0] is None or value != self.value:
            return False
        self.count += 1
        return True

    def remove(self, base: str, sub: str) -> None:
        if self.applies(base, sub):
            self.count -= 1

    def state(self) -> Hashable:
        return (self.value, self.count) if self.count else None


class DistinctAttribute(_Constraint):
    """distinctAttributeConstraint, its values kept per request name as Go keeps them."""

    def __init__(self, attribute: str, requests: Sequence[str]) -> None:
        super().__init__(attribute, requests)
        self.values: dict[str, Attribute] = {}

    def _admit(self, base: str, value: Attribute) -> bool:
        if self.count and not self._distinct(value):
            return False
        self.values[base] = value
        self.count += 1
        return True

    def _distinct(self, value: Attribute) -> bool:
        for kind, held in self.values.values():
            if value[0] is None:
                return False          # no value of a known type
            if kind == value[0] and held == value[1]:
                return False
        return True

    def remove(self, base: str, sub: str) -> None:
        if self.applies(base, sub):
            self.values.pop(base, None)
            self.count -= 1

    def state(self) -> Hashable:
        return (tuple(sorted((k, _hashable(v)) for k, v in self.values.items())), self.count)


def _hashable(value: Attribute) -> Any:
    kind, v = value
    return kind, v if isinstance(v, Hashable) else repr(v)

"""CycleState: per-pod scratch space that plugins fill in PreFilter/PreScore and read per node."""
from __future__ import annotations

from typing import Any


class CycleState:
    """kube-scheduler's CycleState: values with a `clone()` are copied when the state is cloned."""

    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self.skip_filter_plugins: frozenset[str] = frozenset()
        self.skip_score_plugins: frozenset[str] = frozenset()

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def read(self, key: str) -> Any:
        """The stored value; KeyError when the plugin's PreFilter/PreScore did not store it."""
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def clone(self) -> "CycleState":
        c = CycleState()
        c._data = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in self._data.items()}
        c.skip_filter_plugins = self.skip_filter_plugins
        c.skip_score_plugins = self.skip_score_plugins
        return c

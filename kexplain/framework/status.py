"""Status: a framework code plus the user-facing reason strings, as kube-scheduler's `fwk.Status`."""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum


class Code(str, Enum):
    SUCCESS = "Success"
    ERROR = "Error"
    UNSCHEDULABLE = "Unschedulable"
    UNSCHEDULABLE_AND_UNRESOLVABLE = "UnschedulableAndUnresolvable"
    WAIT = "Wait"
    SKIP = "Skip"
    PENDING = "Pending"

    def __str__(self) -> str:
        return self.value


# Plain module globals: `Code.X` and `.value` go through Enum's slow descriptors, and
# statuses are read once per plugin per node.
_SUCCESS, _SKIP = Code.SUCCESS, Code.SKIP
_REJECTED = frozenset({Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING})


@dataclass(frozen=True)
class Status:
    code: Code = Code.SUCCESS
    reasons: tuple[str, ...] = ()
    plugin: str = ""

    @classmethod
    def new(cls, code: Code, *reasons: str) -> "Status":
        return cls(code, tuple(reasons))

    @classmethod
    def error(cls, message: str) -> "Status":
        return cls(Code.ERROR, (message,))

    def with_plugin(self, plugin: str) -> "Status":
        return replace(self, plugin=plugin)

    def message(self) -> str:
        return ", ".join(self.reasons)

    @property
    def is_success(self) -> bool:
        return self.code is _SUCCESS

    @property
    def is_skip(self) -> bool:
        return self.code is _SKIP

    @property
    def is_rejected(self) -> bool:
        return self.code in _REJECTED

    def to_json(self, with_plugin: bool = False) -> dict:
        out: dict = {}
        if with_plugin and self.plugin:
            out["plugin"] = self.plugin
        out["code"] = self.code._value_
        if self.reasons:
            out["reasons"] = list(self.reasons)
        return out

    def json_view(self, with_plugin: bool = False) -> dict:
        """to_json(), built once per status and shared (read only): a trace holds one status for many nodes."""
        key = "_json_plugin" if with_plugin else "_json"
        try:
            return self.__dict__[key]
        except KeyError:
            out = self.to_json(with_plugin)
            object.__setattr__(self, key, out)
            return out


SUCCESS = Status()
SKIP = Status(Code.SKIP)
SUCCESS_JSON = SUCCESS.json_view()
SKIP_JSON = SKIP.json_view()


def unschedulable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE, tuple(reasons))


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, tuple(reasons))

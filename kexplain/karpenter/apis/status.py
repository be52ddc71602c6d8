"""Status conditions as Karpenter keeps them (github.com/awslabs/operatorpkg/status): a root
condition (`Ready`) that is True only when every dependent condition is True."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

from kexplain.apimachinery.gosort import go_sort

CONDITION_READY = "Ready"
TRUE, FALSE, UNKNOWN = "True", "False", "Unknown"


@dataclass(frozen=True)
class Condition:
    """status.Condition; `time` orders transitions (an input's lastTransitionTime is kept as
    `last_transition_time`)."""

    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_transition_time: str = ""
    observed_generation: int = 0
    time: int = 0

    def is_true(self) -> bool:
        return self.status == TRUE

    def is_false(self) -> bool:
        return self.status == FALSE

    def is_unknown(self) -> bool:
        return self.status == UNKNOWN

    def __str__(self) -> str:
        """`TYPE=STATUS (REASON: MESSAGE)`."""
        return f"{self.type}={self.status} ({self.reason}: {self.message})"


def parse_conditions(raw: Any) -> tuple[Condition, ...]:
    """Conditions as an input's status writes them (already checked for types), in its order."""
    out = []
    for i, c in enumerate(raw or ()):
        if not isinstance(c, dict):
            continue
        out.append(Condition(str(c.get("type") or ""), str(c.get("status") or ""), str(c.get("reason") or ""),
                             str(c.get("message") or ""), str(c.get("lastTransitionTime") or ""),
                             int(c.get("observedGeneration") or 0), time=i))
    return tuple(out)


def get(conditions: Iterable[Condition], type_: str) -> Condition | None:
    return next((c for c in conditions if c.type == type_), None)


class ConditionSet:
    """A root condition and its dependents over a list of conditions (mutable, like the object's
    status it stands for). `generation` is the object's metadata.generation."""

    def __init__(self, dependents: Sequence[str], conditions: Iterable[Condition] = (), *,
                 root: str = CONDITION_READY, generation: int = 0) -> None:
        self.root = root
        self.dependents = [d for d in dict.fromkeys(dependents) if d != root]
        self.conditions = list(conditions)
        self.generation = generation
        self.clock = max((c.time for c in self.conditions), default=0)
        for t in (root, *self.dependents):          # For(): missing conditions start Unknown
            if self.get(t) is None:
                self.set_unknown(t)

    def get(self, type_: str) -> Condition | None:
        return get(self.conditions, type_)

    def is_true(self, *types: str) -> bool:
        return all((c := self.get(t)) is not None and c.is_true() for t in types)

    def _now(self) -> int:
        self.clock += 1
        return self.clock

    def set(self, condition: Condition) -> bool:
        """Set: store `condition` (its time kept when the status did not change), keep the list
        ordered by time with the root last, recompute the root."""
        condition = replace(condition, observed_generation=self.generation)
        kept: list[Condition] = []
        found = False
        for c in self.conditions:
            if c.type != condition.type:
                kept.append(c)
                continue
            found = True
            same_status = condition.status == c.status
            condition = replace(condition, time=c.time if same_status else self._now(),
                                last_transition_time=c.last_transition_time if same_status else "")
            if condition == c:
                return False
        if not found:
            # A dependent's first transition is the object's creation (time 0).
            condition = replace(condition, time=0 if self._is_dependent(condition.type) else self._now())
        kept.append(condition)
        # sort.SliceStable by transition time, the root last
        self.conditions = sorted(kept, key=lambda c: (c.type == self.root, c.time))
        self._recompute_root(condition.type)
        return True

    def _is_dependent(self, type_: str) -> bool:
        return type_ == self.root or type_ in self.dependents

    def set_true(self, type_: str) -> bool:
        return self.set(Condition(type_, TRUE, type_, ""))

    def set_unknown(self, type_: str) -> bool:
        return self.set(Condition(type_, UNKNOWN, "AwaitingReconciliation", "object is awaiting reconciliation"))

    def set_false(self, type_: str, reason: str, message: str) -> bool:
        return self.set(Condition(type_, FALSE, reason, message))

    def _recompute_root(self, type_: str) -> None:
        if type_ == self.root:
            return
        unhealthy = [c for c in self.conditions if c.type in self.dependents and
                     (c.is_false() or c.is_unknown() or c.observed_generation != self.generation)]
        if not unhealthy:
            self.set_true(self.root)
            return
        go_sort(unhealthy, lambda a, b: a.time > b.time)      # newest first
        false = any(c.is_false() and c.observed_generation == self.generation for c in unhealthy)
        self.set(Condition(self.root, FALSE if false else UNKNOWN,
                           "UnhealthyDependents" if false else "ReconcilingDependents",
                           ", ".join(f"{c.type}={c.status}" for c in unhealthy)))


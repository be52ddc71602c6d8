"""CA's chain strategy (expander/factory/chain.go): filters in `--expander` order, then a draw.

Each filter narrows the options; as soon as one leaves a single option it is taken. When the
filters are done and several are left, CA's random strategy draws one of them: `Choice` then
names the tie (`random_among`) instead of pretending to know the draw.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

from kexplain.autoscaler.expander import Filter, Option
from kexplain.autoscaler.expander.events import ExpanderEvent
from kexplain.autoscaler.expander.random import Random

if TYPE_CHECKING:
    from kexplain.model.nodeinfo import NodeInfo


@dataclass(frozen=True)
class Step:
    """One filter's turn: its `--expander` name and the options it kept, in order."""

    expander: str
    kept: tuple[Option, ...]


@dataclass(frozen=True)
class Choice:
    """The expander's decision: `option` (None: every pod filtered out by the expander), `random_among`
    (a tie CA draws from, `option` only its first), each filter's `steps` and recorded `events`."""

    option: Option | None
    random_among: tuple[Option, ...] = ()
    steps: tuple[Step, ...] = ()
    events: tuple[ExpanderEvent, ...] = ()

    @property
    def is_random(self) -> bool:
        return len(self.random_among) > 1


class Chain:
    """A Strategy: `filters` (each with a `name`) in order, CA's random draw after them."""

    def __init__(self, filters: Sequence[Filter]) -> None:
        self.filters = tuple(filters)
        self.fallback = Random()

    def choose(self, options: Sequence[Option], node_infos: Mapping[str, "NodeInfo"]) -> Choice:
        remaining = list(options)
        steps: list[Step] = []
        events: list[ExpanderEvent] = []
        for f in self.filters:
            evaluate = getattr(f, "evaluate", None)     # a filter that also records events
            if evaluate is not None:
                verdict = evaluate(remaining, node_infos)
                remaining, recorded = list(verdict.options), verdict.events
                events.extend(recorded)
            else:
                remaining = list(f.best_options(remaining, node_infos))
            steps.append(Step(getattr(f, "name", type(f).__name__), tuple(remaining)))
            if len(remaining) == 1:
                return Choice(remaining[0], (), tuple(steps), tuple(events))
        tie = self.fallback.candidates(remaining)
        return Choice(self.fallback.best_option(remaining, node_infos), tie if len(tie) > 1 else (),
                      tuple(steps), tuple(events))

    def best_option(self, options: Sequence[Option], node_infos: Mapping[str, "NodeInfo"]) -> Option | None:
        return self.choose(options, node_infos).option

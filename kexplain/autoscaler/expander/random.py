"""`random` (CA's expander/random): CA draws one option with math/rand.

kexplain does not draw: a pick CA would make at random is reported as such (see
`chain.Choice.random_among`), and `best_option` stands for the draw with the first option so
that the rest of the loop can be followed; the caller says the real CA may take any of them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from kexplain.autoscaler.expander import Option

if TYPE_CHECKING:
    from kexplain.model.nodeinfo import NodeInfo


class Random:
    """A Strategy (CA's is also a Filter that keeps one option: nothing may follow it in a
    chain). `candidates` are the options CA draws from; `best_option` the first of them."""

    name = "random"

    def candidates(self, options: Sequence[Option]) -> tuple[Option, ...]:
        return tuple(options)

    def best_option(self, options: Sequence[Option], node_infos: Mapping[str, "NodeInfo"]) -> Option | None:
        return options[0] if options else None

"""Expanders: pick the scale-up option among those the estimator produced (CA's expander/):
`Option` is CA's expander.Option; a `Filter` keeps the equally good options (a chain of filters
is `--expander a,b`), a strategy (`chain.Chain`, `random.Random`) returns one."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Protocol, Sequence

if TYPE_CHECKING:
    from kexplain.autoscaler.nodegroups import NodeGroup
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.pod import PodInfo


@dataclass(frozen=True)
class Option:
    """One way to scale up: `node_count` new nodes of `node_group` that would take `pods`."""

    node_group: "NodeGroup"
    node_count: int
    pods: tuple["PodInfo", ...]
    similar_node_groups: tuple["NodeGroup", ...] = ()


class Filter(Protocol):
    def best_options(self, options: Sequence[Option],
                     node_infos: Mapping[str, "NodeInfo"]) -> list[Option]:
        """The equally good options (node_infos: each group's template, by group name)."""
        ...

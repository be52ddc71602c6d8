"""`least-nodes` (CA's expander/leastnodes): keep the options that add the fewest nodes."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from kexplain.autoscaler.expander import Option

if TYPE_CHECKING:
    from kexplain.model.nodeinfo import NodeInfo


class LeastNodes:
    """A Filter: every option with the smallest node count, in the order given; options that
    add no node are never kept."""

    name = "least-nodes"

    def best_options(self, options: Sequence[Option], node_infos: Mapping[str, "NodeInfo"]) -> list[Option]:
        counts = [o.node_count for o in options if o.node_count != 0]
        if not counts:
            return []
        least = min(counts)
        return [o for o in options if o.node_count == least]

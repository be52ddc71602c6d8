"""`most-pods` (CA's expander/mostpods): keep the options that would schedule the most pods."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from kexplain.autoscaler.expander import Option

if TYPE_CHECKING:
    from kexplain.model.nodeinfo import NodeInfo


class MostPods:
    """A Filter: every option with the largest pod count, in the order given (an option with
    no pod counts as a tie when nothing has more)."""

    name = "most-pods"

    def best_options(self, options: Sequence[Option], node_infos: Mapping[str, "NodeInfo"]) -> list[Option]:
        most = max((len(o.pods) for o in options), default=0)
        return [o for o in options if len(o.pods) == most]

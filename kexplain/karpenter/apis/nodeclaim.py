"""NodeClaim (karpenter.sh/v1, core `pkg/apis/v1/nodeclaim.go`) and NodeSelectorRequirementWithMinValues,
the requirement with `minValues` that NodePools and NodeClaims write."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NodeSelectorRequirementWithMinValues:
    """One requirement as the API holds it: `operator` may also be Karpenter's `Gte`/`Lte`;
    `values` in the order written (or sorted, when Karpenter writes it)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()
    min_values: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape (`values` and `minValues` omitted when empty, as Go's omitempty)."""
        out: dict[str, Any] = {"key": self.key, "operator": self.operator}
        if self.values:
            out["values"] = list(self.values)
        if self.min_values is not None:
            out["minValues"] = self.min_values
        return out

"""One evaluation's outcome, below both the program that produces it and the explanation that
reads it (`cel.explain`), so neither imports the other's module for it."""
from __future__ import annotations

from dataclasses import dataclass

from kexplain.cel.errors import CelError


@dataclass(frozen=True)
class Result:
    """One evaluation: `value` True/False, or `error` (then `value` is None)."""

    value: bool | None
    error: CelError | None
    cost: int

    @property
    def matched(self) -> bool:
        return self.value is True

"""One bad object never hides the rest: errors of files, documents and objects collected while
everything else is read, as `kubectl apply -f DIR` does. A `Problems` collects (`keep`) or raises
the first error, so a caller that does not ask for collecting never loses one.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from kexplain.errors import KexplainError


@dataclass
class Problems:
    """The errors found so far, in the order they were found (`keep`), or none kept: `add`
    raises."""

    keep: bool = False
    found: list[KexplainError] = field(default_factory=list)

    def add(self, err: KexplainError) -> None:
        """Collect `err` (its file, object and reason), or raise it when not collecting."""
        if not self.keep:
            raise err
        self.found.append(err)

    def __bool__(self) -> bool:
        return bool(self.found)


RAISE = Problems()      # never collects (`add` raises), so it holds nothing: shareable

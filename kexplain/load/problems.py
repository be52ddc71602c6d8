"""One bad object never hides the rest: the errors of single files, documents and objects,
collected while everything else is read, as `kubectl apply -f DIR` collects them (it applies
every object it can and reports the others, each with its file and reason, at the end).

A `Problems` either collects (`keep`: `kexplain POD`, which reports each on stderr and exits
with the worst code) or raises the first error it is given (every other caller: a library call
that reads one input, the versions comparison, lint's pool), so a caller that does not ask for
collecting never loses an error.
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

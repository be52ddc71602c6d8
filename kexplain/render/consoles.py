"""Consoles that print text as it is: the user's and the cluster's words (`x:100:.yaml`,
`[bold]` in a CEL expression) are read neither as emoji codes nor as markup; renderers give
styles as `Text` objects."""
from __future__ import annotations

from typing import Any, TextIO

from rich.console import Console


def text_console(file: TextIO, **options: Any) -> Console:
    """A rich console on `file` that never reads markup, emoji codes or highlights in strings."""
    return Console(file=file, markup=False, emoji=False, highlight=False, **options)

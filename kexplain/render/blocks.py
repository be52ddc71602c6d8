"""Blocks: what every human view is made of, and how they are printed.

A view is a list of blocks printed one after another, so that the one line that must not be
wrapped (the FailedScheduling message, as `kubectl describe pod` prints it) can be printed
whole while tables fit the width (80 columns when not a terminal). Every view module builds
on this one; none of them imports another view's module for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from rich.console import Console, RenderableType
from rich.text import Text


@dataclass(frozen=True)
class Block:
    """One thing to print. `whole`: print without wrapping (a long line the reader greps for).
    A string is text as it is, never markup."""

    renderable: RenderableType
    whole: bool = False
    gap: bool = True        # a blank line before it

    def __post_init__(self) -> None:
        if isinstance(self.renderable, str):
            object.__setattr__(self, "renderable", Text(self.renderable))


# The verdict (result.status) as the headings colour it.
VERDICT_STYLE = {"Scheduled": "bold green", "Unschedulable": "bold red", "Gated": "bold yellow",
                 "Error": "bold red", "Failed": "bold red"}


def print_blocks(blocks: Iterable[Block], console: Console) -> None:
    """Print blocks. On a recording console (an export of a fixed width) every line is
    wrapped; as plain text (not a terminal) trailing blanks are trimmed."""
    whole_lines = not console.record
    if console.is_terminal or console.record:
        _print(blocks, console, whole_lines)
        return
    with console.capture() as captured:
        _print(blocks, console, whole_lines)
    text = "\n".join(line.rstrip() for line in captured.get().splitlines())
    console.file.write(text + "\n")
    console.file.flush()


def _print(blocks: Iterable[Block], console: Console, whole_lines: bool) -> None:
    for i, b in enumerate(blocks):
        if i and b.gap:
            console.print()
        whole = b.whole and whole_lines
        console.print(b.renderable, soft_wrap=whole, crop=not whole)

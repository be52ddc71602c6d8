"""Blocks: what every human view is made of, and how they are printed.

A view is a list of blocks printed one after another, so that the one line that must not be
wrapped (the FailedScheduling message, as `kubectl describe pod` prints it) can be printed
whole while tables fit the width (80 columns when not a terminal). Every view module builds
on this one; none of them imports another view's module for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.segment import Segment
from rich.table import Table
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


class Laid:
    """A renderable that many views print alike (the pods of one shape share their rejected nodes'
    table): laid out once for each console's options, its segments given again after."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self._laid: dict[tuple, list[Segment]] = {}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = tuple(vars(options).values())
        laid = self._laid.get(key)
        if laid is None:
            laid = self._laid[key] = list(console.render(self.renderable, options))
        return laid

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)


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


BULLET = "- "
LINE_INDENT = 2     # columns a level of `indented_line` indents


def indented_line(level: int, text: str) -> RenderableType:
    """One line indented by `level`, wrapped between words; a `- ` item wraps under its text."""
    if not text.startswith(BULLET):
        return Padding(Text(text), (0, 0, 0, LINE_INDENT * level))
    grid = Table.grid()
    grid.add_column(no_wrap=True, width=len(BULLET))
    grid.add_column(overflow="fold")
    grid.add_row(Text(BULLET), Text(text[len(BULLET):]))
    return Padding(grid, (0, 0, 0, LINE_INDENT * level))


def numbered_line(number: int, text: str) -> RenderableType:
    """` 1. text`, the text wrapped under itself (a numbered suggestion)."""
    grid = Table.grid()
    grid.add_column(no_wrap=True, width=4)
    grid.add_column(overflow="fold")
    grid.add_row(Text(f"{number:>2}. "), Text(text))
    return grid


def lines_block(items: Sequence[tuple[int, str]], gap: bool = True) -> Block:
    """Lines (`(level, text)`), indented by level, wrapped between words at the width."""
    return Block(Group(*(indented_line(level, text) for level, text in items)), gap=gap)

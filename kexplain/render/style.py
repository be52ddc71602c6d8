"""Shared looks: tables that read well on a terminal and as plain text, short plugin names,
quantities as people read them, and column widths that never break a node name."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from rich import box
from rich.table import Table
from rich.text import Text

from kexplain.apimachinery.quantity import QuantityError, format_bytes, parse_quantity, value
from kexplain.render.words import tables

# SIMPLE_HEAD drawn with ASCII: what a pipe, a file or `less` shows without surprises.
ASCII_HEAD = box.Box(
    "    \n"
    "    \n"
    " -- \n"
    "    \n"
    "    \n"
    "    \n"
    "    \n"
    "    \n",
    ascii=True,
)

# Column headers for plugin scores: the full names do not fit 80 columns side by side.
(SHORT_NAMES,) = tables("style", "SHORT_NAMES")


def short(plugin: str) -> str:
    return SHORT_NAMES.get(plugin, plugin)


# -- quantities --------------------------------------------------------------------------------------

_BINARY_UNITS = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def is_bytes(resource: str) -> bool:
    """Resources counted in bytes: memory, storage, hugepages."""
    return resource in ("memory", "ephemeral-storage", "storage") or resource.startswith("hugepages-")


def quantity(resource: str, amount: Any) -> str:
    """A trace quantity as people read it: bytes in binary units, exact when a whole number of a
    unit up to four digits ("1536Mi"), else the largest unit to two decimals ("88.99Gi")."""
    if amount is None:
        return "-"
    text = str(amount)
    if not is_bytes(resource):
        return text
    try:
        n = value(parse_quantity(text))
    except QuantityError:
        return text
    exact = format_bytes(n)
    if n < 1024 or len(exact.rstrip("KMGTPEi")) <= 4:
        return exact
    i = max(k for k in range(1, len(_BINARY_UNITS) + 1) if n >= 1 << (10 * k))
    size = 1 << (10 * i)
    if n / size >= 1023.995 and i < len(_BINARY_UNITS):     # 1023.999Mi: 1.00Gi
        i, size = i + 1, size << 10
    shown = f"{n / size:.2f}"
    if (n * 100) % size == 0:               # exact with two decimals: 29.5Gi
        shown = shown.rstrip("0").rstrip(".")
    return f"{shown}{_BINARY_UNITS[i - 1]}"


def quantities(amounts: Any) -> str:
    """`cpu 1, memory 1Gi` for a {resource: quantity} mapping ("nothing" when empty)."""
    return ", ".join(f"{k} {quantity(k, v)}" for k, v in (amounts or {}).items()) or "nothing"


# -- columns of node names ----------------------------------------------------------------------------

GAP = 3     # between two columns of a Look.table: a blank each side of the (invisible) rule


def longest_word(texts: Sequence[str]) -> int:
    return max((len(w) for t in texts for w in t.split()), default=0)


def wrap_widths(text: str, width: int) -> list[int]:
    """The widths of the lines `text` takes wrapped between words at `width`, as rich wraps
    it (a word longer than `width` is folded)."""
    width = max(width, 1)
    lines: list[int] = []
    for word in text.split():
        if lines and lines[-1] + 1 + len(word) <= width:
            lines[-1] += 1 + len(word)
            continue
        while len(word) > width:
            lines.append(width)
            word = word[width:]
        lines.append(len(word))
    return lines or [0]


@dataclass(frozen=True)
class NamesLayout:
    """Widths for a table whose last column lists node names (`text`: the column before it);
    `stacked`: the names go under the text, no room beside it."""

    text: int
    names: int
    stacked: bool = False


def names_layout(room: int, rows: Sequence[tuple[str, str]], *, least: int = 12) -> NamesLayout:
    """Split `room` columns between a column of texts (wrapped between words) and one of node
    names (wrapped between names, never inside one): the split of fewest lines, then the one that
    wraps the texts least (a reason is read whole), then the names, then the widest."""
    texts, names = [t for t, _ in rows], [n for _, n in rows]
    text_full = max((len(t) for t in texts), default=0)
    names_full = max((len(n) for n in names), default=0)
    widest = min(text_full, room - GAP - longest_word(names))
    narrowest = max(longest_word(texts), min(least, text_full))
    if widest < narrowest:      # the names go under the texts, indented by 2
        lines = [w for n in names for w in wrap_widths(n, room - 2)]
        stacked = max(1, min(room, max(text_full, 2 + max(lines, default=0))))
        return NamesLayout(stacked, stacked, stacked=True)
    best: tuple[int, int, int, int] | None = None
    for text_w in range(widest, narrowest - 1, -1):
        names_w = min(names_full, room - GAP - text_w)
        text_lines = [len(wrap_widths(t, text_w)) for t in texts]
        name_lines = [len(wrap_widths(n, names_w)) for n in names]
        lines = sum(map(max, text_lines, name_lines))
        if best is None or (lines, sum(text_lines), sum(name_lines)) < best[:3]:
            best = (lines, sum(text_lines), sum(name_lines), text_w)
    assert best is not None
    names_w = min(names_full, room - GAP - best[3])
    text_w = max(w for t in texts for w in wrap_widths(t, best[3]))   # no wider than its lines
    return NamesLayout(text_w, max(1, names_w))


@dataclass(frozen=True)
class Look:
    """How to draw: `plain` for text without box-drawing characters (not a terminal)."""

    plain: bool = False
    wide: bool = False
    width: int = 80          # the console's width

    def table(self, title: str | None = None, **kwargs) -> Table:
        return TextTable(title=title, title_justify="left", title_style="bold",
                         box=ASCII_HEAD if self.plain
                         else box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold", **kwargs)

    def grid(self) -> Table:
        """Two columns: a bold label and its text."""
        t = TextTable.grid(padding=(0, 2))
        t.add_column(style="bold", no_wrap=True)
        t.add_column()
        return t


class TextTable(Table):
    """A table whose strings are text, never rich markup or emoji codes: names and expressions
    (`zone In [zone-b]`, `example.com/:100:`) print as they are."""

    def __init__(self, *headers: Any, title: Any = None, title_style: Any = None, **kwargs: Any) -> None:
        if isinstance(title, str):      # rich styles a string title itself, a Text one not
            title = Text(title, style=title_style or "")
        super().__init__(*headers, title=title, title_style=title_style, **kwargs)

    def add_column(self, header: Any = "", *args: Any, **kwargs: Any) -> None:
        super().add_column(Text(header) if isinstance(header, str) else header, *args, **kwargs)

    def add_row(self, *renderables: Any, **kwargs: Any) -> None:
        super().add_row(*(Text(r) if isinstance(r, str) else r for r in renderables), **kwargs)


# -- long names: a MIG's URL, an ASG's id, never cut, never a character per line ----------------

LEAST_LINE = 20     # no line narrower than this


def name_lines(name: str, width: int) -> list[str]:
    """`name` in lines of at most `width`: whole when it fits, else broken after a `/` (a URL's
    parts), then after a `-` where a part is still too long; a piece longer than a line folds."""
    width = max(width, LEAST_LINE)
    if len(name) <= width:
        return [name]
    pieces: list[str] = []
    for part in re.findall(r"[^/]*/+|[^/]+", name):
        pieces += [part] if len(part) <= width else re.findall(r"[^-]*-+|[^-]+", part)
    lines = [""]
    for piece in pieces:
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append("")
        while len(lines[-1]) + len(piece) > width:
            room = width - len(lines[-1])
            lines[-1] += piece[:room]
            piece = piece[room:]
            lines.append("")
        lines[-1] += piece
    return lines


def wrap(text: str, width: int) -> str:
    """Prose wrapped between words at `width`, a word longer than a line (a group's URL) on
    lines of its own, broken by `name_lines`; what rich then prints as it is."""
    width = max(width, LEAST_LINE)
    out: list[str] = []
    for paragraph in text.split("\n"):
        lines = [""]
        for word in paragraph.split():
            sep = " " if lines[-1] else ""
            if len(lines[-1]) + len(sep) + len(word) <= width:
                lines[-1] += sep + word
            elif len(word) <= width:
                lines.append(word)
            else:
                broken = name_lines(word, width)
                if lines[-1]:
                    lines.append("")
                lines[-1] = broken[0]
                lines += broken[1:]
        out += lines
    return "\n".join(out)


def wrapped(text: str) -> Callable[[int], Text]:
    """A last cell's text, wrapped at the width it gets (a URL broken after a `/`)."""
    return lambda width: Text(wrap(text, width))


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")

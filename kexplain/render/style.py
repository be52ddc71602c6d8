"""Shared looks: tables that read well on a terminal and as plain text, short plugin names."""
from __future__ import annotations

from dataclasses import dataclass

from rich import box
from rich.table import Table

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
SHORT_NAMES = {
    "NodeResourcesFit": "Fit",
    "NodeResourcesBalancedAllocation": "Balanced",
    "TaintToleration": "Taint",
    "NodeAffinity": "NodeAff",
    "InterPodAffinity": "PodAff",
    "PodTopologySpread": "Spread",
    "ImageLocality": "Image",
    "VolumeBinding": "Volume",
    "DynamicResources": "DRA",
}


def short(plugin: str) -> str:
    return SHORT_NAMES.get(plugin, plugin)


@dataclass(frozen=True)
class Look:
    """How to draw: `plain` for text without box-drawing characters (not a terminal)."""

    plain: bool = False
    wide: bool = False
    width: int = 80          # the console's width

    def fixed(self, wanted: int, longest: int, room_left: int) -> int | None:
        """A fixed column width (rich wraps inside it) of at most `wanted`, or None (let rich
        decide) when the console is too narrow to leave `room_left` columns for the rest."""
        width = min(wanted, longest)
        return width if self.width - width >= room_left else None

    def table(self, title: str | None = None, **kwargs) -> Table:
        return Table(title=title, title_justify="left", title_style="bold",
                     box=ASCII_HEAD if self.plain
                     else box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold", **kwargs)

    def grid(self) -> Table:
        t = Table.grid(padding=(0, 2))
        t.add_column(style="bold", no_wrap=True)
        t.add_column()
        return t

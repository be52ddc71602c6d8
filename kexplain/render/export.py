"""`--svg FILE`, `--html FILE`: the explanation as a file to attach to a ticket.

`--svg` draws the terminal view a second time on a recording console (colours and box
drawing on, the display's width, every line wrapped) and saves it with rich's exporter.
`--html` writes the interactive page (`kexplain.render.html`) of the document `-o json` would
print: `batch_document` makes it for several pods or replicas, from the objects placed.
"""
from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, Callable, Iterable

from rich.console import Console

from kexplain.render.consoles import text_console
from kexplain.render.html import write_page

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.batch import Outcome

API_VERSION = "kexplain/v1"
LIST_KIND = "SchedulingTraceList"


def export_svg(draw: Callable[[Console], None], width: int, svg: str) -> None:
    """Draw once on a recording console and save it as SVG (OSError if it cannot be written)."""
    console = text_console(io.StringIO(), record=True, width=width, force_terminal=True, color_system="truecolor",
                           soft_wrap=False)
    draw(console)
    console.save_svg(svg, title="kexplain", clear=False)


def batch_document(outcomes: "Iterable[Outcome]") -> dict[str, Any]:
    """Several pods or replicas as `-o json` lists them: the traces kept of each object (its
    first pod, the first that does not fit, the last) and each object's `placements` entry
    (where every copy went)."""
    items: list[dict[str, Any]] = []
    placements: list[dict[str, Any]] = []
    for outcome in outcomes:
        placements.append(outcome.to_json())
        items += [p.trace.to_json() for p in outcome.attempts]
    return {"apiVersion": API_VERSION, "kind": LIST_KIND, "items": items, "placements": placements}

"""`--svg FILE`, `--html FILE`: the rendered explanation as a file to attach to a bug report.

The explanation is drawn a second time on a recording console (colours and box drawing on,
the display's width, every line wrapped), then saved with rich's exporters.
"""
from __future__ import annotations

import io
from typing import Callable

from rich.console import Console

from kexplain.render.consoles import text_console

TITLE = "kexplain"


def recording_console(width: int) -> Console:
    return text_console(io.StringIO(), record=True, width=width, force_terminal=True, color_system="truecolor",
                        soft_wrap=False)


def export(draw: Callable[[Console], None], width: int, svg: str | None = None, html: str | None = None,
           title: str = TITLE) -> None:
    """Draw once on a recording console and save it as SVG and/or HTML (OSError if a file
    cannot be written)."""
    if not svg and not html:
        return
    console = recording_console(width)
    draw(console)
    if svg:
        console.save_svg(svg, title=title, clear=False)
    if html:
        console.save_html(html, clear=False)

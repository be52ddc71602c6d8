"""What a command writes beside stdout: `--svg` (the human view drawn again) and `--html` (the
interactive page), each failure a one-line error; `batch_document`, the page's document of a batch."""
from __future__ import annotations

from types import ModuleType
from typing import Callable, Optional

from kexplain.cli.env import Environment
from kexplain.errors import KexplainError


def _export() -> ModuleType:
    """`kexplain.render.export`, imported when a file is written: the page's modules
    (`render/html`) cost about 35 ms at start-up, a run without --svg or --html needs none of
    them (docs/development.md, "Lazy imports")."""
    from kexplain.render import export
    return export


def export_view(env: Environment, draw: Callable, svg: Optional[str]) -> None:
    """`--svg`: the human view, drawn again on a recording console and saved."""
    if svg:
        try:
            _export().export_svg(draw, env.console().width, svg)
        except OSError as err:
            raise KexplainError(f"{err.filename or svg}: {err.strerror or err}") from None


def save_page(html: str, doc: dict) -> None:
    """`--html`: the interactive page of the document `-o json` would print."""
    try:
        _export().write_page(html, doc)
    except OSError as err:
        raise KexplainError(f"{err.filename or html}: {err.strerror or err}") from None


def batch_document(kept: list) -> dict:
    """The page's document of a batch's outcomes (`render.export.batch_document`)."""
    return _export().batch_document(kept)

"""Consoles that print text as it is.

Everything kexplain prints carries words of the user or the cluster: file names
(`x:100:.yaml`), object names, label values, taints, CEL expressions
(`device.attributes["gpu.example.com"]`). rich reads `:100:` in a string as an emoji code and
`[bold]` as markup; these consoles read neither, so a string printed anywhere comes out as it
was written. Renderers give styles as `Text` objects (never markup), so they print the same on
any console.
"""
from __future__ import annotations

from typing import Any, TextIO

from rich.console import Console


def text_console(file: TextIO, **options: Any) -> Console:
    """A rich console on `file` that never reads markup, emoji codes or highlights in strings."""
    return Console(file=file, markup=False, emoji=False, highlight=False, **options)

"""The command's environment: streams, terminal or not, colour, width.

`kexplain.cli.main` makes one (or a test passes its own) and hands it to every command
through typer's context object: commands never touch `sys` or create consoles, so a test
can run any command end to end, pretend to be a terminal or a pipe, and read what it
printed (httpie's model).
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import BinaryIO, Mapping, TextIO

import typer
from rich.console import Console

from kexplain.render.consoles import text_console


@dataclass
class Environment:
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    stdin: BinaryIO | None = None
    is_terminal: bool | None = None     # stdout; None: ask the stream
    color: bool | None = None           # None: rich decides (NO_COLOR honoured)
    width: int | None = None            # None: terminal width, 80 when not a terminal
    stderr_is_terminal: bool | None = None   # None: ask the stream (progress bars, hints)
    variables: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))   # KEXPLAIN_* settings

    def __post_init__(self) -> None:
        if self.stdin is None:
            self.stdin = getattr(sys.stdin, "buffer", None)
        if self.is_terminal is None:
            self.is_terminal = _isatty(self.stdout)
        if self.stderr_is_terminal is None:
            self.stderr_is_terminal = _isatty(self.stderr)
        if self.color is None:
            self.color = self.is_terminal and not os.environ.get("NO_COLOR")

    def console(self, stderr: bool = False) -> Console:
        """A rich console on stdout (or stderr): plain text, 80 columns, when not a terminal."""
        stream = self.stderr if stderr else self.stdout
        width = self.width or (None if self.is_terminal else 80)
        return text_console(stream, force_terminal=self.is_terminal, no_color=not self.color,
                            color_system="auto" if self.color else None, width=width, soft_wrap=False)

    def error(self, message: str) -> None:
        """One line on stderr, never wrapped."""
        self.stderr.write(message.rstrip("\n") + "\n")


def env_of(ctx: typer.Context) -> Environment:
    """The environment `kexplain.cli.main` handed to the command (typer's context object)."""
    env = ctx.find_object(Environment)
    if env is None:
        raise RuntimeError("a kexplain command runs through kexplain.cli.main, which gives it an Environment")
    return env


def _isatty(stream: object) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)())

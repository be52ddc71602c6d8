"""A closed output pipe (`kexplain ... | head -1`): quietly end with the verdicts' code when they
were all known before the pipe closed, else 141 (128 + SIGPIPE), not click's exit 1 (a pod that
does not schedule). `guarded` turns BrokenPipeError into `OutputClosed`; `verdict_known` says
a command knows its verdict; `cli.app.main` picks the code."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator, TextIO

from kexplain.cli.exit_codes import ExitStatus


class OutputClosed(Exception):
    """stdout's reader left; `status`: the run's verdict when it was reached already."""

    def __init__(self, status: ExitStatus | None = None) -> None:
        super().__init__("the output pipe was closed")
        self.status = status

    @property
    def exit_code(self) -> int:
        return int(self.status) if self.status is not None else ExitStatus.CLOSED_PIPE


class _Guarded:
    """A text stream whose writes raise `OutputClosed` instead of BrokenPipeError; everything
    else is the stream's own."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise OutputClosed() from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise OutputClosed() from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def guarded(stream: TextIO) -> TextIO:
    """`stream`, with a broken pipe said as `OutputClosed` (once: a guarded stream is kept)."""
    return stream if isinstance(stream, _Guarded) else _Guarded(stream)  # type: ignore[return-value]


@contextmanager
def verdict_known(status: ExitStatus | Callable[[], ExitStatus | None]) -> Iterator[None]:
    """Writing what follows a verdict already reached: a pipe closed meanwhile ends the run
    with `status` (a callable: asked when the pipe closes; None when not every verdict is
    reached yet)."""
    try:
        yield
    except OutputClosed as closed:
        if closed.status is None:
            closed.status = status() if callable(status) else status
        raise

"""The command line: the only layer that knows typer, stdout and exit codes.

`main(argv, env) -> int` runs a command and returns its exit code (`ExitStatus`); the console
scripts `kexplain` and `kubectl-kexplain` (`run`, `kubectl_run`) exit with what `main` and
`kubectl_main` return.
"""
import os
import sys
from typing import NoReturn

from kexplain.cli.app import kubectl_main, main

__all__ = ["kubectl_main", "kubectl_run", "main", "run"]


def run() -> NoReturn:
    """The `kexplain` command: `main`, then the process ends (`exit_now`)."""
    exit_now(main())


def kubectl_run() -> NoReturn:
    """The `kubectl-kexplain` command: `kubectl_main`, then the process ends (`exit_now`)."""
    exit_now(kubectl_main())


def exit_now(code: int) -> NoReturn:
    """End with `code` once stdout and stderr are flushed, without freeing the heap object by
    object (a tenth of a large cluster's run); nothing of kexplain runs at exit."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):    # a reader that left (`| head`), a stream closed: nothing to say
            pass
    os._exit(code)

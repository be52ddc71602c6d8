"""The command line: the only layer that knows typer, stdout and exit codes.

`main(argv, env) -> int` runs a command and returns its exit code (`ExitStatus`); the console
scripts `kexplain` and `kubectl-kexplain` exit with what `main` and `kubectl_main` return.
"""
from kexplain.cli.app import kubectl_main, main

__all__ = ["kubectl_main", "main"]

"""The command line: the only layer that knows typer, stdout and exit codes."""
from kexplain.cli.app import kubectl_main, main

__all__ = ["kubectl_main", "main"]

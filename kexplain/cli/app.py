"""The command line: the typer app, its commands, and how the process ends.

Commands live in `kexplain.commands`; this module only registers them and turns
interrupts, closed pipes and unexpected failures into exit codes without tracebacks.

Exit codes: 0 the pod would be scheduled; 1 it would not (unschedulable or gated);
2 bad usage or bad input; 3 the scheduler itself would fail with an error; 130 interrupted.
"""
from __future__ import annotations

import os
import sys

import typer

from kexplain.cli import explain as explain_cmd
from kexplain.cli import live as live_cmd
from kexplain.cli import lint as lint_cmd
from kexplain.cli.exit_codes import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_SCHEDULED
from kexplain.apimachinery.versions import KUBE_SCHEDULER_VERSION

HELP = f"""Why didn't my pod schedule? Runs kube-scheduler {KUBE_SCHEDULER_VERSION}'s filter and score plugins over
manifests and explains every verdict.

Exit codes: 0 schedulable, 1 unschedulable or gated, 2 bad usage or bad input,
3 the scheduler would fail with an error, 130 interrupted."""

app = typer.Typer(add_completion=True, help=HELP, no_args_is_help=True, rich_markup_mode=None,
                  pretty_exceptions_enable=False,
                  context_settings={"help_option_names": ["-h", "--help"]})

app.command("explain")(explain_cmd.command)
app.command("pod")(live_cmd.pod_command)
app.command("snapshot")(live_cmd.snapshot_command)
app.command("lint")(lint_cmd.command)


def version_text() -> str:
    from importlib.metadata import version
    return f"kexplain {version('kexplain')} (kube-scheduler {KUBE_SCHEDULER_VERSION})"


@app.command("version")
def version_cmd() -> None:
    """Print kexplain's version and the kube-scheduler version it follows."""
    typer.echo(version_text())


def _print_version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print the version (as `kexplain version`) and exit."),
) -> None:
    """Options of kexplain itself (before any command)."""


# Options of kexplain itself: `kexplain --version` is not `kexplain explain --version`.
ROOT_OPTIONS = ("-h", "--help", "--install-completion", "--show-completion", "--version")


def _subcommands() -> set[str]:
    return {c.name or c.callback.__name__ for c in app.registered_commands}


def main(argv: list[str] | None = None, prog_name: str = "kexplain") -> None:
    """`kexplain POD ...` is `kexplain explain POD ...`: the default command needs no name."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] not in _subcommands() and args[0] not in ROOT_OPTIONS:
        args.insert(0, "explain")
    try:
        app(args=args, prog_name=prog_name)
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
    except BrokenPipeError:
        # `kexplain ... | head`: the reader left; say nothing more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_SCHEDULED)
    except SystemExit:
        raise
    except Exception as err:  # a bug of ours: one line, not a traceback (KEXPLAIN_DEBUG=1 shows it)
        if os.environ.get("KEXPLAIN_DEBUG"):
            raise
        sys.stderr.write(f"kexplain: internal error: {type(err).__name__}: {err} "
                         "(set KEXPLAIN_DEBUG=1 for a traceback, and please report it)\n")
        sys.exit(EXIT_ERROR)


def kubectl_main() -> None:
    """`kubectl kexplain ...` (kubectl runs kubectl-kexplain from PATH): `kubectl kexplain NAME`
    explains the live pod NAME; a subcommand or a manifest file works as for `kexplain`."""
    main(kubectl_args(sys.argv[1:]), prog_name="kubectl kexplain")


def kubectl_args(args: list[str]) -> list[str]:
    """`pod` put in front unless the first argument that is not an option (or an option's
    value) is a subcommand or an existing file; options alone (`-A`, `--pending`) mean `pod`."""
    if not args or args[0] in ROOT_OPTIONS:
        return args
    takes_value = _options_with_values()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            break
        if arg.startswith("-") and arg != "-":
            if "=" not in arg and arg in takes_value:
                i += 1
            i += 1
            continue
        if arg in _subcommands() or arg == "-" or os.path.exists(arg):
            return args
        break
    return ["pod", *args]


def _options_with_values() -> set[str]:
    """Every option name of every command that takes a value (not a flag)."""
    group = typer.main.get_command(app)
    out: set[str] = set()
    for cmd in getattr(group, "commands", {}).values():
        for param in cmd.params:
            if (getattr(param, "param_type_name", "") == "option" and not getattr(param, "is_flag", False)
                    and not getattr(param, "count", False)):
                out.update(param.opts)
    return out

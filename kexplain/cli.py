"""The command line: parse, call the engine, render, choose the exit code. Nothing else.

Exit codes: 0 the pod would be scheduled; 1 it would not (unschedulable or gated);
2 bad usage or bad input; 3 the scheduler itself would fail with an error.
"""
from __future__ import annotations

import json
import sys
from enum import Enum
from typing import List, Optional

import typer
import yaml
from rich.console import Console

from .errors import KexplainError
from .load.yaml_io import DEFAULT_MAX_BYTES

EXIT_SCHEDULED, EXIT_UNSCHEDULABLE, EXIT_BAD_INPUT, EXIT_ERROR = 0, 1, 2, 3

HELP = """Why didn't my pod schedule? Runs kube-scheduler v1.35.4's filter and score plugins over
manifests and explains every verdict.

Exit codes: 0 schedulable, 1 unschedulable or gated, 2 bad usage or bad input,
3 the scheduler would fail with an error."""

app = typer.Typer(add_completion=True, help=HELP, no_args_is_help=True, rich_markup_mode=None,
                  pretty_exceptions_enable=False,
                  context_settings={"help_option_names": ["-h", "--help"]})


class Output(str, Enum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


@app.command("explain", help="Explain where (and whether) the scheduler would place POD.")
def explain_cmd(
    pod: str = typer.Argument(..., metavar="POD", help="Pod or workload manifest (file, directory or '-')."),
    nodes: List[str] = typer.Option([], "--nodes", metavar="PATH",
                                    help="Cluster objects: Nodes, bound Pods, PVCs, PVs, ... (repeatable)."),
    config: Optional[str] = typer.Option(None, "--config", metavar="FILE",
                                         help="KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)."),
    start_index: int = typer.Option(0, "--start-index", min=0,
                                    help="The scheduler's round-robin position before this pod."),
    output: Output = typer.Option(Output.table, "-o", "--output", help="table, wide, json or yaml."),
    stored: bool = typer.Option(False, "--stored", "--no-admission",
                                help="Objects were read from an API server: skip the admission steps."),
    preemption: bool = typer.Option(True, "--preemption/--no-preemption",
                                    help="Run the DefaultPreemption dry run when no node fits."),
    preemption_offset: int = typer.Option(0, "--preemption-offset", min=0,
                                          help="Where the preemption candidate search starts."),
    max_input_size: int = typer.Option(DEFAULT_MAX_BYTES, "--max-input-size", metavar="BYTES",
                                       help="Refuse inputs larger than this."),
) -> None:
    from .explain import Request, explain, load_inputs

    req = Request(pod_path=pod, node_paths=tuple(nodes), config_path=config, start_index=start_index,
                  stored=stored, max_bytes=max_input_size, preemption=preemption,
                  preemption_offset=preemption_offset)
    err_console = Console(stderr=True)
    try:
        inputs = load_inputs(req)
        trace = explain(inputs, req).to_json()
    except KexplainError as err:
        err_console.print(f"error: {err}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(err.exit_code)
    for warning in inputs.warnings:
        err_console.print(f"warning: {warning}", markup=False, highlight=False, soft_wrap=True)
    if output is Output.json:
        sys.stdout.write(json.dumps(trace, indent=2) + "\n")
    elif output is Output.yaml:
        sys.stdout.write(yaml.safe_dump(trace, sort_keys=False))
    else:
        from .render.table import print_trace
        print_trace(trace, Console(), wide=output is Output.wide)
    status = trace["result"]["status"]
    raise typer.Exit({"Scheduled": EXIT_SCHEDULED, "Unschedulable": EXIT_UNSCHEDULABLE,
                      "Gated": EXIT_UNSCHEDULABLE}.get(status, EXIT_ERROR))


@app.command("version", help="Print kexplain's version and the kube-scheduler version it follows.")
def version_cmd() -> None:
    from importlib.metadata import version
    typer.echo(f"kexplain {version('kexplain')} (kube-scheduler v1.35.4)")


SUBCOMMANDS = {"explain", "version"}


def main(argv: list[str] | None = None) -> None:
    """`kexplain POD ...` is `kexplain explain POD ...`: the default command needs no name."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] not in SUBCOMMANDS and args[0] not in ("-h", "--help", "--install-completion",
                                                               "--show-completion"):
        args.insert(0, "explain")
    try:
        app(args=args, prog_name="kexplain")
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # `kexplain ... | head`: the reader left; say nothing more.
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_SCHEDULED)
    except SystemExit:
        raise
    except Exception as err:  # a bug of ours: one line, not a traceback (KEXPLAIN_DEBUG=1 shows it)
        import os
        if os.environ.get("KEXPLAIN_DEBUG"):
            raise
        sys.stderr.write(f"kexplain: internal error: {type(err).__name__}: {err} "
                         "(set KEXPLAIN_DEBUG=1 for a traceback, and please report it)\n")
        sys.exit(EXIT_ERROR)


def kubectl_main() -> None:
    main()

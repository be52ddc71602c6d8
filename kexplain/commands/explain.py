"""`kexplain POD --nodes ...`: explain one pod against manifests."""
from __future__ import annotations

import json
from enum import Enum
from typing import List, Optional

import typer
import yaml

from ..env import Environment
from ..errors import KexplainError
from ..load.yaml_io import DEFAULT_MAX_BYTES
from .exit_codes import EXIT_BAD_INPUT, exit_code_for


class Output(str, Enum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


def write_trace(env: Environment, trace: dict, output: Output) -> None:
    if output is Output.json:
        env.stdout.write(json.dumps(trace, indent=2) + "\n")
    elif output is Output.yaml:
        env.stdout.write(yaml.safe_dump(trace, sort_keys=False))
    else:
        from ..render.table import print_trace
        print_trace(trace, env.console(), wide=output is Output.wide)


def command(
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
    """Explain where (and whether) the scheduler would place POD."""
    from ..explain import Request, explain, load_inputs

    env = Environment()
    req = Request(pod_path=pod, node_paths=tuple(nodes), config_path=config, start_index=start_index,
                  stored=stored, max_bytes=max_input_size, preemption=preemption,
                  preemption_offset=preemption_offset)
    try:
        inputs = load_inputs(req, env.stdin)
        trace = explain(inputs, req).to_json()
    except KexplainError as err:
        env.error(f"error: {err}")
        raise typer.Exit(EXIT_BAD_INPUT)
    for warning in inputs.warnings:
        env.error(f"warning: {warning}")
    write_trace(env, trace, output)
    raise typer.Exit(exit_code_for(trace))

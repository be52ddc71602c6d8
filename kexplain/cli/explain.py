"""`kexplain POD --nodes ...`: explain one pod (or several, or a workload's replicas) against manifests."""
from __future__ import annotations

import json
from enum import Enum
from typing import TYPE_CHECKING, List, Optional

import typer
import yaml

from kexplain.cli.env import Environment
from kexplain.errors import KexplainError
from kexplain.load.manifests import DEFAULT_MAX_OBJECTS, object_limit
from kexplain.load.yaml_io import DEFAULT_MAX_BYTES
from kexplain.cli.exit_codes import EXIT_BAD_INPUT, exit_code_for
from kexplain.cli.lint import VALIDATE_OPTION

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.run import Inputs, Request
    from kexplain.framework.schedule import Extras
    from kexplain.explain.batch import Loaded


class Output(str, Enum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"


def write_trace(env: Environment, trace: dict, output: Output, *, node: Optional[str] = None,
                no_nodes_hint: Optional[str] = None) -> None:
    """The trace (json, yaml) or its explanation; `no_nodes_hint`: why the cluster has no nodes,
    shown with the explanation when it has none."""
    if output is Output.json:
        env.stdout.write(json.dumps(trace, indent=2) + "\n")
    elif output is Output.yaml:
        env.stdout.write(yaml.safe_dump(trace, sort_keys=False))
    else:
        from kexplain.render.table import print_trace
        print_trace(trace, env.console(), wide=output is Output.wide, node=node, no_nodes_hint=no_nodes_hint)


def no_nodes_hint(node_paths: List[str]) -> str:
    """Why the cluster of `kexplain POD` has no nodes, and how to give it some."""
    how = ("Pass the cluster's Nodes (and its bound Pods, PVCs, ...) with --nodes FILE|DIR, for example the output "
           "of kubectl get nodes -o yaml.")
    if not node_paths:
        return f"The cluster has no nodes: --nodes was not given. {how}"
    return f"The cluster has no nodes: the --nodes input ({', '.join(node_paths)}) holds no Node object. {how}"


def extras_for(output: Output, node: Optional[str], batch: "Loaded | None" = None) -> "Extras":
    """What to record beyond the scheduler's trace: node facts for the human views (and the
    facts of every plugin for `--node`); the never-examined nodes evaluated for the search
    section, except for replicas (only their last copy is shown in full)."""
    from kexplain.framework.schedule import Extras

    human = output in (Output.table, Output.wide)
    replicated = batch is not None and any(e.replicated for e in batch.batch)
    return Extras(details=human or node is not None, explain_nodes=frozenset([node] if node else []),
                  unexamined=human and not replicated)


def export_view(env: Environment, draw, svg: Optional[str], html: Optional[str]) -> None:
    """`--svg`/`--html`: the human view, drawn again on a recording console and saved."""
    from kexplain.render.export import export

    try:
        export(draw, env.console().width, svg=svg, html=html)
    except OSError as err:
        env.error(f"error: {err.filename or svg or html}: {err.strerror or err}")
        raise typer.Exit(EXIT_BAD_INPUT)


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
    max_objects: int = typer.Option(DEFAULT_MAX_OBJECTS, "--max-objects", min=1, metavar="N",
                                    help="Refuse inputs of more objects than this (the POD file, or --nodes)."),
    suggestions: bool = typer.Option(True, "--suggestions/--no-suggestions",
                                     help="Show verified fix suggestions for a pod that does not fit."),
    replicas: Optional[int] = typer.Option(None, "--replicas", min=1, metavar="N",
                                           help="Place N copies of each pod, one after another "
                                                "(default: a workload's own replicas)."),
    node: Optional[str] = typer.Option(None, "--node", metavar="NAME",
                                       help="Show one node's full verdict, plugin by plugin, with the facts "
                                            "behind each (-o json/yaml: add them under `details`)."),
    svg: Optional[str] = typer.Option(None, "--svg", metavar="FILE",
                                      help="Also save the rendered explanation as SVG."),
    html: Optional[str] = typer.Option(None, "--html", metavar="FILE",
                                       help="Also save the rendered explanation as HTML."),
    validate: str = VALIDATE_OPTION,
) -> None:
    """Explain where (and whether) the scheduler would place POD."""
    from kexplain.explain.run import Request
    from kexplain.explain.batch import explain_batch, load
    from kexplain.suggest.engine import suggestions as suggest

    env = Environment()
    req = Request(pod_path=pod, node_paths=tuple(nodes), config_path=config, start_index=start_index,
                  stored=stored, max_bytes=max_input_size, preemption=preemption,
                  preemption_offset=preemption_offset, validate=validate)
    from kexplain.framework.schedule import recording
    from kexplain.load.gcpolicy import bulk_load
    try:
        with object_limit(max_objects), bulk_load(freeze=True):
            loaded = load(req, env.stdin, replicas)
        with recording(extras_for(output, node, loaded if loaded.single is None else None)):
            if loaded.single is None:
                outcomes = explain_batch(loaded.batch, loaded.pool, req, _plain_runs(suggest) if suggestions else None)
            else:
                trace = explain_one(loaded.single, req, suggestions)
    except KexplainError as err:
        env.error(f"error: {err}")
        raise typer.Exit(EXIT_BAD_INPUT)
    if loaded.single is None:
        raise typer.Exit(write_batch(env, loaded, outcomes, output, node=node, svg=svg, html=html))
    for warning in loaded.single.warnings:
        env.error(f"warning: {warning}")
    hint = no_nodes_hint(nodes)
    write_trace(env, trace, output, node=node, no_nodes_hint=hint)
    if svg or html:
        from kexplain.render.table import print_trace
        export_view(env, lambda c: print_trace(trace, c, wide=output is Output.wide, node=node, no_nodes_hint=hint),
                    svg, html)
    raise typer.Exit(exit_code_for(trace))


def _plain_runs(suggest):
    """The suggester, run without the extra trace keys (its re-runs are never shown)."""
    from kexplain.framework.schedule import Extras, recording

    def run(*args):
        with recording(Extras()):
            return suggest(*args)
    return run


def explain_one(inputs: "Inputs", req: "Request", suggestions: bool) -> dict:
    """One pod's trace; an Unschedulable one with its verified fix suggestions (key `suggestions`)
    unless they are turned off."""
    from kexplain.explain.run import explain
    from kexplain.suggest.engine import suggestions as suggest

    from kexplain.framework.trace import UNSCHEDULABLE

    result = explain(inputs, req)
    if suggestions and result.result.status == UNSCHEDULABLE:
        result.extra["suggestions"] = [s.to_json() for s in _plain_runs(suggest)(inputs, result, req)]
    return result.to_json()


def write_batch(env: Environment, loaded: "Loaded", outcomes: list, output: Output, *, node: Optional[str] = None,
                svg: Optional[str] = None, html: Optional[str] = None) -> int:
    """Several pods or replicas: a SchedulingTraceList (json, yaml) or one section per object; the exit code."""
    from kexplain.explain.batch import exit_code, print_batch, to_json

    warnings = list(loaded.pool.warnings if loaded.pool else [])
    warnings += [w for o in outcomes for w in o.attempts[0].inputs.warnings]
    for warning in warnings:
        env.error(f"warning: {warning}")
    if output in (Output.json, Output.yaml):
        write_trace(env, to_json(outcomes), output)
        return exit_code(outcomes)

    def draw(console) -> None:
        if node is None:
            print_batch(outcomes, console, wide=output is Output.wide)
            return
        from kexplain.explain.batch import headline
        from kexplain.render.table import print_trace
        for i, o in enumerate(outcomes):  # each object's last attempt (the copy that did not fit), on that node
            if console.is_terminal:
                console.rule(headline(o))
            else:       # plain text, as print_batch heads each object
                console.print(("\n" if i else "") + f"=== {headline(o)}", soft_wrap=True, highlight=False,
                              markup=False)
            print_trace(o.attempts[-1].trace.to_json(), console, node=node)
    draw(env.console())
    export_view(env, draw, svg, html)
    return exit_code(outcomes)

"""`kexplain autoscale PODS --nodes CLUSTER --node-groups GROUPS`: one Cluster Autoscaler loop."""
from __future__ import annotations

from enum import Enum
from typing import List, Optional

import typer

from kexplain.cli.env import env_of
from kexplain.cli.exit_codes import ExitStatus
from kexplain.cli.lint import VALIDATE_OPTION
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS
from kexplain.render import structured

CA_KUBERNETES = "1.36"      # the scheduler the reference CA embeds (Kubernetes v1.36.2 vendored)

EXIT_HELP = ("Exit codes: 0 every pending pod triggered a scale-up or fits the free room of existing nodes, "
             "1 some pending pod did not, 2 bad usage or bad input, 4 internal error.")


class Output(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"


def command(
    ctx: typer.Context,
    pods: Optional[str] = typer.Argument(None, metavar="PODS",
                                         help="The pending Pods (file, directory or '-'); optional with "
                                              "mode: scaledown."),
    nodes: List[str] = typer.Option([], "--nodes", metavar="PATH",
                                    help="Cluster objects: Nodes, bound Pods, DaemonSets, PriorityClasses, "
                                         "ConfigMaps, ... (repeatable)."),
    node_groups: str = typer.Option(..., "--node-groups", metavar="FILE",
                                    help="The node groups (NodeGroupList): sizes, node selector, template, options."),
    autoscaler_config: Optional[str] = typer.Option(None, "--autoscaler-config", metavar="FILE",
                                                    help="CA settings: mode, expander, maxNodesTotal, coresTotal, "
                                                         "memoryTotal, balanceSimilarNodeGroups, flags (any CA "
                                                         "flag by name)."),
    output: Output = typer.Option(Output.table, "-o", "--output", help="table, json or yaml."),
    max_input_size: int = typer.Option(DEFAULT_MAX_BYTES, "--max-input-size", metavar="BYTES",
                                       help="Refuse inputs larger than this."),
    max_objects: int = typer.Option(DEFAULT_MAX_OBJECTS, "--max-objects", min=1, metavar="N",
                                    help="Refuse inputs of more objects than this (per input)."),
    validate: str = VALIDATE_OPTION,
    kubernetes_version: Optional[str] = typer.Option(
        None, "--kubernetes-version", metavar="X.Y",
        help=f"The Kubernetes version whose scheduler and API server to follow (default: "
             f"$KEXPLAIN_KUBERNETES_VERSION, else {CA_KUBERNETES}, the scheduler CA embeds)."),
) -> ExitStatus:
    """Explain one Cluster Autoscaler loop: which pending pods trigger a scale-up of which node
    group, and why the others do not, events included, as the Cluster Autoscaler of
    openshift/kubernetes-autoscaler 70920d3c6f5f (Kubernetes v1.36.2 vendored) decides.

    Exit codes: 0 every pending pod triggered a scale-up or fits the free room of existing
    nodes, 1 some pending pod did not, 2 bad usage or bad input, 4 internal error."""
    from kexplain.autoscaler.document import build_document
    from kexplain.autoscaler.inputs import load_loop
    from kexplain.autoscaler.loop import run_once
    from kexplain.features.kube_version import ENV_VAR, resolve
    from kexplain.load.gcpolicy import bulk_load

    env = env_of(ctx)
    kube, warnings = resolve(kubernetes_version, env.variables.get(ENV_VAR) or None, None, CA_KUBERNETES)
    for warning in warnings:
        env.error(f"warning: {warning}")
    with bulk_load(freeze=True):      # as the scheduler's CLI: no collection while reading, the snapshot frozen
        loop = load_loop(pods, tuple(nodes), node_groups, autoscaler_config, kube, max_bytes=max_input_size,
                         max_objects=max_objects, validate=validate, stdin=env.stdin)
    for warning in loop.warnings:
        env.error(f"warning: {warning}")
    doc = build_document(loop, run_once(loop))
    if output.value in structured.FORMATS:
        structured.write(env.stdout, doc, output.value)
    else:
        from kexplain.render.autoscale import print_scale_up
        print_scale_up(doc, env.console())
    return exit_status(doc)


def exit_status(doc: dict) -> ExitStatus:
    """0 when every pending pod triggered a scale-up or fits existing room, else 1."""
    for pod in doc.get("pods") or ():
        if pod.get("outcome") == "TriggeredScaleUp":
            continue
        if pod.get("outcome") == "FilteredOut" and pod.get("filteredBy") == "FilterOutSchedulable":
            continue
        return ExitStatus.UNSCHEDULABLE
    return ExitStatus.SUCCESS

"""`kexplain autoscale PODS --nodes CLUSTER [--node-groups GROUPS]`: one Cluster Autoscaler loop
over the pending pass (`kexplain.explain.pending_pass`: workloads' copies scheduled first, those
that do not fit pending); without --node-groups, the groups CLUSTER reports, found as live. It
parses, asks `kexplain.app.autoscale`, renders and picks the exit code."""
from __future__ import annotations

from typing import List, Optional

import typer

from kexplain.app.autoscale import AutoscaleRequest, scale_up
from kexplain.autoscaler.document import triggered
from kexplain.autoscaler.inputs import CA_KUBERNETES
from kexplain.cli.env import env_of
from kexplain.cli.exit_codes import ExitStatus
from kexplain.cli.options import (MAX_INPUT_SIZE_OPTION, NAMESPACE_OPTION, OUTPUT_OPTION, VALIDATE_OPTION, Output,
                                  max_objects_option)
from kexplain.cli.versions import admission_plugins_option, feature_gates_option, settle, version_choice, \
    version_option
from kexplain.render import structured
from kexplain.render.autoscale import print_scale_up

EXIT_HELP = ("Exit codes: 0 every pending pod triggered a scale-up or fits the free room of existing nodes, "
             "1 some pending pod did not, 2 bad usage or bad input, 4 internal error.")


def command(
    ctx: typer.Context,
    pods: Optional[str] = typer.Argument(None, metavar="PODS",
                                         help="The pending Pods, and workloads whose copies that do not fit are "
                                              "pending (file, directory or '-'); optional with mode: scaledown."),
    nodes: List[str] = typer.Option([], "--nodes", metavar="PATH",
                                    help="Cluster objects: Nodes, bound Pods, DaemonSets, PriorityClasses, "
                                         "ConfigMaps, ... (repeatable)."),
    node_groups: Optional[str] = typer.Option(None, "--node-groups", metavar="FILE",
                                              help="The node groups (NodeGroupList): sizes, node selector, template, "
                                                   "options. Without it, those CA's status ConfigMap or Cluster API "
                                                   "among --nodes report."),
    autoscaler_config: Optional[str] = typer.Option(None, "--autoscaler-config", metavar="FILE",
                                                    help="CA settings: mode, expander, maxNodesTotal, coresTotal, "
                                                         "memoryTotal, balanceSimilarNodeGroups, flags (any CA "
                                                         "flag by name)."),
    output: Output = OUTPUT_OPTION,
    max_input_size: int = MAX_INPUT_SIZE_OPTION,
    max_objects: int = max_objects_option(),
    validate: str = VALIDATE_OPTION,
    namespace: Optional[str] = NAMESPACE_OPTION,
    kubernetes_version: Optional[str] = version_option("the version a snapshot in --nodes recorded", CA_KUBERNETES,
                                                       "the scheduler the Cluster Autoscaler embeds"),
    feature_gates: Optional[str] = feature_gates_option(),
    admission_plugins: Optional[str] = admission_plugins_option(),
) -> ExitStatus:
    """Explain one Cluster Autoscaler loop: which pending pods trigger a scale-up of which node
    group, and why the others do not, events included, as the Cluster Autoscaler of
    openshift/kubernetes-autoscaler 70920d3c6f5f (Kubernetes v1.36.2 vendored) decides.

    Exit codes: 0 every pending pod triggered a scale-up or fits the free room of existing
    nodes, 1 some pending pod did not, 2 bad usage or bad input, 4 internal error."""
    env = env_of(ctx)
    choice = version_choice(env, kubernetes_version, feature_gates, admission_plugins)
    given = settle(env, choice) if choice.given else None    # a version given: checked before anything is read
    req = AutoscaleRequest(pods, tuple(nodes), node_groups, autoscaler_config, max_input_size, max_objects, validate,
                           namespace, env.stdin)
    doc = scale_up(req, choice, given, env.error)
    if output.value in structured.FORMATS:
        structured.write(env.stdout, doc, output.value)
    else:
        print_scale_up(doc, env.console())
    return exit_status(doc)


def exit_status(doc: dict) -> ExitStatus:
    """0 when every pending pod triggered a scale-up or fits existing room, else 1."""
    for pod in doc.get("pods") or ():
        if triggered(pod):
            continue
        if pod.get("outcome") == "FilteredOut" and pod.get("filteredBy") == "FilterOutSchedulable":
            continue
        return ExitStatus.UNSCHEDULABLE
    return ExitStatus.SUCCESS

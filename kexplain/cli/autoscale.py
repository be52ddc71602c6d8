"""`kexplain autoscale PODS --nodes CLUSTER [--node-groups GROUPS]`: one Cluster Autoscaler loop
over the pending pass (`kexplain.explain.pending_pass`: workloads' copies scheduled first, those
that do not fit pending); without --node-groups, the groups CLUSTER reports, found as live."""
from __future__ import annotations

from typing import List, Optional

import typer

from kexplain.autoscaler.cloudprovider import Discovery, discover_in, provenance
from kexplain.autoscaler.document import build_document, triggered
from kexplain.autoscaler.inputs import CA_KUBERNETES, load_loop
from kexplain.autoscaler.loop import run_once
from kexplain.autoscaler.pending import loop_over
from kexplain.cli.env import Environment, env_of
from kexplain.cli.exit_codes import ExitStatus
from kexplain.cli.options import (MAX_INPUT_SIZE_OPTION, NAMESPACE_OPTION, OUTPUT_OPTION, VALIDATE_OPTION, Output,
                                  max_objects_option)
from kexplain.cli.versions import feature_gates_option, settle, version_choice, version_option
from kexplain.errors import KexplainError
from kexplain.explain.inputs import settled_version
from kexplain.explain.pending_pass import PendingPass
from kexplain.explain.pods_file_pass import pods_file_pass
from kexplain.explain.request import VersionChoice
from kexplain.features import KubeVersion
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.manifests import load_objects
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
) -> ExitStatus:
    """Explain one Cluster Autoscaler loop: which pending pods trigger a scale-up of which node
    group, and why the others do not, events included, as the Cluster Autoscaler of
    openshift/kubernetes-autoscaler 70920d3c6f5f (Kubernetes v1.36.2 vendored) decides.

    Exit codes: 0 every pending pod triggered a scale-up or fits the free room of existing
    nodes, 1 some pending pod did not, 2 bad usage or bad input, 4 internal error."""
    env = env_of(ctx)
    choice = version_choice(env, kubernetes_version, feature_gates)
    given = settle(env, choice) if choice.given else None    # a version given: checked before anything is read
    groups = Discovery.from_file(node_groups, max_input_size) if node_groups else None
    with bulk_load(freeze=True):      # as the scheduler's CLI: no collection while reading, the snapshot frozen
        cluster = load_objects(tuple(nodes), max_input_size, env.stdin, max_objects=max_objects) if nodes else []
        groups = groups or _found(cluster)
        pod_objs = load_objects([pods], max_input_size, env.stdin, max_objects=max_objects,
                                namespace=namespace) if pods else []
        kube = given or _followed(env, choice, cluster)
        pp, pending = _workloads_pass(env, pods or "", pod_objs, cluster, kube, max_input_size, max_objects, validate)
        loop = load_loop(pods, tuple(nodes), groups, autoscaler_config, kube, max_bytes=max_input_size,
                         max_objects=max_objects, validate=validate, stdin=env.stdin, cluster_objects=cluster,
                         pod_objects=pending if pods else None, applied=pp)
    for warning in loop.warnings:
        env.error(f"warning: {warning}")
    if pp is not None:
        loop, _ = loop_over(loop, pp)
    doc = build_document(loop, run_once(loop))
    if not groups.file:         # found in the cluster's objects: where, as live
        doc["nodeGroupsFound"] = provenance(groups)
    if output.value in structured.FORMATS:
        structured.write(env.stdout, doc, output.value)
    else:
        print_scale_up(doc, env.console())
    return exit_status(doc)


def _found(cluster: list) -> Discovery:
    """The node groups the cluster's objects report (`cloudprovider.discover_in`), the notes of
    what could not be found said; none there is an error (exit 2)."""
    found = discover_in(cluster)
    if found is None or not found.groups:
        why = f" ({'; '.join(found.notes)})" if found is not None and found.notes else ""
        raise KexplainError("--node-groups FILE is needed: no node group is reported among --nodes (CA's status "
                            f"ConfigMap kube-system/cluster-autoscaler-status, Cluster API's objects){why}")
    return found


def _followed(env: Environment, choice: VersionChoice, cluster: list) -> KubeVersion:
    """The version a snapshot among the cluster's objects recorded, else the scheduler CA embeds
    (`CA_KUBERNETES`), with its warnings said."""
    kube, warnings = settled_version(choice, cluster, CA_KUBERNETES)
    for warning in warnings:
        env.error(f"warning: {warning}")
    return kube


def _workloads_pass(env: Environment, path: str, pod_objs: list, cluster: list, kube: KubeVersion,
                    max_bytes: int, max_objects: int, validate: str) -> tuple[Optional[PendingPass], list]:
    """The PODS file's pending pass (`explain.pods_file_pass`, as every command taking pods builds
    it) and the objects left to the loop; its warnings said."""
    found = pods_file_pass(path, pod_objs, cluster, kube, max_bytes=max_bytes, max_objects=max_objects,
                           validate=validate)
    for warning in found.warnings:
        env.error(f"warning: {warning}")
    return found.pending_pass, found.pods


def exit_status(doc: dict) -> ExitStatus:
    """0 when every pending pod triggered a scale-up or fits existing room, else 1. A pod the
    loop's scale-up was for counts as triggered also where --enforce-node-group-min-size's
    status replaced that scale-up's (`beforeMinSize`): its node is on its way all the same."""
    for pod in doc.get("pods") or ():
        if triggered(pod):
            continue
        if pod.get("outcome") == "FilteredOut" and pod.get("filteredBy") == "FilterOutSchedulable":
            continue
        return ExitStatus.UNSCHEDULABLE
    return ExitStatus.SUCCESS

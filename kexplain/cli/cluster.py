"""`kexplain cluster [--nodes FILE|DIR]`: what in the cluster is held, and why, one section per
question (`app.cluster.report`), over the cluster read once (from files, or live as `kexplain
snapshot` reads it). It parses, asks the app, writes the
report (`render.cluster`, or -o json|yaml) and picks the exit code: 0 nothing held, 1 something
held, 2 bad usage or bad input."""
from __future__ import annotations

from typing import List, Optional

import typer

from kexplain.app.cluster.access import refused_reads, unanswered
from kexplain.app.cluster.evictions import NAME as EVICTIONS
from kexplain.app.cluster.inputs import ClusterRequest, read_live
from kexplain.app.cluster.report import NAMES, as_written, chosen, report, report_of
from kexplain.app.live import Connect
from kexplain.cli.env import Environment, env_of
from kexplain.cli.live import say_karpenter_reads
from kexplain.cli.snapshot import read_cluster
from kexplain.cli.live_options import chunk_size_option, context_option, kubeconfig_option, timeout_option
from kexplain.cli.exit_codes import ExitStatus
from kexplain.cli.output import save_page
from kexplain.cli.options import (MAX_INPUT_SIZE_OPTION, OUTPUT_OPTION, VALIDATE_OPTION, Output,
                                  autoscaler_config_option, kubelet_config_option, max_objects_option,
                                  node_groups_option, parse_now)
from kexplain.errors import KexplainError, Source
from kexplain.features.kube_version import ENV_VAR, resolve
from kexplain.load.live import version_record
from kexplain.render import structured
from kexplain.render.cluster import print_report

EXIT_HELP = "Exit codes: 0 nothing is held, 1 something is held, 2 bad usage or bad input, 4 internal error."

NODES_OPTION = typer.Option([], "--nodes", metavar="PATH",
                            help="The cluster: files or a `kexplain snapshot` (file or directory), every "
                                 "kind in any file, the autoscalers', Kueue's and Karpenter's objects among "
                                 "them (repeatable).")
NODE_GROUPS_OPTION = node_groups_option("in place of those CA's status ConfigMap or Cluster API among --nodes "
                                        "report, as for kexplain pod.")
AUTOSCALER_CONFIG_OPTION = autoscaler_config_option("The Cluster Autoscaler's flags for its scale-down, as for "
                                                    "kexplain autoscale (its mode taken as scaledown).")
NODE_STATS_OPTION = typer.Option([], "--node-stats", metavar="NODE[=FILE]",
                                 help="A node's stats Summary (as `kubectl get --raw "
                                      "/api/v1/nodes/NODE/proxy/stats/summary` writes it), as kexplain evict "
                                      "pressure NODE --stats FILE takes it, beside those a snapshot kept "
                                      "(repeatable); live, NODE alone reads that node's through the node "
                                      "proxy, as kexplain snapshot --node-stats NODE, beside those of the nodes "
                                      "reporting pressure.")
KUBELET_CONFIG_OPTION = kubelet_config_option("The kubelets' KubeletConfiguration for those nodes, as for kexplain "
                                              "evict pressure (default: a snapshot's /configz, else the kubelet's "
                                              "defaults).")
VERSION_OPTION = typer.Option(None, "--kubernetes-version", metavar="X.Y",
                              help="The Kubernetes minor whose components decide (default: "
                                   "$KEXPLAIN_KUBERNETES_VERSION, else the version a snapshot "
                                   "recorded, else the newest followed).")
NAMESPACE_OPTION = typer.Option(None, "-n", "--namespace", metavar="NAMESPACE",
                                help="Only this namespace's pending pods and budgets (the nodes are "
                                     "the cluster's); live, the namespace a read RBAC refuses at the "
                                     "cluster scope falls back to (default: the context's).")
ALL_NAMESPACES_OPTION = typer.Option(False, "-A", "--all-namespaces",
                                     help="Every namespace's pending pods and budgets (the default; as kubectl, "
                                          "it wins over -n).")


def command(
    ctx: typer.Context,
    nodes: List[str] = NODES_OPTION,
    node_groups: Optional[str] = NODE_GROUPS_OPTION,
    autoscaler_config: Optional[str] = AUTOSCALER_CONFIG_OPTION,
    section: List[str] = typer.Option([], "--section", metavar="NAME",
                                      help=f"Only this section (repeatable): {', '.join(NAMES)}."),
    drain_check: bool = typer.Option(False, "--drain-check",
                                     help="Check every node's drain, not only the cordoned nodes'."),
    ignore_daemonsets: bool = typer.Option(False, "--ignore-daemonsets", help="As kubectl drain's, for every drain."),
    delete_emptydir_data: bool = typer.Option(False, "--delete-emptydir-data",
                                              help="As kubectl drain's, for every drain."),
    force: bool = typer.Option(False, "--force", help="As kubectl drain's, for every drain."),
    node_stats: List[str] = NODE_STATS_OPTION,
    kubelet_config: Optional[str] = KUBELET_CONFIG_OPTION,
    now: Optional[str] = typer.Option(None, "--now", metavar="TIME",
                                      help="The clock (RFC 3339; default: the current time)."),
    kubernetes_version: Optional[str] = VERSION_OPTION,
    output: Output = OUTPUT_OPTION,
    html: Optional[str] = typer.Option(None, "--html", metavar="FILE",
                                       help="Also write the report as one self-contained page: the summary at the "
                                            "top, each row expanding into its single-object answer."),
    max_input_size: int = MAX_INPUT_SIZE_OPTION,
    max_objects: int = max_objects_option(),
    validate: str = VALIDATE_OPTION,
    namespace: Optional[str] = NAMESPACE_OPTION,
    all_namespaces: bool = ALL_NAMESPACES_OPTION,
    kubeconfig: Optional[str] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    request_timeout: float = timeout_option(),
    chunk_size: int = chunk_size_option(),
) -> ExitStatus:
    """What in the cluster is held, and why: pending pods, queued work, budgets, drains, nodes kept,
    evictions coming; each row the single-object answer.

    Every pending pod grouped by owner and reason (as `kexplain pod -A` explains them, with the
    autoscalers' answer), every Workload Kueue holds (as `kexplain kueue` explains it), the
    PodDisruptionBudgets that allow no disruption and what they block, the cordoned nodes whose
    `kubectl drain` would not finish (as `kexplain evict drain NODE`), the nodes the Cluster
    Autoscaler's scale-down keeps (as `kexplain autoscale` in scale-down mode) and those Karpenter
    keeps (as `kexplain karpenter --disruption`), the nodes under pressure and the pods the kubelet
    evicts (as `kexplain evict pressure NODE`) and those NoExecute taints evict (as `kexplain evict
    taints NODE`).

    Without --nodes, the current context's cluster, read only (get and list, as `kexplain
    snapshot` reads it): a section whose reads RBAC refuses (403) says so and is skipped.

    Exit codes: 0 nothing is held, 1 something is held, 2 bad usage or bad input, 4 internal error."""
    env = env_of(ctx)
    if nodes and (kubeconfig or context):
        raise KexplainError("--kubeconfig and --context read the live cluster: give them without --nodes")
    kube, warnings = resolve(kubernetes_version, env.variables.get(ENV_VAR) or None)
    for warning in warnings:
        env.error(f"warning: {warning}")
    given = bool(kubernetes_version or env.variables.get(ENV_VAR))
    drain = {"ignore_daemonsets": ignore_daemonsets, "delete_emptydir_data": delete_emptydir_data, "force": force}
    files, named = parse_node_stats(node_stats)
    if nodes and named:
        raise typer.BadParameter(f"{named[0]!r}: NODE=FILE expected (NODE alone reads the node live, without "
                                 "--nodes)", param_hint="--node-stats")
    req = ClusterRequest(tuple(nodes), parse_now(now), kube, given, tuple(section), drain_check, max_input_size,
                         max_objects, validate, env.stdin, tuple(k for k, on in drain.items() if on), node_groups,
                         files, kubelet_config, autoscaler_config,
                         None if all_namespaces else namespace, html=html is not None)
    connect = Connect(kubeconfig, context, namespace, request_timeout, chunk_size)
    doc = report(req) if nodes else live_report(env, req, connect, named)
    for warning in doc.get("readWarnings") or ():
        env.error(f"warning: {warning}")
    for said in (n for s in doc["sections"] for n in s.get("notes") or ()):
        env.error(said)         # what a section's run said, as its single-object command says it
    if output.value in structured.FORMATS:
        structured.write(env.stdout, as_written(doc), output.value)
    else:
        print_report(doc, env.console())
    if html:
        save_page(html, doc)
    return ExitStatus.UNSCHEDULABLE if doc["held"] else ExitStatus.SUCCESS


def parse_node_stats(given: List[str]) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """--node-stats NODE=FILE (a file) and NODE (live: read through the node proxy), each node once."""
    out: dict[str, str] = {}
    for item in given:
        node, eq, path = item.partition("=")
        if not node or (eq and not path):
            raise typer.BadParameter(f"{item!r}: NODE=FILE or NODE expected", param_hint="--node-stats")
        if node in out:
            raise typer.BadParameter(f"node {node} given twice", param_hint="--node-stats")
        out[node] = path
    return tuple((n, p) for n, p in out.items() if p), tuple(n for n, p in out.items() if not p)


def live_report(env: Environment, req: ClusterRequest, connect: Connect, named: tuple[str, ...] = ()) -> dict:
    """The report over the live cluster, read once as `kexplain snapshot --node-stats NODE
    --node-stats-pressured` reads it (the `named` nodes' and those reporting pressure's stats
    Summary and configz too; RBAC's refusals kept, not raised), its objects in the snapshot's
    order: the same document as `kexplain cluster --nodes` over that snapshot."""
    sections = chosen(req.sections)                    # (bad usage before any read)
    evictions = any(s.name == EVICTIONS for s in sections)     # (no node proxy read for a report without it)
    stats = (named, True) if evictions else ((), False)
    live, reads, kept = read_cluster(env, connect, None, stats, allowed=True)
    say_karpenter_reads(env, live, refusals=False)     # (its notes: the refusals are the sections' lines)
    for note in unanswered(kept.notes):
        env.error(f"note: {note}")                     # (the node is named in the section, not explained)
    src = Source(live.server)
    record = [(version_record(live.server_version), src)] if live.server_version else []
    objects = [*record, *live.cluster, *((o, src) for o in (*kept.pods, *reads.objects, *kept.records))]
    refusals = [*live.refusals, *live.karpenter.refusals, *live.kueue.refusals, *live.volcano.refusals]
    inputs = read_live(req, objects, refused_reads(refusals, reads.unread, kept.notes))
    return report_of(inputs, sections)

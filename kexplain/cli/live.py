"""`kexplain pod NAME` (or `--pending`, `-A`): explain pods of a live cluster.

The cluster is read through `kexplain.app.live` (get and list only) and the stored objects
go to the same engine as `kexplain POD --nodes ... --stored`, so a snapshot
(`kexplain.cli.snapshot`) replays offline exactly what was explained live. The verdict is
compared with the scheduler's own last word (`kexplain.explain.compare`) and shown by
`kexplain.render.live`. This module parses, writes and picks the exit code.
"""
from __future__ import annotations

import json
from contextlib import contextmanager, nullcontext
from typing import Any, Iterator, Optional

import typer

from kexplain.app.explain import VolcanoOptions, as_asked, explain_for_page
from kexplain.app.live import (Connect, Live, Pending, PodArgs, Session, discovery_error, explain_named,
                               explain_pending, from_events, kueue_started, unschedulable,
                               verdict_in_queue)
from kexplain.app.live import session as app_session
from kexplain.autoscaler.cloudprovider import label_keys
from kexplain.cli.env import Environment, env_of
from kexplain.cli.exit_codes import ExitStatus, aggregate, for_result
from kexplain.cli.live_options import (chunk_size_option, context_option, kubeconfig_option, namespace_option,
                                       timeout_option)
from kexplain.suggest.kueue_held import held as kueue_held
from kexplain.cli.explain import Output, write_trace
from kexplain.cli.options import autoscaler_config_option, node_groups_option
from kexplain.cli.options import (EVICTED_STATS_HELP, aws_data_option, check_groups_options, karpenter_config_option,
                                  kubelet_config_option, kueue_version_option, stats_option)
from kexplain.cli.output import save_page
from kexplain.cli.volcano import volcano_version_option
from kexplain.cli.versions import feature_gates_option, settle, version_choice, version_option
from kexplain.errors import KexplainError
from kexplain.explain.batch import API_VERSION, LIST_KIND
from kexplain.explain.compare import compare, pod_key
from kexplain.explain.inputs import read_config
from kexplain.explain.request import VersionChoice
from kexplain.features import KubeVersion, VersionError
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.live import safe_url
from kexplain.render import structured
from kexplain.render.cluster_autoscaler import print_section as print_ca_section
from kexplain.render.from_event import print_from_events, refused_lines
from kexplain.render.karpenter_section import print_section as print_karpenter_section
from kexplain.volcano.conf import read as read_volcano_conf
from kexplain.volcano.versions import resolve as resolve_volcano
from kexplain.render.live import (LIVE_NO_NODES, live_json, print_comparison, print_pending, progress_bar,
                                  scheduling_bar)

__all__ = ["Connect", "Live", "PodArgs", "command", "run_pod", "session"]


# --- the reads' bar and session, shared with `kexplain snapshot` and `kexplain karpenter` ----------

def reading_bar(env: Environment):
    """The bar the reads draw on stderr when it is a terminal (`progress_bar`), as a factory."""
    return lambda: progress_bar(env.stderr, color=bool(env.color)) if env.stderr_is_terminal else nullcontext(None)


@contextmanager
def session(env: Environment, opts: Connect) -> Iterator[Session]:
    """One session with the API server (`app.live.Session`), its reads' bar on `env`'s stderr."""
    with app_session(opts, reading_bar(env)) as s:
        yield s


def followed_version(env: Environment, choice: VersionChoice, s: Session) -> KubeVersion:
    """The version followed for a live cluster: the one given, else the API server's (a newer minor
    as the newest kexplain follows, with a warning; an older one refused)."""
    reported = s.server_version()
    try:
        return settle(env, choice, reported)
    except VersionError as err:
        if reported is None:
            raise
        raise VersionError(f"{safe_url(s.conn.server)} runs Kubernetes {reported}: {err.message}; explain it as "
                           "a supported version with --kubernetes-version") from None


# --- `kexplain pod` ----------------------------------------------------------------------------

def command(
    ctx: typer.Context,
    name: Optional[str] = typer.Argument(None, metavar="NAME", help="The pod to explain."),
    namespace: Optional[str] = namespace_option(),
    all_namespaces: bool = typer.Option(False, "-A", "--all-namespaces",
                                        help="Every pending pod of every namespace (with no NAME)."),
    pending: bool = typer.Option(False, "--pending",
                                 help="Every pod that is Pending with PodScheduled=False: one line each."),
    details: bool = typer.Option(False, "--details", help="With --pending/-A: every reason on every node."),
    kubeconfig: Optional[str] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    config: Optional[str] = typer.Option(None, "--config", metavar="FILE",
                                         help="The cluster's KubeSchedulerConfiguration, if it has one."),
    output: Output = typer.Option(Output.table, "-o", "--output", help="table, wide, json or yaml."),
    start_index: int = typer.Option(0, "--start-index", min=0,
                                    help="The scheduler's round-robin position before this pod."),
    preemption: bool = typer.Option(True, "--preemption/--no-preemption",
                                    help="Run the DefaultPreemption dry run when no node fits."),
    preemption_offset: int = typer.Option(0, "--preemption-offset", min=0,
                                          help="Where the preemption candidate search starts."),
    node: Optional[str] = typer.Option(None, "--node", metavar="NAME",
                                       help="With a pod NAME: one node's full verdict, plugin by plugin, with "
                                            "the facts behind each (-o json/yaml: under `details`)."),
    request_timeout: float = timeout_option(),
    chunk_size: int = chunk_size_option(),
    kubernetes_version: Optional[str] = version_option("the API server's own"),
    feature_gates: Optional[str] = feature_gates_option(),
    html: Optional[str] = typer.Option(None, "--html", metavar="FILE",
                                       help="Also write the explanation (with --pending/-A: every pod's) as a "
                                            "self-contained interactive page."),
    node_group_label: Optional[list[str]] = typer.Option(
        None, "--node-group-label", metavar="KEY",
        help="A node label whose value names the node's autoscaler node group (besides EKS', GKE's and AKS' "
             "own); repeatable."),
    node_groups: Optional[str] = node_groups_option(
        "in place of those found in the cluster: what CA would do for the pods left pending."),
    autoscaler_config: Optional[str] = autoscaler_config_option(),
    node_group: Optional[str] = typer.Option(None, "--node-group", metavar="NAME",
                                             help="With node groups (given or found): one node group's full "
                                                  "verdict, plugin by plugin on its template node."),
    aws_data: Optional[str] = aws_data_option(),
    karpenter_config: Optional[str] = karpenter_config_option(),
    kueue_version: Optional[str] = kueue_version_option(),
    stats: Optional[str] = stats_option(EVICTED_STATS_HELP),
    kubelet_config: Optional[str] = kubelet_config_option(),
    scheduler_conf: Optional[str] = typer.Option(None, "--scheduler-conf", metavar="FILE",
                                                 help="For a pod Volcano schedules: its scheduler's configuration "
                                                      "(the volcano-scheduler.conf key of its ConfigMap, or the "
                                                      "ConfigMap); default: the cluster's ConfigMap "
                                                      "volcano-system/volcano-scheduler-configmap, else Volcano's "
                                                      "built-in one."),
    volcano_version: Optional[str] = volcano_version_option(),
) -> ExitStatus:
    """Explain a pod of the live cluster (or, with --pending / -A, every pending pod).

    Reads the pod and everything the scheduler's plugins read, with get and list only (the
    read-only ClusterRole of deploy/rbac.yaml), and compares the verdict with the pod's
    PodScheduled condition. When RBAC refuses some reads (a user of one namespace), the answer
    is the scheduler's own, from the pod's events, taken apart against its spec, with the reads
    that were refused. Exit codes as for `kexplain POD`; 2 also when the pod cannot be read."""
    env = env_of(ctx)
    args = PodArgs(name, Connect(kubeconfig, context, namespace, request_timeout, chunk_size),
                   all_namespaces, pending, details, config, output, start_index, preemption,
                   preemption_offset, node, version_choice(env, kubernetes_version, feature_gates), html,
                   tuple(node_group_label or ()), node_groups, autoscaler_config, node_group, aws_data,
                   karpenter_config, kueue_version, stats, kubelet_config,
                   VolcanoOptions(read_volcano_conf(scheduler_conf) if scheduler_conf is not None else None,
                                  resolve_volcano(volcano_version)))
    return run_pod(env, args)


def run_pod(env: Environment, args: PodArgs) -> ExitStatus:
    many = args.pending or args.all_namespaces
    if args.name and many:
        raise KexplainError("give a pod NAME or --pending/-A, not both")
    if args.node and not args.name:
        raise KexplainError("--node needs a pod NAME")
    check_groups_options(args.node_groups, args.autoscaler_config, args.node, args.node_group, discovering=True)
    if not args.name and not many:
        raise KexplainError("name a pod (kexplain pod NAME [-n NAMESPACE]), or pass --pending or -A")
    label_keys(args.node_group_labels)          # a bad --node-group-label, before the cluster is asked
    # A version given is checked before the cluster is asked anything; else the API server's
    # is read first: the configuration is read as that version's kube-scheduler reads it.
    kube = settle(env, args.version) if args.version.given else None
    with session(env, args.connect) as s:
        kube = kube or followed_version(env, args.version, s)
        config = read_config(args.config, kube=kube)
        with bulk_load(freeze=True):       # as offline: no collection while reading, the snapshot frozen
            live = s.read(args.name, allowed=not args.all_namespaces, node_group_labels=args.node_group_labels)
    say_karpenter_reads(env, live, refusals=not live.refusals)     # else they are in the block of refused reads
    if live.refusals:
        status = _explain_from_events(env, args, live, kube, config)
    elif args.name:
        status = _explain_named(env, args, live, config)
    else:
        status = _explain_pending(env, args, live, config)
    failed = discovery_error(live)
    if failed is None:
        return status
    env.error(f"error: {failed}")
    return aggregate([status, ExitStatus.BAD_INPUT])


def say_karpenter_reads(env: Environment, live: Live, refusals: bool = True) -> None:
    """On stderr: Karpenter's reads RBAC refused (with `refusals`), as the block of refused reads
    words them, and their notes; the answer goes on without them."""
    say_reads(env, live.karpenter, refusals)
    say_reads(env, live.kueue, refusals)
    say_reads(env, live.volcano, refusals)


def say_reads(env: Environment, read: Any, refusals: bool = True) -> None:
    """On stderr: the reads of a `KarpenterRead` or `PolicyRead` that RBAC refused (with
    `refusals`), in the words of the block of refused reads, and its notes; nothing for None."""
    if read is None:
        return
    for line in refused_lines([r.to_json() for r in read.refusals] if refusals else [], None):
        env.error(line)
    for note in read.notes:
        env.error(f"note: {note}")


def _explain_from_events(env: Environment, args: PodArgs, live: Live, kube: KubeVersion, config: Any) -> ExitStatus:
    """The cluster could not be read in full: the scheduler's own word on each pod, written."""
    done = from_events(args, live, kube, config, env.error)
    if args.html:
        save_page(args.html, done.whole)
    if args.output.value in structured.FORMATS:
        structured.write(env.stdout, done.whole, args.output.value)
    else:
        print_from_events(env.stdout, done.whole)
    return aggregate(ExitStatus.UNSCHEDULABLE if unschedulable(a) else ExitStatus.SUCCESS for a in done.answers)


def _explain_named(env: Environment, args: PodArgs, live: Live, config: Any) -> ExitStatus:
    named = explain_named(args, live, config, env.error)
    trace, where = named.trace, named.where
    if named.note:
        env.error(f"note: {named.note}")
    if args.output.value in structured.FORMATS:
        write_trace(env, {**trace, "live": where}, args.output)
    else:
        write_trace(env, trace, args.output, node=args.node, no_nodes_hint=LIVE_NO_NODES, node_group=named.node_group)
        print_comparison(env.console(), where)
    if args.html:
        extra = {k: trace[k] for k in ("autoscaler", "autoscalers", "karpenter", "queue", "kueue", "eviction")
                 if k in trace}
        page = explain_for_page(named.inputs, named.options, trace) if named.inputs is not None else trace  # (Volcano's)
        save_page(args.html, {**page, "live": where, **extra})
    return _status(named.verdict, trace.get("kueue"))


def _status(verdict: dict, kueue: Any) -> ExitStatus:
    """A pod's exit status: its verdict's, and 1 where Kueue holds its job, whatever the scheduler
    would do with the pod as stored (a pod its job's operator made, its Workload held): never all clear."""
    status = for_result(verdict["status"])
    return aggregate([status, ExitStatus.UNSCHEDULABLE]) if kueue_held(kueue) else status


def _explain_pending(env: Environment, args: PodArgs, live: Live, config: Any) -> ExitStatus:
    """Every pending pod (`app.live.explain_pending`), then the list: -o json/yaml from the spool,
    else one row per pod (traces with --details) and the page (--html); a progress bar on a tty."""
    structured_out = args.output.value in structured.FORMATS
    bar = lambda: scheduling_bar(env.stderr, color=bool(env.color), enabled=bool(env.stderr_is_terminal),  # noqa: E731
                                 what="explaining pending pods")
    done = explain_pending(args, live, config, env.error, structured=structured_out, progress=bar)
    extra: dict[str, Any] = {"autoscaler": done.doc} if done.doc is not None else {}
    if done.karpenter is not None:
        extra["karpenter"] = done.karpenter
    writer = structured.ListWriter(env.stdout, args.output.value, {"apiVersion": API_VERSION,
                                                                   "kind": LIST_KIND}) if structured_out else None
    listed, detailed, items, statuses = _list_items(args, live, done, writer)
    held = [h.to_json() for h in done.held]     # Kueue holds them: the work waits (exit 1, as a gated pod)
    statuses += [ExitStatus.UNSCHEDULABLE] * len(held)
    if held:
        extra["kueueHeld"] = held
    if writer is not None:
        writer.close({"skipped": done.skipped, **extra})
    else:
        where = "any namespace" if args.all_namespaces else f'namespace "{live.namespace}"'
        print_pending(env.stdout, env.console(), listed, detailed, where=where, wide=args.output is Output.wide,
                      held=held)
        if done.doc is not None:
            print_ca_section(done.doc, env.console(), done.node_group)
        if done.karpenter is not None:
            print_karpenter_section(done.karpenter, env.console())
        if listed and not args.details and env.stderr_is_terminal:
            env.error("For every reason on every node: --details, or kexplain pod NAME -n NAMESPACE.")
    if args.html:
        save_page(args.html, {"apiVersion": API_VERSION, "kind": LIST_KIND, "items": items, "skipped": done.skipped,
                              **extra})
    return aggregate(statuses)


def _volcano_item(args: PodArgs, live: Live, trace: dict, pod: dict, writer: Any,
                  into: tuple[list[dict], list[dict], list[dict], list[ExitStatus]]) -> None:
    """A pending pod Volcano schedules, listed with its session's answer (`app.live.volcano_pending`)."""
    listed, detailed, items, statuses = into
    comparison = compare(trace, pod, config_given=args.config is not None, server_version=live.server_version)
    item = {**trace, "live": live_json(live.server, live.context, live.server_version, comparison)}
    statuses.append(_status(item["result"], None))
    listed.append(item)
    items.append(item)
    if writer is not None:
        writer.item(item)
    if args.details:
        detailed.append(item)


def _list_items(args: PodArgs, live: Live, done: Pending, writer: Any
                ) -> tuple[list[dict], list[dict], list[dict], list[ExitStatus]]:
    """Each pod as listed (its list item, or why it was skipped): the rows, the page and -o
    json/yaml's items all read these very items."""
    statuses: list[ExitStatus] = []
    listed: list[dict[str, Any]] = []
    detailed: list[dict[str, Any]] = []   # each item as the output asked for it, for --details
    items: list[dict[str, Any]] = []      # every pod's item in full, for --html
    spool = done.spool
    if spool is not None:
        spool.seek(0)
    for e in done.explained:
        if e.volcano is not None:       # Volcano's pod: its session's answer, compared with its condition
            _volcano_item(args, live, e.volcano, e.pod, writer, (listed, detailed, items, statuses))
            continue
        if e.alone is None:
            listed.append({"pod": pod_key(e.pod), "reason": e.skipped})
            continue
        queue = {"queue": e.queue} if e.queue else {}
        verdict = verdict_in_queue({**e.slim, **queue})
        answers = {**done.answers(e, verdict), **({"kueue": e.kueue} if e.kueue is not None else {})}
        comparison = compare({**e.slim, "result": verdict}, e.pod, config_given=args.config is not None,
                             server_version=live.server_version, hints=e.hints)
        if e.kueue_started:
            comparison = kueue_started(comparison, e.kueue)
        where = live_json(live.server, live.context, live.server_version, comparison)
        shown = e.full if e.full is not None else e.trace if e.trace is not None else e.slim
        item = {**shown, **queue, **answers, "live": where}
        statuses.append(_status(verdict_in_queue(item), e.kueue))
        listed.append(item)
        if writer is not None and spool is not None:
            writer.item({**json.loads(spool.readline()), **queue, **answers, "live": where})
        if e.full is not None:
            items.append(item)
        if args.details:
            detailed.append(as_asked(item, done.options))
    if spool is not None:
        spool.close()
    return listed, detailed, items, statuses

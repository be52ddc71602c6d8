"""`kexplain pod NAME` (or `--pending`, `-A`): explain pods of a live cluster.

The cluster is read through `kexplain.load.live` (get and list only) and the stored objects
go to the same engine as `kexplain POD --nodes ... --stored`, so a snapshot
(`kexplain.cli.snapshot`) replays offline exactly what was explained live. The verdict is
compared with the scheduler's own last word (`kexplain.explain.compare`) and shown by
`kexplain.render.live`.
"""
from __future__ import annotations

from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterator, Optional

import typer

from kexplain.cli.env import Environment, env_of
from kexplain.cli.exit_codes import ExitStatus, aggregate, for_result, for_trace
from kexplain.cli.explain import (Output, as_asked, check_node, explain_for_page, explain_one, node_names, page_options,
                                  run_options, save_page, write_trace)
from kexplain.cli.node_groups import (NO_AUTOSCALER, autoscaled, check_groups, check_groups_options, check_node_group,
                                      run_autoscalers, with_scheduler)
from kexplain.cli.node_pools import aws_data_option, karpenter_config_option, karpentered, node_pools_request, \
    run_karpenter
from kexplain.cli.versions import feature_gates_option, settle, version_choice, version_option
from kexplain.errors import KexplainError, Source
from kexplain.explain.compare import compare, nominated_notes, pod_key
from kexplain.explain.request import VersionChoice
from kexplain.features import KubeVersion, VersionError
from kexplain.render import structured
from kexplain.render.live import LIVE_NO_NODES, live_json, print_comparison, print_pending

if TYPE_CHECKING:
    from kexplain.autoscaler.cloudprovider import Discovery
    from kexplain.explain.pending_pass import PendingPass

Obj = dict[str, Any]


# --- options shared with `kexplain snapshot` ----------------------------------------------------

def kubeconfig_option() -> Any:
    return typer.Option(None, "--kubeconfig", metavar="FILE",
                        help="Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster).")


def context_option() -> Any:
    return typer.Option(None, "--context", metavar="CONTEXT",
                        help="Kubeconfig context (default: the current one).")


def namespace_option() -> Any:
    return typer.Option(None, "-n", "--namespace", metavar="NAMESPACE", help="Namespace (default: the context's).")


def timeout_option() -> Any:
    return typer.Option(30.0, "--request-timeout", min=0.001, metavar="SECONDS",
                        help="Give up on a request to the API server after this long.")


def chunk_size_option() -> Any:
    return typer.Option(500, "--chunk-size", min=1, metavar="N", help="Objects per page when listing.")


@dataclass(frozen=True)
class Connect:
    kubeconfig: Optional[str] = None
    context: Optional[str] = None
    namespace: Optional[str] = None
    request_timeout: float = 30.0
    chunk_size: int = 500


@dataclass(frozen=True)
class Live:
    """What was read from the cluster."""

    server: str
    context: Optional[str]
    namespace: str               # -n, or the context's namespace
    cluster: list[tuple[Obj, Source]]
    pod: Optional[Obj] = None    # the named pod, as a get returned it
    server_version: Optional[str] = None
    refusals: tuple[Any, ...] = ()      # the reads RBAC refused (`kexplain.load.live.Refusal`), in order
    events: tuple[Obj, ...] = ()        # the namespace's pod events, read only when something was refused
    node_groups: Optional["Discovery"] = None   # the autoscaler's node groups, when asked for
    karpenter: Any = None               # `kexplain.load.live.KarpenterRead`: its objects are in `cluster`
    policies: Any = None                # `kexplain.load.live.PolicyRead`, when they were read (snapshot)
    kueue: Any = None                   # Kueue's read (`ClusterReader.read_kueue`): its objects are in `cluster`


class Session:
    """One connection to the API server: its version first (`server_version`: what the command
    follows, and so how the configuration is read), then the cluster (`read`)."""

    def __init__(self, env: Environment, opts: Connect) -> None:
        from kexplain.load.live import connect

        self.env, self.opts = env, opts
        self.conn = connect(opts.kubeconfig, opts.context)
        self.namespace = opts.namespace or self.conn.namespace
        self._version: Optional[str] = None
        self._asked = False

    def server_version(self) -> Optional[str]:
        """The API server's gitVersion (GET /version), None when it does not say; asked once."""
        from kexplain.load.live import ClusterReader

        if not self._asked:
            self._version = ClusterReader(self.conn, self.opts.chunk_size, self.opts.request_timeout).server_version()
            self._asked = True
        return self._version

    def read(self, pod_name: Optional[str] = None, allowed: bool = False,
             node_group_labels: Optional[tuple[str, ...]] = None, policies: bool = False) -> Live:
        """The named pod (get), then every kind the pipeline reads (list); a progress bar on
        stderr when it is a terminal. With `allowed`, a refused read (403) does not end it:
        what RBAC allows is read (`ClusterReader.read_allowed`), the refusals kept, and then
        the namespace's pod events too (the scheduler's own word). When `node_group_labels` is
        given (None: not asked for), the autoscaler's node groups too
        (`kexplain.autoscaler.cloudprovider.live`) and the DaemonSets its templates run, put
        with the cluster (each failure a note of the groups, never an error). Karpenter's
        objects when the cluster serves them (`ClusterReader.read_karpenter`, with the
        DaemonSets), put with the cluster; their refusals are `Live.karpenter`'s, and in the
        block of refused reads when the scheduler's were refused too. With `policies`, the
        namespaces' LimitRanges, ResourceQuotas and HPAs (`ClusterReader.read_policies`: what a
        set explained against a snapshot meets), put with the cluster after the scheduler's
        kinds; their refusals and notes are `Live.policies`'."""
        from kexplain.load.live import ClusterReader
        from kexplain.render.live import progress_bar

        env, opts = self.env, self.opts
        version = self.server_version()
        bar = progress_bar(env.stderr, color=bool(env.color)) if env.stderr_is_terminal else nullcontext(None)
        refusals: list[Any] = []
        events: list[Obj] = []
        with bar as progress:
            reader = ClusterReader(self.conn, opts.chunk_size, opts.request_timeout, progress)
            pod = reader.get_pod(self.namespace, pod_name) if pod_name else None
            if not allowed:
                cluster = reader.read_cluster()
            else:
                cluster, refusals = reader.read_allowed(self.namespace)
            policy_read = None
            if policies:
                policy_objects, policy_read = reader.read_policies(self.namespace)
                cluster.extend(policy_objects)
            karpenter_objects, karpenter = reader.read_karpenter()
            cluster.extend(karpenter_objects)
            kueue_objects, kueue = reader.read_kueue()
            cluster.extend(kueue_objects)
            if refusals:        # no simulation: every refused read, Karpenter's and Kueue's too, is named in one block
                refusals += karpenter.refusals + kueue.refusals
                events, refused = reader.list_events(self.namespace, "Pod", pod_name)
                refusals += [refused] if refused is not None else []
            groups = None
            if node_group_labels is not None:
                groups = _node_groups(reader, cluster, node_group_labels)
            if groups is not None or karpenter.installed:    # both put the DaemonSets' pods on new nodes
                daemonsets, failed = _daemonsets(reader)
                cluster.extend(daemonsets)
                if groups is not None:
                    groups = groups.with_notes([f"DaemonSets could not be read (the template nodes get no DaemonSet "
                                                f"pod): {failed}"] if failed else [])
                if karpenter.installed and failed and not refusals:     # else nothing is simulated
                    karpenter = replace(karpenter, notes=(*karpenter.notes, "DaemonSets could not be read (Karpenter's "
                                                          f"DaemonSet overhead on new nodes is not counted): {failed}"))
        from kexplain.load.manifests import as_dump
        return Live(self.conn.server, self.conn.context, self.namespace, as_dump(cluster), pod, version,
                    tuple(refusals), tuple(events), groups, karpenter, policy_read, kueue)

    def close(self) -> None:
        close = getattr(self.conn.api_client, "close", None)
        if close is not None:
            close()


def _node_groups(reader: Any, cluster: list[tuple[Obj, Source]], labels: tuple[str, ...]) -> "Discovery":
    """The autoscaler's node groups (`read_node_groups`). What stops their discovery (a status
    ConfigMap CA would not write) is bad input, but none is needed to explain a pod: it is kept
    (source "error", `discovery_error`) and reported after the explanation, which counts it (2)."""
    from kexplain.autoscaler.cloudprovider import Discovery
    from kexplain.autoscaler.cloudprovider.live import read_node_groups

    try:
        return read_node_groups(reader, cluster, labels)
    except KexplainError as err:
        return Discovery(notes=(f"the autoscaler's node groups could not be found: {err}",),
                         sources=("error",))


def _daemonsets(reader: Any) -> tuple[list[tuple[Obj, Source]], Optional[str]]:
    """The DaemonSets (`kexplain.load.live.DAEMONSETS`: CA's templates and Karpenter's new
    nodes run their pods), or none and why they could not be read."""
    from kexplain.load.live import DAEMONSETS, LiveError

    try:
        items = reader.list_served(DAEMONSETS)
    except LiveError as err:
        return [], err.message
    src = Source(f"{reader.conn.server}{DAEMONSETS.path}")
    return [(obj, src) for obj in items], None


@contextmanager
def session(env: Environment, opts: Connect) -> Iterator[Session]:
    s = Session(env, opts)
    try:
        yield s
    finally:
        s.close()


def read_live(env: Environment, opts: Connect, pod_name: Optional[str] = None, policies: bool = False) -> Live:
    """/version, the named pod (get), then every kind the pipeline reads (list); with
    `policies`, the namespaces' policies and HPAs too (`Session.read`)."""
    with session(env, opts) as s:
        s.server_version()
        return s.read(pod_name, policies=policies)


def followed_version(env: Environment, choice: VersionChoice, s: Session) -> KubeVersion:
    """The version to follow for a live cluster: --kubernetes-version (or the environment's),
    else the API server's own (a minor newer than kexplain's newest followed as that one, with
    a warning; one older than the oldest refused), else the default."""
    reported = s.server_version()
    try:
        return settle(env, choice, reported)
    except VersionError as err:
        if reported is None:
            raise
        raise VersionError(f"{safe_server(s.conn.server)} runs Kubernetes {reported}: {err.message}; explain it as "
                           "a supported version with --kubernetes-version") from None


def safe_server(server: str) -> str:
    from kexplain.load.live import safe_url
    return safe_url(server)


# --- `kexplain pod` ----------------------------------------------------------------------------

@dataclass(frozen=True)
class PodArgs:
    name: Optional[str]
    connect: Connect
    all_namespaces: bool = False
    pending: bool = False
    details: bool = False
    config: Optional[str] = None
    output: Output = Output.table
    start_index: int = 0
    preemption: bool = True
    preemption_offset: int = 0
    node: Optional[str] = None
    version: VersionChoice = VersionChoice()
    html: Optional[str] = None
    node_group_labels: tuple[str, ...] = ()
    node_groups: Optional[str] = None         # --node-groups: the Cluster Autoscaler's
    autoscaler_config: Optional[str] = None
    node_group: Optional[str] = None
    aws_data: Optional[str] = None            # Karpenter's, when the cluster has NodePools
    karpenter_config: Optional[str] = None


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
    node_groups: Optional[str] = typer.Option(None, "--node-groups", metavar="FILE",
                                              help="The Cluster Autoscaler's node groups (NodeGroupList), in "
                                                   "place of those found in the cluster: what CA would do for "
                                                   "the pods left pending."),
    autoscaler_config: Optional[str] = typer.Option(None, "--autoscaler-config", metavar="FILE",
                                                    help="CA settings for the node groups."),
    node_group: Optional[str] = typer.Option(None, "--node-group", metavar="NAME",
                                             help="With node groups (given or found): one node group's full "
                                                  "verdict, plugin by plugin on its template node."),
    aws_data: Optional[str] = aws_data_option(),
    karpenter_config: Optional[str] = karpenter_config_option(),
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
                   karpenter_config)
    return run_pod(env, args)


def run_pod(env: Environment, args: PodArgs) -> ExitStatus:
    many = args.pending or args.all_namespaces
    if args.name and many:
        raise KexplainError("give a pod NAME or --pending/-A, not both")
    if args.node and not args.name:
        raise KexplainError("--node needs a pod NAME")
    check_groups_options(args, args.node, args.node_group, discovering=True)
    if not args.name and not many:
        raise KexplainError("name a pod (kexplain pod NAME [-n NAMESPACE]), or pass --pending or -A")
    from kexplain.autoscaler.cloudprovider import label_keys
    from kexplain.explain.inputs import read_config
    from kexplain.load.gcpolicy import bulk_load

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
    """On stderr: Karpenter's reads RBAC refused (with `refusals`), in the words of the block
    of refused reads (what each would add, the rule that allows it), and the notes of those
    reads. The answer goes on without them."""
    say_reads(env, live.karpenter, refusals)
    say_reads(env, live.kueue, refusals)


def say_reads(env: Environment, read: Any, refusals: bool = True) -> None:
    """On stderr: the reads of a `KarpenterRead` or `PolicyRead` that RBAC refused (with
    `refusals`), in the words of the block of refused reads, and its notes; nothing for None."""
    from kexplain.render.from_event import refused_lines

    if read is None:
        return
    for line in refused_lines([r.to_json() for r in read.refusals] if refusals else [], None):
        env.error(line)
    for note in read.notes:
        env.error(f"note: {note}")


def discovery_error(live: Live) -> Optional[str]:
    """What stopped the discovery of the autoscaler's node groups (`_node_groups`), or None."""
    groups = live.node_groups
    if groups is not None and not groups.groups and groups.sources == ("error",):
        return groups.notes[-1]         # with_notes puts the others first
    return None


def groups_of(args: PodArgs, live: Live, cluster: list[tuple[Obj, Source]]):
    """The node groups CA's loop runs with (`GroupsRequest`): --node-groups FILE, else those
    found in the cluster (`Live.node_groups`), else None (no section); --node-group and
    --autoscaler-config without any is an error."""
    from kexplain.autoscaler.cloudprovider import Discovery
    from kexplain.autoscaler.pending import GroupsRequest

    found = live.node_groups
    if args.node_groups:
        return GroupsRequest(Discovery.from_file(args.node_groups), args.autoscaler_config, cluster_objects=cluster)
    if found is not None and found.groups:
        return GroupsRequest(found, args.autoscaler_config, cluster_objects=cluster)
    for flag, given in (("--autoscaler-config", args.autoscaler_config), ("--node-group", args.node_group)):
        if given is not None:
            raise KexplainError(f"{flag} needs node groups: none were found in the cluster (CA's status ConfigMap, "
                                "provider labels, Cluster API): give --node-groups FILE")
    return None


def _explain_from_events(env: Environment, args: PodArgs, live: Live, kube: KubeVersion, config: Any) -> ExitStatus:
    """The cluster could not be read in full: no simulation, the scheduler's own word on each
    pod (`kexplain.explain.from_event`), with what was refused and what each read would add."""
    from datetime import datetime, timezone

    from kexplain.autoscaler.events import autoscaler_events
    from kexplain.explain import partial
    from kexplain.explain.from_event import GATED, UNSCHEDULABLE, answer
    from kexplain.load.live import is_pending_unschedulable
    from kexplain.render.from_event import print_from_events

    now = datetime.now(timezone.utc)
    if args.node:
        env.error(f"note: --node {args.node} is not shown: a node's full verdict needs the reads RBAC refused")
    if args.node_groups or (live.node_groups is not None and live.node_groups.groups):
        env.error("note: the Cluster Autoscaler's loop is not run: it holds every pending pod of the cluster, which "
                  "RBAC does not let kexplain list; CA's own events on the pod are shown instead")
    if args.name:
        assert live.pod is not None
        pods = [live.pod]
    else:
        pods = [o for o, _ in live.cluster if o.get("kind") == "Pod" and is_pending_unschedulable(o)
                and (o.get("metadata") or {}).get("namespace") == live.namespace
                and not (o.get("metadata") or {}).get("deletionTimestamp")]
    objects = [o for o, _ in live.cluster]
    nodes_read = not any(r.resource.plural == "nodes" for r in live.refusals)

    def per_node(pod: Obj) -> Optional[Obj]:
        return partial.per_node(pod, _source(live, pod), live.cluster, config, kube)

    def gating(pod: Obj) -> list[Obj]:
        return partial.gating(pod, _source(live, pod), live.cluster, config, kube)

    def autoscaler(pod: Obj) -> list[Obj]:
        return autoscaler_events(pod, live.events, objects, kube, now)

    answers = [answer(pod, live.events, objects, live.refusals, kube, now, per_node if nodes_read else None, gating,
                      autoscaler) for pod in pods]
    where = {"server": live.server, "context": live.context, "serverVersion": live.server_version,
             "snapshot": snapshot_hint(args.name, live.namespace)}
    documents = [{"apiVersion": "kexplain/v1", "kind": "FromEvents",
                  "pod": {"namespace": (a.pod.get("metadata") or {}).get("namespace"),
                          "name": (a.pod.get("metadata") or {}).get("name")},
                  "kubernetesVersion": kube.minor, "fromEvent": a.to_json(), "live": where} for a in answers]
    whole = documents[0] if args.name else {"apiVersion": "kexplain/v1", "kind": "FromEventsList",
                                             "namespace": live.namespace, "items": documents,
                                             "refused": [r.to_json() for r in live.refusals],
                                             "snapshot": where["snapshot"]}
    if args.html:
        save_page(args.html, whole)
    if args.output.value in structured.FORMATS:
        structured.write(env.stdout, whole, args.output.value)
    else:
        print_from_events(env.stdout, whole)
    return aggregate(ExitStatus.UNSCHEDULABLE if a.word.status in (UNSCHEDULABLE, GATED) or a.gates
                     else ExitStatus.SUCCESS for a in answers)


def snapshot_hint(name: Optional[str], namespace: str) -> str:
    """What someone with cluster reads can run and send: a redacted snapshot that replays offline."""
    pod = f" {name} -n {namespace}" if name else ""
    return f"kexplain snapshot{pod} --redact -o cluster.json"


def _source(live: Live, pod: Obj) -> Source:
    meta = pod.get("metadata") or {}
    return Source(f"{live.server} pods/{meta.get('namespace')}/{meta.get('name')}")


def _explain_named(env: Environment, args: PodArgs, live: Live, config: Any) -> ExitStatus:
    from kexplain.explain.inputs import inputs_from_objects
    from kexplain.explain.queue_order import Alone
    from kexplain.load.live import as_pending

    assert live.pod is not None
    pod, cluster, note = as_pending(live.pod, live.cluster)
    options = run_options(args.output, args.node, start_index=args.start_index, preemption=args.preemption,
                          preemption_offset=args.preemption_offset)     # zones, requests, --node: as offline
    try:
        inputs = inputs_from_objects(pod, _source(live, pod), cluster, config, stored=True)
        check_node(args.node, node_names(inputs.snapshot), LIVE_NO_NODES)
        trace = explain_one(inputs, options, True)
    except KexplainError as err:
        if "profile not found" in err.message:    # said of the pod, as --pending says it
            raise KexplainError(f"pod {pod_key(pod)}: {err.message}") from None
        raise
    from kexplain.kueue.chain import live_answer
    kueue = live_answer(live.pod, live.cluster)     # Kueue's answer first, its Workload's status beside
    if kueue is not None:
        trace["kueue"] = kueue
    pending = not (live.pod.get("spec") or {}).get("nodeName")
    others = [p for p in pending_pods(live) if pod_key(p) != inputs.pod.key] if pending else []
    groups = groups_of(args, live, cluster)
    pools = node_pools_request(cluster, args.aws_data, args.karpenter_config)     # the cluster's NodePools
    # the queue `--pending -A` walks: its verdict there, and every pod's nomination for the autoscalers
    walked, walked_pods = cluster_queue(env, args, live, config, [Alone.of(inputs, trace)] if pending else [],
                                        inputs.snapshot, inputs.nominated,
                                        nominations=groups is not None or pools is not None)
    answer = walked.get(inputs.pod.key)
    if answer is not None:
        trace["queue"] = answer.to_json()
    post = answer.post_filter if answer is not None else trace.get("postFilter")
    queued = [(inputs, {"postFilter": post}), *in_queue_pass(walked, walked_pods, {inputs.pod.key})]
    verdict = verdict_in_queue(trace)       # the queue's, when the pods ahead change it
    # CA packs every pending pod: one that the queue places may find no room in CA's loop
    packed = verdict["status"] == "Scheduled" and bool(others)
    if groups is not None:
        if args.node_group is not None or verdict["status"] not in NO_AUTOSCALER or packed:
            autoscaled(trace, groups, config.kube, live_pass(queued), inputs.pod)
            trace["autoscalers"] = with_scheduler(trace["autoscalers"], verdict["status"], verdict.get("suggestedHost"),
                                                  trace["autoscaler"])
            if packed and args.node_group is None and all((a.get("scheduler") or {}).get("agrees", True)
                                                          for a in trace["autoscalers"]):
                del trace["autoscaler"], trace["autoscalers"]       # CA finds it room too: nothing to say
            else:
                args = replace(args, node_group=check_node_group(args.node_group, trace["autoscaler"]))
        elif groups.groups.file:     # read all the same: a bad file is refused whatever the verdict
            check_groups(groups, config.kube)
    if pools is not None and verdict["status"] not in NO_AUTOSCALER:
        karpentered(trace, pools, config.kube, live_pass(queued), inputs.pod.key)
        if "suggestions" in trace:      # a node comes from a NodePool: Karpenter's fixes say which (as offline)
            from kexplain.suggest.add_node import ADD_NODE
            trace["suggestions"] = [s for s in trace["suggestions"] if s.get("kind") != ADD_NODE]
    comparison = compare({**trace, "result": verdict}, live.pod, config_given=args.config is not None,
                         server_version=live.server_version,
                         hints=tuple(([note] if note else []) + nominated_notes(inputs, trace)))
    if note:
        env.error(f"note: {note}")
    where = live_json(live.server, live.context, live.server_version, comparison)
    if args.output.value in structured.FORMATS:
        write_trace(env, {**trace, "live": where}, args.output)
    else:
        write_trace(env, trace, args.output, node=args.node, no_nodes_hint=LIVE_NO_NODES, node_group=args.node_group)
        print_comparison(env.console(), where)
    if args.html:
        extra = {k: trace[k] for k in ("autoscaler", "autoscalers", "karpenter", "queue", "kueue") if k in trace}
        save_page(args.html, {**explain_for_page(inputs, options, trace), "live": where, **extra})
    return for_result(verdict["status"])


def pending_pods(live: Live) -> list[Obj]:
    """The cluster's pending pods the scheduler has tried (PodScheduled=False), every namespace,
    but those being deleted (the scheduler skips them), as listed."""
    from kexplain.load.live import is_pending_unschedulable
    return [o for o, _ in live.cluster if o.get("kind") == "Pod" and is_pending_unschedulable(o)
            and not (o.get("metadata") or {}).get("deletionTimestamp")]


def queue_options(args: PodArgs) -> Any:
    """How the pods the queue takes are scheduled: as --pending schedules them (no extra keys)."""
    from kexplain.explain.request import RunOptions
    return RunOptions(start_index=args.start_index, preemption=args.preemption,
                      preemption_offset=args.preemption_offset, filter_all=False)


def walk_note(left: "tuple[str, ...]") -> str:
    """What the walk of the scheduler's queue left out (`QueueWalk.left`), for stderr."""
    from kexplain.explain.queue_order import PREEMPTION_RERUNS, RERUNS
    n = len(left)
    return (f"note: walking the scheduler's queue, kexplain scheduled again at most {RERUNS} pods that fit alone "
            f"and {PREEMPTION_RERUNS} that preempt; {n} more ({left[0]}{', ...' if n > 1 else ''}) keep their "
            "verdict alone")


def cluster_queue(env: Environment, args: PodArgs, live: Live, config: Any, explained: "list[Any]", snapshot: Any,
                  nominated: Any, *, nominations: bool, skipped: "frozenset[str]" = frozenset()
                  ) -> "tuple[Any, list[Any]]":
    """The scheduler's queue over the cluster's pending pods, every namespace's, as both
    `kexplain pod NAME` and `--pending` walk it (`kexplain.explain.queue_order`): the pods
    explained already (`explained`, each `Alone`), and those of the others the walk needs
    (`queue_order.needed`: the pods ahead of the last one that moves alone; with
    `nominations`, where an autoscaler reads every pending pod's nomination, every pod that
    may preempt), explained alone here against the cluster (`snapshot`, with the pods
    `nominated` there); but those that could not be explained already (`skipped`, keys). The
    walk (a walk cut short said on stderr) and the pods it went over."""
    from kexplain.explain.batch import explain_each
    from kexplain.explain.pod_inputs import Inputs
    from kexplain.explain.queue_order import Alone, needed, walk
    from kexplain.model.pod import PodInfo

    options = queue_options(args)
    pending = [Inputs(PodInfo(p), _source(live, p), snapshot, config, nominated) for p in pending_pods(live)
               if pod_key(p) not in skipped]

    def explain_alone(pods: "list[Inputs]") -> "list[Alone]":
        return [Alone.of(v.inputs, v.trace) for v in explain_each(pods, options) if v.trace is not None]

    pods = needed(explained, pending, explain_alone, nominations=nominations)
    walked = walk(pods, options)
    if walked.left:
        env.error(walk_note(walked.left))
    return walked, pods


def in_queue_pass(walked: Any, pods: "list[Any]", shown: "set[str]") -> "list[tuple[Any, dict]]":
    """What the autoscalers see of the pods the queue went over but `shown` (keys: the pods
    the command explains, which it passes itself): each nominated where the queue leaves its
    preemption, standing for nobody (`live_pass`)."""
    return [(a.inputs, {"postFilter": walked.post_filter(a), "standsFor": ""}) for a in pods if a.key not in shown]


def verdict_in_queue(trace: dict) -> dict:
    """The pod's verdict as the scheduler's queue leaves it: its `queue` answer's, else its own."""
    from kexplain.explain.queue_order import in_queue
    return dict(in_queue(trace))


def live_pass(explained: "list[tuple[Any, Optional[dict]]]") -> "PendingPass":
    """What the autoscalers see of a live cluster: the pods explained (`Inputs`, with their
    explanation's trace, or what of it counts: its `postFilter`; None), each standing for itself
    (but one whose `standsFor` is "": a pod of the cluster nobody asked about), nominated where
    its preemption would nominate it; every other pending pod of the cluster (all namespaces)
    joins when the autoscaler reads the cluster (`PendingPass.with_cluster_pending`), in
    creation order."""
    from kexplain.explain.pending_pass import PassBuilder

    builder = PassBuilder()
    for inputs, trace in explained:
        trace = trace or {}
        builder.add_pod(inputs.pod, inputs.pod_source, post_filter=trace.get("postFilter"),
                        stands_for=trace.get("standsFor"))
    return builder.build()


def _explain_pending(env: Environment, args: PodArgs, live: Live, config: Any) -> ExitStatus:
    """Every pending pod explained on its own against the cluster as it is (`explain_each`), then
    the cluster's queue over them (`cluster_queue`, as `pod NAME` walks it: a pod whose room the
    pods ahead take says so), then ONE autoscalers' pass over every pending pod (nominated where
    the queue leaves their preemption), then the list: `-o json`/`-o yaml` write each item with
    its answers (the traces wait in a spool file meanwhile, so memory stays flat); the table one
    row per pod (and the traces only with --details) and the page (--html) read the same items;
    a progress bar on stderr while the pods are explained when it is a terminal."""
    import json as _json
    import tempfile

    from kexplain.explain.batch import API_VERSION, LIST_KIND, explain_each
    from kexplain.explain.pod_inputs import Inputs
    from kexplain.state.build import build_cluster
    from kexplain.explain.queue_order import Alone
    from kexplain.explain.request import RunOptions
    from kexplain.load.live import is_pending_unschedulable
    from kexplain.model.pod import PodInfo
    from kexplain.render.live import scheduling_bar
    from kexplain.suggest import suggestions as suggest

    pods = [o for o, _ in live.cluster if o.get("kind") == "Pod" and is_pending_unschedulable(o)
            and (args.all_namespaces or (o.get("metadata") or {}).get("namespace") == live.namespace)]
    deleting = sum(1 for p in pods if (p.get("metadata") or {}).get("deletionTimestamp"))
    pods = [p for p in pods if not (p.get("metadata") or {}).get("deletionTimestamp")]
    if deleting:
        env.error(f"note: skipped {deleting} pending pod(s) being deleted (the scheduler skips them)")
    snapshot, nominated = build_cluster(live.cluster)
    # No extra trace keys: the list shows one line per pod (and -o json what offline -o json shows).
    options = RunOptions(start_index=args.start_index, preemption=args.preemption,
                         preemption_offset=args.preemption_offset)
    recorded = page_options(options, [ni.name for ni in snapshot.node_infos]) if args.html else options
    structured_out = args.output.value in structured.FORMATS
    skipped: list[dict[str, str]] = []
    spool = tempfile.TemporaryFile("w+", encoding="utf-8") if structured_out else None
    explained: list[_Explained] = []
    with scheduling_bar(env.stderr, color=bool(env.color), enabled=bool(env.stderr_is_terminal),
                        what="explaining pending pods") as bar:
        inputs = (Inputs(PodInfo(pod), _source(live, pod), snapshot, config, nominated) for pod in pods)
        for pod, verdict in zip(pods, explain_each(inputs, recorded, suggest, planned=len(pods), progress=bar.update)):
            if verdict.trace is None:
                explained.append(_Explained(pod, skipped=verdict.error, inputs=verdict.inputs))
                skipped.append({"pod": pod_key(pod), "reason": verdict.error})
                continue
            full = verdict.trace.to_json()
            trace = as_asked(full, options)
            if spool is not None:
                spool.write(_json.dumps(trace) + "\n")
            explained.append(_Explained(pod, Alone.of(verdict.inputs, verdict.trace), _slim(trace),
                                        tuple(nominated_notes(verdict.inputs, trace)),
                                        trace if args.details else None, full if args.html else None))
    ran = None       # with node groups: ONE loop over every pending pod (each item has its answer)
    groups = groups_of(args, live, live.cluster)
    pools = node_pools_request(live.cluster, args.aws_data, args.karpenter_config)    # the cluster's NodePools
    alone = [e.alone for e in explained if e.alone is not None]
    # the cluster's queue, as `pod NAME` walks it: the pods of other namespaces it needs explained too
    walked, walked_pods = cluster_queue(env, args, live, config, alone, snapshot, nominated,
                                        nominations=groups is not None or pools is not None,
                                        skipped=frozenset(pod_key(e.pod) for e in explained if e.alone is None))
    for e in explained:
        answer = walked.get(e.alone.key) if e.alone is not None else None
        if answer is not None:
            e.queue = answer.to_json()
    seen = [(e.inputs if e.alone is None else e.alone.inputs, {"postFilter": e.post_filter}) for e in explained]
    seen += in_queue_pass(walked, walked_pods, {a.key for a in alone})
    if groups is not None and (pods or args.node_group is not None or groups.groups.file):   # a file: checked anyway
        ran = run_autoscalers(groups, config.kube, live_pass(seen))
        if ran.explained or args.node_group is not None:
            args = replace(args, node_group=check_node_group(args.node_group, ran.document))
    if pools is not None and pods:      # ONE provisioning pass over every pending pod
        kp = run_karpenter(pools, config.kube, live_pass(seen))
        ran = ran.joined(kp) if ran is not None else kp
    doc = ran.document if ran is not None and (ran.explained or args.node_group is not None) else None
    doc = doc or None       # Karpenter's pass alone: no CA document
    extra = {"autoscaler": doc} if doc is not None else {}
    karpenter = ran.documents.get("karpenter") if ran is not None and ran.explained else None
    if karpenter is not None:
        extra["karpenter"] = karpenter
    statuses: list[ExitStatus] = []
    # each pod as listed: its item of the list (trace, queue, answers, live), or why it was
    # skipped; the text's rows and the page read these very items (`render.queue.pending_line`)
    listed: list[dict[str, Any]] = []
    detailed: list[dict[str, Any]] = []   # each item as the output asked for it, for --details
    items: list[dict[str, Any]] = []      # every pod's item in full, for --html
    writer = structured.ListWriter(env.stdout, args.output.value, {"apiVersion": API_VERSION,
                                                                   "kind": LIST_KIND}) if structured_out else None
    if spool is not None:
        spool.seek(0)
    for e in explained:
        if e.alone is None:
            listed.append({"pod": pod_key(e.pod), "reason": e.skipped})
            continue
        queue = {"queue": e.queue} if e.queue else {}
        verdict = verdict_in_queue({**e.slim, **queue})
        answers = {}
        if ran is not None:
            answers = {"autoscalers": with_scheduler(ran.pod(pod_key(e.pod)), verdict["status"],
                                                     verdict.get("suggestedHost"), ran.document)}
        comparison = compare({**e.slim, "result": verdict}, e.pod, config_given=args.config is not None,
                             server_version=live.server_version, hints=e.hints)
        where = live_json(live.server, live.context, live.server_version, comparison)
        shown = e.full if e.full is not None else e.trace if e.trace is not None else e.slim
        item = {**shown, **queue, **answers, "live": where}
        statuses.append(for_result(verdict_in_queue(item)["status"]))
        listed.append(item)
        if writer is not None and spool is not None:
            writer.item({**_json.loads(spool.readline()), **queue, **answers, "live": where})
        if e.full is not None:
            items.append(item)
        if args.details:
            detailed.append(as_asked(item, options))
    if spool is not None:
        spool.close()
    if writer is not None:
        writer.close({"skipped": skipped, **extra})
    else:
        where = "any namespace" if args.all_namespaces else f'namespace "{live.namespace}"'
        print_pending(env.stdout, env.console(), listed, detailed, where=where, wide=args.output is Output.wide)
        if doc is not None:
            from kexplain.render.cluster_autoscaler import print_section
            print_section(doc, env.console(), args.node_group)
        if karpenter is not None:
            from kexplain.render.karpenter_section import print_section as print_karpenter
            print_karpenter(karpenter, env.console())
        if listed and not args.details and env.stderr_is_terminal:
            env.error("For every reason on every node: --details, or kexplain pod NAME -n NAMESPACE.")
    if args.html:
        save_page(args.html, {"apiVersion": API_VERSION, "kind": LIST_KIND, "items": items, "skipped": skipped,
                              **extra})
    return aggregate(statuses)


@dataclass
class _Explained:
    """A pending pod of `--pending` once explained alone: its verdict (`alone`), the few keys of
    its trace the list reads (`_slim`), the hints of its comparison; its trace in full for
    --details (`trace`) and --html (`full`); its answer in the scheduler's queue (`queue`, the
    trace's key, when it differs); or why it was skipped."""

    pod: Obj
    alone: Any = None
    slim: dict[str, Any] = field(default_factory=dict)
    hints: tuple[str, ...] = ()
    trace: Optional[dict[str, Any]] = None
    full: Optional[dict[str, Any]] = None
    skipped: str = ""
    queue: Optional[dict[str, Any]] = None
    inputs: Any = None      # a skipped pod's (the autoscalers see it all the same)

    @property
    def post_filter(self) -> Optional[dict[str, Any]]:
        """Its PostFilter as the queue leaves it (where preemption nominates it)."""
        if self.queue is not None:
            return self.queue.get("postFilter")
        return self.alone.post_filter if self.alone is not None else None


# The keys of a trace the list reads (`render.live.summary`, `explain.compare.compare`, the exit code).
SLIM_KEYS = ("apiVersion", "kind", "pod", "profile", "kubernetesVersion", "result", "preEnqueue", "tieBreak")


def _slim(trace: dict[str, Any]) -> dict[str, Any]:
    """The few keys of a trace `--pending`'s list reads, without the per-node ones."""
    out = {k: trace[k] for k in SLIM_KEYS if k in trace}
    post = trace.get("postFilter")
    if post:
        out["postFilter"] = {k: post[k] for k in ("code", "message", "nominatedNodeName", "victims") if k in post}
    search = trace.get("search")
    if search:
        out["search"] = {k: search[k] for k in ("numAllNodes", "orderDeterministic") if k in search}
    return out

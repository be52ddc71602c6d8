"""A live cluster (`kexplain pod NAME`, `--pending`, `-A`, and `kexplain snapshot`'s reads): one
session with the API server (its version first, then the cluster, get and list only: `Session`);
then a named pod explained against the stored objects with the scheduler's queue over the
cluster's pending pods (`explain_named`), or every pending pod (`explain_pending`: each alone,
then the queue, then ONE autoscalers' pass over every pending pod); or, when RBAC refused
reads, the scheduler's own word from the events (`from_events`). Kueue's live objects are read
with the cluster (`Live.kueue`). Returns documents; the command line writes them."""
from __future__ import annotations

import json
import tempfile
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Callable, ContextManager, Iterator, Mapping, Optional

from kexplain.app.autoscalers import AutoscalerRun, adapter, node_pools
from kexplain.app.eviction.request import LiveRead
from kexplain.app.eviction.now import NowFiles, add_ranking_now
from kexplain.app.volcano import answer_pods
from kexplain.app.volcano_pod import answer as volcano_answer, answered as volcano_answered, is_volcano_pod
from kexplain.app.explain import AutoscalerOptions, Autoscalers, NO_AUTOSCALER, VolcanoOptions, as_asked, \
    check_node, explain_one, node_names, page_options, run_options, volcano_chain, without_add_node_json
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.autoscaler.cloudprovider import Discovery
from kexplain.autoscaler.cloudprovider.live import read_node_groups
from kexplain.autoscaler.events import autoscaler_events
from kexplain.errors import KexplainError, Source
from kexplain.eviction.evicted import evicted, evicted_among
from kexplain.explain import partial
from kexplain.explain.batch import explain_each
from kexplain.explain.compare import compare, nominated_notes, pod_key
from kexplain.explain.from_event import GATED, UNSCHEDULABLE, answer
from kexplain.explain.inputs import inputs_from_objects
from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.pending_pass import PassBuilder, PendingPass
from kexplain.explain import queue_order
from kexplain.explain.queue_order import Alone, in_queue, needed, walk
from kexplain.explain.request import RunOptions, VersionChoice
from kexplain.features import KubeVersion
from kexplain.kueue.chain import Held, live_kueue
from kexplain.load.live import DAEMONSETS, VOLCANO_CONFIG_MAP, VOLCANO_NAMESPACE, ClusterReader, LiveError, \
    as_pending, connect, is_pending_unschedulable
from kexplain.load.limits import DEFAULT_MAX_BYTES
from kexplain.load.manifests import as_dump
from kexplain.model.pod import PodInfo
from kexplain.render.live import LIVE_NO_NODES, live_json
from kexplain.state.build import build_cluster
from kexplain.state.cluster import ClusterState, stored_state
from kexplain.suggest import suggestions as suggest
from kexplain.suggest.kueue_held import flavor_fixes
from kexplain.volcano.conf import SchedulerConf, chosen as chosen_conf

Obj = dict[str, Any]
Say = Callable[[str], None]
# `Session.read(finished=WITH_KARPENTER)`: every pod on a cluster that serves karpenter.sh/v1 (a
# snapshot, which `kexplain karpenter --disruption --nodes` replays as live reads it), else unfinished ones.
WITH_KARPENTER = "karpenter"


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
    node_groups: Optional[Discovery] = None   # the autoscaler's node groups, when asked for
    karpenter: Any = None               # `kexplain.load.live.KarpenterRead`: its objects are in `cluster`
    policies: Any = None                # `kexplain.load.live.PolicyRead`, when they were read (snapshot)
    kueue: Any = None                   # Kueue's read (`ClusterReader.read_kueue`): its objects are in `cluster`
    removal: tuple[tuple[Obj, ...], tuple[Obj, ...]] = ((), ())   # a removed pod's events and its node's
    volcano: Any = None                 # Volcano's read (`ClusterReader.read_volcano`): its objects are in `cluster`


class Session:
    """One connection to the API server: its version first (what the command follows), then the
    cluster (`read`); `progress()`: the bar the reads draw."""

    def __init__(self, opts: Connect, progress: Callable[[], ContextManager] = lambda: nullcontext(None)) -> None:
        self.opts, self.progress = opts, progress
        self.conn = connect(opts.kubeconfig, opts.context)
        self.namespace = opts.namespace or self.conn.namespace
        self._version: Optional[str] = None
        self._asked = False

    def server_version(self) -> Optional[str]:
        """The API server's gitVersion (GET /version), None when it does not say; asked once."""
        if not self._asked:
            self._version = ClusterReader(self.conn, self.opts.chunk_size, self.opts.request_timeout).server_version()
            self._asked = True
        return self._version

    def read(self, pod_name: Optional[str] = None, allowed: bool = False,
             node_group_labels: Optional[tuple[str, ...]] = None, policies: bool = False,
             finished: bool | str = False) -> Live:
        """The named pod (get), then every kind the pipeline reads (list). With `allowed`, a 403 does
        not end it: what RBAC allows is read, the refusals kept, then the namespace's pod events. The
        node groups when asked (`node_group_labels`; failures are notes), Karpenter's and Kueue's
        objects when served, and with `policies` the namespaces' LimitRanges, quotas and HPAs, all put
        with the cluster. The pods are the scheduler's informer's (unfinished ones), or with
        `finished` every pod, Succeeded and Failed too, as Karpenter's informer lists them
        (WITH_KARPENTER: on a cluster that serves karpenter.sh/v1, a snapshot's)."""
        version = self.server_version()
        with self.progress() as progress:
            reader = ClusterReader(self.conn, self.opts.chunk_size, self.opts.request_timeout, progress,
                                   finished is True)
            if finished == WITH_KARPENTER and reader.serves_karpenter():
                reader.pod_fields = ""
            pod = reader.get_pod(self.namespace, pod_name) if pod_name else None
            cluster, refusals = (reader.read_cluster(), []) if not allowed else reader.read_allowed(self.namespace)
            policy_read = None
            if policies:
                policy_objects, policy_read = reader.read_policies(self.namespace)
                cluster.extend(policy_objects)
            karpenter_objects, karpenter = reader.read_karpenter()
            cluster.extend(karpenter_objects)
            kueue_objects, kueue = reader.read_kueue()
            cluster.extend(kueue_objects)
            volcano_objects, volcano = reader.read_volcano()
            cluster.extend(volcano_objects)
            events: list[Obj] = []
            if refusals:        # no simulation: every refused read, Karpenter's, Kueue's, Volcano's, in one block
                refusals += karpenter.refusals + kueue.refusals + volcano.refusals
                events, refused = reader.list_events(self.namespace, "Pod", pod_name)
                refusals += [refused] if refused is not None else []
            groups = _node_groups(reader, cluster, node_group_labels) if node_group_labels is not None else None
            groups, karpenter = _with_daemonsets(reader, cluster, groups, karpenter, bool(refusals))
            removal = _removal_events(reader, pod) if pod is not None and not refusals else ((), ())
        return Live(self.conn.server, self.conn.context, self.namespace, as_dump(cluster), pod, version,
                    tuple(refusals), tuple(events), groups, karpenter, policy_read, kueue, removal, volcano)

    def close(self) -> None:
        close = getattr(self.conn.api_client, "close", None)
        if close is not None:
            close()


def _removal_events(reader: Any, pod: Obj) -> tuple[tuple[Obj, ...], tuple[Obj, ...]]:
    """A removed pod's events (who asked for its removal: `kexplain.eviction.evicted.asked_by`) and
    its node's (kept in "default", as for every cluster-scoped object); none for a pod its status
    does not say was removed, or when RBAC refuses them (what it says is then the status alone)."""
    if evicted(pod) is None:
        return (), ()
    meta = pod.get("metadata") or {}
    events, _ = reader.list_events(meta.get("namespace") or "default", "Pod", meta.get("name"))
    node = (pod.get("spec") or {}).get("nodeName")
    node_events, _ = reader.list_events("default", "Node", node) if node else ([], None)
    return tuple(events), tuple(node_events)


def removed(live: Live) -> Optional[dict]:
    """`evicted_among` of the live pod: its events and its node's as read for it, the NodeClaim and
    Node of the cluster read."""
    assert live.pod is not None
    events, node_events = live.removal
    src = Source(live.server)
    listed = [({"apiVersion": "v1", "kind": "Event", **e}, src) for e in (*events, *node_events)]  # a list's items
    return evicted_among(live.pod, [*live.cluster, *listed])


def _with_daemonsets(reader: Any, cluster: list, groups: Optional[Discovery], karpenter: Any,
                     refused: bool) -> tuple[Optional[Discovery], Any]:
    """The DaemonSets put with the cluster when the node groups or Karpenter put their pods on
    new nodes; what kept them from being read a note of each."""
    if groups is None and not karpenter.installed:
        return groups, karpenter
    daemonsets, failed = _daemonsets(reader)
    cluster.extend(daemonsets)
    if groups is not None:
        groups = groups.with_notes([f"DaemonSets could not be read (the template nodes get no DaemonSet "
                                    f"pod): {failed}"] if failed else [])
    if karpenter.installed and failed and not refused:     # else nothing is simulated
        karpenter = replace(karpenter, notes=(*karpenter.notes, "DaemonSets could not be read (Karpenter's "
                                              f"DaemonSet overhead on new nodes is not counted): {failed}"))
    return groups, karpenter


def _node_groups(reader: Any, cluster: list[tuple[Obj, Source]], labels: tuple[str, ...]) -> Discovery:
    """The autoscaler's node groups; a discovery that stops on bad input is kept (source "error")
    and reported after the explanation, which counts it (2)."""
    try:
        return read_node_groups(reader, cluster, labels)
    except KexplainError as err:
        return Discovery(notes=(f"the autoscaler's node groups could not be found: {err}",),
                         sources=("error",))


def _daemonsets(reader: Any) -> tuple[list[tuple[Obj, Source]], Optional[str]]:
    """The DaemonSets (`kexplain.load.live.DAEMONSETS`: CA's templates and Karpenter's new
    nodes run their pods), or none and why they could not be read."""
    try:
        items = reader.list_served(DAEMONSETS)
    except LiveError as err:
        return [], err.message
    src = Source(f"{reader.conn.server}{DAEMONSETS.path}")
    return [(obj, src) for obj in items], None


@contextmanager
def session(opts: Connect, progress: Callable[[], ContextManager] = lambda: nullcontext(None)) -> Iterator[Session]:
    s = Session(opts, progress)
    try:
        yield s
    finally:
        s.close()


def discovery_error(live: Live) -> Optional[str]:
    """What stopped the discovery of the autoscaler's node groups (`_node_groups`), or None."""
    groups = live.node_groups
    if groups is not None and not groups.groups and groups.sources == ("error",):
        return groups.notes[-1]         # with_notes puts the others first
    return None


@dataclass(frozen=True)
class PodArgs:
    name: Optional[str]
    connect: Connect
    all_namespaces: bool = False
    pending: bool = False
    details: bool = False
    config: Optional[str] = None
    output: Any = "table"       # the command line's Output (its `human`, its `value`)
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
    kueue_version: Optional[str] = None       # --kueue-version: the Kueue release that answers (None: v0.17.8)
    stats: Optional[str] = None               # an evicted pod's node's Summary (else read through the node proxy)
    kubelet_config: Optional[str] = None      # and its kubelet's configuration (else its configz)
    volcano: VolcanoOptions = VolcanoOptions()   # --scheduler-conf (None: the ConfigMap read), --volcano-version
    now: Optional[datetime] = None            # the clock of CA's loop and Volcano's sessions (kexplain cluster's
                                              # --now); None: the wall clock


def kueue_capacity(args: PodArgs, live: Live) -> Any:
    """Who answers the ProvisioningRequests of Kueue's live pass: the Cluster Autoscaler with
    --node-groups FILE (or groups the cluster's objects report), as for `kexplain POD --node-groups`;
    None (no one: the checks stay as they are) without them. Its adapter is imported only then."""
    made = kueue_capacity_of(args, live)
    return made() if made is not None else None


def kueue_capacity_of(args: PodArgs, live: Live) -> Optional[Callable[[], Any]]:
    """What makes `kueue_capacity` (None: no node groups), for `live_kueue` to call only when Kueue's
    pass runs: a cluster without Kueue's objects never has CA's groups looked for among its objects.
    --node-groups FILE is read now all the same: a bad one is refused first, whatever Kueue does."""
    if not (args.node_groups or (live.node_groups is not None and live.node_groups.groups)):
        return None
    ca = adapter("cluster-autoscaler")
    groups = ca.read_node_groups(args.node_groups, DEFAULT_MAX_BYTES) if args.node_groups else None
    return lambda: ca.kueue_provisioner(groups, args.autoscaler_config, DEFAULT_MAX_BYTES, "strict",
                                        list(live.cluster))


def autoscalers_of(args: PodArgs, live: Live, state: ClusterState) -> Autoscalers:
    """The autoscalers for a live cluster, over the session's one cluster state (`state`, the
    scheduler's): CA (--node-groups, else the groups found), Karpenter when it holds NodePools;
    CA's options without groups are an error."""
    found = live.node_groups
    groups = None
    cluster = state.read if state.read is not None else state.objects
    if args.node_groups or (found is not None and found.groups):
        groups = adapter("cluster-autoscaler").live_groups(args.node_groups, args.autoscaler_config, found, state,
                                                           args.now)
    else:
        for flag, given in (("--autoscaler-config", args.autoscaler_config), ("--node-group", args.node_group)):
            if given is not None:
                raise KexplainError(f"{flag} needs node groups: none were found in the cluster (CA's status "
                                    "ConfigMap, provider labels, Cluster API): give --node-groups FILE")
    return Autoscalers(groups, node_pools(cluster, args.aws_data, args.karpenter_config, now=args.now))


def _source(live: Live, pod: Obj) -> Source:
    meta = pod.get("metadata") or {}
    return Source(f"{live.server} pods/{meta.get('namespace')}/{meta.get('name')}")


# --- the cluster's queue -------------------------------------------------------------------------

def tried_pods(cluster: list[tuple[Obj, Source]]) -> list[Obj]:
    """The cluster's pods the scheduler has tried and left Pending (PodScheduled=False), every
    namespace, being deleted or not, as listed: ONE pass over the objects for `pending_of` and
    `pending_pods`; a dump's bound pods (`StoredPod`: never pending) are not asked anything."""
    return [o for o, _ in cluster if type(o) is not StoredPod and o.get("kind") == "Pod" and is_pending_unschedulable(o)]


def pending_pods(live: Live, tried: Optional[list[Obj]] = None) -> list[Obj]:
    """The cluster's pending pods the scheduler has tried (PodScheduled=False), every namespace,
    but those being deleted (the scheduler skips them), as listed; `tried`: `tried_pods` found already."""
    return [o for o in (tried_pods(live.cluster) if tried is None else tried)
            if not (o.get("metadata") or {}).get("deletionTimestamp")]


def cluster_queue(args: PodArgs, live: Live, config: Any, explained: list[Alone], snapshot: Any, nominated: Any, *,
                  nominations: bool, skipped: frozenset[str] = frozenset(),
                  tried: Optional[list[Obj]] = None) -> tuple[Any, list[Alone]]:
    """The scheduler's queue over the cluster's pending pods, as `pod NAME` and `--pending` walk it
    (`explain.queue_order`): the pods explained already, and those the walk needs explained alone
    here (every pod that may preempt with `nominations`), but the `skipped`; `tried`: as `pending_pods`."""
    options = RunOptions(start_index=args.start_index, preemption=args.preemption,     # as --pending: no extra keys
                         preemption_offset=args.preemption_offset, filter_all=False)
    pending = [Inputs(PodInfo(p), _source(live, p), snapshot, config, nominated) for p in pending_pods(live, tried)
               if pod_key(p) not in skipped]

    def explain_alone(pods: list[Inputs]) -> list[Alone]:
        return [Alone.of(v.inputs, v.trace) for v in explain_each(pods, options) if v.trace is not None]

    pods = needed(explained, pending, explain_alone, nominations=nominations)
    return walk(pods, options), pods


def in_queue_pass(walked: Any, pods: list[Alone], shown: set[str]) -> list[tuple[Any, dict]]:
    """What the autoscalers see of the pods the queue went over but `shown`: each nominated where
    the queue leaves its preemption, standing for nobody."""
    return [(a.inputs, {"postFilter": walked.post_filter(a), "standsFor": ""}) for a in pods if a.key not in shown]


def verdict_in_queue(trace: dict) -> dict:
    """The pod's verdict as the scheduler's queue leaves it: its `queue` answer's, else its own."""
    return dict(in_queue(trace))


def live_pass(explained: list[tuple[Any, Optional[dict]]]) -> PendingPass:
    """What the autoscalers see of a live cluster: the pods explained, each standing for itself
    (`standsFor` "": nobody asked), nominated where their preemption would; the cluster's other
    pending pods join when the autoscaler reads it."""
    builder = PassBuilder()
    for inputs, trace in explained:
        trace = trace or {}
        builder.add_pod(inputs.pod, inputs.pod_source, post_filter=trace.get("postFilter"),
                        stands_for=trace.get("standsFor"))
    return builder.build()


# --- `kexplain pod NAME` -------------------------------------------------------------------------

@dataclass(frozen=True)
class Named:
    """A named pod explained: its trace with every answer, its queue verdict, the comparison with
    the scheduler's word, how it was read, and what --html runs again."""

    trace: dict
    verdict: dict
    where: dict
    note: Optional[str]
    inputs: Optional[Inputs]        # None: Volcano's answer (no kube-scheduler cycle to run again)
    options: RunOptions
    node_group: Optional[str]


def explain_named(args: PodArgs, live: Live, config: Any, say: Say) -> Named:
    """The named pod explained alone against the stored cluster as Kueue leaves it, its verdict in
    the scheduler's queue, the autoscalers over the queue's pass, compared with PodScheduled."""
    assert live.pod is not None
    volcano = volcano_named(args, live, config)
    if volcano is not None:
        return volcano
    kueue_pass = live_kueue([live.pod], live.cluster, version=args.kueue_version,     # Kueue's answer first
                            capacity_of=kueue_capacity_of(args, live))
    kueue = kueue_pass.chains[0]
    for kueue_note in kueue_pass.notes:
        say(f"note: {kueue_note}")
    pod, cluster, note = as_pending(kueue.pod if kueue is not None else live.pod, live.cluster)
    options = run_options(args.output.human, args.node, start_index=args.start_index, preemption=args.preemption,
                          preemption_offset=args.preemption_offset)     # zones, requests, --node: as offline
    try:
        inputs = inputs_from_objects(pod, _source(live, pod), cluster, config, stored=True)
        check_node(args.node, node_names(inputs.snapshot), LIVE_NO_NODES)
        trace = explain_one(inputs, options, True)
    except KexplainError as err:
        if "profile not found" in err.message:    # said of the pod, as --pending says it
            raise KexplainError(f"pod {pod_key(pod)}: {err.message}") from None
        raise
    if kueue is not None:
        trace["kueue"] = kueue.answer       # its Workload's status as stored beside
    if "eviction" in trace:     # who removed it, with the node it ran on (the binding the pass dropped)
        trace["eviction"] = removed(live)
        c = args.connect        # a kubelet's eviction: its node's ranking now, through the node proxy
        now = NowFiles(args.stats, args.kubelet_config, live=LiveRead(c.kubeconfig, c.context, c.request_timeout,
                                                                      c.chunk_size))
        add_ranking_now(trace, live.pod, inputs.snapshot, config.kube, now)
    pending = not (live.pod.get("spec") or {}).get("nodeName")
    others = [p for p in pending_pods(live) if pod_key(p) != inputs.pod.key] if pending else []
    autoscalers = autoscalers_of(args, live, stored_state(cluster, inputs.snapshot, inputs.nominated, config))
    # the queue `--pending -A` walks: its verdict there, and every pod's nomination for the autoscalers
    walked, walked_pods = cluster_queue(args, live, config, [Alone.of(inputs, trace)] if pending else [],
                                        inputs.snapshot, inputs.nominated, nominations=bool(autoscalers.each))
    if walked.left:
        say(walk_note(walked.left))
    answer = walked.get(inputs.pod.key)
    if answer is not None:
        trace["queue"] = answer.to_json()
    post = answer.post_filter if answer is not None else trace.get("postFilter")
    queued = [(inputs, {"postFilter": post}), *in_queue_pass(walked, walked_pods, {inputs.pod.key})]
    verdict = verdict_in_queue(trace)       # the queue's, when the pods ahead change it
    node_group = _named_autoscalers(args, trace, verdict, autoscalers, config.kube, queued, inputs, bool(others))
    if kueue is not None and "suggestions" in trace:    # (the autoscalers' too) a flavor's entry: its ResourceFlavor's
        trace["suggestions"] = flavor_fixes(trace["suggestions"], kueue.answer, inputs.pod.obj)
    comparison = compare({**trace, "result": verdict}, live.pod, config_given=args.config is not None,
                         server_version=live.server_version,
                         hints=tuple(([note] if note else []) + nominated_notes(inputs, trace)))
    if kueue is not None and kueue.started:
        comparison = kueue_started(comparison, kueue.answer)
    where = live_json(live.server, live.context, live.server_version, comparison)
    return Named(trace, verdict, where, note, inputs, options, node_group)


def volcano_named(args: PodArgs, live: Live, config: Any) -> Optional[Named]:
    """A pod Volcano schedules (`app.volcano_pod`): its session over the stored cluster (its PodGroups,
    Queues and Jobs read with it), compared with the PodScheduled condition Volcano wrote; None for a
    pod of kube-scheduler's."""
    assert live.pod is not None
    pod, cluster, note = as_pending(live.pod, live.cluster)
    if not is_volcano_pod(pod, (p.scheduler_name for p in config.profiles)):
        return None
    check_node(args.node, [(o.get("metadata") or {}).get("name", "") for o, _ in cluster if o.get("kind") == "Node"],
               LIVE_NO_NODES)
    conf = volcano_conf(args, live)
    done = volcano_answered(pod, cluster, [], stored=True, unread=volcano_unread(live), conf=conf,
                            version=args.volcano.version, now=args.now)
    trace = with_conf_notes(done.trace, conf)
    # the autoscalers over the pass Volcano's session leaves, as `kexplain POD` chains them (`app.volcano_chain`)
    inputs = inputs_from_objects(pod, _source(live, pod), cluster, config, stored=True)
    autoscalers = autoscalers_of(args, live, stored_state(cluster, inputs.snapshot, inputs.nominated, config))
    node_group = volcano_chain(done, autoscalers, AutoscalerOptions(args.aws_data, args.karpenter_config,
                                                                    args.node_group), config.kube, inputs.pod)
    comparison = compare(trace, live.pod, config_given=args.config is not None, server_version=live.server_version,
                         hints=(note,) if note else ())
    where = live_json(live.server, live.context, live.server_version, comparison)
    options = run_options(args.output.human, args.node)
    return Named(trace, trace["result"], where, note, None, options, node_group)


VOLCANO_CONF_REFUSED = ("Volcano's scheduler ConfigMap {name} could not be read (RBAC): Volcano's default "
                        "configuration runs; give the cluster's with --scheduler-conf FILE")


def with_conf_notes(trace: dict, conf: SchedulerConf) -> dict:
    """`trace` with the configuration's warnings first among its notes, as `kexplain POD` says them."""
    if conf.warnings and "volcano" in trace:
        trace["volcano"]["notes"] = [*conf.warnings, *trace["volcano"].get("notes", [])]
    return trace


def volcano_unread(live: Live) -> list[str]:
    """The plurals of Volcano's reads RBAC refused (`app.volcano_pod.answered`'s `unread`)."""
    return [r.resource.plural for r in (live.volcano.refusals if live.volcano is not None else ())]


def volcano_conf(args: PodArgs, live: Live) -> SchedulerConf:
    """Volcano's configuration for a live cluster, as `kexplain POD` picks it: --scheduler-conf, else the
    scheduler's ConfigMap read (`volcano.conf.chosen`), else the default; a refused get of the ConfigMap
    said among its warnings (the answer's notes)."""
    if args.volcano.conf is not None:
        return args.volcano.conf
    conf = chosen_conf(None, live.cluster)
    if "configmaps" in volcano_unread(live):
        said = VOLCANO_CONF_REFUSED.format(name=f"{VOLCANO_NAMESPACE}/{VOLCANO_CONFIG_MAP}")
        conf = replace(conf, warnings=(*conf.warnings, said))
    return conf


KUEUE_STARTED = ("kexplain scheduled the pod as Kueue would start it (its Workload admitted: the "
                 "kueue.x-k8s.io/admission gate removed, its flavor's node labels and tolerations merged); "
                 "the cluster's pod is still gated")


KUEUE_UNGATED = ("kexplain scheduled the pod as Kueue's topology ungater would ungate it (its Workload admitted "
                 "by TAS: the kueue.x-k8s.io/topology gate removed, its domain's node labels added to its "
                 "nodeSelector); the cluster's pod is still gated")


def kueue_started(comparison: Any, answer: Optional[Mapping[str, Any]] = None) -> Any:
    """The comparison of a pod scheduled as Kueue starts it (or, its `answer` saying
    `topologyUngated`, as its topology ungater ungates it): the cluster's condition speaks of
    the gated pod, so nothing to agree with; said why."""
    hint = KUEUE_UNGATED if answer and answer.get("topologyUngated") else KUEUE_STARTED
    return replace(comparison, agrees=None, notes=(), hints=(hint, *comparison.hints))


def _named_autoscalers(args: PodArgs, trace: dict, verdict: dict, autoscalers: Autoscalers, kube: KubeVersion,
                       queued: list, inputs: Inputs, others: bool) -> Optional[str]:
    """The autoscalers for the named pod over the queue's pass, CA's answer compared with the queue's
    verdict (CA packs every pending pod); --node-group resolved."""
    node_group = args.node_group
    groups, pools = autoscalers.groups, autoscalers.pools
    packed = verdict["status"] == "Scheduled" and others
    if groups is not None:
        if node_group is not None or verdict["status"] not in NO_AUTOSCALER or packed:
            ca = adapter("cluster-autoscaler")
            groups.explain_one(trace, live_pass(queued), kube, inputs.pod)
            trace["autoscalers"] = ca.with_scheduler(trace["autoscalers"], verdict["status"],
                                                     verdict.get("suggestedHost"), trace["autoscaler"])
            if packed and node_group is None and all((a.get("scheduler") or {}).get("agrees", True)
                                                     for a in trace["autoscalers"]):
                del trace["autoscaler"], trace["autoscalers"]       # CA finds it room too: nothing to say
            else:
                node_group = ca.check_node_group(node_group, trace["autoscaler"])
        elif groups.groups.file:     # read all the same: a bad file is refused whatever the verdict
            groups.check(kube)
    if pools is not None and verdict["status"] not in NO_AUTOSCALER:
        pools.explain_one(trace, live_pass(queued), kube, inputs.pod)
        without_add_node_json(trace)    # a node comes from a NodePool: Karpenter's fixes say which (as offline)
    return node_group


def walk_note(left: tuple[str, ...]) -> str:
    """What the walk of the scheduler's queue left out (`QueueWalk.left`), for stderr."""
    n = len(left)
    more = f"{n} more ({left[0]}{', ...' if n > 1 else ''}) keep their verdict alone"
    return (f"note: walking the scheduler's queue, kexplain scheduled again at most {queue_order.RERUNS} pods that "
            f"fit alone and {queue_order.PREEMPTION_RERUNS} that preempt; {more}")


# --- `kexplain pod --pending` / `-A` -------------------------------------------------------------

@dataclass
class Explained:
    """A pending pod of `--pending` once explained alone: what the list, --details and --html read
    of it, its answer in the queue when it differs; or why it was skipped."""

    pod: Obj
    alone: Any = None
    slim: dict[str, Any] = field(default_factory=dict)
    hints: tuple[str, ...] = ()
    trace: Optional[dict[str, Any]] = None
    full: Optional[dict[str, Any]] = None
    skipped: str = ""
    queue: Optional[dict[str, Any]] = None
    inputs: Any = None      # a skipped pod's (the autoscalers see it all the same)
    kueue: Optional[dict[str, Any]] = None     # Kueue's answer, for a pod Kueue manages (`live_kueue`)
    kueue_started: bool = False     # explained as Kueue starts it (admitted), not as stored (gated)
    volcano: Optional[dict[str, Any]] = None   # a pod Volcano schedules: its session's SchedulingTrace

    @property
    def post_filter(self) -> Optional[dict[str, Any]]:
        """Its PostFilter as the queue leaves it (where preemption nominates it)."""
        if self.queue is not None:
            return self.queue.get("postFilter")
        return self.alone.post_filter if self.alone is not None else None


# The keys of a trace the list reads (`render.live.summary`, `explain.compare.compare`, the exit code).
SLIM_KEYS = ("apiVersion", "kind", "pod", "profile", "kubernetesVersion", "result", "preEnqueue", "tieBreak")


def slim(trace: dict[str, Any]) -> dict[str, Any]:
    """The few keys of a trace `--pending`'s list reads, without the per-node ones."""
    out = {k: trace[k] for k in SLIM_KEYS if k in trace}
    post = trace.get("postFilter")
    if post:
        out["postFilter"] = {k: post[k] for k in ("code", "message", "nominatedNodeName", "victims") if k in post}
    search = trace.get("search")
    if search:
        out["search"] = {k: search[k] for k in ("numAllNodes", "orderDeterministic") if k in search}
    return out


@dataclass
class Pending:
    """Every pending pod explained (or why skipped), the traces spooled for -o json/yaml, the
    autoscalers' run over them and the documents shown."""

    explained: list[Explained]
    skipped: list[dict[str, str]]
    spool: Any
    ran: Optional[AutoscalerRun]
    doc: Optional[dict]
    karpenter: Optional[dict]
    options: RunOptions
    node_group: Optional[str]
    ca_ran: bool
    # the Workloads Kueue holds whose pods do not exist yet (a Job it keeps suspended): listed too
    held: list[Held] = field(default_factory=list)

    def answers(self, e: Explained, verdict: dict) -> dict:
        """A pod's answers (`autoscalers`), CA's compared with the queue's verdict."""
        if self.ran is None:
            return {}
        answers = self.ran.pod(pod_key(e.pod))
        if self.ca_ran:
            answers = adapter("cluster-autoscaler").with_scheduler(answers, verdict["status"],
                                                                   verdict.get("suggestedHost"), self.ran.document)
        return {"autoscalers": answers}


def pending_of(args: PodArgs, live: Live, say: Say, tried: Optional[list[Obj]] = None) -> list[Obj]:
    """The pending pods `--pending` (the namespace's) or `-A` (every namespace's) explains, but
    those being deleted (the scheduler skips them; said); `tried`: `tried_pods` found already."""
    pods = [o for o in (tried_pods(live.cluster) if tried is None else tried)
            if args.all_namespaces or (o.get("metadata") or {}).get("namespace") == live.namespace]
    deleting = sum(1 for p in pods if (p.get("metadata") or {}).get("deletionTimestamp"))
    if deleting:
        say(f"note: skipped {deleting} pending pod(s) being deleted (the scheduler skips them)")
    return [p for p in pods if not (p.get("metadata") or {}).get("deletionTimestamp")]


def explain_pending(args: PodArgs, live: Live, config: Any, say: Say, *, structured: bool,
                    progress: Callable[[], ContextManager], built: Optional[tuple[Any, Any]] = None,
                    suggester: Any = suggest) -> Pending:
    """Every pending pod explained alone (Kueue's pods as Kueue starts them), then the cluster's
    queue over them, then ONE autoscalers' pass over every pending pod; with `structured`, traces
    wait in a spool file (memory stays flat). The Workloads Kueue holds with no pod yet (`Held`: a
    suspended Job's) come with Kueue's answer, from the same pass of Kueue. `built`: the cluster's
    snapshot and nominated pods when its one state holds them already (`kexplain cluster`);
    `suggester`: what finds an Unschedulable pod's verified fixes (`kexplain cluster`: once per group)."""
    tried = tried_pods(live.cluster)        # (read once: the queue reads every namespace's)
    pods = pending_of(args, live, say, tried)
    kueue_pass = live_kueue(pods, live.cluster, version=args.kueue_version,   # Kueue's answer first: one pass
                            capacity_of=kueue_capacity_of(args, live))
    chains = kueue_pass.chains
    for note in kueue_pass.notes:
        say(f"note: {note}")
    held = [h for h in kueue_pass.held if args.all_namespaces or h.namespace == live.namespace]
    snapshot, nominated = built if built is not None else build_cluster(live.cluster)
    # No extra trace keys: the list shows one line per pod (and -o json what offline -o json shows).
    options = RunOptions(start_index=args.start_index, preemption=args.preemption,
                         preemption_offset=args.preemption_offset)
    recorded = page_options(options, [ni.name for ni in snapshot.node_infos]) if args.html else options
    skipped: list[dict[str, str]] = []
    spool = tempfile.TemporaryFile("w+", encoding="utf-8") if structured else None
    explained: list[Explained] = []
    with progress() as bar:
        inputs = (Inputs(PodInfo(chain.pod if chain is not None else pod), _source(live, pod), snapshot, config,
                         nominated) for pod, chain in zip(pods, chains))
        explained_each = explain_each(inputs, recorded, suggester, planned=len(pods), progress=bar.update)
        for pod, chain, verdict in zip(pods, chains, explained_each):
            kueue = {"kueue": chain.answer, "kueue_started": chain.started} if chain is not None else {}
            if verdict.trace is None:
                explained.append(Explained(pod, skipped=verdict.error, inputs=verdict.inputs, **kueue))
                skipped.append({"pod": pod_key(pod), "reason": verdict.error})
                continue
            full = verdict.trace.to_json()
            trace = as_asked(full, options)
            if spool is not None:
                spool.write(json.dumps(trace) + "\n")
            explained.append(Explained(pod, Alone.of(verdict.inputs, verdict.trace), slim(trace),
                                       tuple(nominated_notes(verdict.inputs, trace)),
                                       trace if args.details else None, full if args.html else None, **kueue))
    skipped = volcano_pending(args, live, config, explained, skipped)
    return _pending_pass(args, live, config, say, pods, explained, snapshot, nominated,
                         Pending(explained, skipped, spool, None, None, None, options, args.node_group, False,
                                 held), tried)


def volcano_pending(args: PodArgs, live: Live, config: Any, explained: list[Explained],
                    skipped: list[dict[str, str]]) -> list[dict[str, str]]:
    """The pending pods Volcano schedules (no profile claims them: kube-scheduler skipped them) answered
    by ONE session of its scheduler over the stored cluster with them all (`app.volcano.answer_pods`;
    each its own, the pod's own condition, where RBAC refused Volcano's objects); the skipped ones left."""
    ours = [e for e in explained if e.alone is None and is_volcano_pod(e.pod, (p.scheduler_name for p in config.profiles))]
    if not ours:
        return skipped
    unread, conf, version = volcano_unread(live), volcano_conf(args, live), args.volcano.version
    if set(unread) - {"configmaps"}:
        traces = [with_conf_notes(volcano_answer(e.pod, live.cluster, [], stored=True, unread=unread, conf=conf,
                                                 version=version, now=args.now), conf) for e in ours]
    else:
        traces = answer_pods([(e.pod, _source(live, e.pod)) for e in ours], live.cluster, [], stored=True,
                             conf=conf, version=version, now=args.now)
    for e, trace in zip(ours, traces):
        e.volcano = trace
    keys = {pod_key(e.pod) for e in ours}
    return [s for s in skipped if s["pod"] not in keys]


def _pending_pass(args: PodArgs, live: Live, config: Any, say: Say, pods: list[Obj], explained: list[Explained],
                  snapshot: Any, nominated: Any, out: Pending, tried: Optional[list[Obj]] = None) -> Pending:
    """The queue over the explained pods (the cluster's pods `tried`: `tried_pods`), then ONE
    autoscalers' pass over every pending pod."""
    autoscalers = autoscalers_of(args, live, stored_state(live.cluster, snapshot, nominated, config))
    groups, pools = autoscalers.groups, autoscalers.pools
    alone = [e.alone for e in explained if e.alone is not None]
    # the cluster's queue, as `pod NAME` walks it: the pods of other namespaces it needs explained too
    walked, walked_pods = cluster_queue(args, live, config, alone, snapshot, nominated,
                                        nominations=bool(autoscalers.each),
                                        skipped=frozenset(pod_key(e.pod) for e in explained if e.alone is None),
                                        tried=tried)
    if walked.left:
        say(walk_note(walked.left))
    for e in explained:
        answer = walked.get(e.alone.key) if e.alone is not None else None
        if answer is not None:
            e.queue = answer.to_json()
    seen = [(e.inputs if e.alone is None else e.alone.inputs, {"postFilter": e.post_filter}) for e in explained]
    seen += in_queue_pass(walked, walked_pods, {a.key for a in alone})
    ran, node_group = None, args.node_group     # with node groups: ONE loop over every pending pod
    ca_ran = groups is not None and bool(pods or node_group is not None or groups.groups.file)  # a file: checked
    if ca_ran:
        ran = groups.run(live_pass(seen), config.kube)
        if ran.explained or node_group is not None:
            node_group = adapter("cluster-autoscaler").check_node_group(node_group, ran.document)
    if pools is not None and pods:      # ONE provisioning pass over every pending pod
        kp = pools.run(live_pass(seen), config.kube)
        ran = ran.joined(kp) if ran is not None else kp
    doc = ran.document if ran is not None and (ran.explained or node_group is not None) else None
    karpenter = ran.documents.get("karpenter") if ran is not None and ran.explained else None
    return replace(out, ran=ran, doc=doc or None, karpenter=karpenter, node_group=node_group,
                   ca_ran=ca_ran)


# --- RBAC refused reads: the scheduler's own word ------------------------------------------------

@dataclass(frozen=True)
class FromEvents:
    """Each pod's answer from the events (`kexplain.explain.from_event`) and the document of them."""

    answers: list
    whole: dict


def from_events(args: PodArgs, live: Live, kube: KubeVersion, config: Any, say: Say) -> FromEvents:
    """The cluster could not be read in full: no simulation, the scheduler's own word on each
    pod (`kexplain.explain.from_event`), with what was refused and what each read would add."""
    now = datetime.now(timezone.utc)
    if args.node:
        say(f"note: --node {args.node} is not shown: a node's full verdict needs the reads RBAC refused")
    if args.node_groups or (live.node_groups is not None and live.node_groups.groups):
        say("note: the Cluster Autoscaler's loop is not run: it holds every pending pod of the cluster, which "
            "RBAC does not let kexplain list; CA's own events on the pod are shown instead")
    if args.name:
        assert live.pod is not None
        pods = [live.pod]
    else:
        pods = [p for p in pending_pods(live) if (p.get("metadata") or {}).get("namespace") == live.namespace]
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
    return FromEvents(answers, _from_events_document(args, live, kube, answers))


def _from_events_document(args: PodArgs, live: Live, kube: KubeVersion, answers: list) -> dict:
    where = {"server": live.server, "context": live.context, "serverVersion": live.server_version,
             "snapshot": snapshot_hint(args.name, live.namespace)}
    documents = [{"apiVersion": "kexplain/v1", "kind": "FromEvents",
                  "pod": {"namespace": (a.pod.get("metadata") or {}).get("namespace"),
                          "name": (a.pod.get("metadata") or {}).get("name")},
                  "kubernetesVersion": kube.minor, "fromEvent": a.to_json(), "live": where} for a in answers]
    return documents[0] if args.name else {"apiVersion": "kexplain/v1", "kind": "FromEventsList",
                                           "namespace": live.namespace, "items": documents,
                                           "refused": [r.to_json() for r in live.refusals],
                                           "snapshot": where["snapshot"]}


def unschedulable(a: Any) -> bool:
    """An answer from the events that counts as unschedulable (exit 1)."""
    return a.word.status in (UNSCHEDULABLE, GATED) or bool(a.gates)


def snapshot_hint(name: Optional[str], namespace: str) -> str:
    """What someone with cluster reads can run and send: a redacted snapshot that replays offline."""
    pod = f" {name} -n {namespace}" if name else ""
    return f"kexplain snapshot{pod} --redact -o cluster.json"

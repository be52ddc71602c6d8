"""Explaining files (`kexplain POD --nodes ...`): the POD file and the cluster read once, with
Kueue's chain as the hook that acts before the controllers (`kueue.chain.Chain`); one pod
explained with its suggestions, or a batch; then the autoscalers over the pending pass
(`kexplain.app.autoscalers`); or the pod under several Kubernetes versions. Returns documents
and results; the command line picks the output and the exit code."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO, Callable, Optional, Sequence

from kexplain.app.autoscalers import (REPORTED, Autoscaler, AutoscalerRun, adapter, keeps_cluster, kinds_of,
                                     node_pools, reports_node_groups, run_all)
from kexplain.app.eviction.now import NowFiles, add_ranking_now
from kexplain.app.volcano import answer_pods
from kexplain.app.volcano_chain import note as volcano_note, volcano_pass
from kexplain.app.volcano_pod import Answered, answered as volcano_answered, is_volcano_pod, keeps_for_volcano
from kexplain.volcano.conf import chosen as chosen_conf
from kexplain.volcano.versions import DEFAULT as VOLCANO_DEFAULT, VolcanoVersion
from kexplain.errors import KexplainError
from kexplain.eviction.evicted import evicted_among
from kexplain.explain.batch import Batch, Outcome, explain_batch
from kexplain.explain.inputs import Loaded, load
from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.pending_pass import PassBuilder, PendingPass
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import explain
from kexplain.explain.versions import Comparison, compare_versions
from kexplain.features import KubeVersion
from kexplain.framework.trace import UNSCHEDULABLE
from kexplain.kueue.chain import Chain
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.node_stats import NODE_STATS_KIND
from kexplain.model.snapshot import Snapshot
from kexplain.suggest import suggestions as suggest
from kexplain.suggest.kueue_held import flavor_fixes, held, kueue_fixes, with_kueue
from kexplain.suggest.add_node import ADD_NODE

# Verdicts after which an autoscaler has nothing to do for the pod (no section unless asked).
NO_AUTOSCALER = ("Scheduled", "Error", "Failed")     # (Failed: a bound pod its kubelet rejects, not pending)
CLOSEST = 3     # node names a wrong --node NAME suggests


def run_options(human: bool, node: Optional[str], *, start_index: int = 0, preemption: bool = True,
                preemption_offset: int = 0, replicated: bool = False) -> RunOptions:
    """How to run the cycle and what to record: node facts for the human views (all plugins' for
    `--node`); never-examined nodes evaluated, but for replicas (only the last copy is shown)."""
    return RunOptions(start_index=start_index, preemption=preemption, preemption_offset=preemption_offset,
                      details=human or node is not None, explain_nodes=frozenset([node] if node else []),
                      unexamined=human and not replicated)


def check_node(node: Optional[str], names: Sequence[str], no_nodes: str = "The cluster has no nodes.") -> None:
    """`--node NAME` names a node of the cluster, or a one-line error with the closest names (exit
    2): a typo is not answered by a verdict on no node."""
    if node is None or node in names:
        return
    if not names:
        raise KexplainError(f"--node {node}: no node of that name. {no_nodes}")
    among = f"among the cluster's {len(names):,} node{'s' if len(names) != 1 else ''}"
    close = difflib.get_close_matches(node, names, n=CLOSEST)
    if not close:
        raise KexplainError(f"--node {node}: no node of that name {among}, and no name is close to it")
    raise KexplainError(f"--node {node}: no node of that name {among}; the closest: {', '.join(close)}")


def node_names(snapshot: Optional[Snapshot]) -> list[str]:
    """The names of the cluster's nodes, in the scheduler's order."""
    return [ni.name for ni in snapshot.node_infos] if snapshot is not None else []


def page_options(options: RunOptions, names: Sequence[str]) -> RunOptions:
    """How a cycle runs for `--html`: as `options` say, recording every node's facts (each
    node's full verdict is one click away on the page) and the never-examined nodes."""
    return replace(options, details=True, explain_nodes=frozenset(names), unexamined=True)


def as_asked(trace: dict, options: RunOptions) -> dict:
    """A trace recorded for `--html` as the output asked for it: without the extra keys
    `options` do not record (`-o json` stays the same with or without `--html`)."""
    unasked = [k for k, on in (("details", options.details), ("unexamined", options.unexamined)) if not on]
    return {k: v for k, v in trace.items() if k not in unasked}


def explain_one(inputs: Inputs, options: RunOptions, suggestions: bool) -> dict:
    """One pod's trace; an Unschedulable one with its verified fix suggestions (key `suggestions`,
    each proven by a re-run without the extra trace keys) unless they are turned off."""
    result = explain(inputs, options)
    if suggestions and result.result.status == UNSCHEDULABLE:
        result.extra["suggestions"] = [s.to_json() for s in suggest(inputs, result, options)]
    return result.to_json()


def explain_for_page(inputs: Inputs, options: RunOptions, trace: dict) -> dict:
    """The cycle run again recording every node's facts (`page_options`), with the verified
    suggestions `trace` already has (they do not depend on what is recorded)."""
    full = explain(inputs, page_options(options, node_names(inputs.snapshot))).to_json()
    if "suggestions" in trace:
        full["suggestions"] = trace["suggestions"]
    return full


def without_add_node(suggester: Callable) -> Callable:
    """`suggester` without add-node: with an autoscaler a node comes from a group or a NodePool
    (its section says which would take the copies that did not fit)."""
    return lambda *args, **kw: [s for s in suggester(*args, **kw) if s.kind != ADD_NODE]


def without_add_node_json(trace: dict) -> None:
    """The trace's suggestions without add-node (Karpenter's fixes say which NodePool)."""
    if "suggestions" in trace:
        trace["suggestions"] = [s for s in trace["suggestions"] if s.get("kind") != ADD_NODE]


@dataclass(frozen=True)
class NodeGroupsFile:
    """`--node-groups FILE`, read when first asked and only once: Kueue's provisioner and CA's pass
    over the files share its groups (`app.cluster_autoscaler.read_node_groups`)."""

    path: Optional[str]
    max_bytes: int
    _read: list = field(default_factory=list, compare=False, repr=False)     # the groups, once read

    def groups(self) -> Any:
        """The file's `Discovery`, None without --node-groups; bad input: InputError."""
        if self.path is None:
            return None
        if not self._read:
            self._read.append(adapter("cluster-autoscaler").read_node_groups(self.path, self.max_bytes))
        return self._read[0]


@dataclass(frozen=True)
class Files:
    """The files read once: the load (`Loaded`), Kueue's chain over it and the node groups' file."""

    loaded: Loaded
    kueue: Chain
    now: NowFiles = NowFiles()      # an evicted pod's node's documents (its ranking now)
    node_groups: NodeGroupsFile = NodeGroupsFile(None, 0)
    stored: bool = False            # --stored: the cluster read from an API server (not admitted again)
    volcano: "VolcanoOptions | None" = None     # --scheduler-conf, --volcano-version


@dataclass(frozen=True)
class VolcanoOptions:
    """What the command line says of Volcano's pods: its configuration (`volcano.conf.SchedulerConf`,
    None: the ConfigMap among the inputs, else the default) and the release followed."""

    conf: Any = None
    version: VolcanoVersion = VOLCANO_DEFAULT


def read_files(req: Request, stdin: Optional[BinaryIO], *, kueue_version: Optional[str] = None,
               suggestions: bool = True, kueue_config: Sequence[Any] = (),
               volcano: Optional[VolcanoOptions] = None) -> Files:
    """The POD file and the cluster read once, problems collected; the cluster's objects kept when an
    autoscaler may read them; Kueue's answer first, as `kueue_version` decides (with `suggestions`,
    Kueue's verified fixes for a job it holds)."""
    groups = NodeGroupsFile(req.node_groups, req.max_bytes)
    kueue = Chain(validate=req.validate, version=kueue_version, fixes=kueue_fixes if suggestions else None,
                  provisioner=kueue_provisioner(req, groups), config=tuple(kueue_config))
    keep = req.node_groups is not None or _keeps
    with bulk_load(freeze=True):
        loaded = kueue.attach(load(req, stdin, collect=True, keep=keep, prepare=kueue))
    return Files(loaded, kueue, NowFiles(req.stats, req.kubelet_config, req.max_bytes), groups, req.stored,
                 volcano)


def _keeps(objects: list) -> bool:
    """Whether the cluster read is kept: for an autoscaler, a snapshot's node stats (an evicted
    pod's node ranked now), or Volcano's session (a pod of its, or its PodGroups and Queues)."""
    return keeps_cluster(objects) or NODE_STATS_KIND in kinds_of(objects) or keeps_for_volcano(objects)


def volcano_single(files: Files, suggestions: bool = True) -> Optional[Answered]:
    """The answer for one pod Volcano schedules (`app.volcano_pod`), its scheduler's session over the
    cluster kept for it; None for a pod of kube-scheduler's."""
    single = files.loaded.single
    assert single is not None
    if not is_volcano_pod(single.pod.obj, (p.scheduler_name for p in single.config.profiles)):
        return None
    cluster, set_objects = files.loaded.cluster_objects or [], files.loaded.set_objects
    given = files.volcano or VolcanoOptions()
    conf = given.conf or chosen_conf(None, [*cluster, *set_objects])
    done = volcano_answered(single.pod.obj, cluster, set_objects, stored=files.stored, conf=conf,
                            version=given.version, suggestions=suggestions)
    if conf.warnings:       # a configuration Volcano finds invalid: its default runs, said
        done.trace["volcano"]["notes"] = [*conf.warnings, *done.trace["volcano"].get("notes", [])]
    return done


def volcano_chained(done: Answered, files: Files, autoscalers: Autoscalers, opts: AutoscalerOptions) -> Single:
    """A Volcano pod's answer with the autoscalers' over the pass its session leaves (`app.volcano_chain`):
    its job's pending pods as any pending pods."""
    loaded = files.loaded
    assert loaded.single is not None
    node_group = volcano_chain(done, autoscalers, opts, loaded.kube, loaded.single.pod,
                               loaded.set_objects, loaded.set_created)
    return Single(done.trace, node_group)


def volcano_chain(done: Answered, autoscalers: Autoscalers, opts: AutoscalerOptions, kube: KubeVersion, pod: Any,
                  set_objects: Any = (), set_created: Any = ()) -> Optional[str]:
    """The autoscalers over the pass a Volcano pod's session leaves (files and live alike), written into
    its trace with the chain's caveat; returns --node-group's id."""
    trace = done.trace
    if not autoscalers.each or "podGroup" not in trace["volcano"]:
        return opts.node_group
    pp = volcano_pass(done, set_objects, set_created)
    node_group = autoscale_pod(trace, pp, kube, pod, autoscalers, opts)
    if any(k in trace for k in ("autoscaler", "karpenter")):
        trace["volcano"]["chain"] = volcano_note(done)
    return node_group


def volcano_batch(files: Files) -> tuple[Files, list[dict]]:
    """A batch's pods Volcano schedules answered by ONE session of its scheduler over the cluster with
    all of them (`app.volcano.answer_pods`), and the files with those entries out of the batch (no
    kube-scheduler profile claims them: the default profile's "profile not found" is not their answer)."""
    loaded = files.loaded
    if loaded.pool is None:
        return files, []
    profiles = [p.scheduler_name for p in loaded.pool.config.profiles]
    ours = [e for e in loaded.batch if e.kind == "Pod" and is_volcano_pod(e.pod, profiles)]
    if not ours:
        return files, []
    traces = answer_pods([(e.pod, e.source) for e in ours], loaded.cluster_objects or [], loaded.set_objects,
                         stored=files.stored, conf=(files.volcano or VolcanoOptions()).conf,
                         version=(files.volcano or VolcanoOptions()).version)
    rest = [e for e in loaded.batch if all(e is not o for o in ours)]
    return replace(files, loaded=replace(loaded, batch=rest)), traces


def kueue_provisioner(req: Request, groups: NodeGroupsFile) -> Callable[[Sequence[Any]], Any]:
    """Who answers the ProvisioningRequests Kueue's chain creates, given the cluster's objects: the
    Cluster Autoscaler when node groups are given (`groups`, read once) or reported among them (its
    adapter imported then only), else no one."""
    def provisioner(cluster: Sequence[Any]) -> Any:
        if not (req.node_groups or reports_node_groups(list(cluster))):
            return None
        return adapter("cluster-autoscaler").kueue_provisioner(groups.groups(), req.autoscaler_config,
                                                               req.max_bytes, req.validate, list(cluster), req.kube)
    return provisioner


@dataclass(frozen=True)
class AutoscalerOptions:
    """What the command line says of the autoscalers (`--node-groups`' own are in the Request)."""

    aws_data: Optional[str] = None
    karpenter_config: Optional[str] = None
    node_group: Optional[str] = None
    node_pool: Optional[str] = None
    suggestions: bool = True


@dataclass(frozen=True)
class Autoscalers:
    """The autoscalers that answer for the files' pending pods: CA's (node groups given or
    found among --nodes) and Karpenter (NodePools among them), each None when not called for."""

    groups: Any = None      # `app.cluster_autoscaler.ClusterAutoscaler`
    pools: Optional[Autoscaler] = None

    @property
    def each(self) -> list[Autoscaler]:
        return [a for a in (self.groups, self.pools) if a is not None]


def autoscalers_of(req: Request, files: Files, opts: AutoscalerOptions,
                   say: Callable[[str], None]) -> Autoscalers:
    """The autoscalers for the files: CA reading the one cluster state (never admitting it
    again) and the node groups' file as read for Kueue's chain, Karpenter the cluster set; the
    options that need one checked (`say`: a note)."""
    loaded = files.loaded
    groups = None
    if req.node_groups or reports_node_groups(loaded.cluster_objects or []):
        ca = adapter("cluster-autoscaler")
        groups = ca.groups_request(files.node_groups.groups(), req.autoscaler_config, req.max_bytes, req.validate,
                                   loaded.cluster_objects, say,
                                   state=loaded.cluster_state)
    check_found(req.autoscaler_config, opts.node_group, groups)
    pools = node_pools(loaded.cluster_objects, opts.aws_data, opts.karpenter_config, max_bytes=req.max_bytes,
                       validate=req.validate, node_pool=opts.node_pool, applied=loaded.set_objects,
                       suggestions=opts.suggestions, state=loaded.cluster_state)
    return Autoscalers(groups, pools)


def check_found(autoscaler_config: Optional[str], node_group: Optional[str], groups: Any) -> None:
    """--autoscaler-config and --node-group need node groups: --node-groups FILE, or found among
    --nodes (checked once read)."""
    if groups is not None:
        return
    for flag, given in (("--autoscaler-config", autoscaler_config), ("--node-group", node_group)):
        if given is not None:
            raise KexplainError(f"{flag} needs node groups: --node-groups FILE, or {REPORTED} among --nodes "
                                "(none is there)")


def single_pass(loaded: Loaded, trace: dict) -> PendingPass:
    """What the autoscalers see of one pod explained: the pod pending, nominated where its
    preemption would (PostFilter runs first), the file's objects."""
    assert loaded.single is not None
    builder = PassBuilder()
    builder.add_objects(loaded.set_objects, loaded.set_created)
    builder.add_single(loaded.single, post_filter=trace.get("postFilter"))
    return builder.build()


@dataclass(frozen=True)
class Single:
    """One pod explained: its trace (with Kueue's answer and the autoscalers' keys) and the
    node group `--node-group` names, resolved to its id."""

    trace: dict
    node_group: Optional[str]


def explain_single(files: Files, options: RunOptions, suggestions: bool, autoscalers: Autoscalers,
                   opts: AutoscalerOptions) -> Single:
    """One pod: its trace with suggestions, Kueue's answer, then each autoscaler over its pass (the
    others read all the same: bad input is refused whatever the verdict)."""
    loaded = files.loaded
    assert loaded.single is not None
    volcano = volcano_single(files, suggestions)
    if volcano is not None:         # Volcano's, not kube-scheduler's: its session answers, then the autoscalers
        return volcano_chained(volcano, files, autoscalers, opts)
    answer = files.kueue.answer_for(loaded.single.pod.obj)
    trace = explain_one(loaded.single, options, suggestions and not held(answer))   # held: Kueue's fixes
    if answer is not None:
        trace["kueue"] = answer
    if loaded.reapplied is not None:      # its workload applied onto the one the cluster runs
        trace["reapplied"] = loaded.reapplied
    if "eviction" in trace and loaded.cluster_objects:    # who asked for it: the events a snapshot keeps
        trace["eviction"] = evicted_among(loaded.single.pod.obj, loaded.cluster_objects,
                                          trace["eviction"].get("node")) or trace["eviction"]
    add_ranking_now(trace, loaded.single.pod.obj, loaded.single.snapshot, loaded.kube, files.now,
                    cluster=loaded.cluster_objects)       # a snapshot's node stats, when it kept some
    pp = single_pass(loaded, trace) if autoscalers.each else None
    node_group = autoscale_one(trace, pp, loaded, autoscalers, opts)
    if "suggestions" in trace:      # (the autoscalers' too) a flavor's nodeSelector entry: its ResourceFlavor's
        trace["suggestions"] = flavor_fixes(trace["suggestions"], answer, loaded.single.pod.obj)
    return Single(trace, node_group)


def autoscale_one(trace: dict, pp: Optional[PendingPass], loaded: Loaded, autoscalers: Autoscalers,
                  opts: AutoscalerOptions) -> Optional[str]:
    """Each autoscaler over the pass `pp` for the one pod explained (`autoscale_pod`). Returns --node-group's id."""
    assert loaded.single is not None
    return autoscale_pod(trace, pp, loaded.kube, loaded.single.pod, autoscalers, opts)


def autoscale_pod(trace: dict, pp: Optional[PendingPass], kube: KubeVersion, pod: Any, autoscalers: Autoscalers,
                  opts: AutoscalerOptions) -> Optional[str]:
    """Each autoscaler over the pass `pp` for the one pod explained (`pod`, its PodInfo), when it is pending
    (or a group or NodePool is asked for); the others read all the same (bad input refused). Returns
    --node-group's id."""
    pending = trace["result"]["status"] not in NO_AUTOSCALER
    groups, pools = autoscalers.groups, autoscalers.pools
    node_group = opts.node_group
    if groups is not None and (node_group is not None or pending):
        groups.explain_one(trace, pp, kube, pod)
        node_group = adapter("cluster-autoscaler").check_node_group(node_group, trace["autoscaler"])
    elif groups is not None:
        groups.check(kube)
    if pools is not None and (opts.node_pool is not None or pending):
        pools.explain_one(trace, pp, kube, pod)
        without_add_node_json(trace)       # a node comes from a NodePool: Karpenter's fixes say which
    elif pools is not None and (opts.aws_data or opts.karpenter_config):
        pools.check(kube)
    return node_group


def page_of_single(files: Files, options: RunOptions, trace: dict) -> dict:
    """`--html`'s document of one pod: every node's facts, with the trace's answers (and its
    removal and its kubelet verdict as the text said them: `eviction.now` and `explain.kubelet.readmit`
    are the app's, not the page run's)."""
    assert files.loaded.single is not None
    if "volcano" in trace:          # Volcano's answer: no kube-scheduler cycle to run again
        return trace
    page = explain_for_page(files.loaded.single, options, trace)
    for key in ("autoscaler", "autoscalers", "karpenter", "kueue", "eviction", "reapplied"):
        if key in trace:
            page[key] = trace[key]
    if "kubelet" in trace:      # a bound pod's kubelet verdict, as the Summary's pressure decided it again
        page["kubelet"], page["result"] = trace["kubelet"], trace["result"]
    return page


def batch_of(loaded: Loaded, options: RunOptions, suggestions: bool, autoscalers: Autoscalers, *,
             stored: bool, refused: Callable[[Any, KexplainError], None], kueue: Optional[Chain] = None) -> Batch:
    """Several pods, replicas or workloads as a `Batch` (scheduled as it is iterated), their
    suggestions without add-node when an autoscaler answers for them, and as Kueue's answer for
    their job has them (`kexplain.suggest.kueue_held`)."""
    suggester = (without_add_node(suggest) if autoscalers.each else suggest) if suggestions else None
    if suggester is not None and kueue is not None and kueue.answers:
        suggester = with_kueue(suggester, kueue.answer_for)
    return explain_batch(loaded.batch, loaded.pool, options, suggester, stored=stored, refused=refused)


class BatchPass:
    """What the autoscalers see of a batch, gathered as it is placed (`add`), then their ONE pass
    (`run`) over it (`kexplain.explain.pending_pass`)."""

    def __init__(self, loaded: Loaded, autoscalers: Autoscalers, opts: AutoscalerOptions) -> None:
        self.autoscalers, self.kube = autoscalers.each, loaded.kube
        self.node_group, self.node_pool = opts.node_group, opts.node_pool
        self.gathered = PassBuilder()
        self.gathered.add_objects(loaded.set_objects, loaded.set_created)

    @property
    def active(self) -> bool:
        return bool(self.autoscalers)

    def add(self, outcome: Outcome) -> None:
        if self.autoscalers:
            self.gathered.add_outcome(outcome)

    def run(self, batch: Batch) -> Optional[AutoscalerRun]:
        """The autoscalers' pass once every outcome was placed (run when every copy fit too: a
        bad file is refused); None when there is nothing to show; `node_group` resolved."""
        if not self.autoscalers:
            return None
        self.gathered.settle(batch.retried)
        pp = self.gathered.build()
        ran = run_all(self.autoscalers, pp, self.kube)
        if not (pp.pending or self.node_group or self.node_pool):
            return None
        assert ran is not None
        if ran.document:
            self.node_group = adapter("cluster-autoscaler").check_node_group(self.node_group, ran.document)
        return ran


def versions_compared(req: Request, kubes: list[KubeVersion], options: RunOptions,
                      stdin: Optional[BinaryIO]) -> Comparison:
    """`--compare-versions`: the pod explained under each version."""
    with bulk_load(freeze=True):
        return compare_versions(req, kubes, options, stdin)

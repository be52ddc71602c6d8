"""The framework runner (kube-scheduler's frameworkImpl): runs each extension point and records every call."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress, repeat
from operator import attrgetter, is_, itemgetter
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence
from weakref import proxy

from kexplain.errors import FrameworkError
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import (
    MAX_NODE_SCORE, MIN_NODE_SCORE, Explainer, ExtensionPoint, FilterPlugin, NodeScoreList, NodeToStatus, Plugin,
    PostFilterPlugin, PostFilterResult, PreEnqueuePlugin, PreFilterExtensions, PreFilterPlugin, PreFilterResult,
    PreScorePlugin, QueueSortPlugin, ScoreExtensions, ScorePlugin, SignPlugin)
from kexplain.framework.node_memo import keep, memoized, node_memo
from kexplain.framework.signers import signature
from kexplain.framework.status import SUCCESS, Code, Status
from kexplain.model.shapes import fields_key, plugin_key

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.config import Profile
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.pod import PodInfo
    from kexplain.model.snapshot import Snapshot


_SUCCESS_CODE = Code.SUCCESS
_NAME = attrgetter("name")      # a NodeInfo's name, read in C (`run_score`: every node, every cycle)

FilterFn = Callable[[CycleState, "PodInfo", "NodeInfo"], Status]
NormalizeFn = Callable[[CycleState, "PodInfo", NodeScoreList], Status]


@dataclass
class PluginCall:
    """One recorded plugin call, as the trace lists it."""

    plugin: str
    status: Status
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = {"plugin": self.plugin, **self.status.to_json()}
        out.update(self.extra)
        return out


@dataclass
class PreFilterOutcome:
    result: PreFilterResult | None
    status: Status
    plugins_with_nodes: frozenset[str]
    calls: list[PluginCall]


@dataclass
class PostFilterOutcome:
    result: PostFilterResult | None
    status: Status
    calls: list[PluginCall]
    results: dict[str, PostFilterResult | None]

@dataclass
class FilterBatch:
    """run_filter_nodes' answer: the verdict per node and, with filterAll, each plugin's statuses."""

    verdicts: list[Status]
    columns: list[tuple[str, list[Status] | None]] | None = None
    passed: frozenset[int] = frozenset()   # the nodes every plugin that ran passed (by index)


@dataclass
class ScoreBatch:
    """run_score's answer in node order: totals, and per plugin its weight and raw and normalized scores."""

    plugins: list[str]
    weights: list[int]
    raw: list[list[int]]
    normalized: list[list[int]]
    totals: list[int]


def _filter_failure(plugin: str, s: Status) -> Status:
    """A node's verdict from its first Filter failure, or an Error for a plugin that returned neither."""
    if not s.is_rejected:
        s = Status(Code.ERROR, (f'running "{plugin}" filter plugin: {s.message()}',))
    return s.with_plugin(plugin)


def _sift(plugin: str, alive: Sequence[int], statuses: Sequence[Status], verdicts: list[Status]) -> list[int]:
    """The nodes of `alive` that passed `plugin`, each other's verdict set (equal statuses share one verdict)."""
    passed: list[int] = []
    made: dict[tuple[Code, tuple[str, ...]], Status] = {}
    for i, s in zip(alive, statuses):
        if s.code is _SUCCESS_CODE:
            passed.append(i)
            continue
        key = (s.code, s.reasons)
        verdict = made.get(key)
        if verdict is None:
            verdict = made[key] = _filter_failure(plugin, s)
        verdicts[i] = verdict
    return passed


_STATUSES_KEPT = 4096     # distinct Filter statuses a framework keeps to share


def _interned(statuses: list[Status], pool: dict[tuple[int, tuple[str, ...], str], Status]) -> list[Status]:
    """A plugin's Filter statuses with equal ones made one object (the first met): a plugin may
    answer "Insufficient cpu" with a new Status per node, and filterAll shares an entry between
    nodes whose statuses are the same objects (`kexplain.framework.schedule`), as the trace's
    JSON writes a container met again once. A code is a singleton: its id stands for it."""
    out = statuses
    for i, s in enumerate(statuses):
        if s.code is _SUCCESS_CODE:
            continue
        key = (id(s.code), s.reasons, s.plugin)
        kept = pool.get(key)
        if kept is None:
            if len(pool) >= _STATUSES_KEPT:
                pool.clear()
            kept = pool[key] = s
        elif kept is not s:
            if out is statuses:
                out = list(statuses)
            out[i] = kept
    return out


class Framework:
    """One profile's plugins, bound to a snapshot. Also the `Handle` plugins receive."""

    def __init__(self, profile: "Profile", registry: Mapping[str, type[Plugin]], snapshot: "Snapshot",
                 nominated_pods: Mapping[str, Sequence["PodInfo"]] | None = None, *,
                 preemption_offset: int = 0) -> None:
        self.profile = profile
        self.profile_name = profile.scheduler_name
        self.kube = profile.kube          # the version whose behaviour the plugins follow (Go: feature.Features)
        self.snapshot = snapshot
        self.preemption_offset = preemption_offset
        self._nominated = {node: pods for node, pods in (nominated_pods or {}).items() if pods}
        needed = {name for names in profile.plugins.values() for name in names}
        # The plugins hold the framework as a weak proxy: a framework and its plugins (one per
        # copy of a workload) are freed when the cycle ends, not left as cycles (with the snapshot
        # they hold) for the collector to walk again and again.
        handle = proxy(self)
        self.plugins: dict[str, Plugin] = {
            name: registry[name](profile.args.get(name), handle) for name in sorted(needed)}
        self.weights = dict(profile.score_weights)

        listed, plugins = profile.plugins, self.plugins
        self.pre_enqueue_plugins = PreEnqueuePlugin.listed(plugins, listed.get(ExtensionPoint.PRE_ENQUEUE, ()))
        self.queue_sort_plugins = QueueSortPlugin.listed(plugins, listed.get(ExtensionPoint.QUEUE_SORT, ()))
        self.pre_filter_plugins = PreFilterPlugin.listed(plugins, listed.get(ExtensionPoint.PRE_FILTER, ()))
        self.filter_plugins = FilterPlugin.listed(plugins, listed.get(ExtensionPoint.FILTER, ()))
        self.post_filter_plugins = PostFilterPlugin.listed(plugins, listed.get(ExtensionPoint.POST_FILTER, ()))
        self.pre_score_plugins = PreScorePlugin.listed(plugins, listed.get(ExtensionPoint.PRE_SCORE, ()))
        self.score_plugins = ScorePlugin.listed(plugins, listed.get(ExtensionPoint.SCORE, ()))

    def for_cycle(self, snapshot: "Snapshot", nominated_pods: Mapping[str, Sequence["PodInfo"]]) -> "Framework":
        """This framework for the next cycle of a sequence: the cluster as it now is and the pods
        nominated in it. The scheduler keeps one framework per profile across its cycles; so do the
        copies of a workload, which would otherwise build one and its plugins per copy."""
        self.snapshot = snapshot
        self._nominated = {node: pods for node, pods in nominated_pods.items() if pods}
        self.__dict__.pop("_fingerprints", None)        # (the pods of the cycles before: not asked again)
        return self

    # The optional interfaces' plugins, and the Filter methods bound once: found when first
    # needed (most frameworks run one cycle, many never need some of them).
    @cached_property
    def _filters(self) -> list[tuple[str, FilterFn]]:
        return [(pl.name, pl.filter) for pl in self.filter_plugins]

    @cached_property
    def _pre_filter_extensions(self) -> list[PreFilterExtensions]:
        return [pl for pl in self.pre_filter_plugins if isinstance(pl, PreFilterExtensions)]

    @cached_property
    def _normalizers(self) -> dict[str, NormalizeFn]:
        return {pl.name: pl.normalize_score for pl in self.score_plugins if isinstance(pl, ScoreExtensions)}

    @cached_property
    def _signers(self) -> list[SignPlugin] | None:
        """The plugins that sign a pod, each once; None when one of them cannot sign at all."""
        found: dict[str, Plugin] = {}
        for pl in (*self.pre_filter_plugins, *self.filter_plugins, *self.pre_score_plugins, *self.score_plugins):
            found.setdefault(pl.name, pl)
        if not all(isinstance(pl, SignPlugin) for pl in found.values()):
            return None
        return [pl for pl in found.values() if isinstance(pl, SignPlugin)]

    def sign_pod(self, pod: "PodInfo") -> str | None:
        """frameworkImpl.SignPod: the pod's OpportunisticBatching signature; None if a plugin cannot sign it."""
        plugins = self._signers
        if plugins is None:
            return None
        fragments: list[tuple[str, Any]] = []
        for pl in plugins:
            signed = pl.sign_pod(pod)
            if signed is None:
                return None
            fragments.extend(signed)
        return signature(pod.spec.get("schedulerName") or "", fragments)

    def _node_local(self, pl: Plugin, pod: "PodInfo", point: str) -> dict | None:
        """The node memo of a `node_local` plugin's answers at `point` for `pod`; None otherwise."""
        if not pl.node_local:
            return None
        return self._memo_table(point, (pl,), pod)

    def _memo_table(self, point: str, plugins: Sequence[Plugin], pod: "PodInfo") -> dict | None:
        """The node memo's table for these node-local plugins at `point`; None for a pod not plain data."""
        fingerprints = self.__dict__.setdefault("_fingerprints", {})
        found = fingerprints.get(id(pod))
        if found is None or found[0] is not pod:
            found = fingerprints[id(pod)] = (pod, {})
        # each plugin's view of the pod (`Plugin.pod_fields`): a pod that differs from another only
        # where a plugin does not read shares that plugin's answers
        keys = found[1]
        views = []
        for pl in plugins:
            fields = pl.pod_fields
            if fields not in keys:
                keys[fields] = plugin_key(pod) if fields is None else fields_key(pod, fields)
            view = keys[fields]
            if view is None:
                return None
            views.append(view)
        # each plugin as configured: its args, and whatever else configures it (a Kubernetes
        # version); the framework's own plugins, so their ids name them while it lives
        known = self.__dict__.setdefault("_configured", {})
        ids = tuple(map(id, plugins))
        configured = known.get(ids)
        memo = node_memo(self.snapshot)
        if configured is None:
            configured = known[ids] = tuple(
                (pl.name, memo.configured(pl, getattr(self, "kube", None), getattr(pl, "kube", None))) for pl in plugins)
        return memo.table((point, configured, tuple(views)))

    def _filter_memoized(self, state: CycleState, pod: "PodInfo", pl: Plugin,
                         nodes: "Sequence[NodeInfo]") -> list[Status]:
        """`pl.filter_nodes`, through the node memo when the plugin is node-local."""
        table = self._node_local(pl, pod, "filter")
        pool = node_memo(self.snapshot).statuses
        if table is None:
            return _interned(pl.filter_nodes(state, pod, nodes), pool)
        return memoized(table, self.snapshot, nodes, lambda todo: _interned(pl.filter_nodes(state, pod, todo), pool))

    def node_local_filters(self, state: CycleState, pod: "PodInfo") -> tuple[dict, Callable, Callable | None] | None:
        """The node memo's table of this cycle's first Filter plugins when they are node-local and no pod
        is nominated (their verdicts are then each node's alone: `search_column`), their verdicts on
        given nodes, and the plugins' after them (None: there are none)."""
        segments = self._filter_segments(state.skip_filter_plugins)
        if self._nominated or not segments or not segments[0][0].node_local:
            return None
        table = self._memo_table("filter-run", segments[0], pod)
        if table is None:
            return None

        def local(nodes: "Sequence[NodeInfo]") -> list[Status]:
            return self._filter_run(state, pod, segments[0], nodes)

        def later(nodes: "Sequence[NodeInfo]") -> list[Status]:
            verdicts = [SUCCESS] * len(nodes)
            self._filter_to_first_failure(state, pod, nodes, verdicts, segments[1:])
            return verdicts
        return table, local, later if len(segments) > 1 else None

    def _filter_segments(self, skip: frozenset[str]) -> list[tuple[Plugin, ...]]:
        """The Filter plugins not skipped, each run of node-local ones one segment (`_filter_run`)."""
        segments: list[tuple[Plugin, ...]] = []
        run: list[Plugin] = []
        for pl in self.filter_plugins:
            if pl.name in skip:
                continue
            if pl.node_local:
                run.append(pl)
                continue
            if run:
                segments.append(tuple(run))
                run = []
            segments.append((pl,))
        if run:
            segments.append(tuple(run))
        return segments

    def _filter_run(self, state: CycleState, pod: "PodInfo", run: Sequence[Plugin],
                    nodes: "Sequence[NodeInfo]") -> list[Status]:
        """Each node's verdict from a segment of Filter plugins, a node-local run memoized per node."""
        def compute(todo: "Sequence[NodeInfo]") -> list[Status]:
            out: list[Status] = [SUCCESS] * len(todo)
            alive = list(range(len(todo)))
            for pl in run:
                targets = todo if len(alive) == len(todo) else [todo[i] for i in alive]
                alive = _sift(pl.name, alive, self._filter_memoized(state, pod, pl, targets), out)
                if not alive:
                    break
            return _interned(out, node_memo(self.snapshot).statuses)

        table = self._memo_table("filter-run", run, pod) if run[0].node_local else None
        return compute(nodes) if table is None else memoized(table, self.snapshot, nodes, compute)

    # -- queue ---------------------------------------------------------------------------
    def run_pre_enqueue(self, pod: "PodInfo") -> tuple[Status, list[PluginCall]]:
        calls = []
        for pl in self.pre_enqueue_plugins:
            s = pl.pre_enqueue(pod)
            calls.append(PluginCall(pl.name, s))
            if not s.is_success:
                return s.with_plugin(pl.name), calls
        return Status(), calls

    def less(self, a: "PodInfo", b: "PodInfo") -> bool:
        return self.queue_sort_plugins[0].less(a, b)

    # -- filtering -----------------------------------------------------------------------
    @property
    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    @property
    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    @property
    def percentage_of_nodes_to_score(self) -> int | None:
        return self.profile.percentage_of_nodes_to_score

    def run_pre_filter(self, state: CycleState, pod: "PodInfo") -> PreFilterOutcome:
        nodes = self.snapshot.node_infos
        result: PreFilterResult | None = None
        with_nodes: set[str] = set()
        skip: set[str] = set()
        calls: list[PluginCall] = []
        return_status = Status()

        def done(res: PreFilterResult | None, status: Status,
                 plugins: Sequence[str] | set[str] = ()) -> PreFilterOutcome:
            state.skip_filter_plugins = frozenset(skip)
            return PreFilterOutcome(res, status, frozenset(plugins), calls)

        for pl in self.pre_filter_plugins:
            r, s = pl.pre_filter(state, pod, nodes)
            calls.append(PluginCall(pl.name, s))
            if s.is_skip:
                skip.add(pl.name)
                continue
            if not s.is_success:
                s = s.with_plugin(pl.name)
                if s.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return done(None, s)
                if s.code is Code.UNSCHEDULABLE:
                    return_status = s
                    continue
                return done(None, Status(Code.ERROR, (f'running PreFilter plugin "{pl.name}": {s.message()}',),
                                         pl.name))
            if r is not None and not r.all_nodes:
                with_nodes.add(pl.name)
            result = (result or PreFilterResult()).merge(r) if r is not None else result
            if result is not None and result.node_names is not None and not result.node_names:
                names = sorted(with_nodes)
                msg = (f"node(s) didn't satisfy plugin {names[0]}" if len(names) == 1 else
                       f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously")
                return done(result, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,)), with_nodes)
        return done(result, return_status, with_nodes)

    def run_filter_plugins(self, state: CycleState, pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """Filter plugins in order, stopping at the first that does not succeed."""
        skip = state.skip_filter_plugins
        for name, filter_one in self._filters:
            if name in skip:
                continue
            s = filter_one(state, pod, node_info)
            if not s.is_success:
                return _filter_failure(name, s)
        return SUCCESS

    def run_filter_nodes(self, state: CycleState, pod: "PodInfo", nodes: "Sequence[NodeInfo]",
                         every: bool = False) -> FilterBatch:
        """RunFilterPluginsWithNominatedPods on each of `nodes`, plugin by plugin (`every`: filterAll)."""
        verdicts: list[Status] = [SUCCESS] * len(nodes)
        columns: list[tuple[str, list[Status] | None]] = []
        if every:
            passed = self._filter_every(state, pod, nodes, verdicts, columns)
        else:
            passed = self._filter_to_first_failure(state, pod, nodes, verdicts)
        return self._with_nominated_verdicts(state, pod, nodes, verdicts, set(passed), columns, every)

    def _filter_to_first_failure(self, state: CycleState, pod: "PodInfo", nodes: "Sequence[NodeInfo]",
                                 verdicts: list[Status], segments: "Sequence[tuple[Plugin, ...]] | None" = None) -> list[int]:
        """Each segment on the nodes the ones before it passed: the nodes that pass all; others' verdicts set."""
        n = len(nodes)
        alive: Sequence[int] = range(n)     # nodes no plugin has failed yet
        if segments is None:
            segments = self._filter_segments(state.skip_filter_plugins)
        for segment in segments:
            if not alive:
                break
            if len(alive) == n:     # (the first segment: its verdicts are every node's so far)
                run = self._filter_run(state, pod, segment, nodes)
                verdicts[:] = run
            else:
                run = self._filter_run(state, pod, segment, [nodes[i] for i in alive])
                for i, v in zip(alive, run):
                    verdicts[i] = v
            alive = list(compress(alive, map(is_, run, repeat(SUCCESS))))
        return list(alive)

    def _filter_every(self, state: CycleState, pod: "PodInfo", nodes: "Sequence[NodeInfo]",
                      verdicts: list[Status], columns: list[tuple[str, list[Status] | None]]) -> list[int]:
        """filterAll: every plugin on every node, statuses kept per plugin; verdicts still the first failure."""
        skip = state.skip_filter_plugins
        alive = list(range(len(nodes)))
        run: list[Plugin] | None = []         # the first run of node-local plugins, while it lasts
        for pl in self.filter_plugins:
            name = pl.name
            if name in skip:
                columns.append((name, None))
                continue
            if run is not None and not pl.node_local:
                self._keep_run(pod, run, nodes, verdicts)
                run = None
            col = self._filter_memoized(state, pod, pl, nodes)
            columns.append((name, col))
            alive = _sift(name, alive, [col[i] for i in alive], verdicts)
            if run is not None:
                run.append(pl)
        if run:
            self._keep_run(pod, run, nodes, verdicts)
        return alive

    def _keep_run(self, pod: "PodInfo", run: list[Plugin], nodes: "Sequence[NodeInfo]", verdicts: list[Status]) -> None:
        """filterAll's verdicts once its first run of node-local plugins is through are that run's own
        (`_filter_run`'s): kept for the plain cycles of the pod that follow (a suggestion's verification
        on a changed cluster), which would otherwise sift every node's statuses again."""
        table = self._memo_table("filter-run", tuple(run), pod) if run else None
        if table is not None:
            keep(table, self.snapshot, nodes, _interned(list(verdicts), node_memo(self.snapshot).statuses))

    def _with_nominated_verdicts(self, state: CycleState, pod: "PodInfo", nodes: "Sequence[NodeInfo]",
                                 verdicts: list[Status], passed: set[int],
                                 columns: list[tuple[str, list[Status] | None]], every: bool) -> FilterBatch:
        """The batch, with the nodes that have nominated pods filtered again with them in."""
        if self._nominated:
            for i, ni in enumerate(nodes):
                if ni.name not in self._nominated:
                    continue
                verdicts[i] = self.run_filter_plugins_with_nominated_pods(state, pod, ni, verdicts[i])
                if not verdicts[i].is_success:
                    passed.discard(i)
                if every:
                    self._nominated_column_entries(state, pod, ni, i, columns, passed)
        return FilterBatch(verdicts, columns if every else None, frozenset(passed))

    def _nominated_column_entries(self, state: CycleState, pod: "PodInfo", node_info: "NodeInfo", i: int,
                                  columns: list[tuple[str, list[Status] | None]], passed: set[int]) -> None:
        """filterAll on a node with nominated pods: each status as the scheduler's first pass sees it."""
        added = self._with_nominated(state, pod, node_info)
        if added is None or isinstance(added, Status):
            return
        state_out, info_out = added
        for k, (name, col) in enumerate(columns):
            if col is None:
                continue
            with_them = self.plugins[name].filter(state_out, pod, info_out)   # type: ignore[attr-defined]
            if not with_them.is_success:
                col = list(col)
                col[i] = with_them
                columns[k] = (name, col)
                passed.discard(i)

    def _with_nominated(self, state: CycleState, pod: "PodInfo",
                        node_info: "NodeInfo") -> "tuple[CycleState, NodeInfo] | Status | None":
        """addGENominatedPods: state and node with pods nominated at or above this priority; None when none."""
        nominated = [p for p in self._nominated.get(node_info.name, ())
                     if p.priority >= pod.priority and p.uid != pod.uid]
        if not nominated:
            return None
        state_out, info_out = state.clone(), node_info.clone()
        for p in nominated:
            info_out.add_pod(p)
            s = self.run_pre_filter_extension_add_pod(state_out, pod, p, info_out)
            if not s.is_success:
                return s
        return state_out, info_out

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: "PodInfo", other: "PodInfo",
                                         node_info: "NodeInfo") -> Status:
        return self._run_pre_filter_extension(True, state, pod, other, node_info)

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: "PodInfo", other: "PodInfo",
                                            node_info: "NodeInfo") -> Status:
        return self._run_pre_filter_extension(False, state, pod, other, node_info)

    def _run_pre_filter_extension(self, adding: bool, state: CycleState, pod: "PodInfo", other: "PodInfo",
                                  node_info: "NodeInfo") -> Status:
        """AddPod (or RemovePod) of every PreFilter plugin that has extensions and did not skip."""
        for pl in self._pre_filter_extensions:
            if pl.name in state.skip_filter_plugins:
                continue
            s = (pl.add_pod if adding else pl.remove_pod)(state, pod, other, node_info)
            if not s.is_success:
                which = "AddPod" if adding else "RemovePod"
                return Status(Code.ERROR, (f'running {which} on PreFilter plugin "{pl.name}": {s.message()}',))
        return Status()

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: "PodInfo", node_info: "NodeInfo",
                                               plain: Status | None = None) -> Status:
        """RunFilterPluginsWithNominatedPods: filters with nominated pods counted in, then without them."""
        added = self._with_nominated(state, pod, node_info)
        if isinstance(added, Status):
            return added
        if added is not None:
            state_out, info_out = added
            status = self.run_filter_plugins(state_out, pod, info_out)
            if not status.is_success:
                return status
        return plain if plain is not None else self.run_filter_plugins(state, pod, node_info)

    def run_post_filter(self, state: CycleState, pod: "PodInfo", statuses: NodeToStatus) -> PostFilterOutcome:
        calls: list[PluginCall] = []
        results: dict[str, PostFilterResult | None] = {}
        result: PostFilterResult | None = None
        reasons: list[str] = []
        rejector = ""
        for pl in self.post_filter_plugins:
            r, s = pl.post_filter(state, pod, statuses)
            results[pl.name] = r
            calls.append(PluginCall(pl.name, s))
            if s.is_success:
                return PostFilterOutcome(r, s.with_plugin(pl.name), calls, results)
            if s.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return PostFilterOutcome(r, s.with_plugin(pl.name), calls, results)
            if not s.is_rejected:
                return PostFilterOutcome(None, Status(Code.ERROR, (s.message(),), pl.name), calls, results)
            if r is not None and r.mode != "Noop":
                result = r
            reasons.extend(s.reasons)
            rejector = rejector or pl.name
        return PostFilterOutcome(result, Status(Code.UNSCHEDULABLE, tuple(reasons), rejector), calls, results)

    # -- scoring -------------------------------------------------------------------------
    def run_pre_score(self, state: CycleState, pod: "PodInfo", nodes: list["NodeInfo"]) -> Status:
        skip: set[str] = set()
        try:
            for pl in self.pre_score_plugins:
                s = pl.pre_score(state, pod, nodes)
                if s.is_skip:
                    skip.add(pl.name)
                    continue
                if not s.is_success:
                    return Status(Code.ERROR, (f'running PreScore plugin "{pl.name}": {s.message()}',))
            return Status()
        finally:
            state.skip_score_plugins = frozenset(skip)

    def run_score(self, state: CycleState, pod: "PodInfo", nodes: list["NodeInfo"],
                  node_names: list[str] | None = None) -> ScoreBatch:
        """RunScorePlugins: raw and normalized scores of `nodes` (named `node_names` when the caller has
        them), plugin by plugin, and each weighted total."""
        names: list[str] = []
        weights: list[int] = []
        raws: list[list[int]] = []
        normalized: list[list[int]] = []
        weighted: list[list[int]] = []
        local = self._local_raw_scores(state, pod, nodes)
        for pl in self.score_plugins:
            if pl.name in state.skip_score_plugins:
                continue
            raw = local.get(pl.name)
            if raw is None:
                raw = self._raw_scores(state, pod, pl, nodes)
            final = raw
            normalize = self._normalizers.get(pl.name)
            if normalize is not None:
                if node_names is None:
                    node_names = list(map(_NAME, nodes))
                scores = NodeScoreList(node_names, list(raw))
                s = normalize(state, pod, scores)
                if not s.is_success:
                    raise FrameworkError(f'running Normalize on Score plugins: plugin "{pl.name}" failed with: '
                                         f'{s.message()}')
                final = scores.scores
            if final and (min(final) < MIN_NODE_SCORE or max(final) > MAX_NODE_SCORE):
                bad = next(f for f in final if not MIN_NODE_SCORE <= f <= MAX_NODE_SCORE)
                raise FrameworkError(
                    f'applying score defaultWeights on Score plugins: plugin "{pl.name}" returns an invalid '
                    f'score {bad}, it should in the range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] '
                    f'after normalizing')
            weight = self.weights.get(pl.name, 1)
            names.append(pl.name)
            weights.append(weight)
            raws.append(raw)
            normalized.append(final)
            weighted.append(final if weight == 1 else [f * weight for f in final])
        if not names:
            return ScoreBatch([], [], [], [], [0] * len(nodes))
        return ScoreBatch(names, weights, raws, normalized, list(map(sum, zip(*weighted))))

    def _raw_scores(self, state: CycleState, pod: "PodInfo", pl: Plugin, nodes: "Sequence[NodeInfo]") -> list[int]:
        """`pl.score_nodes`, through the node memo when the plugin is node-local."""
        table = self._node_local(pl, pod, "score")
        if table is None:
            return pl.score_nodes(state, pod, nodes)
        return memoized(table, self.snapshot, nodes, lambda todo: pl.score_nodes(state, pod, todo))

    def _local_raw_scores(self, state: CycleState, pod: "PodInfo", nodes: list["NodeInfo"]) -> dict[str, list[int]]:
        """The raw scores of the node-local Score plugins that run, memoized together: one look-up
        per node for all of them. Empty when fewer than two, or when one fails (the plugins' order,
        in `run_score`, then says whose error comes first)."""
        local = tuple(pl for pl in self.score_plugins
                      if pl.node_local and pl.name not in state.skip_score_plugins)
        table = self._memo_table("score-run", local, pod) if len(local) > 1 else None
        if table is None:
            return {}

        def compute(todo: "Sequence[NodeInfo]") -> list[tuple[int, ...]]:
            # (each plugin's own memo: a pod that differs from the last only where one plugin
            # reads has the others' scores already)
            return list(zip(*[self._raw_scores(state, pod, pl, todo) for pl in local]))

        try:
            rows = memoized(table, self.snapshot, nodes, compute)
        except FrameworkError:
            return {}
        # (a column per plugin, one pass each: no iterator per row for the collector to meet)
        return {pl.name: list(map(itemgetter(i), rows)) for i, pl in enumerate(local)}

    # -- explanations (kexplain's own, never part of a scheduling decision) ------------------
    @cached_property
    def explaining_plugins(self) -> list[Explainer]:
        """The Explainers among the plugins: the Filter plugins in order, then the Score plugins."""
        ordered: list[Plugin] = [*self.pre_filter_plugins, *self.filter_plugins, *self.pre_score_plugins,
                                 *self.score_plugins]
        return [pl for pl in dict.fromkeys(ordered) if isinstance(pl, Explainer)]

    def run_notes(self, state: CycleState, pod: "PodInfo") -> list[dict[str, str]]:
        """[{plugin, note}]: what each plugin says it could not reproduce for this cycle."""
        return [{"plugin": pl.name, "note": note} for pl in self.explaining_plugins for note in pl.notes(state, pod)]

    def run_rejection(self, state: CycleState, pod: "PodInfo", plugin: str) -> dict[str, Any] | None:
        """The facts `plugin` gives for its PreFilter rejection of the pod (`Explainer.rejection`), or None."""
        for pl in self.explaining_plugins:
            if pl.name == plugin:
                try:
                    return pl.rejection(state, pod)
                except Exception as err:  # noqa: BLE001 - a broken explanation must not hide the verdict
                    return {"error": f"{type(err).__name__}: {err}"}
        return None

    def run_explain(self, state: CycleState, pod: "PodInfo", node_info: "NodeInfo", *,
                    overview: bool = False) -> dict[str, Any]:
        """plugin -> its `explain` facts for the node; a failing one listed as `{"error": ...}`."""
        out: dict[str, Any] = {}
        for pl in self.explaining_plugins:
            if overview and not pl.in_overview:
                continue
            try:
                facts = pl.explain(state, pod, node_info)
            except Exception as err:  # noqa: BLE001 - reported in the facts, see above
                facts = {"error": f"{type(err).__name__}: {err}"}
            if facts is not None:
                out[pl.name] = facts
        return out

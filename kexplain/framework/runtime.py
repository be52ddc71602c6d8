"""The framework runner: instantiates a profile's plugins and runs each extension point.

Mirrors kube-scheduler's frameworkImpl (run order, Skip bookkeeping, how statuses
merge) and records what every call returned, which is what the trace is made of.

Besides the extension points, a plugin may offer kexplain's own optional method

    explain(state, pod, node_info) -> dict | None

the facts behind its verdict on one node, as JSON-ready values (what it compared: requested
against allocatable, the taints not tolerated, the skew per domain, the conflicting pods...),
read from what its PreFilter/PreScore stored in the cycle state. It must not change the
state, and returns None when it has nothing to say about the node (skipped, not enabled).
The framework calls it only when asked to (`run_explain`), after the scheduling decision,
so it never slows down or changes a plain run; renderers read its output from the trace
(extra key `details`) and never look at plugin internals.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import MAX_NODE_SCORE, MIN_NODE_SCORE, NodeScore, NodeToStatus, Plugin, PostFilterResult, PreFilterResult
from kexplain.framework.status import SUCCESS, Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.config import Profile
    from kexplain.model.nodeinfo import NodeInfo
    from kexplain.model.pod import PodInfo
    from kexplain.model.snapshot import Snapshot


_SUCCESS_CODE = Code.SUCCESS


class FrameworkError(Exception):
    """A plugin returned Error: the scheduling attempt ends with result status Error."""


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
    """run_filter_nodes' answer: the verdict per node and, when every plugin ran on every
    node, each plugin's statuses in node order (None for a plugin its PreFilter skipped)."""

    verdicts: list[Status]
    columns: list[tuple[str, list[Status] | None]] | None = None
    passed: frozenset[int] = frozenset()   # the nodes every plugin that ran passed (by index)


@dataclass
class ScoreBatch:
    """run_score's answer, in node order: each node's trace entries (plugin -> raw,
    normalized, weight, weighted) and its total."""

    details: list[dict[str, dict[str, int]]]
    totals: list[int]


def _filter_failure(plugin: str, s: Status) -> Status:
    """A node's verdict from the first Filter plugin that did not succeed: its status, or
    an Error naming the plugin when it returned neither success nor a rejection."""
    if not s.is_rejected:
        s = Status(Code.ERROR, (f'running "{plugin}" filter plugin: {s.message()}',))
    return s.with_plugin(plugin)


class Framework:
    """One profile's plugins, bound to a snapshot. Also the `Handle` plugins receive."""

    def __init__(self, profile: "Profile", registry: Mapping[str, type[Plugin]], snapshot: "Snapshot",
                 nominated_pods: Mapping[str, Sequence["PodInfo"]] | None = None) -> None:
        self.profile = profile
        self.profile_name = profile.scheduler_name
        self.snapshot = snapshot
        self._nominated = {node: pods for node, pods in (nominated_pods or {}).items() if pods}
        needed = {name for names in profile.plugins.values() for name in names}
        self.plugins: dict[str, Plugin] = {
            name: registry[name](profile.args.get(name), self) for name in sorted(needed)}
        self.weights = dict(profile.score_weights)

        def at(point: str) -> list[Plugin]:
            return [self.plugins[n] for n in profile.plugins.get(point, ())]

        self.pre_enqueue_plugins = at("preEnqueue")
        self.queue_sort_plugins = at("queueSort")
        self.pre_filter_plugins = at("preFilter")
        self.filter_plugins = at("filter")
        self.post_filter_plugins = at("postFilter")
        self.pre_score_plugins = at("preScore")
        self.score_plugins = at("score")

    # -- queue ---------------------------------------------------------------------------
    def run_pre_enqueue(self, pod: "PodInfo") -> tuple[Status, list[PluginCall]]:
        calls = []
        for pl in self.pre_enqueue_plugins:
            s = pl.pre_enqueue(pod)  # type: ignore[attr-defined]
            calls.append(PluginCall(pl.name, s))
            if not s.is_success:
                return s.with_plugin(pl.name), calls
        return Status(), calls

    def less(self, a: "PodInfo", b: "PodInfo") -> bool:
        return self.queue_sort_plugins[0].less(a, b)  # type: ignore[attr-defined]

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

        def done(res, status, plugins=frozenset()):
            state.skip_filter_plugins = frozenset(skip)
            return PreFilterOutcome(res, status, frozenset(plugins), calls)

        for pl in self.pre_filter_plugins:
            r, s = pl.pre_filter(state, pod, nodes)  # type: ignore[attr-defined]
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
            if result is not None and not result.all_nodes and not result.node_names:
                names = sorted(with_nodes)
                msg = (f"node(s) didn't satisfy plugin {names[0]}" if len(names) == 1 else
                       f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously")
                return done(result, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,)), with_nodes)
        return done(result, return_status, with_nodes)

    def run_filter_plugins(self, state: CycleState, pod: "PodInfo", node_info: "NodeInfo") -> Status:
        """Filter plugins in order, stopping at the first that does not succeed."""
        for pl in self.filter_plugins:
            if pl.name in state.skip_filter_plugins:
                continue
            s = pl.filter(state, pod, node_info)  # type: ignore[attr-defined]
            if not s.is_success:
                return _filter_failure(pl.name, s)
        return SUCCESS

    def run_filter_nodes(self, state: CycleState, pod: "PodInfo", nodes: "Sequence[NodeInfo]",
                         every: bool = False) -> FilterBatch:
        """The verdict of run_filter_plugins_with_nominated_pods on each of `nodes`, reached
        plugin by plugin over the list rather than node by node, so that a plugin with a
        `filter_nodes(state, pod, nodes) -> list[Status]` method does its per-pod work once.
        A plugin runs only on the nodes every plugin before it passed, as the scheduler stops
        at a node's first failure; with `every` it runs on all of them and its statuses are
        kept (filterAll). Filter has no side effects, so the order makes no difference."""
        n = len(nodes)
        verdicts: list[Status] = [SUCCESS] * n
        columns: list[tuple[str, list[Status] | None]] = []
        skip = state.skip_filter_plugins
        alive = list(range(n))              # nodes no plugin has failed yet
        for pl in self.filter_plugins:
            name = pl.name
            if name in skip:
                columns.append((name, None))
                continue
            if not alive and not every:
                continue
            targets = nodes if every or len(alive) == n else [nodes[i] for i in alive]
            many = getattr(pl, "filter_nodes", None)
            col = (many(state, pod, targets) if many is not None
                   else [pl.filter(state, pod, ni) for ni in targets])  # type: ignore[attr-defined]
            if every:
                columns.append((name, col))
                pairs = [(i, col[i]) for i in alive]
            else:
                pairs = list(zip(alive, col))
            failed = [(i, s) for i, s in pairs if s.code is not _SUCCESS_CODE]
            if failed:
                made: dict[int, Status] = {}       # a status shared by many nodes: one verdict
                for i, s in failed:
                    verdict = made.get(id(s))
                    if verdict is None:
                        verdict = made[id(s)] = _filter_failure(name, s)
                    verdicts[i] = verdict
                out = {i for i, _ in failed}
                alive = [i for i in alive if i not in out]
        nominated = self._nominated
        if nominated:
            for i, ni in enumerate(nodes):
                if ni.name in nominated:
                    verdicts[i] = self.run_filter_plugins_with_nominated_pods(state, pod, ni, verdicts[i])
        return FilterBatch(verdicts, columns if every else None, frozenset(alive))

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod: "PodInfo", other: "PodInfo",
                                         node_info: "NodeInfo") -> Status:
        return self._run_pre_filter_extension("add_pod", "AddPod", state, pod, other, node_info)

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod: "PodInfo", other: "PodInfo",
                                            node_info: "NodeInfo") -> Status:
        return self._run_pre_filter_extension("remove_pod", "RemovePod", state, pod, other, node_info)

    def _run_pre_filter_extension(self, method: str, which: str, state: CycleState, pod: "PodInfo",
                                  other: "PodInfo", node_info: "NodeInfo") -> Status:
        """AddPod or RemovePod of every PreFilter plugin that has extensions and did not skip."""
        for pl in self.pre_filter_plugins:
            if pl.name in state.skip_filter_plugins or not pl.has_pre_filter_extensions:
                continue
            s = getattr(pl, method)(state, pod, other, node_info)
            if not s.is_success:
                return Status(Code.ERROR, (f'running {which} on PreFilter plugin "{pl.name}": {s.message()}',))
        return Status()

    def nominated_pods_for_node(self, node_name: str) -> list["PodInfo"]:
        return list(self._nominated.get(node_name, ()))

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: "PodInfo", node_info: "NodeInfo",
                                               plain: Status | None = None) -> Status:
        """Filters with higher-or-equal priority pods nominated to the node counted in, then
        (if any were added and that passed) once more without them. `plain`: the verdict of
        that second run when the caller has it already."""
        nominated = [p for p in self._nominated.get(node_info.name, ())
                     if p.priority >= pod.priority and p.uid != pod.uid]
        if nominated:
            state_out, info_out = state.clone(), node_info.clone()
            for p in nominated:
                info_out.add_pod(p)
                s = self.run_pre_filter_extension_add_pod(state_out, pod, p, info_out)
                if not s.is_success:
                    return s
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
            r, s = pl.post_filter(state, pod, statuses)  # type: ignore[attr-defined]
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
                s = pl.pre_score(state, pod, nodes)  # type: ignore[attr-defined]
                if s.is_skip:
                    skip.add(pl.name)
                    continue
                if not s.is_success:
                    return Status(Code.ERROR, (f'running PreScore plugin "{pl.name}": {s.message()}',))
            return Status()
        finally:
            state.skip_score_plugins = frozenset(skip)

    def run_score(self, state: CycleState, pod: "PodInfo", nodes: list["NodeInfo"]) -> ScoreBatch:
        """Per node (in the given order): plugin -> its trace entry (raw, normalized, weight,
        weighted), built here once, plugin by plugin: a cluster has thousands of nodes."""
        names: list[str] = []
        entries: list[list[dict[str, int]]] = []
        weighted: list[list[int]] = []
        for pl in self.score_plugins:
            if pl.name in state.skip_score_plugins:
                continue
            many = getattr(pl, "score_nodes", None)    # a plugin may score a whole node list at once
            if many is not None:
                raw = many(state, pod, nodes)
            else:
                raw = [int(pl.score(state, pod, ni)) for ni in nodes]  # type: ignore[attr-defined]
            final = raw
            if pl.has_normalize_score:
                scores = [NodeScore(ni.name, r) for ni, r in zip(nodes, raw)]
                s = pl.normalize_score(state, pod, scores)  # type: ignore[attr-defined]
                if s is not None and not s.is_success:
                    raise FrameworkError(f'running Normalize on Score plugins: plugin "{pl.name}" failed with: '
                                         f'{s.message()}')
                final = [ns.score for ns in scores]
            if final and (min(final) < MIN_NODE_SCORE or max(final) > MAX_NODE_SCORE):
                bad = next(f for f in final if not MIN_NODE_SCORE <= f <= MAX_NODE_SCORE)
                raise FrameworkError(
                    f'applying score defaultWeights on Score plugins: plugin "{pl.name}" returns an invalid '
                    f'score {bad}, it should in the range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] '
                    f'after normalizing')
            weight = self.weights.get(pl.name, 1)
            names.append(pl.name)
            weighted.append([f * weight for f in final])
            # one entry per distinct (raw, normalized), shared by the nodes that scored it
            keys = list(zip(raw, final))
            distinct = {k: {"raw": k[0], "normalized": k[1], "weight": weight, "weighted": k[1] * weight}
                        for k in dict.fromkeys(keys)}
            entries.append(list(map(distinct.__getitem__, keys)))
        if not names:
            return ScoreBatch([{} for _ in nodes], [0] * len(nodes))
        return ScoreBatch([dict(zip(names, row)) for row in zip(*entries)], list(map(sum, zip(*weighted))))

    # -- explanations (kexplain's own, never part of a scheduling decision) ------------------
    def explaining_plugins(self) -> list[Plugin]:
        """Plugins with an `explain` method: the Filter plugins in order, then the Score plugins."""
        out: list[Plugin] = []
        for pl in [*self.pre_filter_plugins, *self.filter_plugins, *self.pre_score_plugins, *self.score_plugins]:
            if callable(getattr(pl, "explain", None)) and pl not in out:
                out.append(pl)
        return out

    def run_explain(self, state: CycleState, pod: "PodInfo", node_info: "NodeInfo") -> dict[str, Any]:
        """plugin -> the facts its `explain` gives for the node (plugins with nothing to say
        are left out). A plugin whose explain fails is listed with `{"error": ...}`: a broken
        explanation must not hide the verdict it would have explained."""
        out: dict[str, Any] = {}
        for pl in self.explaining_plugins():
            try:
                facts = pl.explain(state, pod, node_info)  # type: ignore[attr-defined]
            except Exception as err:  # noqa: BLE001 - reported in the facts, see above
                facts = {"error": f"{type(err).__name__}: {err}"}
            if facts is not None:
                out[pl.name] = facts
        return out

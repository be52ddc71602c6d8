"""One TAS flavor's snapshot for a scheduling cycle (tas_flavor_snapshot.go): the topology's domains
built from the flavor's Nodes, each leaf's free capacity (allocatable less bound non-TAS pods) and
TAS usage, and the placement (`find`): how many pods fit in each domain, bubbled up the levels, the
level and domains that take the pod set (BestFit; LeastFreeCapacity for unconstrained requests,
TASProfileMixed), then down level by level to the leaves; a pod set group's leader and workers
together (`tas_leader`). Balanced placement and node replacement, off by default or not in the
oracle, are not modelled."""
from __future__ import annotations

import heapq
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from kexplain.kueue.apis.topology import HOSTNAME, DomainAssignment, TopologyAssignment, TopologyRequest
from kexplain.kueue.cache.tas_counts import (MAX_INT32, LeaderCounts, ShapeCounts, Tree, Wanted, assumed_fit, carry,
                                              leader_slices)
from kexplain.kueue.cache.tas_leader import GroupCounts, GroupPlacer
from kexplain.kueue.resources import PODS, Requests
from kexplain.model.nodeinfo import Node
from kexplain.model.nodeselector import NodeSelector, ParsedTerm, RequiredNodeAffinity
from kexplain.model.taints import NO_EXECUTE, NO_SCHEDULE, tolerations_tolerate

COUNTS_KEPT = 256      # request shapes whose counts a snapshot keeps (`ShapeCounts`)


@dataclass(eq=False)
class Domain:
    """A topology domain: its values (one per level down to its own), parent and children, and its
    place among the domains (`pos`: a leaf's among the leaves; what the counts are kept by)."""

    id: str
    values: tuple[str, ...]
    parent: "Domain | None" = None
    children: list["Domain"] = field(default_factory=list)
    pos: int = 0
    # leaves only
    free: Requests = field(default_factory=dict)        # allocatable less non-TAS usage
    tas_usage: Requests = field(default_factory=dict)
    node: Mapping[str, Any] | None = None               # the Node, when the lowest level is the hostname
    nodes: list[str] = field(default_factory=list)      # the Nodes it holds (names)


@dataclass
class Exclusions:
    """ExclusionStats: why nodes were left out of a placement."""

    total: int = 0
    node_selector: int = 0
    affinity: int = 0
    taints: dict[str, int] = field(default_factory=dict)
    resources: dict[str, int] = field(default_factory=dict)

    def any(self) -> bool:
        return bool(self.node_selector or self.affinity or self.taints or self.resources)

    def add(self, other: "Exclusions") -> None:
        self.total += other.total
        self.node_selector += other.node_selector
        self.affinity += other.affinity
        for k, v in other.taints.items():
            self.taints[k] = self.taints.get(k, 0) + v

    def text(self) -> str:
        """formatReasons."""
        reasons = []
        if self.node_selector:
            reasons.append(f"nodeSelector: {self.node_selector}")
        if self.affinity:
            reasons.append(f"affinity: {self.affinity}")
        reasons += [f'taint "{t}": {n}' for t, n in sorted(self.taints.items())]
        reasons += [f'resource "{r}": {n}' for r, n in sorted(self.resources.items())]
        return ", ".join(sorted(reasons))


@dataclass(frozen=True)
class PodSetRequest:
    """TASPodSetRequests: what one pod set asks of one TAS flavor."""

    name: str
    count: int
    single_pod: Requests
    spec: Mapping[str, Any]                 # the pod template's spec (selector, affinity, tolerations)
    request: TopologyRequest | None
    implied: bool


@dataclass(frozen=True)
class Placement:
    """The outcome of `find`: an assignment or Kueue's reason, with what the counts were."""

    assignment: TopologyAssignment | None
    reason: str = ""
    level: int = -1                         # the requested level's index
    exclusions: Exclusions = field(default_factory=Exclusions)
    closest: tuple[Any, ...] = ()           # not fitting: per level, the domains closest (`tas_report`)
    largest_fit: Any = None                 # the most pods one domain of the requested level takes
    leader: TopologyAssignment | None = None    # a group's: its leader pod set's assignment


def count_in(requests: Requests, capacity: Requests) -> tuple[int, str]:
    """CountInWithLimitingResource: how many times `requests` fit, and the resource that limits."""
    result, limiting = None, ""
    for name, want in requests.items():
        have = capacity.get(name, 0)
        count = MAX_INT32 if want == 0 else (0 if have <= 0 else min(have // want, MAX_INT32))
        if result is None or count < result or (count == result and name < limiting):
            result, limiting = count, name
    return (result or 0), limiting


def _taint_string(taint: Mapping[str, Any]) -> str:
    """Taint.ToString: `key=value:effect`, `key:effect` without a value."""
    value = taint.get("value") or ""
    return f"{taint.get('key') or ''}{'=' + value if value else ''}:{taint.get('effect') or ''}"


class TASFlavorSnapshot:
    """One TAS flavor's domains, their free capacity and usage, and each request shape's counts kept
    up to date (`ShapeCounts`: the leaves whose usage changed are logged, `_log`, and counted again
    when a shape is next placed). A placement's counts (`count`, `excluded`) are the last one's."""

    def __init__(self, topology: str, levels: tuple[str, ...], tolerations: Iterable[Mapping[str, Any]] = ()
                 ) -> None:
        self.topology = topology
        self.levels = levels
        self.tolerations = list(tolerations)
        self.lowest_is_node = bool(levels) and levels[-1] == HOSTNAME
        self.leaves: dict[str, Domain] = {}
        self.domains: dict[str, Domain] = {}
        self.roots: dict[str, Domain] = {}
        self.per_level: list[dict[str, Domain]] = [{} for _ in levels]
        self._matches: dict[str, tuple[list[Domain], dict[str, str], Exclusions]] = {}
        self._leaf_list: list[Domain] = []
        self._all: list[Domain] = []
        self._tree = Tree((), (), (), (), 0)
        self._in_order: list[tuple[list[Domain], list[int]]] = []     # per level: its domains by their values
        self._span: list[tuple[int, int]] = []      # per domain: the places of its leaves (from, to)
        self._columns: dict[tuple[str, bool], list[int]] = {}
        self._counts: dict[tuple[str, Wanted, bool], ShapeCounts] = {}
        self._leader_counts: dict[tuple[str, Wanted, Wanted, bool], LeaderCounts] = {}
        self._group: GroupCounts | None = None  # the last placement's counts, when it placed a group
        self._log: list[int] = []               # the leaves whose TAS usage changed, in order
        self._journal: list[tuple[str, Requests, int]] = []     # this cycle's changes (`begin_cycle` undoes them)
        self._state: list[int] = []             # the last placement's pods per domain, then pods assigned
        self._slices: list[int] = []            # and slices
        self._excluded: Mapping[str, str] = {}  # and why a leaf's Node was left out

    # -- building ---------------------------------------------------------------------------
    def add_node(self, node: Mapping[str, Any], allocatable: Requests) -> str:
        labels = (node.get("metadata") or {}).get("labels") or {}
        values = tuple(str(labels.get(k, "")) for k in self.levels)
        domain_id = str(labels.get(HOSTNAME, "")) if self.lowest_is_node else ",".join(values)
        leaf = self.leaves.get(domain_id)
        if leaf is None:
            leaf = self.leaves[domain_id] = Domain(domain_id, values, node=node if self.lowest_is_node else None)
        leaf.nodes.append(str((node.get("metadata") or {}).get("name") or ""))
        _add(leaf.free, allocatable)
        return domain_id

    def initialize(self) -> None:
        """The domains linked and placed: the leaves first, by their values, so that each domain's
        leaves are one run of places (`_span`)."""
        self._leaf_list = sorted(self.leaves.values(), key=lambda leaf: leaf.values)
        for leaf in self.leaves.values():
            self.domains[leaf.id] = leaf
            self.per_level[len(leaf.values) - 1][leaf.id] = leaf
            self._link(leaf)
        internal = [d for d in self.domains.values() if d.children]
        self._all = [*self._leaf_list, *internal]
        for i, dom in enumerate(self._all):
            dom.pos = i
        span: dict[int, tuple[int, int]] = {}
        for leaf in self._leaf_list:
            parent = leaf.parent
            while parent is not None:
                lo, hi = span.get(parent.pos, (leaf.pos, leaf.pos))
                span[parent.pos] = (min(lo, leaf.pos), max(hi, leaf.pos + 1))
                parent = parent.parent
        self._span = [span.get(i, (i, i + 1)) for i in range(len(self._all))]
        self._tree = Tree(tuple(d.parent.pos if d.parent is not None else -1 for d in self._all),
                          tuple(len(d.values) - 1 for d in self._all),
                          tuple(tuple(d.pos for d in level.values()) for level in self.per_level),
                          tuple(tuple(c.pos for c in d.children) for d in self._all), len(self._leaf_list))
        self._in_order = [(ordered, [d.pos for d in ordered]) for ordered in
                          (sorted(level.values(), key=self._order_key) for level in self.per_level)]
        self._state = [0] * len(self._all)
        self._slices = [0] * len(self._all)

    def _link(self, dom: Domain) -> None:
        if len(dom.values) == 1:
            self.roots[dom.id] = dom
            return
        parent_values = dom.values[:-1]
        parent_id = ",".join(parent_values)
        parent = self.domains.get(parent_id)
        if parent is None:
            parent = self.domains[parent_id] = Domain(parent_id, parent_values)
            self.per_level[len(parent_values) - 1][parent_id] = parent
            self._link(parent)
        dom.parent = parent
        parent.children.append(dom)

    def add_non_tas_usage(self, domain_id: str, usage: Requests) -> None:
        _add(self.leaves[domain_id].free, usage, -1)
        self._columns.clear()
        self._counts.clear()
        self._leader_counts.clear()

    def update_tas_usage(self, domain_id: str, usage: Requests, sign: int = 1) -> None:
        """addTASUsage / removeTASUsage within a cycle (undone when the next begins): a domain the
        snapshot lacks (its Node gone or not Ready) is skipped."""
        if self._apply(domain_id, usage, sign):
            self._journal.append((domain_id, dict(usage), sign))

    def begin_cycle(self, changes: Iterable[tuple[str, Requests, int]]) -> None:
        """A new cycle's TAS usage: what the last cycle changed undone, then `changes` (the usage of the
        Workloads the cache gained, less that of those it lost, since the last cycle) made: only the
        leaves they touch change, and are counted again."""
        journal, self._journal = self._journal, []
        for domain_id, usage, sign in reversed(journal):
            self._apply(domain_id, usage, -sign)
        for domain_id, usage, sign in changes:
            self._apply(domain_id, usage, sign)

    def _apply(self, domain_id: str, usage: Requests, sign: int) -> bool:
        leaf = self.leaves.get(domain_id)
        if leaf is None:
            return False
        _add(leaf.tas_usage, usage, sign)
        for (name, simulate_empty), col in self._columns.items():
            if not simulate_empty and name in usage:
                col[leaf.pos] -= sign * usage[name]
        self._log.append(leaf.pos)
        if len(self._log) > 4 * len(self._leaf_list) + 4096:    # (kept counts older than that: counted again)
            self._log.clear()
            self._counts = {k: c for k, c in self._counts.items() if c.simulate_empty}
            self._leader_counts = {k: c for k, c in self._leader_counts.items() if k[3]}
        return True

    def _column(self, name: str, simulate_empty: bool) -> list[int]:
        """One resource's free capacity (less TAS usage unless `simulate_empty`) of every leaf, in
        the leaves' order: what each placement counts pods against, kept until usage changes."""
        key = (name, simulate_empty)
        col = self._columns.get(key)
        if col is None:
            leaves = self._leaf_list
            col = self._columns[key] = [leaf.free.get(name, 0) for leaf in leaves] if simulate_empty else \
                [leaf.free.get(name, 0) - leaf.tas_usage.get(name, 0) for leaf in leaves]
        return col

    def remaining(self, leaf: Domain, simulate_empty: bool = False) -> Requests:
        out = dict(leaf.free)
        if not simulate_empty:
            _add(out, leaf.tas_usage, -1)
        return out

    def has_level(self, request: TopologyRequest | None) -> bool:
        """HasLevel: the request's level and slice level are levels of this topology."""
        key = self.level_key(request)
        if key is None or key not in self.levels:
            return False
        return self.slice_level_key(request) in self.levels

    def level_key(self, request: TopologyRequest | None) -> str | None:
        if request is None:
            return None
        if request.required is not None:
            return request.required
        if request.preferred is not None:
            return request.preferred
        if request.slice_topology is not None:          # a slice-only request: the highest level
            return self.levels[0]
        if request.unconstrained:
            return self.levels[-1]
        return None

    def slice_level_key(self, request: TopologyRequest | None) -> str:
        if request is not None and request.slice_topology is not None:
            return request.slice_topology
        return self.levels[-1]

    # -- the placement ----------------------------------------------------------------------
    def find(self, ps: PodSetRequest, assumed: Mapping[str, Requests], simulate_empty: bool = False,
             leader: PodSetRequest | None = None, prioritized: bool = False) -> Placement:
        """findTopologyAssignment: `ps` (a group's workers, with its `leader`) placed; not fitting,
        the counts stay as placement counted them, for `tas_report`. `prioritized`: v0.19's rules
        for a leader (`tas_leader`)."""
        checked = self._levels_of(ps)
        if isinstance(checked, Placement):
            return checked
        level, slice_level, slice_size, required, unconstrained = checked
        requests = {**ps.single_pod}
        requests[PODS] = requests.get(PODS, 0) + 1
        stats = Exclusions()
        leader_requests = None if leader is None else {**leader.single_pod, PODS: leader.single_pod.get(PODS, 0) + 1}
        self.fill_in_counts(ps.spec, requests, assumed, simulate_empty, slice_size, slice_level, stats,
                            leader_requests)
        if self._group is not None:
            placer = GroupPlacer(self, self._group, ps.count, slice_size, required, unconstrained, prioritized, stats)
            workers, led, reason = placer.place(level, slice_level)
            return Placement(workers, reason, level, stats, leader=led)
        fit_level, fit, reason = self._fit_level(level, ps.count, slice_size, required, unconstrained, stats)
        if reason:
            return Placement(None, reason, level, stats)
        fit = self._minimum(fit, ps.count, slice_size, unconstrained, True)
        current = fit_level
        while current < min(len(self.levels) - 1, slice_level):
            lower = self._sorted([c for d in fit for c in d.children], unconstrained)
            fit = self._minimum(lower, ps.count, slice_size, unconstrained, True)
            current += 1
        while current < len(self.levels) - 1:
            fit = [c for d in fit for c in self._minimum(self._sorted(d.children, unconstrained),
                                                         self._state[d.pos], 1, unconstrained, False)]
            current += 1
        return Placement(self._assignment(fit), "", level, stats)

    def _levels_of(self, ps: PodSetRequest) -> Placement | tuple[int, int, int, bool, bool]:
        """The request's level, slice level and size, whether required and whether unconstrained;
        or Kueue's reason they are not usable."""
        req = ps.request
        slice_size = 1
        if req is not None and req.slice_topology is not None:
            if req.slice_size is None:
                return Placement(None, "slice topology requested, but slice size not provided")
            slice_size = req.slice_size
        required = req is not None and req.required is not None
        slice_only = req is not None and req.required is None and req.preferred is None \
            and req.slice_topology is not None
        unconstrained = bool(req is not None and req.unconstrained) or ps.implied or slice_only
        key = self.level_key(req) or (self.levels[-1] if ps.implied else None)
        if key is None:
            return Placement(None, "topology level not specified")
        if key not in self.levels:
            return Placement(None, f"no requested topology level: {key}")
        level = self.levels.index(key)
        slice_key = self.slice_level_key(req)
        if slice_key not in self.levels:
            return Placement(None, f"no requested topology level for slices: {slice_key}")
        slice_level = self.levels.index(slice_key)
        if level > slice_level:
            return Placement(None, f"podset slice topology {slice_key} is above the podset topology {key}")
        return level, slice_level, slice_size, required, unconstrained

    def fill_in_counts(self, spec: Mapping[str, Any], requests: Requests, assumed: Mapping[str, Requests],
                       simulate_empty: bool, slice_size: int, slice_level: int, stats: Exclusions,
                       leader: Requests | None = None) -> None:
        """fillInCounts: each matching leaf's pods that fit (CountInWithLimitingResource against its free
        capacity less TAS and assumed usage), then every parent's sums; the shape's kept counts
        (`_shape_counts`) copied, for what earlier pod sets of the Workload took (`assumed`) and for
        the placement to set what each domain takes. With a `leader`, its counts too (`_leader_of`)."""
        counts, excluded, base = self._shape_counts(spec, requests, simulate_empty)
        stats.add(base)
        state, slices = counts.state.copy(), counts.slices_of(self._tree, slice_size, slice_level).copy()
        limiting, short = counts.limiting, counts.short
        touched: list[int] = []
        if assumed:
            limiting, short = dict(limiting), dict(short)
            columns = [self._column(name, simulate_empty) for name, _ in counts.wanted]
            for leaf_id, extra in assumed.items():
                leaf = self.leaves.get(leaf_id)
                if leaf is not None and counts.is_matched[leaf.pos]:
                    fit, name = assumed_fit(columns, leaf.pos, counts.wanted, extra)
                    ShapeCounts.mark_limiting(leaf.pos, name, limiting, short)
                    carry(self._tree, state, [(slice_size, slice_level, slices)], leaf.pos, fit)
                    touched.append(leaf.pos)
        stats.resources.update(short)
        self._state, self._slices, self._excluded = state, slices, excluded
        self._group = None if leader is None else self._leader_of(
            spec, counts, leader, assumed, simulate_empty, touched, slice_size, slice_level)

    def _leader_of(self, spec: Mapping[str, Any], counts: ShapeCounts, leader: Requests,
                   assumed: Mapping[str, Requests], simulate_empty: bool, touched: list[int], slice_size: int,
                   slice_level: int) -> GroupCounts:
        """A group's counts: whether the leader fits each domain and the workers that fit beside it,
        kept per (template, workers' shape, leader's shape) as the workers' counts are, those of
        the leaves earlier pod sets took (`touched`) counted again on a copy."""
        key, _ = self._matching(spec)
        leader_wanted: Wanted = tuple(sorted(leader.items()))
        names = sorted({*(n for n, _ in counts.wanted), *leader})
        columns = {n: self._column(n, simulate_empty) for n in names}
        kept_key = (key, counts.wanted, leader_wanted, simulate_empty)
        found = self._leader_counts.get(kept_key)
        if found is None or len(self._log) - found.seen > len(self._leaf_list) or found.seen > len(self._log):
            if len(self._leader_counts) >= COUNTS_KEPT:
                del self._leader_counts[next(iter(self._leader_counts))]
            found = self._leader_counts[kept_key] = LeaderCounts.build(
                self._tree, counts, lambda i: {n: col[i] for n, col in columns.items()}, leader_wanted, len(self._log))
        elif not simulate_empty and found.seen < len(self._log):
            found.recount(self._tree, counts.state, counts.wanted, counts.is_matched,
                          lambda i: {n: col[i] for n, col in columns.items()}, set(self._log[found.seen:]))
            found.seen = len(self._log)
        group = found.copy()
        if touched:
            extra_of = {self.leaves[leaf_id].pos: extra for leaf_id, extra in assumed.items() if leaf_id in self.leaves}

            def free(i: int) -> dict[str, int]:
                extra = extra_of.get(i, {})
                return {n: col[i] - extra.get(n, 0) for n, col in columns.items()}
            group.recount(self._tree, self._state, counts.wanted, counts.is_matched, free, touched)
        with_leader = group.with_leader
        if slice_size == 1 and slice_level == len(self.levels) - 1:
            slices_wl = with_leader.copy()
        else:
            slices_wl = leader_slices(self._tree, self._slices, group.leader, with_leader, slice_size, slice_level)
        return GroupCounts(self._state, self._slices, group.leader, with_leader, slices_wl)

    def _shape_counts(self, spec: Mapping[str, Any], requests: Requests, simulate_empty: bool
                      ) -> tuple[ShapeCounts, dict[str, str], Exclusions]:
        """The counts of these requests on the leaves the template may use, kept (at most
        `COUNTS_KEPT` shapes) and brought up to date with the leaves changed since."""
        key, (matched, excluded, base) = self._matching(spec)
        wanted: Wanted = tuple(sorted(requests.items()))
        columns = [self._column(name, simulate_empty) for name, _ in wanted]
        found = self._counts.get((key, wanted, simulate_empty))
        if found is None or len(self._log) - found.seen > len(self._leaf_list):
            if len(self._counts) >= COUNTS_KEPT:
                del self._counts[next(iter(self._counts))]
            found = self._counts[(key, wanted, simulate_empty)] = ShapeCounts.build(
                self._tree, columns, wanted, [leaf.pos for leaf in matched], simulate_empty, len(self._log))
        elif not simulate_empty and found.seen < len(self._log):
            found.update(self._tree, columns, set(self._log[found.seen:]))
            found.seen = len(self._log)
        return found, excluded, base

    def count(self, dom: Domain) -> int:
        """The pods `dom` takes as the last placement counted them (`tas_report`)."""
        return self._state[dom.pos]

    def excluded(self, leaf: Domain) -> str:
        """Why the last placement left the leaf's Node out (taint, selector, affinity), if it did."""
        return self._excluded.get(leaf.id, "")

    def most(self, level: int, n: int) -> list[Domain]:
        """The `n` domains of a level taking the most pods in the last placement (then by values)."""
        domains, positions = self._in_order[level]
        state = self._state
        return [domains[j] for _, j in heapq.nsmallest(n, zip([-state[p] for p in positions], range(len(domains))))]

    def leader_count(self, dom: Domain) -> tuple[int, int]:
        """Whether the leader fits `dom` and the workers that fit beside it, as the last placement
        (of a group) counted them; (0, 0) for a pod set without a leader."""
        if self._group is None:
            return 0, 0
        return self._group.leader[dom.pos], self._group.with_leader[dom.pos]

    def most_with_leader(self, level: int, n: int) -> list[Domain]:
        """The `n` domains of a level the leader fits with the most workers beside it, then those it
        does not fit with the most workers (then by values)."""
        domains, positions = self._in_order[level]
        group = self._group
        if group is None:
            return self.most(level, n)
        keys = [(-group.leader[p], -group.with_leader[p], -self._state[p]) for p in positions]
        return [domains[j] for _, j in heapq.nsmallest(n, zip(keys, range(len(domains))))]

    def fewest_leaves(self, dom: Domain, n: int) -> tuple[list[Domain], int]:
        """The `n` leaves of `dom` taking the fewest pods in the last placement (then by values), and
        how many leaves it has."""
        lo, hi = self._span[dom.pos]
        ranked = heapq.nsmallest(n, zip(self._state[lo:hi], range(lo, hi)))
        return [self._leaf_list[i] for _, i in ranked], hi - lo

    def _matching(self, spec: Mapping[str, Any]) -> tuple[str, tuple[list[Domain], dict[str, str], Exclusions]]:
        """getMatchingLeaves: the leaves a pod template may use, why each other one may not, and the
        counts; cached per template's node selection (TASCacheNodeMatchResults), by its key."""
        key = json.dumps([spec.get("tolerations"), spec.get("nodeSelector"),
                          ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
                              "requiredDuringSchedulingIgnoredDuringExecution")], sort_keys=True, default=str)
        found = self._matches.get(key)
        if found is not None:
            return key, found
        base = Exclusions(total=len(self.leaves))
        matched, excluded = [], {}
        match = self._matcher(spec) if self.lowest_is_node else None
        for leaf in self.leaves.values():
            why = match(leaf, base) if match is not None else ""
            if why:
                excluded[leaf.id] = why
            else:
                matched.append(leaf)
        found = self._matches[key] = (matched, excluded, base)
        return key, found

    def _matcher(self, spec: Mapping[str, Any]):
        tolerations = [*(spec.get("tolerations") or ()), *self.tolerations]
        selector = {str(k): str(v) for k, v in (spec.get("nodeSelector") or {}).items()}
        required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution")
        affinity = None
        if isinstance(required, Mapping):
            affinity = RequiredNodeAffinity(None, NodeSelector(
                [ParsedTerm.parse(t) for t in required.get("nodeSelectorTerms") or ()]))
        nodes: dict[str, Node] = {}

        def match(leaf: Domain, stats: Exclusions) -> str:
            node = leaf.node or {}
            for taint in (node.get("spec") or {}).get("taints") or ():
                if taint.get("effect") in (NO_SCHEDULE, NO_EXECUTE) and not tolerations_tolerate(
                        tolerations, taint, enable_comparison_operators=True):
                    text = _taint_string(taint)
                    stats.taints[text] = stats.taints.get(text, 0) + 1
                    return f'untolerated taint "{text}"'
            labels = (node.get("metadata") or {}).get("labels") or {}
            if any(labels.get(k) != v for k, v in selector.items()):
                stats.node_selector += 1
                return "nodeSelector"
            if affinity is not None:
                parsed = nodes.get(leaf.id) or nodes.setdefault(leaf.id, Node.from_obj(dict(node)))
                if not affinity.matches(parsed):
                    stats.affinity += 1
                    return "node affinity"
            return ""
        return match

    def _sorted(self, domains: Iterable[Domain], unconstrained: bool) -> list[Domain]:
        """sortedDomains: BestFit by slices descending, LeastFreeCapacity ascending; then pods
        ascending, then the values."""
        sign = 1 if unconstrained else -1
        state, slices = self._state, self._slices
        return sorted(domains, key=lambda d: (sign * slices[d.pos], state[d.pos], self._order_key(d)))

    def _order_key(self, d: Domain) -> tuple[str, ...]:
        # compareDomainLevelValues: siblings under one parent by hostname, else by every value
        return d.values

    def _fit_level(self, level: int, count: int, slice_size: int, required: bool, unconstrained: bool,
                   stats: Exclusions) -> tuple[int, list[Domain], str]:
        """findLevelWithFitDomains. When a domain takes them all (BestFit's best fit, LeastFreeCapacity's
        first that does: both the fewest slices that hold them, then the fewest pods, then the values)
        it is found without sorting the level."""
        domains, positions = self._in_order[level]
        if not domains:
            return 0, [], f"no topology domains at level: {self.levels[level]}"
        state, slice_counts = self._state, self._slices
        slices = count // slice_size
        held = [slice_counts[p] for p in positions]
        fewest = min((n for n in held if n >= slices), default=-1)
        if fewest >= 0:         # (of those with the fewest slices, the fewest pods, then the first by values)
            return level, [domains[min((state[positions[j]], j) for j, n in enumerate(held) if n == fewest)[1]]], ""
        if required:            # (sortedDomains' first: BestFit's most slices, LeastFreeCapacity's fewest)
            return 0, [], self.not_fit(min(held) if unconstrained else max(held), slices, slice_size, stats)
        if level > 0 and not unconstrained:
            return self._fit_level(level - 1, count, slice_size, required, unconstrained, stats)
        ordered = self._sorted(domains, unconstrained)
        results, remaining = [], slices
        for idx, dom in enumerate(ordered):
            if remaining <= 0:
                break
            if not unconstrained and slice_counts[dom.pos] >= remaining:
                dom = self._best_fit(ordered[idx:], remaining, slice_counts)
            results.append(dom)
            remaining -= slice_counts[dom.pos]
        if remaining > 0:
            return 0, [], self.not_fit(slices - remaining, slices, slice_size, stats)
        return level, results, ""

    def _minimum(self, domains: list[Domain], count: int, slice_size: int, unconstrained: bool,
                 use_slices: bool) -> list[Domain]:
        """updateCountsToMinimumGeneric without leaders: the domains taking `count` pods, the last
        one the best fit, each domain's count set to what it takes."""
        state, slices = self._state, self._slices
        have_of = slices if use_slices else state
        out: list[Domain] = []
        remaining = count // slice_size if use_slices else count
        for i, dom in enumerate(domains):
            have = have_of[dom.pos]
            if not unconstrained and have >= remaining:
                dom = self._best_fit(domains[i:], remaining, have_of)
                have = have_of[dom.pos]
            if have >= remaining:
                state[dom.pos] = remaining * slice_size if use_slices else remaining
                if use_slices:
                    slices[dom.pos] = remaining
                out.append(dom)
                return out
            if use_slices:
                state[dom.pos] = slices[dom.pos] * slice_size
            remaining -= have
            out.append(dom)
        return out

    @staticmethod
    def _best_fit(domains: list[Domain], needed: int, counts: list[int]) -> Domain:
        """findBestFitDomainBy: the first domain with the fewest (slices or pods, `counts`) that still
        holds `needed`, else the first."""
        best = domains[0]
        best_state = counts[best.pos]
        for dom in domains:
            s = counts[dom.pos]
            if needed <= s < best_state:
                best, best_state = dom, s
        return best

    def _assignment(self, domains: list[Domain]) -> TopologyAssignment:
        return self.assignment_of(domains, self._state)

    def assignment_of(self, domains: list[Domain], state: list[int]) -> TopologyAssignment:
        """buildAssignment: domains by their values (with their counts in `state`), only the
        hostname level when it is the lowest."""
        start = len(self.levels) - 1 if self.lowest_is_node else 0
        ordered = sorted(domains, key=lambda d: d.values)
        return TopologyAssignment(self.levels[start:], tuple(DomainAssignment(d.values[start:], state[d.pos])
                                                             for d in ordered if state[d.pos]))

    def not_fit(self, fit: int, total: int, slice_size: int, stats: Exclusions) -> str:
        """notFitMessage."""
        unit = "pod" if slice_size == 1 else "slice"
        if fit == 0:
            text = f'topology "{self.topology}" doesn\'t allow to fit any of {total} {unit}(s)'
        else:
            text = f'topology "{self.topology}" allows to fit only {fit} out of {total} {unit}(s)'
        if stats.any():
            text += f". Total nodes: {stats.total}; excluded: {stats.text()}"
        return text


def _add(into: Requests, other: Mapping[str, int], sign: int = 1) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + sign * v

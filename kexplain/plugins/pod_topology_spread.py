"""PodTopologySpread: keeps a workload's pods evenly spread over topology domains: hard constraints
reject a node whose domain would exceed `maxSkew`, soft ones prefer emptier domains; a pod without
constraints gets the defaults, over its Services' and controller's pods (`helper.spread`)."""
from __future__ import annotations

import marshal
import math
from dataclasses import dataclass, field
from itertools import compress
from operator import and_, methodcaller, not_
from typing import Any, Iterable, Mapping, Sequence

from kexplain.apimachinery.display import format_parsed_selector
from kexplain.apimachinery.labels import LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE
from kexplain.framework.interface import (MAX_NODE_SCORE, Explainer, FilterPlugin, NodeScoreList, PreFilterExtensions,
                                          PreFilterPlugin, PreScorePlugin, ScoreExtensions, ScorePlugin, SignPlugin)
from kexplain.framework import signers
from kexplain.framework.status import SKIP, SUCCESS, Status, unresolvable, unschedulable
from kexplain.model.labels import IN, LabelSelector, Requirement, SelectorError, parse_selector
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.nodeselector import RequiredNodeAffinity
from kexplain.model.pod import PodInfo
from kexplain.model.pod_index import pod_index
from kexplain.model.snapshot import unchanged_by_bind
from kexplain.model.taints import NO_EXECUTE, NO_SCHEDULE, find_untolerated
from kexplain.plugins import names
from kexplain.plugins.helper.spread import default_selector, owner_index
from kexplain.plugins.resource_allocation import go_round

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
_MISSING_LABEL = unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)
_SKEWED = unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)

PRE_FILTER_STATE_KEY = "PreFilterPodTopologySpread"
PRE_SCORE_STATE_KEY = "PreScorePodTopologySpread"
DOMAINS_KEY = names.POD_TOPOLOGY_SPREAD + "/domains"
MAX_DOMAIN_SETS = 256      # per snapshot: distinct (node affinity, tolerations, constraints) seen

DO_NOT_SCHEDULE, SCHEDULE_ANYWAY = "DoNotSchedule", "ScheduleAnyway"
HONOR, IGNORE = "Honor", "Ignore"
SYSTEM_DEFAULTING = "System"  # the other defaultingType, "List", takes args.defaultConstraints
MAX_INT32 = 2**31 - 1
INVALID_SCORE = -1

SYSTEM_DEFAULT_CONSTRAINTS: tuple[Mapping[str, Any], ...] = (
    {"maxSkew": 3, "topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY},
    {"maxSkew": 5, "topologyKey": LABEL_TOPOLOGY_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY},
)


# --- constraints -------------------------------------------------------------------------

@dataclass(frozen=True)
class Constraint:
    """A spread constraint with its selector parsed and its optional fields defaulted."""

    max_skew: int
    topology_key: str
    selector: LabelSelector
    min_domains: int = 1
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE

    def includes_node(self, pod: PodInfo, node: Node, affinity_match: "_AffinityCache") -> bool:
        """Whether the node's pods take part in this constraint's counting (node inclusion policies)."""
        if self.node_affinity_policy == HONOR and not affinity_match(node):
            return False
        if self.node_taints_policy == HONOR:
            if find_untolerated(node.taints, pod.tolerations, _do_not_schedule_taint) is not None:
                return False
        return True


def _do_not_schedule_taint(taint: Mapping[str, Any]) -> bool:
    return taint.get("effect") in (NO_SCHEDULE, NO_EXECUTE)


class _AffinityCache:
    """The pod's required node affinity (nodeSelector + required terms), evaluated once per node."""

    def __init__(self, pod: PodInfo) -> None:
        self._required = RequiredNodeAffinity.from_pod(pod)
        self._seen: dict[str, bool] = {}

    def __call__(self, node: Node) -> bool:
        hit = self._seen.get(node.name)
        if hit is None:
            hit = self._seen[node.name] = bool(self._required.matches(node))
        return hit


def _merge_match_label_keys(selector: LabelSelector, keys: Iterable[str],
                            pod_labels: Mapping[str, str]) -> LabelSelector:
    """AND `key in (value)` for each matchLabelKeys key the pod carries (a null selector stays null)."""
    extra = [Requirement(k, IN, frozenset([pod_labels[k]])) for k in keys if k in pod_labels]
    if not extra or selector.nothing:
        return selector
    return LabelSelector(tuple(sorted(selector.requirements + tuple(extra), key=lambda r: r.key)))


def parse_constraints(raw: Iterable[Mapping[str, Any]], pod_labels: Mapping[str, str],
                      action: str) -> list[Constraint]:
    """The constraints whose whenUnsatisfiable is `action`; SelectorError on a bad selector."""
    out: list[Constraint] = []
    for c in raw:
        if c.get("whenUnsatisfiable") != action:
            continue
        selector = parse_selector(c.get("labelSelector"))
        if c.get("matchLabelKeys"):      # MatchLabelKeysInPodTopologySpread: on by default (v1.35.4)
            selector = _merge_match_label_keys(selector, c["matchLabelKeys"], pod_labels)
        min_domains = c.get("minDomains")
        affinity_policy = c.get("nodeAffinityPolicy") or HONOR     # NodeInclusionPolicyInPodTopologySpread: GA
        taints_policy = c.get("nodeTaintsPolicy") or IGNORE
        out.append(Constraint(int(c.get("maxSkew") or 0), str(c.get("topologyKey") or ""), selector,
                              1 if min_domains is None else int(min_domains), affinity_policy, taints_policy))
    return out


def node_has_all_keys(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    return all(c.topology_key in labels for c in constraints)


def count_matching(pods: Iterable[PodInfo], selector: LabelSelector, namespace: str) -> int:
    """Pods of `namespace` that the selector matches; terminating pods and an empty selector count 0."""
    if selector.everything:
        return 0
    return sum(1 for p in pods
               if p.deletion_timestamp is None and p.namespace == namespace and selector.matches(p.labels))


# --- pod counting at scale ---------------------------------------------------------------

def _pods_by_namespace(nodes: Sequence[NodeInfo]) -> dict[str, list[tuple[PodInfo, Node]]]:
    """Every bound pod of `nodes` with its node, per namespace (the snapshot's index, for a
    node list that is not the snapshot's)."""
    out: dict[str, list[tuple[PodInfo, Node]]] = {}
    for ni in nodes:
        for p in ni.pods:
            out.setdefault(p.namespace, []).append((p, ni.node))
    return out


class _Counter:
    """Matching pods per node for (selector, namespace): from the snapshot's label index when
    the nodes are the snapshot's, else from one pass over the namespace's pods."""

    def __init__(self, nodes: Sequence[NodeInfo], snapshot: Any) -> None:
        self._index = pod_index(snapshot) if snapshot is not None and nodes is snapshot.node_infos else None
        self._pods = _pods_by_namespace(nodes) if self._index is None else {}
        self._memo: dict[tuple[LabelSelector, str], dict[str, int]] = {}

    def per_node(self, selector: LabelSelector, namespace: str) -> dict[str, int]:
        key = (selector, namespace)
        counts = self._memo.get(key)
        if counts is None:
            if selector.everything:                    # an empty selector counts no pod
                counts = {}
            elif self._index is not None:
                counts = self._index.node_counts(namespace, selector).counts     # kept and patched by binds
            else:
                counts = {}
                for p, node in self._pods.get(namespace, ()):     # terminating pods do not count
                    if selector.matches(p.labels) and p.deletion_timestamp is None:
                        counts[node.name] = counts.get(node.name, 0) + 1
            self._memo[key] = counts
        return counts

    def per_domain(self, selector: LabelSelector, namespace: str, domains: "Domains") -> Mapping[str, int]:
        """Matching pods per domain of `domains` (`Domains.count`; read it, never change it):
        from the snapshot's index, the count kept there and patched by binds."""
        if self._index is None or selector.everything:
            return domains.count(self.per_node(selector, namespace))
        return self._index.domain_counts(namespace, selector, domains.of_node, domains.zero)


# --- eligible domains, per node set ----------------------------------------------------------

@dataclass(frozen=True)
class Domains:
    """Of one constraint, over the snapshot's nodes: each counted node's domain (`of_node`) and each domain
    at 0 in node order (`zero`: a domain without matching pods still counts as one)."""

    of_node: dict[str, str]
    zero: dict[str, int]

    def count(self, per_node: Mapping[str, int], only_known: bool = False) -> dict[str, int]:
        """Matching pods per domain from those per node; `only_known` keeps `zero`'s domains and adds none
        (PreScore's counts start from the feasible nodes' domains)."""
        out = dict(self.zero)
        of_node = self.of_node
        for name, n in per_node.items():
            value = of_node.get(name)
            if value is not None and (not only_known or value in out):
                out[value] = out.get(value, 0) + n
        return out


def _domains_key(pod: PodInfo, constraints: Sequence[Constraint], require_all: bool) -> bytes | None:
    """What decides `Domains`: the pod's node affinity, node selector and tolerations (node
    inclusion policies), and the constraints' keys and policies; None when it cannot be keyed."""
    spec = pod.spec
    affinity = spec.get("affinity")
    try:
        return marshal.dumps((spec.get("nodeSelector"), affinity.get("nodeAffinity") if isinstance(affinity, dict)
                              else None, spec.get("tolerations"), require_all,
                              [(c.topology_key, c.node_affinity_policy, c.node_taints_policy) for c in constraints]), 2)
    except ValueError:
        return None


@dataclass(frozen=True)
class _DomainSet:
    """A snapshot's `Domains` for one `_domains_key`, with what `eligible_domains` was given (the pod read
    only for what the key holds), so a node added later extends them (`domains_with_node`)."""

    domains: list[Domains]
    pod: PodInfo
    constraints: tuple[Constraint, ...]
    require_all: bool
    fallback: str | None


def domains_with_node(cache: Mapping[bytes, _DomainSet], node: NodeInfo) -> dict[bytes, _DomainSet]:
    """The domain sets of a snapshot (its `DOMAINS_KEY` cache) for that snapshot with `node` added after its
    nodes (the Cluster Autoscaler's simulated new nodes): what `eligible_domains` makes over the longer list,
    since it decides each node on its own, in node order, and a domain's first node places it in `zero`."""
    out: dict[bytes, _DomainSet] = {}
    for key, got in cache.items():
        extra = eligible_domains(got.pod, [node], got.constraints, got.require_all, got.fallback)
        domains = [Domains({**d.of_node, **e.of_node}, {**d.zero, **{v: 0 for v in e.zero if v not in d.zero}})
                   for d, e in zip(got.domains, extra)]
        out[key] = _DomainSet(domains, got.pod, got.constraints, got.require_all, got.fallback)
    return out


def eligible_domains(pod: PodInfo, nodes: Sequence[NodeInfo], constraints: Sequence[Constraint],
                     require_all: bool, fallback: str | None) -> list[Domains]:
    """Per constraint, the nodes whose pods count (every key with `require_all`, the inclusion policies
    admitting them) and their domains (the label, else `fallback`; None: not counted)."""
    affinity = _AffinityCache(pod)
    out = [Domains({}, {}) for _ in constraints]
    for ni in nodes:
        node = ni.node
        labels = node.labels
        if require_all and not node_has_all_keys(labels, constraints):
            continue
        for c, d in zip(constraints, out):
            if not c.includes_node(pod, node, affinity):
                continue
            value = labels.get(c.topology_key, fallback)
            if value is None:
                continue
            d.of_node[ni.name] = value
            d.zero.setdefault(value, 0)
    return out


# --- PreFilter / Filter state --------------------------------------------------------------

class CriticalPaths:
    """The two least-loaded domains of a constraint; `paths[0]` always holds the minimum count."""

    __slots__ = ("paths",)

    def __init__(self, paths: list[list[Any]] | None = None) -> None:
        self.paths = paths or [["", MAX_INT32], ["", MAX_INT32]]

    @classmethod
    def of(cls, match_num: Mapping[str, int]) -> "CriticalPaths":
        """`update` of every (domain, count) in order, worked out at once: strict comparisons keep the
        first two of the counts sorted stably (a later domain never displaces an equal one)."""
        values = list(match_num.values())
        if not values:
            return cls()
        names = list(match_num)
        first = values.index(min(values))
        rest = values[:first] + values[first + 1:]
        if not rest:
            return cls([[names[first], values[first]], ["", MAX_INT32]])
        second = rest.index(min(rest))
        second += second >= first
        return cls([[names[first], values[first]], [names[second], values[second]]])

    def clone(self) -> "CriticalPaths":
        return CriticalPaths([list(self.paths[0]), list(self.paths[1])])

    @property
    def min_match(self) -> int:
        return self.paths[0][1]

    def update(self, value: str, num: int) -> None:
        p = self.paths
        i = 0 if value == p[0][0] else 1 if value == p[1][0] else -1
        if i >= 0:
            p[i][1] = num
            if p[0][1] > p[1][1]:
                p[0], p[1] = p[1], p[0]
        elif num < p[0][1]:
            p[1] = p[0]
            p[0] = [value, num]
        elif num < p[1][1]:
            p[1] = [value, num]


@dataclass
class PreFilterState:
    """Per hard constraint: matching pods per domain, and the least-loaded domains."""

    constraints: list[Constraint]
    critical_paths: list[CriticalPaths]
    tp_value_to_match_num: list[dict[str, int]]

    def clone(self) -> "PreFilterState":
        return PreFilterState(self.constraints, [p.clone() for p in self.critical_paths],
                              [dict(m) for m in self.tp_value_to_match_num])

    def min_match_num(self, i: int, min_domains: int) -> int:
        if len(self.tp_value_to_match_num[i]) < min_domains:
            return 0  # too few eligible domains: the global minimum counts as 0
        return self.critical_paths[i].min_match


# --- PreScore / Score state ------------------------------------------------------------------

@dataclass
class PreScoreState:
    constraints: list[Constraint]
    ignored_nodes: set[str]
    # per constraint: domain value -> matching pods (hostname constraints are counted at Score)
    topology_value_to_pod_counts: list[dict[str, int]]
    topology_normalizing_weight: list[float]
    # per hostname constraint: matching pods per node of the snapshot (a shortcut for Score)
    host_counts: dict[int, dict[str, int]] = field(default_factory=dict)


# Go's math.Log on amd64 (the fdlibm algorithm) differs from the C library's log in the last
# bit for some arguments (ln 3 among them); the weights must be Go's to round scores as it does.
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
_LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
       2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
       1.479819860511658591e-01)
_HALF_SQRT2 = 7.07106781186547524401e-01


def go_log(x: float) -> float:
    """Natural logarithm of a positive finite x, bit for bit as Go computes it."""
    mantissa, exp = math.frexp(x)
    if mantissa < _HALF_SQRT2:
        mantissa, exp = mantissa * 2, exp - 1
    f, k = mantissa - 1, float(exp)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    lg1, lg2, lg3, lg4, lg5, lg6, lg7 = _LG
    t1 = s2 * (lg1 + s4 * (lg3 + s4 * (lg5 + s4 * lg7)))
    t2 = s4 * (lg2 + s4 * (lg4 + s4 * lg6))
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + (t1 + t2)) + k * _LN2_LO)) - f)


def topology_normalizing_weight(size: int) -> float:
    """Weight of a topology with `size` domains: smaller topologies are not watered down."""
    return go_log(float(size + 2))


# --- the plugin ------------------------------------------------------------------------------

class PodTopologySpread(PreFilterPlugin, PreFilterExtensions, FilterPlugin, PreScorePlugin,
                        ScorePlugin, ScoreExtensions, Explainer, SignPlugin):
    name = names.POD_TOPOLOGY_SPREAD

    def sign_pod(self, pod: PodInfo) -> signers.Fragments | None:
        """Not signable with constraints of its own or the profile's default constraints (the System default
        has some, so under it no pod is)."""
        if pod.spec.get("topologySpreadConstraints") or self.default_constraints:
            return None
        return []

    def __init__(self, args: Mapping[str, Any] | None, handle: Any) -> None:
        super().__init__(args, handle)
        defaulting = self.args.get("defaultingType") or SYSTEM_DEFAULTING
        self.system_defaulted = defaulting == SYSTEM_DEFAULTING
        self.default_constraints: tuple[Mapping[str, Any], ...] = (
            SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted
            else tuple(self.args.get("defaultConstraints") or ()))

    @property
    def _snapshot(self) -> Any:
        return self.handle.snapshot

    # -- constraints ---------------------------------------------------------------------
    def _default_constraints(self, pod: PodInfo, action: str) -> list[Constraint]:
        constraints = parse_constraints(self.default_constraints, pod.labels, action)
        if not constraints:
            return []
        snapshot = self._snapshot
        if snapshot is None:
            return []
        selector = default_selector(pod, owner_index(snapshot))
        if selector.everything:
            return []
        return [Constraint(c.max_skew, c.topology_key, selector, c.min_domains,
                           c.node_affinity_policy, c.node_taints_policy) for c in constraints]

    def constraints(self, pod: PodInfo, action: str) -> list[Constraint]:
        own = pod.spec.get("topologySpreadConstraints") or ()
        if own:
            return parse_constraints(own, pod.labels, action)
        return self._default_constraints(pod, action)

    # -- PreFilter ----------------------------------------------------------------------
    def pre_filter(self, state, pod: PodInfo, nodes: Sequence[NodeInfo]):
        try:
            constraints = self.constraints(pod, DO_NOT_SCHEDULE)
        except SelectorError as e:
            what = ("obtaining pod's hard topology spread constraints"
                    if pod.spec.get("topologySpreadConstraints") else
                    "setting default hard topology spread constraints")
            return None, Status.error(f"get constraints from pod: {what}: {e}")
        if not constraints:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, self._pre_filter_state(pod, nodes, constraints))
        return None, SUCCESS

    def _domains(self, pod: PodInfo, nodes: Sequence[NodeInfo], constraints: Sequence[Constraint],
                 require_all: bool, fallback: str | None) -> list[Domains]:
        """`eligible_domains`, kept on the snapshot for the snapshot's own node list: it depends
        on the nodes only, so it outlives binds, and the copies of a pod find it there."""
        snapshot = self._snapshot
        key = _domains_key(pod, constraints, require_all) if snapshot is not None \
            and nodes is snapshot.node_infos else None
        if key is None:
            return eligible_domains(pod, nodes, constraints, require_all, fallback)
        # Shared by the snapshots one bind apart (same nodes); bounded by MAX_DOMAIN_SETS.
        cache: dict[bytes, _DomainSet] = snapshot.cached(DOMAINS_KEY, dict, unchanged_by_bind)
        got = cache.get(key)
        if got is None:
            got = _DomainSet(eligible_domains(pod, nodes, constraints, require_all, fallback), pod,
                             tuple(constraints), require_all, fallback)
            if len(cache) < MAX_DOMAIN_SETS:
                cache[key] = got
        return got.domains

    def _pre_filter_state(self, pod: PodInfo, nodes: Sequence[NodeInfo],
                          constraints: list[Constraint]) -> PreFilterState:
        """Matching pods per eligible domain: the domains worked out once per node set
        (`_domains`), the pods counted on the nodes that hold matching ones."""
        counter = _Counter(nodes, self._snapshot)
        domains = self._domains(pod, nodes, constraints, True, None)
        match_num = [dict(counter.per_domain(c.selector, pod.namespace, d)) for c, d in zip(constraints, domains)]
        return PreFilterState(constraints, [CriticalPaths.of(m) for m in match_num], match_num)

    # -- PreFilter extensions (preemption's what-ifs) -----------------------------------------
    def add_pod(self, state, pod: PodInfo, other: PodInfo, node_info: NodeInfo) -> Status:
        return self._update_with_pod(state, pod, other, node_info, 1)

    def remove_pod(self, state, pod: PodInfo, other: PodInfo, node_info: NodeInfo) -> Status:
        return self._update_with_pod(state, pod, other, node_info, -1)

    def _update_with_pod(self, state, pod: PodInfo, other: PodInfo, node_info: NodeInfo,
                         delta: int) -> Status:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        node = node_info.node if node_info is not None else None
        if other.namespace != pod.namespace or node is None:
            return SUCCESS
        if not node_has_all_keys(node.labels, s.constraints):
            return SUCCESS
        affinity = _AffinityCache(pod)
        for i, c in enumerate(s.constraints):
            if not c.selector.matches(other.labels):
                continue
            if not c.includes_node(pod, node, affinity):
                continue
            value = node.labels[c.topology_key]
            num = s.tp_value_to_match_num[i].get(value, 0) + delta
            s.tp_value_to_match_num[i][value] = num
            s.critical_paths[i].update(value, num)
        return SUCCESS

    # -- Filter ---------------------------------------------------------------------------
    def filter(self, state, pod: PodInfo, node_info: NodeInfo) -> Status:
        return self.filter_nodes(state, pod, (node_info,))[0]

    def filter_nodes(self, state, pod: PodInfo, nodes: Sequence[NodeInfo]) -> list[Status]:
        """Per constraint a node fails without the topology key, or when count + selfMatch - globalMin >
        maxSkew, i.e. count > maxSkew - selfMatch + globalMin: a limit worked out once for every node."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return [Status.error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')] * len(nodes)
        checks = [(c.topology_key, s.tp_value_to_match_num[i],
                   c.max_skew - (1 if c.selector.matches(pod.labels) else 0) + s.min_match_num(i, c.min_domains))
                  for i, c in enumerate(s.constraints)]
        out: list[Status] = []
        for ni in nodes:
            labels = ni.node.labels
            verdict = SUCCESS
            for key, counts, limit in checks:
                value = labels.get(key)
                if value is None:
                    verdict = _MISSING_LABEL
                    break
                if counts.get(value, 0) > limit:
                    verdict = _SKEWED
                    break
            out.append(verdict)
        return out

    # -- PreScore -------------------------------------------------------------------------
    def pre_score(self, state, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status:
        snapshot = self._snapshot
        all_nodes: Sequence[NodeInfo] = snapshot.node_infos if snapshot is not None else nodes
        if not all_nodes:
            return SKIP
        has_own = bool(pod.spec.get("topologySpreadConstraints"))
        require_all = has_own or not self.system_defaulted
        try:
            constraints = self.constraints(pod, SCHEDULE_ANYWAY)
        except SelectorError as e:
            what = ("obtaining pod's soft topology spread constraints" if has_own else
                    "setting default soft topology spread constraints")
            return Status.error(f"calculating preScoreState: {what}: {e}")
        if not constraints:
            return SKIP
        s = self._init_pre_score_state(constraints, nodes, require_all)
        counter = _Counter(all_nodes, snapshot)
        self._count_domains(s, pod, all_nodes, require_all, counter)
        if snapshot is not None and all_nodes is snapshot.node_infos:
            s.host_counts = {i: counter.per_node(c.selector, pod.namespace)
                             for i, c in enumerate(constraints) if c.topology_key == LABEL_HOSTNAME}
        state.write(PRE_SCORE_STATE_KEY, s)
        return SUCCESS

    @staticmethod
    def _init_pre_score_state(constraints: list[Constraint], nodes: Sequence[NodeInfo],
                              require_all: bool) -> PreScoreState:
        """Domains present among the feasible nodes (count 0 for now), ignored nodes, weights."""
        s = PreScoreState(constraints, set(), [{} for _ in constraints], [])
        # column by column, in C: a cycle scores hundreds of nodes
        labels = [ni.node.labels for ni in nodes]
        if require_all:
            has_all = [True] * len(labels)
            for c in constraints:
                has_all = list(map(and_, has_all, map(methodcaller("__contains__", c.topology_key), labels)))
            s.ignored_nodes.update(compress([ni.name for ni in nodes], map(not_, has_all)))
            labels = list(compress(labels, has_all))
        for i, c in enumerate(constraints):
            if c.topology_key == LABEL_HOSTNAME:
                continue  # per-node counts are taken at Score
            # each domain at 0, in the order of the nodes that first have it
            s.topology_value_to_pod_counts[i].update(dict.fromkeys(map(methodcaller("get", c.topology_key, ""), labels), 0))
        for i, c in enumerate(constraints):
            size = len(s.topology_value_to_pod_counts[i])
            if c.topology_key == LABEL_HOSTNAME:
                size = len(nodes) - len(s.ignored_nodes)
            s.topology_normalizing_weight.append(topology_normalizing_weight(size))
        return s

    def _count_domains(self, s: PreScoreState, pod: PodInfo, all_nodes: Sequence[NodeInfo],
                       require_all: bool, counter: _Counter) -> None:
        """Matching pods per domain, over every node of the cluster the constraint includes
        (`_domains`), counted on the nodes that hold matching pods."""
        active = [i for i, c in enumerate(s.constraints) if s.topology_value_to_pod_counts[i]]
        if not active:
            return
        domains = self._domains(pod, all_nodes, s.constraints, require_all, "")
        for i in active:
            counts = s.topology_value_to_pod_counts[i]
            per_domain = counter.per_domain(s.constraints[i].selector, pod.namespace, domains[i])
            for value in counts:
                counts[value] += per_domain.get(value, 0)

    # -- Score ----------------------------------------------------------------------------
    def score(self, state, pod: PodInfo, node_info: NodeInfo) -> int:
        return self.score_nodes(state, pod, (node_info,))[0]

    def score_nodes(self, state, pod: PodInfo, nodes: Sequence[NodeInfo]) -> list[int]:
        """Per node, the sum over constraints whose key the node has of count * weight +
        maxSkew - 1, rounded; a hostname constraint counts the node's own matching pods."""
        s: PreScoreState = state.read(PRE_SCORE_STATE_KEY)
        snapshot = self._snapshot
        # per constraint: key, counts by domain (None: count on the node), weight, maxSkew - 1
        plan = [(c.topology_key, None if c.topology_key == LABEL_HOSTNAME else s.topology_value_to_pod_counts[i],
                 s.host_counts.get(i), c.selector, s.topology_normalizing_weight[i], float(c.max_skew - 1))
                for i, c in enumerate(s.constraints)]
        ignored = s.ignored_nodes
        out: list[int] = []
        for ni in nodes:
            if ni.name in ignored:
                out.append(0)
                continue
            labels = ni.node.labels
            from_snapshot = snapshot is not None and snapshot.get(ni.name) is ni
            total = 0.0
            for key, by_domain, host_counts, selector, weight, skew in plan:
                value = labels.get(key)
                if value is None:
                    continue
                if by_domain is not None:
                    count = by_domain[value]
                elif from_snapshot and host_counts is not None:
                    count = host_counts.get(ni.name, 0)
                else:
                    count = count_matching(ni.pods, selector, pod.namespace)
                total += float(count) * weight + skew
            out.append(go_round(total))
        return out

    def normalize_score(self, state, pod: PodInfo, scores: NodeScoreList) -> Status:
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return Status.error(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        values = scores.scores
        ignored = s.ignored_nodes
        counted = values
        if ignored:
            for i, name in enumerate(scores.names):
                if name in ignored:
                    values[i] = INVALID_SCORE
            counted = [v for name, v in zip(scores.names, values) if name not in ignored]
        min_score, max_score = min(counted, default=None), max(0, max(counted, default=0))
        values[:] = [0 if v == INVALID_SCORE else MAX_NODE_SCORE if max_score == 0 else
                     MAX_NODE_SCORE * (max_score + min_score - v) // max_score for v in values]
        return SUCCESS

    # -- explanation (kexplain) ---------------------------------------------------------------
    def explain(self, state, pod: PodInfo, node_info: NodeInfo) -> dict | None:
        """Per hard constraint the matching pods per eligible domain, the global minimum and each domain's skew
        with the pod, this node's domain; per soft one (node scored) the matching pods of its domain."""
        facts: dict[str, Any] = {}
        labels = node_info.node.labels
        pre: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if pre is not None:
            hard = []
            for i, c in enumerate(pre.constraints):
                min_match = pre.min_match_num(i, c.min_domains)
                self_match = 1 if c.selector.matches(pod.labels) else 0
                counts = pre.tp_value_to_match_num[i]
                value = labels.get(c.topology_key)
                entry = {**_constraint_facts(c, DO_NOT_SCHEDULE), "nodeDomain": value,
                         "eligibleDomains": len(counts), "globalMinimum": min_match, "selfMatch": bool(self_match),
                         "domains": [{"domain": d, "matchingPods": n, "skew": n + self_match - min_match}
                                     for d, n in sorted(counts.items())]}
                if value is not None:
                    skew = counts.get(value, 0) + self_match - min_match
                    entry.update(skew=skew, satisfied=skew <= c.max_skew)
                else:
                    entry["satisfied"] = False
                hard.append(entry)
            facts["hard"] = hard
        score: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if score is not None:
            soft = []
            for i, c in enumerate(score.constraints):
                value = labels.get(c.topology_key)
                entry = {**_constraint_facts(c, SCHEDULE_ANYWAY), "nodeDomain": value,
                         "ignored": node_info.name in score.ignored_nodes}
                if value is not None and not entry["ignored"]:
                    if c.topology_key == LABEL_HOSTNAME:
                        entry["matchingPods"] = count_matching(node_info.pods, c.selector, pod.namespace)
                    else:
                        entry["matchingPods"] = score.topology_value_to_pod_counts[i].get(value, 0)
                soft.append(entry)
            facts["soft"] = soft
        return facts or None


def _constraint_facts(c: Constraint, action: str) -> dict[str, Any]:
    return {"topologyKey": c.topology_key, "maxSkew": c.max_skew, "whenUnsatisfiable": action,
            "selector": format_parsed_selector(c.selector), "minDomains": c.min_domains}

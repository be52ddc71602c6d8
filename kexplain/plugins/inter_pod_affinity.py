"""InterPodAffinity: where a pod may and would rather go, judged by the pods already placed
(required affinity, anti-affinity both ways; preferred terms and `hardPodAffinityWeight` in Score).
Cluster-wide counts are made once per cycle by topology pair and followed through binds (`Tally`),
so the copies of a pod count only what each bind adds."""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import repeat
from operator import add, methodcaller
from typing import Iterable, Mapping, Sequence

from kexplain.apimachinery.display import format_parsed_selector
from kexplain.framework.interface import (MAX_NODE_SCORE, Explainer, FilterPlugin, NodeScoreList, PreFilterExtensions,
                                          PreFilterPlugin, PreScorePlugin, ScoreExtensions, ScorePlugin, SignPlugin)
from kexplain.framework import signers
from kexplain.framework.status import SKIP, SUCCESS, Status, unresolvable, unschedulable
from kexplain.plugins.helper.explain_memo import ExplainMemo
from kexplain.plugins.helper.term_groups import affinity_groups, anti_affinity_groups
from kexplain.model.labels import NOTHING, SelectorError
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import AffinityTerm, PodInfo
from kexplain.model.pod_index import NO_LABELS, Tally, pod_index
from kexplain.model.snapshot import Snapshot
from kexplain.plugins import names

NAME = names.INTER_POD_AFFINITY

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"
_AFFINITY_FAILED = unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
_ANTI_AFFINITY_FAILED = unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
_EXISTING_ANTI_AFFINITY_FAILED = unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)

PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
EXPLAIN_STATE_KEY = "Explain" + NAME       # an `ExplainMemo` of `Neighbours`

DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1

TopologyPair = tuple[str, str]


# -- topology counts --------------------------------------------------------------------------

class TopologyCounts(dict):
    """Matching pods per topology pair; a pair whose count returns to zero is dropped."""

    def add(self, node_labels: Mapping[str, str], key: str, delta: int) -> None:
        value = node_labels.get(key)
        if value is None:
            return
        pair = (key, value)
        count = self.get(pair, 0) + delta
        if count == 0:
            self.pop(pair, None)
        else:
            self[pair] = count

    def positive(self, pair: TopologyPair) -> bool:
        return self.get(pair, 0) > 0

    def clone(self) -> "TopologyCounts":
        return TopologyCounts(self)


def matches_all(terms: tuple[AffinityTerm, ...], pod: PodInfo) -> bool:
    """True iff there are terms and `pod` matches every one (resolved terms: no labels needed)."""
    return bool(terms) and all(t.matches(pod, NO_LABELS) for t in terms)


def count_affinity(counts: TopologyCounts, terms: tuple[AffinityTerm, ...], pod: PodInfo,
                   node_labels: Mapping[str, str], delta: int) -> None:
    """A pod matching all affinity terms counts once per term, in that term's topology."""
    if matches_all(terms, pod):
        for t in terms:
            counts.add(node_labels, t.topology_key, delta)


def count_anti_affinity(counts: TopologyCounts, terms: Iterable[AffinityTerm], pod: PodInfo,
                        ns_labels: Mapping[str, str], node_labels: Mapping[str, str], delta: int) -> None:
    """Each anti-affinity term that `pod` matches counts in that term's topology."""
    for t in terms:
        if t.matches(pod, ns_labels):
            counts.add(node_labels, t.topology_key, delta)


# -- namespace resolution -----------------------------------------------------------------------

def resolve_namespaces(term: AffinityTerm, namespaces: Mapping[str, Mapping[str, str]]) -> AffinityTerm:
    """The incoming pod's term with its namespaceSelector turned into the names of the Namespaces known, as
    the scheduler does (an empty selector, all namespaces, stays; any other becomes "nothing")."""
    sel = term.namespace_selector
    if sel.everything:
        return term
    selected = {name for name, labels in namespaces.items() if sel.matches(labels)}
    return AffinityTerm(term.namespaces | selected, term.selector, term.topology_key, NOTHING, term.weight)


def resolve_all(terms: Iterable[AffinityTerm], snapshot: Snapshot) -> tuple[AffinityTerm, ...]:
    return tuple(resolve_namespaces(t, snapshot.namespaces) for t in terms)


# -- cycle state --------------------------------------------------------------------------------

@dataclass
class PreFilterState:
    """What Filter needs: the incoming pod's resolved required terms and three count maps."""

    pod: PodInfo
    affinity_terms: tuple[AffinityTerm, ...]
    anti_affinity_terms: tuple[AffinityTerm, ...]
    namespace_labels: Mapping[str, str]
    # existing pods whose required anti-affinity terms match the incoming pod
    existing_anti_affinity_counts: TopologyCounts = field(default_factory=TopologyCounts)
    # existing pods matching all the incoming pod's required affinity terms
    affinity_counts: TopologyCounts = field(default_factory=TopologyCounts)
    # existing pods matching one of the incoming pod's required anti-affinity terms
    anti_affinity_counts: TopologyCounts = field(default_factory=TopologyCounts)

    def clone(self) -> "PreFilterState":
        return PreFilterState(self.pod, self.affinity_terms, self.anti_affinity_terms, self.namespace_labels,
                              self.existing_anti_affinity_counts.clone(), self.affinity_counts.clone(),
                              self.anti_affinity_counts.clone())

    def update_with_pod(self, other: PodInfo, node: Node, delta: int) -> None:
        """Count `other` in (delta 1) or out (delta -1) as if it ran on `node`."""
        labels = node.labels
        count_anti_affinity(self.existing_anti_affinity_counts, other.required_anti_affinity_terms,
                            self.pod, self.namespace_labels, labels, delta)
        count_affinity(self.affinity_counts, self.affinity_terms, other, labels, delta)
        count_anti_affinity(self.anti_affinity_counts, self.anti_affinity_terms, other, NO_LABELS, labels, delta)

    # Filter's first check (the anti-affinity ones are lookups in the plugin's filter_nodes).
    def satisfies_pod_affinity(self, node_labels: Mapping[str, str]) -> bool:
        pods_exist = True
        for t in self.affinity_terms:
            value = node_labels.get(t.topology_key)
            if value is None:
                return False  # every topology key must be on the node
            if not self.affinity_counts.positive((t.topology_key, value)):
                pods_exist = False
        if pods_exist:
            return True
        # The first pod of a group with affinity to itself: nothing anywhere matches yet.
        return not self.affinity_counts and matches_all(self.affinity_terms, self.pod)


@dataclass
class PreScoreState:
    """Score per topology key and value; read-only once built, so clones share it."""

    topology_score: dict[str, dict[str, int]]

    def clone(self) -> "PreScoreState":
        return self

    def add(self, node_labels: Mapping[str, str], key: str, amount: int) -> None:
        value = node_labels.get(key)
        if value is not None:
            by_value = self.topology_score.setdefault(key, {})
            by_value[value] = by_value.get(value, 0) + amount

    def node_score(self, node_labels: Mapping[str, str]) -> int:
        total = 0
        for key, by_value in self.topology_score.items():
            value = node_labels.get(key)
            if value is not None:
                total += by_value.get(value, 0)
        return total


# -- counts kept across binds -------------------------------------------------------------------
# What PreFilter and PreScore count over the cluster's pods for an incoming pod is kept on the
# snapshot's pod index (`Tally`, per incoming pod as the counts see it) and patched by each bind
# with the one pod it adds, for the incoming pod's terms and the existing pods' alike: the
# copies of a pod count nothing the bind did not change. Each tally is never changed once made.

Incoming = tuple[str, tuple[tuple[str, str], ...]]      # an incoming pod as terms see it: namespace, labels
ScoreAdds = list[tuple[str, int]]


def incoming_key(pod: PodInfo) -> Incoming:
    return pod.namespace, tuple(sorted(pod.labels.items()))


def existing_anti_keys(existing: PodInfo, pod: PodInfo, ns_labels: Mapping[str, str]) -> list[str]:
    """The topology keys of `existing`'s required anti-affinity terms that match `pod`."""
    return [t.topology_key for t in existing.required_anti_affinity_terms if t.matches(pod, ns_labels)]


def existing_score_adds(existing: PodInfo, pod: PodInfo, ns_labels: Mapping[str, str], hard_weight: int) -> ScoreAdds:
    """What `existing`'s terms add to the topology score of its node's domains for `pod`:
    required affinity terms at the hard weight, preferred ones at their weight (anti: minus)."""
    return [*((t.topology_key, hard_weight) for t in (existing.required_affinity_terms if hard_weight > 0 else ())
              if t.matches(pod, ns_labels)),
            *((t.topology_key, t.weight) for t in existing.preferred_affinity_terms if t.matches(pod, ns_labels)),
            *((t.topology_key, -t.weight) for t in existing.preferred_anti_affinity_terms if t.matches(pod, ns_labels))]


def _counted(counts: TopologyCounts, labels: Mapping[str, str], keys: Sequence[str]) -> TopologyCounts:
    """A copy of `counts` with one pod counted in the domain of each of `keys` (a node's `labels`)."""
    out = counts.clone()
    for k in keys:
        out.add(labels, k, 1)
    return out


class IncomingCounts(Tally):
    """Per topology pair, the bound pods the incoming pod's required terms count: with `every` the pods
    matching all terms, once per term (affinity), else each term a pod matches (anti-affinity)."""

    __slots__ = ("terms", "every", "counts")

    def __init__(self, terms: tuple[AffinityTerm, ...], every: bool, counts: TopologyCounts) -> None:
        self.terms, self.every, self.counts = terms, every, counts

    @classmethod
    def build(cls, terms: tuple[AffinityTerm, ...], every: bool, snapshot: Snapshot) -> "IncomingCounts":
        counts = TopologyCounts()
        index = pod_index(snapshot)
        if every:
            for node, n in index.matches_per_node(terms):
                for t in terms:
                    counts.add(node.labels, t.topology_key, n)
        else:
            for t in terms:
                for node, n in index.matches_per_node((t,)):
                    counts.add(node.labels, t.topology_key, n)
        return cls(terms, every, counts)

    def with_pod(self, pod: PodInfo, node: Node) -> "IncomingCounts | None":
        if self.every:
            keys = [t.topology_key for t in self.terms] if matches_all(self.terms, pod) else []
        else:
            keys = [t.topology_key for t in self.terms if t.matches(pod, NO_LABELS)]
        return IncomingCounts(self.terms, self.every, _counted(self.counts, node.labels, keys)) if keys else None


class ExistingAnti(Tally):
    """Per topology pair, the existing pods' required anti-affinity terms that match an
    incoming pod (`pod`: one of the incoming pods with its namespace and labels)."""

    __slots__ = ("pod", "ns_labels", "counts")

    def __init__(self, pod: PodInfo, ns_labels: Mapping[str, str], counts: TopologyCounts) -> None:
        self.pod, self.ns_labels, self.counts = pod, ns_labels, counts

    @classmethod
    def build(cls, pod: PodInfo, snapshot: Snapshot) -> "ExistingAnti":
        """Each group of existing pods sharing their terms (`AntiAffinityGroups`) matched once, counted
        as many times as it has pods in each domain."""
        counts = TopologyCounts()
        ns_labels = snapshot.namespace_labels(pod.namespace)
        for group in anti_affinity_groups(snapshot).groups.values():
            for k in existing_anti_keys(group.pod, pod, ns_labels):
                for value, n in group.counts.get(k, {}).items():
                    pair = (k, value)
                    counts[pair] = counts.get(pair, 0) + n
        return cls(pod, ns_labels, counts)

    def with_pod(self, pod: PodInfo, node: Node) -> "ExistingAnti | None":
        if not pod.required_anti_affinity_terms:
            return None
        keys = existing_anti_keys(pod, self.pod, self.ns_labels)
        return ExistingAnti(self.pod, self.ns_labels, _counted(self.counts, node.labels, keys)) if keys else None


Weighted = tuple[tuple[AffinityTerm, int], ...]       # resolved preferred terms, each with its signed weight


class Scores(Tally):
    """PreScore's topology score for an incoming pod (`pod`: one with its namespace, labels and preferred
    terms): its own preferred terms (`weighted`) against every bound pod, plus the existing pods' terms
    against it: required affinity at `hard_weight`, preferred ones at their weight (anti-affinity: minus)."""

    __slots__ = ("pod", "ns_labels", "weighted", "hard_weight", "score")

    def __init__(self, pod: PodInfo, ns_labels: Mapping[str, str], weighted: Weighted, hard_weight: int,
                 score: dict[str, dict[str, int]]) -> None:
        self.pod, self.ns_labels, self.weighted, self.hard_weight, self.score = \
            pod, ns_labels, weighted, hard_weight, score

    @classmethod
    def build(cls, pod: PodInfo, weighted: Weighted, hard_weight: int, snapshot: Snapshot) -> "Scores":
        s = PreScoreState({})
        index = pod_index(snapshot)
        for t, weight in weighted:
            for node, n in index.matches_per_node((t,)):
                s.add(node.labels, t.topology_key, weight * n)
        ns_labels = snapshot.namespace_labels(pod.namespace)
        score = s.topology_score
        for group in affinity_groups(snapshot).groups.values():        # (each group's terms matched once)
            for topology_key, amount in existing_score_adds(group.pod, pod, ns_labels, hard_weight):
                domains = group.counts.get(topology_key)
                if domains:
                    by_value = score.setdefault(topology_key, {})
                    for value, n in domains.items():
                        by_value[value] = by_value.get(value, 0) + amount * n
        return cls(pod, ns_labels, weighted, hard_weight, s.topology_score)

    def with_pod(self, pod: PodInfo, node: Node) -> "Scores | None":
        labels = node.labels
        adds = [(t.topology_key, weight) for t, weight in self.weighted if t.matches(pod, NO_LABELS)]
        if pod.has_affinity and labels:
            adds += existing_score_adds(pod, self.pod, self.ns_labels, self.hard_weight)
        adds = [(key, amount) for key, amount in adds if key in labels]
        if not adds:
            return None
        score = dict(self.score)
        for key in {key for key, _ in adds}:
            score[key] = dict(score.get(key, ()))
        for key, amount in adds:
            by_value = score[key]
            by_value[labels[key]] = by_value.get(labels[key], 0) + amount
        return Scores(self.pod, self.ns_labels, self.weighted, self.hard_weight, score)


# -- the plugin ---------------------------------------------------------------------------------

class InterPodAffinity(PreFilterPlugin, PreFilterExtensions, FilterPlugin, PreScorePlugin,
                       ScorePlugin, ScoreExtensions, Explainer, SignPlugin):
    name = NAME

    def sign_pod(self, pod: PodInfo) -> signers.Fragments | None:
        """Not signable with pod (anti-)affinity terms; otherwise its labels, which other pods' terms may
        select (unless those pods' preferred terms are ignored)."""
        affinity = pod.spec.get("affinity")
        if isinstance(affinity, dict) and (affinity.get("podAffinity") is not None
                                           or affinity.get("podAntiAffinity") is not None):
            return None
        if self.ignore_preferred_terms_of_existing_pods:
            return []
        return [(signers.LABELS, pod.labels)]

    @property
    def hard_pod_affinity_weight(self) -> int:
        w = self.args.get("hardPodAffinityWeight")
        return DEFAULT_HARD_POD_AFFINITY_WEIGHT if w is None else int(w)

    @property
    def ignore_preferred_terms_of_existing_pods(self) -> bool:
        return bool(self.args.get("ignorePreferredTermsOfExistingPods", False))

    # PreFilter ----------------------------------------------------------------------------
    def pre_filter(self, state, pod: PodInfo, nodes: Sequence[NodeInfo]):
        snapshot: Snapshot = self.handle.snapshot
        try:
            affinity = resolve_all(pod.required_affinity_terms, snapshot)
            anti = resolve_all(pod.required_anti_affinity_terms, snapshot)
        except SelectorError as err:
            return None, unresolvable(f"parsing pod: {err}")
        s = PreFilterState(pod, affinity, anti, snapshot.namespace_labels(pod.namespace))
        self._count_existing_anti_affinity(s, snapshot)
        self._count_incoming_terms(s, snapshot)
        if not s.existing_anti_affinity_counts and not affinity and not anti:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, s)
        state.write(EXPLAIN_STATE_KEY, ExplainMemo())
        return None, SUCCESS

    @staticmethod
    def _count_existing_anti_affinity(s: PreFilterState, snapshot: Snapshot) -> None:
        """Each existing pod's required anti-affinity terms that match the incoming pod, counted in their
        topology (`ExistingAnti`, patched by binds; a copy, as preemption's what-ifs change the state)."""
        pod = s.pod
        tally = pod_index(snapshot).tally(("ipa/existing-anti", incoming_key(pod)),
                                          lambda: ExistingAnti.build(pod, snapshot))
        s.existing_anti_affinity_counts = tally.counts.clone()      # type: ignore[attr-defined]

    @staticmethod
    def _count_incoming_terms(s: PreFilterState, snapshot: Snapshot) -> None:
        """The pods matching all the affinity terms (each counts once per term) and each
        anti-affinity term (`IncomingCounts`: kept per term tuple, patched by binds; copies)."""
        index = pod_index(snapshot)
        for terms, every, name in ((s.affinity_terms, True, "affinity_counts"),
                                   (s.anti_affinity_terms, False, "anti_affinity_counts")):
            if terms:
                tally = index.tally(("ipa/incoming", terms, every),
                                    lambda terms=terms, every=every: IncomingCounts.build(terms, every, snapshot))
                setattr(s, name, tally.counts.clone())      # type: ignore[attr-defined]

    # PreFilter extensions (preemption's what-ifs) --------------------------------------------
    def add_pod(self, state, pod: PodInfo, other: PodInfo, node_info: NodeInfo) -> Status:
        return self._update(state, other, node_info, 1)

    def remove_pod(self, state, pod: PodInfo, other: PodInfo, node_info: NodeInfo) -> Status:
        return self._update(state, other, node_info, -1)

    @staticmethod
    def _update(state, other: PodInfo, node_info: NodeInfo, delta: int) -> Status:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status.error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        s.update_with_pod(other, node_info.node, delta)
        return SUCCESS

    # Filter -------------------------------------------------------------------------------
    def filter(self, state, pod: PodInfo, node_info: NodeInfo) -> Status:
        return self.filter_nodes(state, pod, (node_info,))[0]

    def filter_nodes(self, state, pod: PodInfo, nodes) -> list[Status]:
        """The three checks in the scheduler's order (affinity, anti-affinity, existing pods' anti-affinity),
        lookups of the node's (topology key, value) pairs among the counted ones."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return [Status.error(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')] * len(nodes)
        affinity = s.satisfies_pod_affinity if s.affinity_terms else None
        anti = s.anti_affinity_counts
        anti_keys = list(dict.fromkeys(t.topology_key for t in s.anti_affinity_terms)) if anti else []
        existing = s.existing_anti_affinity_counts
        out: list[Status] = []
        for ni in nodes:
            labels = ni.node.labels
            if affinity is not None and not affinity(labels):
                out.append(_AFFINITY_FAILED)
            elif anti_keys and any(anti.get((key, labels.get(key)), 0) > 0 for key in anti_keys):
                out.append(_ANTI_AFFINITY_FAILED)
            # the node's pairs that have a count: a set intersection over the smaller side, in C
            elif existing and any(existing[pair] > 0 for pair in existing.keys() & labels.items()):
                out.append(_EXISTING_ANTI_AFFINITY_FAILED)
            else:
                out.append(SUCCESS)
        return out

    # PreScore / Score -----------------------------------------------------------------------
    def pre_score(self, state, pod: PodInfo, nodes: Sequence[NodeInfo]) -> Status:
        has_constraints = bool(pod.preferred_affinity_terms or pod.preferred_anti_affinity_terms)
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return SKIP
        snapshot: Snapshot = self.handle.snapshot
        s = PreScoreState(self._scores(pod, snapshot, has_constraints))
        if not s.topology_score:
            return SKIP
        state.write(PRE_SCORE_STATE_KEY, s)
        return SUCCESS

    def _scores(self, pod: PodInfo, snapshot: Snapshot, has_constraints: bool) -> dict[str, dict[str, int]]:
        """The incoming pod's preferred terms against every bound pod, plus the existing pods' terms against it
        (symmetry), per topology (`Scores`: kept per incoming pod, patched by binds; read-only)."""
        weighted: Weighted = ()
        if has_constraints:
            weighted = tuple((t, t.weight * sign)
                             for terms, sign in ((pod.preferred_affinity_terms, 1), (pod.preferred_anti_affinity_terms, -1))
                             for t in resolve_all(terms, snapshot))
        hard_weight = self.hard_pod_affinity_weight
        tally = pod_index(snapshot).tally(("ipa/scores", incoming_key(pod), weighted, hard_weight),
                                          lambda: Scores.build(pod, weighted, hard_weight, snapshot))
        return tally.score      # type: ignore[attr-defined]

    def score(self, state, pod: PodInfo, node_info: NodeInfo) -> int:
        return state.read(PRE_SCORE_STATE_KEY).node_score(node_info.node.labels)

    def score_nodes(self, state, pod: PodInfo, nodes: Sequence[NodeInfo]) -> list[int]:
        """`node_score` of every node, a topology key at a time: its values looked up in C."""
        s: PreScoreState = state.read(PRE_SCORE_STATE_KEY)
        labels = [ni.node.labels for ni in nodes]
        totals = [0] * len(nodes)
        for key, by_value in s.topology_score.items():
            totals = list(map(add, totals, map(by_value.get, map(methodcaller("get", key), labels), repeat(0))))
        return totals

    def normalize_score(self, state, pod: PodInfo, scores: NodeScoreList) -> Status:
        """Min-max onto 0..MAX_NODE_SCORE, truncated as the scheduler's float arithmetic does."""
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return Status.error(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        values = scores.scores
        if not s.topology_score or not values:
            return SUCCESS
        lo = min(values)
        diff = max(values) - lo
        values[:] = [int(float(MAX_NODE_SCORE) * (float(v - lo) / float(diff))) if diff > 0 else 0 for v in values]
        return SUCCESS

    # Explanation (kexplain) ------------------------------------------------------------------
    def explain(self, state, pod: PodInfo, node_info: NodeInfo) -> dict | None:
        """For the node's topology domains: per required term the pods matching it there, and the existing
        pods whose own anti-affinity matches the pod; lookups in `Neighbours` (a page records every node)."""
        s: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return None
        labels = node_info.node.labels
        near = self._neighbours(state, s)
        facts: dict[str, list] = {}
        if s.affinity_terms:
            facts["affinity"] = [{**_term_facts(t, labels),
                                  "matchingPods": s.affinity_counts.get((t.topology_key, labels[t.topology_key]), 0)
                                  if t.topology_key in labels else 0}
                                 for t in s.affinity_terms]
        if s.anti_affinity_terms:
            facts["antiAffinity"] = [{**_term_facts(t, labels), "conflictingPods": near.conflicting(k, t, labels)}
                                     for k, t in enumerate(s.anti_affinity_terms)]
        existing = near.existing_anti(labels)
        if existing:
            facts["existingAntiAffinity"] = existing
        return facts or None

    def _neighbours(self, state, s: PreFilterState) -> "Neighbours":
        """The cycle's `Neighbours`, gathered on the first node explained (PreFilter's
        `ExplainMemo`, which the clones of the cycle state share)."""
        snapshot: Snapshot = self.handle.snapshot
        memo: ExplainMemo[Neighbours] | None = state.get(EXPLAIN_STATE_KEY)
        if memo is None:
            return Neighbours(snapshot, s)
        return memo.get(lambda: Neighbours(snapshot, s))


MAX_PODS_NAMED = 10


def _term_facts(t: AffinityTerm, node_labels: Mapping[str, str]) -> dict:
    return {"topologyKey": t.topology_key, "selector": format_parsed_selector(t.selector),
            "namespaces": ["<all>"] if t.namespace_selector.everything else sorted(t.namespaces),
            "nodeDomain": node_labels.get(t.topology_key)}


ExistingFact = tuple[int, dict]         # (position in the cluster's order, the fact)


class Neighbours:
    """What the explanation of any node says of the cluster's pods, by topology domain (existing pods'
    anti-affinity matching the pod, the first MAX_PODS_NAMED each of its terms matches), gathered
    once and cached per key and domain: explaining one node looks only at its domain's pods."""

    __slots__ = ("_snapshot", "_nodes_by_value", "_named", "existing", "existing_keys")

    def __init__(self, snapshot: Snapshot, s: PreFilterState) -> None:
        self._snapshot = snapshot
        self._nodes_by_value: dict[str, dict[str, list[NodeInfo]]] = {}
        self._named: dict[tuple[int, str], tuple[str, ...]] = {}
        self.existing: dict[TopologyPair, list[ExistingFact]] = {}
        n = 0
        for ni in snapshot.have_pods_with_required_anti_affinity:
            node_labels = ni.node.labels
            for other in ni.pods_with_required_anti_affinity:
                for t in other.required_anti_affinity_terms:
                    value = node_labels.get(t.topology_key)
                    if value is not None and t.matches(s.pod, s.namespace_labels):
                        self.existing.setdefault((t.topology_key, value), []).append(
                            (n, {"pod": other.key, "node": ni.name, "topologyKey": t.topology_key,
                                 "selector": format_parsed_selector(t.selector)}))
                        n += 1
        self.existing_keys = tuple(dict.fromkeys(key for key, _ in self.existing))

    def conflicting(self, k: int, t: AffinityTerm, node_labels: Mapping[str, str]) -> list[str]:
        """Up to MAX_PODS_NAMED pods the `k`th anti-affinity term `t` matches in the node's
        domain (none when the node lacks the label)."""
        value = node_labels.get(t.topology_key)
        if value is None:
            return []
        named = self._named.get((k, value))
        if named is None:
            nodes = self._nodes_of(t.topology_key).get(value, ())
            named = self._named[(k, value)] = _pods_named(nodes, lambda p: t.matches(p, NO_LABELS))
        return list(named)

    def _nodes_of(self, key: str) -> dict[str, list[NodeInfo]]:
        """The cluster's nodes by their value of the label `key`, in the snapshot's order."""
        by_value = self._nodes_by_value.get(key)
        if by_value is None:
            by_value = self._nodes_by_value[key] = {}
            for ni in self._snapshot.node_infos:
                value = ni.node.labels.get(key)
                if value is not None:
                    by_value.setdefault(value, []).append(ni)
        return by_value

    def existing_anti(self, node_labels: Mapping[str, str]) -> list[dict]:
        """The existing pods in the node's domains whose required anti-affinity matches the
        incoming pod, one entry per matching term, in the cluster's order (fresh dicts)."""
        found: list[ExistingFact] = []
        for key in self.existing_keys:
            value = node_labels.get(key)
            if value is not None:
                found += self.existing.get((key, value), ())
        if len(self.existing_keys) > 1:
            found.sort(key=lambda e: e[0])
        return [dict(fact) for _, fact in found]


def _pods_named(nodes: Iterable[NodeInfo], match) -> tuple[str, ...]:
    """Up to MAX_PODS_NAMED pods `match` accepts on `nodes`, in their order and then each node's pod order."""
    out: list[str] = []
    for ni in nodes:
        for p in ni.pods:
            if match(p):
                out.append(f"{p.key} (on {ni.name})")
                if len(out) == MAX_PODS_NAMED:
                    return tuple(out)
    return tuple(out)

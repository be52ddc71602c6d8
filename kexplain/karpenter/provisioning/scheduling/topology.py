"""Topology spread and pod (anti-)affinity as Karpenter simulates them
(controllers/provisioning/scheduling/topology.go)."""
from __future__ import annotations

import marshal
from itertools import chain, groupby
from operator import attrgetter
from typing import Any, Iterable, Mapping, Protocol, Sequence

from kexplain.apimachinery.labels import LABEL_HOSTNAME
from kexplain.apimachinery.selectors import EXISTS, IN
from kexplain.karpenter.errors import GoError, KarpenterError, multierr_append, wrap
from kexplain.karpenter.provisioning.scheduling.topologydomaingroup import TopologyDomainGroup
from kexplain.karpenter.provisioning.scheduling.topologygroup import (
    MAX_INT32, TopologyGroup, TopologyType,
)
from kexplain.karpenter.scheduling.requirement import Requirement, new_requirement
from kexplain.karpenter.scheduling.requirements import (Requirements, new_label_requirements,
                                                        new_node_selector_requirements_with_min_values)
from kexplain.karpenter.apis.nodeclaim import NodeSelectorRequirementWithMinValues
from kexplain.karpenter.utils.objects import name_of
from kexplain.controllers.disruption import NamespacePods
from kexplain.model.labels import EVERYTHING, LabelSelector, SelectorError, parse_selector
from kexplain.model.pod import PodInfo
from kexplain.model.selector_index import SelectorIndex

PREFERENCE_POLICY_RESPECT = "Respect"
PREFERENCE_POLICY_IGNORE = "Ignore"
DO_NOT_SCHEDULE = "DoNotSchedule"
MAX_COUNTS_SHOWN = 25          # pretty.Map(domains, 25) in the error text

Taint = Mapping[str, Any]


class TopologyCluster(Protocol):
    """What the topology reads of the cluster (kp's state.Cluster has it)."""

    pods: Sequence[PodInfo]

    def node_by_name(self, name: str) -> Mapping[str, Any] | None: ...

    def for_pods_with_anti_affinity(self) -> Iterable[tuple[PodInfo, Mapping[str, Any]]]: ...


class StateNodeView(Protocol):
    node: Mapping[str, Any] | None

    def labels(self) -> Mapping[str, str]: ...


# -- the error ---------------------------------------------------------------------------------

def pretty_map(values: Mapping[str, int], max_items: int) -> str:
    """pretty.Map: `k: v` pairs in key order, the first `max_items`, then ` and N other(s)`."""
    keys = sorted(values)
    shown = ", ".join(f"{k}: {values[k]}" for k in keys[:max_items])
    if len(keys) > max_items:
        shown += f" and {len(keys) - max_items} other(s)"
    return shown


class TopologyError(KarpenterError):
    """topologyError: worded when printed, from the group's counts at that time (Go's error keeps
    a reference to the live counts, and Karpenter prints it after the pass)."""

    def __init__(self, topology: TopologyGroup, pod_domains: Requirement, node_domains: Requirement) -> None:
        super().__init__()
        self.topology = topology
        self.pod_domains = pod_domains
        self.node_domains = node_domains

    def __str__(self) -> str:
        t = self.topology
        return (f"unsatisfiable topology constraint for {t.type}, key={t.key} (counts = "
                f"{pretty_map(t.domains, MAX_COUNTS_SHOWN)}, podDomains = {self.pod_domains}, "
                f"nodeDomains = {self.node_domains}")


# -- the pod's facts the topology reads -----------------------------------------------------------

def _node_labels(node: Mapping[str, Any] | None) -> dict[str, str]:
    labels = ((node or {}).get("metadata") or {}).get("labels") or {}
    return {str(k): str(v) for k, v in labels.items()}


def _node_taints(node: Mapping[str, Any] | None) -> list[Taint]:
    return [t for t in ((node or {}).get("spec") or {}).get("taints") or () if isinstance(t, Mapping)]


def _pod_anti_affinity(pod: PodInfo) -> Mapping[str, Any]:
    return pod.facts.affinity.get("podAntiAffinity") or {}       # (the spec's, read once a shape)


# a required anti-affinity term of a pod, and what finds its group again (its namespace and text: the pods of
# a workload repeat their terms, and an equal term in the same namespace is the same group; None: a term
# no text holds, its group built each time)
Term = tuple[Mapping[str, Any], "tuple | None"]


def required_terms(pod: PodInfo) -> list[Term]:
    """The pod's required anti-affinity terms, each with the key its group is found again by."""
    out: list[Term] = []
    for term in _pod_anti_affinity(pod).get("requiredDuringSchedulingIgnoredDuringExecution") or ():
        term = term or {}
        try:
            seen_key: tuple | None = (pod.namespace, marshal.dumps(term))
        except ValueError:
            seen_key = None
        out.append((term, seen_key))
    return out


def has_pod_anti_affinity(pod: PodInfo) -> bool:
    """HasPodAntiAffinity: required or preferred anti-affinity terms."""
    anti = _pod_anti_affinity(pod)
    return bool(anti.get("requiredDuringSchedulingIgnoredDuringExecution")
                or anti.get("preferredDuringSchedulingIgnoredDuringExecution"))


def has_required_pod_anti_affinity(pod: PodInfo) -> bool:
    return bool(_pod_anti_affinity(pod).get("requiredDuringSchedulingIgnoredDuringExecution"))


def ignored_for_topology(pod: PodInfo) -> bool:
    """IgnoredForTopology: not bound, finished (Succeeded/Failed) or terminating."""
    return (not pod.node_name or pod.phase in ("Succeeded", "Failed")
            or bool(pod.deletion_timestamp))


def _int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


# -- the NodePools' domains -----------------------------------------------------------------------

def _template(node_pool: Mapping[str, Any]) -> tuple[list[NodeSelectorRequirementWithMinValues], dict[str, str], list[Taint]]:
    """A NodePool's template requirements, labels and taints, read from the object as stored."""
    template = ((node_pool.get("spec") or {}).get("template")) or {}
    spec = template.get("spec") or {}
    reqs = [NodeSelectorRequirementWithMinValues(str(r.get("key") or ""), str(r.get("operator") or ""),
                                                 tuple(str(v) for v in r.get("values") or ()),
                                                 r.get("minValues"))
            for r in spec.get("requirements") or () if isinstance(r, Mapping)]
    labels = {str(k): str(v) for k, v in ((template.get("metadata") or {}).get("labels") or {}).items()}
    taints = [t for t in spec.get("taints") or () if isinstance(t, Mapping)]
    return reqs, labels, taints


GROUPS_MEMO_SIZE = 4           # the domain groups of as many (NodePools, instance types) kept
_groups_memo: dict[tuple, tuple[tuple[Any, ...], dict[str, TopologyDomainGroup]]] = {}


def build_domain_groups(node_pools: Sequence[Any],
                        instance_types: Mapping[str, Sequence[Any]]) -> dict[str, TopologyDomainGroup]:
    """buildDomainGroups: per label key, the values NodePools could give a node, with the NodePool's
    taints; each NodePool's worked out once (`_pool_domains`). Kept for the same NodePool and
    instance type objects (every simulation of a disruption pass asks again); never changed after."""
    held = (*node_pools, *(it for its in instance_types.values() for it in its))
    key = (tuple(map(id, node_pools)), tuple((name, len(its)) for name, its in instance_types.items()),
           tuple(map(id, held)))
    found = _groups_memo.get(key)
    if found is not None and all(a is b for a, b in zip(found[0], held)):
        return found[1]
    groups = _domain_groups(node_pools, instance_types)
    if len(_groups_memo) >= GROUPS_MEMO_SIZE:
        _groups_memo.pop(next(iter(_groups_memo)))
    _groups_memo[key] = (held, groups)
    return groups


def _domain_groups(node_pools: Sequence[Any],
                   instance_types: Mapping[str, Sequence[Any]]) -> dict[str, TopologyDomainGroup]:
    by_name = {name_of(np): np for np in node_pools}
    groups: dict[str, TopologyDomainGroup] = {}
    for np_name, its in instance_types.items():
        np = by_name.get(np_name)
        if np is None:
            continue
        domains, taints = _pool_domains(np, its)
        for key, values in domains:
            group = groups.setdefault(key, TopologyDomainGroup())
            for domain, times in values:
                group.insert_times(domain, tuple(taints), times)
    return groups


DOMAIN_MEMO_SIZE = 16          # lists of instance types (as objects) whose requirements are kept grouped
_types_memo: dict[tuple[int, ...], tuple[tuple[Any, ...], Any]] = {}


def _types_by_key(its: Sequence[Any]) -> dict[str, tuple[list[list[Any]], list[tuple[str, int]], int]]:
    """Per label key of the types' requirements: the distinct requirements on it with the first
    type holding each and how many do, the values they count (every type's, in order), and how
    many types from the first hold it; kept per list of type objects (a few per pass)."""
    key = tuple(map(id, its))
    found = _types_memo.get(key)
    if found is not None and all(a is b for a, b in zip(found[0], its)):
        return found[1]
    by_key: dict[str, tuple[list[list[Any]], dict[tuple, list[Any]], list[int]]] = {}
    for i, it in enumerate(its):
        for label, r in it.requirements.items():
            groups, seen, run = by_key.get(label) or by_key.setdefault(label, ([], {}, [0]))
            if run[0] == i:
                run[0] += 1
            shape = (r.complement, frozenset(r.value_set), r.gte, r.lte)     # (what values() and intersection read)
            group = seen.get(shape)
            if group is None:
                group = seen[shape] = [i, r, 0]
                groups.append(group)
            group[2] += 1
    out = {}
    for label, (groups, _, run) in by_key.items():
        times: dict[str, int] = {}
        for _, r, n in groups:
            for v in r.values():
                times[v] = times.get(v, 0) + n
        out[label] = (groups, list(times.items()), run[0])
    if len(_types_memo) >= DOMAIN_MEMO_SIZE:
        _types_memo.pop(next(iter(_types_memo)))
    _types_memo[key] = (tuple(its), out)
    return out


def _pool_domains(np: Any, its: Sequence[Any]) -> tuple[list[tuple[str, list[tuple[str, int]]]], list[Any]]:
    """One NodePool's label keys with their domains in buildDomainGroups' insertion order and counts,
    and its taints: each type's requirements merged into the NodePool's (its keys first, each
    narrowed by the type's, then the type's other keys), worked out once per distinct requirement."""
    reqs, labels, taints = _template(np)
    base = new_node_selector_requirements_with_min_values(reqs)
    base.add(*new_label_requirements(labels).values())
    if not its:         # (no type: the NodePool's own In values alone)
        return [(label, [(v, 1) for v in r.values()]) for label, r in base.items() if r.operator() == IN], taints
    by_key = _types_by_key(its)
    out: list[tuple[str, list[tuple[str, int]]]] = []
    for label, requirement in base.items():
        groups, _, run = by_key.get(label, ([], (), 0))
        held = sum(n for _, _, n in groups)
        times: dict[str, int] = {}
        # the types without the key take the NodePool's requirement as it is (the first of them: `run`)
        for _, mine, n in sorted([*groups, *([[run, None, len(its) - held]] if held < len(its) else ())],
                                 key=lambda g: g[0]):
            for v in (requirement if mine is None else mine.intersection(requirement)).values():
                times[v] = times.get(v, 0) + n
        if requirement.operator() == IN:
            for v in requirement.values():
                times[v] = times.get(v, 0) + 1
        out.append((label, list(times.items())))
    out += [(label, counted) for label, (_, counted, _) in by_key.items() if label not in base]
    return out, taints


# -- what the groups count from ------------------------------------------------------------------

class Counted:
    """The cluster's pods a topology group counts (bound, not finished, not terminating:
    `ignored_for_topology`), by namespace in the cluster's order, each namespace's indexed by the
    label values its groups' selectors ask for (`NamespacePods`); and the nodes' labels, taints and
    label requirements by name. Karpenter's disruption builds a topology for each simulation over
    the same cluster: they share this, and leave out their own pods as they count."""

    def __init__(self, pods: Sequence[PodInfo]) -> None:
        by_namespace: dict[str, list[PodInfo]] = {}
        for namespace, run in groupby(pods, attrgetter("namespace")):     # (runs in C: a dump lists pods by namespace)
            by_namespace.setdefault(namespace, []).extend(p for p in run if not ignored_for_topology(p))
        self._by_namespace = {ns: NamespacePods(ps) for ns, ps in by_namespace.items()}
        self._nodes: dict[str, tuple[dict[str, str], list[Taint], Requirements]] = {}
        self._counts: dict[tuple, Counts] = {}          # a group's hash -> what it counts of every pod
        self._counts_of: Any = None                     # the cluster those were counted on
        # The domains a group with a node filter registers (`filtered_domains`), by the state nodes'
        # objects (ids: the list held keeps them) and by the group's key and filter.
        self._filtered: dict[tuple[int, ...], tuple[list[Any], dict[tuple, list[str]]]] = {}
        self._repelling: tuple[Any, list[tuple[PodInfo, Mapping[str, str], list[Term]]]] | None = None

    def selected(self, namespace: str, selector: LabelSelector) -> list[PodInfo]:
        """The namespace's counted pods `selector` selects, in the cluster's order."""
        pods = self._by_namespace.get(namespace)
        return pods.selected(selector) if pods is not None else []

    def node(self, name: str, node: Mapping[str, Any]) -> tuple[dict[str, str], list[Taint], Requirements]:
        """A node's labels, taints and label requirements, read once."""
        facts = self._nodes.get(name)
        if facts is None:
            labels = _node_labels(node)
            facts = self._nodes[name] = (labels, _node_taints(node), new_label_requirements(labels))
        return facts

    def repelling(self, cluster: TopologyCluster) -> list[tuple[PodInfo, Mapping[str, str], list[Term]]]:
        """The cluster's bound pods with required anti-affinity terms, each with its node's labels and its
        terms (`required_terms`), in the cluster's order: read once per cluster, not once per simulation."""
        read = getattr(cluster, "anti_affinity_pods", cluster)      # (all it reads: a cluster overlaid shares it)
        if self._repelling is None or self._repelling[0] is not read:
            self._repelling = (read, [(pod, self.node(name_of(node), node)[0] if node is not None else {},
                                          required_terms(pod))
                                         for pod, node in cluster.for_pods_with_anti_affinity()])
        return self._repelling[1]

    def filtered_domains(self, tg: TopologyGroup, state_nodes: Sequence[StateNodeView],
                         held: list[Any] | None) -> list[str]:
        """The domains countDomains registers for a group whose node filter is not every node's: the
        value of the group's key of each state node with a Node the filter admits, in node order.
        Worked out once for the same state nodes (`held`: their Nodes and NodeClaims, what their labels
        are read from, never changed; None: not known, not kept) and an equal filter: a suggestion's pass
        run again over the cluster counts its groups over the same 5,000 nodes as the first pass did."""
        key = _filter_key(tg) if held is not None else None
        if key is None:
            return self._domains_of(tg, state_nodes)
        ids = tuple(map(id, held))
        entry = self._filtered.get(ids)
        if entry is None:
            if len(self._filtered) >= NODE_SETS_KEPT:
                self._filtered.pop(next(iter(self._filtered)))
            entry = self._filtered[ids] = (held, {})
        found = entry[1].get(key)
        if found is None:
            found = self._domains_of(tg, state_nodes)
            if len(entry[1]) < FILTERS_KEPT:
                entry[1][key] = found
        return found

    def _domains_of(self, tg: TopologyGroup, state_nodes: Sequence[StateNodeView]) -> list[str]:
        out = []
        for n in state_nodes:
            if n.node is None:
                continue
            _, taints, requirements = self.node(name_of(n.node), n.node)
            if not tg.node_filter.matches(taints, requirements):
                continue
            domain = n.labels().get(tg.key)
            if domain is not None:
                out.append(domain)
        return out

    def counts(self, tg: TopologyGroup, cluster: TopologyCluster) -> Counts:
        """What countDomains records of every counted pod for `tg` on `cluster`'s nodes, left to each
        simulation to take its own pods out of (`Topology.count_domains`). Counted once per cluster for
        the groups that read alike all it reads (`_counted_key`); a group whose node filter is not
        every node's, each time (`TopologyGroup.hash` leaves the filter's values out: Go merges by it)."""
        every_node = tg.node_filter.matches_all()
        if not every_node:
            return self._counted(tg, cluster, every_node)
        read = getattr(cluster, "by_node_name", cluster)       # (all `_counted` reads of it: `node_by_name`)
        if self._counts_of is not read:
            self._counts, self._counts_of = {}, read
        key = _counted_key(tg)
        found = self._counts.get(key)
        if found is None:
            found = self._counts[key] = self._counted(tg, cluster, every_node)
        return found

    def _counted(self, tg: TopologyGroup, cluster: TopologyCluster, every_node: bool) -> Counts:
        selector = EVERYTHING if tg.raw_selector is None else tg.selector   # TopologyListOptions: null lists all
        by_domain: dict[str, int] = {}
        by_uid: dict[str, list[str]] = {}
        records: list[tuple[str, str]] = []
        for namespace in tg.namespaces:
            for pod in self.selected(namespace, selector):
                node = cluster.node_by_name(pod.node_name)
                if node is None:
                    continue
                labels, taints, requirements = self.node(pod.node_name, node)
                domain = labels.get(tg.key)
                if domain is None and tg.key == LABEL_HOSTNAME:
                    domain = name_of(node)
                if domain is None:
                    continue
                if not every_node and not tg.node_filter.matches(taints, requirements):
                    continue
                by_domain[domain] = by_domain.get(domain, 0) + 1
                by_uid.setdefault(pod.uid, []).append(domain)
                records.append((pod.uid, domain))
        return Counts(by_domain, by_uid, records)


NODE_SETS_KEPT = 4        # the state nodes' lists whose groups' domains `Counted.filtered_domains` keeps
FILTERS_KEPT = 256        # ... and the groups' filters per list


def _filter_key(tg: TopologyGroup) -> tuple | None:
    """What `Counted._domains_of` reads of a group: its key and its node filter's terms, policies and
    tolerations, by value (None: a toleration that is no plain data, not kept)."""
    f = tg.node_filter
    terms = tuple(tuple(sorted((k, r.complement, frozenset(r.value_set), r.gte, r.lte, r.min_values)
                               for k, r in term.items())) for term in f.requirements)
    try:
        tolerations = marshal.dumps(f.tolerations)
    except ValueError:
        return None
    return tg.key, terms, f.taint_policy, f.affinity_policy, tolerations


def _counted_key(tg: TopologyGroup) -> tuple:
    """All `Counted._counted` reads of a group counting on every node: its key, its namespaces in order and
    its selector as written (`repr`: equal texts select alike, a null one apart from any other). Not its
    hash, whose selector key takes some selectors that differ as one (`selector_hash_key`: a null one and
    one that is no mapping, values given twice)."""
    return tg.key, tuple(tg.namespaces), repr(tg.raw_selector)


class Counts:
    """A topology group's count of every counted pod: the pods per domain, in the order countDomains
    meets each domain first, each pod's domains by uid (a uid given twice: each pod's), and each pod's
    uid and domain in countDomains' order."""

    __slots__ = ("by_domain", "by_uid", "records")

    def __init__(self, by_domain: dict[str, int], by_uid: dict[str, list[str]],
                 records: list[tuple[str, str]]) -> None:
        self.by_domain = by_domain
        self.by_uid = by_uid
        self.records = records

    def replay(self, tg: TopologyGroup, excluded: set[str]) -> None:
        """Record into `tg` each pod's domain in turn, the pods of `excluded` left out: countDomains' own loop."""
        for uid, domain in self.records:
            if uid not in excluded:
                tg.record(domain)

    def record(self, tg: TopologyGroup, excluded: set[str]) -> None:
        """`replay`, at once where that gives the same: pod by pod only when some but not all of the pods
        of a domain `tg` does not know yet are excluded (that domain would then be added at its first pod
        left, not at its first pod: the order of the group's domains is the pods')."""
        if not self._recorded(tg, excluded):
            self.replay(tg, excluded)

    def _recorded(self, tg: TopologyGroup, excluded: set[str]) -> bool:
        known = tg.domains
        left: dict[str, int] = {}
        by_uid = self.by_uid
        if excluded:
            uids = excluded if len(excluded) <= len(by_uid) else [u for u in by_uid if u in excluded]
            for uid in uids:
                for domain in by_uid.get(uid, ()):
                    left[domain] = left.get(domain, 0) + 1
            if any(domain not in known and count != self.by_domain[domain] for domain, count in left.items()):
                return False
        tg.record_counts(self.by_domain, left)
        return True


COUNTED_MEMO_SIZE = 4          # the pods lists (a cluster's, per pass) whose `Counted` is kept
_counted_memo: dict[int, tuple[Sequence[PodInfo], Counted]] = {}


def counted_of(pods: Sequence[PodInfo]) -> Counted:
    """`Counted` of a cluster's pods, kept for that very list (a pass's cluster never changes its
    pods: a simulation's own are left out as counted, not removed)."""
    found = _counted_memo.get(id(pods))
    if found is not None and found[0] is pods:
        return found[1]
    counted = Counted(pods)
    if len(_counted_memo) >= COUNTED_MEMO_SIZE:
        _counted_memo.pop(next(iter(_counted_memo)))
    _counted_memo[id(pods)] = (pods, counted)
    return counted


def counted_for(cluster: TopologyCluster) -> Counted:
    """`counted_of` the cluster's pods, kept on the cluster (`Cluster.counted`): a cluster overlaid on
    another for other pending pods (`state.cluster.overlay`) starts with the other's, when no pending
    pod of either is one a group counts."""
    found = getattr(cluster, "counted", None)
    if found is None:
        found = counted_of(cluster.pods)
        if hasattr(cluster, "counted"):
            cluster.counted = found     # type: ignore[attr-defined]
    return found


# -- the topology ---------------------------------------------------------------------------------

class Topology:
    """The topology groups of a pass (by hash), the inverse anti-affinity groups, and the
    cluster's pods and nodes they are counted from."""

    def __init__(self, cluster: TopologyCluster, state_nodes: Sequence[StateNodeView],
                 domain_groups: dict[str, TopologyDomainGroup], excluded_pods: Iterable[str],
                 preference_policy: str = PREFERENCE_POLICY_RESPECT) -> None:
        self.cluster = cluster
        self.state_nodes = list(state_nodes)
        self.domain_groups = domain_groups
        self.excluded_pods = set(excluded_pods)
        self.preference_policy = preference_policy
        self.topology_groups: dict[tuple, TopologyGroup] = {}
        self.inverse_topology_groups: dict[tuple, TopologyGroup] = {}
        # The topology groups a pod may count in, by a label its selector requires (`_selecting`), and
        # the groups each pod owns: what `record` and `update` ask, not every group for every pod
        self._selecting: SelectorIndex[TopologyGroup] = SelectorIndex()
        # the same of the inverse anti-affinity groups (made, and owned, for the pass: none is let go)
        self._inverse_selecting: SelectorIndex[TopologyGroup] = SelectorIndex()
        self._inverse_owned: dict[str, list[TopologyGroup]] = {}
        self._owned: dict[str, list[TopologyGroup]] = {}
        self._made: dict[int, int] = {}         # id(a topology group) -> its place in `topology_groups`
        # What the groups count from, read once per cluster (`counted_of`: a disruption pass's
        # simulations share it); the pods being scheduled are left out as each group counts.
        self._counted = counted_for(cluster)
        self._namespaces: dict[str, dict[str, str]] | None = None
        # The groups that govern a pod or select it, by uid, until a group or owner changes
        # (asked for every node a pod is tried on; a pod's namespace and labels do not change).
        self._version = 0
        self._matching: dict[str, tuple[int, list[TopologyGroup], list[TopologyGroup]]] = {}
        self._inverse_seen: dict[tuple, tuple] = {}
        self._state_domains_by_key: dict[str, tuple[dict[str, int], set[str]]] = {}
        self._exists_by_key: dict[str, Requirement] = {}
        self._held: list[Any] | None | bool = False     # `_held_nodes` (False: not read yet)

    # -- Update -----------------------------------------------------------------------------
    def update(self, pod: PodInfo) -> KarpenterError | None:
        """Update: the pod gives up every group it owned, then owns the groups of its current
        spec (after a relaxation, without the dropped preferences), new ones counted now."""
        self._version += 1
        for tg in self._owned.pop(pod.uid, ()):
            tg.remove_owner(pod.uid)
        if ((self.preference_policy == PREFERENCE_POLICY_IGNORE and has_required_pod_anti_affinity(pod))
                or (self.preference_policy == PREFERENCE_POLICY_RESPECT and has_pod_anti_affinity(pod))):
            err = self.update_inverse_anti_affinity(pod, None)
            if err is not None:
                return wrap("updating inverse anti-affinities", err)
        topologies = self.new_for_topologies(pod)
        affinities, err = self.new_for_affinities(pod)
        if err is not None:
            return wrap("updating affinities", err)
        for tg in [*topologies, *affinities]:
            key = tg.hash()
            existing = self.topology_groups.get(key)
            if existing is None:
                self.count_domains(tg)
                self.topology_groups[key] = tg
                self._index(tg)
            else:
                tg = existing
            if not tg.is_owned_by(pod.uid):
                self._owned.setdefault(pod.uid, []).append(tg)
            tg.add_owner(pod.uid)
        return None

    def _index(self, tg: TopologyGroup) -> None:
        """A new topology group among those a pod may count in (`_selecting`), and its place among the groups."""
        self._made[id(tg)] = len(self._made)
        self._selecting.add(tg, tg.selector)

    # -- Record, Register -------------------------------------------------------------------
    def record(self, pod: PodInfo, taints: Sequence[Taint], requirements: Requirements,
               allow_undefined: frozenset[str] = frozenset()) -> None:
        """Record: the pod landed on a node with these requirements. Anti-affinity blocks every
        domain the node may still be in; spread and affinity count only a settled domain."""
        for tg in self._selecting.candidates(pod.labels):
            if tg.counts(pod, taints, requirements, allow_undefined):
                domains = requirements.get(tg.key)
                if tg.type == TopologyType.POD_ANTI_AFFINITY:
                    tg.record(*domains.values())
                elif domains.len() == 1:
                    tg.record(domains.values()[0])
        for tg in self._inverse_owned_by(pod.uid):
            tg.record(*requirements.get(tg.key).values())

    def _inverse_owned_by(self, uid: str) -> list[TopologyGroup]:
        """The inverse anti-affinity groups the pod `uid` owns, in the order it came to own them."""
        return self._inverse_owned.get(uid, [])

    def register(self, topology_key: str, domain: str) -> None:
        """Register: the domain exists (a new NodeClaim's hostname), with no pods yet."""
        for tg in chain(self.topology_groups.values(), self.inverse_topology_groups.values()):
            if tg.key == topology_key:
                tg.register(domain)

    def register_all(self, topology_key: str, domains: Sequence[str]) -> None:
        """`register` of each domain in turn (a scheduler's existing nodes' hostnames): each group
        registers them in their order, as one `register` after another would."""
        distinct = set(domains)
        zeros: dict[str, int] | None = None         # (made once, copied by each group new to them)
        for tg in chain(self.topology_groups.values(), self.inverse_topology_groups.values()):
            if tg.key == topology_key:
                if zeros is None:
                    zeros = dict.fromkeys(domains, 0)
                tg.register_known(domains, distinct, zeros)

    # -- AddRequirements --------------------------------------------------------------------
    def add_requirements(self, pod: PodInfo, taints: Sequence[Taint], pod_requirements: Requirements,
                         node_requirements: Requirements, allow_undefined: frozenset[str] = frozenset()
                         ) -> tuple[Requirements | None, TopologyError | None]:
        """AddRequirements: the node's requirements tightened by every topology the pod is governed by or
        counts in, or the first that leaves no domain (in the order made, where Go's is a map's)."""
        requirements = Requirements(node_requirements)     # NewRequirements(values...): the same requirements
        for tg in self.get_matching_topologies(pod, taints, node_requirements, allow_undefined):
            pod_domains = dict.get(pod_requirements, tg.key) or self._exists(tg.key)
            node_domains = dict.get(node_requirements, tg.key) or self._exists(tg.key)
            domains, _ = tg.get(pod, pod_domains, node_domains)
            if domains.len() == 0:
                return None, TopologyError(tg, pod_domains, node_domains)
            requirements.add(domains)
        return requirements, None

    def _exists(self, key: str) -> Requirement:
        """`key Exists`, one per key (read, never changed)."""
        req = self._exists_by_key.get(key)
        if req is None:
            req = self._exists_by_key[key] = new_requirement(key, EXISTS)
        return req

    def get_matching_topologies(self, pod: PodInfo, taints: Sequence[Taint],
                                requirements: Requirements | None = None,
                                allow_undefined: frozenset[str] = frozenset()) -> list[TopologyGroup]:
        """The groups the pod owns, then the inverse anti-affinities that select it."""
        cached = self._matching.get(pod.uid)
        if cached is None or cached[0] != self._version:
            owned = sorted(self._owned.get(pod.uid, ()), key=lambda tg: self._made[id(tg)])   # (the groups' order)
            # an inverse group's filter is the zero one: it counts every pod it selects
            selecting = [tg for tg in self._inverse_selecting.candidates(pod.labels) if tg.selects(pod)]
            cached = self._matching[pod.uid] = (self._version, owned, selecting)
        return [*cached[1], *cached[2]]

    def hostname_counts(self, pod: PodInfo) -> list[dict[str, int]]:
        """The counts by hostname of the pod anti-affinity groups on the hostname key that
        AddRequirements applies to the pod: a NodeClaim (its one hostname) whose hostname one of
        them counts refuses the pod (nextDomainAntiAffinity's hostname case), for the rest of the
        pass, since counts only grow while it runs."""
        return [tg.domains for tg in self.get_matching_topologies(pod, ())
                if tg.type == TopologyType.POD_ANTI_AFFINITY and tg.key == LABEL_HOSTNAME]

    # -- building groups --------------------------------------------------------------------
    def update_inverse_affinities(self) -> KarpenterError | None:
        """updateInverseAffinities: the required anti-affinity terms of the bound pods."""
        errs: BaseException | None = None
        excluded = self.excluded_pods
        for pod, labels, terms in self._counted.repelling(self.cluster):
            if pod.uid in excluded:
                continue
            err = self.update_inverse_anti_affinity(pod, labels, terms)
            if err is not None:
                errs = multierr_append(errs, wrap("tracking existing pod anti-affinity", err))
        return errs  # type: ignore[return-value]

    def update_inverse_anti_affinity(self, pod: PodInfo, domains: Mapping[str, str] | None,
                                     terms: list[Term] | None = None) -> KarpenterError | None:
        """updateInverseAntiAffinity: a group per required anti-affinity term of the pod (its
        preferred ones are not enforced in reverse), owned by the pod, counting its domain. `terms`: the
        pod's `required_terms`, when read already."""
        self._version += 1
        for term, seen_key in terms if terms is not None else required_terms(pod):
            tg = self.inverse_topology_groups.get(self._inverse_seen.get(seen_key)) if seen_key else None
            if tg is None:
                namespaces, err = self.build_namespace_list(pod.namespace, term.get("namespaces"),
                                                            term.get("namespaceSelector"))
                if err is not None:
                    return err
                key = str(term.get("topologyKey") or "")
                tg = TopologyGroup(TopologyType.POD_ANTI_AFFINITY, key, pod, namespaces, term.get("labelSelector"),
                                   MAX_INT32, None, None, None, self.domain_groups.get(key))
                existing = self.inverse_topology_groups.get(tg.hash())
                if existing is None:
                    self.inverse_topology_groups[tg.hash()] = tg
                    self._inverse_selecting.add(tg, tg.selector)
                else:
                    tg = existing
                if seen_key:
                    self._inverse_seen[seen_key] = tg.hash()
            if domains is not None and tg.key in domains:
                tg.record(domains[tg.key])
            if not tg.is_owned_by(pod.uid):
                self._inverse_owned.setdefault(pod.uid, []).append(tg)
            tg.add_owner(pod.uid)
        return None

    def new_for_topologies(self, pod: PodInfo) -> list[TopologyGroup]:
        """newForTopologies: a group per spread constraint (only DoNotSchedule ones when
        preferences are ignored); matchLabelKeys add `key In [the pod's value]` to the selector."""
        groups = []
        for tsc in pod.spec.get("topologySpreadConstraints") or ():
            if not isinstance(tsc, Mapping):
                continue
            if self.preference_policy == PREFERENCE_POLICY_IGNORE and tsc.get("whenUnsatisfiable") != DO_NOT_SCHEDULE:
                continue
            selector = tsc.get("labelSelector")
            extra = [{"key": key, "operator": "In", "values": [pod.labels[key]]}
                     for key in tsc.get("matchLabelKeys") or () if key in pod.labels]
            if extra:
                selector = dict(selector or {})
                selector["matchExpressions"] = [*(selector.get("matchExpressions") or ()), *extra]
            key = str(tsc.get("topologyKey") or "")
            min_domains = tsc.get("minDomains")
            groups.append(TopologyGroup(TopologyType.SPREAD, key, pod, (pod.namespace,), selector,
                                        _int(tsc.get("maxSkew")), None if min_domains is None else _int(min_domains),
                                        tsc.get("nodeTaintsPolicy"), tsc.get("nodeAffinityPolicy"),
                                        self.domain_groups.get(key)))
        return groups

    def new_for_affinities(self, pod: PodInfo) -> tuple[list[TopologyGroup], KarpenterError | None]:
        """newForAffinities: a group per pod affinity and anti-affinity term, required ones and
        (unless preferences are ignored) preferred ones."""
        affinity = pod.spec.get("affinity")
        if not affinity:
            return [], None
        terms: list[tuple[TopologyType, Mapping[str, Any]]] = []
        for kind, topology_type in (("podAffinity", TopologyType.POD_AFFINITY),
                                    ("podAntiAffinity", TopologyType.POD_ANTI_AFFINITY)):
            block = affinity.get(kind)
            if block is None:
                continue
            for term in block.get("requiredDuringSchedulingIgnoredDuringExecution") or ():
                terms.append((topology_type, term or {}))
            if self.preference_policy == PREFERENCE_POLICY_RESPECT:
                for weighted in block.get("preferredDuringSchedulingIgnoredDuringExecution") or ():
                    terms.append((topology_type, (weighted or {}).get("podAffinityTerm") or {}))
        groups = []
        for topology_type, term in terms:
            namespaces, err = self.build_namespace_list(pod.namespace, term.get("namespaces"),
                                                        term.get("namespaceSelector"))
            if err is not None:
                return [], err
            key = str(term.get("topologyKey") or "")
            groups.append(TopologyGroup(topology_type, key, pod, namespaces, term.get("labelSelector"),
                                        MAX_INT32, None, None, None, self.domain_groups.get(key)))
        return groups, None

    def build_namespace_list(self, namespace: str, namespaces: Sequence[str] | None,
                             selector: Any) -> tuple[frozenset[str], KarpenterError | None]:
        """buildNamespaceList: the pod's namespace when the term names none; else the named ones
        and those (of the cluster's Namespace objects) the selector matches."""
        if not namespaces and selector is None:
            return frozenset([namespace]), None
        if selector is None:
            return frozenset(namespaces or ()), None
        try:
            parsed = parse_selector(selector)
        except SelectorError as err:
            return frozenset(), wrap("parsing selector", GoError(str(err)))
        selected = {name for name, labels in self.namespace_labels().items() if parsed.matches(labels)}
        selected.update(namespaces or ())
        return frozenset(selected), None

    def namespace_labels(self) -> dict[str, dict[str, str]]:
        """The cluster's Namespace objects' labels, by name (read once)."""
        if self._namespaces is None:
            objects = getattr(self.cluster, "objects", None) or {}
            self._namespaces = {name_of(ns): _node_labels(ns) for ns in objects.get("Namespace", ())}
        return self._namespaces

    # -- counting ---------------------------------------------------------------------------
    def _node(self, name: str, node: Mapping[str, Any]) -> tuple[dict[str, str], list[Taint], Requirements]:
        """A node's labels, taints and label requirements, read once."""
        return self._counted.node(name, node)

    def count_domains(self, tg: TopologyGroup) -> None:
        """countDomains: the node domains the group's filter admits, then one count per bound pod it
        selects (a node without hostname label is its own domain; one without the key does not count)."""
        every_node = tg.node_filter.matches_all()
        if every_node:
            tg.register_zeros(*self._state_domains(tg.key))
        else:
            for domain in self._counted.filtered_domains(tg, self.state_nodes, self._held_nodes()):
                tg.register(domain)
        self._counted.counts(tg, self.cluster).record(tg, self.excluded_pods)

    def _held_nodes(self) -> list[Any] | None:
        """The state nodes' Nodes and NodeClaims, in order (None when a state node has no NodeClaim slot)."""
        if self._held is False:
            state_nodes = self.state_nodes
            self._held = [x for n in state_nodes for x in (n.node, n.node_claim)] \
                if all(hasattr(n, "node_claim") for n in state_nodes) else None
        return self._held      # type: ignore[return-value]

    def _state_domains(self, key: str) -> tuple[dict[str, int], set[str]]:
        """The values the state's nodes (with a Node) have for a key, in node order, each zero, and
        their set (read once per key; a simulation's hundreds of groups copy them)."""
        domains = self._state_domains_by_key.get(key)
        if domains is None:
            seen: dict[str, int] = {}
            for n in self.state_nodes:
                if n.node is not None:
                    domain = n.labels().get(key)
                    if domain is not None:
                        seen[domain] = 0
            domains = self._state_domains_by_key[key] = (seen, set(seen))
        return domains


def new_topology(cluster: TopologyCluster, state_nodes: Sequence[StateNodeView],
                 node_pools: Sequence[Any], instance_types: Mapping[str, Sequence[Any]],
                 pods: Sequence[PodInfo], preference_policy: str = PREFERENCE_POLICY_RESPECT
                 ) -> tuple[Topology | None, KarpenterError | None]:
    """NewTopology: the domains NodePools could create, the inverse anti-affinities of the bound
    pods, then each pod's groups (`update`). The pods to schedule are never counted."""
    t = Topology(cluster, state_nodes, build_domain_groups(node_pools, instance_types),
                 (p.uid for p in pods), preference_policy)
    errs: BaseException | None = t.update_inverse_affinities()
    for pod in pods:
        errs = multierr_append(errs, t.update(pod))
    if errs is not None:
        return None, errs  # type: ignore[return-value]
    return t, None

"""One topology Karpenter tracks (controllers/provisioning/scheduling/topologygroup.go): a
topology spread constraint, a pod affinity term or a pod anti-affinity term, with the count of
matching pods per domain of its key, and the pods that own it."""
from __future__ import annotations

from enum import IntEnum
from typing import AbstractSet as Set, Any, Iterable, Mapping, Sequence

from kexplain.apimachinery.labels import LABEL_HOSTNAME
from kexplain.apimachinery.selectors import DOES_NOT_EXIST, IN, requirement_errors
from kexplain.karpenter.provisioning.scheduling.topologydomaingroup import (
    NODE_INCLUSION_POLICY_HONOR, NODE_INCLUSION_POLICY_IGNORE, TopologyDomainGroup,
)
from kexplain.karpenter.provisioning.scheduling.topologynodefilter import (
    TopologyNodeFilter, make_topology_node_filter, odd_set,
)
from kexplain.karpenter.scheduling.requirement import Requirement, new_requirement
from kexplain.karpenter.scheduling.requirements import Requirements
from kexplain.model.labels import NOTHING, LabelSelector, SelectorError, parse_selector

MAX_INT32 = (1 << 31) - 1
LABEL_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


class TopologyType(IntEnum):
    SPREAD = 0
    POD_AFFINITY = 1
    POD_ANTI_AFFINITY = 2

    def __str__(self) -> str:
        return _TYPE_NAMES[self]


_TYPE_NAMES = {TopologyType.SPREAD: "topology spread", TopologyType.POD_AFFINITY: "pod affinity",
               TopologyType.POD_ANTI_AFFINITY: "pod anti-affinity"}


def label_selector_as_selector(raw: Any) -> LabelSelector:
    """metav1.LabelSelectorAsSelector, any error read as labels.Nothing() (null selects nothing)."""
    if raw is None:
        return NOTHING
    if not isinstance(raw, Mapping):
        return NOTHING
    for key, value in (raw.get("matchLabels") or {}).items():
        if requirement_errors(str(key), IN, [str(value)], "matchLabels"):
            return NOTHING
    for expr in raw.get("matchExpressions") or ():
        op = expr.get("operator") if isinstance(expr, Mapping) else None
        if op not in LABEL_SELECTOR_OPERATORS:
            return NOTHING
        if requirement_errors(str(expr.get("key") or ""), op, [str(v) for v in expr.get("values") or ()],
                              "matchExpressions"):
            return NOTHING
    try:
        return parse_selector(raw)
    except SelectorError:
        return NOTHING


def selector_hash_key(raw: Any) -> tuple:
    """hashSelector: the set of expressions (each with its values as a hashstructure set) and
    the matchLabels; a null selector differs from an empty one."""
    if not isinstance(raw, Mapping):
        return ("nil",)
    expressions = frozenset((str(e.get("key") or ""), str(e.get("operator") or ""),
                             odd_set(str(v) for v in e.get("values") or ()))
                            for e in raw.get("matchExpressions") or () if isinstance(e, Mapping))
    labels = frozenset((str(k), str(v)) for k, v in (raw.get("matchLabels") or {}).items())
    return (expressions, labels)


class TopologyGroup:
    """Counts of the pods a selector matches (in the given namespaces) per domain of a key."""

    __slots__ = ("key", "type", "max_skew", "min_domains", "namespaces", "selector", "raw_selector",
                 "node_filter", "owners", "domains", "empty_domains", "_hash", "changes")

    def __init__(self, topology_type: TopologyType, topology_key: str, pod, namespaces: Iterable[str],
                 label_selector: Any, max_skew: int, min_domains: int | None, taint_policy: str | None,
                 affinity_policy: str | None, domain_group: TopologyDomainGroup | None) -> None:
        """NewTopologyGroup: a spread constraint gets its node filter; every group starts with the domains
        NodePools could create for its key, zero each."""
        node_filter = TopologyNodeFilter()
        if topology_type == TopologyType.SPREAD:
            node_filter = make_topology_node_filter(pod, taint_policy or NODE_INCLUSION_POLICY_IGNORE,
                                                    affinity_policy or NODE_INCLUSION_POLICY_HONOR)
        self.type = topology_type
        self.key = topology_key
        self.namespaces = frozenset(namespaces)
        self.selector = label_selector_as_selector(label_selector)
        self.raw_selector = label_selector
        self.node_filter = node_filter
        self.max_skew = max_skew
        self.min_domains = min_domains
        self.domains: dict[str, int] = {}
        self.empty_domains: set[str] = set()
        self.owners: set[str] = set()
        self._hash: tuple | None = None
        # bumped by each change of the counts or domains (all `get` reads of the group): a node the group
        # refused a pod on refuses it again while neither changes (`Scheduler.add_to_existing_node`)
        self.changes = 0
        if domain_group:
            for domain in domain_group.for_each_domain(pod, node_filter.taint_policy):
                self.domains[domain] = 0
                self.empty_domains.add(domain)

    def __repr__(self) -> str:
        return f"TopologyGroup({self.type}, key={self.key}, domains={self.domains})"

    # -- identity and owners ------------------------------------------------------------------
    def hash(self) -> tuple:
        """Hash: the identity a pod's group is merged by (minDomains is not part of it)."""
        if self._hash is None:
            self._hash = (self.key, int(self.type), self.namespaces, self.max_skew,
                          self.node_filter.hash_key(), selector_hash_key(self.raw_selector))
        return self._hash

    def add_owner(self, uid: str) -> None:
        self.owners.add(uid)

    def remove_owner(self, uid: str) -> None:
        self.owners.discard(uid)

    def is_owned_by(self, uid: str) -> bool:
        return uid in self.owners

    # -- counts -------------------------------------------------------------------------------
    def record(self, *domains: str) -> None:
        self.changes += 1
        for domain in domains:
            self.domains[domain] = self.domains.get(domain, 0) + 1
            self.empty_domains.discard(domain)

    def record_counts(self, counts: Mapping[str, int], less: Mapping[str, int]) -> None:
        """`record` of each domain of `counts` its count less `less`'s times, at once: a domain left with
        no pod is not added, a new one is added in the order of `counts` (its first pod's)."""
        self.changes += 1
        known, empty = self.domains, self.empty_domains
        for domain, count in counts.items():
            if less:
                count -= less.get(domain, 0)
            if count > 0:
                known[domain] = known.get(domain, 0) + count
                empty.discard(domain)

    def register(self, *domains: str) -> None:
        """Make the domains known, with no pods."""
        self.register_zeros(dict.fromkeys(domains, 0))

    def register_zeros(self, zeros: Mapping[str, int], distinct: Set[str] | None = None) -> None:
        """`register(*zeros)`, `zeros` being the domains each mapped to zero and `distinct` their set (made
        here when not given, and read only when no domain is known): a group's first registration copies
        them whole (a tenth of adding them one by one); a group that knows a few adds the others at once, in
        their order, and its empty ones one by one, as `add` would (the set's order is theirs)."""
        self.changes += 1
        known = self.domains
        if not known:
            known.update(zeros)
            self.empty_domains.update(distinct if distinct is not None else frozenset(zeros))
            return
        if len(known) < len(zeros):
            fresh = dict(zeros)
            for domain in known:
                fresh.pop(domain, None)
            known.update(fresh)
            self.empty_domains.update(iter(fresh))
            return
        for domain in zeros:
            if domain not in known:
                known[domain] = 0
                self.empty_domains.add(domain)

    def register_known(self, domains: Sequence[str], distinct: Set[str], zeros: Mapping[str, int] | None = None
                       ) -> None:
        """`register(*domains)`, `distinct` being their set and `zeros` (when made already) each mapped to
        zero: nothing when each is known already (a simulation's existing nodes' hostnames, which the
        group's first count registered)."""
        if not self.domains.keys() >= distinct:
            self.register_zeros(zeros if zeros is not None else dict.fromkeys(domains, 0), distinct)

    def counts(self, pod, taints, requirements: Requirements, allow_undefined: frozenset[str] = frozenset()) -> bool:
        """Whether the pod counts here if it lands on a node with these taints and requirements."""
        return self.selects(pod) and self.node_filter.matches(taints, requirements, allow_undefined)

    def selects(self, pod) -> bool:
        return pod.namespace in self.namespaces and self.selector.matches(pod.labels)

    # -- the next domain ----------------------------------------------------------------------
    def get(self, pod, pod_domains: Requirement, node_domains: Requirement) -> tuple[Requirement, set[str]]:
        """The domains the pod may go to under this topology, as a requirement on the key, and
        (for spread) every domain within the skew."""
        if self.type == TopologyType.SPREAD:
            return self.next_domain_topology_spread(pod, pod_domains, node_domains)
        if self.type == TopologyType.POD_AFFINITY:
            req = self.next_domain_affinity(pod, pod_domains, node_domains)
        else:
            req = self.next_domain_anti_affinity(pod_domains, node_domains)
        return req, set(req.value_set)

    def next_domain_topology_spread(self, pod, pod_domains: Requirement,
                                    node_domains: Requirement) -> tuple[Requirement, set[str]]:
        """The least-loaded domain the node allows that stays within maxSkew of the global
        minimum (over the pod's domains), or DoesNotExist when none does."""
        minimum = self.domain_min_count(pod_domains)
        self_selecting = self.selects(pod)
        min_domain, min_count = "", MAX_INT32
        valid: set[str] = set()
        # A new NodeClaim's hostname is not registered until it is added: Karpenter can always
        # make a new hostname, so the minimum is zero and the count is the node's own.
        if self.key == LABEL_HOSTNAME and len(node_domains.value_set) == 1:
            (host,) = node_domains.value_set
            count = self.domains.get(host, 0) + (1 if self_selecting else 0)
            if count <= self.max_skew:
                valid.add(host)
                return new_requirement(self.key, IN, host), valid
            return new_requirement(self.key, DOES_NOT_EXIST), valid
        candidates = node_domains.values() if node_domains.operator() == IN else sorted(self.domains)
        for domain in candidates:
            if domain not in self.domains or (node_domains.operator() != IN and not node_domains.has(domain)):
                continue
            count = self.domains[domain] + (1 if self_selecting else 0)
            if count - minimum <= self.max_skew:
                valid.add(domain)
                if count < min_count:
                    min_domain, min_count = domain, count
        if min_domain == "":
            return new_requirement(self.key, DOES_NOT_EXIST), valid
        return new_requirement(self.key, IN, min_domain), valid

    def domain_min_count(self, domains: Requirement) -> int:
        """The least count over the pod's domains (MaxInt32 when it has none); zero for the
        hostname key, or when fewer domains than minDomains are known."""
        if self.key == LABEL_HOSTNAME:
            return 0
        minimum = MAX_INT32
        supported = 0
        for domain, count in self.domains.items():
            if domains.has(domain):
                supported += 1
                if count < minimum:
                    minimum = count
        if self.min_domains is not None and supported < self.min_domains:
            minimum = 0
        return minimum

    def next_domain_affinity(self, pod, pod_domains: Requirement, node_domains: Requirement) -> Requirement:
        """The domains with a matching pod that the pod and the node allow; when the pod selects
        itself and no allowed domain has one yet, a domain to start in."""
        options = new_requirement(self.key, DOES_NOT_EXIST)
        if self.key == LABEL_HOSTNAME and len(node_domains.value_set) == 1:
            (host,) = node_domains.value_set
            if not pod_domains.has(host):
                return options
            if self.domains.get(host, 0) > 0:
                options.insert(host)
                return options
            if self.selects(pod) and (len(self.domains) == len(self.empty_domains)
                                      or not self.any_compatible_pod_domain(pod_domains)):
                options.insert(host)
            return options
        if node_domains.operator() == IN:
            for domain in node_domains.values():
                if pod_domains.has(domain) and self.domains.get(domain, 0) > 0:
                    options.insert(domain)
        else:
            for domain in sorted(self.domains):
                if pod_domains.has(domain) and self.domains[domain] > 0 and node_domains.has(domain):
                    options.insert(domain)
        if options.len() != 0:
            return options
        if self.selects(pod) and (len(self.domains) == len(self.empty_domains)
                                  or not self.any_compatible_pod_domain(pod_domains)):
            # Bootstrap: a domain both the pod and the node allow (an in-flight node's own), and
            # a domain the pod allows; Go takes each from a map, here the first by name.
            intersected = pod_domains.intersection(node_domains)
            ordered = sorted(self.domains)
            for domain in ordered:
                if intersected.has(domain):
                    options.insert(domain)
                    break
            for domain in ordered:
                if pod_domains.has(domain):
                    options.insert(domain)
                    break
        return options

    def any_compatible_pod_domain(self, pod_domains: Requirement) -> bool:
        """Whether some domain the pod allows already has a matching pod."""
        return any(pod_domains.has(d) and c > 0 for d, c in self.domains.items())

    def next_domain_anti_affinity(self, pod_domains: Requirement, node_domains: Requirement) -> Requirement:
        """Every empty domain (no matching pod) that the pod and the node allow."""
        options = new_requirement(self.key, DOES_NOT_EXIST)
        if self.key == LABEL_HOSTNAME and len(node_domains.value_set) == 1:
            (host,) = node_domains.value_set
            if self.domains.get(host, 0) == 0:
                options.insert(host)
            return options
        if node_domains.operator() == IN and node_domains.len() < len(self.empty_domains):
            for domain in node_domains.value_set:
                if domain in self.empty_domains and pod_domains.has(domain):
                    options.insert(domain)
        else:
            for domain in self.empty_domains:
                if node_domains.has(domain) and pod_domains.has(domain):
                    options.insert(domain)
        return options

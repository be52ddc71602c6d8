"""The snapshot's bound pods by namespace and, on demand, by label value, so affinity terms and spread
selectors meet the few candidate pods a label narrows them to; the per-node/per-domain tallies
(`Tally`) are patched by each bind, so the copies of a pod do not count the cluster's pods again.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterable, Mapping

from kexplain.model.labels import IN, LabelSelector
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import AffinityTerm, PodInfo, lazy
from kexplain.model.prefix import Prefix
from kexplain.model.stored_nodes import listed_index

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.snapshot import Snapshot

POD_INDEX_KEY = "pods-by-label"
PodOnNode = tuple[PodInfo, Node]
# The incoming pod's namespace selectors are resolved, so its terms are matched without labels.
NO_LABELS: Mapping[str, str] = {}
MAX_TALLIES = 256       # per snapshot; the least recently used goes first


class PodGroup:
    """Bound pods sharing a namespace (and maybe a label value), with their count per node
    (counted on first use)."""

    __slots__ = ("entries", "_per_node")

    def __init__(self, entries: Prefix[PodOnNode]) -> None:
        self.entries = entries
        self._per_node: list[tuple[Node, int]] | None = None

    def per_node(self) -> list[tuple[Node, int]]:
        if self._per_node is None:
            counts: dict[int, list] = {}
            for _, node in self.entries:
                _bump(counts, node, 1)
            self._per_node = [(node, n) for node, n in counts.values()]
        return self._per_node


def _bump(counts: dict[int, list], node: Node, n: int) -> None:
    entry = counts.get(id(node))
    if entry is None:
        counts[id(node)] = [node, n]
    else:
        entry[1] += n


class Tally:
    """Something counted over the bound pods for an incoming pod, followed through binds; never changed:
    `with_pod` shares what one more pod does not change."""

    __slots__ = ()

    def with_pod(self, pod: PodInfo, node: Node) -> "Tally | None":
        """This tally with `pod` bound to `node` counted in; None when `pod` does not count."""
        raise NotImplementedError


def spread_counts(pod: PodInfo, namespace: str, selector: LabelSelector) -> bool:
    """Whether topology spread counts `pod` for a selector of `namespace`: a pod of that
    namespace the selector matches, not terminating."""
    return pod.namespace == namespace and pod.deletion_timestamp is None and selector.matches(pod.labels)


class NodeCounts(Tally):
    """Per node name, the bound pods of a namespace a selector matches, terminating pods left
    out (how topology spread counts)."""

    __slots__ = ("namespace", "selector", "counts")

    def __init__(self, namespace: str, selector: LabelSelector, counts: dict[str, int]) -> None:
        self.namespace, self.selector, self.counts = namespace, selector, counts

    def with_pod(self, pod: PodInfo, node: Node) -> "NodeCounts | None":
        if not spread_counts(pod, self.namespace, self.selector):
            return None
        counts = dict(self.counts)
        counts[node.name] = counts.get(node.name, 0) + 1
        return NodeCounts(self.namespace, self.selector, counts)


class DomainCounts(Tally):
    """Per domain of `of_node`, the namespace's bound pods a selector matches, from 0 for every domain;
    terminating pods left out."""

    __slots__ = ("namespace", "selector", "of_node", "counts")

    def __init__(self, namespace: str, selector: LabelSelector, of_node: Mapping[str, str],
                 counts: dict[str, int]) -> None:
        self.namespace, self.selector, self.of_node, self.counts = namespace, selector, of_node, counts

    def with_pod(self, pod: PodInfo, node: Node) -> "DomainCounts | None":
        value = self.of_node.get(node.name)
        if value is None or not spread_counts(pod, self.namespace, self.selector):
            return None
        counts = dict(self.counts)
        counts[value] = counts.get(value, 0) + 1
        return DomainCounts(self.namespace, self.selector, self.of_node, counts)


class PodIndex:
    """The bound pods by namespace, with per-label sub-indexes built on demand and tallies followed
    through binds."""

    def __init__(self, snapshot: Snapshot) -> None:
        self._later = snapshot.index_later()     # (not the snapshot, which holds this index)
        if self._later is None:
            self.by_namespace = self._groups_of(snapshot.pods_by_namespace)
        self._by_label: dict[tuple[str, str], dict[str, PodGroup]] = {}
        self._tallies: dict[Hashable, Tally] = {}
        # what is worked out of the pods alone, shared with the indexes of snapshots of the same pods (None
        # after a bind: its own pods)
        self._shared: dict[Hashable, Any] | None = snapshot.pod_caches

    @lazy
    def by_namespace(self) -> dict[str, PodGroup]:
        """The namespace index of a build's stored pods as groups, made on first read: a tally that counts no
        bound pod (no existing pod with required anti-affinity) never reads it, nor makes their `PodInfo`s."""
        assert self._later is not None
        return self._groups_of(listed_index(*self._later))

    @staticmethod
    def _groups_of(index: Mapping[str, Prefix[PodOnNode]]) -> dict[str, PodGroup]:
        return {namespace: PodGroup(entries) for namespace, entries in index.items()}

    def after_bind(self, snapshot: "Snapshot", pod: PodInfo, node: Node) -> "PodIndex":
        """This index with `pod` bound to `node`: its groups grow (shared `Prefix`), everything else is shared,
        each tally counts it in."""
        out = PodIndex.__new__(PodIndex)
        out._later = None
        out.by_namespace = dict(self.by_namespace)
        out.by_namespace[pod.namespace] = PodGroup(snapshot.pods_by_namespace[pod.namespace])
        out._by_label = {}
        entry = (pod, node)
        for (namespace, key), idx in self._by_label.items():
            value = pod.labels.get(key) if namespace == pod.namespace else None
            if value is not None:
                idx = dict(idx)
                old = idx.get(value)
                idx[value] = PodGroup(old.entries.appended(entry) if old is not None else Prefix((entry,)))
            out._by_label[(namespace, key)] = idx
        out._tallies = {key: t.with_pod(pod, node) or t for key, t in self._tallies.items()}
        out._shared = None
        return out

    # -- tallies ----------------------------------------------------------------------------
    def tally(self, key: Hashable, build: Callable[[], Tally], valid: Callable[[Tally], bool] | None = None) -> Tally:
        """The tally kept under `key`, made by `build` when there is none (or when `valid`
        refuses the one kept). Kept for the MAX_TALLIES most recently used keys."""
        tallies = self._tallies
        got = tallies.pop(key, None)            # put back last: the most recently used
        if got is None or (valid is not None and not valid(got)):
            got = build()
            while len(tallies) >= MAX_TALLIES:
                del tallies[next(iter(tallies))]
        tallies[key] = got
        return got

    def node_counts(self, namespace: str, selector: LabelSelector) -> NodeCounts:
        """Per node name, the bound pods of `namespace` the selector matches, terminating pods
        left out (a tally: read it, never change it)."""
        key = ("node-counts", namespace, selector)
        return self.tally(key, lambda: self._shared_or(
            key, lambda: NodeCounts(namespace, selector, self.count_per_node(namespace, selector))))

    def _shared_or(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """What `build` makes of the pods alone, kept for (and taken from) the indexes of the same pods;
        the MAX_TALLIES last made."""
        shared = self._shared
        if shared is None:
            return build()
        got = shared.get(key)
        if got is None:
            got = build()
            while len(shared) >= MAX_TALLIES:
                del shared[next(iter(shared))]
            shared[key] = got
        return got

    def domain_counts(self, namespace: str, selector: LabelSelector, of_node: Mapping[str, str],
                      zero: Mapping[str, int]) -> dict[str, int]:
        """The `DomainCounts` of `namespace`'s pods a selector matches (a tally: never change it); `of_node`
        is told apart by identity, so pass the snapshot's."""
        def build() -> Tally:
            nodes = self.node_counts(namespace, selector)
            counts = dict(zero)
            for name, n in nodes.counts.items():
                value = of_node.get(name)
                if value is not None:
                    counts[value] = counts.get(value, 0) + n
            return DomainCounts(namespace, selector, of_node, counts)
        got = self.tally(("domain-counts", namespace, selector, id(of_node)), build,
                         lambda t: isinstance(t, DomainCounts) and t.of_node is of_node)
        assert isinstance(got, DomainCounts)
        return got.counts

    # -- counting from scratch -----------------------------------------------------------------
    def _label_index(self, namespace: str, key: str) -> dict[str, PodGroup]:
        idx = self._by_label.get((namespace, key))
        if idx is None:
            idx = self._by_label[(namespace, key)] = self._shared_or(
                ("by-label", namespace, key), lambda: self._new_label_index(namespace, key))
        return idx

    def _new_label_index(self, namespace: str, key: str) -> dict[str, PodGroup]:
        """The namespace's pods per value of label `key`, in the namespace index's order."""
        lists: dict[str, list[PodOnNode]] = {}
        group = self.by_namespace.get(namespace)
        for entry in group.entries if group else ():
            value = entry[0].labels.get(key)
            if value is not None:
                members = lists.get(value)
                if members is None:
                    lists[value] = [entry]
                else:
                    members.append(entry)
        return {value: PodGroup(Prefix(members)) for value, members in lists.items()}

    def _groups(self, namespace: str, selector: LabelSelector) -> tuple[list[PodGroup], bool]:
        """Groups holding every pod of `namespace` the selector may match, and whether all of
        their pods do match it (no need to check each pod)."""
        if selector.nothing:
            return [], True
        narrowing = [r for r in selector.requirements if r.op == IN]
        if not narrowing:
            group = self.by_namespace.get(namespace)
            return ([group] if group else []), selector.everything
        req = min(narrowing, key=lambda r: len(r.values))
        idx = self._label_index(namespace, req.key)
        # a pod has one value per key: the groups are disjoint
        return [idx[v] for v in req.values if v in idx], len(selector.requirements) == 1

    def matches_per_node(self, terms: tuple[AffinityTerm, ...]) -> list[tuple[Node, int]]:
        """Per node, how many bound pods match every resolved term, drawn from the first term's namespaces and
        label index."""
        first, rest = terms[0], terms[1:]
        namespaces: Iterable[str] = self.by_namespace if first.namespace_selector.everything else first.namespaces
        counts: dict[int, list] = {}
        for ns in namespaces:
            groups, exact = self._groups(ns, first.selector)
            for group in groups:
                if exact and not rest:
                    for node, n in group.per_node():
                        _bump(counts, node, n)
                    continue
                for existing, node in group.entries:
                    if (exact or first.selector.matches(existing.labels)) and \
                            all(t.matches(existing, NO_LABELS) for t in rest):
                        _bump(counts, node, 1)
        return [(node, n) for node, n in counts.values()]

    def count_per_node(self, namespace: str, selector: LabelSelector) -> dict[str, int]:
        """Per node name, the bound pods of `namespace` the selector matches, terminating pods
        left out (how topology spread counts), counted now (`node_counts` keeps it)."""
        counts: dict[str, int] = {}
        groups, exact = self._groups(namespace, selector)
        for group in groups:
            for p, node in group.entries:
                if p.deletion_timestamp is None and (exact or selector.matches(p.labels)):
                    counts[node.name] = counts.get(node.name, 0) + 1
        return counts


def pod_index(snapshot: Snapshot) -> PodIndex:
    """The snapshot's index, built on first use and shared by the plugins of a cycle."""
    return snapshot.cached(POD_INDEX_KEY, lambda: PodIndex(snapshot), _index_after_bind)


def _index_after_bind(old: PodIndex, new: "Snapshot", pod: PodInfo, before: NodeInfo, after: NodeInfo) -> PodIndex:
    return old.after_bind(new, pod, after.node)

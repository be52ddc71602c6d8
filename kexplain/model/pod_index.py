"""The snapshot's bound pods by namespace and, built on demand, by label value: pod
(anti-)affinity terms and spread selectors are matched against the few candidate pods a
label narrows them to, instead of every pod of the cluster."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping

from kexplain.model.labels import IN, LabelSelector
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import AffinityTerm, PodInfo

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.snapshot import Snapshot

POD_INDEX_KEY = "pods-by-label"
PodOnNode = tuple[PodInfo, Node]
# The incoming pod's namespace selectors are resolved, so its terms are matched without labels.
NO_LABELS: Mapping[str, str] = {}


class PodGroup:
    """Bound pods sharing a namespace (and maybe a label value), with their count per node."""

    __slots__ = ("entries", "_per_node")

    def __init__(self) -> None:
        self.entries: list[PodOnNode] = []
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


class PodIndex:
    """The snapshot's bound pods by namespace, with per-label sub-indexes built on demand, so
    the incoming pod's terms are matched against candidate pods instead of every pod."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.by_namespace: dict[str, PodGroup] = {}
        for namespace, entries in snapshot.pods_by_namespace.items():
            group = self.by_namespace[namespace] = PodGroup()
            group.entries = entries        # shared with the snapshot's index: never appended to
        self._by_label: dict[tuple[str, str], dict[str, PodGroup]] = {}

    def after_bind(self, snapshot: "Snapshot", pod: PodInfo, node: Node) -> "PodIndex":
        """The index of `snapshot`, made from this one's by binding `pod` to `node`: the groups
        the pod joins are copied with it appended (as the snapshot's own index appends it), every
        other group and label index is shared (none is changed once built)."""
        out = PodIndex.__new__(PodIndex)
        out.by_namespace = dict(self.by_namespace)
        group = out.by_namespace[pod.namespace] = PodGroup()
        group.entries = snapshot.pods_by_namespace[pod.namespace]
        out._by_label = {}
        entry = (pod, node)
        for (namespace, key), idx in self._by_label.items():
            value = pod.labels.get(key) if namespace == pod.namespace else None
            if value is not None:
                idx = dict(idx)
                grown = PodGroup()
                old = idx.get(value)
                grown.entries = [*old.entries, entry] if old is not None else [entry]
                idx[value] = grown
            out._by_label[(namespace, key)] = idx
        return out

    def _label_index(self, namespace: str, key: str) -> dict[str, PodGroup]:
        idx = self._by_label.get((namespace, key))
        if idx is None:
            idx = {}
            group = self.by_namespace.get(namespace)
            for entry in group.entries if group else ():
                value = entry[0].labels.get(key)
                if value is not None:
                    idx.setdefault(value, PodGroup()).entries.append(entry)
            self._by_label[(namespace, key)] = idx
        return idx

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
        """Per node, how many bound pods match every one of the resolved `terms` (when any).
        Pods are drawn from the first term's namespaces and label index; the other terms
        are matched in full."""
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
        left out (how topology spread counts)."""
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

"""The existing pods with pod (anti-)affinity grouped by their term tuples (a workload's pods share them:
`model.pod._terms`), with how many pods of each group run in each topology domain. What InterPodAffinity
counts of the existing pods' terms for an incoming pod depends only on those tuples, so it is worked out
once per group and multiplied by the group's counts, instead of once per existing pod."""
from __future__ import annotations

from typing import Callable, Iterable, Mapping

from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import AffinityTerm, PodInfo
from kexplain.model.pod_index import Tally, pod_index
from kexplain.model.snapshot import Snapshot

DomainCounts = dict[str, dict[str, int]]        # topology key -> node label value -> pods
TermLists = tuple[tuple[AffinityTerm, ...], ...]
GroupKey = tuple[int, ...]                      # the identities of a pod's term tuples


class TermGroup:
    """Pods whose term tuples are the very same objects (`pod`: the first of them, which keeps the tuples
    alive, so their identities name no other group), counted per domain of every topology key their
    terms name. Never changed once built: `with_node` makes a copy."""

    __slots__ = ("pod", "keys", "counts")

    def __init__(self, pod: PodInfo, keys: tuple[str, ...], counts: DomainCounts) -> None:
        self.pod, self.keys, self.counts = pod, keys, counts

    def count(self, labels: Mapping[str, str], n: int = 1) -> None:
        """`n` more pods on a node with `labels` (in place: while the group is built)."""
        counts = self.counts
        for key in self.keys:
            value = labels.get(key)
            if value is not None:
                by_value = counts.get(key)
                if by_value is None:
                    by_value = counts[key] = {}
                by_value[value] = by_value.get(value, 0) + n

    def with_node(self, labels: Mapping[str, str]) -> "TermGroup | None":
        """A copy with one more pod on a node with `labels`; None when the node has none of the keys."""
        keys = [key for key in self.keys if key in labels]
        if not keys:
            return None
        counts = dict(self.counts)
        for key in keys:
            counts[key] = dict(counts.get(key, ()))
        out = TermGroup(self.pod, self.keys, counts)
        out.count(labels)
        return out


class TermGroups(Tally):
    """The snapshot's existing pods of one kind (`terms_of` names their term tuples) by `TermGroup`,
    in the order a group's first pod comes in the cluster's nodes; followed through binds."""

    __slots__ = ("groups",)

    def __init__(self, groups: dict[GroupKey, TermGroup]) -> None:
        self.groups = groups

    @staticmethod
    def terms_of(pod: PodInfo) -> TermLists:
        raise NotImplementedError

    @staticmethod
    def member(pod: PodInfo) -> bool:
        """Whether a bound pod is one of the kind (a NodeInfo's list of them holds it)."""
        raise NotImplementedError

    @classmethod
    def build(cls, nodes: Iterable[NodeInfo], pods_of: Callable[[NodeInfo], Iterable[PodInfo]]) -> "TermGroups":
        """The groups of the pods `pods_of` gives on `nodes` (each node's pods tallied per group first)."""
        groups: dict[GroupKey, TermGroup] = {}
        of_facts: dict[int, TermGroup] = {}         # the pods sharing their facts share their term tuples
        for ni in nodes:
            labels = ni.node.labels
            if not labels:
                continue            # (a pod there is in no domain)
            on_node: dict[int, list] = {}
            for pod in pods_of(ni):
                group = of_facts.get(id(pod.facts))
                if group is None:
                    group = of_facts[id(pod.facts)] = cls._group_of(groups, pod)
                entry = on_node.get(id(group))
                if entry is None:
                    on_node[id(group)] = [group, 1]
                else:
                    entry[1] += 1
            for group, n in on_node.values():
                group.count(labels, n)
        return cls({key: group for key, group in groups.items() if group.counts})     # (as binds leave them)

    @classmethod
    def _group_of(cls, groups: dict[GroupKey, TermGroup], pod: PodInfo) -> TermGroup:
        lists = cls.terms_of(pod)
        key = tuple(map(id, lists))
        group = groups.get(key)
        if group is None:
            group = groups[key] = TermGroup(pod, _topology_keys(lists), {})
        return group

    def with_pod(self, pod: PodInfo, node: Node) -> "TermGroups | None":
        if not node.labels or not self.member(pod):
            return None
        lists = self.terms_of(pod)
        key = tuple(map(id, lists))
        group = self.groups.get(key)
        if group is None:
            group = TermGroup(pod, _topology_keys(lists), {})
        changed = group.with_node(node.labels)
        if changed is None:
            return None
        groups = dict(self.groups)
        groups[key] = changed
        return type(self)(groups)


def _topology_keys(lists: TermLists) -> tuple[str, ...]:
    return tuple(dict.fromkeys(t.topology_key for terms in lists for t in terms))


class AffinityGroups(TermGroups):
    """Pods with pod affinity or anti-affinity (`NodeInfo.pods_with_affinity`), by the terms that add to an
    incoming pod's score: required affinity, preferred affinity, preferred anti-affinity."""

    __slots__ = ()

    @staticmethod
    def terms_of(pod: PodInfo) -> TermLists:
        return pod.required_affinity_terms, pod.preferred_affinity_terms, pod.preferred_anti_affinity_terms

    @staticmethod
    def member(pod: PodInfo) -> bool:
        return pod.has_affinity


class AntiAffinityGroups(TermGroups):
    """Pods with required anti-affinity (`NodeInfo.pods_with_required_anti_affinity`), by those terms."""

    __slots__ = ()

    @staticmethod
    def terms_of(pod: PodInfo) -> TermLists:
        return (pod.required_anti_affinity_terms,)

    @staticmethod
    def member(pod: PodInfo) -> bool:
        return pod.has_required_anti_affinity


def affinity_groups(snapshot: Snapshot) -> AffinityGroups:
    """The snapshot's `AffinityGroups`, kept on its pod index (made once, patched by binds)."""
    got = pod_index(snapshot).tally(("ipa/affinity-groups",), lambda: AffinityGroups.build(
        snapshot.have_pods_with_affinity, lambda ni: ni.pods_with_affinity))
    assert isinstance(got, AffinityGroups)
    return got


def anti_affinity_groups(snapshot: Snapshot) -> AntiAffinityGroups:
    """The snapshot's `AntiAffinityGroups`, kept on its pod index (made once, patched by binds)."""
    got = pod_index(snapshot).tally(("ipa/anti-affinity-groups",), lambda: AntiAffinityGroups.build(
        snapshot.have_pods_with_required_anti_affinity, lambda ni: ni.pods_with_required_anti_affinity))
    assert isinstance(got, AntiAffinityGroups)
    return got

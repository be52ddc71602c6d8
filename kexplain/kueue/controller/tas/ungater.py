"""Kueue's topology ungater (pkg/controller/tas/topology_ungater.go): which assigned domain each
gated pod of a pod set admitted by TAS is given (its node selector gets the domain's labels).

By rank when the pod set's topology request names a pod index label and every pod's ranks read
(readRanksForLabels: the index, less the pod set's offset, plus the sub-group's index times the
pods per sub-group, each below the pod set's count and none twice): rank r goes to the domain the
r-th pod of the assignment falls in (rankToDomainID, the domains in order). Otherwise greedily:
the pods in order fill each domain up to its count. Pod sets of one group (`podSetGroupName`) are
ranked on together: the smaller's ranks first, the larger's after them (rank offsets)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kexplain.kueue.apis.topology import IndexLabels, TopologyAssignment

POD_INDEX_OFFSET = "kueue.x-k8s.io/pod-index-offset"      # kueue.PodIndexOffsetAnnotation
GATE = "kueue.x-k8s.io/topology"        # kueue.TopologySchedulingGate
_ATOI = re.compile(r"[+-]?[0-9]+")        # what strconv.Atoi reads


@dataclass(frozen=True)
class Ranks:
    """A pod set's rank offset and the bound of its pods' indexes (rankOffsets, maxRank)."""

    offset: int
    bound: int


def rank_offsets(assignments: Sequence[tuple[str, int, str | None]]) -> dict[str, Ranks]:
    """Per pod set (name, count, its request's group name), its Ranks: a group of two ranks the
    smaller first (its offset 0), the larger after it; any other pod set alone."""
    groups: dict[str, list[tuple[str, int]]] = {}
    for i, (name, count, group) in enumerate(assignments):
        groups.setdefault(group if group is not None else str(i), []).append((name, count))
    out: dict[str, Ranks] = {}
    for members in groups.values():
        if len(members) > 1:
            small, large = members[0], members[1]
            if small[1] > large[1]:
                small, large = large, small
            out[small[0]] = Ranks(0, small[1])
            out[large[0]] = Ranks(small[1], large[1] + small[1])
        else:
            out[members[0][0]] = Ranks(0, members[0][1])
    return out


def with_pod_offset(ranks: Ranks, pods: Sequence[Mapping[str, Any]]) -> Ranks | None:
    """The first pod's `kueue.x-k8s.io/pod-index-offset` annotation added to both (a LeaderWorkerSet's
    workers, whose indexes start after the leader's); None when it is no integer (the ungater stops
    with errParseOffsetAnnotation, the pods stay gated)."""
    if not pods:
        return ranks
    value = _meta(pods[0], "annotations").get(POD_INDEX_OFFSET)
    if value is None:
        return ranks
    if not isinstance(value, str) or not _ATOI.fullmatch(value):
        return None
    return Ranks(ranks.offset + int(value), ranks.bound + int(value))


def _meta(pod: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    meta = pod.get("metadata")
    value = meta.get(key) if isinstance(meta, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def _uint_below(pod: Mapping[str, Any], label: str, bound: int) -> int | None:
    """ReadUIntFromLabelBelowBound: the label's unsigned value below `bound`, None when not."""
    value = _meta(pod, "labels").get(label)
    if not isinstance(value, str) or not value.isdigit() or not value.isascii():
        return None
    number = int(value)
    return number if number < bound else None


def read_ranks(pods: Sequence[Mapping[str, Any]], count: int, index: IndexLabels, ranks: Ranks) -> list[int] | None:
    """readRanksForLabels: each pod's rank, in the order of `pods`; None when ranks cannot be used."""
    if index.pod_index is None:
        return None
    per_group = count
    if index.sub_group is not None:
        if index.sub_group_count is None or index.sub_group_count <= 0:
            return None
        per_group = count // index.sub_group_count
    out: list[int] = []
    for pod in pods:
        at = _uint_below(pod, index.pod_index, ranks.bound)
        if at is None:
            return None
        rank = at - ranks.offset
        if index.sub_group is not None:
            job = _uint_below(pod, index.sub_group, index.sub_group_count or 0)
            if job is None or at >= per_group:
                return None
            rank = at + job * per_group - ranks.offset
        if rank >= count or rank < 0 or rank in out:
            return None
        out.append(rank)
    return out


def rank_to_domain(assignment: TopologyAssignment) -> list[tuple[str, ...]]:
    """rankToDomainID: the domain of each pod of the assignment, the domains in order."""
    return [d.values for d in assignment.domains for _ in range(d.count)]


def greedy(pods: int, assignment: TopologyAssignment) -> list[tuple[str, ...]]:
    """assignGatedPodsToDomainsGreedy (every pod gated): the pods in order fill each domain."""
    out = rank_to_domain(assignment)
    return out[:pods]


def domains_of(pods: Sequence[Mapping[str, Any]], assignment: TopologyAssignment, count: int,
               index: IndexLabels | None, ranks: Ranks) -> list[dict[str, str]]:
    """The node labels the ungater gives each of `pods` (gated, in order; a pod given no domain: {})."""
    offset = with_pod_offset(ranks, pods)
    if offset is None:
        return [{} for _ in pods]
    by_rank = rank_to_domain(assignment)
    ranked = read_ranks(pods, count, index, offset) if index is not None else None
    if ranked is not None and all(r < len(by_rank) for r in ranked):
        values = [by_rank[r] for r in ranked]
    else:
        values = greedy(len(pods), assignment)
    labels = [dict(zip(assignment.levels, v)) for v in values]
    return labels + [{} for _ in range(len(pods) - len(labels))]


def ungated(pods: list[dict[str, Any]], assignment: TopologyAssignment, count: int, index: IndexLabels | None,
            ranks: Ranks) -> list[dict[str, Any]]:
    """`pods` (in place) as the ungater leaves them: the topology gate removed and its domain's labels
    in the node selector of each pod given one."""
    for pod, labels in zip(pods, domains_of(pods, assignment, count, index, ranks)):
        if labels:
            pod["spec"] = ungate(pod, labels)["spec"]
    return pods


def _selector_values(pod: Mapping[str, Any], levels: Sequence[str]) -> tuple[str, ...]:
    """utiltas.LevelValues of the pod's node selector: the domain an ungated pod was given."""
    spec = pod.get("spec")
    selector = spec.get("nodeSelector") if isinstance(spec, Mapping) else None
    selector = selector if isinstance(selector, Mapping) else {}
    return tuple(str(selector.get(level, "")) for level in levels)


def gated(pod: Mapping[str, Any]) -> bool:
    """Whether the pod still carries the topology scheduling gate (utilpod.HasGate)."""
    spec = pod.get("spec")
    gates = spec.get("schedulingGates") if isinstance(spec, Mapping) else None
    return any(isinstance(g, Mapping) and g.get("name") == GATE for g in gates or ())


@dataclass(frozen=True)
class Given:
    """The ungater's pass over a pod set's pods (gated and not): each pod's domain's node labels
    ({} for a pod it does not ungate), and `by` "rank" (the index labels) or "order" (greedily)."""

    labels: tuple[dict[str, str], ...]
    by: str


def assign(pods: Sequence[Mapping[str, Any]], assignment: TopologyAssignment, count: int, index: IndexLabels | None,
           ranks: Ranks) -> Given:
    """assignGatedPodsToDomains over ALL the pod set's pods not terminated, as the ungater lists them:
    by rank when every pod's ranks read, each below the assignment's size and each pod already
    ungated in its rank's domain (its node selector); else greedily, each domain first counting the
    pods already ungated in it (by their node selectors) and the gated ones, in order, filling the rest."""
    offset = with_pod_offset(ranks, pods)
    if offset is None:      # (errParseOffsetAnnotation: nothing ungated)
        return Given(tuple({} for _ in pods), "order")
    by_rank = rank_to_domain(assignment)
    ranked = read_ranks(pods, count, index, offset) if index is not None else None
    if ranked is not None and all(r < len(by_rank) for r in ranked) and all(
            gated(p) or _selector_values(p, assignment.levels) == by_rank[r] for p, r in zip(pods, ranked)):
        return Given(tuple(dict(zip(assignment.levels, by_rank[r])) if gated(p) else {}
                           for p, r in zip(pods, ranked)), "rank")
    return Given(_greedy_over(pods, assignment), "order")


def _greedy_over(pods: Sequence[Mapping[str, Any]], assignment: TopologyAssignment) -> tuple[dict[str, str], ...]:
    """assignGatedPodsToDomainsGreedy: each domain's count less its ungated pods, filled in order."""
    ungated_in: dict[tuple[str, ...], int] = {}
    for pod in pods:
        if not gated(pod):
            values = _selector_values(pod, assignment.levels)
            ungated_in[values] = ungated_in.get(values, 0) + 1
    waiting = iter(i for i, pod in enumerate(pods) if gated(pod))
    out: list[dict[str, str]] = [{} for _ in pods]
    for domain in assignment.domains:
        for _ in range(max(domain.count - ungated_in.get(domain.values, 0), 0)):
            at = next(waiting, None)
            if at is None:
                break
            out[at] = dict(zip(assignment.levels, domain.values))
    return tuple(out)


def ungate(pod: Mapping[str, Any], labels: Mapping[str, str]) -> dict[str, Any]:
    """A copy of `pod` as the ungater patches it: the topology gate removed, `labels` in its node selector."""
    spec = dict(pod.get("spec") or {})
    gates = [g for g in spec.get("schedulingGates") or () if not (isinstance(g, Mapping) and g.get("name") == GATE)]
    if gates:
        spec["schedulingGates"] = gates
    else:
        spec.pop("schedulingGates", None)
    spec["nodeSelector"] = {**(spec.get("nodeSelector") or {}), **labels}
    return {**pod, "spec": spec}

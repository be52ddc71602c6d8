"""Similar node groups and the balanced scale-up (CA's processors/nodegroupset): the comparator CA's
builder picks (CreateLabelNodeInfoComparator with --balancing-label, else the generic one with
its difference ratios), and `balance_scale_up`, smallest group first, one node at a time."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from kexplain.apimachinery.quantity import milli_value
from kexplain.apimachinery.gosort import go_sort
from kexplain.apimachinery.labels import LABEL_HOSTNAME, REGION_LABELS, ZONE_LABELS
from kexplain.model.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, resource_list

if TYPE_CHECKING:
    from kexplain.autoscaler.nodegroups import NodeGroup
    from kexplain.model.nodeinfo import NodeInfo

# BasicIgnoredLabels: the hostname, the zone and region (deprecated and GA keys), and two labels
# whose values differ per group by design.
BASIC_IGNORED_LABELS = frozenset({
    LABEL_HOSTNAME, *ZONE_LABELS, *REGION_LABELS,
    "beta.kubernetes.io/fluentd-ds-ready",
    "kops.k8s.io/instancegroup",
})


@dataclass(frozen=True)
class DifferenceRatios:
    """CA's NodeGroupDifferenceRatios, with its flag defaults."""

    max_allocatable: float = 0.05        # --max-allocatable-difference-ratio
    max_free: float = 0.05               # --max-free-difference-ratio
    max_capacity_memory: float = 0.015   # --memory-difference-ratio


def _within(a: Fraction, b: Fraction, ratio: float) -> bool:
    """CA's resourceListWithinTolerance on two quantities (float64 of their MilliValues)."""
    x, y = float(milli_value(a)), float(milli_value(b))
    larger, smaller = max(x, y), min(x, y)
    return larger - smaller <= larger * ratio


def _status(node_info: "NodeInfo", key: str) -> dict[str, Fraction]:
    return resource_list((node_info.node.obj.get("status") or {}).get(key))


def _requested(node_info: "NodeInfo") -> dict[str, Fraction]:
    """The template's requests as CA's ResourceToResourceList gives them: cpu, memory, pods
    (never counted in requests: 0) and ephemeral storage always, then each scalar resource."""
    r = node_info.requested
    out = {CPU: Fraction(r.milli_cpu, 1000), MEMORY: Fraction(r.memory), PODS: Fraction(0),
           EPHEMERAL_STORAGE: Fraction(r.ephemeral_storage)}
    out.update((name, Fraction(q)) for name, q in r.scalar.items())
    return out


def _maps_within(a: Mapping[str, Fraction], b: Mapping[str, Fraction], ratio: float) -> bool:
    """Every resource of either map present in both and within the ratio."""
    return a.keys() == b.keys() and all(_within(a[k], b[k], ratio) for k in a)


@dataclass(frozen=True)
class Comparator:
    """CA's NodeInfoComparator: whether two groups' templates make them one set. Build it with
    `comparator(...)`, which picks the kind as CA's builder does."""

    balancing_labels: tuple[str, ...] = ()            # set: the label comparator
    ignored_labels: frozenset[str] = BASIC_IGNORED_LABELS
    ratios: DifferenceRatios = DifferenceRatios()

    def similar(self, n1: "NodeInfo", n2: "NodeInfo") -> bool:
        return self.difference(n1, n2) is None

    def difference(self, n1: "NodeInfo", n2: "NodeInfo") -> str | None:
        """Why the two templates are not similar, in the words CA logs (None: similar)."""
        if self.balancing_labels:
            return _label_difference(n1, n2, self.balancing_labels)
        return _generic_difference(n1, n2, self.ignored_labels, self.ratios)


def _label_difference(n1: "NodeInfo", n2: "NodeInfo", labels: Iterable[str]) -> str | None:
    for label in labels:
        if label not in n1.node.labels or label not in n2.node.labels:
            return f"{label} label not present"
        if n1.node.labels[label] != n2.node.labels[label]:
            return f"{label} label did not match"
    return None


def _generic_difference(n1: "NodeInfo", n2: "NodeInfo", ignored: frozenset[str],
                        ratios: DifferenceRatios) -> str | None:
    cap1, cap2 = _status(n1, "capacity"), _status(n2, "capacity")
    for name in sorted(cap1.keys() | cap2.keys()):      # CA: Go map order; any failure fails
        if name not in cap1 or name not in cap2:
            return f'missing capacity "{name}"'
        if name == MEMORY:
            if not _within(cap1[name], cap2[name], ratios.max_capacity_memory):
                return "memory not within tolerance"
        elif cap1[name] != cap2[name]:
            return f'capacity resource "{name}" does not match'
    alloc1, alloc2 = _status(n1, "allocatable"), _status(n2, "allocatable")
    if not _maps_within(alloc1, alloc2, ratios.max_allocatable):
        return "allocatable resources not within tolerance"
    free1 = {k: alloc1.get(k, Fraction(0)) - q for k, q in _requested(n1).items()}
    free2 = {k: alloc2.get(k, Fraction(0)) - q for k, q in _requested(n2).items()}
    if not _maps_within(free1, free2, ratios.max_free):
        return "free resources not within tolerance"
    labels1 = {k: v for k, v in n1.node.labels.items() if k not in ignored}
    labels2 = {k: v for k, v in n2.node.labels.items() if k not in ignored}
    if labels1 != labels2:
        return "labels do not match"
    return None


def comparator(balancing_labels: Sequence[str] = (), balancing_ignore_labels: Sequence[str] = (),
               ratios: DifferenceRatios = DifferenceRatios()) -> Comparator:
    """The comparator of CA's builder: the label comparator of `--balancing-label` values, else the generic
    one ignoring BASIC_IGNORED_LABELS and `--balancing-ignore-label` values."""
    if balancing_labels:
        return Comparator(tuple(balancing_labels), BASIC_IGNORED_LABELS, ratios)
    return Comparator((), BASIC_IGNORED_LABELS | frozenset(balancing_ignore_labels), ratios)


def find_similar_node_groups(group: "NodeGroup", node_groups: Sequence["NodeGroup"],
                             node_infos: Mapping[str, "NodeInfo"], compare: Comparator) -> list["NodeGroup"]:
    """FindSimilarNodeGroups: the other groups, in provider order, whose template is similar to
    `group`'s (none without a template: CA's error is logged and ignored)."""
    template = node_infos.get(group.name)
    if template is None:
        return []
    out = []
    for other in node_groups:
        if other.name == group.name:
            continue
        other_template = node_infos.get(other.name)
        if other_template is not None and compare.similar(template, other_template):
            out.append(other)
    return out


@dataclass(frozen=True)
class ScaleUpInfo:
    """One group's planned resize (CA's nodegroupset.ScaleUpInfo)."""

    group: "NodeGroup"
    current_size: int
    new_size: int
    max_size: int

    def __str__(self) -> str:
        """As CA prints it in the TriggeredScaleUp event: `{GROUP CUR->NEW (max: MAX)}`."""
        return f"{{{self.group.name} {self.current_size}->{self.new_size} (max: {self.max_size})}}"


def balance_scale_up(groups: Sequence["NodeGroup"], target_sizes: Mapping[str, int],
                     new_nodes: int) -> list[ScaleUpInfo]:
    """BalanceScaleUpBetweenGroups: `new_nodes` spread over `groups` (the chosen first), each node to
    the smallest group below max size (Go's sort.Slice order); the groups that grow, in that order."""
    if not groups:
        raise ValueError("Can't balance scale up between 0 groups")
    infos: list[list] = []                     # [group, current, new, max]
    capacity = 0
    for g in groups:
        current = target_sizes[g.name]
        if current == g.max_size:
            continue
        if g.max_size > current:
            capacity += g.max_size - current
        infos.append([g, current, current, g.max_size])
    new_nodes = min(new_nodes, capacity)
    go_sort(infos, lambda a, b: a[1] < b[1])
    start = current_index = 0
    while new_nodes > 0:
        info = infos[current_index]
        if info[2] < info[3]:
            info[2] += 1
            new_nodes -= 1
        else:   # full: swapped out to the front, behind the groups already full
            infos[start], infos[current_index] = infos[current_index], infos[start]
            start += 1
        # CA reads the slot again: after a swap it holds the group moved in from `start`
        if current_index < len(infos) - 1 and infos[current_index][2] > infos[current_index + 1][2]:
            current_index += 1
        else:
            current_index = start
    return [ScaleUpInfo(g, cur, new, mx) for g, cur, new, mx in infos if new != cur]

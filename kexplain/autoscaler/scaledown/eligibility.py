"""Which nodes scale-down looks at, and which of those it simulates removing.

Two of CA's steps: the scale-down node processor (`candidates`: a node of a group above its
minimum size; nodes of no group and of groups at their minimum are not looked at, and get no
reason), then the eligibility check (`check`: being deleted, the scale-down-disabled
annotation, utilization above the group's threshold, ...), which gives the reason a node is
not simulated, and its utilization where CA computed it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from kexplain.apimachinery.gosort import go_sort
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.autoscaler.readiness import node_readiness
from kexplain.autoscaler.scaledown.cluster import TO_BE_DELETED_TAINT
from kexplain.autoscaler.scaledown.config import ScaleDownConfig
from kexplain.autoscaler.scaledown.drainability import DeleteOptions, DrainContext, emptiness
from kexplain.autoscaler.scaledown.pdb import PdbTracker
from kexplain.autoscaler.gpu import node_gpu_config
from kexplain.autoscaler.scaledown.utilization import PodRequests, Utilization, UtilizationError, calculate
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot

SCALE_DOWN_DISABLED = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
# How long after the ToBeDeleted taint a node still counts as being deleted (the larger of
# MaxCloudProviderNodeDeletionTime and MaxKubernetesEmptyNodeDeletionTime)
BEING_DELETED_NS = 5 * 60 * 10**9

# simulator.UnremovableReason names
SCALE_DOWN_DISABLED_ANNOTATION = "ScaleDownDisabledAnnotation"
SCALE_DOWN_UNREADY_DISABLED = "ScaleDownUnreadyDisabled"
NOT_AUTOSCALED = "NotAutoscaled"
CURRENTLY_BEING_DELETED = "CurrentlyBeingDeleted"
NOT_UNDERUTILIZED = "NotUnderutilized"
UNEXPECTED_ERROR = "UnexpectedError"


def group_sizes(groups: Sequence[NodeGroup], members: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """Each group's size as the provider reports it: its target size, else its member count."""
    return {g.name: g.target_size if g.target_size is not None else len(members.get(g.name, ()))
            for g in groups}


def candidates(node_names: Sequence[str], group_of: Mapping[str, NodeGroup | None],
               sizes: Mapping[str, int]) -> list[str]:
    """PreFilteringScaleDownNodeProcessor: the nodes (in order) of groups above their minimum."""
    out = []
    for name in node_names:
        group = group_of.get(name)
        if group is not None and sizes.get(group.name, 0) > group.min_size:
            out.append(name)
    return out


def sort_candidates(names: list[str], snapshot: Snapshot, options: DeleteOptions, now_ns: int,
                    created: Callable[[PodInfo], int | None] | None = None) -> list[str]:
    """The candidates as CA's builder sorts them (ScaleDownCandidatesSortingProcessor, Go's sort.Sort):
    empty nodes first (no pod to move or blocking), those with no pod to wait for first among them."""
    bare = DrainContext(PdbTracker(()), None, now_ns, options, created)
    facts: dict[str, tuple[bool, bool]] = {}
    for name in names:
        facts[name] = emptiness(bare, snapshot.get(name).pods)

    def earlier(a: str, b: str) -> bool:
        (empty_a, waits_a), (empty_b, waits_b) = facts[a], facts[b]
        if empty_a != empty_b:
            return empty_a
        return not waits_a and waits_b

    def less(a: str, b: str) -> bool:
        return earlier(a, b) if earlier(a, b) or earlier(b, a) else False

    out = list(names)
    go_sort(out, less)
    return out


def has_scale_down_disabled(node: Mapping) -> bool:
    return ((node.get("metadata") or {}).get("annotations") or {}).get(SCALE_DOWN_DISABLED) == "true"


def is_ready(node: Mapping) -> bool:
    """GetNodeReadiness (kexplain.autoscaler.readiness). A node the input gives without a Ready
    condition is Ready (CA saw the Ready=True condition the cases' inputs leave out)."""
    return node_readiness(node).ready


def is_being_deleted(node: Mapping, now_ns: int) -> bool:
    """The ToBeDeleted taint, set less than the deletion timeouts ago (its value: Unix seconds)."""
    for taint in (node.get("spec") or {}).get("taints") or ():
        if isinstance(taint, dict) and taint.get("key") == TO_BE_DELETED_TAINT:
            try:
                since = int(str(taint.get("value") or "")) * 10**9
            except ValueError:
                return False
            return now_ns - since < BEING_DELETED_NS
    return False


@dataclass(frozen=True)
class Eligibility:
    """A candidate's check: a reason it is not simulated ("" when it is) and its utilization
    (None where CA did not compute it)."""

    reason: str
    utilization: Utilization | None


def check(node_info: NodeInfo, group: NodeGroup | None, config: ScaleDownConfig, now_ns: int,
          requests: PodRequests | None = None) -> Eligibility:
    """unremovableReasonAndNodeUtilization, step by step in CA's order (`requests`: the loop's pods'
    requests, worked out once per shape for every candidate)."""
    node = node_info.node.obj
    if is_being_deleted(node, now_ns):
        return Eligibility(CURRENTLY_BEING_DELETED, None)
    if has_scale_down_disabled(node):
        return Eligibility(SCALE_DOWN_DISABLED_ANNOTATION, None)
    if group is None:
        return Eligibility(NOT_AUTOSCALED, None)
    gpu_config = node_gpu_config(node, config.provider)      # (read once: the utilization and the threshold)
    try:
        util = calculate(node_info, config.ignore_daemonsets(group), config.ignore_mirror_pods_utilization, now_ns,
                         config.provider, requests, gpu_config)
    except UtilizationError:
        return Eligibility(UNEXPECTED_ERROR, None)
    if not config.scale_down_unready_enabled and not is_ready(node):
        return Eligibility(SCALE_DOWN_UNREADY_DISABLED, None)
    gpu = gpu_config is not None      # GPUs through DRA too
    threshold = config.gpu_threshold(group) if gpu else config.threshold(group)
    if util.utilization > threshold:
        return Eligibility(NOT_UNDERUTILIZED, util)
    return Eligibility("", util)

"""Whether each pod of a node lets CA drain it: CA's drainability rules, in CA's order.

Each rule looks at one pod and either decides (drain it, skip it, wait for it, or block the
whole node with a reason) or passes to the next rule; the first decision wins (CA's default
rules have no overrides). `pods_to_move` walks a node's pods in order and stops at the first
blocking pod, which becomes the node's `BlockingPod` (simulator/drain.go GetPodsToMove).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterable, Mapping, Sequence

from kexplain.autoscaler.scaledown.pdb import PdbTracker
from kexplain.autoscaler.scaledown.pods import (
    SAFE_TO_EVICT, SAFE_TO_EVICT_LOCAL_VOLUMES, controller_ref, creation_ns, is_daemonset_pod,
    is_long_terminating, is_mirror_pod, is_terminal, parse_group_version)
from kexplain.model.pod import PodInfo

KUBE_SYSTEM = "kube-system"
REPLICATED_KINDS = frozenset({"ReplicationController", "Job", "ReplicaSet", "StatefulSet"})
CONTROLLER_KINDS = ("ReplicationController", "DaemonSet", "Job", "ReplicaSet", "StatefulSet")


class Outcome(Enum):
    UNDEFINED = "Undefined"
    DRAIN = "DrainOk"
    BLOCK = "BlockDrain"
    SKIP = "SkipDrain"
    WAIT = "WaitForCompletion"


# drain.BlockingPodReason names, as the document gives them
CONTROLLER_NOT_FOUND = "ControllerNotFound"
MIN_REPLICAS_REACHED = "MinReplicasReached"
NOT_REPLICATED = "NotReplicated"
LOCAL_STORAGE_REQUESTED = "LocalStorageRequested"
NOT_SAFE_TO_EVICT = "NotSafeToEvictAnnotation"
UNMOVABLE_KUBE_SYSTEM_POD = "UnmovableKubeSystemPod"
NOT_ENOUGH_PDB = "NotEnoughPdb"


@dataclass(frozen=True)
class Status:
    outcome: Outcome = Outcome.UNDEFINED
    reason: str = ""            # for BLOCK: the blocking pod's reason

    @property
    def decided(self) -> bool:
        return self.outcome is not Outcome.UNDEFINED


UNDEFINED = Status()
DRAIN = Status(Outcome.DRAIN)
SKIP = Status(Outcome.SKIP)
WAIT = Status(Outcome.WAIT)


def blocked(reason: str) -> Status:
    return Status(Outcome.BLOCK, reason)


@dataclass(frozen=True)
class DeleteOptions:
    """CA's NodeDeleteOptions (the flags of the same names; CA's defaults)."""

    skip_nodes_with_system_pods: bool = True
    skip_nodes_with_local_storage: bool = True
    skip_nodes_with_custom_controller_pods: bool = True
    min_replica_count: int = 0
    bsp_disruption_timeout_ns: int = 3600 * 10**9     # --blocking-system-pod-distruption-timeout


class Controllers:
    """The listers the rules read: controllers by kind, namespace and name (the last one of a
    name wins, as in an informer's store)."""

    def __init__(self, objects: Mapping[str, Iterable[Mapping[str, Any]]]) -> None:
        self._by_kind: dict[str, dict[tuple[str, str], Mapping[str, Any]]] = {}
        for kind in CONTROLLER_KINDS:
            table = self._by_kind[kind] = {}
            for obj in objects.get(kind, ()):
                meta = obj.get("metadata") or {}
                table[(meta.get("namespace") or "default", meta.get("name") or "")] = obj

    def get(self, kind: str, namespace: str, name: str) -> Mapping[str, Any] | None:
        return self._by_kind.get(kind, {}).get((namespace, name))


@dataclass
class DrainContext:
    """What every rule may read: the loop's PDB budgets, the listers and the loop's time."""

    pdbs: PdbTracker
    controllers: Controllers | None       # None: no listers (the controllers are not looked up)
    now_ns: int
    options: DeleteOptions = field(default_factory=DeleteOptions)
    # when a pod without metadata.creationTimestamp was created (the inputs' defaults, by pod
    # key); None: such a pod has Go's zero time
    created: Callable[[PodInfo], int | None] | None = None

    def creation_ns(self, pod: PodInfo) -> int | None:
        found = creation_ns(pod)
        if found is None and self.created is not None:
            return self.created(pod)
        return found


Rule = Callable[[DrainContext, PodInfo], Status]


def mirror_rule(ctx: DrainContext, pod: PodInfo) -> Status:
    return SKIP if is_mirror_pod(pod) else UNDEFINED


def long_terminating_rule(ctx: DrainContext, pod: PodInfo) -> Status:
    return SKIP if is_long_terminating(pod, ctx.now_ns) else UNDEFINED


def _too_few(obj: Mapping[str, Any], minimum: int) -> bool:
    replicas = (obj.get("spec") or {}).get("replicas")
    return isinstance(replicas, int) and replicas < minimum


def replica_count_rule(ctx: DrainContext, pod: PodInfo) -> Status:
    """The pod's controller must exist (and an RC or ReplicaSet keep --min-replica-count)."""
    ref = controller_ref(pod)
    if ref is None or ctx.controllers is None:
        return UNDEFINED
    gv = parse_group_version(str(ref.get("apiVersion") or ""))
    if gv is None:
        return UNDEFINED
    kind, name, ns = ref.get("kind"), str(ref.get("name") or ""), pod.namespace
    minimum = ctx.options.min_replica_count
    if kind == "ReplicationController":
        rc = ctx.controllers.get(kind, ns, name)
        if rc is None:
            return blocked(CONTROLLER_NOT_FOUND)
        return blocked(MIN_REPLICAS_REACHED) if _too_few(rc, minimum) else UNDEFINED
    if is_daemonset_pod(pod):
        if gv[0] != "apps" or kind != "DaemonSet":
            return UNDEFINED
        return UNDEFINED if ctx.controllers.get("DaemonSet", ns, name) is not None else blocked(CONTROLLER_NOT_FOUND)
    if kind == "Job":
        return UNDEFINED if ctx.controllers.get(kind, ns, name) is not None else blocked(CONTROLLER_NOT_FOUND)
    if kind == "ReplicaSet":
        rs = ctx.controllers.get(kind, ns, name)
        if rs is None:
            return blocked(CONTROLLER_NOT_FOUND)
        return blocked(MIN_REPLICAS_REACHED) if _too_few(rs, minimum) else UNDEFINED
    if kind == "StatefulSet":
        if gv[0] != "apps":
            return UNDEFINED
        return UNDEFINED if ctx.controllers.get(kind, ns, name) is not None else blocked(CONTROLLER_NOT_FOUND)
    return UNDEFINED


def daemonset_rule(ctx: DrainContext, pod: PodInfo) -> Status:
    return DRAIN if is_daemonset_pod(pod) else UNDEFINED


def safe_to_evict_rule(ctx: DrainContext, pod: PodInfo) -> Status:
    return DRAIN if pod.annotation(SAFE_TO_EVICT) == "true" else UNDEFINED


def terminal_rule(ctx: DrainContext, pod: PodInfo) -> Status:
    return DRAIN if is_terminal(pod) else UNDEFINED


def on_completion_rule(ctx: DrainContext, pod: PodInfo) -> Status:
    return WAIT if pod.annotation(SAFE_TO_EVICT) == "on-completion" else UNDEFINED


def replicated_rule(ctx: DrainContext, pod: PodInfo) -> Status:
    """A pod without a controller (with --skip-nodes-with-custom-controller-pods: without one of
    the kinds CA knows) is NotReplicated."""
    ref = controller_ref(pod)
    replicated = ref is not None
    if replicated and ctx.options.skip_nodes_with_custom_controller_pods:
        replicated = ref.get("kind") in REPLICATED_KINDS
    return UNDEFINED if replicated else blocked(NOT_REPLICATED)


def system_rule(ctx: DrainContext, pod: PodInfo) -> Status:
    """A kube-system pod no PDB covers moves only once older than the disruption timeout."""
    if pod.namespace != KUBE_SYSTEM or ctx.pdbs.matching(pod):
        return UNDEFINED
    created = ctx.creation_ns(pod)
    if created is not None and ctx.now_ns > created + ctx.options.bsp_disruption_timeout_ns:
        return DRAIN
    return blocked(UNMOVABLE_KUBE_SYSTEM_POD)


def not_safe_to_evict_rule(ctx: DrainContext, pod: PodInfo) -> Status:
    return blocked(NOT_SAFE_TO_EVICT) if pod.annotation(SAFE_TO_EVICT) == "false" else UNDEFINED


def _is_local_volume(volume: Mapping[str, Any]) -> bool:
    if volume.get("hostPath") is not None:
        return True
    empty_dir = volume.get("emptyDir")
    return empty_dir is not None and (empty_dir or {}).get("medium") != "Memory"


def local_storage_rule(ctx: DrainContext, pod: PodInfo) -> Status:
    """A hostPath or disk-backed emptyDir volume blocks, unless the pod's
    safe-to-evict-local-volumes annotation names it."""
    listed = pod.annotation(SAFE_TO_EVICT_LOCAL_VOLUMES) or ""
    allowed = set(str(listed).split(",")) if listed else set()
    for volume in pod.volumes or ():        # (a stored pod's off its view)
        if isinstance(volume, dict) and _is_local_volume(volume) and volume.get("name") not in allowed:
            return blocked(LOCAL_STORAGE_REQUESTED)
    return UNDEFINED


def pdb_rule(ctx: DrainContext, pod: PodInfo) -> Status:
    return blocked(NOT_ENOUGH_PDB) if any(allowed < 1 for allowed in ctx.pdbs.matching(pod)) else UNDEFINED


def default_rules(options: DeleteOptions) -> tuple[Rule, ...]:
    """rules.Default: the rules in CA's order, those the options turn off left out."""
    rules: list[Rule] = [mirror_rule, long_terminating_rule]
    if options.skip_nodes_with_custom_controller_pods:
        rules.append(replica_count_rule)
    rules += [daemonset_rule, safe_to_evict_rule, terminal_rule, on_completion_rule, replicated_rule]
    if options.skip_nodes_with_system_pods:
        rules.append(system_rule)
    rules.append(not_safe_to_evict_rule)
    if options.skip_nodes_with_local_storage:
        rules.append(local_storage_rule)
    rules.append(pdb_rule)
    return tuple(rules)


def drainable(ctx: DrainContext, pod: PodInfo, rules: Sequence[Rule] | None = None) -> Status:
    """The first rule's decision for `pod` (undefined when no rule decides: the pod moves)."""
    for rule in rules if rules is not None else default_rules(ctx.options):
        status = rule(ctx, pod)
        if status.decided:
            return status
    return UNDEFINED


@dataclass(frozen=True)
class BlockingPod:
    pod: PodInfo
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"pod": self.pod.key, "reason": self.reason}


@dataclass(frozen=True)
class PodMoves:
    """GetPodsToMove's answer for one node: the pods to reschedule, the DaemonSet pods, the
    pods to wait for, or the first pod that blocks the drain."""

    pods: tuple[PodInfo, ...] = ()
    daemonset_pods: tuple[PodInfo, ...] = ()
    on_completion_pods: tuple[PodInfo, ...] = ()
    blocking: BlockingPod | None = None


def pods_to_move(ctx: DrainContext, pods: Iterable[PodInfo]) -> PodMoves:
    """Every pod of a node in the node's order through the rules; the first block ends it."""
    rules = default_rules(ctx.options)
    move: list[PodInfo] = []
    daemons: list[PodInfo] = []
    wait: list[PodInfo] = []
    for pod in pods:
        status = drainable(ctx, pod, rules)
        outcome = status.outcome
        if outcome is Outcome.BLOCK:
            return PodMoves(tuple(move), tuple(daemons), tuple(wait), BlockingPod(pod, status.reason))
        if outcome is Outcome.WAIT:
            wait.append(pod)
        elif outcome in (Outcome.UNDEFINED, Outcome.DRAIN):
            (daemons if is_daemonset_pod(pod) else move).append(pod)
    return PodMoves(tuple(move), tuple(daemons), tuple(wait))


def emptiness(ctx: DrainContext, pods: Iterable[PodInfo]) -> tuple[bool, bool]:
    """What the candidates' sort reads of `pods_to_move`: whether the node is empty (no pod to move, none
    blocking) and, if so, whether it has pods to wait for. Its first pod to move or block decides it, so
    the node's other pods are not put through the rules (`pods_to_move` would read them all)."""
    rules = default_rules(ctx.options)
    waits = False
    for pod in pods:
        outcome = drainable(ctx, pod, rules).outcome
        if outcome is Outcome.BLOCK:
            return False, False
        if outcome is Outcome.WAIT:
            waits = True
        elif outcome in (Outcome.UNDEFINED, Outcome.DRAIN) and not is_daemonset_pod(pod):
            return False, False
    return True, waits

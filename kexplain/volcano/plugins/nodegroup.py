"""The nodegroup plugin (plugins/nodegroup): a queue's `spec.affinity` names the node groups (the nodes'
`volcano.sh/nodegroup-name` label) its tasks may run on (required or preferred affinity, required or
preferred anti-affinity). A filter keeps a task to those groups (a node without the label fits nobody in
`strict` mode, the default, and a labelled node fits no queue without affinity); a score prefers the
required groups (100), then the preferred (50, or by their order with `enablePreferredOrder`), and sends
a preferred anti-affinity group last (-1). With `enableHierarchy` a queue without affinity takes its
nearest ancestor's (by `spec.parent`, up to `root`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kexplain.volcano.api.fit_errors import Code, FitError, Status
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.task import TaskInfo
from kexplain.volcano.plugins.args import get_bool

NAME = "nodegroup"
LABEL = "volcano.sh/nodegroup-name"
ROOT = "root"
BASE_SCORE = 100.0
AFFINITY_NOT_FOUND = "node group affinity not specified"
LABEL_NOT_FOUND = "node group label not found"
UNSATISFIED = "node does not satisfy the node group affinity"


@dataclass(frozen=True)
class GroupAffinity:
    """queueGroupAffinity: the queue's four sets of groups, and the preferred ones' list order."""

    required: frozenset[str] = frozenset()
    preferred: frozenset[str] = frozenset()
    anti_required: frozenset[str] = frozenset()
    anti_preferred: frozenset[str] = frozenset()
    preferred_index: dict[str, int] = field(default_factory=dict, compare=False)

    def empty(self) -> bool:
        return not (self.required or self.preferred or self.anti_required or self.anti_preferred)

    def fits(self, group: str) -> bool:
        """predicate: in an affinity group and not a required anti-affinity one; a preferred
        anti-affinity group fits all the same."""
        flag = group in self.required or group in self.preferred
        if group in self.anti_required:
            flag = False
        return flag or group in self.anti_preferred

    def score(self, group: str, preferred_order: bool) -> float:
        """score."""
        s = BASE_SCORE if group in self.required else 0.0
        if preferred_order:
            i = self.preferred_index.get(group)
            if i is not None:
                n = len(self.preferred_index)
                s += 0.5 * BASE_SCORE * (n - i) / n
        elif group in self.preferred:
            s += 0.5 * BASE_SCORE
        return -1.0 if group in self.anti_preferred else s


def _strings(raw: Any) -> list[str]:
    return [str(x) for x in raw] if isinstance(raw, list) else []


def affinity_of(queue: Any) -> GroupAffinity | None:
    """newQueueGroupAffinity: None when the queue has no `spec.affinity`."""
    spec = (queue.obj or {}).get("spec") or {}
    aff = spec.get("affinity")
    if not isinstance(aff, dict):
        return None
    pos = aff.get("nodeGroupAffinity") if isinstance(aff.get("nodeGroupAffinity"), dict) else {}
    neg = aff.get("nodeGroupAntiAffinity") if isinstance(aff.get("nodeGroupAntiAffinity"), dict) else {}
    preferred = _strings(pos.get("preferredDuringSchedulingIgnoredDuringExecution"))
    return GroupAffinity(frozenset(_strings(pos.get("requiredDuringSchedulingIgnoredDuringExecution"))),
                         frozenset(preferred),
                         frozenset(_strings(neg.get("requiredDuringSchedulingIgnoredDuringExecution"))),
                         frozenset(_strings(neg.get("preferredDuringSchedulingIgnoredDuringExecution"))),
                         {g: i for i, g in enumerate(preferred)})


def inherited(queues: dict[str, Any], own: dict[str, GroupAffinity | None], name: str) -> GroupAffinity | None:
    """updateAffinityFromAncestor over buildAncestors: the queue's own affinity, else the nearest
    ancestor's; a missing parent or a cycle ends the walk (Go logs them)."""
    seen = {name}
    while own.get(name) is None and name != ROOT:
        queue = queues.get(name)
        parent = (queue.parent if queue is not None else "") or ROOT
        if parent in seen or parent not in queues:
            return None
        seen.add(parent)
        name = parent
    return own.get(name)


def _group(node: NodeInfo) -> str | None:
    labels = ((node.node or {}).get("metadata") or {}).get("labels") or {}
    return labels.get(LABEL)


class NodeGroup:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.strict = get_bool(arguments, "strict", True)
        self.preferred_order = get_bool(arguments, "enablePreferredOrder", False)
        self.affinity: dict[str, GroupAffinity | None] = {}

    def on_session_open(self, ssn: Any) -> None:
        own = {name: affinity_of(q) for name, q in ssn.queues.items()}
        hierarchy = next((o.hierarchy for tier in ssn.conf.tiers for o in tier if o.name == NAME), False)
        self.affinity = {n: inherited(ssn.queues, own, n) for n in own} if hierarchy else own
        ssn.add("nodeOrder", NAME, lambda task, node: self.node_order(ssn, task, node))
        ssn.add("predicate", NAME, lambda task, node: self.predicate(ssn, task, node))

    def _queue_affinity(self, ssn: Any, task: TaskInfo) -> tuple[bool, GroupAffinity | None]:
        job = ssn.jobs.get(task.job)
        return job is not None, (self.affinity.get(job.queue) if job is not None else None)

    def node_order(self, ssn: Any, task: TaskInfo, node: NodeInfo) -> float:
        """nodeOrderFn: 0 for a node without the label or a queue without affinity."""
        group = _group(node)
        _, aff = self._queue_affinity(ssn, task)
        return 0.0 if group is None or aff is None else aff.score(group, self.preferred_order)

    def predicate(self, ssn: Any, task: TaskInfo, node: NodeInfo) -> FitError | None:
        """predicateFn."""
        found, aff = self._queue_affinity(ssn, task)
        if not found:
            return FitError(task.key, node.name, [Status(Code.ERROR, f"job {task.job} not found in session", NAME)])
        unset = aff is None or aff.empty()
        group = _group(node)
        if group is None:
            return None if not self.strict and unset else _unfit(task, node, LABEL_NOT_FOUND)
        if unset:
            return _unfit(task, node, AFFINITY_NOT_FOUND)
        assert aff is not None
        return None if aff.fits(group) else _unfit(task, node, UNSATISFIED)

    def on_session_close(self, ssn: Any) -> None:
        pass


def _unfit(task: TaskInfo, node: NodeInfo, reason: str) -> FitError:
    """newFitErr: UnschedulableAndUnresolvable (preempt and reclaim do not try the node)."""
    return FitError(task.key, node.name, [Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reason, NAME)])


def New(arguments: dict[str, Any]) -> NodeGroup:
    return NodeGroup(arguments)

"""Volcano's JobInfo (api/job_info.go): a PodGroup and its tasks indexed by status, the gang counts and
the FitError message its events and conditions carry."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from kexplain.volcano.api.fit_errors import POD_REASON_SCHEDULABLE, POD_REASON_UNSCHEDULABLE, FitErrors
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskInfo, TaskStatus, allocated_status

ROLE = attrgetter("role")
POD_GROUP_READY = "pod group is ready"
POD_GROUP_NOT_READY = "pod group is not ready"


@dataclass
class PodGroup:
    """The PodGroup as the scheduler holds it: spec read once, status written through the session."""

    namespace: str
    name: str
    obj: dict[str, Any]
    min_member: int
    queue: str
    min_resources: dict[str, Any] | None
    priority_class: str
    min_task_member: dict[str, int]
    phase: str
    conditions: list[dict[str, Any]] = field(default_factory=list)
    running: int = 0
    succeeded: int = 0
    failed: int = 0


@dataclass(eq=False)
class JobInfo:
    uid: str
    tasks: dict[str, TaskInfo] = field(default_factory=dict)
    index: dict[TaskStatus, dict[str, TaskInfo]] = field(default_factory=dict)
    pod_group: PodGroup | None = None
    name: str = ""
    namespace: str = ""
    queue: str = ""
    min_available: int = 0
    priority: int = 0
    creation: str = ""
    task_min_available: dict[str, int] = field(default_factory=dict)
    nodes_fit_errors: dict[str, FitErrors] = field(default_factory=dict)
    job_fit_errors: str = ""
    allocated: Resource = field(default_factory=Resource)

    @property
    def task_min_total(self) -> int:
        return sum(self.task_min_available.values())

    # -- the index ------------------------------------------------------------------------
    def add_task(self, t: TaskInfo) -> None:
        self.tasks[t.uid] = t
        self.index.setdefault(t.status, {})[t.uid] = t
        if allocated_status(t.status):
            self.allocated.add(t.resreq)

    def delete_task(self, t: TaskInfo) -> None:
        old = self.tasks.pop(t.uid, None)
        if old is None:
            return
        if allocated_status(old.status):
            self.allocated.sub(old.resreq)
        bucket = self.index.get(old.status)
        if bucket is not None:
            bucket.pop(t.uid, None)
            if not bucket:
                del self.index[old.status]

    def update_status(self, t: TaskInfo, status: TaskStatus) -> None:
        """UpdateTaskStatus."""
        if t.uid in self.tasks:
            self.delete_task(t)
        t.status = status
        self.add_task(t)

    def count(self, *statuses: TaskStatus) -> int:
        return sum(len(self.index.get(s, ())) for s in statuses)

    def pending(self) -> list[TaskInfo]:
        return list(self.index.get(TaskStatus.PENDING, {}).values())

    # -- gang counts ------------------------------------------------------------------------
    def ready_task_num(self) -> int:
        return self.count(TaskStatus.BOUND, TaskStatus.BINDING, TaskStatus.RUNNING, TaskStatus.ALLOCATED,
                          TaskStatus.SUCCEEDED)

    def waiting_task_num(self) -> int:
        return self.count(TaskStatus.PIPELINED)

    def pending_best_effort_num(self) -> int:
        return sum(1 for t in self.pending() if t.best_effort)

    def is_ready(self) -> bool:
        return self.ready_task_num() + self.pending_best_effort_num() >= self.min_available

    def is_pipelined(self) -> bool:
        return self.waiting_task_num() + self.ready_task_num() + self.pending_best_effort_num() >= self.min_available

    def is_starving(self) -> bool:
        return self.waiting_task_num() + self.ready_task_num() < self.min_available

    def is_pending(self) -> bool:
        return self.pod_group is None or self.pod_group.phase in ("Pending", "")

    def valid_task_num(self) -> int:
        return sum(len(ts) for s, ts in self.index.items()
                   if allocated_status(s) or s in (TaskStatus.SUCCEEDED, TaskStatus.PIPELINED, TaskStatus.PENDING))

    def _roles(self, statuses: tuple[TaskStatus, ...], best_effort_pending: bool) -> Counter[str]:
        out: Counter[str] = Counter()
        for s, ts in self.index.items():
            if allocated_status(s) or s in statuses:
                out.update(map(ROLE, ts.values()))          # (in C: a gang's readiness counts thousands)
            elif s == TaskStatus.PENDING and best_effort_pending:
                out.update(t.role for t in ts.values() if t.init_resreq.is_empty())
        return out

    def _roles_meet(self, counts: Counter[str]) -> bool:
        if self.min_available < self.task_min_total:
            return True
        return all(counts[r] >= n for r, n in self.task_min_available.items())

    def check_task_valid(self) -> bool:
        if self.min_available < self.task_min_total:
            return True
        actual = self._roles((TaskStatus.SUCCEEDED, TaskStatus.PIPELINED, TaskStatus.PENDING), False)
        return all(n == 0 or actual[r] >= n for r, n in self.task_min_available.items())

    def check_task_ready(self) -> bool:
        return self._roles_meet(self._roles((TaskStatus.SUCCEEDED,), True))

    def check_task_pipelined(self) -> bool:
        return self._roles_meet(self._roles((TaskStatus.SUCCEEDED, TaskStatus.PIPELINED), True))

    def check_task_starving(self) -> bool:
        if self.min_available < self.task_min_total:
            return True
        counts = self._roles((TaskStatus.SUCCEEDED, TaskStatus.PIPELINED), False)
        return any(counts[r] < n for r, n in self.task_min_available.items())

    def fit_failed_roles(self) -> set[str]:
        return {self.tasks[t].role for t in self.nodes_fit_errors if t in self.tasks}

    def task_has_fit_errors(self, t: TaskInfo) -> bool:
        return bool(t.role) and t.role in self.fit_failed_roles()

    def need_continue_allocating(self) -> bool:
        """NeedContinueAllocating (jobs without sub-group policies)."""
        if self.min_available == len(self.tasks):
            return False
        failed = self.fit_failed_roles()
        pending = Counter(t.role for t in self.pending())
        if self.min_available < self.task_min_total:
            left = sum(n for r, n in pending.items() if r not in failed)
            return self.ready_task_num() + left >= self.min_available
        allocated = self._roles((TaskStatus.SUCCEEDED,), True)
        return all(self.task_min_available.get(r, 0) == 0 or allocated[r] >= self.task_min_available[r]
                   for r in failed)

    # -- messages ---------------------------------------------------------------------------
    def task_scheduling_reason(self, t: TaskInfo) -> tuple[str, str, str]:
        """TaskSchedulingReason: (reason, message, nominated node)."""
        ctx = t.last_tx if t.last_tx is not None else t.tx_context()
        msg = self.job_fit_errors
        if ctx.status == TaskStatus.ALLOCATED:
            return (POD_REASON_SCHEDULABLE, f"Pod {t.namespace}/{t.name} can possibly be assigned to "
                    f"{ctx.node_name}, once minAvailable is satisfied", "")
        if ctx.status == TaskStatus.PIPELINED:
            return (POD_REASON_UNSCHEDULABLE, f"Pod {t.namespace}/{t.name} can possibly be assigned to "
                    f"{ctx.node_name}, once resource is released and minAvailable is satisfied",
                    ctx.node_name if ctx.eviction_occurred else "")
        if ctx.status == TaskStatus.PENDING:
            fe = self.nodes_fit_errors.get(t.uid)
            return POD_REASON_UNSCHEDULABLE, (fe.error() if fe is not None else msg), ""
        return str(ctx.status), msg, ""

    def fit_error(self) -> tuple[str, list[str]]:
        """FitError's message, and the tasks its "Origin reason" may name (Go takes the first of a map:
        any of them)."""
        hist: Counter[str] = Counter()
        for s, ts in self.index.items():
            hist[str(s)] += len(ts)
        hist["minAvailable"] = self.min_available
        state = POD_GROUP_READY if self.is_ready() else POD_GROUP_NOT_READY
        msg = f"{state}, {', '.join(sorted(f'{n} {k}' for k, n in hist.items()))}"
        reasons = Counter(self.task_scheduling_reason(t)[0] for t in self.pending())
        if reasons:
            msg += f"; Pending: {', '.join(sorted(f'{n} {k}' for k, n in reasons.items()))}"
        if self.job_fit_errors:
            return msg + ". Origin reason is: " + self.job_fit_errors, []
        origins = [t for t in self.tasks.values() if self.nodes_fit_errors.get(t.uid) is not None]
        if origins:
            first = origins[0]
            msg += f". Origin reason is {first.name}: {self.nodes_fit_errors[first.uid].error()}"
        return msg, [t.name for t in origins]

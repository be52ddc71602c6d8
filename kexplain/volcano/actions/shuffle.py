"""The shuffle action (actions/shuffle): every running task offered to the plugins' victim functions
(`victimTasks`: rescheduling, pdb and tdm register them in Volcano); those the first tier to name any
chooses are evicted at once, each with the reason "shuffle". Of kexplain's plugins none registers one,
so shuffle evicts nothing unless a plugin that does is modelled."""
from __future__ import annotations

from typing import Any, Callable

from kexplain.volcano.api.task import TaskInfo, TaskStatus
from kexplain.volcano.framework.session import Session
from kexplain.volcano.framework.statement import Statement

NAME = "shuffle"
VictimFn = Callable[[list[TaskInfo]], list[TaskInfo]]


def _fns(registered: Any) -> list[VictimFn]:
    """A plugin registers a list of functions (AddVictimTasksFns); one alone is taken as a list of one."""
    return list(registered) if isinstance(registered, (list, tuple)) else [registered]


def victim_tasks(ssn: Session, tasks: list[TaskInfo]) -> list[TaskInfo]:
    """Session.VictimTasks: the union of the victims of the plugins of a tier whose victim switch is on,
    the first tier that names any deciding."""
    fns = ssn.fns.get("victimTasks", {})
    for tier in ssn.conf.tiers:
        chosen: dict[str, TaskInfo] = {}
        for opt in tier:
            if not opt.enabled("victim") or opt.name not in fns:
                continue
            for fn in _fns(fns[opt.name]):
                for t in fn(tasks):
                    chosen.setdefault(t.uid, t)
        if chosen:
            return list(chosen.values())
    return []


def execute(ssn: Session) -> None:
    """Execute: the running tasks of every job, the victims evicted through the session (ssn.Evict)."""
    running = [t for job in ssn.jobs.values() for t in job.tasks.values() if t.status == TaskStatus.RUNNING]
    for victim in victim_tasks(ssn, running):
        stmt = Statement(ssn)
        stmt.evict(victim, NAME)
        stmt.commit()

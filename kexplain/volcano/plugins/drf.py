"""The drf plugin (plugins/drf, without hierarchy): jobs ordered by their dominant resource share."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.resource import Resource, share
from kexplain.volcano.api.task import TaskInfo, allocated_status
from kexplain.volcano.framework.session import EventHandler

NAME = "drf"
SHARE_DELTA = 0.000001


@dataclass
class DrfAttr:
    allocated: Resource = field(default_factory=Resource)
    share: float = 0.0
    dominant: str = ""


class Drf:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.total = Resource()
        self.attrs: dict[str, DrfAttr] = {}

    def share_of(self, allocated: Resource) -> tuple[str, float]:
        """calculateShare."""
        res, dominant = 0.0, ""
        for rn in self.total.resource_names():
            s = share(allocated.get(rn), self.total.get(rn))
            if s > res:
                res, dominant = s, rn
        return dominant, res

    def _update(self, attr: DrfAttr) -> None:
        attr.dominant, attr.share = self.share_of(attr.allocated)

    def on_session_open(self, ssn: Any) -> None:
        self.total = ssn.total.clone()
        for job in ssn.jobs.values():
            attr = DrfAttr()
            for s, ts in job.index.items():
                if allocated_status(s):
                    for t in ts.values():
                        attr.allocated.add(t.resreq)
            self._update(attr)
            self.attrs[job.uid] = attr

        def job_order(l: JobInfo, r: JobInfo) -> int:
            ls, rs = self.attrs[l.uid].share, self.attrs[r.uid].share
            if ls == rs:
                return 0
            return -1 if ls < rs else 1

        def on_allocate(t: TaskInfo) -> None:
            attr = self.attrs.get(t.job)
            if attr is not None:
                attr.allocated.add(t.resreq)
                self._update(attr)

        def on_deallocate(t: TaskInfo) -> None:
            attr = self.attrs.get(t.job)
            if attr is not None:
                attr.allocated.sub(t.resreq)
                self._update(attr)

        def preemptable(preemptor: TaskInfo, preemptees: list[TaskInfo]) -> list[TaskInfo]:
            """A victim's job keeps a share, without it, at least the preemptor's job's with the preemptor."""
            latt = self.attrs.get(preemptor.job)
            if latt is None:
                return []
            _, ls = self.share_of(latt.allocated.clone().add(preemptor.resreq))
            allocations: dict[str, Resource] = {}
            out = []
            for t in preemptees:
                if t.job not in allocations:
                    ratt = self.attrs.get(t.job)
                    if ratt is None:
                        continue
                    allocations[t.job] = ratt.allocated.clone()
                _, rs = self.share_of(allocations[t.job].sub(t.resreq))
                if ls < rs or abs(ls - rs) <= SHARE_DELTA:
                    out.append(t)
            return out

        ssn.add("preemptable", NAME, preemptable)
        ssn.add("jobOrder", NAME, job_order)
        ssn.add_event_handler(EventHandler(on_allocate, on_deallocate))

    def on_session_close(self, ssn: Any) -> None:
        pass


def New(arguments: dict[str, Any]) -> Drf:
    return Drf(arguments)

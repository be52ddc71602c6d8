"""The overcommit plugin (plugins/overcommit): a job is enqueued only while the cluster's allocatable
times the overcommit factor, less what is used, holds the minResources of the jobs enqueued."""
from __future__ import annotations

from typing import Any

from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.plugins.args import get_float
from kexplain.volcano.plugins.util import (deduct_gated, format_names, inqueue_resource, is_enqueued_running,
                                           min_resources)

NAME = "overcommit"
FACTOR_KEY = "overcommit-factor"
DEFAULT_FACTOR = 1.2
OVERUSED = "resource in cluster is overused"


class Overcommit:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.factor = DEFAULT_FACTOR
        self.idle = Resource()
        self.inqueue = Resource()

    def on_session_open(self, ssn: Any) -> None:
        self.factor = get_float(self.arguments, FACTOR_KEY, DEFAULT_FACTOR)
        if self.factor < 1.0:
            self.factor = DEFAULT_FACTOR
        used = Resource()
        for node in ssn.nodes.values():
            used.add(node.used)
        self.idle = ssn.total.clone().multi(self.factor).sub(used)
        for job in ssn.jobs.values():
            pg = job.pod_group
            if pg.phase == "Inqueue" and pg.min_resources is not None:
                self.inqueue.add(deduct_gated(job, min_resources(job)))
            elif is_enqueued_running(job):
                self.inqueue.add(deduct_gated(job, inqueue_resource(job, job.allocated)))

        def enqueueable(job: JobInfo) -> int:
            if job.pod_group.min_resources is None:
                return 1
            req = min_resources(job)
            ok, names = self.inqueue.clone().add(req).less_equal_with_dimension(self.idle, req)
            if ok:
                return 1
            ssn.record(f"PodGroup {job.uid}", "Normal", "Unschedulable", format_names(OVERUSED, "overused", names))
            return -1

        def enqueued(job: JobInfo) -> None:
            if job.pod_group.min_resources is not None:
                self.inqueue.add(deduct_gated(job, min_resources(job)))

        ssn.add("jobEnqueueable", NAME, enqueueable)
        ssn.add("jobEnqueued", NAME, enqueued)

    def on_session_close(self, ssn: Any) -> None:
        pass


def New(arguments: dict[str, Any]) -> Overcommit:
    return Overcommit(arguments)

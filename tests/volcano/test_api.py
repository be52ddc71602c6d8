"""Volcano's API types against the Go code (pkg/scheduler/api): the fit messages' histograms sort as
strings, the job's FitError text, resources as the queue status writes them, the configuration."""
from __future__ import annotations

import pytest

from kexplain.errors import InputError
from kexplain.volcano import conf
from kexplain.volcano.api.fit_errors import Code, FitError, FitErrors, Status
from kexplain.volcano.api.job import JobInfo
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import new_task


def test_fit_errors_histogram_sorts_as_strings() -> None:
    fe = FitErrors()
    for name, reason in (("a", "Insufficient cpu"), ("b", "Insufficient cpu"),
                         ("c", "node(s) didn't match Pod's node affinity/selector")):
        fe.set_node_error(name, FitError("ns/p", name, [Status(Code.UNSCHEDULABLE, reason)]))
    assert fe.error() == ("0/3 nodes are unavailable: 1 node(s) didn't match Pod's node affinity/selector, "
                          "2 Insufficient cpu.")


def _pod(i: int) -> dict:
    return {"metadata": {"name": f"p-{i}", "namespace": "ns", "annotations": {"scheduling.k8s.io/group-name": "g"}},
            "spec": {"containers": [{"resources": {"requests": {"cpu": "1"}}}]}, "status": {"phase": "Pending"}}


def test_job_fit_error_counts_sort_as_strings() -> None:
    job = JobInfo("ns/g", min_available=10)
    for i in range(2):
        job.add_task(new_task(_pod(i)))
    assert job.fit_error()[0] == "pod group is not ready, 10 minAvailable, 2 Pending; Pending: 2 Unschedulable"


def test_resources_as_the_queue_status_writes_them() -> None:
    r = Resource.of({"cpu": "1500m", "memory": "2Gi", "pods": "2", "nvidia.com/gpu": "4"})
    assert r.as_list() == {"cpu": "1500m", "memory": "2Gi", "pods": "2", "nvidia.com/gpu": "4"}
    assert Resource().as_list() == {"cpu": "0", "memory": "0"}


def test_configuration_as_volcano_reads_it() -> None:
    default = conf.default()
    assert default.actions == ("enqueue", "allocate", "backfill")
    assert default.tier_names() == [["priority", "gang", "conformance"],
                                    ["overcommit", "drf", "predicates", "proportion", "nodeorder"]]
    odd = conf.parse('actions: "enqueue, shuffle"\ntiers:\n- plugins:\n  - name: gang\n  - name: tdm\n'
                     '  - name: mine\n', "f")
    assert (odd.unknown_plugins, odd.unmodelled_plugins) == (("mine",), ("tdm",))
    with pytest.raises(InputError, match="failed to find Action  juggle"):
        conf.parse('actions: "enqueue, juggle"\n', "f")

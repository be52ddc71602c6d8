"""The job integrations (controller/jobs, controller/jobframework): each kind's pod sets, the
Workload's name and its hash, the priority it gets, and the jobs Kueue makes no Workload for."""
from __future__ import annotations

import pytest

from kexplain.kueue.controller.jobframework.naming import workload_name
from kexplain.kueue.controller.jobframework.priority import PriorityNotFound, extract_priority
from kexplain.kueue.apis.priorityclass import PriorityClass
from tests.kueue.builders import cluster_queue, flavor, local_queue, read, run

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: default
  uid: {uid}
  creationTimestamp: "2025-12-31T19:02:00Z"
  labels: {labels}
  annotations: {annotations}
spec:
  {counts}
  suspend: true
  template:
    spec:
      restartPolicy: Never
      {priority_class}
      containers:
      - name: main
        image: busybox
        resources: {{requests: {{cpu: "1"}}}}
"""


def job(name: str = "train", uid: str = "9cebdbf1-2a2b-4a1a-a594-40fe19f64207", labels: str = "{kueue.x-k8s.io/queue-name: q}",
        annotations: str = "{}", counts: str = "parallelism: 1", priority_class: str = "") -> str:
    return JOB.format(name=name, uid=uid, labels=labels, annotations=annotations, counts=counts,
                      priority_class=f"priorityClassName: {priority_class}" if priority_class else "")


@pytest.mark.parametrize(("name", "uid", "kind", "group", "expected"), [
    # as the real Kueue named them (../shared/kueue flavors-0003, cohort-0013)
    ("train", "9cebdbf1-2a2b-4a1a-a594-40fe19f64207", "Job", "batch", "job-train-55414"),
    ("train", "5e21073a-ce5e-442c-aa78-3586a1e36baa", "Pod", "", "pod-train-d4d5f"),
    ("x" * 300, "u", "Job", "batch", "job-" + "x" * 243 + "-"),    # the prefix cut to 247 characters
])
def test_workload_name(name, uid, kind, group, expected) -> None:
    got = workload_name(name, uid, kind, group)
    assert got.startswith(expected) and len(got) <= 253
    if expected.endswith("-"):
        assert len(got) == 253


@pytest.mark.parametrize(("counts", "annotations", "count", "min_count"), [
    ("parallelism: 3", "{}", 3, None),
    ("parallelism: 3\n  completions: 2", "{}", 2, None),          # fewer completions than parallelism
    ("completions: 5", "{}", 1, None),                              # parallelism defaults to 1
    ("", "{}", 1, None),                                            # both default to 1
    ("parallelism: 6", "{kueue.x-k8s.io/job-min-parallelism: '3'}", 6, 3),
    ("parallelism: 6", "{kueue.x-k8s.io/job-min-parallelism: three}", 6, None),
])
def test_job_pod_sets(counts, annotations, count, min_count) -> None:
    inputs = read(submitted=(job(counts=counts, annotations=annotations),))
    (ps,) = inputs.jobs[0].pod_sets()
    assert (ps.name, ps.count, ps.min_count) == ("main", count, min_count)


def test_jobset_and_pod_pod_sets() -> None:
    jobset = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: trainer, namespace: default, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  replicatedJobs:
  - name: driver
    template: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: d, image: x}]}}}}
  - name: workers
    replicas: 2
    template: {spec: {parallelism: 3, completions: 3, template: {spec: {restartPolicy: Never,
               containers: [{name: w, image: x}]}}}}
"""
    pod = """apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, labels: {kueue.x-k8s.io/queue-name: q}}
spec: {containers: [{name: c, image: x}], schedulingGates: [{name: kueue.x-k8s.io/admission}]}
"""
    inputs = read(submitted=(jobset, pod))
    assert [(ps.name, ps.count) for ps in inputs.jobs[0].pod_sets()] == [("driver", 1), ("workers", 6)]
    (pod_set,) = inputs.jobs[1].pod_sets()
    assert pod_set.count == 1
    assert pod_set.spec["priority"] == 0       # the pod as the API server stores it


WPC = {"high": PriorityClass("high", 1000)}
PCS = {"batch": PriorityClass("batch", 10), "default-low": PriorityClass("default-low", 5, True),
       "default-lower": PriorityClass("default-lower", 1, True)}


@pytest.mark.parametrize(("labels", "pod_class", "classes", "expected"), [
    ({"kueue.x-k8s.io/priority-class": "high"}, "batch", PCS, ("WorkloadPriorityClass/high", 1000)),
    ({}, "batch", PCS, ("PriorityClass/batch", 10)),
    ({}, "", PCS, ("PriorityClass/default-lower", 1)),            # the lowest global default
    ({}, "", {}, (None, 0)),
])
def test_priority(labels, pod_class, classes, expected) -> None:
    ref, value = extract_priority(labels, pod_class, WPC, classes)
    assert (str(ref) if ref else None, value) == expected


@pytest.mark.parametrize(("labels", "pod_class"), [({"kueue.x-k8s.io/priority-class": "urgent"}, ""), ({}, "missing")])
def test_a_missing_priority_class_makes_no_workload(labels, pod_class) -> None:
    with pytest.raises(PriorityNotFound):
        extract_priority(labels, pod_class, WPC, PCS)


def test_jobs_without_a_queue_name_or_class_get_no_workload() -> None:
    done = run(flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}), local_queue("q", "cq"),
               submitted=(job(name="a", uid="u-a", labels="{}"),
                          job(name="b", uid="u-b", labels="{kueue.x-k8s.io/queue-name: q, "
                                                          "kueue.x-k8s.io/priority-class: nope}"),
                          job(name="c", uid="u-c")))
    outcomes = {o.job.meta.name: o for o in done.outcomes}
    assert "queue-name" in outcomes["a"].error and outcomes["a"].workload is None
    assert "nope" in outcomes["b"].error and outcomes["b"].workload is None
    assert outcomes["c"].created
    created = [e for e in done.events if e.reason == "CreatedWorkload"]
    assert [(e.object, e.message) for e in created] == [
        ("default/c", f"Created Workload: default/{workload_name('c', 'u-c', 'Job', 'batch')}")]

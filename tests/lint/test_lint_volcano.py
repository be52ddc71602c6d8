"""Volcano's lint rules: a Volcano Job its job webhook refuses (minAvailable above its tasks' replicas,
in the webhook's words), a Job or PodGroup in a queue that does not exist or is Closed (the webhooks'
words; only with Volcano's Queues given), a job whose minResources exceed its queue's capability
(the job controller's minResources, the tasks in priority order); none for a job that is admitted and fits."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from kexplain.lint.rules import RULES
from tests.support.cli_helpers import TestEnvironment

JOB = """apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: train, namespace: ml}
spec:
  MINAVAILABLE
  queue: QUEUE
  tasks:
  - name: ps
    replicas: 1
    template:
      spec:
        containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]
  - name: worker
    replicas: 2
    template:
      spec:
        priorityClassName: high
        containers: [{name: c, image: i, resources: {requests: {cpu: "3", memory: 1Gi}}}]
"""
QUEUE = """apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: research}
spec: {weight: 1, capability: {cpu: "CPU"}}
status: {state: STATE}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def job(min_available: int | None = None, queue: str = "research") -> str:
    line = f"minAvailable: {min_available}" if min_available is not None else ""
    return JOB.replace("MINAVAILABLE", line).replace("QUEUE", queue)


def queue(cpu: str = "16", state: str = "Open") -> str:
    return QUEUE.replace("CPU", cpu).replace("STATE", state)


def lint(*paths: str) -> tuple[int, list[dict]]:
    env = TestEnvironment(width=200)
    code = main(["lint", *paths, "-o", "json"], env)
    return code, [f for f in json.loads(env.out)["findings"] if f["rule"].startswith("volcano-")]


def test_min_available_above_the_tasks_replicas_in_the_webhooks_words(tmp_path: Path) -> None:
    code, found = lint(_write(tmp_path, "job.yaml", job(4)))
    assert code == 1
    assert [(f["rule"], f["message"], f["line"]) for f in found] == [
        ("volcano-job-refused", "job 'minAvailable' should not be greater than total replicas in tasks;", 4)]
    assert RULES["volcano-job-refused"].severity.label == "error"


def test_a_queue_missing_or_closed_only_with_volcanos_queues_given(tmp_path: Path) -> None:
    path = _write(tmp_path, "job.yaml", job(queue="nope"))
    assert lint(path) == (0, [])          # the cluster's queues are not known: nothing said
    queues = _write(tmp_path, "queues.yaml", queue())
    _, found = lint(path, queues)
    assert [(f["rule"], f["message"], f["field"]) for f in found] == [
        ("volcano-queue", 'unable to find job queue: queue.scheduling.volcano.sh "nope" not found;', "spec.queue")]
    closed = _write(tmp_path, "closed.yaml", queue(state="Closed"))
    _, found = lint(_write(tmp_path, "job2.yaml", job()), closed)
    assert [f["message"] for f in found] == [
        "can only submit job to queue with state `Open`, queue `research` status is `Closed`;"]


def test_a_pod_group_in_a_missing_queue_in_its_webhooks_words(tmp_path: Path) -> None:
    group = """apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: pg, namespace: ml}
spec: {minMember: 2, queue: gone}
"""
    _, found = lint(_write(tmp_path, "pg.yaml", group), _write(tmp_path, "queues.yaml", queue()))
    assert [(f["rule"], f["message"]) for f in found] == [
        ("volcano-queue", 'unable to find queue: queue.scheduling.volcano.sh "gone" not found')]


def test_a_job_larger_than_its_queues_capability(tmp_path: Path) -> None:
    """minAvailable 2 of 3: the first two pods in priority order are the two workers (PriorityClass
    high), 6 cpu, over the capability's 5; the ps and a worker (4) would have fitted."""
    queues = _write(tmp_path, "queues.yaml", queue(cpu="5"))
    _, found = lint(_write(tmp_path, "job.yaml", job(2)), queues)
    assert [(f["rule"], f["message"], f["details"]) for f in found] == [
        ("volcano-over-capability", "its minResources exceed queue `research`'s capability (cpu 6 > 5): Volcano "
         "never enqueues it (proportion: queue resource quota insufficient: insufficient cpu)",
         {"queue": "research", "resources": ["cpu"]})]
    assert lint(_write(tmp_path, "fits.yaml", job(2)), _write(tmp_path, "big.yaml", queue(cpu="6"))) == (0, [])

"""The pods of a Job or of a JobSet's Jobs Kueue started by TAS, pinned as its topology ungater pins
them (`controller.tas.ungater`): the Job controller makes the pods after Kueue, so each Job carries
its copies' domains (`controllers.workloads.COPY_NODE_SELECTORS`), copy i being the pod of completion
index i (an Indexed Job's; a NonIndexed Job's pods have no index: the ungater fills the domains in
order) and, of a JobSet's Job, of its Job index (`jobset.sigs.k8s.io/job-index`)."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.controllers.workloads import COPY_NODE_SELECTORS, encode_copy_node_selectors
from kexplain.kueue.controller.jobframework.tas import JOB_COMPLETION_INDEX, JOBSET_JOB_INDEX
from kexplain.kueue.controller.tas.ungater import domains_of
from kexplain.kueue.podset import PodSetInfo


def _spec(job: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = job.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _pods(job: Mapping[str, Any], count: int, job_index: str | None) -> list[dict[str, Any]]:
    """The labels the Job's `count` pods would carry that the ungater reads (its completion index when Indexed)."""
    indexed = _spec(job).get("completionMode") == "Indexed"
    out = []
    for i in range(count):
        labels = {JOB_COMPLETION_INDEX: str(i)} if indexed else {}
        if job_index is not None:
            labels[JOBSET_JOB_INDEX] = job_index
        out.append({"metadata": {"labels": labels}})
    return out


def _active(job: Mapping[str, Any]) -> int:
    """The pods the Job controller keeps at once: parallelism (1), fewer completions."""
    spec = _spec(job)
    value = spec.get("parallelism", 1)
    parallelism = value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 1
    completions = spec.get("completions")
    return min(parallelism, completions) if isinstance(completions, int) and not isinstance(completions, bool) \
        else parallelism


def pin(jobs: list[dict[str, Any]], info: PodSetInfo) -> None:
    """`jobs` (in place: one pod set's Jobs, in order, a JobSet's each labelled with its Job index) each
    carrying its copies' domains, when the pod set was admitted by TAS."""
    if info.assignment is None or not jobs:
        return
    per_job = [_pods(j, _active(j), ((j.get("metadata") or {}).get("labels") or {}).get(JOBSET_JOB_INDEX))
               for j in jobs]
    pods = [p for ps in per_job for p in ps]
    domains = domains_of(pods, info.assignment, info.count, info.index, info.ranks)
    at = 0
    for job, ps in zip(jobs, per_job):
        mine = domains[at:at + len(ps)]
        at += len(ps)
        if any(mine):
            meta = job.setdefault("metadata", {})
            meta["annotations"] = {**(meta.get("annotations") or {}),
                                   COPY_NODE_SELECTORS: encode_copy_node_selectors(mine)}

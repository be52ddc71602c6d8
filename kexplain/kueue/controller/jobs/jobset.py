"""jobset.x-k8s.io/v1alpha2 JobSet (pkg/controller/jobs/jobset): a pod set per replicated job,
named after it, of replicas x min(parallelism, completions) pods."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.errors import InputError, Source
from kexplain.kueue.apis.meta import ObjectMeta, object_meta
from kexplain.kueue.apis.once import by_identity
from kexplain.controllers.templates import check_pod_spec
from kexplain.kueue.apis.topology import IndexLabels
from kexplain.kueue.controller.jobframework.tas import JOB_COMPLETION_INDEX, JOBSET_JOB_INDEX
from kexplain.kueue.apis.workload import PodSet

KIND = "JobSet"
GROUP = "jobset.x-k8s.io"


@dataclass(frozen=True)
class ReplicatedJob:
    name: str
    replicas: int
    parallelism: int
    completions: int
    template: Mapping[str, Any]

    def pods_count(self) -> int:
        """podsCount: replicas times PodsCountPerReplica (parallelism, or fewer completions)."""
        return self.replicas * min(self.parallelism, self.completions)


@dataclass(frozen=True)
class JobSet:
    meta: ObjectMeta
    replicated_jobs: tuple[ReplicatedJob, ...]
    source: Source | None = None
    kind: str = KIND
    group: str = GROUP

    def pod_sets(self) -> tuple[PodSet, ...]:
        return tuple(PodSet(rj.name, rj.pods_count(), rj.template) for rj in self.replicated_jobs)

    def index_labels(self, index: int) -> IndexLabels:
        """PodIndexLabel the Job's completion index, SubGroup the JobSet's Job index over its replicas."""
        return IndexLabels(JOB_COMPLETION_INDEX, JOBSET_JOB_INDEX, self.replicated_jobs[index].replicas)

    def pod_priority_class_name(self) -> str:
        for rj in self.replicated_jobs:
            name = (rj.template.get("spec") or {}).get("priorityClassName")
            if name:
                return str(name)
        return ""


def _int(value: Any, default: int, source: Source | None, obj: Any, path: str) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(f"must be a non-negative integer, not {value!r}", source=source, obj=obj, field=path)
    return value


@by_identity
def from_object(obj: dict[str, Any], source: Source | None) -> JobSet:
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    rjs = []
    for i, rj in enumerate(spec.get("replicatedJobs") or ()):
        path = f"spec.replicatedJobs[{i}]"
        job_spec = ((rj.get("template") or {}).get("spec") or {}) if isinstance(rj, Mapping) else {}
        template = job_spec.get("template")
        if not isinstance(template, Mapping) or not rj.get("name"):
            raise InputError("a replicated job needs a name and template.spec.template", source=source, obj=obj,
                             field=path)
        check_pod_spec(template.get("spec"), source, obj, f"{path}.template.spec.template.spec")
        parallelism = _int(job_spec.get("parallelism"), 1, source, obj, f"{path}.template.spec.parallelism")
        completions = _int(job_spec.get("completions"), parallelism, source, obj,
                           f"{path}.template.spec.completions")
        rjs.append(ReplicatedJob(str(rj["name"]), _int(rj.get("replicas"), 1, source, obj, f"{path}.replicas"),
                                 parallelism, completions, template))
    if not rjs:
        raise InputError("a JobSet needs spec.replicatedJobs", source=source, obj=obj, field="spec.replicatedJobs")
    return JobSet(object_meta(obj, source), tuple(rjs), source)

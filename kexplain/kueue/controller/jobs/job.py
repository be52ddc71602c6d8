"""batch/v1 Job (pkg/controller/jobs/job): one pod set `main` of min(parallelism, completions)
pods, `minCount` from the `kueue.x-k8s.io/job-min-parallelism` annotation (partial admission)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.admission.workloads import check_workload
from kexplain.errors import InputError, Source
from kexplain.kueue.apis.constants import DEFAULT_POD_SET_NAME, JOB_MIN_PARALLELISM_ANNOTATION
from kexplain.kueue.apis.meta import ObjectMeta, object_meta
from kexplain.kueue.apis.once import by_identity
from kexplain.controllers.templates import check_pod_spec
from kexplain.kueue.apis.workload import PodSet

KIND = "Job"
GROUP = "batch"
# The labels the Job controller manages that Kueue leaves out of the pod set's template.
MANAGED_LABELS = ("job-name", "controller-uid", "batch.kubernetes.io/controller-uid")


@dataclass(frozen=True)
class Job:
    meta: ObjectMeta
    parallelism: int
    completions: int | None
    template: Mapping[str, Any]
    source: Source | None = None
    kind: str = KIND
    group: str = GROUP

    def pods_count(self) -> int:
        """podsCount: parallelism, or completions when fewer."""
        if self.completions is not None and self.completions < self.parallelism:
            return self.completions
        return self.parallelism

    def min_pods_count(self) -> int | None:
        """minPodsCount: the annotation as an integer (strconv.Atoi), else none."""
        text = self.meta.annotations.get(JOB_MIN_PARALLELISM_ANNOTATION)
        if text is None:
            return None
        body = text[1:] if text[:1] in "+-" else text
        return int(text) if body.isascii() and body.isdigit() else None

    def pod_sets(self) -> tuple[PodSet, ...]:
        meta = dict(self.template.get("metadata") or {})
        if isinstance(meta.get("labels"), Mapping):
            meta["labels"] = {k: v for k, v in meta["labels"].items() if k not in MANAGED_LABELS}
        template = {**self.template, "metadata": meta}
        return (PodSet(DEFAULT_POD_SET_NAME, self.pods_count(), template, self.min_pods_count()),)

    def pod_priority_class_name(self) -> str:
        return str((self.template.get("spec") or {}).get("priorityClassName") or "")


@by_identity
def from_object(obj: dict[str, Any], source: Source | None) -> Job:
    """A Job as the API server stores it (its validation; parallelism and completions
    defaulted to 1 when neither is set, parallelism to 1 when only it is not)."""
    check_workload(obj, source)
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    parallelism, completions = spec.get("parallelism"), spec.get("completions")
    if parallelism is None and completions is None:
        completions = 1
    template = spec.get("template")
    if not isinstance(template, Mapping):
        raise InputError("a Job needs spec.template", source=source, obj=obj, field="spec.template")
    check_pod_spec(template.get("spec"), source, obj, "spec.template.spec")
    return Job(object_meta(obj, source), 1 if parallelism is None else int(parallelism),
               None if completions is None else int(completions), template, source)

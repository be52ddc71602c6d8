"""trainer.kubeflow.org/v1alpha1 TrainJob (pkg/controller/jobs/trainjob, with Kubeflow Trainer v2.2.0's
runtime framework it imports): its pod sets are those of the JobSet the trainer would make of it
(getChildJobSet: `controllers.trainjob.child_jobset`, the same builder kexplain runs for a TrainJob
Kueue does not manage), so Kueue's JobSet integration reads them (`jobset`: a pod set per replicated
job). A runtime that is not there: Kueue's TrainJob webhook (its topology check builds the pod sets)
refuses the TrainJob, `runtime 'NAME' not found`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from kexplain.controllers.templates import count_at, mapping
from kexplain.controllers.trainjob import GROUP, KIND, RUNTIME_KINDS, Runtimes, child_jobset, runtime_ref, runtimes_of
from kexplain.errors import AdmissionRejected, Source
from kexplain.kueue.apis.meta import object_meta
from kexplain.kueue.apis.topology import IndexLabels
from kexplain.kueue.controller.jobframework.tas import JOB_COMPLETION_INDEX, JOBSET_JOB_INDEX
from kexplain.kueue.controller.jobs import jobset
from kexplain.kueue.controller.jobs.podsets import PodSetsJob

READS = RUNTIME_KINDS           # what from_object reads besides the job (`kexplain.kueue.inputs`)
WEBHOOK = "vtrainjob.kb.io"


@dataclass(frozen=True)
class TrainJob(PodSetsJob):
    """A TrainJob as Kueue reads it: the JobSet the trainer makes of it (`child`), whose pod sets are its own."""

    child: Mapping[str, Any] | None = None
    sub_groups: tuple[int, ...] = ()        # each replicated job's replicas (the JobSet's SubGroup counts)

    def index_labels(self, index: int) -> IndexLabels:
        """The JobSet integration's (PodSets of the child JobSet)."""
        return IndexLabels(JOB_COMPLETION_INDEX, JOBSET_JOB_INDEX, self.sub_groups[index])


def context(objects: Iterable[tuple[Any, Any]]) -> dict[tuple[str, str, str], tuple[Mapping[str, Any], Any]]:
    """The training runtimes among `objects`, by (kind, namespace: "" for a cluster one, name)."""
    return runtimes_of(objects)


def _supported(obj: Mapping[str, Any], source: Source | None) -> tuple[str, str, str]:
    """The runtime reference's (kind, namespace, name), refused in Kueue's webhook's words when it names
    no training runtime."""
    kind, group, namespace, name = runtime_ref(obj)
    if kind not in RUNTIME_KINDS or group != GROUP:
        raise _denied(f"unsupported runtime: {kind}.{group}" if group else f"unsupported runtime: {kind}", obj, source)
    return kind, namespace, name


def _runtime(obj: Mapping[str, Any], runtimes: Runtimes, source: Source | None) -> tuple[Mapping[str, Any], Any]:
    """getRuntimeSpec's runtime, refused in Kueue's webhook's words when it is not there."""
    key = _supported(obj, source)
    found = runtimes.get(key)
    if found is None:
        raise _denied(f"runtime '{key[2]}' not found", obj, source)
    return found


def _denied(message: str, obj: Mapping[str, Any], source: Source | None) -> AdmissionRejected:
    return AdmissionRejected(f'admission webhook "{WEBHOOK}" denied the request: {message}', source=source, obj=obj)


def decode(obj: dict[str, Any], source: Source | None) -> None:
    """What the integration reads of the TrainJob alone, without its runtime (lint reads each object
    by itself: `lint.shipped`): its runtime reference and `spec.trainer.numNodes`."""
    _supported(obj, source)
    count_at(obj, mapping(mapping(obj.get("spec")).get("trainer")).get("numNodes"), 1, "spec.trainer.numNodes",
             source)


def from_object(obj: dict[str, Any], source: Source | None, runtimes: Runtimes) -> TrainJob:
    """The TrainJob as Kueue's integration reads it, with the runtimes there are (`context`)."""
    runtime, runtime_source = _runtime(obj, runtimes, source)
    child = child_jobset(obj, source, runtime, runtime_source)
    read = jobset.from_object(child, runtime_source)
    return TrainJob(object_meta(obj, source), KIND, GROUP, read.pod_sets(), source=source, child=child,
                    sub_groups=tuple(rj.replicas for rj in read.replicated_jobs))

"""The Kubeflow jobs Kueue manages (pkg/controller/jobs/kubeflow/kubeflowjob, and mpijob: the same
shape): the training-operator's kubeflow.org/v1 PyTorchJob, TFJob, XGBoostJob, PaddleJob and
JAXJob, and mpi-operator's kubeflow.org/v2beta1 MPIJob. One mechanism over their replica specs: a
pod set per replica type the job has, in the kind's OrderedReplicaTypes, named after it
(lowercased), of its replicas (1 when not set); the PriorityClass is runPolicy.schedulingPolicy's,
else the first replica template's in that order (PriorityClass())."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.errors import InputError, Source
from kexplain.kueue.apis.meta import object_meta
from kexplain.kueue.apis.once import by_identity
from kexplain.kueue.apis.workload import PodSet
from kexplain.kueue.controller.jobs.podsets import PodSetsJob
from kexplain.controllers.templates import count_at, mapping, template_at

GROUP = "kubeflow.org"


@dataclass(frozen=True)
class Kind:
    """A Kubeflow kind: its replica specs' field and its OrderedReplicaTypes."""

    field: str
    replica_types: tuple[str, ...]


KINDS: dict[str, Kind] = {
    "PyTorchJob": Kind("pytorchReplicaSpecs", ("Master", "Worker")),
    "TFJob": Kind("tfReplicaSpecs", ("Chief", "Master", "PS", "Worker", "Evaluator")),
    "XGBoostJob": Kind("xgbReplicaSpecs", ("Master", "Worker")),
    "PaddleJob": Kind("paddleReplicaSpecs", ("Master", "Worker")),
    "JAXJob": Kind("jaxReplicaSpecs", ("Worker",)),
    "MPIJob": Kind("mpiReplicaSpecs", ("Launcher", "Worker")),
}
KIND = "PyTorchJob"     # (the registry keys this module by each of KINDS)


def replica_specs(obj: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(replica type, its spec) for each type the job has, in OrderedReplicaTypes' order."""
    kind = KINDS[str(obj.get("kind"))]
    given = mapping(mapping(obj.get("spec")).get(kind.field))
    return [(t, mapping(given[t])) for t in kind.replica_types if given.get(t) is not None]


def priority_class(obj: Mapping[str, Any], specs: list[tuple[str, Mapping[str, Any]]]) -> str:
    """PriorityClass(): runPolicy.schedulingPolicy.priorityClass, else the first replica template's."""
    policy = mapping(mapping(mapping(obj.get("spec")).get("runPolicy")).get("schedulingPolicy"))
    if policy.get("priorityClass"):
        return str(policy["priorityClass"])
    for _, spec in specs:
        name = mapping(mapping(spec.get("template")).get("spec")).get("priorityClassName")
        if name:
            return str(name)
    return ""


@by_identity
def from_object(obj: dict[str, Any], source: Source | None) -> PodSetsJob:
    kind = str(obj.get("kind"))
    field = KINDS[kind].field
    specs = replica_specs(obj)
    if not specs:
        raise InputError(f"a {kind} needs spec.{field} with one of {', '.join(KINDS[kind].replica_types)}",
                         source=source, obj=obj, field=f"spec.{field}")
    sets = tuple(PodSet(t.lower(), count_at(obj, spec.get("replicas"), 1, f"spec.{field}.{t}.replicas", source),
                        template_at(obj, spec.get("template"), f"spec.{field}.{t}.template", source))
                 for t, spec in specs)
    return PodSetsJob(object_meta(obj, source), kind, GROUP, sets, priority_class(obj, specs), source=source)

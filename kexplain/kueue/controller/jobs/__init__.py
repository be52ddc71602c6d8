"""Kueue's job integrations, one module per kind (pkg/controller/jobs/<kind>), registered by
kind: each turns a user's object into a GenericJob (the operators' kinds through `podsets`: Ray's (RayJob, RayCluster, RayService),
LeaderWorkerSet, the Kubeflow jobs by one mechanism over their replica specs, AppWrapper, TrainJob as the
JobSet its runtime makes); the other kinds
Kueue manages by default are read as `unmodelled` (no Workload made, saying why)."""
from __future__ import annotations

from types import ModuleType
from typing import Any

from kexplain.errors import Source

from kexplain.kueue.controller.jobs import (appwrapper, job, jobset, kubeflow, leaderworkerset, pod, raycluster,
                                            rayjob, rayservice, statefulset, trainjob, unmodelled)

INTEGRATIONS: dict[str, ModuleType] = {job.KIND: job, pod.KIND: pod, jobset.KIND: jobset,
                                       statefulset.KIND: statefulset, rayjob.KIND: rayjob,
                                       raycluster.KIND: raycluster, rayservice.KIND: rayservice,
                                       leaderworkerset.KIND: leaderworkerset,
                                       appwrapper.KIND: appwrapper, trainjob.KIND: trainjob,
                                       **{kind: kubeflow for kind in kubeflow.KINDS}}

# What an integration reads besides its jobs (a TrainJob its runtimes): (kind, API group)
INTEGRATION_READS = frozenset((kind, m.GROUP) for m in set(INTEGRATIONS.values()) for kind in getattr(m, "READS", ()))


def decode(module: ModuleType, obj: dict[str, Any], source: Source) -> None:
    """`obj` read by its integration `module` by itself: one that READS other kinds (a TrainJob its
    runtime) checks what it reads of the object alone (its `decode`), any other builds its job."""
    if getattr(module, "READS", None):
        module.decode(obj, source)
    else:
        module.from_object(obj, source)


def integration_for(kind: str, api_version: str) -> ModuleType | None:
    """The integration of an object's kind, when its apiVersion is that integration's group."""
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    module = INTEGRATIONS.get(kind)
    if module is None:
        return unmodelled if unmodelled.handles(kind, group) else None
    return module if group == module.GROUP else None

"""The topology request each job integration puts on its pod sets (jobframework/tas.go,
NewPodSetTopologyRequest): read from the pod template's annotations (a plain Pod's own), one
mechanism for every kind."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from kexplain.kueue.apis.topology import request_from_annotations
from kexplain.kueue.apis.workload import PodSet
from kexplain.kueue.controller.jobframework.interface import GenericJob


def _annotations(template: Mapping[str, Any], job: GenericJob) -> Mapping[str, Any]:
    meta = template.get("metadata")
    if isinstance(meta, Mapping) and isinstance(meta.get("annotations"), Mapping):
        return meta["annotations"]
    return job.meta.annotations if job.kind == "Pod" else {}


def with_topology_requests(job: GenericJob, pod_sets: tuple[PodSet, ...]) -> tuple[PodSet, ...]:
    """The pod sets with the topology request their templates ask for (InputError when an
    annotation does not parse)."""
    out = []
    for ps in pod_sets:
        if ps.topology_request is None:
            request = request_from_annotations(_annotations(ps.template, job), job.source, None,
                                               f"pod set {ps.name}: template.metadata")
            if request is not None:
                ps = replace(ps, topology_request=request)
        out.append(ps)
    return tuple(out)

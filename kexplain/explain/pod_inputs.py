"""One pending pod, admitted, and its cluster (`Inputs`); imports no module that schedules."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kexplain.config import SchedulerConfig
from kexplain.controllers.ephemeral import with_volume_claims, writes_volume_claims_for
from kexplain.controllers.resourceclaim import create_claims, templates_by_key, writes_claims_for
from kexplain.errors import Source
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.state.cluster import ClusterState
from kexplain.state.objects import object_key


@dataclass
class Inputs:
    """One pending pod, admitted, and the cluster it is scheduled against."""

    pod: PodInfo
    pod_source: Source
    snapshot: Snapshot
    config: SchedulerConfig
    nominated: dict[str, list[PodInfo]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    claims_from_templates: bool = False    # kexplain plays the claims' controllers (`controllers_create_for`)
    kubelet_rejected: int = 0     # the set's other pods bound by spec.nodeName that their kubelet rejects
    # The cluster as admitted with the pod, for the autoscalers (`single_inputs`' keep_state; None: not kept)
    state: ClusterState | None = None


def with_template_claims(inputs: Inputs) -> Inputs:
    """`inputs` with the pod's template claims made as the resourceclaim controller makes them."""
    if not inputs.claims_from_templates:
        return inputs
    snapshot = inputs.snapshot
    as_written = {k: v for k, v in inputs.pod.obj.items() if k != "status"}
    made = create_claims(as_written, templates_by_key(snapshot.of_kind("ResourceClaimTemplate")),
                         snapshot.of_kind("ResourceClaim"))
    if made.claims:
        keys = {object_key(c) for c in made.claims}
        objects = dict(snapshot.objects)
        objects["ResourceClaim"] = [c for c in snapshot.of_kind("ResourceClaim") if object_key(c) not in keys] \
            + made.claims
        snapshot = snapshot.with_objects(snapshot.namespaces, objects)
    # and the claims of its generic ephemeral volumes (`kexplain.controllers.ephemeral`)
    snapshot, volume_notes = with_volume_claims(made.pod, inputs.pod_source, snapshot, inputs.config.kube)
    warnings = inputs.warnings + [n for n in [*made.notes, *volume_notes] if n not in inputs.warnings]
    return replace(inputs, pod=PodInfo(made.pod), snapshot=snapshot, warnings=warnings)


def controllers_create_for(pod: dict[str, Any]) -> bool:
    """Whether kexplain plays the controllers that create a pod's claims from its templates."""
    return writes_claims_for(pod) or writes_volume_claims_for(pod)

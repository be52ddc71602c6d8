"""A bound pod's ResourceClaims as DynamicResources' Reserve and PreBind leave them."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.request import RunOptions
from kexplain.explain.run import framework_for
from kexplain.framework.cycle_state import CycleState
from kexplain.model.snapshot import Snapshot
from kexplain.plugins.dra.binding import ClaimBinding, bound_claim
from kexplain.plugins.names import DYNAMIC_RESOURCES


def _key(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


def claim_bindings(snapshot: Snapshot, inputs: Inputs, options: RunOptions, node: str) -> tuple[ClaimBinding, ...]:
    """What PreBind writes for `inputs.pod` bound to `node`; nothing when there is no binding."""
    pod = inputs.pod
    if not pod.spec.get("resourceClaims"):
        return ()
    info = snapshot.get(node)
    if info is None:
        return ()
    fw = framework_for(replace(inputs, snapshot=snapshot), options)
    plugin = fw.plugins.get(DYNAMIC_RESOURCES)
    if plugin is None:
        return ()
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, snapshot.node_infos)
    if not status.is_success:
        return ()
    return plugin.bindings(state, pod, info) or ()


def with_claims_allocated(snapshot: Snapshot, inputs: Inputs, options: RunOptions, node: str) -> Snapshot:
    """The snapshot after `inputs.pod`'s claims are allocated and reserved for it on `node`."""
    bindings = {b.claim.key: b for b in claim_bindings(snapshot, inputs, options, node)}
    if not bindings:
        return snapshot
    classes = {str((c.get("metadata") or {}).get("name") or ""): c for c in snapshot.of_kind("DeviceClass")}
    claims = []
    for obj in snapshot.of_kind("ResourceClaim"):
        binding = bindings.get(_key(obj))
        claims.append(obj if binding is None else bound_claim(obj, binding, inputs.pod.obj, classes))
    objects = dict(snapshot.objects)
    objects["ResourceClaim"] = claims
    return snapshot.with_objects(snapshot.namespaces, objects)

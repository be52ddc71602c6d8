"""Dynamic Resource Allocation's rules (`kexplain.lint.devices`, each at the line of its field): a
CEL device selector that does not compile, a missing DeviceClass, ResourceClaim or
ResourceClaimTemplate (against the pool as the set leaves it; without a pool nothing is missing)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kexplain.lint.devices import MISSING_CLAIM, MISSING_CLASS, MISSING_TEMPLATE, SELECTOR, check_devices
from kexplain.lint.documents import Document
from kexplain.lint.findings import Finding, ObjectRef
from kexplain.lint.rule import POOL, SCHEMAS, Severity, declare

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.lint.set_state import SetCluster

RULES = (
    declare(SELECTOR, Severity.ERROR, SCHEMAS,
            "A CEL device selector does not compile: the API server refuses the object.",
            "kube-apiserver: resource.k8s.io validation of CEL selectors (dra_validate, "
            "the cel package's compile errors)"),
    declare(MISSING_CLASS, Severity.ERROR, POOL,
            "A device request names a DeviceClass the pool and the file do not have: every pod using the claim is "
            "unschedulable (device class ... does not exist).",
            "kube-scheduler: DynamicResources (device class ... does not exist)"),
    declare(MISSING_CLAIM, Severity.ERROR, POOL,
            "A pod names a ResourceClaim the pool and the file do not have: the scheduler keeps it waiting "
            "(PreEnqueue), with no event.",
            "kube-scheduler: DynamicResources PreEnqueue (the claim is not found)"),
    declare(MISSING_TEMPLATE, Severity.ERROR, POOL,
            "A pod names a ResourceClaimTemplate the pool and the file do not have: its claim is never created and "
            "the scheduler keeps the pod waiting, with no event.",
            "the resourceclaim controller (the template is not found) and DynamicResources "
            "PreEnqueue"),
)


def device_findings(items: list[Document], set_cluster: "SetCluster | None") -> dict[str, list[Finding]]:
    """DRA references and selectors (`kexplain.lint.devices`), against the pool as the set leaves it
    when there is one; by file."""
    cluster = set_cluster.pool.snapshot if set_cluster is not None else None
    refused = set(set_cluster.refused) if set_cluster is not None else set()
    out: dict[str, list[Finding]] = {}
    for p in check_devices(items, cluster, refused):
        out.setdefault(p.location.path, []).append(Finding(p.rule, p.location, ObjectRef.of(p.obj), p.message,
                                                           field=p.field))
    return out

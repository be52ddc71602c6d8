"""One DRA object through kube-apiserver's create path (`DraServer`), once decoded (`dra_convert`):
disabled-gate fields dropped (`dra_defaults`), the admin-access rule, validation (`dra_validate`),
and a claim's status as the status update that wrote it. The caller words the errors returned.
"""
from __future__ import annotations

from typing import Any

from dataclasses import dataclass

from kexplain.admission.dra_defaults import Dropped, claim_spec_of, dropped_by, prepare
from kexplain.admission.dra_validate import (admin_access_errors, admin_access_status_errors, cel_compatibility,
                                             validate_claim_status, validate_device_class, validate_resource_claim,
                                             validate_resource_claim_template, validate_resource_slice)
from kexplain.apimachinery.fielderrors import FieldError
from kexplain.features import KubeVersion

GROUP = "resource.k8s.io"
RESOURCES = {"DeviceClass": "deviceclasses", "ResourceSlice": "resourceslices",
             "ResourceClaim": "resourceclaims", "ResourceClaimTemplate": "resourceclaimtemplates"}
KINDS = frozenset(RESOURCES)


def qualified_kind(kind: str) -> str:
    """How apierrors.NewInvalid names a kind of this group."""
    return f"{kind}.{GROUP}"


def _requests(obj: dict) -> list[Any]:
    devices = claim_spec_of(obj).get("devices")
    requests = devices.get("requests") if isinstance(devices, dict) else None
    return requests if isinstance(requests, list) else []


@dataclass(frozen=True)
class DraServer:
    """One version's API server for DRA objects, resolved once per run: the fields it drops, its CEL
    compatibility version."""

    dropped: Dropped
    cel: str

    @classmethod
    def of(cls, kube: KubeVersion) -> "DraServer":
        return cls(dropped_by(kube), cel_compatibility(kube))


def admit_dra(obj: dict, namespace_labels: dict | None,
              server: DraServer) -> tuple[list[FieldError], list[FieldError]]:
    """Admit `obj` (a decoded copy) in place as `server` does: the errors of its create and, for a claim,
    of its status update. `namespace_labels`: its Namespace's (None: the cluster has none)."""
    prepare(obj, server.dropped)
    kind = obj.get("kind")
    if kind == "DeviceClass":
        return validate_device_class(obj, server.cel), []
    if kind == "ResourceSlice":
        return validate_resource_slice(obj), []
    errs = admin_access_errors(_requests(obj), namespace_labels)
    if kind == "ResourceClaimTemplate":
        return errs + validate_resource_claim_template(obj, server.cel), []
    status = obj.get("status")
    if not isinstance(status, dict) or not status:
        return errs + validate_resource_claim(obj, server.cel), []
    return (errs + validate_resource_claim(obj, server.cel),
            admin_access_status_errors(obj, namespace_labels) + validate_claim_status(obj))

"""One DRA object through kube-apiserver v1.35.4's create path, once decoded (defaulted in the
version it is written in and converted to the internal form: `dra_convert`, when admission
copies it): the dropping of disabled-gate fields (`dra_defaults`), the claim strategies'
admin-access rule, validation (`dra_validate`), and for a claim its status, checked as the
status update that wrote it.

Returns the errors the API server would refuse the object with; the caller words them
(`KIND.resource.k8s.io "NAME" is invalid: [...]`) and stops at the first refused object.
"""
from __future__ import annotations

from typing import Any

from kexplain.admission.dra_defaults import claim_spec_of, prepare
from kexplain.admission.dra_validate import (admin_access_errors, admin_access_status_errors, validate_claim_status,
                                             validate_device_class, validate_resource_claim,
                                             validate_resource_claim_template, validate_resource_slice)
from kexplain.apimachinery.fielderrors import FieldError

GROUP = "resource.k8s.io"
RESOURCES = {"DeviceClass": "deviceclasses", "ResourceSlice": "resourceslices",
             "ResourceClaim": "resourceclaims", "ResourceClaimTemplate": "resourceclaimtemplates"}
NAMESPACED = frozenset({"ResourceClaim", "ResourceClaimTemplate"})
KINDS = frozenset(RESOURCES)


def qualified_kind(kind: str) -> str:
    """How apierrors.NewInvalid names a kind of this group."""
    return f"{kind}.{GROUP}"


def _requests(obj: dict) -> list[Any]:
    devices = claim_spec_of(obj).get("devices")
    requests = devices.get("requests") if isinstance(devices, dict) else None
    return requests if isinstance(requests, list) else []


def admit_dra(obj: dict, namespace_labels: dict | None) -> tuple[list[FieldError], list[FieldError]]:
    """Admit `obj` (a decoded copy, namespace already set for namespaced kinds) in place; returns the
    errors of its create request and, for a claim, of the status update that wrote its status
    (each empty when accepted). `namespace_labels`: the labels of the object's Namespace (None:
    the cluster has none)."""
    prepare(obj)
    kind = obj.get("kind")
    if kind == "DeviceClass":
        return validate_device_class(obj), []
    if kind == "ResourceSlice":
        return validate_resource_slice(obj), []
    errs = admin_access_errors(_requests(obj), namespace_labels)
    if kind == "ResourceClaimTemplate":
        return errs + validate_resource_claim_template(obj), []
    status = obj.get("status")
    if not isinstance(status, dict) or not status:
        return errs + validate_resource_claim(obj), []
    return (errs + validate_resource_claim(obj),
            admin_access_status_errors(obj, namespace_labels) + validate_claim_status(obj))

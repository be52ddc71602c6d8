"""DRA manifests rewritten at older resource.k8s.io versions, as kube-apiserver would return them
(its conversions from the internal form, written independently of `kexplain.admission.dra_convert`):
v1beta2 is v1 under another name; v1beta1 puts a request's `exactly` fields on the request
itself and a device's fields under `basic`."""
from __future__ import annotations

import copy
from typing import Any

import yaml

DRA_KINDS = ("DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate")
V1 = "resource.k8s.io/v1"


def _v1beta1_request(request: dict) -> dict:
    out = {k: v for k, v in request.items() if k != "exactly"}
    out.update(request.get("exactly") or {})
    return out


def _claim_spec(obj: dict) -> dict | None:
    spec = obj.get("spec")
    if obj["kind"] == "ResourceClaimTemplate":
        spec = (spec or {}).get("spec")
    return spec


def to_v1beta1(obj: dict) -> dict:
    """A resource.k8s.io/v1 object as resource.k8s.io/v1beta1 writes it (other objects as they are)."""
    if obj.get("kind") not in DRA_KINDS or obj.get("apiVersion") != V1:
        return obj
    out = copy.deepcopy(obj)
    out["apiVersion"] = "resource.k8s.io/v1beta1"
    if out["kind"] == "ResourceSlice" and out["spec"].get("devices") is not None:
        out["spec"]["devices"] = [{"name": d["name"], "basic": {k: v for k, v in d.items() if k != "name"}}
                                  for d in out["spec"]["devices"]]
    elif out["kind"] in ("ResourceClaim", "ResourceClaimTemplate"):
        devices = (_claim_spec(out) or {}).get("devices") or {}
        if devices.get("requests"):
            devices["requests"] = [_v1beta1_request(r) for r in devices["requests"]]
    return out


def to_v1beta2(obj: dict) -> dict:
    """A resource.k8s.io/v1 object as resource.k8s.io/v1beta2 writes it: the same fields."""
    if obj.get("kind") not in DRA_KINDS or obj.get("apiVersion") != V1:
        return obj
    return {**copy.deepcopy(obj), "apiVersion": "resource.k8s.io/v1beta2"}


def _converted(doc: Any, convert: Any) -> Any:
    if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
        return {**doc, "items": [_converted(i, convert) for i in doc["items"]]}
    return convert(doc) if isinstance(doc, dict) else doc


def rewrite(text: str, convert: Any) -> str:
    """A multi-document YAML file with every DRA object (in a List too) converted by `convert`."""
    return yaml.safe_dump_all([_converted(d, convert) for d in yaml.safe_load_all(text)], sort_keys=False)


def objects(text: str) -> list[dict]:
    """The objects of a multi-document YAML file, Lists unwrapped."""
    out: list[dict] = []
    for doc in yaml.safe_load_all(text):
        if isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
            out.extend(i for i in doc["items"] if isinstance(i, dict))
        elif isinstance(doc, dict):
            out.append(doc)
    return out


def count_at(text: str, api_version: str) -> int:
    """How many DRA objects of a file are written at `api_version`."""
    return sum(1 for d in objects(text) if d.get("kind") in DRA_KINDS and d.get("apiVersion") == api_version)

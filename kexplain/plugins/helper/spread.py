"""Which pods count as "the same workload" as a pod without spread constraints of its own.

Default topology spreading (PodTopologySpread's system or configured default
constraints) spreads a pod among the pods selected by the Services that select
it and by its controlling ReplicationController, ReplicaSet or StatefulSet
(kube-scheduler's helper.DefaultSelector). A pod that none of those select gets
an empty selector, and then no default spreading at all.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from kexplain.model.labels import LabelSelector, SelectorError, parse_selector, selector_from_set
from kexplain.model.owners import controller_ref
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot, unchanged_by_bind

CACHE_KEY = "PodTopologySpread/owners"

# (group, version, kind) of the controllers whose selector joins the default selector.
RC_KIND = ("", "v1", "ReplicationController")
RS_KIND = ("apps", "v1", "ReplicaSet")
SS_KIND = ("apps", "v1", "StatefulSet")


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _ns_name(obj: Mapping[str, Any]) -> tuple[str, str]:
    meta = _meta(obj)
    return meta.get("namespace") or "default", meta.get("name") or ""


@dataclass
class OwnerIndex:
    """Services per namespace, and controllers by (kind, namespace, name), as the listers see them."""

    # namespace -> selectors (label maps) of the Services with a non-null selector, in file order
    services: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    # (kind, namespace, name) -> the controller object's spec.selector (raw, may be None)
    controllers: dict[tuple[str, str, str], Any] = field(default_factory=dict)

    @classmethod
    def build(cls, snapshot: Snapshot) -> "OwnerIndex":
        idx = cls()
        for svc in snapshot.of_kind("Service"):
            sel = (svc.get("spec") or {}).get("selector")
            if sel is None:
                continue  # a Service with a null selector selects nothing
            ns, _ = _ns_name(svc)
            idx.services.setdefault(ns, []).append({str(k): str(v) for k, v in sel.items()})
        for kind in ("ReplicationController", "ReplicaSet", "StatefulSet"):
            for obj in snapshot.of_kind(kind):
                ns, name = _ns_name(obj)
                # A lister holds one object per namespace/name: the last one written wins.
                idx.controllers[(kind, ns, name)] = (obj.get("spec") or {}).get("selector")
        return idx


def owner_index(snapshot: Snapshot) -> OwnerIndex:
    return snapshot.cached(CACHE_KEY, lambda: OwnerIndex.build(snapshot), unchanged_by_bind)


def parse_group_version(api_version: str) -> tuple[str, str] | None:
    """schema.ParseGroupVersion: None for more than one slash."""
    if not api_version or api_version == "/":
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", api_version
    if len(parts) == 2:
        return parts[0], parts[1]
    return None


def _merge_set(labels: dict[str, str], more: Mapping[str, Any] | None) -> dict[str, str]:
    out = dict(labels)
    for k, v in (more or {}).items():
        out[str(k)] = str(v)
    return out


def default_selector(pod: PodInfo, index: OwnerIndex) -> LabelSelector:
    """The selector of the pod's workload; selects everything (is "empty") when nothing selects it."""
    label_set: dict[str, str] = {}
    for svc_sel in index.services.get(pod.namespace, ()):
        if selector_from_set(svc_sel).matches(pod.labels):
            label_set = _merge_set(label_set, svc_sel)
    selector = selector_from_set(label_set)

    ref = controller_ref(pod)
    if ref is None:
        return selector
    gv = parse_group_version(str(ref.get("apiVersion") or ""))
    if gv is None:
        return selector
    gvk = (gv[0], gv[1], str(ref.get("kind") or ""))
    key = (gvk[2], pod.namespace, str(ref.get("name") or ""))
    if gvk == RC_KIND:
        if key in index.controllers:
            label_set = _merge_set(label_set, index.controllers[key])
            selector = selector_from_set(label_set)
    elif gvk in (RS_KIND, SS_KIND):
        if key in index.controllers:
            try:
                other = parse_selector(index.controllers[key])
            except SelectorError:
                return selector
            if not other.nothing:
                selector = LabelSelector(tuple(sorted(selector.requirements + other.requirements,
                                                      key=lambda r: r.key)))
    return selector

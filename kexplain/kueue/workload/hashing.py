"""A Workload's scheduling equivalence class (computeSchedulingHash, pkg/util/pod SpecShape),
read only when the version hashes (v0.18+): Workloads of one priority whose pod sets have the
same name, count, requests, minCount and scheduling-relevant pod spec get the same hash."""
from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

from kexplain.apimachinery import quantity
from kexplain.kueue.workload.info import Info
from kexplain.kueue.workload.ordering import priority

SPEC_KEYS = ("nodeSelector", "affinity", "tolerations", "runtimeClassName", "priority",
             "topologySpreadConstraints", "overhead", "resourceClaims")


def _quantities(raw: Any) -> Any:
    """A ResourceList as Go marshals it: each quantity in its canonical text."""
    if not isinstance(raw, Mapping):
        return raw
    out = {}
    for k, v in raw.items():
        try:
            out[k] = quantity.text_of(v)
        except quantity.QuantityError:
            out[k] = v
    return out


def _containers(containers: Any) -> list[dict[str, Any]] | None:
    if not containers:
        return None
    return [{"resources": {"requests": _quantities((c.get("resources") or {}).get("requests"))},
             "ports": c.get("ports")} for c in containers if isinstance(c, Mapping)]


def spec_shape(spec: Mapping[str, Any]) -> dict[str, Any]:
    shape: dict[str, Any] = {"initContainers": _containers(spec.get("initContainers")),
                             "containers": _containers(spec.get("containers"))}
    for key in SPEC_KEYS:
        shape[key] = _quantities(spec.get(key)) if key == "overhead" else spec.get(key)
    if isinstance(spec.get("resources"), Mapping):
        shape["resources"] = _quantities(spec["resources"].get("requests"))
    return shape


def scheduling_hash(info: Info) -> str:
    pod_sets = []
    for i, ps in enumerate(info.obj.spec.pod_sets):
        total = info.total_requests[i] if i < len(info.total_requests) else None
        pod_sets.append({"name": ps.name, "spec": spec_shape(ps.spec),
                         "count": total.count if total is not None else ps.count,
                         "requests": dict(total.requests) if total is not None else None,
                         "minCount": ps.min_count})
    text = json.dumps({"podSets": pod_sets, "priority": priority(info.obj)}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]

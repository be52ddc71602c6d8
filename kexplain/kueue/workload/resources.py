"""What Kueue adjusts in a Workload's pod templates before it counts their requests
(workload.AdjustResources): a container's limits stand in for the requests it leaves out
(UseLimitsAsMissingRequestsInPod). Pod overhead from a RuntimeClass and LimitRange defaults
are not applied (no case holds them)."""
from __future__ import annotations

from typing import Any, Mapping


def _with_missing_requests(container: Mapping[str, Any]) -> Mapping[str, Any]:
    res = container.get("resources") if isinstance(container.get("resources"), Mapping) else {}
    limits = res.get("limits") if isinstance(res.get("limits"), Mapping) else {}
    requests = res.get("requests") if isinstance(res.get("requests"), Mapping) else {}
    missing = {k: v for k, v in limits.items() if k not in requests}
    if not missing:
        return container
    return {**container, "resources": {**res, "requests": {**requests, **missing}}}


def adjusted_spec(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """The pod spec with each container's (init containers' too) and the pod-level requests
    completed from their limits (MergeResourceListKeepFirst: a request written wins)."""
    out = dict(spec)
    for key in ("initContainers", "containers"):
        if spec.get(key):
            out[key] = [_with_missing_requests(c) if isinstance(c, Mapping) else c for c in spec[key]]
    if isinstance(spec.get("resources"), Mapping):
        out["resources"] = _with_missing_requests({"resources": spec["resources"]})["resources"]
    return out

"""What Kueue adjusts in a Workload's pod templates before counting their requests
(workload.AdjustResources: limits stand in for missing requests)."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import Raw, aggregate, go_json, invalid_typed
from kexplain.apimachinery.quantity import QuantityError, parse
from kexplain.kueue.resources import iteration_order, resource_value
from kexplain.kueue.workload.workload import Workload

REQUESTS_EXCEED_LIMITS = "requests must not exceed its limits"


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


def _greater(requests: Any, limits: Any) -> list[str]:
    """GreaterKeys: the resources whose request is above a limit set for them."""
    if not isinstance(requests, Mapping) or not isinstance(limits, Mapping) or not requests or not limits:
        return []
    out = []
    for name in iteration_order(requests):
        try:
            if name in limits and resource_value(name, parse(requests[name]).value) > \
                    resource_value(name, parse(limits[name]).value):
                out.append(name)
        except QuantityError:
            continue
    return out


def validate_resources(wl: Workload) -> str:
    """ValidateResources: a container's (or the pod's) requests above its limits, aggregated as
    field errors; "" when none."""
    errs = []
    for i, ps in enumerate(wl.spec.pod_sets):
        path = f"spec.podSets[{i}].template.spec"
        for key in ("initContainers", "containers"):
            for j, c in enumerate(ps.spec.get(key) or ()):
                res = c.get("resources") if isinstance(c, Mapping) and isinstance(c.get("resources"), Mapping) else {}
                names = _greater(res.get("requests"), res.get("limits"))
                if names:
                    errs.append(invalid_typed(f"{path}.{key}[{j}]", Raw(go_json(names)), REQUESTS_EXCEED_LIMITS))
        res = ps.spec.get("resources")
        if isinstance(res, Mapping):
            names = _greater(res.get("requests"), res.get("limits"))
            if names:
                errs.append(invalid_typed(f"{path}.resources", Raw(go_json(names)), REQUESTS_EXCEED_LIMITS))
    return aggregate(errs) if errs else ""

"""ValidatePodDisruptionBudget as the API server runs it on create (the registry strategy's Validate,
then the object meta with path-segment names): a budget the API server refuses is refused here, so
no pass reads a selector Karpenter, the Eviction API or preemption could not."""
from __future__ import annotations

import re
from typing import Any

from kexplain.admission.validate_common import validate_label_selector, validate_object_meta
from kexplain.apimachinery.fielderrors import FieldError, Raw, go_json, invalid_typed, not_supported
from kexplain.apimachinery.names import path_segment_errors, regex_error

UNHEALTHY_POD_EVICTION_POLICIES = ["AlwaysAllow", "IfHealthyBudget"]
_PERCENT_FMT = "[0-9]+%"
_PERCENT = re.compile("^" + _PERCENT_FMT + "$")
_PERCENT_MSG = regex_error("a valid percent string must be a numeric string followed by an ending '%'", _PERCENT_FMT,
                           "1%", "93%")
_NEGATIVE = "must be greater than or equal to 0"


def validate_pdb(pdb: dict[str, Any]) -> list[FieldError]:
    """The errors of the first of the two checks that finds any: the spec's, else the metadata's."""
    spec = pdb.get("spec") if isinstance(pdb.get("spec"), dict) else {}
    errs = validate_spec(spec)
    if errs:
        return errs
    meta = pdb.get("metadata") if isinstance(pdb.get("metadata"), dict) else {}
    return validate_object_meta(meta, True, path_segment_errors)


def validate_spec(spec: dict[str, Any], path: str = "spec") -> list[FieldError]:
    """ValidatePodDisruptionBudgetSpec (invalid label values in the selector not allowed)."""
    errs: list[FieldError] = []
    least, most = spec.get("minAvailable"), spec.get("maxUnavailable")
    if least is not None and most is not None:
        errs.append(invalid_typed(path, Raw(_internal_spec_json(spec)), "minAvailable and maxUnavailable cannot be both set"))
    for name, value in (("minAvailable", least), ("maxUnavailable", most)):
        if value is not None:
            errs += _positive_int_or_percent(value, f"{path}.{name}")
            if isinstance(value, str) and _PERCENT.match(value) and int(value[:-1]) > 100:
                errs.append(invalid_typed(f"{path}.{name}", value, "must not be greater than 100%"))
    selector = spec.get("selector")
    errs += validate_label_selector(selector if isinstance(selector, dict) else None, f"{path}.selector")
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in UNHEALTHY_POD_EVICTION_POLICIES:
        errs.append(not_supported(f"{path}.unhealthyPodEvictionPolicy", policy, UNHEALTHY_POD_EVICTION_POLICIES))
    return errs


def _positive_int_or_percent(value: Any, path: str) -> list[FieldError]:
    """ValidatePositiveIntOrPercent."""
    if isinstance(value, str):
        return [] if _PERCENT.match(value) else [invalid_typed(path, value, _PERCENT_MSG)]
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return [invalid_typed(path, value, _NEGATIVE)]
    return []


def _internal_spec_json(spec: dict[str, Any]) -> str:
    """json.Marshal of the internal PodDisruptionBudgetSpec: Go's field names, in its order, and the
    selector as metav1.LabelSelector marshals (empty parts left out)."""
    selector = spec.get("selector")
    if isinstance(selector, dict):
        written: dict[str, Any] = {}
        if selector.get("matchLabels"):
            written["matchLabels"] = dict(sorted(selector["matchLabels"].items()))
        if selector.get("matchExpressions"):
            written["matchExpressions"] = [
                {"key": r.get("key") or "", "operator": r.get("operator") or "",
                 **({"values": r["values"]} if r.get("values") else {})}
                for r in selector["matchExpressions"] if isinstance(r, dict)]
        selector = written
    return go_json({"MinAvailable": spec.get("minAvailable"), "Selector": selector,
                    "MaxUnavailable": spec.get("maxUnavailable"),
                    "UnhealthyPodEvictionPolicy": spec.get("unhealthyPodEvictionPolicy")})

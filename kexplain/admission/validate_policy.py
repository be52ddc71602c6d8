"""What kube-apiserver checks on the namespace policies a set brings before storing them, in its words:
ValidateLimitRange, ValidateResourceQuota (pkg/apis/core/validation) and
ValidateHorizontalPodAutoscaler (pkg/apis/autoscaling/validation), after defaulting. A refused one
never acts. Versions read (v1.36.2, v1.34.1) and what is not checked: docs/internals/admission.md.
"""
from __future__ import annotations

import math
from typing import Any

from kexplain.admission.validate_common import (validate_container_resource_name, validate_object_meta,
                                                validate_quantity_value, validate_resource_name)
from kexplain.admission.validate_common import is_overcommit_allowed
from kexplain.admission.limitranger import CONTAINER, POD, set_item_defaults
from kexplain.apimachinery import quantity
from kexplain.apimachinery.fielderrors import (FieldError, Raw, duplicate, forbidden, go_json, invalid, invalid_typed,
                                               not_supported, required)
from kexplain.apimachinery.names import is_dns1123_subdomain, is_label_key, path_segment_errors, validate_dns1123_label
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.apimachinery.identity import as_dict, as_int, as_list

KINDS = frozenset({"LimitRange", "ResourceQuota", "HorizontalPodAutoscaler"})
# how apierrors names the kind in `Kind "name" is invalid`
QUALIFIED = {"LimitRange": "LimitRange", "ResourceQuota": "ResourceQuota",
             "HorizontalPodAutoscaler": "HorizontalPodAutoscaler.autoscaling"}

PVC = "PersistentVolumeClaim"         # (the LimitRange item types besides limitranger's)
_LIMIT_TYPES = (POD, CONTAINER, PVC)
_MAX_MILLI = (2 ** 63 - 1) // 1000      # resource.MaxMilliValue


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    """The metadata as the create request has it: the namespace of the request (`default`)."""
    meta = dict(as_dict(obj.get("metadata")))
    if not meta.get("namespace"):
        meta["namespace"] = "default"
    return meta


def _resources(raw: Any) -> dict[str, quantity.Quantity]:
    """A resource list as defaulted (SetDefaults_ResourceList: each value rounded up to milli
    precision); a value that does not decode is left out (the decoder refused it before)."""
    out: dict[str, quantity.Quantity] = {}
    for name, value in as_dict(raw).items():
        try:
            out[str(name)] = quantity.round_up_milli(quantity.parse(value))
        except quantity.QuantityError:
            continue
    return out


# -- LimitRange ---------------------------------------------------------------------------------
def _limit_type_errors(value: str, path: str) -> list[FieldError]:
    """validateLimitRangeTypeName."""
    errs = [invalid_typed(path, value, m) for m in is_label_key(value)]
    if errs:
        return errs
    if "/" not in value and value not in _LIMIT_TYPES:
        return [invalid_typed(path, value, "must be a standard limit type or fully qualified")]
    return []


def _limit_name_errors(limit_type: str, name: str, path: str) -> list[FieldError]:
    """validateLimitRangeResourceName: a Pod or Container item's resources are containers'."""
    if limit_type in (POD, CONTAINER):
        return validate_container_resource_name(name, path)
    return validate_resource_name(name, path)


def _defaulted_item(raw: dict[str, Any]) -> dict[str, dict[str, quantity.Quantity]]:
    """SetObjectDefaults_LimitRange of one item: a Container item's missing default is its max,
    its missing defaultRequest its default, else its min; every value rounded up to milli."""
    values = {key: _resources(raw.get(key)) for key in ("max", "min", "default", "defaultRequest",
                                                        "maxLimitRequestRatio")}
    set_item_defaults(raw.get("type"), values)
    return values


def _q(value: quantity.Quantity) -> str:
    return quantity.canonical(value)


def validate_limit_range(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateLimitRange of the LimitRange as defaulted; [] when the API server stores it."""
    errs = validate_object_meta(_meta(obj), True, is_dns1123_subdomain)
    seen: set[str] = set()
    for i, raw in enumerate(as_list(as_dict(obj.get("spec")).get("limits"))):
        raw = as_dict(raw)
        path = f"spec.limits[{i}]"
        limit_type = str(raw.get("type") or "")
        errs += _limit_type_errors(limit_type, f"{path}.type")
        if limit_type in seen:
            errs.append(duplicate(f"{path}.type", limit_type, typed=True))
        seen.add(limit_type)
        values = _defaulted_item(raw)
        keys: set[str] = set()
        for key in ("max", "min"):
            for name in sorted(values[key]):
                errs += _limit_name_errors(limit_type, name, f"{path}.{key}[{name}]")
                keys.add(name)
        if limit_type == POD:
            for key in ("default", "defaultRequest"):
                if values[key]:
                    errs.append(forbidden(f"{path}.{key}", "may not be specified when `type` is 'Pod'"))
            values["default"], values["defaultRequest"] = {}, {}
        else:
            for key in ("default", "defaultRequest"):
                for name in sorted(values[key]):
                    errs += _limit_name_errors(limit_type, name, f"{path}.{key}[{name}]")
                    keys.add(name)
        if limit_type == PVC and "storage" not in values["min"] and "storage" not in values["max"]:
            errs.append(required(f"{path}.limits",
                                 "either minimum or maximum storage value is required, but neither was provided"))
        for name in sorted(values["maxLimitRequestRatio"]):
            errs += _limit_name_errors(limit_type, name, f"{path}.maxLimitRequestRatio[{name}]")
            keys.add(name)
        for name in sorted(keys):
            errs += _bounds_errors(name, values, path)
    return errs


def _bounds_errors(name: str, values: dict[str, dict[str, quantity.Quantity]], path: str) -> list[FieldError]:
    """The checks of one resource of an item across its min, max, default, defaultRequest and
    maxLimitRequestRatio, in Go's order."""
    low, high = values["min"].get(name), values["max"].get(name)
    default, request = values["default"].get(name), values["defaultRequest"].get(name)
    ratio = values["maxLimitRequestRatio"].get(name)
    errs: list[FieldError] = []

    def at(key: str) -> str:
        return f"{path}.{key}[{name}]"
    if low is not None and high is not None and low.value > high.value:
        errs.append(invalid_typed(at("min"), _q(low), f"min value {_q(low)} is greater than max value {_q(high)}"))
    if request is not None and low is not None and low.value > request.value:
        errs.append(invalid_typed(at("defaultRequest"), _q(request),
                                  f"min value {_q(low)} is greater than default request value {_q(request)}"))
    if request is not None and high is not None and request.value > high.value:
        errs.append(invalid_typed(at("defaultRequest"), _q(request),
                                  f"default request value {_q(request)} is greater than max value {_q(high)}"))
    if request is not None and default is not None and request.value > default.value:
        errs.append(invalid_typed(at("defaultRequest"), _q(request),
                                  f"default request value {_q(request)} is greater than default limit value "
                                  f"{_q(default)}"))
    if default is not None and low is not None and low.value > default.value:
        errs.append(invalid_typed(at("default"), _q(low), f"min value {_q(low)} is greater than default value "
                                                          f"{_q(default)}"))
    if default is not None and high is not None and default.value > high.value:       # (Go shows the max)
        errs.append(invalid_typed(at("default"), _q(high), f"default value {_q(default)} is greater than max value "
                                                           f"{_q(high)}"))
    if ratio is not None and ratio.value < 1:
        errs.append(invalid_typed(at("maxLimitRequestRatio"), _q(ratio), f"ratio {_q(ratio)} is less than 1"))
    if ratio is not None and low is not None and high is not None:
        ratio_value: float = quantity.value(ratio.value)
        low_value, high_value = quantity.value(low.value), quantity.value(high.value)
        if quantity.value(ratio.value) < _MAX_MILLI and low_value < _MAX_MILLI and high_value < _MAX_MILLI:
            ratio_value = quantity.milli_value(ratio.value) / 1000
            low_value, high_value = quantity.milli_value(low.value), quantity.milli_value(high.value)
        limit = _divide(float(high_value), float(low_value))
        if ratio_value > limit:
            errs.append(invalid_typed(at("maxLimitRequestRatio"), _q(ratio),
                                      f"ratio {_q(ratio)} is greater than max/min = {_go_float(limit)}"))
    if not is_overcommit_allowed(name) and default is not None and request is not None and \
            default.value != request.value:
        errs.append(invalid_typed(at("defaultRequest"), _q(request),
                                  f"default value {_q(default)} must equal to defaultRequest value {_q(request)} in "
                                  f"{name}"))
    return errs


def _divide(a: float, b: float) -> float:
    """Go's float64 division: by zero, an infinity (or NaN for 0/0)."""
    if b == 0:
        return math.nan if a == 0 else math.copysign(math.inf, a)
    return a / b


def _go_float(value: float) -> str:
    """fmt's %f."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return f"{value:f}"


# -- ResourceQuota ------------------------------------------------------------------------------
STANDARD_QUOTA_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
    "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas",
    "services", "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps", "services.nodeports",
    "services.loadbalancers"})
SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass", "VolumeAttributesClass",
          "CrossNamespacePodAffinity")
_POD_COUNT = frozenset({"pods"})
_POD_COMPUTE = frozenset({"cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"})
_EXISTS_ONLY = ("BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity")
_CONFLICTS = (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating"))


def _standard_quota_resource(name: str) -> bool:
    """helper.IsStandardQuotaResourceName."""
    return name in STANDARD_QUOTA_RESOURCES or name.startswith(("hugepages-", "requests.hugepages-"))


def _scope_valid_for(scope: str, name: str) -> bool:
    """helper.IsResourceQuotaScopeValidForResource."""
    if scope in ("Terminating", "NotTerminating", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity"):
        return name in _POD_COUNT or name in _POD_COMPUTE
    if scope == "BestEffort":
        return name in _POD_COUNT
    if scope == "VolumeAttributesClass":
        return name in ("persistentvolumeclaims", "requests.storage")
    return True


def _quota_resource_name_errors(name: str, path: str) -> list[FieldError]:
    """ValidateResourceQuotaResourceName."""
    errs = validate_resource_name(name, path)
    if "/" not in name and not _standard_quota_resource(name):
        errs.append(invalid_typed(path, name, "must be a standard resource for quota"))
    return errs


def _scope_selector_value(selector: dict[str, Any]) -> Raw:
    """A *core.ScopeSelector as json.Marshal writes it: internal types, Go field names."""
    exprs = [{"ScopeName": str(as_dict(e).get("scopeName") or ""), "Operator": str(as_dict(e).get("operator") or ""),
              "Values": [str(v) for v in as_list(as_dict(e).get("values"))] or None}
             for e in as_list(selector.get("matchExpressions"))]
    return Raw(go_json({"MatchExpressions": exprs or None}))


def validate_resource_quota(obj: dict[str, Any]) -> list[FieldError]:
    """ValidateResourceQuota of the ResourceQuota as created (its status cleared); [] when the
    API server stores it."""
    errs = validate_object_meta(_meta(obj), True, is_dns1123_subdomain)
    spec = as_dict(obj.get("spec"))
    hard = {str(k): v for k, v in as_dict(spec.get("hard")).items()}
    for name in sorted(hard):
        path = f"spec.hard[{name}]"
        errs += _quota_resource_name_errors(name, path)
        try:
            errs += validate_quantity_value(name, quantity.canonical(quantity.round_up_milli(quantity.parse(hard[name]))),
                                            path)
        except quantity.QuantityError:
            continue
    names = sorted(hard)
    scopes = [str(s) for s in as_list(spec.get("scopes"))]
    scopes_value = scopes if spec.get("scopes") is not None else None
    if scopes:
        for scope in scopes:
            if scope not in SCOPES:
                errs.append(invalid_typed("spec.scopes", scopes_value, "unsupported scope"))
            for name in names:
                if _standard_quota_resource(name) and not _scope_valid_for(scope, name):
                    errs.append(invalid_typed("spec.scopes", scopes_value, "unsupported scope applied to resource"))
        for pair in _CONFLICTS:
            if all(s in scopes for s in pair):
                errs.append(invalid_typed("spec.scopes", scopes_value, "conflicting scopes"))
    selector = spec.get("scopeSelector")
    if isinstance(selector, dict):
        path = "spec.scopeSelector.matchExpressions"
        seen: set[str] = set()
        for e in as_list(selector.get("matchExpressions")):
            e = as_dict(e)
            scope, operator = str(e.get("scopeName") or ""), str(e.get("operator") or "")
            values = [str(v) for v in as_list(e.get("values"))]
            if scope not in SCOPES:
                errs.append(invalid_typed(f"{path}.scopeName", scope, "unsupported scope"))
            for name in names:
                if _standard_quota_resource(name) and not _scope_valid_for(scope, name):
                    errs.append(invalid_typed(path, _scope_selector_value(selector),
                                              "unsupported scope applied to resource"))
            if scope in _EXISTS_ONLY and operator != "Exists":
                errs.append(invalid_typed(f"{path}.operator", operator,
                                          "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
                                          "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
                                          "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
            if operator in ("In", "NotIn"):
                if not values:
                    errs.append(required(f"{path}.values", "must be at least one value when `operator` is 'In' or "
                                                           "'NotIn' for scope selector"))
            elif operator in ("Exists", "DoesNotExist"):
                if values:
                    errs.append(invalid_typed(f"{path}.values", values, "must be no value when `operator` is 'Exist' "
                                                                        "or 'DoesNotExist' for scope selector"))
            else:
                errs.append(invalid_typed(f"{path}.operator", operator, "not a valid selector operator"))
            seen.add(scope)
        for pair in _CONFLICTS:
            if all(s in seen for s in pair):
                errs.append(invalid_typed(path, scopes_value, "conflicting scopes"))
    return errs


# -- HorizontalPodAutoscaler --------------------------------------------------------------------
MAX_PERIOD_SECONDS = 1800
MAX_STABILIZATION_WINDOW_SECONDS = 3600
METRIC_SOURCE_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"]     # sorted, as Go lists them
_SOURCE_FIELDS = {"Object": "object", "Pods": "pods", "Resource": "resource", "External": "external",
                  "ContainerResource": "containerResource"}
_SOURCE_ORDER = ("object", "external", "pods", "resource", "containerResource")
DEFAULT_CPU_UTILIZATION = 80


def internal_hpa(obj: dict[str, Any]) -> dict[str, Any]:
    """An autoscaling/v1 or v2 HPA's spec as the API server validates it: defaulted and converted to v2."""
    spec = dict(as_dict(obj.get("spec")))
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if str(obj.get("apiVersion") or "") == "autoscaling/v1":
        target = spec.pop("targetCPUUtilizationPercentage", None)
        utilization = target if target is not None else DEFAULT_CPU_UTILIZATION
        spec["metrics"] = [{"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": utilization}}}]
    elif not as_list(spec.get("metrics")):
        spec["metrics"] = [{"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}}}]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        spec["behavior"] = {key: _defaulted_rules(behavior.get(key)) for key in ("scaleUp", "scaleDown")}
    return spec


def _defaulted_rules(raw: Any) -> dict[str, Any]:
    """copyHPAScalingRules onto the defaults: what the rules set, the defaults' policies where
    they set none (nil; an empty list is kept, and refused)."""
    rules = as_dict(raw)
    out = {"selectPolicy": "Max", "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15}]}
    for key in ("selectPolicy", "stabilizationWindowSeconds", "policies", "tolerance"):
        if rules.get(key) is not None:
            out[key] = rules[key]
    return out


def validate_hpa(obj: dict[str, Any], kube: KubeVersion = DEFAULT_VERSION) -> list[FieldError]:
    """ValidateHorizontalPodAutoscaler of `internal_hpa` with the registry's options for a create."""
    errs = validate_object_meta(_meta(obj), True, is_dns1123_subdomain)
    spec = internal_hpa(obj)
    lower = 0 if kube.enabled("HPAScaleToZero") else 1
    minimum, maximum = as_int(spec.get("minReplicas")), as_int(spec.get("maxReplicas")) or 0
    if minimum is not None and minimum < lower:
        errs.append(invalid_typed("spec.minReplicas", minimum, f"must be greater than or equal to {lower}"))
    if kube.minor in ("1.33", "1.34"):
        if maximum < 1:
            errs.append(invalid_typed("spec.maxReplicas", maximum, "must be greater than 0"))
    elif maximum == 0:
        errs.append(required("spec.maxReplicas", "must be set and greater than 0"))
    elif maximum < 0:
        errs.append(invalid_typed("spec.maxReplicas", maximum, "must be greater than or equal to 1"))
    if minimum is not None and maximum < minimum:
        errs.append(invalid_typed("spec.maxReplicas", maximum, "must be greater than or equal to `minReplicas`"))
    versions = kube.minor != "1.33"         # the apiVersion checks came with v1.34 (kubernetes#132537)
    target = as_dict(spec.get("scaleTargetRef"))
    errs += _object_reference(target, "spec.scaleTargetRef", versions and target.get("kind") != "ReplicationController",
                              versions)
    errs += _metrics(as_list(spec.get("metrics")), "spec.metrics", minimum, versions)
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        tolerance = kube.enabled("HPAConfigurableTolerance")    # (else dropped on create)
        for key in ("scaleUp", "scaleDown"):
            errs += _scaling_rules(as_dict(behavior.get(key)), f"spec.behavior.{key}", tolerance)
    return errs


def _object_reference(ref: dict[str, Any], path: str, group: bool, versions: bool = True) -> list[FieldError]:
    """ValidateCrossVersionObjectReference; `group`: the apiVersion must name a group;
    `versions`: the apiVersion is checked at all."""
    errs: list[FieldError] = []
    for key in ("kind", "name"):
        value = str(ref.get(key) or "")
        if not value:
            errs.append(required(f"{path}.{key}"))
        else:
            errs += [invalid(f"{path}.{key}", value, m) for m in path_segment_errors(value)]
    api_version = str(ref.get("apiVersion") or "")
    problem = _group_version_problem(api_version, group) if versions else ""
    if problem:
        errs.append(invalid(f"{path}.apiVersion", api_version, problem))
    return errs


def _group_version_problem(api_version: str, group_required: bool) -> str:
    """ValidateAPIVersion: schema.ParseGroupVersion's error, or the missing group."""
    if api_version in ("", "/"):
        group = ""
    elif api_version.count("/") == 0:
        group = ""
    elif api_version.count("/") == 1:
        group = api_version.split("/")[0]
    else:
        return f"unexpected GroupVersion string: {api_version}"
    if group_required and not group:
        return "apiVersion must specify API group"
    return ""


def _metrics(metrics: list[Any], path: str, minimum: int | None, versions: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    has_object_or_external = False
    for i, metric in enumerate(metrics):
        metric = as_dict(metric)
        errs += _metric(metric, f"{path}[{i}]", versions)
        has_object_or_external |= metric.get("type") in ("Object", "External")
    if minimum == 0 and not has_object_or_external:
        errs.append(forbidden(path, "must specify at least one Object or External metric to support scaling to zero "
                                    "replicas"))
    return errs


def _metric(metric: dict[str, Any], path: str, versions: bool) -> list[FieldError]:
    """validateMetricSpec."""
    errs: list[FieldError] = []
    kind = str(metric.get("type") or "")
    if not kind:
        errs.append(required(f"{path}.type", "must specify a metric source type"))
    if kind not in METRIC_SOURCE_TYPES:
        errs.append(not_supported(f"{path}.type", kind, METRIC_SOURCE_TYPES))
    present = [f for f in _SOURCE_ORDER if metric.get(f) is not None]
    if present:
        first = present[0]
        if first == "object":
            errs += _object_source(as_dict(metric[first]), f"{path}.{first}", versions)
        else:
            errs += _SOURCE_CHECKS[first](as_dict(metric[first]), f"{path}.{first}")
    expected = _SOURCE_FIELDS.get(kind)
    if expected is not None:
        if metric.get(expected) is None:
            errs.append(required(f"{path}.{expected}", "must populate information for the given metric source"))
    else:
        errs.append(not_supported(f"{path}.type", kind, METRIC_SOURCE_TYPES))
    if len(present) != 1:
        for other in sorted(set(present) - {expected}):
            errs.append(forbidden(f"{path}.{other}", "must populate the given metric source only"))
    return errs


def _identifier(metric: dict[str, Any], path: str) -> list[FieldError]:
    name = str(metric.get("name") or "")
    if not name:
        return [required(f"{path}.name", "must specify a metric name")]
    return [invalid(f"{path}.name", name, m) for m in path_segment_errors(name)]


def _target(target: dict[str, Any], path: str) -> list[FieldError]:
    """validateMetricTarget."""
    errs: list[FieldError] = []
    kind = str(target.get("type") or "")
    if not kind:
        errs.append(required(f"{path}.type", "must specify a metric target type"))
    if kind not in ("Utilization", "Value", "AverageValue"):
        errs.append(invalid_typed(f"{path}.type", kind, "must be either Utilization, Value, or AverageValue"))
    for key in ("value", "averageValue"):
        if target.get(key) is not None:
            try:
                q = quantity.round_up_milli(quantity.parse(target[key]))
            except quantity.QuantityError:
                continue
            if q.value <= 0:
                errs.append(invalid_typed(f"{path}.{key}", _q(q), "must be positive"))
    utilization = as_int(target.get("averageUtilization"))
    if utilization is not None and utilization < 1:
        errs.append(invalid_typed(f"{path}.averageUtilization", utilization, "must be greater than 0"))
    return errs


def _object_source(src: dict[str, Any], path: str, versions: bool = True) -> list[FieldError]:
    target = as_dict(src.get("target"))
    errs = _object_reference(as_dict(src.get("describedObject")), f"{path}.describedObject", False, versions)
    errs += _identifier(as_dict(src.get("metric")), f"{path}.metric")
    errs += _target(target, f"{path}.target")
    if target.get("value") is None and target.get("averageValue") is None:
        errs.append(required(f"{path}.target.averageValue", "must set either a target value or averageValue"))
    return errs


def _external_source(src: dict[str, Any], path: str) -> list[FieldError]:
    target = as_dict(src.get("target"))
    errs = _identifier(as_dict(src.get("metric")), f"{path}.metric") + _target(target, f"{path}.target")
    if target.get("value") is None and target.get("averageValue") is None:
        errs.append(required(f"{path}.target.averageValue", "must set either a target value for metric or a per-pod "
                                                            "target"))
    if target.get("value") is not None and target.get("averageValue") is not None:
        errs.append(forbidden(f"{path}.target.value", "may not set both a target value for metric and a per-pod target"))
    return errs


def _pods_source(src: dict[str, Any], path: str) -> list[FieldError]:
    target = as_dict(src.get("target"))
    errs = _identifier(as_dict(src.get("metric")), f"{path}.metric") + _target(target, f"{path}.target")
    if target.get("averageValue") is None:
        errs.append(required(f"{path}.target.averageValue", "must specify a positive target averageValue"))
    return errs


def _utilization_or_value(target: dict[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if target.get("averageUtilization") is None and target.get("averageValue") is None:
        errs.append(required(f"{path}.target.averageUtilization", "must set either a target raw value or a target "
                                                                  "utilization"))
    if target.get("averageUtilization") is not None and target.get("averageValue") is not None:
        errs.append(forbidden(f"{path}.target.averageValue", "may not set both a target raw value and a target "
                                                             "utilization"))
    return errs


def _resource_source(src: dict[str, Any], path: str) -> list[FieldError]:
    target = as_dict(src.get("target"))
    errs: list[FieldError] = []
    if not src.get("name"):
        errs.append(required(f"{path}.name", "must specify a resource name"))
    return errs + _target(target, f"{path}.target") + _utilization_or_value(target, path)


def _container_resource_source(src: dict[str, Any], path: str) -> list[FieldError]:
    target = as_dict(src.get("target"))
    errs: list[FieldError] = []
    name, container = str(src.get("name") or ""), str(src.get("container") or "")
    if not name:
        errs.append(required(f"{path}.name", "must specify a resource name"))
    else:
        errs += validate_container_resource_name(name, f"{path}.name")
    if not container:
        errs.append(required(f"{path}.container", "must specify a container"))
    else:
        errs += validate_dns1123_label(container, f"{path}.container")
    return errs + _target(target, f"{path}.target") + _utilization_or_value(target, path)


_SOURCE_CHECKS = {"external": _external_source, "pods": _pods_source,
                  "resource": _resource_source, "containerResource": _container_resource_source}
SELECT_POLICIES = ["Disabled", "Max", "Min"]
POLICY_TYPES = ["Percent", "Pods"]


def _scaling_rules(rules: dict[str, Any], path: str, tolerance_kept: bool) -> list[FieldError]:
    """validateScalingRules of a behavior's rules, defaulted."""
    errs: list[FieldError] = []
    window = as_int(rules.get("stabilizationWindowSeconds"))
    if window is not None and window < 0:
        errs.append(invalid_typed(f"{path}.stabilizationWindowSeconds", window, "must be greater than or equal to zero"))
    if window is not None and window > MAX_STABILIZATION_WINDOW_SECONDS:
        errs.append(invalid_typed(f"{path}.stabilizationWindowSeconds", window,
                                  f"must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}"))
    select = rules.get("selectPolicy")
    if select is not None and select not in SELECT_POLICIES:
        errs.append(not_supported(f"{path}.selectPolicy", select, SELECT_POLICIES))
    policies = as_list(rules.get("policies"))
    if not policies:
        errs.append(required(f"{path}.policies", "must specify at least one Policy"))
    for i, policy in enumerate(policies):
        policy = as_dict(policy)
        at = f"{path}.policies[{i}]"
        kind = str(policy.get("type") or "")
        if kind not in POLICY_TYPES:
            errs.append(not_supported(f"{at}.type", kind, POLICY_TYPES))
        value, period = as_int(policy.get("value")) or 0, as_int(policy.get("periodSeconds")) or 0
        if value <= 0:
            errs.append(invalid_typed(f"{at}.value", value, "must be greater than zero"))
        if period <= 0:
            errs.append(invalid_typed(f"{at}.periodSeconds", period, "must be greater than zero"))
        if period > MAX_PERIOD_SECONDS:
            errs.append(invalid_typed(f"{at}.periodSeconds", period, f"must be less than or equal to {MAX_PERIOD_SECONDS}"))
    tolerance = rules.get("tolerance") if tolerance_kept else None
    if tolerance is not None:
        try:
            q = quantity.parse(tolerance)
        except quantity.QuantityError:
            q = None
        if q is not None and q.value < 0:
            errs.append(invalid(f"{path}.tolerance", _q(q), "must be greater than or equal to 0"))
    return errs


def validate(obj: dict[str, Any], kube: KubeVersion = DEFAULT_VERSION) -> list[FieldError]:
    """The field errors of a policy object of `KINDS` as the API server of `kube` creates it."""
    kind = obj.get("kind")
    if kind == "LimitRange":
        return validate_limit_range(obj)
    if kind == "ResourceQuota":
        return validate_resource_quota(obj)
    if kind == "HorizontalPodAutoscaler":
        return validate_hpa(obj, kube)
    return []

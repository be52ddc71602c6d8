"""Validation pieces shared by several kinds: object metadata, selectors, resources, tolerations.

Each function returns the field errors in the order the Go validation appends
them, with the same paths (including Go's own odd ones) and details.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

from kexplain.apimachinery import quantity
from kexplain.model.resources import (is_extended_resource as is_extended, is_hugepage as is_hugepages,
                                      is_native_resource as is_native)
from kexplain.apimachinery.fielderrors import (FieldError, Raw, duplicate, go_json, go_quote, forbidden, invalid,
                                               invalid_typed, not_found, not_supported, required, too_long)
from kexplain.apimachinery.strconv import parse_int64
from kexplain.apimachinery.names import (is_dns1123_label, is_dns1123_subdomain, is_label_key, is_label_value,
                    validate_label_name, validate_labels)

ANNOTATIONS_SIZE_LIMIT = 256 * 1024
STANDARD_FINALIZERS = {"kubernetes", "orphan", "foregroundDeletion"}

NameFn = Callable[[str], Sequence[str]]


def _mask_trailing_dash(name: str) -> str:
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def validate_object_meta(meta: dict, namespaced: bool, name_fn: NameFn) -> list[FieldError]:
    """ValidateObjectMeta (create) plus core's finalizer-name check."""
    errs: list[FieldError] = []
    generate = meta.get("generateName") or ""
    if generate:
        errs += [invalid("metadata.generateName", generate, m) for m in name_fn(_mask_trailing_dash(generate))]
    name = meta.get("name") or ""
    if not name:
        errs.append(required("metadata.name", "name or generateName is required"))
    else:
        errs += [invalid("metadata.name", name, m) for m in name_fn(name)]
    namespace = meta.get("namespace") or ""
    if namespaced:
        if not namespace:
            errs.append(required("metadata.namespace"))
        else:
            errs += [invalid("metadata.namespace", namespace, m) for m in is_dns1123_label(namespace)]
    elif namespace:
        errs.append(forbidden("metadata.namespace", "not allowed on this type"))
    generation = meta.get("generation")
    if isinstance(generation, int) and generation < 0:
        errs.append(invalid_typed("metadata.generation", generation, "must be greater than or equal to 0"))
    errs += validate_labels(meta.get("labels"), "metadata.labels")
    errs += validate_annotations(meta.get("annotations"), "metadata.annotations")
    errs += _validate_owner_references(meta.get("ownerReferences") or [])
    finalizers = [f for f in meta.get("finalizers") or [] if isinstance(f, str)]
    for fin in finalizers:
        errs += [invalid("metadata.finalizers", fin, m) for m in is_label_key(fin)]
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:
        errs.append(invalid_typed("metadata.finalizers", finalizers,
                                  "finalizer orphan and foregroundDeletion cannot be both set"))
    for i, fin in enumerate(finalizers):
        errs += kube_finalizer_errors(fin, f"metadata.finalizers[{i}]")
    return errs


def kube_finalizer_errors(fin: str, path: str) -> list[FieldError]:
    """validateKubeFinalizerName: an unqualified finalizer must be a standard one."""
    if "/" not in fin and fin not in STANDARD_FINALIZERS:
        return [invalid(path, fin, "name is neither a standard finalizer name nor is it fully qualified")]
    return []


def validate_annotations(annotations: dict | None, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    total = 0
    for key, value in (annotations or {}).items():
        errs += [invalid(path, key, m) for m in is_label_key(key.lower())]
        total += len(key.encode()) + len((value or "").encode())
    if total > ANNOTATIONS_SIZE_LIMIT:
        errs.append(too_long(path, ANNOTATIONS_SIZE_LIMIT))
    return errs


def _validate_owner_references(refs: list) -> list[FieldError]:
    errs: list[FieldError] = []
    path = "metadata.ownerReferences"
    first_controller = ""
    for ref in refs:
        if not isinstance(ref, dict):
            continue
        api_version = ref.get("apiVersion") or ""
        parts = api_version.split("/")
        version = "" if len(parts) > 2 or not api_version else parts[-1]
        if not version:
            errs.append(invalid(f"{path}.apiVersion", api_version, "version must not be empty"))
        if not ref.get("kind"):
            errs.append(invalid(f"{path}.kind", ref.get("kind") or "", "must not be empty"))
        if not ref.get("name"):
            errs.append(invalid(f"{path}.name", ref.get("name") or "", "must not be empty"))
        if not ref.get("uid"):
            errs.append(invalid_typed(f"{path}.uid", ref.get("uid") or "", "must not be empty"))
        if ref.get("controller"):
            current = f"{ref.get('kind') or ''}/{ref.get('name') or ''}"
            if first_controller:
                errs.append(invalid_typed(path, refs,
                                          'Only one reference can have Controller set to true. Found "true" in '
                                          f"references for {first_controller} and {current}"))
            else:
                first_controller = current
    return errs


def validate_label_selector(selector: dict | None, path: str) -> list[FieldError]:
    """metav1 ValidateLabelSelector (invalid label values not allowed)."""
    if not isinstance(selector, dict):
        return []
    errs = validate_labels(selector.get("matchLabels"), f"{path}.matchLabels")
    for i, req in enumerate(selector.get("matchExpressions") or []):
        p = f"{path}.matchExpressions[{i}]"
        op = req.get("operator") or ""
        values = req.get("values") or []
        if op in ("In", "NotIn"):
            if not values:
                errs.append(required(f"{p}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
        elif op in ("Exists", "DoesNotExist"):
            if values:
                errs.append(forbidden(f"{p}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
        else:
            errs.append(invalid_typed(f"{p}.operator", op, "not a valid selector operator"))
        errs += validate_label_name(req.get("key") or "", f"{p}.key")
        for j, value in enumerate(values):
            errs += [invalid(f"{p}.values[{j}]", value, m) for m in is_label_value(value)]
    return errs


def validate_node_selector_requirement(req: dict, path: str, allow_invalid_values: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    op = req.get("operator") or ""
    values = req.get("values") or []
    if op in ("In", "NotIn"):
        if not values:
            errs.append(required(f"{path}.values", "must be specified when `operator` is 'In' or 'NotIn'"))
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(forbidden(f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(required(f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(invalid_typed(f"{path}.operator", op, "not a valid selector operator"))
    errs += validate_label_name(req.get("key") or "", f"{path}.key")
    if not allow_invalid_values:
        for j, value in enumerate(values):
            errs += [invalid(f"{path}.values[{j}]", value, m) for m in is_label_value(value)]
    return errs


def validate_node_field_requirement(req: dict, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    op = req.get("operator") or ""
    values = req.get("values") or []
    if op in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(required(f"{path}.values",
                                 "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
    else:
        errs.append(invalid_typed(f"{path}.operator", op, "not a valid selector operator"))
    key = req.get("key") or ""
    if key != "metadata.name":
        errs.append(invalid(f"{path}.key", key, "not a valid field selector key"))
    else:
        for j, value in enumerate(values):
            errs += [invalid(f"{path}.values[{j}]", value, m) for m in is_dns1123_subdomain(value)]
    return errs


def validate_node_selector_term(term: dict, path: str, allow_invalid_values: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    for j, req in enumerate(term.get("matchExpressions") or []):
        errs += validate_node_selector_requirement(req, f"{path}.matchExpressions[{j}]", allow_invalid_values)
    for j, req in enumerate(term.get("matchFields") or []):
        errs += validate_node_field_requirement(req, f"{path}.matchFields[{j}]")
    return errs


def validate_node_selector(selector: dict, path: str, allow_invalid_values: bool = False) -> list[FieldError]:
    """ValidateNodeSelector: at least one term, each term's requirements."""
    terms = selector.get("nodeSelectorTerms") or []
    if not terms:
        return [required(f"{path}.nodeSelectorTerms", "must have at least one node selector term")]
    errs: list[FieldError] = []
    for i, term in enumerate(terms):
        errs += validate_node_selector_term(term or {}, f"{path}.nodeSelectorTerms[{i}]", allow_invalid_values)
    return errs


def validate_taint_effect(effect: str, allow_empty: bool, path: str) -> list[FieldError]:
    if not allow_empty and not effect:
        return [required(path)]
    if effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
        return [not_supported(path, effect, ["NoSchedule", "PreferNoSchedule", "NoExecute"])]
    return []


# How ValidateTolerations takes the numeric operators Lt and Gt, by TaintTolerationComparisonOperators:
COMPARISON_UNKNOWN = "unknown"      # no such gate (before 1.35): any other operator, two supported values
COMPARISON_REFUSED = "refused"      # the gate off: refused, naming all four operators
COMPARISON_ALLOWED = "allowed"      # the gate on: the value must be a decimal int64


def comparison_operators(gates: Mapping[str, bool]) -> str:
    """How a version with these feature gates validates Lt and Gt tolerations."""
    gate = "TaintTolerationComparisonOperators"
    if gate not in gates:
        return COMPARISON_UNKNOWN
    return COMPARISON_ALLOWED if gates[gate] else COMPARISON_REFUSED


def _decimal_integer(value: str) -> list[str]:
    """content.IsDecimalInteger: canonical form, no sign but '-', no leading zero."""
    if not value:
        return ["must be non-empty"]
    if re.fullmatch(r"0|-?[1-9][0-9]*", value):
        return []
    return ["must be a valid decimal integer in canonical form"]


def _numeric_toleration_value(value: str, path: str) -> list[FieldError]:
    errs = [invalid(path, value, m) for m in _decimal_integer(value)]
    if parse_int64(value) is None:
        reason = "value out of range" if re.fullmatch(r"[+-]?[0-9]+", value) else "invalid syntax"
        errs.append(invalid(path, value, f"strconv.ParseInt: parsing {go_quote(value)}: {reason}"))
    return errs


def validate_tolerations(tolerations: list, path: str, comparison: str = COMPARISON_REFUSED) -> list[FieldError]:
    """ValidateTolerations; `comparison` (`comparison_operators`) says how Lt and Gt are taken
    (refused with the gate off: the v1.35 default)."""
    errs: list[FieldError] = []
    for i, t in enumerate(tolerations):
        p = f"{path}[{i}]"
        key = t.get("key") or ""
        op = t.get("operator") or ""
        value = t.get("value") or ""
        effect = t.get("effect") or ""
        if key:
            errs += validate_label_name(key, f"{p}.key")
        if not key and op != "Exists":
            errs.append(invalid_typed(f"{p}.operator", op,
                                      'operator must be Exists when `key` is empty, which means "match all values and all keys"'))
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            errs.append(invalid_typed(f"{p}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        if op in ("Equal", ""):
            msgs = is_label_value(value)
            if msgs:
                errs.append(invalid(f"{p}.operator", value, ";".join(msgs)))
        elif op == "Exists":
            if value:
                errs.append(invalid(f"{p}.operator", value, "value must be empty when `operator` is 'Exists'"))
        elif op in ("Lt", "Gt") and comparison == COMPARISON_ALLOWED:
            errs += _numeric_toleration_value(value, f"{p}.value")
        elif op in ("Lt", "Gt") and comparison == COMPARISON_REFUSED:
            errs.append(not_supported(f"{p}.operator", op, ["Equal", "Exists", "Lt", "Gt"]))
        else:
            errs.append(not_supported(f"{p}.operator", op, ["Equal", "Exists"]))
        if effect:
            errs += validate_taint_effect(effect, True, f"{p}.effect")
    return errs


# --- resources -------------------------------------------------------------------------------

STANDARD_RESOURCES = {
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "quotas", "services",
    "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage",
    "requests.storage", "services.nodeports", "services.loadbalancers",
}
INTEGER_RESOURCES = {"pods", "quotas", "services", "replicationcontrollers", "secrets", "configmaps",
                     "persistentvolumeclaims", "services.nodeports", "services.loadbalancers"}
STANDARD_CONTAINER_RESOURCES = {"cpu", "memory", "ephemeral-storage"}


def is_overcommit_allowed(name: str) -> bool:
    return is_native(name) and not is_hugepages(name)


def is_integer_resource(name: str) -> bool:
    return name in INTEGER_RESOURCES or is_extended(name)


def _is_standard_resource(name: str) -> bool:
    return name in STANDARD_RESOURCES or name.startswith("hugepages-") or name.startswith("requests.hugepages-")


def validate_resource_name(name: str, path: str) -> list[FieldError]:
    errs = [invalid_typed(path, name, m) for m in is_label_key(name)]
    if errs:
        return errs
    if "/" not in name and not _is_standard_resource(name):
        return [invalid_typed(path, name, "must be a standard resource type or fully qualified")]
    return []


def validate_container_resource_name(name: str, path: str) -> list[FieldError]:
    errs = validate_resource_name(name, path)
    if "/" not in name:
        if name not in STANDARD_CONTAINER_RESOURCES and not is_hugepages(name):
            return errs + [invalid_typed(path, name, "must be a standard resource for containers")]
    elif not is_native(name) and not is_extended(name):
        return errs + [invalid_typed(path, name, "doesn't follow extended resource name standard")]
    return errs


def validate_pod_resource_name(name: str, path: str) -> list[FieldError]:
    errs = validate_resource_name(name, path)
    if errs:
        return errs
    if name not in ("cpu", "memory") and not is_hugepages(name):
        return [not_supported(path, name, ["cpu", "hugepages-", "memory"])]
    return []


def validate_quantity_value(name: str, raw: Any, path: str) -> list[FieldError]:
    """ValidateResourceQuantityValue: non-negative, whole for integer resources."""
    if type(raw) is str:
        negative, fractional = _text_faults(name, raw)
        if not (negative or fractional):
            return []
    q = quantity.parse(raw)
    negative, fractional = _faults(name, q)
    errs: list[FieldError] = []
    if negative:
        errs.append(invalid(path, quantity.canonical(q), "must be greater than or equal to 0"))
    if fractional:
        errs.append(invalid_typed(path, quantity.canonical(q), "must be an integer"))
    return errs


def _faults(name: str, q: quantity.Quantity) -> tuple[bool, bool]:
    """(below zero, a fraction of an integer resource)."""
    return q.value < 0, is_integer_resource(name) and _milli(q) % 1000 != 0


@lru_cache(maxsize=4096)
def _text_faults(name: str, text: str) -> tuple[bool, bool]:
    """`_faults` of a quantity text, cached (a cluster's nodes repeat a few dozen); a text that does not
    parse raises, uncached."""
    return _faults(name, quantity.parse_text(text))


def _milli(q: quantity.Quantity) -> int:
    return math.ceil(q.value * 1000)


def _hugepage_error(name: str, q: quantity.Quantity) -> str | None:
    try:
        page = quantity.parse_text(name[len("hugepages-"):])
    except quantity.QuantityError:
        page = None
    divisible = (page is not None and page.value > 0 and _milli(page) % 1000 == 0
                 and math.ceil(q.value) % math.ceil(page.value) == 0)
    if divisible:
        return None
    return f"{quantity.canonical(q)} is not positive integer multiple of {name}"


def validate_resource_requirements(res: dict, path: str, name_fn: Callable[[str, str], list[FieldError]],
                                   pod_claim_names: set[str]) -> list[FieldError]:
    """validateResourceRequirements: names, values, request <= limit, hugepages, claims."""
    errs: list[FieldError] = []
    limits = res.get("limits") or {}
    requests = res.get("requests") or {}
    lim_cpu_mem = req_cpu_mem = lim_huge = req_huge = False
    for name, raw in limits.items():
        p = f"{path}.limits[{name}]"
        errs += name_fn(name, p)
        errs += validate_quantity_value(name, raw, p)
        if is_hugepages(name):
            lim_huge = True
            msg = _hugepage_error(name, quantity.parse(raw))
            if msg:
                errs.append(invalid(p, quantity.text_of(raw), msg))
        if name in ("cpu", "memory"):
            lim_cpu_mem = True
    for name, raw in requests.items():
        p = f"{path}.requests[{name}]"
        errs += name_fn(name, p)
        errs += validate_quantity_value(name, raw, p)
        q = quantity.parse(raw)
        if name in limits:
            lq = quantity.parse(limits[name])
            if q.value != lq.value and not is_overcommit_allowed(name):
                errs.append(invalid(f"{path}.requests", quantity.canonical(q),
                                    f"must be equal to {name} limit of {quantity.canonical(lq)}"))
            elif q.value > lq.value:
                errs.append(invalid(f"{path}.requests", quantity.canonical(q),
                                    f"must be less than or equal to {name} limit of {quantity.canonical(lq)}"))
        elif not is_overcommit_allowed(name):
            errs.append(required(f"{path}.limits", "Limit must be set for non overcommitable resources"))
        if is_hugepages(name):
            req_huge = True
            msg = _hugepage_error(name, q)
            if msg:
                errs.append(invalid(p, quantity.canonical(q), msg))
        if name in ("cpu", "memory"):
            req_cpu_mem = True
    if not lim_cpu_mem and not req_cpu_mem and (req_huge or lim_huge):
        errs.append(forbidden(path, "HugePages require cpu or memory"))
    errs += _validate_claim_names(res.get("claims") or [], pod_claim_names, f"{path}.claims")
    return errs


def _validate_claim_names(claims: list, pod_claim_names: set[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, claim in enumerate(claims):
        name = (claim or {}).get("name") or ""
        request = (claim or {}).get("request") or ""
        p = f"{path}[{i}]"
        if not name:
            errs.append(required(p))
            continue
        if name in names:
            errs.append(duplicate(p, name))
        else:
            key = name
            if request:
                errs += [invalid(f"{p}.request", request, m) for m in is_dns1123_label(request)]
                key += "/" + request
            if key in names:
                errs.append(duplicate(p, key))
            elif not request:
                errs += [duplicate(p, name) for k in names if "/" in k and k.split("/", 1)[0] == name]
            names.add(key)
        if name not in pod_claim_names:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += " which is empty" if not pod_claim_names else ": " + ", ".join(sorted(pod_claim_names))
            errs.append(not_found(p, name, detail))
    return errs


def taint_repr(t: dict) -> Raw:
    """json.Marshal of an internal core.Taint (no json tags: Go field names)."""
    time_added = t.get("timeAdded")
    return Raw(go_json({"Key": t.get("key") or "", "Value": t.get("value") or "",
                        "Effect": t.get("effect") or "",
                        "TimeAdded": str(time_added) if time_added is not None else None}))

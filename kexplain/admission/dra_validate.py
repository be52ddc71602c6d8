"""The API server's validation of the DRA kinds (resource.k8s.io/v1), with its messages.

kube-apiserver v1.35.4's hand-written rules (pkg/apis/resource/validation), on objects already
defaulted and stripped of disabled gates' fields (`dra_defaults`). What is not reproduced:
docs/internals/admission.md.
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable, Iterable

from kexplain.apimachinery.fielderrors import (FieldError, child, duplicate, forbidden, index, invalid, invalid_typed,
                                               not_supported, required, too_long)
from kexplain.apimachinery.names import is_dns1123_subdomain, validate_dns1123_label, validate_labels
from kexplain.admission.validate_common import validate_annotations, validate_node_selector, validate_object_meta
from kexplain.features import KubeVersion
from kexplain.apimachinery.identity import as_dict, as_list

REQUESTS_MAX = 32                   # DeviceRequestsMaxSize (= AllocationResultsMaxSize)
SUBREQUESTS_MAX = 8                 # FirstAvailableDeviceRequestMaxSize
SELECTORS_MAX = 32                  # DeviceSelectorsMaxSize
CONSTRAINTS_MAX = 32                # DeviceConstraintsMaxSize
CONFIG_MAX = 32                     # DeviceConfigMaxSize
RESULTS_MAX = 32                    # AllocationResultsMaxSize
RESERVED_FOR_MAX = 256              # ResourceClaimReservedForMaxSize
SLICE_DEVICES_MAX = 128             # ResourceSliceMaxDevices
ATTRIBUTES_AND_CAPACITIES_MAX = 32  # ResourceSliceMaxAttributesAndCapacitiesPerDevice
DRIVER_NAME_MAX = 63                # DriverNameMaxLength
POOL_NAME_MAX = 253                 # PoolNameMaxLength
DOMAIN_MAX = 63                     # DeviceMaxDomainLength
ID_MAX = 32                         # DeviceMaxIDLength
ATTRIBUTE_VALUE_MAX = 64            # DeviceAttributeMaxValueLength
OPAQUE_PARAMETERS_MAX = 10 * 1024   # OpaqueParametersMaxLength
ALLOCATION_MODES = ["All", "ExactCount"]
CONFIG_SOURCES = ["FromClaim", "FromClass"]

_REQUEST_REF = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
_ONE_REQUEST_TYPE = "exactly one of `exactly` or `firstAvailable` is required"
_NODE_FIELDS = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
_C_IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_RE = re.compile(f"^{_C_IDENTIFIER}$")
_C_IDENTIFIER_MSG = ("a valid C identifier must start with alphabetic character or '_', followed by a string of "
                     "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', "
                     f"regex used for validation is '{_C_IDENTIFIER}')")
# semver.org 2.0.0, as the API server's regular expression spells it.
_NUM = r"(0|[1-9]\d*)"
_PRE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = r"[0-9a-zA-Z-]+"
_SEMVER_RE = re.compile(rf"^{_NUM}\.{_NUM}\.{_NUM}(-{_PRE}(\.{_PRE})*)?(\+{_BUILD}(\.{_BUILD})*)?$", re.ASCII)

Errors = list[FieldError]
Item = Callable[[Any, str], Errors]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def preformatted(path: str, body: str) -> FieldError:
    """A field error whose text after `path: ` is already rendered (TooMany, CEL messages)."""
    return FieldError(body, path)


def too_many(path: str, actual: int, limit: int) -> FieldError:
    """field.TooMany."""
    return preformatted(path, f"Too many: {actual}: must have at most {limit} {'item' if limit == 1 else 'items'}")


# -- lists, sets and maps (the helpers every DRA rule is built from) ------------------------------
def validate_slice(items: Any, limit: int, item: Item, path: str) -> Errors:
    """Too many items short-circuits (denial-of-service protection); else each item."""
    items = as_list(items)
    if 0 <= limit < len(items):
        return [too_many(path, len(items), limit)]
    errs: Errors = []
    for i, value in enumerate(items):
        errs += item(value, index(path, i))
    return errs


def validate_set(items: Any, limit: int, item: Item, key: Callable[[Any], Any], path: str) -> Errors:
    """`validate_slice`, then a Duplicate error for every item whose key came before."""
    items = as_list(items)
    if 0 <= limit < len(items):
        return [too_many(path, len(items), limit)]
    errs = validate_slice(items, -1, item, path)
    seen: set[Any] = set()
    for i, value in enumerate(items):
        k = key(value)
        if k in seen:
            errs.append(duplicate(index(path, i), k))
        else:
            seen.add(k)
    return errs


def _truncated(key: str, limit: int) -> str:
    """truncateIfTooLong: a long map key shown with its middle elided."""
    limit = max(limit, 16)
    if len(key) <= limit:
        return key
    remaining = limit - 3
    return key[:(remaining + 1) // 2] + "..." + key[len(key) - remaining // 2:]


# -- names --------------------------------------------------------------------------------------
def validate_driver_name(name: Any, path: str) -> Errors:
    """ValidateCSIDriverName: drivers and attribute domains."""
    name = _text(name)
    errs: Errors = [required(path)] if not name else []
    if len(name) > DRIVER_NAME_MAX:
        errs.append(too_long(path, DRIVER_NAME_MAX))
    return errs + [invalid(path, name, m) for m in is_dns1123_subdomain(name.lower())]


def validate_pool_name(name: Any, path: str) -> Errors:
    name = _text(name)
    if not name:
        return [required(path)]
    errs: Errors = [too_long(path, POOL_NAME_MAX)] if len(name) > POOL_NAME_MAX else []
    for part in name.split("/"):
        errs += [invalid(path, part, m) for m in is_dns1123_subdomain(part)]
    return errs


def _c_identifier(ident: str, path: str) -> Errors:
    errs: Errors = [too_long(path, ID_MAX)] if len(ident) > ID_MAX else []
    if not _C_IDENTIFIER_RE.match(ident) or ident.endswith("\n"):
        errs.append(invalid(path, ident, _C_IDENTIFIER_MSG))
    return errs


def validate_qualified_name(name: str, path: str) -> Errors:
    """An attribute or capacity name: a C identifier, optionally after `domain/`."""
    parts = name.split("/")
    if len(parts) == 1:
        return _c_identifier(parts[0], path)
    if len(parts) != 2:
        return []                     # the API server does not look at more slashes (a known gap)
    domain, ident = parts
    errs = validate_driver_name(domain, path) if domain else [invalid(path, "", "the domain must not be empty")]
    errs += _c_identifier(ident, path) if ident else [invalid(path, "", "the name must not be empty")]
    return errs


def validate_fully_qualified_name(name: str, path: str) -> Errors:
    errs = validate_qualified_name(name, path)
    if "/" not in name:
        errs.append(invalid(path, name, "a fully qualified name must be a domain and a name separated by a slash"))
    return errs


# -- CEL selectors --------------------------------------------------------------------------------
def cel_compatibility(kube: KubeVersion) -> str:
    """The CEL compatibility version new expressions compile at (environment.DefaultCompatibilityVersion:
    the API server's minor minus one, so a rollback still reads what it accepted)."""
    major, _, minor = kube.minor.partition(".")
    return f"{major}.{int(minor) - 1}"


def validate_cel_expression(expression: Any, path: str, cel: str | None = None) -> Errors:
    """The DRA CEL compiler's verdict on a new expression (environment NewExpressions, at the
    compatibility version `cel`, `cel_compatibility`; None: every library)."""
    # lazy: the CEL compiler (about 0.1 s) only for an object with an expression (docs/development.md, "Lazy imports")
    from kexplain.cel import api_validation_error

    expression = _text(expression)
    problem = api_validation_error(expression, cel)
    if problem is None:
        return []
    marker = ": program instantiation failed: "
    if problem.startswith("Invalid value: ") and marker in problem:   # ErrorTypeInternal in the API server
        problem = "Internal error: " + problem[problem.index(marker) + 2:]
    return [preformatted(path, problem)]


def _selector(selector: Any, path: str, env: str | None) -> Errors:
    cel = as_dict(selector).get("cel")
    if not isinstance(cel, dict):
        return [required(child(path, "cel"))]
    return validate_cel_expression(cel.get("expression"), child(path, "cel", "expression"), env)


def validate_selectors(selectors: Any, path: str, cel: str | None = None) -> Errors:
    return validate_slice(selectors, SELECTORS_MAX, lambda s, p: _selector(s, p, cel), path)


# -- device configuration ----------------------------------------------------------------------
def _raw_length(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str).encode())


def _opaque(opaque: dict, path: str) -> Errors:
    errs = validate_driver_name(opaque.get("driver"), child(path, "driver"))
    params, p = opaque.get("parameters"), child(path, "parameters")
    if params is None or params == "":
        errs.append(required(p))
    elif _raw_length(params) > OPAQUE_PARAMETERS_MAX:
        errs.append(too_long(p, OPAQUE_PARAMETERS_MAX))
    elif not isinstance(params, dict):
        errs.append(invalid(p, "<value omitted>", "must be a valid JSON object"))
    return errs


def validate_device_configuration(config: Any, path: str) -> Errors:
    opaque = as_dict(config).get("opaque")
    if not isinstance(opaque, dict):
        return [required(child(path, "opaque"))]
    return _opaque(opaque, child(path, "opaque"))


# -- claims -------------------------------------------------------------------------------------
RequestNames = dict[str, "frozenset[str] | None"]


def request_names(devices: dict) -> RequestNames:
    """Each request's name, with its subrequests' names (None for an `exactly` request)."""
    out: RequestNames = {}
    for request in as_list(devices.get("requests")):
        request = as_dict(request)
        subs = [s for s in as_list(request.get("firstAvailable")) if isinstance(s, dict)]
        out[_text(request.get("name"))] = frozenset(_text(s.get("name")) for s in subs) if subs else None
    return out


def _names_request(names: RequestNames, ref: str) -> bool:
    parts = ref.split("/")
    if len(parts) > 2 or parts[0] not in names:
        return False
    return len(parts) == 1 or parts[1] in (names[parts[0]] or ())


def validate_request_ref(ref: Any, path: str, names: RequestNames) -> Errors:
    ref = _text(ref)
    parts = ref.split("/")
    if len(parts) > 2:
        return [invalid(path, ref, _REQUEST_REF)]
    errs: Errors = []
    for part in parts:
        errs += validate_dns1123_label(part, path)
    if not _names_request(names, ref):
        errs.append(invalid(path, ref, _REQUEST_REF))
    return errs


def _request_refs(refs: Any, path: str, names: RequestNames) -> Errors:
    return validate_set(refs, REQUESTS_MAX, lambda r, p: validate_request_ref(r, p, names), _text, path)


def _allocation_mode(body: dict, path: str) -> Errors:
    mode, count = body.get("allocationMode") or "", body.get("count") or 0
    if mode == "All":
        return [invalid_typed(child(path, "count"), count, "must not be specified when allocationMode is 'All'")] \
            if count else []
    if mode == "ExactCount":
        return [] if count > 0 else [invalid_typed(child(path, "count"), count, "must be greater than zero")]
    return [not_supported(child(path, "allocationMode"), mode, ALLOCATION_MODES)]


def _device_class_name(name: Any, path: str) -> Errors:
    name = _text(name)
    return [required(path)] if not name else [invalid(path, name, m) for m in is_dns1123_subdomain(name)]


def _request_body(body: dict, path: str, cel: str | None) -> Errors:
    """What an `exactly` request and a subrequest share: class, selectors, count."""
    errs = _device_class_name(body.get("deviceClassName"), child(path, "deviceClassName"))
    errs += validate_selectors(body.get("selectors"), child(path, "selectors"), cel)
    return errs + _allocation_mode(body, path)


def _subrequest(sub: Any, path: str, cel: str | None) -> Errors:
    sub = as_dict(sub)
    return validate_dns1123_label(_text(sub.get("name")), child(path, "name")) + _request_body(sub, path, cel)


def _request(request: Any, path: str, cel: str | None) -> Errors:
    request = as_dict(request)
    errs = validate_dns1123_label(_text(request.get("name")), child(path, "name"))
    first = [s for s in as_list(request.get("firstAvailable"))]
    exactly = request.get("exactly")
    if not first and exactly is None:
        errs.append(required(path, _ONE_REQUEST_TYPE))
    elif first and exactly is not None:
        errs.append(invalid_typed(path, None, _ONE_REQUEST_TYPE + ", but multiple fields are set"))
    elif first:
        errs += validate_set(first, SUBREQUESTS_MAX, lambda s, p: _subrequest(s, p, cel),
                             lambda s: _text(as_dict(s).get("name")), child(path, "firstAvailable"))
    else:
        errs += _request_body(as_dict(exactly), child(path, "exactly"), cel)
    return errs


def _constraint(constraint: Any, path: str, names: RequestNames) -> Errors:
    constraint = as_dict(constraint)
    errs = _request_refs(constraint.get("requests"), child(path, "requests"), names)
    attribute = constraint.get("matchAttribute")
    if attribute is None:
        return errs + [required(child(path, "matchAttribute"))]
    return errs + validate_fully_qualified_name(_text(attribute), child(path, "matchAttribute"))


def _claim_config(config: Any, path: str, names: RequestNames) -> Errors:
    config = as_dict(config)
    return _request_refs(config.get("requests"), child(path, "requests"), names) + \
        validate_device_configuration(config, path)


def validate_claim_spec(spec: dict, path: str, cel: str | None = None) -> Errors:
    """validateResourceClaimSpec: requests, constraints, configs (selectors compiled at the CEL
    compatibility version `cel`)."""
    devices = as_dict(spec.get("devices"))
    p = child(path, "devices")
    names = request_names(devices)
    errs = validate_set(devices.get("requests"), REQUESTS_MAX, lambda r, rp: _request(r, rp, cel),
                        lambda r: _text(as_dict(r).get("name")), child(p, "requests"))
    errs += validate_slice(devices.get("constraints"), CONSTRAINTS_MAX,
                           lambda c, cp: _constraint(c, cp, names), child(p, "constraints"))
    errs += validate_slice(devices.get("config"), CONFIG_MAX,
                           lambda c, cp: _claim_config(c, cp, names), child(p, "config"))
    return errs


def validate_resource_claim(claim: dict, cel: str | None = None) -> Errors:
    errs = validate_object_meta(as_dict(claim.get("metadata")), True, is_dns1123_subdomain)
    return errs + validate_claim_spec(as_dict(claim.get("spec")), "spec", cel)


def validate_resource_claim_template(template: dict, cel: str | None = None) -> Errors:
    errs = validate_object_meta(as_dict(template.get("metadata")), True, is_dns1123_subdomain)
    spec = as_dict(template.get("spec"))
    meta = as_dict(spec.get("metadata"))
    errs += validate_annotations(meta.get("annotations"), "spec.metadata.annotations")
    errs += validate_labels(meta.get("labels"), "spec.metadata.labels")
    for key, value in meta.items():                # ValidateTemplateObjectMeta's allow-list
        if key not in ("labels", "annotations") and value not in (None, "", [], {}):
            errs.append(forbidden(child("spec.metadata", key), "cannot be set for a template"))
    return errs + validate_claim_spec(as_dict(spec.get("spec")), "spec.spec", cel)


# -- a claim's status, as the update that wrote it ------------------------------------------------
def _consumer(ref: Any, path: str) -> Errors:
    ref = as_dict(ref)
    return [required(child(path, key)) for key in ("resource", "name", "uid") if not ref.get(key)]


def _result(result: Any, path: str, names: RequestNames) -> Errors:
    result = as_dict(result)
    errs = validate_request_ref(result.get("request"), child(path, "request"), names)
    errs += validate_driver_name(result.get("driver"), child(path, "driver"))
    errs += validate_pool_name(result.get("pool"), child(path, "pool"))
    return errs + validate_dns1123_label(_text(result.get("device")), child(path, "device"))


def _allocation_config(config: Any, path: str, names: RequestNames) -> Errors:
    config = as_dict(config)
    source = _text(config.get("source"))
    errs: Errors = []
    if not source:
        errs.append(required(child(path, "source")))
    elif source not in CONFIG_SOURCES:
        errs.append(not_supported(child(path, "source"), source, CONFIG_SOURCES))
    return errs + _claim_config(config, path, names)


def validate_claim_status(claim: dict) -> Errors:
    """validateResourceClaimStatusUpdate against an empty old status."""
    status = as_dict(claim.get("status"))
    names = request_names(as_dict(as_dict(claim.get("spec")).get("devices")))
    reserved = as_list(status.get("reservedFor"))
    errs = validate_set(reserved, RESERVED_FOR_MAX, _consumer, lambda r: _text(as_dict(r).get("uid")),
                        "status.reservedFor")
    allocation = status.get("allocation")
    if reserved and not isinstance(allocation, dict):
        errs.append(forbidden("status.reservedFor", "may not be specified when `allocated` is not set"))
    if isinstance(allocation, dict):
        devices = as_dict(allocation.get("devices"))
        p = "status.allocation.devices"
        errs += validate_slice(devices.get("results"), RESULTS_MAX, lambda r, rp: _result(r, rp, names),
                               child(p, "results"))
        errs += validate_slice(devices.get("config"), 2 * CONFIG_MAX,
                               lambda c, cp: _allocation_config(c, cp, names), child(p, "config"))
        if isinstance(allocation.get("nodeSelector"), dict):
            errs += validate_node_selector(allocation["nodeSelector"], "status.allocation.nodeSelector")
    return errs


# -- device classes -------------------------------------------------------------------------------
def validate_device_class(cls: dict, cel: str | None = None) -> Errors:
    errs = validate_object_meta(as_dict(cls.get("metadata")), False, is_dns1123_subdomain)
    spec = as_dict(cls.get("spec"))
    errs += validate_selectors(spec.get("selectors"), "spec.selectors", cel)
    return errs + validate_slice(spec.get("config"), CONFIG_MAX, validate_device_configuration, "spec.config")


# -- resource slices ------------------------------------------------------------------------------
_ATTRIBUTE_FIELDS = ("int", "bool", "string", "version")   # DeviceAttribute's fields, in Go order


def _attribute(attribute: Any, path: str) -> Errors:
    attribute = as_dict(attribute)
    errs: Errors = []
    present = [f for f in _ATTRIBUTE_FIELDS if attribute.get(f) is not None]
    for name in ("string", "version"):
        value = attribute.get(name)
        if value is None:
            continue
        value, p = str(value), child(path, name)
        if name == "version" and not _SEMVER_RE.match(value):
            errs.append(invalid(p, value, "must be a string compatible with semver.org spec 2.0.0"))
        if len(value.encode()) > ATTRIBUTE_VALUE_MAX:
            errs.append(too_long(p, ATTRIBUTE_VALUE_MAX))
    if not present:
        errs.append(invalid(path, "", "exactly one value must be specified"))
    elif len(present) > 1:
        errs.append(invalid_typed(path, {f: attribute[f] for f in present}, "exactly one value must be specified"))
    return errs


def _named_map(values: Any, path: str, item: Item | None) -> Errors:
    """validateMap over attributes or capacities: each name (reported at the map), each value."""
    errs: Errors = []
    for name, value in as_dict(values).items():
        name = str(name)
        errs += validate_qualified_name(name, path)
        if item is not None:
            errs += item(value, index(path, _truncated(name, DOMAIN_MAX + 1 + ID_MAX)))
    return errs


def _device(device: Any, path: str) -> Errors:
    device = as_dict(device)
    errs = validate_dns1123_label(_text(device.get("name")), child(path, "name"))
    total = len(as_dict(device.get("attributes"))) + len(as_dict(device.get("capacity")))
    if total > ATTRIBUTES_AND_CAPACITIES_MAX:
        errs.append(invalid_typed(path, total, "the total number of attributes and capacities must not exceed "
                                               f"{ATTRIBUTES_AND_CAPACITIES_MAX}"))
    errs += _named_map(device.get("attributes"), child(path, "attributes"), _attribute)
    return errs + _named_map(device.get("capacity"), child(path, "capacity"), None)


def _node_selection(spec: dict) -> Errors:
    errs: Errors = []
    chosen: list[str] = []
    node_name = spec.get("nodeName")
    if node_name is not None:
        if node_name:
            chosen.append("`nodeName`")
            errs += [invalid("spec.nodeName", str(node_name), m) for m in is_dns1123_subdomain(str(node_name))]
        else:
            errs.append(invalid("spec.nodeName", "", "must be either unset or set to a non-empty string"))
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        chosen.append("`nodeSelector`")
        errs += validate_node_selector(selector, "spec.nodeSelector")
        terms = as_list(selector.get("nodeSelectorTerms"))
        if len(terms) != 1:
            errs.append(invalid_typed("spec.nodeSelector.nodeSelectorTerms", terms or None,
                                      "must have exactly one node selector term"))
    all_nodes = spec.get("allNodes")
    if all_nodes is not None:
        if all_nodes:
            chosen.append("`allNodes`")
        else:
            errs.append(invalid_typed("spec.allNodes", False, "must be either unset or set to true"))
    if not chosen:
        errs.append(required("spec", _NODE_FIELDS))
    elif len(chosen) > 1:
        errs.append(invalid("spec", "{" + ", ".join(chosen) + "}", _NODE_FIELDS + ", but multiple fields are set"))
    return errs


def validate_resource_slice(slice_: dict) -> Errors:
    errs = validate_object_meta(as_dict(slice_.get("metadata")), False, is_dns1123_subdomain)
    spec = as_dict(slice_.get("spec"))
    errs += validate_driver_name(spec.get("driver"), "spec.driver")
    pool = as_dict(spec.get("pool"))
    errs += validate_pool_name(pool.get("name"), "spec.pool.name")
    count, generation = pool.get("resourceSliceCount") or 0, pool.get("generation") or 0
    if count <= 0:
        errs.append(invalid_typed("spec.pool.resourceSliceCount", count, "must be greater than zero"))
    if generation < 0:
        errs.append(invalid_typed("spec.pool.generation", generation, "must be greater than or equal to zero"))
    errs += _node_selection(spec)
    return errs + validate_set(spec.get("devices"), SLICE_DEVICES_MAX, _device,
                               lambda d: _text(as_dict(d).get("name")), "spec.devices")


# -- the namespace rule for admin access (a validating step of the claim strategies) --------------
ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"
ADMIN_ACCESS_MESSAGE = f"admin access to devices requires the `{ADMIN_ACCESS_LABEL}: true` label on the containing namespace"


def admin_access_errors(requests: Iterable[Any], namespace_labels: dict | None,
                        path: Callable[[int], str] = lambda i: f"spec.devices.requests[{i}].adminAccess") -> Errors:
    """AuthorizedForAdmin: the first `exactly` request with adminAccess true needs the namespace label."""
    for i, request in enumerate(requests):
        exactly = as_dict(as_dict(request).get("exactly"))
        if exactly.get("adminAccess") is True:
            if (namespace_labels or {}).get(ADMIN_ACCESS_LABEL) == "true":
                return []
            return [forbidden(path(i), ADMIN_ACCESS_MESSAGE)]
    return []


def admin_access_status_errors(claim: dict, namespace_labels: dict | None) -> Errors:
    """AuthorizedForAdminStatus: an allocation result with adminAccess needs the label as well."""
    results = as_list(as_dict(as_dict(as_dict(claim.get("status")).get("allocation")).get("devices")).get("results"))
    for i, result in enumerate(results):
        if as_dict(result).get("adminAccess") is True:
            if (namespace_labels or {}).get(ADMIN_ACCESS_LABEL) == "true":
                return []
            return [forbidden(f"status.allocation.devices.results[{i}].adminAccess", ADMIN_ACCESS_MESSAGE)]
    return []

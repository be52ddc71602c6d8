"""Typed plugin args of kubescheduler.config.k8s.io/v1: decoding, v1 defaulting, and validation as
validation_pluginargs.go. Each decoder returns a plain dict with every v1 field present (plugins index
it directly), in v1 units: shape scores not rescaled, durations as Go duration strings.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping

from kexplain.config import _decode as d
from kexplain.features import KubeVersion
from kexplain.apimachinery.fielderrors import (FieldError, child, duplicate, forbidden, go_quote, index, invalid,
                                               invalid_typed, not_supported, required)
from kexplain.apimachinery.names import validate_label_name
from kexplain.apimachinery.selectors import IN, NODE_SELECTOR_OPERATORS, NOT_IN, requirement_errors

GROUP = "kubescheduler.config.k8s.io"
API_VERSION = GROUP + "/v1"
MAX_CUSTOM_PRIORITY_SCORE = 10
_TYPE_META = ("apiVersion", "kind")
# 1.34 shortened the shape's ordering error ("utilization values must be sorted ..." before).
SHAPE_ORDER_TEXT_SHORT_SINCE = "1.34"


def _resources(v: object, path: str) -> list[dict[str, Any]] | None:
    items = d.array(v, path)
    if items is None:
        return None
    out = []
    for i, item in enumerate(items):
        p = index(path, i)
        r = d.obj(item, p, ("name", "weight"))
        out.append({"name": d.string(r.get("name"), child(p, "name")) or "",
                    "weight": d.integer(r.get("weight"), child(p, "weight"), d.INT64) or 0})
    return out


def _shape(v: object, path: str) -> list[dict[str, int]] | None:
    items = d.array(v, path)
    if items is None:
        return None
    out = []
    for i, item in enumerate(items):
        p = index(path, i)
        s = d.obj(item, p, ("utilization", "score"))
        out.append({"utilization": d.integer(s.get("utilization"), child(p, "utilization")) or 0,
                    "score": d.integer(s.get("score"), child(p, "score")) or 0})
    return out


def _default_resources() -> list[dict[str, Any]]:
    return [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


def _weights_zero_to_one(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**r, "weight": r["weight"] or 1} for r in resources]


def _validate_shape(shape: list[dict[str, int]], path: str, gates: KubeVersion) -> list[FieldError]:
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs = []
    unsorted = ("values must be sorted in increasing order" if gates.since(SHAPE_ORDER_TEXT_SHORT_SINCE)
                else "utilization values must be sorted in increasing order")
    for i in range(1, len(shape)):
        if shape[i - 1]["utilization"] >= shape[i]["utilization"]:
            errs.append(invalid(child(index(path, i), "utilization"), shape[i]["utilization"], unsorted))
            break
    for i, pt in enumerate(shape):
        if not 0 <= pt["utilization"] <= 100:
            errs.append(invalid(child(index(path, i), "utilization"), pt["utilization"],
                                "not in valid range [0, 100]"))
        if not 0 <= pt["score"] <= MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(invalid(child(index(path, i), "score"), pt["score"],
                                f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"))
    return errs


def _internal_shape(shape: list[dict[str, int]] | None) -> object:
    """How Go prints an internal []UtilizationShapePoint (no json tags) in a message."""
    if shape is None:
        return None
    return [{"Utilization": p["utilization"], "Score": p["score"]} for p in shape]


# --- DefaultPreemption ---------------------------------------------------------------

def _dp_decode(raw: object, path: str, gates: KubeVersion) -> dict[str, Any]:
    a = d.obj(raw, path, _TYPE_META + ("minCandidateNodesPercentage", "minCandidateNodesAbsolute"))
    pct = d.integer(a.get("minCandidateNodesPercentage"), child(path, "minCandidateNodesPercentage"))
    absolute = d.integer(a.get("minCandidateNodesAbsolute"), child(path, "minCandidateNodesAbsolute"))
    return {"minCandidateNodesPercentage": 10 if pct is None else pct,
            "minCandidateNodesAbsolute": 100 if absolute is None else absolute}


def _dp_validate(a: Mapping[str, Any], base: str, gates: KubeVersion) -> list[FieldError]:
    pct_path, abs_path = child(base, "minCandidateNodesPercentage"), child(base, "minCandidateNodesAbsolute")
    pct, absolute = a["minCandidateNodesPercentage"], a["minCandidateNodesAbsolute"]
    errs = []
    if not 0 <= pct <= 100:
        errs.append(invalid(pct_path, pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(invalid(abs_path, absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(invalid(pct_path, pct, "cannot be zero at the same time as minCandidateNodesAbsolute"))
        errs.append(invalid(abs_path, absolute, "cannot be zero at the same time as minCandidateNodesPercentage"))
    return errs


# --- InterPodAffinity ----------------------------------------------------------------

def _ipa_decode(raw: object, path: str, gates: KubeVersion) -> dict[str, Any]:
    a = d.obj(raw, path, _TYPE_META + ("hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"))
    w = d.integer(a.get("hardPodAffinityWeight"), child(path, "hardPodAffinityWeight"))
    ignore = d.boolean(a.get("ignorePreferredTermsOfExistingPods"),
                       child(path, "ignorePreferredTermsOfExistingPods"))
    return {"hardPodAffinityWeight": 1 if w is None else w,
            "ignorePreferredTermsOfExistingPods": bool(ignore)}


def _ipa_validate(a: Mapping[str, Any], base: str, gates: KubeVersion) -> list[FieldError]:
    w = a["hardPodAffinityWeight"]
    if not 0 <= w <= 100:
        return [invalid(child(base, "hardPodAffinityWeight"), w, "not in valid range [0, 100]")]
    return []


# --- NodeResourcesFit ----------------------------------------------------------------

_STRATEGIES = ("LeastAllocated", "MostAllocated", "RequestedToCapacityRatio")


def _fit_decode(raw: object, path: str, gates: KubeVersion) -> dict[str, Any]:
    a = d.obj(raw, path, _TYPE_META + ("ignoredResources", "ignoredResourceGroups", "scoringStrategy"))
    sp = child(path, "scoringStrategy")
    strategy: dict[str, Any]
    if a.get("scoringStrategy") is None:
        strategy = {"type": "LeastAllocated", "resources": _default_resources(),
                    "requestedToCapacityRatio": None}
    else:
        s = d.obj(a["scoringStrategy"], sp, ("type", "resources", "requestedToCapacityRatio"))
        rtcr = None
        if s.get("requestedToCapacityRatio") is not None:
            rp = child(sp, "requestedToCapacityRatio")
            r = d.obj(s["requestedToCapacityRatio"], rp, ("shape",))
            rtcr = {"shape": _shape(r.get("shape"), child(rp, "shape"))}
        strategy = {"type": d.string(s.get("type"), child(sp, "type")) or "",
                    "resources": _resources(s.get("resources"), child(sp, "resources")) or _default_resources(),
                    "requestedToCapacityRatio": rtcr}
    strategy["resources"] = _weights_zero_to_one(strategy["resources"])
    return {"ignoredResources": d.strings(a.get("ignoredResources"), child(path, "ignoredResources")),
            "ignoredResourceGroups": d.strings(a.get("ignoredResourceGroups"),
                                               child(path, "ignoredResourceGroups")),
            "scoringStrategy": strategy}


def _fit_validate(a: Mapping[str, Any], base: str, gates: KubeVersion) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, res in enumerate(a["ignoredResources"]):
        errs += validate_label_name(res, index(child(base, "ignoredResources"), i))
    for i, group in enumerate(a["ignoredResourceGroups"]):
        p = index(child(base, "ignoredResourceGroups"), i)
        if "/" in group:
            errs.append(invalid(p, group, "resource group name can't contain '/'"))
        errs += validate_label_name(group, p)
    sp = child(base, "scoringStrategy")
    strategy = a["scoringStrategy"]
    if strategy["type"] not in _STRATEGIES:
        errs.append(not_supported(child(sp, "type"), strategy["type"], sorted(_STRATEGIES)))
    for i, r in enumerate(strategy["resources"]):
        if not 0 < r["weight"] <= 100:
            errs.append(invalid(child(index(child(sp, "resources"), i), "weight"), r["weight"],
                                f"resource weight of {r['name']} not in valid range (0, 100]"))
    if strategy["requestedToCapacityRatio"] is not None:
        errs += _validate_shape(strategy["requestedToCapacityRatio"]["shape"] or [], child(sp, "shape"), gates)
    return errs


# --- NodeResourcesBalancedAllocation -------------------------------------------------

def _ba_decode(raw: object, path: str, gates: KubeVersion) -> dict[str, Any]:
    a = d.obj(raw, path, _TYPE_META + ("resources",))
    resources = _resources(a.get("resources"), child(path, "resources")) or _default_resources()
    return {"resources": _weights_zero_to_one(resources)}


def _ba_validate(a: Mapping[str, Any], base: str, gates: KubeVersion) -> list[FieldError]:
    errs = []
    seen: set[str] = set()
    for i, r in enumerate(a["resources"]):
        p = index(child(base, "resources"), i)
        if r["name"] in seen:
            errs.append(duplicate(child(p, "name"), r["name"]))
        seen.add(r["name"])
        if r["weight"] != 1:
            errs.append(invalid(child(p, "weight"), r["weight"], "must be 1"))
    return errs


# --- PodTopologySpread ---------------------------------------------------------------

_TSC_FIELDS = ("maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "minDomains",
               "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys")


def _constraint(v: object, path: str) -> dict[str, Any]:
    c = d.obj(v, path, _TSC_FIELDS)
    out = dict(copy.deepcopy(c))
    out["maxSkew"] = d.integer(c.get("maxSkew"), child(path, "maxSkew")) or 0
    out["topologyKey"] = d.string(c.get("topologyKey"), child(path, "topologyKey")) or ""
    out["whenUnsatisfiable"] = d.string(c.get("whenUnsatisfiable"), child(path, "whenUnsatisfiable")) or ""
    d.integer(c.get("minDomains"), child(path, "minDomains"))
    d.string(c.get("nodeAffinityPolicy"), child(path, "nodeAffinityPolicy"))
    d.string(c.get("nodeTaintsPolicy"), child(path, "nodeTaintsPolicy"))
    d.strings(c.get("matchLabelKeys"), child(path, "matchLabelKeys"))
    if c.get("labelSelector") is not None:
        d.obj(c["labelSelector"], child(path, "labelSelector"), ("matchLabels", "matchExpressions"))
    return out


def _pts_decode(raw: object, path: str, gates: KubeVersion) -> dict[str, Any]:
    a = d.obj(raw, path, _TYPE_META + ("defaultConstraints", "defaultingType"))
    cp = child(path, "defaultConstraints")
    constraints = [_constraint(c, index(cp, i)) for i, c in enumerate(d.array(a.get("defaultConstraints"), cp) or [])]
    return {"defaultConstraints": constraints,
            "defaultingType": d.string(a.get("defaultingType"), child(path, "defaultingType")) or "System"}


def _pts_validate(a: Mapping[str, Any], base: str, gates: KubeVersion) -> list[FieldError]:
    errs: list[FieldError] = []
    dt, constraints = a["defaultingType"], a["defaultConstraints"]
    dtp = child(base, "defaultingType")
    if dt not in ("System", "List"):
        errs.append(not_supported(dtp, dt, ["System", "List"]))
    elif dt == "System" and constraints:
        errs.append(invalid_typed(dtp, dt, "when .defaultConstraints are not empty"))   # a typed string: JSON
    cp = child(base, "defaultConstraints")
    for i, c in enumerate(constraints):
        p = index(cp, i)
        if c["maxSkew"] <= 0:
            errs.append(invalid(child(p, "maxSkew"), c["maxSkew"], "not in valid range (0, inf)"))
        if not c["topologyKey"]:
            errs.append(required(child(p, "topologyKey"), "can not be empty"))
        else:
            errs += validate_label_name(c["topologyKey"], child(p, "topologyKey"))
        wu = c["whenUnsatisfiable"]
        if not wu:
            errs.append(required(child(p, "whenUnsatisfiable"), "can not be empty"))
        elif wu not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(not_supported(child(p, "whenUnsatisfiable"), wu, ["DoNotSchedule", "ScheduleAnyway"]))
        if c.get("labelSelector") is not None:
            errs.append(forbidden(child(p, "labelSelector"),
                                  "constraint must not define a selector, as they deduced for each pod"))
        for other in constraints[:i]:
            if (other["topologyKey"], other["whenUnsatisfiable"]) == (c["topologyKey"], wu):
                errs.append(duplicate(p, f"{{{c['topologyKey']}, {wu}}}"))
                break
    return errs


# --- NodeAffinity --------------------------------------------------------------------

def _requirements(v: object, path: str) -> list[dict[str, Any]]:
    out = []
    for i, item in enumerate(d.array(v, path) or []):
        p = index(path, i)
        r = d.obj(item, p, ("key", "operator", "values"))
        out.append({"key": d.string(r.get("key"), child(p, "key")) or "",
                    "operator": d.string(r.get("operator"), child(p, "operator")) or "",
                    "values": d.strings(r.get("values"), child(p, "values")) if r.get("values") is not None else None})
    return out


def _term(v: object, path: str) -> dict[str, Any]:
    t = d.obj(v, path, ("matchExpressions", "matchFields"))
    return {"matchExpressions": _requirements(t.get("matchExpressions"), child(path, "matchExpressions")),
            "matchFields": _requirements(t.get("matchFields"), child(path, "matchFields"))}


def _na_decode(raw: object, path: str, gates: KubeVersion) -> dict[str, Any]:
    a = d.obj(raw, path, _TYPE_META + ("addedAffinity",))
    if a.get("addedAffinity") is None:
        return {"addedAffinity": None}
    ap = child(path, "addedAffinity")
    req_key, pref_key = "requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"
    aff = d.obj(a["addedAffinity"], ap, (req_key, pref_key))
    out: dict[str, Any] = {}
    if aff.get(req_key) is not None:
        rp = child(ap, req_key)
        ns = d.obj(aff[req_key], rp, ("nodeSelectorTerms",))
        tp = child(rp, "nodeSelectorTerms")
        out[req_key] = {"nodeSelectorTerms": [_term(t, index(tp, i))
                                              for i, t in enumerate(d.array(ns.get("nodeSelectorTerms"), tp) or [])]}
    if aff.get(pref_key) is not None:
        pp = child(ap, pref_key)
        prefs = []
        for i, item in enumerate(d.array(aff[pref_key], pp) or []):
            p = index(pp, i)
            pt = d.obj(item, p, ("weight", "preference"))
            prefs.append({"weight": d.integer(pt.get("weight"), child(p, "weight")) or 0,
                          "preference": _term(pt.get("preference"), child(p, "preference"))})
        out[pref_key] = prefs
    return {"addedAffinity": out}


def _validate_term(term: Mapping[str, Any], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, r in enumerate(term["matchExpressions"]):
        p = index(child(path, "matchExpressions"), i)
        if r["operator"] not in NODE_SELECTOR_OPERATORS:
            errs.append(not_supported(child(p, "operator"), r["operator"], NODE_SELECTOR_OPERATORS))
        else:
            errs += requirement_errors(r["key"], r["operator"], r["values"], p)
    for i, r in enumerate(term["matchFields"]):
        p = index(child(path, "matchFields"), i)
        if r["operator"] in (IN, NOT_IN):
            if len(r["values"] or []) != 1:
                errs.append(invalid(child(p, "values"), r["values"], "must have one element"))
        else:
            errs.append(not_supported(child(p, "operator"), r["operator"], (IN, NOT_IN)))
    return errs


def _empty_term(term: Mapping[str, Any]) -> bool:
    return not term["matchExpressions"] and not term["matchFields"]


def _na_validate(a: Mapping[str, Any], base: str, gates: KubeVersion) -> list[FieldError]:
    aff = a["addedAffinity"]
    if aff is None:
        return []
    errs: list[FieldError] = []
    req = aff.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is not None:
        tp = child(base, "addedAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
        for i, term in enumerate(req["nodeSelectorTerms"]):
            if not _empty_term(term):
                errs += _validate_term(term, index(tp, i))
    pp = child(base, "addedAffinity", "preferredDuringSchedulingIgnoredDuringExecution")
    for i, pref in enumerate(aff.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        if pref["weight"] != 0 and not _empty_term(pref["preference"]):
            errs += _validate_term(pref["preference"], index(pp, i))
    return errs


# --- VolumeBinding -------------------------------------------------------------------

def _vb_decode(raw: object, path: str, gates: KubeVersion) -> dict[str, Any]:
    a = d.obj(raw, path, _TYPE_META + ("bindTimeoutSeconds", "shape"))
    timeout = d.integer(a.get("bindTimeoutSeconds"), child(path, "bindTimeoutSeconds"), d.INT64)
    shape = _shape(a.get("shape"), child(path, "shape"))
    if not shape and gates.enabled("StorageCapacityScoring"):
        shape = [{"utilization": 0, "score": MAX_CUSTOM_PRIORITY_SCORE}, {"utilization": 100, "score": 0}]
    return {"bindTimeoutSeconds": 600 if timeout is None else timeout, "shape": shape}


def _vb_validate(a: Mapping[str, Any], base: str, gates: KubeVersion) -> list[FieldError]:
    errs = []
    if a["bindTimeoutSeconds"] < 0:
        errs.append(invalid(child(base, "bindTimeoutSeconds"), a["bindTimeoutSeconds"],
                            "invalid BindTimeoutSeconds, should not be a negative value"))
    if gates.enabled("StorageCapacityScoring"):
        errs += _validate_shape(a["shape"] or [], child(base, "shape"), gates)
    elif a["shape"] is not None:
        errs.append(invalid(child(base, "shape"), _internal_shape(a["shape"]),
                            "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"))
    return errs


# --- DynamicResources ----------------------------------------------------------------

def _dra_decode(raw: object, path: str, gates: KubeVersion) -> dict[str, Any]:
    a = d.obj(raw, path, _TYPE_META + ("filterTimeout", "bindingTimeout"))
    ft = d.duration(a.get("filterTimeout"), child(path, "filterTimeout"))
    bt = d.duration(a.get("bindingTimeout"), child(path, "bindingTimeout"))
    if ft is None and gates.enabled("DRASchedulerFilterTimeout"):
        ft = 10 * 10**9
    if bt is None and gates.enabled("DRADeviceBindingConditions") and gates.enabled("DRAResourceClaimDeviceStatus"):
        bt = 600 * 10**9
    return {"filterTimeout": None if ft is None else d.format_duration(ft),
            "bindingTimeout": None if bt is None else d.format_duration(bt)}


def _dra_validate(a: Mapping[str, Any], base: str, gates: KubeVersion) -> list[FieldError]:
    errs = []
    ft, bt = a["filterTimeout"], a["bindingTimeout"]
    if gates.enabled("DRASchedulerFilterTimeout"):
        if ft is not None and (d.parse_duration(ft) or 0) < 0:
            errs.append(invalid(child(base, "filterTimeout"), ft, "must be zero or positive"))
    elif ft is not None:
        errs.append(forbidden(child(base, "filterTimeout"), "DRASchedulingFilterTimeout feature gate is disabled"))
    if gates.enabled("DRADeviceBindingConditions") and gates.enabled("DRAResourceClaimDeviceStatus"):
        if bt is not None and (d.parse_duration(bt) or 0) < 10**9:
            errs.append(invalid(child(base, "bindingTimeout"), bt, "must be at least 1 second"))
    elif bt is not None:
        errs.append(forbidden(child(base, "bindingTimeout"),
                              "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"))
    return errs


# --- registry of typed args ----------------------------------------------------------

Decoder = Callable[[object, str, KubeVersion], dict[str, Any]]
Validator = Callable[[Mapping[str, Any], str, KubeVersion], list[FieldError]]


@dataclass(frozen=True)
class ArgsKind:
    kind: str
    decode: Decoder
    validate: Validator
    since: str | None = None   # the minor that registered the kind; before, its args are an out-of-tree plugin's


ARGS: Mapping[str, ArgsKind] = MappingProxyType({
    "DefaultPreemption": ArgsKind("DefaultPreemptionArgs", _dp_decode, _dp_validate),
    "InterPodAffinity": ArgsKind("InterPodAffinityArgs", _ipa_decode, _ipa_validate),
    "NodeResourcesBalancedAllocation": ArgsKind("NodeResourcesBalancedAllocationArgs", _ba_decode, _ba_validate),
    "NodeResourcesFit": ArgsKind("NodeResourcesFitArgs", _fit_decode, _fit_validate),
    "PodTopologySpread": ArgsKind("PodTopologySpreadArgs", _pts_decode, _pts_validate),
    "VolumeBinding": ArgsKind("VolumeBindingArgs", _vb_decode, _vb_validate),
    "NodeAffinity": ArgsKind("NodeAffinityArgs", _na_decode, _na_validate),
    "DynamicResources": ArgsKind("DynamicResourcesArgs", _dra_decode, _dra_validate, since="1.34"),
})


def typed(name: str, gates: KubeVersion) -> bool:
    """Whether `gates`' minor registers an args kind for plugin `name`. A kind it does not know
    leaves the args raw, accepted and unchecked, as for an out-of-tree plugin (decodeNestedObjects)."""
    spec = ARGS.get(name)
    return spec is not None and (spec.since is None or gates.since(spec.since))

# validation.go keys NodeResourcesFit's validator as "NodeResourcesFitArgs", so config
# validation never runs it; only the plugin's constructor does (when the plugin is enabled).
VALIDATED_AT_INIT_ONLY = frozenset({"NodeResourcesFit"})


def decode(name: str, raw: object, gates: KubeVersion) -> dict[str, Any]:
    """Decode + default one plugin's typed args; raises DecodeError with a relative path."""
    spec = ARGS[name]
    if isinstance(raw, dict):
        kind, api_version = raw.get("kind"), raw.get("apiVersion")
        if api_version not in (None, "", API_VERSION):
            raise d.DecodeError(f'no kind {go_quote(str(kind or spec.kind))} is registered for version '
                                f'{go_quote(str(api_version))}')
        if kind not in (None, "", spec.kind):
            raise d.DecodeError(f"args for plugin {name} were not of type {spec.kind}.{GROUP}, "
                                f"got {kind}.{GROUP}")
    return spec.decode(raw, "", gates)


def validate(name: str, args: Mapping[str, Any], base: str, gates: KubeVersion) -> list[FieldError]:
    return ARGS[name].validate(args, base, gates)

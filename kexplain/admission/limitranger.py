"""The LimitRanger admission plugin (plugin/pkg/admission/limitranger, admission.go read at v1.33.3
and v1.34.1), for pods: defaults from the namespace's LimitRanges (mutating), then their bounds
(validating), in the API server's words; stored pods carry their defaults already.
Defaulting, order and what is not done: docs/internals/admission.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kexplain.apimachinery import quantity
from kexplain.apimachinery.fielderrors import go_quote

ANNOTATION = "kubernetes.io/limit-ranger"
CONTAINER, POD = "Container", "Pod"
_MAX_MILLI = (2 ** 63 - 1) // 1000      # resource.MaxMilliValue
_KEYS = ("default", "defaultRequest", "max", "min", "maxLimitRequestRatio")


class LimitRangeRejected(ValueError):
    """The pod is out of a LimitRange's bounds: the message after `pods "NAME" is forbidden: `."""


@dataclass(frozen=True)
class Item:
    type: str
    values: dict[str, dict[str, quantity.Quantity]] = field(default_factory=dict)   # key -> resource -> q

    def of(self, key: str) -> dict[str, quantity.Quantity]:
        return self.values.get(key, {})


@dataclass(frozen=True)
class LimitRange:
    name: str
    items: tuple[Item, ...]


def _list(raw: Any) -> dict[str, quantity.Quantity]:
    out: dict[str, quantity.Quantity] = {}
    for name, value in (raw.items() if isinstance(raw, dict) else ()):
        try:
            out[str(name)] = quantity.parse(value)
        except quantity.QuantityError:
            continue        # the API server refuses such a LimitRange; kexplain leaves the value out
    return out


def set_item_defaults(item_type: Any, values: dict[str, dict[str, Any]]) -> None:
    """SetDefaults_LimitRangeItem, in place (`values`: max, min, default, defaultRequest)."""
    if item_type != CONTAINER:
        return
    for k, v in values["max"].items():
        values["default"].setdefault(k, v)
    for k, v in values["default"].items():
        values["defaultRequest"].setdefault(k, v)
    for k, v in values["min"].items():
        values["defaultRequest"].setdefault(k, v)


def parse(obj: dict[str, Any]) -> LimitRange:
    """A LimitRange object as the API server stores it (its Container items defaulted)."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    items = []
    for raw in spec.get("limits") or ():
        if not isinstance(raw, dict):
            continue
        values = {key: _list(raw.get(key)) for key in _KEYS}
        set_item_defaults(raw.get("type"), values)
        items.append(Item(str(raw.get("type") or ""), values))
    return LimitRange(str(meta.get("name") or ""), tuple(items))


def by_namespace(objs: list[dict[str, Any]]) -> dict[str, list[LimitRange]]:
    """The LimitRanges of `objs` per namespace, by name."""
    out: dict[str, list[LimitRange]] = {}
    for obj in objs:
        meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
        out.setdefault(str(meta.get("namespace") or "default"), []).append(parse(obj))
    for ranges in out.values():
        ranges.sort(key=lambda r: r.name)
    return out


def _containers(spec: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for key, prefix in (("containers", "container"), ("initContainers", "init container")):
        out += [(prefix, c) for c in spec.get(key) or () if isinstance(c, dict)]
    return out


def mutate(pod: dict[str, Any], limit_range: LimitRange) -> None:
    """PodMutateLimitFunc (in place): the Container items' defaults for what containers leave unset."""
    defaults: dict[str, dict[str, quantity.Quantity]] = {"limits": {}, "requests": {}}
    for item in limit_range.items:
        if item.type == CONTAINER:
            defaults["requests"].update(item.of("defaultRequest"))
            defaults["limits"].update(item.of("default"))
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    notes: list[str] = []
    for prefix, container in _containers(spec):
        resources = container.get("resources")
        if not isinstance(resources, dict):
            resources = container["resources"] = {}
        set_by_kind: dict[str, list[str]] = {}
        for kind in ("limits", "requests"):
            current = resources.get(kind)
            if not isinstance(current, dict):
                current = resources[kind] = {}
            for name, value in defaults[kind].items():
                if name not in current:
                    current[name] = str(value)
                    set_by_kind.setdefault(kind, []).append(name)
        if set_by_kind.get("requests"):
            notes.append(f"{', '.join(sorted(set_by_kind['requests']))} request for {prefix} {container.get('name', '')}")
        if set_by_kind.get("limits"):
            notes.append(f"{', '.join(sorted(set_by_kind['limits']))} limit for {prefix} {container.get('name', '')}")
    if notes:
        meta = pod.get("metadata")
        if not isinstance(meta.get("annotations"), dict):
            meta["annotations"] = {}
        meta["annotations"][ANNOTATION] = "LimitRanger plugin set: " + "; ".join(notes)


def _value(q: Fraction) -> int:
    return math.ceil(q)


def _compared(req: Fraction, lim: Fraction, enforced: Fraction) -> tuple[int, int, int]:
    """requestLimitEnforcedValues: milli values unless one of them would overflow."""
    values = (_value(req), _value(lim), _value(enforced))
    if all(v <= _MAX_MILLI for v in values):
        return math.ceil(req * 1000), math.ceil(lim * 1000), math.ceil(enforced * 1000)
    return values


def _q(resources: dict[str, Any], name: str) -> quantity.Quantity | None:
    raw = resources.get(name) if isinstance(resources, dict) else None
    if raw is None or isinstance(raw, quantity.Quantity):
        return raw
    try:
        return quantity.parse(raw)
    except quantity.QuantityError:
        return None


_ZERO = quantity.Quantity(Fraction(0))


def _min(kind: str, name: str, enforced: quantity.Quantity, requests: dict, limits: dict) -> str:
    req, lim = _q(requests, name), _q(limits, name)
    r, l, e = _compared((req or _ZERO).value, (lim or _ZERO).value, enforced.value)
    if req is None:
        return f"minimum {name} usage per {kind} is {enforced}.  No request is specified"
    if r < e:
        return f"minimum {name} usage per {kind} is {enforced}, but request is {req}"
    if lim is not None and l < e:
        return f"minimum {name} usage per {kind} is {enforced}, but limit is {lim}"
    return ""


def _max(kind: str, name: str, enforced: quantity.Quantity, requests: dict, limits: dict) -> str:
    req, lim = _q(requests, name), _q(limits, name)
    r, l, e = _compared((req or _ZERO).value, (lim or _ZERO).value, enforced.value)
    if lim is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No limit is specified"
    if l > e:
        return f"maximum {name} usage per {kind} is {enforced}, but limit is {lim}"
    if req is not None and r > e:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {req}"
    return ""


def _ratio(kind: str, name: str, enforced: quantity.Quantity, requests: dict, limits: dict) -> str:
    req, lim = _q(requests, name), _q(limits, name)
    r, l, _ = _compared((req or _ZERO).value, (lim or _ZERO).value, enforced.value)
    if req is None or r == 0:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but no request is specified or request is 0"
    if lim is None or l == 0:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but no limit is specified or limit is 0"
    observed = l / r
    shown = observed
    bound = float(_value(enforced.value))
    if _value(enforced.value) <= _MAX_MILLI:
        observed *= 1000
        bound = float(math.ceil(enforced.value * 1000))
    if observed > bound:
        return f"{name} max limit to request ratio per {kind} is {enforced}, but provided ratio is {shown:f}"
    return ""


def _checks(kind: str, item: Item, requests: dict, limits: dict) -> list[str]:
    out = []
    for key, check in (("min", _min), ("max", _max), ("maxLimitRequestRatio", _ratio)):
        for name, enforced in sorted(item.of(key).items()):     # (Go ranges over a map: no set order)
            message = check(kind, name, enforced, requests, limits)
            if message:
                out.append(message)
    return out


def _add(total: dict[str, quantity.Quantity], resources: Any) -> None:
    """addResourceList: a resource met first is taken as it is, one met before is added to
    (Quantity.Add: the sum keeps the first one's format, so 2Gi and 2Gi print `4Gi`)."""
    for name in resources if isinstance(resources, dict) else ():
        q = _q(resources, name)
        if q is not None:
            total[name] = quantity.add(total[name], q) if name in total else q


def _maximum(total: dict[str, quantity.Quantity], other: dict[str, quantity.Quantity]) -> None:
    """maxResourceList: the larger quantity, as it is."""
    for name, value in other.items():
        if name not in total or value.value > total[name].value:
            total[name] = value


POD_LEVEL = ("cpu", "memory")     # the limitranger's own isSupportedPodLevelResource (no hugepages)


def _pod_total(spec: dict[str, Any], key: str, pod_level: bool) -> dict[str, quantity.Quantity]:
    """podRequests / podLimits (key: requests or limits), with the pod's own cpu and memory where
    PodLevelResources is on."""
    total: dict[str, quantity.Quantity] = {}
    for c in spec.get("containers") or ():
        if isinstance(c, dict):
            _add(total, (c.get("resources") or {}).get(key))
    sidecars: dict[str, quantity.Quantity] = {}
    init_max: dict[str, quantity.Quantity] = {}
    for c in spec.get("initContainers") or ():
        if not isinstance(c, dict):
            continue
        own = (c.get("resources") or {}).get(key)
        if c.get("restartPolicy") == "Always":
            _add(total, own)
            _add(sidecars, own)
            current = dict(sidecars)
        else:
            current = {}
            _add(current, own)
            _add(current, sidecars)
        _maximum(init_max, current)
    _maximum(total, init_max)
    if pod_level and isinstance(spec.get("resources"), dict):
        own = spec["resources"].get(key)
        for name in POD_LEVEL:
            q = _q(own, name) if isinstance(own, dict) else None
            if q is not None:
                total[name] = q
    return total


def validate(pod: dict[str, Any], limit_range: LimitRange, pod_level: bool = True) -> list[str]:
    """PodValidateLimitFunc: every bound the pod's containers or the pod break, in the plugin's order."""
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    errors: list[str] = []
    for item in limit_range.items:
        if item.type == CONTAINER:
            for _, c in _containers(spec):
                resources = c.get("resources") if isinstance(c.get("resources"), dict) else {}
                errors += _checks(CONTAINER, item, resources.get("requests") or {}, resources.get("limits") or {})
        elif item.type == POD:
            errors += _checks(POD, item, _pod_total(spec, "requests", pod_level), _pod_total(spec, "limits", pod_level))
    return errors


def admit(pod: dict[str, Any], ranges: list[LimitRange]) -> None:
    """The mutating half, for each LimitRange of the namespace in turn."""
    for limit_range in ranges:
        mutate(pod, limit_range)


def check(pod: dict[str, Any], ranges: list[LimitRange], pod_level: bool = True) -> None:
    """The validating half: LimitRangeRejected with the first LimitRange's errors (the API
    server stops at the first LimitRange that refuses), aggregated as utilerrors prints them."""
    for limit_range in ranges:
        errors = validate(pod, limit_range, pod_level)
        if errors:
            name = (pod.get("metadata") or {}).get("name") or ""
            text = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
            raise LimitRangeRejected(f"pods {go_quote(name)} is forbidden: {text}")

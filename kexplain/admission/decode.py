"""Decoding strictness: does a known kind decode into its Go type at all?

The API server refuses a request whose JSON does not decode (a string where an int32 belongs)
before admission, and with kubectl's strict field validation one with unknown fields too:
`check_fields` says so with its words, `check_decodes` makes values what the model reads.
Mechanism notes: docs/internals/admission.md.
"""
from __future__ import annotations

import copy
import datetime
import json
from collections.abc import Mapping
from importlib import resources
from itertools import repeat
from typing import Any

from kexplain.errors import InputError, Source, clip, describe

from kexplain.admission import dra_convert
from kexplain.apimachinery import quantity
from kexplain.apimachinery.fielderrors import go_quote
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.admission.openapi import (RFC3339, _key_text, _timestamp_text, builtin_index, go_time_parse_error,
                                        unknown_field_warning, unknown_fields_error)

STR, INT, BOOL, NUM, QTY, TIME, INTSTR, ANY = "str", "int", "bool", "num", "qty", "time", "intstr", "any"


def _schemas() -> dict[str, dict]:
    """The kinds' schemas (data/decode_schemas.json): `[x]` a list of x, `["map", x]` a map[string]x,
    "@NAME" a shared definition; DRA kinds in resource.k8s.io/v1, the internal form (`dra_convert`)."""
    raw = json.loads(resources.files(__package__).joinpath("data", "decode_schemas.json").read_text(encoding="utf-8"))
    built: dict[str, Any] = {}

    def build(node: Any) -> Any:
        if isinstance(node, str) and node.startswith("@"):
            name = node[1:]
            if name not in built:
                built[name] = build(raw["defs"][name])
            return built[name]
        if isinstance(node, dict):
            return {key: build(sub) for key, sub in node.items()}
        if isinstance(node, list):
            return ("map", build(node[1])) if len(node) == 2 else [build(node[0])]
        return node
    return {kind: build(ref) for kind, ref in raw["kinds"].items()}


SCHEMAS: dict[str, dict] = _schemas()
DRA_KINDS = frozenset({"DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"})

_TYPE_NAMES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
               list: "a list", dict: "a mapping"}


def _got(value: Any) -> str:
    for typ, name in _TYPE_NAMES.items():
        if isinstance(value, typ):
            return name
    if isinstance(value, (datetime.date, datetime.datetime)):
        return "a timestamp"
    return type(value).__name__


def _zero(schema: Any) -> Any:
    """Go's JSON decoding of a `null` list item or map value: the element type's zero value."""
    if isinstance(schema, dict):
        return {}
    return {STR: "", INT: 0, BOOL: False, NUM: 0, QTY: "0"}.get(schema) if isinstance(schema, str) else None


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _check(value: Any, schema: Any, path: str, obj: dict, source: Source) -> Any:
    """`value` checked against `schema`, integral floats made ints (YAML `1.0` is JSON `1`)."""
    if value is None:
        return value
    kind = type(schema)
    if kind is dict:
        if not isinstance(value, dict):
            raise _expected("a mapping", value, path, obj, source)
        for name, sub in schema.items():
            if name in value:
                item = value[name]
                if type(sub) is str and type(item) in _KEPT.get(sub, ()):
                    continue
                value[name] = _check(item, sub, _join(path, name), obj, source)
    elif kind is tuple:
        return _check_map(value, schema[1], path, obj, source)
    elif kind is list:
        return _check_list(value, schema[0], path, obj, source)
    elif schema == ANY:
        return value
    elif schema == STR:
        if not isinstance(value, str):
            if isinstance(value, (datetime.date, datetime.datetime)):     # kubectl sends it as written
                return _timestamp_text(value)
            raise _expected("a string", value, path, obj, source)
    elif schema in (INT, INTSTR):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if schema == INTSTR and isinstance(value, (datetime.date, datetime.datetime)):
            return _timestamp_text(value)
        if isinstance(value, bool) or not isinstance(value, (int, str) if schema == INTSTR else int):
            raise _expected("an integer or a string" if schema == INTSTR else "an integer", value, path, obj, source)
    elif schema == BOOL:
        if not isinstance(value, bool):
            raise _expected("a boolean", value, path, obj, source)
    elif schema == TIME:
        if not isinstance(value, (str, datetime.date, datetime.datetime)):
            raise _expected("a timestamp string", value, path, obj, source)
        problem = go_time_parse_error(RFC3339, _timestamp_text(value))     # metav1.Time's time.Parse
        if problem is not None:
            raise InputError(problem, source=source, obj=obj, field=path)
    elif schema == QTY:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise _expected("a quantity (a string or a number)", value, path, obj, source)
        try:
            quantity.parse(value)
        except quantity.QuantityError as exc:
            shown = go_quote(clip(value)) if isinstance(value, str) else value
            raise InputError(f"invalid quantity {shown}: {exc}", source=source, obj=obj, field=path) from None
    return value


_STRS = repeat(str)     # (`isinstance`'s second argument, for as many keys as `map` asks)
# The types a leaf schema keeps as they are (`_check` returns the value itself): looked up
# before calling it for each item and field (most values are of these types).
_KEPT = {STR: (str,), INT: (int,), INTSTR: (int, str), BOOL: (bool,)}
_KEPT_SETS = {sub: frozenset(types) for sub, types in _KEPT.items()}
_STR_SET = _KEPT_SETS[STR]
# Quantity and time texts found to decode (bounded: then no more entries): a cluster's nodes
# repeat theirs.
_QUANTITY_TEXTS: set[str] = set()
_TIME_TEXTS: set[str] = set()
_TEXTS_MAX = 10_000


def _check_map(value: Any, sub: Any, path: str, obj: dict, source: Source) -> Any:
    """`_check` of a map (string keys, every value of schema `sub`)."""
    if not isinstance(value, dict):
        raise _expected("a mapping", value, path, obj, source)
    if not all(map(isinstance, value, _STRS)):     # YAML's `1:`: kubectl sends "1" (asked in C)
        keyed = {_key_text(key): item for key, item in value.items()}
        value.clear()
        value.update(keyed)
    kept = _KEPT.get(sub, ()) if type(sub) is str else ()
    if kept and _KEPT_SETS[sub].issuperset(map(type, value.values())):
        return value        # (labels, annotations: every value's type asked at once, in C)
    texts = sub == QTY      # (a resource list: each text parsed here, no call of `_check` each)
    if texts and _STR_SET.issuperset(map(type, value.values())) and _QUANTITY_TEXTS.issuperset(value.values()):
        return value        # (every text one parsed before)
    for key in list(value):
        if type(value[key]) in kept or (texts and type(value[key]) is str and _quantity_text(value[key])):
            continue
        if value[key] is None:
            value[key] = _zero(sub)
        value[key] = _check(value[key], sub, _join(path, key), obj, source)
    return value


def _check_list(value: Any, sub: Any, path: str, obj: dict, source: Source) -> Any:
    """`_check` of a list (every item of schema `sub`)."""
    if not isinstance(value, list):
        raise _expected("a list", value, path, obj, source)
    kept = _KEPT.get(sub, ()) if type(sub) is str else ()
    if kept and _KEPT_SETS[sub].issuperset(map(type, value)):
        return value
    for i, item in enumerate(value):
        if type(item) in kept:
            continue
        if item is None:
            item = _zero(sub)
        value[i] = _check(item, sub, f"{path}[{i}]", obj, source)
    return value


def _quantity_text(text: str) -> bool:
    """Whether a quantity text parses, one parse per text (resource lists repeat theirs)."""
    if text in _QUANTITY_TEXTS:
        return True
    try:
        quantity.parse_text(text)
    except quantity.QuantityError:
        return False
    if len(_QUANTITY_TEXTS) < _TEXTS_MAX:
        _QUANTITY_TEXTS.add(text)
    return True


def _time_text(text: str) -> bool:
    """Whether a time text decodes (metav1.Time's time.Parse), one parse per text."""
    if text in _TIME_TEXTS:
        return True

    if go_time_parse_error(RFC3339, text) is not None:
        return False
    if len(_TIME_TEXTS) < _TEXTS_MAX:
        _TIME_TEXTS.add(text)
    return True


_LEAF_UNCHANGED = {
    ANY: None, NUM: None,               # (anything: `_check` looks at neither)
    STR: lambda v: type(v) is str,
    INT: lambda v: type(v) is int,
    INTSTR: lambda v: type(v) is int or type(v) is str,
    BOOL: lambda v: type(v) is bool,
    TIME: lambda v: type(v) is str and _time_text(v),
    QTY: lambda v: type(v) is str and _quantity_text(v),
}


def _unchanged(schema: Any) -> Any:
    """`_check` compiled into a yes/no walk (None: takes anything) for a cluster's many nodes; it may
    be stricter than `_check`, never looser: whatever it says no to is walked with `_check`."""
    kind = type(schema)
    if kind is dict:
        below = {name: (_KEPT.get(sub, ()) if type(sub) is str else (), _unchanged(sub))
                 for name, sub in schema.items()}
        below = {name: entry for name, entry in below.items() if entry[1] is not None}

        def mapping(v: Any) -> bool:
            if type(v) is not dict:
                return v is None
            for key, value in v.items():
                found = below.get(key)
                if found is not None and value is not None and type(value) not in found[0] and not found[1](value):
                    return False
            return True
        return mapping
    if kind is tuple or kind is list:
        sub = schema[1] if kind is tuple else schema[0]
        kept = _KEPT_SETS.get(sub, frozenset()) if type(sub) is str else frozenset()
        each = _unchanged(sub) or _any_but_none
        many = dict if kind is tuple else list

        def items(v: Any) -> bool:
            if type(v) is not many:
                return v is None
            values = v.values() if many is dict else v
            if many is dict and not _STR_SET.issuperset(map(type, v)):
                return False        # (a key that is not a string: `_check` makes it one)
            if kept and kept.issuperset(map(type, values)):
                return True
            return all(value is not None and each(value) for value in values)   # (a null: made the zero value)
        return items
    return _LEAF_UNCHANGED.get(schema, _no)


def _any_but_none(value: Any) -> bool:
    return value is not None


def _no(value: Any) -> bool:
    return False


_UNCHANGED: dict[str, Any] = {}     # kind -> `_unchanged` of its `SCHEMAS` entry, compiled when first asked


def _expected(what: str, value: Any, path: str, obj: dict, source: Source) -> InputError:
    """The decoder's words for a value of the wrong type."""
    return InputError(f"expected {what}, got {_got(value)}", source=source, obj=obj, field=path)


def check_decodes(obj: dict, source: Source, kube: KubeVersion = DEFAULT_VERSION) -> None:
    """Raise InputError when `obj` (a copy) would not decode in `kube`'s API server or the model cannot
    read it; integral floats and YAML timestamps are made what kubectl sends, in place."""
    if obj["kind"] in DRA_KINDS and obj.get("apiVersion") != dra_convert.INTERNAL:
        if not dra_convert.reads(obj.get("apiVersion"), obj["kind"], kube.minor):
            raise InputError(dra_version_error(obj, kube), source=source, obj=obj, field="apiVersion")
        check_decodes(dra_convert.decode(copy.deepcopy(obj), defaults=False, minor=kube.minor), source, kube)
        return
    if decodes_unchanged(obj):
        return
    try:
        _check(obj, SCHEMAS[obj["kind"]], "", obj, source)
    except InputError as err:
        raise decode_error(obj, source, kube) or err from None


def decodes_unchanged(obj: dict) -> bool:
    """Whether `check_decodes` would neither refuse nor change `obj` (not DRA's), by `_unchanged`."""
    kind = obj["kind"]
    unchanged = _UNCHANGED.get(kind)
    if unchanged is None:
        unchanged = _UNCHANGED[kind] = _unchanged(SCHEMAS[kind])
    return unchanged(obj)  # type: ignore[no-any-return]


def status_decodes(pod: Mapping[str, Any], valid_times: set[str] | None = None) -> bool:
    """Whether `check_decodes` would neither refuse nor change a pod's status (not part of its shape:
    `kexplain.admission.shapes`); `valid_times` grows with the times found valid."""
    status = pod.get("status")
    if status is None:
        return True
    if type(status) is not dict:
        return False
    for key, value in status.items():      # (its own few fields, not the schema's many)
        sub = _POD_STATUS.get(key)
        if sub is None or value is None or (sub == STR and type(value) is str) or (
                sub == TIME and valid_times is not None and type(value) is str and value in valid_times):
            continue
        break
    else:
        return True
    checked = dict(status)
    try:
        _check(checked, _POD_STATUS, "status", pod, _NOWHERE)
    except InputError:
        return False
    if valid_times is not None:
        valid_times.update(status[key] for key, sub in _POD_STATUS.items()
                           if sub == TIME and type(status.get(key)) is str)
    return all(checked[key] is status[key] for key in _POD_STATUS if key in checked)


_NOWHERE = Source("<status>")
_POD_STATUS = SCHEMAS["Pod"]["status"]


def dra_version_error(obj: dict, kube: KubeVersion = DEFAULT_VERSION) -> str:
    """Why a DRA object at a version kexplain does not convert (an alpha one) is not read."""
    readable = ", ".join(sorted(dra_convert.READ_AS.get(kube.minor, dra_convert.READ_AS[DEFAULT_VERSION.minor])))
    return (f"{obj.get('apiVersion') or 'no apiVersion'} {obj['kind']} is not read: write it as "
            f"{dra_convert.INTERNAL} (kexplain reads {readable})")


def decode_error(obj: dict, source: Source, kube: KubeVersion = DEFAULT_VERSION) -> InputError | None:
    """The API server's decoding error for `obj` (a built-in kind) naming the field, or None."""
    try:
        refused = builtin_index(kube.minor).decode_error(obj.get("apiVersion"), obj.get("kind"), obj)
    except RecursionError:
        return InputError("object is nested too deeply", source=source, obj=obj)
    if refused is None:
        return None
    return InputError(refused.message, source=source, obj=obj, field=refused.dotted or None)


def check_fields(obj: dict, source: Source, validate: str, kube: KubeVersion = DEFAULT_VERSION) -> list[str]:
    """`kube`'s kube-apiserver decoding `obj` (a create request) with kubectl's field validation:
    InputError when it does not decode or (strict) has unknown fields; warn's warnings."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return []
    try:
        refused, paths = builtin_index(kube.minor).decode_problems(api_version, kind, obj, unknown=validate != "ignore")
    except RecursionError:
        raise InputError("object is nested too deeply", source=source, obj=obj) from None
    if refused is not None:
        raise InputError(refused.message, source=source, obj=obj, field=refused.dotted or None)
    if not paths:
        return []
    if validate == "strict":
        raise InputError(unknown_fields_error(paths), source=source, obj=obj,
                         field=paths[0] if len(paths) == 1 else None)
    return [f"{source}: {describe(obj)}: {p}: {unknown_field_warning(p)}" for p in paths]

"""The Kubernetes API's built-in definitions, offline: what explain and lint both ask of them.

Read from the `kubernetes-validate` package's JSON Schemas without jsonschema (milliseconds): the
versions installed, where each kind is served, kubectl's `--validate` modes, and `builtin_index()`,
one compiled walk per kind finding the decoding errors the API server answers with (it decodes into
Go structs, never validates a schema). Details: docs/internals/admission.md.
"""
from __future__ import annotations

import datetime
import functools
import importlib.util
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable

from kexplain.apimachinery import quantity
from kexplain.apimachinery.fielderrors import go_quote as quote  # Go's %q (re-exported)
from kexplain.apimachinery.gotypes import FIELD_TYPES, NAMED_CONTAINERS
from kexplain.apimachinery.versions import DEFAULT_K8S_VERSION  # (re-exported)
from kexplain.apimachinery.versions import REMOVED_GROUPS, off_by_default, removed_kind, runtime_config_flag
from kexplain.errors import KexplainError, clip

SCHEMA_PACKAGE = "kubernetes_validate"
SCHEMA_ROOT = "kubernetes-json-schema"
_VERSION_DIR = re.compile(r"^v(\d+)\.(\d+)\.\d+-local$")
DEFS_PREFIX = "#/$defs/"


# -- versions ------------------------------------------------------------------------------
def _schema_root() -> Any:
    """The package's schema folder, found without importing the package (which imports
    jsonschema: `kexplain POD` reads the definitions and has no use for it)."""
    try:
        spec = importlib.util.find_spec(SCHEMA_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise KexplainError("the Kubernetes schemas are missing: install the kubernetes-validate package "
                            "(pip install kubernetes-validate)")
    for location in spec.submodule_search_locations or ():
        folder = Path(location) / SCHEMA_ROOT
        if folder.is_dir():
            return folder
    return resources.files(SCHEMA_PACKAGE) / SCHEMA_ROOT     # pragma: no cover - a zipped install


def available_versions() -> list[str]:
    """The Kubernetes versions (major.minor) whose schemas are installed, oldest first."""
    found = []
    for entry in _schema_root().iterdir():
        m = _VERSION_DIR.match(entry.name)
        if m:
            found.append((int(m.group(1)), int(m.group(2))))
    return [f"{a}.{b}" for a, b in sorted(found)]


def normalize_version(text: str) -> str:
    """`1.35`, `v1.35` or `1.35.4` -> `1.35`."""
    m = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.\d+)?", text.strip())
    if not m:
        raise KexplainError(f"--k8s-version: {text!r} is not a Kubernetes version like 1.35")
    return f"{int(m.group(1))}.{int(m.group(2))}"


def definitions(version: str, strict: bool) -> dict[str, Any]:
    """The definitions document of a version; `strict`: the flavour with `additionalProperties:
    false` on every object with properties (a Go struct), which refuses unknown fields."""
    folder = _schema_root() / (f"v{version}.0-local" + ("-strict" if strict else ""))
    try:
        text = (folder / "_definitions.json").read_text(encoding="utf-8")
    except OSError:
        versions = available_versions()
        raise KexplainError(f"--k8s-version: no schemas for Kubernetes {version} "
                            f"(installed: {versions[0]} to {versions[-1]})" if versions else
                            "no Kubernetes schemas are installed") from None
    return json.loads(text)


# -- API versions ----------------------------------------------------------------------------
def group_of(api_version: str) -> str:
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


def gvk_key(api_version: str, kind: str) -> tuple[str, str]:
    return (api_version, kind)


def api_version_of(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


def builtin_kinds(defs: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(apiVersion, kind) -> the name of its definition, for every built-in kind of a version."""
    out: dict[tuple[str, str], str] = {}
    for name, schema in defs.items():
        for gvk in schema.get("x-kubernetes-group-version-kind") or ():
            key = gvk_key(api_version_of(gvk.get("group", ""), gvk.get("version", "")), gvk.get("kind", ""))
            out.setdefault(key, name)
    return out


NO_API_VERSION = "object has no apiVersion"
_KUBE_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


def version_priority(api_version: str) -> tuple:
    """apimachinery's CompareKubeAwareVersionStrings as a sort key, preferred first."""
    version = api_version.rsplit("/", 1)[-1]
    m = _KUBE_VERSION.match(version)
    if not m:
        return (3, 0, 0, version)
    stage = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    return (stage, -int(m.group(1)), -int(m.group(3) or 0), "")


def not_served(api_version: str, kind: str, served: Iterable[str], version: str, enabled_only: bool = False) -> str:
    """What lint (unknown-api-version) and `kexplain POD` say of a kind at an API version not served:
    kubectl's `no matches for kind ...`, then why and what to write instead."""
    use = " or ".join(served)
    if use and enabled_only:
        use = f"{use}, which kube-apiserver serves only when --runtime-config enables it"
    return (f"no matches for kind {quote(kind)} in version {quote(api_version)}: Kubernetes {version} does not "
            f"serve it" + (f" (use {use})" if use else ""))


def off_by_default_message(api_version: str, served: Iterable[str], version: str) -> str:
    """What lint and `kexplain POD` say of a group version kube-apiserver has but serves only
    when enabled (`resource.k8s.io/v1beta1` in 1.35)."""
    use = list(served)
    return (f"{api_version} is off by default in Kubernetes {version}: kube-apiserver serves it only with "
            f"{runtime_config_flag(api_version)}" + (f" (use {' or '.join(use)})" if use else ""))


SERVED, OFF_BY_DEFAULT, NOT_SERVED, MISSING = "served", "off-by-default", "not-served", "missing"


@dataclass(frozen=True)
class ApiVersionStatus:
    """How one minor's kube-apiserver takes a built-in kind at one API version: `state` SERVED,
    OFF_BY_DEFAULT, NOT_SERVED or MISSING; `use`: the versions to write instead, preferred first."""

    api_version: str
    kind: str
    version: str
    state: str
    use: tuple[str, ...] = ()
    enabled_only: bool = False      # `use` are off by default too: no version of the kind is served
    removed: str = ""       # the kind is gone at every version: when, and what replaced it (REMOVED_KINDS)

    @property
    def message(self) -> str:
        if self.state == MISSING:
            return NO_API_VERSION
        if self.state == OFF_BY_DEFAULT:
            return off_by_default_message(self.api_version, self.use, self.version)
        if self.state == NOT_SERVED and self.removed:
            return (f"no matches for kind {quote(self.kind)} in version {quote(self.api_version)}: Kubernetes "
                    f"{self.version} does not serve it ({self.removed})")
        if self.state == NOT_SERVED:
            return not_served(self.api_version, self.kind, self.use, self.version, self.enabled_only)
        return ""


# -- field validation (kubectl --validate) ---------------------------------------------------
VALIDATE_MODES = ("strict", "warn", "ignore")
_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})       # Go's strconv.ParseBool
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def parse_validate(text: str) -> str:
    """kubectl's `--validate` value: strict (or true), warn, ignore (or false)."""
    if text in VALIDATE_MODES:
        return text
    if text in _TRUE:
        return "strict"
    if text in _FALSE:
        return "ignore"
    raise KexplainError(f"invalid - validate option {json.dumps(text, ensure_ascii=False)}; "
                        "must be one of: strict (or true), warn, ignore (or false)")


def unknown_field_warning(path: str) -> str:
    """The API server's warning for an unknown field (fieldValidation=Warn)."""
    return f"unknown field {quote(path)}"


def unknown_fields_error(paths: Iterable[str]) -> str:
    """The API server's strict-validation refusal naming every unknown field, in document order."""
    return "strict decoding error: " + ", ".join(unknown_field_warning(p) for p in paths)


def dotted_path(path: tuple[str | int, ...]) -> str:
    """A path in an object as the API server writes it: `spec.containers[0].image`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# -- the built-in kinds, for `kexplain POD` -----------------------------------------------------
FieldCheck = Callable[[Any], bool]


_UNSET = object()
_UNKNOWN = object()


def _any_value(value: Any) -> bool:
    return True


def _no_value(value: Any) -> bool:
    return False


class ApiIndex:
    """What one version's API server knows of its built-in kinds (strict definitions, no jsonschema):
    where each is served, how an object decodes, which fields are unknown. One compiled yes/no walk
    answers for nearly every object; only one it says no to is walked again to name the problem."""

    def __init__(self, version: str = DEFAULT_K8S_VERSION) -> None:
        self.version = normalize_version(version)
        self._defs: dict[str, Any] = definitions(self.version, True).get("$defs") or {}
        self._kinds = builtin_kinds(self._defs)
        self._groups = {group_of(a) for a, _ in self._kinds}
        self._off = off_by_default(self.version)
        self._available: dict[str, list[str]] = {}
        for api_version, kind in self._kinds:
            self._available.setdefault(kind, []).append(api_version)
        for versions in self._available.values():
            versions.sort(key=lambda a: (version_priority(a), group_of(a)))
        self._checks: dict[tuple[str, bool], FieldCheck | None] = {}
        self._field_checks: dict[tuple[str, str, bool], Any] = {}    # (definition, field, unknown) -> check

    def available_versions(self, kind: str) -> list[str]:
        """Every API version of a built-in kind this version's kube-apiserver has, preferred
        first, off-by-default ones included (`--runtime-config` can serve them)."""
        return list(self._available.get(kind, ()))

    def served_versions(self, kind: str) -> list[str]:
        """The API versions of a built-in kind kube-apiserver serves by default, preferred first."""
        return [a for a in self._available.get(kind, ()) if a not in self._off]

    def api_version_status(self, api_version: Any, kind: str) -> ApiVersionStatus | None:
        """How kube-apiserver takes a `kind` object at `api_version` (`ApiVersionStatus`); None
        for a kind it does not have and for a group of its own (a custom resource: not known here)."""
        if not isinstance(api_version, str) or not api_version:
            return ApiVersionStatus("", kind, self.version, MISSING)
        available = self._available.get(kind)
        group = group_of(api_version)
        if not available:       # no version of the kind: gone (no schema), or a kind of a group of its own
            removed = removed_kind(api_version, kind)
            if removed or self.builtin_group(group):
                return ApiVersionStatus(api_version, kind, self.version, NOT_SERVED, removed=removed)
            return None
        if not self.builtin_group(group):
            return None
        served = tuple(sorted(self.served_versions(kind), key=lambda a: group_of(a) != group))    # its group first
        if (api_version, kind) not in self._kinds:
            if served:
                return ApiVersionStatus(api_version, kind, self.version, NOT_SERVED, served)
            best = version_priority(available[0])[0]        # GA, else beta, else alpha
            return ApiVersionStatus(api_version, kind, self.version, NOT_SERVED,
                                    tuple(a for a in available if version_priority(a)[0] == best), True)
        if api_version in self._off:
            return ApiVersionStatus(api_version, kind, self.version, OFF_BY_DEFAULT, served)
        return ApiVersionStatus(api_version, kind, self.version, SERVED)

    def builtin_group(self, group: str) -> bool:
        """A group of Kubernetes' own, which no CustomResourceDefinition can have: no dot, in the
        definitions, or a removed kind's (`settings.k8s.io`)."""
        return "." not in group or group in self._groups or group in REMOVED_GROUPS

    def api_version_problem(self, api_version: Any, kind: str) -> str | None:
        """Why the API server would not take a `kind` object at `api_version`; None when it would, or
        for a group not its own (a custom resource)."""
        status = self.api_version_status(api_version, kind)
        return status.message if status is not None and status.state in (MISSING, NOT_SERVED) else None

    def definition(self, api_version: Any, kind: Any) -> str | None:
        """The definition name of a built-in kind (at its preferred version when `api_version` is not
        served or missing); None for other kinds and non-string values."""
        if not isinstance(kind, str):
            return None
        name = self._kinds.get((api_version, kind)) if isinstance(api_version, str) else None
        if name is None and kind in self._available:
            name = self._kinds[((self.served_versions(kind) or self._available[kind])[0], kind)]
        return name

    def kind_schema(self, api_version: Any, kind: Any) -> dict[str, Any] | None:
        """The definition of a built-in kind at `api_version`, for its fields' patch strategies and
        merge keys (`apply_patch`); None without one."""
        name = self.definition(api_version, kind)
        return self._defs.get(name) if name is not None else None

    def resolved(self, schema: Any) -> dict[str, Any]:
        """`schema` with its `$ref`s followed ({} for none)."""
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
            schema = self._defs.get(schema["$ref"][len(DEFS_PREFIX):])
        return schema if isinstance(schema, dict) else {}

    def decode_problems(self, api_version: str, kind: str, obj: Any,
                        unknown: bool = True) -> tuple["DecodeError | None", list[str]]:
        """Decoding `obj` as the API server does: its decoding error, or else (`unknown`) the dotted
        paths of its unknown fields in the server's order; (None, []) for a kind without a definition."""
        name = self._kinds.get((api_version, kind))
        if name is None:
            return None, []
        check = self._struct_check(name, unknown)
        if check is None or check(obj):
            return None, []
        refused = self.decode_error_of(name, obj, checked=True)
        if refused is not None or not unknown:
            return refused, []
        out: list[str] = []
        self._collect(self._defs[name], obj, (), out)
        return None, out

    def field_check(self, api_version: str, kind: str, field: str, unknown: bool = True) -> Callable[[Any], bool]:
        """`decode_problems` of one field of many objects of a kind as a yes/no of its value, looked up
        once for them all."""
        name = self._kinds.get((api_version, kind))
        if name is None:
            return _any_value
        key = (name, field, unknown)
        check = self._field_checks.get(key, _UNSET)
        if check is _UNSET:
            props = (self._defs.get(name) or {}).get("properties") or {}
            check = self._field_checks[key] = self._compile(props[field], unknown) if field in props else _UNKNOWN
        if check is _UNKNOWN:           # (not a field of the kind: the whole walk says what of it)
            return _no_value
        return _any_value if check is None else check

    def decode_error(self, api_version: Any, kind: Any, obj: Any) -> "DecodeError | None":
        """The error the API server's decoding refuses `obj` with, or None (also for a kind
        without a definition). An unserved API version is read as the kind's first served one."""
        name = self.definition(api_version, kind)
        return None if name is None else self.decode_error_of(name, obj)

    def decode_error_of(self, name: str, obj: Any, checked: bool = False) -> "DecodeError | None":
        """`decode_error` for the definition `name`; `checked`: the yes/no walk said no already."""
        if not checked:
            check = self._struct_check(name, False)
            if check is None or check(obj):
                return None
        return _Decoding(self).first_error(name, obj)

    def unknown_fields(self, api_version: str, kind: str, obj: Any) -> list[str]:
        """The dotted paths of the fields of `obj` its schema does not define ([] for a kind
        without one), in the API server's order (keys sorted, as kubectl sends them)."""
        name = self._kinds.get((api_version, kind))
        if name is None:
            return []
        check = self._struct_check(name, True)
        if check is None or check(obj):
            return []
        out: list[str] = []
        self._collect(self._defs[name], obj, (), out)
        return out

    # -- the yes/no walk: compiled once per definition (and strictness); None accepts anything --
    def _struct_check(self, name: str, closed: bool) -> FieldCheck | None:
        key = (name, closed)
        if key in self._checks:
            return self._checks[key]
        cell: list[FieldCheck | None] = [None]

        def recursive(v: Any) -> bool:
            return cell[0] is None or cell[0](v)
        self._checks[key] = recursive          # a definition that contains itself sees this
        check = self._compile_struct(self._defs.get(name) or {}, closed)
        cell[0] = check
        self._checks[key] = check
        return check

    def _compile_struct(self, schema: dict[str, Any], closed: bool) -> FieldCheck | None:
        props = schema.get("properties") or {}
        names = frozenset(props)
        # per field: the value types taken without a look (None, str for a string ...), and the
        # check of the others (None: any value) - most values are taken at a glance
        below: dict[str, tuple[tuple[type, ...], FieldCheck | None]] = {}
        for key, sub in props.items():
            check = self._compile(sub, closed)
            if check is not None:
                below[key] = (_GLANCE.get(self._shape(sub)[0], (type(None),)), check)
        closed = closed and schema.get("additionalProperties", True) is False and bool(props)

        def check(v: Any) -> bool:
            if type(v) is not dict:
                return v is None
            for key, value in v.items():
                c = below.get(key)
                if c is not None:
                    if type(value) not in c[0] and not c[1](value):
                        return False
                elif closed and key not in names:
                    return False
            return True
        return check

    def _compile(self, schema: Any, closed: bool) -> FieldCheck | None:
        shape, detail = self._shape(schema)
        if shape == "struct":
            return self._struct_check(detail, closed)
        if shape in ("slice", "map"):
            each = self._compile(detail, closed)
            # the items' types taken at a glance, all asked at once in C (labels, a node's
            # images' names): `each` only when one is of another type
            glance = frozenset(_GLANCE.get(self._shape(detail)[0], ()))
            if shape == "slice":
                if each is None:
                    return lambda v: v is None or type(v) is list
                if glance:
                    return lambda v: v is None or (type(v) is list and (glance.issuperset(map(type, v))
                                                                         or all(map(each, v))))
                return lambda v: v is None or (type(v) is list and all(map(each, v)))
            if each is None:
                return lambda v: v is None or type(v) is dict
            if glance:
                return lambda v: v is None or (type(v) is dict and (glance.issuperset(map(type, v.values()))
                                                                     or all(map(each, v.values()))))
            return lambda v: v is None or (type(v) is dict and all(map(each, v.values())))
        if shape == "time":
            return lambda v: (type(v) is str and go_time_parse_error(detail, v) is None) or _time_decodes(detail, v)
        return _LEAF_CHECKS[shape]

    def _shape(self, schema: Any) -> tuple[str, Any]:
        """What Go decodes a value of `schema` into: (shape, detail): struct (the definition's
        name), slice and map (the element's schema), time (the layout), or a leaf (`_LEAF_CHECKS`)."""
        if not isinstance(schema, dict):
            return "any", None
        ref = schema.get("$ref")
        if isinstance(ref, str):
            name = ref[len(DEFS_PREFIX):]
            special = _SPECIAL_DEFINITIONS.get(name)
            if special is not None:
                return special
            if name not in self._defs:
                return "any", None
            target = self._defs[name]
            if "properties" in target or _json_types(target) == ["object"]:
                return "struct", name
            return self._shape(target)
        types = _json_types(schema)
        if types == ["string"]:
            return ("bytes", None) if schema.get("format") == "byte" else ("string", None)
        if types == ["integer"]:
            return ("int32", None) if schema.get("format") == "int32" else ("int64", None)
        if types == ["number"]:
            return "float", None
        if types == ["boolean"]:
            return "bool", None
        if types == ["array"] and isinstance(schema.get("items"), dict):
            return "slice", schema["items"]
        if types == ["object"] and isinstance(schema.get("additionalProperties"), dict):
            return "map", schema["additionalProperties"]
        return "any", None

    # the walk that names unknown fields, for the objects that have some
    def _collect(self, schema: Any, value: Any, path: tuple[str | int, ...], out: list[str]) -> None:
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
            schema = self._defs.get(schema["$ref"][len(DEFS_PREFIX):]) or {}
        if not isinstance(schema, dict):
            return
        if isinstance(value, list) and isinstance(schema.get("items"), dict):
            for i, item in enumerate(value):
                self._collect(schema["items"], item, path + (i,), out)
        elif isinstance(value, dict):
            props = schema.get("properties") or {}
            extra = schema.get("additionalProperties", True)
            for key in sorted(value, key=_key_text):
                item = value[key]
                if key in props:
                    self._collect(props[key], item, path + (key,), out)
                elif extra is False:
                    out.append(dotted_path(path + (key,)))
                elif isinstance(extra, dict):
                    self._collect(extra, item, path + (key,), out)


@functools.lru_cache(maxsize=4)
def builtin_index(version: str = DEFAULT_K8S_VERSION) -> ApiIndex:
    """The `ApiIndex` of a Kubernetes version, read once per process."""
    return ApiIndex(version)


# -- decoding as the API server does ------------------------------------------------------------
# Into the kind's Go struct with sigs.k8s.io/json, as kube-apiserver does (not against the schema): the
# first *json.UnmarshalTypeError is reported, a Quantity's, IntOrString's or Time's own error at once.
# The details: docs/internals/admission.md.
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
RFC3339 = "2006-01-02T15:04:05Z07:00"
RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"
_SPECIAL_DEFINITIONS: dict[str, tuple[str, Any]] = {
    _QUANTITY: ("quantity", None),
    _INT_OR_STRING: ("intstr", None),
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": ("time", RFC3339),
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": ("time", RFC3339_MICRO),
    # raw JSON kept as it is written (or decoded by rules of its own: the CRD schema types)
    **{f"io.k8s.{name}": ("any", None) for name in (
        "apimachinery.pkg.runtime.RawExtension", "apimachinery.pkg.apis.meta.v1.FieldsV1",
        "apimachinery.pkg.apis.meta.v1.Patch", "apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
        "apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
        "apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
        "apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray")},
}
_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)
_UINT8 = (0, 255)


@dataclass(frozen=True)
class DecodeError:
    """Why the API server's decoding refuses an object: where (the path in the object, list
    indices and map keys included) and its message."""

    path: tuple[str | int, ...]
    message: str

    @property
    def dotted(self) -> str:
        return dotted_path(self.path)


def _json_types(schema: dict[str, Any]) -> list[str]:
    spec = schema.get("type")
    names = [spec] if isinstance(spec, str) else list(spec or ())
    return [t for t in names if t != "null"]


def _key_text(key: Any) -> str:
    """A mapping key as JSON has it (kubectl turns YAML's `1:` into `"1"`)."""
    return key if isinstance(key, str) else json.dumps(key) if isinstance(key, bool) or key is None else str(key)


def _is_text(v: Any) -> bool:
    """A JSON string: a str, or a YAML timestamp (kubectl sends what was written, a string)."""
    return type(v) is str or isinstance(v, (datetime.date, datetime.datetime))


def _in_range(v: Any, bounds: tuple[int, int]) -> bool:
    """A JSON number Go's ParseInt takes into an integer type of these bounds: an int, or a
    float without a fraction (YAML's `3.0` is JSON's `3`; from 1e21 on, JSON writes `1e+21`)."""
    t = type(v)
    if t is int:
        return bounds[0] <= v <= bounds[1]
    return t is float and v.is_integer() and abs(v) < 1e21 and bounds[0] <= v <= bounds[1]


# A bounded cache (10,000 short strings, then no more entries): quantities recur across pods.
_QUANTITY_PROBLEMS: dict[str, str | None] = {}


def _quantity_problem(v: Any) -> str | None:
    """resource.ParseQuantity's error for the JSON text of `v` (a string without its quotes),
    None when it parses. kexplain's own limit (digits) is not the API server's: None."""
    t = type(v)
    if t is int or t is float:
        return None
    if t is str and v in _QUANTITY_PROBLEMS:
        return _QUANTITY_PROBLEMS[v]

    if t is not str:
        return quantity.GRAMMAR          # true, {...}, [...], a timestamp: not a number
    try:
        quantity.parse_text(v)
        problem = None
    except quantity.QuantityError as err:
        problem = None if str(err).startswith("quantities of more than") else str(err)
    if len(_QUANTITY_PROBLEMS) < 10_000 and len(v) < 100:
        _QUANTITY_PROBLEMS[v] = problem
    return problem


def _bytes_decode(v: Any) -> bool:
    if type(v) is str:
        return _base64_problem(v) is None
    if type(v) is list:
        return all(_in_range(x, _UINT8) or x is None for x in v)
    return v is None


def _int_or_string(v: Any) -> bool:
    return v is None or _is_text(v) or _in_range(v, _INT32)


_LEAF_CHECKS: dict[str, FieldCheck | None] = {
    "any": None,
    "string": lambda v: v is None or _is_text(v),
    "bool": lambda v: v is None or v is True or v is False,
    "int32": lambda v: (type(v) is int and -0x80000000 <= v <= 0x7fffffff) or v is None or _in_range(v, _INT32),
    "int64": lambda v: (type(v) is int and -1 << 63 <= v < 1 << 63) or v is None or _in_range(v, _INT64),
    "float": lambda v: v is None or type(v) is int or type(v) is float,
    "bytes": _bytes_decode,
    "quantity": lambda v: v is None or _quantity_problem(v) is None,
    "intstr": _int_or_string,
}


_NONE = type(None)
# the value types a field of each shape takes at a glance (the check is for the others)
_GLANCE: dict[str, tuple[type, ...]] = {
    "string": (str, _NONE), "bool": (bool, _NONE), "float": (int, float, _NONE), "quantity": (int, float, _NONE),
    "intstr": (str, _NONE),
}


def _time_decodes(layout: str, v: Any) -> bool:
    if v is None:
        return True
    return _is_text(v) and go_time_parse_error(layout, _timestamp_text(v)) is None


def _timestamp_text(v: Any) -> str:
    """The text of a YAML timestamp as it was likely written (`2024-01-01T00:00:00Z`)."""
    if isinstance(v, datetime.datetime):
        text = v.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(v, datetime.date):
        return v.isoformat()
    return v


def go_type_of(schema: Any) -> str:
    """The Go type (as reflect prints it, no pointers) the OpenAPI schema implies; other declared types
    are in `kexplain.apimachinery.gotypes.FIELD_TYPES`."""
    if not isinstance(schema, dict):
        return "interface {}"
    ref = schema.get("$ref")
    if isinstance(ref, str):
        parts = ref.rsplit(".", 2)
        return f"{parts[-2]}.{parts[-1]}"
    types = _json_types(schema)
    kind = types[0] if len(types) == 1 else None
    if kind == "string":
        return "[]uint8" if schema.get("format") == "byte" else "string"
    if kind == "integer":
        return "int32" if schema.get("format") == "int32" else "int64"
    if kind == "number":
        return "float64"
    if kind == "boolean":
        return "bool"
    if kind == "array":
        return "[]" + go_type_of(schema.get("items"))
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return "map[string]" + go_type_of(schema["additionalProperties"])
    return "interface {}"


def _element_type(go_type: str) -> str:
    """The element type of a Go slice or map type (`[]v1.Container`, `v1.ResourceList`)."""
    go_type = NAMED_CONTAINERS.get(go_type, go_type)
    if go_type.startswith("[]"):
        return go_type[2:]
    if go_type.startswith("map["):
        depth = 0
        for i in range(3, len(go_type)):
            depth += (go_type[i] == "[") - (go_type[i] == "]")
            if depth == 0:
                return go_type[i + 1:]
    return "interface {}"


def _json_word(v: Any) -> str:
    """The JSON kind of a value as Go's UnmarshalTypeError names it."""
    if v is True or v is False:
        return "bool"
    if type(v) is int or type(v) is float:
        return "number"
    if type(v) is list:
        return "array"
    if type(v) is dict:
        return "object"
    return "string"


def json_number(v: int | float) -> str:
    """A number as kubectl's JSON writes it (Go's encoding/json: `1.5`, `3`, `1e+21`, `1e-7`)."""
    if type(v) is int:
        if abs(v) < 1 << 64:
            return str(v)
        try:
            v = float(v)     # YAML's integers past uint64 are floats to go-yaml
        except OverflowError:
            return str(v)
    if v != v or v in (float("inf"), float("-inf")):
        return str(v)
    if v.is_integer() and abs(v) < 1e21:
        return str(int(v))

    digits = Decimal(repr(v))
    if v != 0 and (abs(v) < 1e-6 or abs(v) >= 1e21):
        sign, ds, exp = digits.as_tuple()
        text = "".join(map(str, ds)).rstrip("0") or "0"
        exponent = int(exp) + len(ds) - 1
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{'-' if sign else ''}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}".replace(
            "e-0", "e-")
    return format(digits, "f")


class _Hard(Exception):
    """A decoder of its own failed (Quantity, IntOrString, Time): decoding ends there."""

    def __init__(self, error: DecodeError) -> None:
        super().__init__(error.message)
        self.error = error


class _Decoding:
    """One walk of an object as Go's decoder goes through it: keys in sorted order, the first
    type error kept, a failing decoder of its own ending it."""

    def __init__(self, index: ApiIndex) -> None:
        self.index = index
        self.saved: DecodeError | None = None

    def first_error(self, name: str, obj: Any) -> DecodeError | None:
        try:
            self.walk({"$ref": DEFS_PREFIX + name}, go_type_of({"$ref": DEFS_PREFIX + name}), obj, (), (), None)
        except _Hard as hard:
            return hard.error
        return self.saved

    def walk(self, schema: Any, go_type: str, value: Any, path: tuple[str | int, ...], fields: tuple[str, ...],
             struct: str | None) -> None:
        """Check `value` against `schema` (Go type `go_type`) at `path`, inside the struct
        `struct` reached through `fields` (for the error's context)."""
        if value is None:       # null: a nil pointer, slice or map, or the zero value
            return
        shape, detail = self.index._shape(schema)
        if shape == "any":
            return
        if shape == "struct":
            if type(value) is not dict:
                self._mismatch(_json_word(value), go_type, path, fields, struct)
                return
            props = self.index._defs[detail].get("properties") or {}
            declared = FIELD_TYPES.get(detail, {})
            name = detail.rsplit(".", 1)[-1]
            for key in sorted(value, key=_key_text):
                sub = props.get(key) if type(key) is str else None
                if sub is not None:      # an unknown field is skipped (strict decoding names it)
                    self.walk(sub, declared.get(key) or go_type_of(sub), value[key], path + (key,),
                              fields + (key,), name)
        elif shape in ("slice", "map"):
            if type(value) is not (list if shape == "slice" else dict):
                self._mismatch(_json_word(value), go_type, path, fields, struct)
                return
            element = _element_type(go_type)
            if shape == "slice":
                for i, item in enumerate(value):
                    self.walk(detail, element, item, path + (i,), fields, struct)
            else:
                for key in sorted(value, key=_key_text):
                    self.walk(detail, element, value[key], path + (_key_text(key),), fields, struct)
        elif shape == "string":
            if not _is_text(value):
                self._mismatch(_json_word(value), go_type, path, fields, struct)
        elif shape == "bool":
            if value is not True and value is not False:
                self._mismatch(_json_word(value), go_type, path, fields, struct)
        elif shape in ("int32", "int64"):
            if type(value) is int or type(value) is float:
                if not _in_range(value, _INT32 if shape == "int32" else _INT64):
                    self._mismatch("number " + json_number(value), go_type, path, fields, struct)
            else:
                self._mismatch(_json_word(value), go_type, path, fields, struct)
        elif shape == "float":
            if type(value) is not int and type(value) is not float:
                self._mismatch(_json_word(value), go_type, path, fields, struct)
        else:
            self._custom(shape, detail, go_type, value, path, fields, struct)

    def _custom(self, shape: str, detail: Any, go_type: str, value: Any, path: tuple[str | int, ...],
                fields: tuple[str, ...], struct: str | None) -> None:
        """The types with a decoder of their own ([]byte, Quantity, IntOrString, Time)."""
        if shape == "bytes":
            if type(value) is str:
                problem = _base64_problem(value)
                if problem is not None and self.saved is None:
                    self.saved = DecodeError(path, problem)
            elif type(value) is list:        # an array of numbers is a []byte too
                for i, item in enumerate(value):
                    if item is not None and not _in_range(item, _UINT8):
                        self._mismatch(_number_word(item), "uint8", path + (i,), fields, struct)
            else:
                self._mismatch(_json_word(value), go_type, path, fields, struct)
        elif shape == "quantity":
            problem = _quantity_problem(value)
            if problem is not None:
                raise _Hard(DecodeError(path, problem))
        elif shape == "intstr":
            # IntOrString.UnmarshalJSON: a string, else json.Unmarshal into its int32; that
            # error gets the field's context as it leaves the decoder
            if not _int_or_string(value):
                self._mismatch(_number_word(value), "int32", path, fields, struct, hard=True)
        elif shape == "time":
            # metav1.Time.UnmarshalJSON: json.Unmarshal into a string, then time.Parse
            if not _is_text(value):
                self._mismatch(_json_word(value), "string", path, fields, struct, hard=True)
            problem = go_time_parse_error(detail, _timestamp_text(value))
            if problem is not None:
                raise _Hard(DecodeError(path, problem))

    def _mismatch(self, word: str, go_type: str, path: tuple[str | int, ...], fields: tuple[str, ...],
                  struct: str | None, hard: bool = False) -> None:
        """json's UnmarshalTypeError: kept when it is the first (decoding goes on), raised when
        `hard` (a decoder of its own failed: decoding stops)."""
        context = f"Go struct field {struct or ''}.{'.'.join(fields)}" if struct or fields else "Go value"
        error = DecodeError(path, f"json: cannot unmarshal {word} into {context} of type {go_type}")
        if hard:
            raise _Hard(error)
        if self.saved is None:
            self.saved = error


def _number_word(value: Any) -> str:
    """How json names a value that did not fit a number: `number 300`, else its JSON kind."""
    return "number " + json_number(value) if type(value) in (int, float) else _json_word(value)


# -- the Go library errors decoding reports -------------------------------------------------
def _base64_problem(text: str) -> str | None:
    """encoding/base64.StdEncoding.Decode's error (`illegal base64 data at input byte 4`), or
    None: what Go's JSON decoding says of a []byte field's string."""
    src = text.encode("utf-8", "surrogatepass")
    alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    si, n = 0, len(src)
    while si < n:
        j = 0
        while j < 4:
            if si == n:
                if j == 0:
                    return None
                return f"illegal base64 data at input byte {si - j}"
            c = src[si]
            si += 1
            if c in alphabet:
                j += 1
                continue
            if c in b"\r\n":
                continue
            if c != ord("="):
                return f"illegal base64 data at input byte {si - 1}"
            if j in (0, 1):
                return f"illegal base64 data at input byte {si - 1}"
            if j == 2:
                while si < n and src[si] in b"\r\n":
                    si += 1
                if si == n:
                    return f"illegal base64 data at input byte {n}"
                if src[si] != ord("="):
                    return f"illegal base64 data at input byte {si - 1}"
                si += 1
            while si < n and src[si] in b"\r\n":
                si += 1
            if si < n:
                return f"illegal base64 data at input byte {si}"
            return None
    return None


_TIME_CHUNKS = {RFC3339: (("", "2006"), ("-", "01"), ("-", "02"), ("T", "15"), (":", "04"), (":", "05"),
                          ("", "Z07:00")),
                RFC3339_MICRO: (("", "2006"), ("-", "01"), ("-", "02"), ("T", "15"), (":", "04"), (":", "05"),
                                ("", ".000000"), ("", "Z07:00"))}


def _go_quote(b: bytes) -> str:
    """The time package's quote: control and non-ASCII bytes as \\xNN."""
    out = ['"']
    for c in b:
        if c >= 0x80 or c < 0x20:
            out.append(f"\\x{c:02x}")
        else:
            if c in b'"\\':
                out.append("\\")
            out.append(chr(c))
    out.append('"')
    return "".join(out)


# a time in the form API servers write (second precision, UTC) on a day every month has: it parses, so
# the many distinct times of a cluster's statuses (one per pod) skip the parse below and its memory
PLAIN_TIME = re.compile(r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])"
                        r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z").fullmatch


def go_time_parse_error(layout: str, value: str) -> str | None:
    """time.Parse(layout, value)'s error for metav1.Time's and MicroTime's layouts, the value clipped;
    None when it parses."""
    if layout == RFC3339 and type(value) is str and PLAIN_TIME(value) is not None:
        return None
    return _parse_error(layout, value)


@functools.lru_cache(maxsize=4096)
def _parse_error(layout: str, value: str) -> str | None:
    rest = value.encode("utf-8", "surrogatepass")
    year = month = day = -1
    chunks = _TIME_CHUNKS[layout]
    for index, (prefix, std) in enumerate(chunks):
        p = prefix.encode()
        if not rest.startswith(p):
            common = 0
            while common < len(p) and common < len(rest) and rest[common] == p[common]:
                common += 1
            return _time_error(layout, value, prefix, rest[common:])
        hold = rest = rest[len(p):]
        fraction_next = std == "05" and chunks[index + 1][1] == ".000000"
        rest, bad, out_of_range, number = _time_element(std, rest, fraction_next)
        if out_of_range:
            return _time_error(layout, value, std, rest, f": {out_of_range} out of range")
        if bad:
            return _time_error(layout, value, std, hold)
        if std == "2006":
            year = number
        elif std == "01":
            month = number
        elif std == "02":
            day = number
    if rest:
        return _time_error(layout, value, "", rest, ": extra text: " + _go_quote(rest))
    if month == 2:
        days = 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    else:
        days = 30 if month in (4, 6, 9, 11) else 31
    if day < 1 or day > days:
        return _time_error(layout, value, "", rest, ": day out of range")
    return None


def _time_element(std: str, rest: bytes, fraction_next: bool) -> tuple[bytes, bool, str, int]:
    """time.Parse's step for one layout element `std` at the front of `rest`: (rest, failed, field
    out of range, number read or -1)."""
    bad, out_of_range, number = False, "", -1
    if std == "2006":
        if len(rest) < 4 or not _digit(rest, 0):
            return rest, True, "", -1
        year = _atoi(rest[:4])
        return rest[4:], year is None, "", year or 0
    if std in ("01", "02", "15", "04", "05"):
        got = _getnum(rest, std != "15")
        if got is None:
            return rest, True, "", -1
        number, rest = got
        if std == "01":
            out_of_range = "month" if not 1 <= number <= 12 else ""
        elif std == "15" and number >= 24:
            out_of_range = "hour"
        elif std == "04" and number >= 60:
            out_of_range = "minute"
        elif std == "05":
            if number >= 60:
                out_of_range = "second"
            elif len(rest) >= 2 and rest[:1] in (b".", b",") and _digit(rest, 1) and not fraction_next:
                n = 2
                while n < len(rest) and _digit(rest, n):
                    n += 1
                rest = rest[n:]
        return rest, False, out_of_range, number
    if std == ".000000":
        if len(rest) < 7 or rest[:1] not in (b".", b","):
            return rest, True, "", -1
        nanos = _atoi(rest[1:7])
        return rest[7:], nanos is None, "fractional second" if nanos is not None and nanos < 0 else "", -1
    # Z07:00
    if rest[:1] == b"Z":
        return rest[1:], False, "", -1
    if len(rest) < 6 or rest[3:4] != b":":
        return rest, True, "", -1
    sign, hour, minute, rest = rest[:1], rest[1:3], rest[4:6], rest[6:]
    hh, mm = _getnum(hour, True), _getnum(minute, True)
    bad = hh is None or mm is None
    if hh is not None and hh[0] > 24:
        out_of_range = "time zone offset hour"
    if mm is not None and mm[0] > 60:
        out_of_range = "time zone offset minute"
    return rest, bad or sign not in (b"+", b"-"), out_of_range, number


def _time_error(layout: str, value: str, layout_elem: str, value_elem: bytes, message: str = "") -> str:
    """time.ParseError's text: `message` after the (clipped) value, else the element that
    did not parse against the layout's element."""
    shown = _go_quote(clip(value, 200).encode("utf-8", "surrogatepass"))
    if message:
        return f"parsing time {shown}{message}"
    rest = clip(value_elem.decode("utf-8", "replace"), 200).encode("utf-8", "surrogatepass")
    return f"parsing time {shown} as {json.dumps(layout)}: cannot parse {_go_quote(rest)} as {json.dumps(layout_elem)}"


def _digit(b: bytes, i: int) -> bool:
    return len(b) > i and 48 <= b[i] <= 57


def _getnum(b: bytes, fixed: bool) -> tuple[int, bytes] | None:
    """time's getnum: one or (`fixed`) exactly two leading digits, and the rest."""
    if not _digit(b, 0):
        return None
    if not _digit(b, 1):
        return None if fixed else (b[0] - 48, b[1:])
    return (b[0] - 48) * 10 + b[1] - 48, b[2:]


def _atoi(b: bytes) -> int | None:
    """time's atoi: an optionally signed run of digits (None: not one)."""
    neg = b[:1] == b"-"
    if b[:1] in (b"-", b"+"):
        b = b[1:]
    if b and not all(48 <= c <= 57 for c in b):
        return None
    return -int(b or b"0") if neg else int(b or b"0")

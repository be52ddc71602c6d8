"""Kubernetes JSON schemas, offline, and validators compiled once per kind and version.

The schemas of the built-in kinds come from the `kubernetes-validate` package, which ships
the OpenAPI definitions of many Kubernetes versions converted to JSON Schema (draft 2020-12),
in a plain and a strict flavour (the strict one sets `additionalProperties: false` on every
object, so unknown fields are refused). Custom resources are unknown unless `--schemas DIR`
supplies their schemas: CustomResourceDefinition manifests, JSON schemas carrying
`x-kubernetes-group-version-kind`, or files laid out as `<group>/<kind>_<version>.json`
(the layout of the community CRD schema catalogs).

Validation is `jsonschema`'s. Since nearly every manifest is valid and jsonschema walks a
deep schema slowly, each validator also has a fast yes/no check compiled from the same schema
(only for schemas made of the keywords it implements exactly: type, enum, properties,
required, additionalProperties, items, oneOf, $ref); when it says valid, the object is valid
for jsonschema too; otherwise jsonschema runs and its errors are the ones reported, in the
API server's words (`spec.containers: Invalid value: "object": spec.containers in body must be
of type array: "object"`, `Required value`, `Unsupported value`: the texts of
k8s.io/kube-openapi's validation errors as k8s.io/apiextensions-apiserver turns them into field
errors; `strict decoding error: unknown field "spec.x"` for a field the schema does not define).

Those type errors are a custom resource's: the API server validates it against its CRD's
schema. A built-in kind it decodes into Go structs instead, and an object that does not decode
is refused with the decoder's error, which stops there (`json: cannot unmarshal object into Go
struct field PodSpec.spec.containers of type []v1.Container`; `ApiIndex.decode_error`, the
Go types from `kexplain.apimachinery.gotypes`): for a built-in kind, that is the object's one error, and
the schema's type checks are not reported.

Field validation follows kubectl's `--validate` (`VALIDATE_MODES`): `strict` (kubectl's
default: the API server refuses unknown fields), `warn` (it accepts the object, drops them and
warns) or `ignore`. `kexplain POD` asks the same of the objects it reads through
`builtin_index()`: the same definitions, read without jsonschema (a few milliseconds), with
the API versions each built-in kind is served at and one compiled walk that finds decoding
errors and unknown fields.
"""
from __future__ import annotations

import datetime
import functools
import importlib.util
import json
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

import yaml

from kexplain.errors import InputError, KexplainError, Source, clip
from kexplain.load.yaml_io import SafeLoader

if TYPE_CHECKING:  # pragma: no cover - imported where validators are built (68 ms: not for `kexplain POD`)
    import jsonschema

from kexplain.apimachinery.versions import DEFAULT_K8S_VERSION  # noqa: E402  (re-exported)
SCHEMA_PACKAGE = "kubernetes_validate"
SCHEMA_ROOT = "kubernetes-json-schema"
MAX_ERRORS_PER_OBJECT = 20
_VERSION_DIR = re.compile(r"^v(\d+)\.(\d+)\.\d+-local$")
_DEFS_PREFIX = "#/$defs/"

Check = Callable[[Any], bool]


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


def _definitions(version: str, strict: bool) -> dict[str, Any]:
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


def _api_version(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


def builtin_kinds(defs: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(apiVersion, kind) -> the name of its definition, for every built-in kind of a version."""
    out: dict[tuple[str, str], str] = {}
    for name, schema in defs.items():
        for gvk in schema.get("x-kubernetes-group-version-kind") or ():
            key = gvk_key(_api_version(gvk.get("group", ""), gvk.get("version", "")), gvk.get("kind", ""))
            out.setdefault(key, name)
    return out


NO_API_VERSION = "object has no apiVersion"


def not_served(api_version: str, kind: str, served: Iterable[str], version: str) -> str:
    """What lint (rule unknown-api-version) and `kexplain POD` say of a built-in kind at an API
    version the Kubernetes version does not serve (`batch/v1beta1 CronJob`)."""
    return f"{api_version} {kind} is not served by Kubernetes {version} (use {' or '.join(served)})"


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


def _quoted(text: str) -> str:
    """Go's %q, near enough (JSON string syntax)."""
    return json.dumps(text, ensure_ascii=False)


def unknown_field_warning(path: str) -> str:
    """The API server's warning for an unknown field (fieldValidation=Warn)."""
    return f"unknown field {_quoted(path)}"


def unknown_fields_error(paths: Iterable[str]) -> str:
    """The API server's refusal (fieldValidation=Strict, kubectl's default): every unknown field
    of the object, in document order, as `Pod in version "v1" cannot be handled as a Pod:
    strict decoding error: unknown field "spec.x", unknown field "spec.y"` ends."""
    return "strict decoding error: " + ", ".join(unknown_field_warning(p) for p in paths)


# -- the fast check --------------------------------------------------------------------------
class Unsupported(Exception):
    """The schema uses a keyword the fast check does not implement: jsonschema alone decides."""


_IGNORED = frozenset({"description", "format", "$schema", "$id", "title", "default", "example", "examples",
                      "$comment", "deprecated", "readOnly", "writeOnly"})
_KEYWORDS = frozenset({"type", "enum", "properties", "required", "additionalProperties", "items", "oneOf",
                       "$ref"}) | _IGNORED


def _is_type(value: Any, name: str, float_integers: bool = True) -> bool:
    """jsonschema's type semantics: booleans are not numbers; 1.0 is an integer from draft 6 on."""
    if name == "string":
        return isinstance(value, str)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if name == "integer":
        return isinstance(value, int) or (float_integers and isinstance(value, float) and value.is_integer())
    if name == "number":
        return isinstance(value, (int, float))
    raise Unsupported(f"type {name}")


def _all_of(checks: list[Check]) -> Check:
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)
    return lambda v: all(c(v) for c in checks)


class FastCompiler:
    """Compiles a schema (with `#/$defs/...` references into `defs`) to a yes/no check."""

    def __init__(self, defs: dict[str, Any], *, float_integers: bool = True) -> None:
        self.defs = defs
        self.float_integers = float_integers     # False for draft 4 (CRD schemas)
        self.compiled: dict[str, Check] = {}

    def ref(self, ref: str) -> Check:
        if not ref.startswith(_DEFS_PREFIX):
            raise Unsupported(f"$ref {ref}")
        name = ref[len(_DEFS_PREFIX):]
        if name not in self.compiled:
            cell: list[Check] = []
            self.compiled[name] = lambda v: cell[0](v)    # a recursive definition sees itself
            if name not in self.defs:
                raise Unsupported(f"$ref {ref}")
            check = self.compile(self.defs[name])
            cell.append(check)
            self.compiled[name] = check
        return self.compiled[name]

    def compile(self, schema: Any) -> Check:
        if schema is True:
            return lambda v: True
        if schema is False:
            return lambda v: False
        if not isinstance(schema, dict):
            raise Unsupported("schema is not an object")
        unknown = set(schema) - _KEYWORDS
        if any(not k.startswith("x-") for k in unknown):
            raise Unsupported(", ".join(sorted(unknown)))
        checks: list[Check] = []
        if "$ref" in schema:
            checks.append(self.ref(schema["$ref"]))
        if "type" in schema:
            checks.append(self._type(schema["type"]))
        if "enum" in schema:
            checks.append(self._enum(schema["enum"]))
        if any(k in schema for k in ("properties", "required", "additionalProperties")):
            checks.append(self._object(schema))
        if "items" in schema:
            checks.append(self._items(schema["items"]))
        if "oneOf" in schema:
            subs = [self.compile(s) for s in schema["oneOf"]]
            checks.append(lambda v: sum(1 for c in subs if c(v)) == 1)
        return _all_of(checks)

    def _type(self, spec: Any) -> Check:
        names = [spec] if isinstance(spec, str) else list(spec)
        floats = self.float_integers
        for n in names:
            _is_type(None, n)       # refuses unknown type names now
        simple = {"string": str, "object": dict, "array": list}
        if all(n in simple or n == "null" for n in names):
            types = tuple(simple[n] for n in names if n != "null")
            if "null" in names:
                return lambda v: v is None or isinstance(v, types)
            return lambda v: isinstance(v, types)
        return lambda v: any(_is_type(v, n, floats) for n in names)

    @staticmethod
    def _enum(values: list[Any]) -> Check:
        if not all(isinstance(x, str) or x is None for x in values):
            raise Unsupported("enum of non-strings")
        strings = frozenset(x for x in values if isinstance(x, str))
        allow_null = None in values
        return lambda v: (isinstance(v, str) and v in strings) or (v is None and allow_null)

    def _object(self, schema: dict[str, Any]) -> Check:
        props = {k: self.compile(s) for k, s in (schema.get("properties") or {}).items()}
        required = tuple(schema.get("required") or ())
        extra = schema.get("additionalProperties", True)
        extra_check = None if extra is True else self.compile(extra)

        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for key in required:
                if key not in v:
                    return False
            for key, value in v.items():
                c = props.get(key)
                if c is not None:
                    if not c(value):
                        return False
                elif extra_check is not None and not extra_check(value):
                    return False
            return True
        return check

    def _items(self, items: Any) -> Check:
        if not isinstance(items, dict):
            raise Unsupported("items is not a schema")
        each = self.compile(items)
        return lambda v: not isinstance(v, list) or all(each(x) for x in v)


# -- validators ------------------------------------------------------------------------------
@dataclass(frozen=True)
class SchemaError:
    """One violation: the path inside the object, and the message."""

    path: tuple[str | int, ...]
    message: str
    unknown_field: bool = False     # an additionalProperties: false violation (strict mode)
    type_error: bool = False        # a value of the wrong JSON type (kube-openapi's words)

    @property
    def dotted(self) -> str:
        return dotted_path(self.path)


def dotted_path(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@dataclass
class KindValidator:
    """A compiled validator for one kind of one API version."""

    api_version: str
    kind: str
    origin: str                      # "Kubernetes 1.35" or the schema file
    validator: Any = field(repr=False)          # a jsonschema validator instance
    fast: Check | None = field(default=None, repr=False)
    # a built-in kind: the API server's decoding (`ApiIndex.decode_error`) instead of type checks
    decode: Callable[[Any], "DecodeError | None"] | None = field(default=None, repr=False)

    def errors(self, obj: Any, limit: int = MAX_ERRORS_PER_OBJECT) -> list[SchemaError]:
        """The object's errors. For a built-in kind, an object that does not decode has one: the
        decoding error the API server answers with (it stops there); the JSON schema's type
        checks, which the API server does not run for built-in kinds, are left out."""
        if self.decode is not None:
            refused = self.decode(obj)
            if refused is not None:
                return [SchemaError(refused.path, refused.message, type_error=True)]
        if self.fast is not None and self.fast(obj):
            return []
        out: list[SchemaError] = []
        found = sorted(self.validator.iter_errors(obj), key=lambda e: [str(p) for p in e.absolute_path])
        for err in found:
            out.extend(e for e in _describe(err) if self.decode is None or not e.type_error)
            if len(out) >= limit:
                break
        return out[:limit]


def _describe(err: "jsonschema.ValidationError") -> list[SchemaError]:
    """One jsonschema error as the API server words it (`_MESSAGES`), never with a Python repr."""
    path = tuple(err.absolute_path)
    kind = err.validator
    if kind == "additionalProperties" and err.validator_value is False and isinstance(err.instance, dict):
        known = set((err.schema or {}).get("properties") or {})
        return [SchemaError(path + (k,), unknown_field_warning(dotted_path(path + (k,))), unknown_field=True)
                for k in err.instance if k not in known]
    if kind == "required" and isinstance(err.instance, dict):
        # one error per missing property; its name is only in the message (`'x' is a required property`)
        missing = [k for k in err.validator_value or () if k not in err.instance and err.message.startswith(repr(k))]
        return [SchemaError(path + (k,), "Required value") for k in missing[:1]] or [SchemaError(path, "Required value")]
    name = dotted_path(path) or "body"
    if kind == "type":
        return [SchemaError(path, _type_invalid(name, _types(err.validator_value), err.instance), type_error=True)]
    if kind in ("oneOf", "anyOf") and err.context:
        types = []      # oneOf over types (IntOrString, Quantity): say which types were expected
        for sub in err.validator_value:
            t = sub.get("type") if isinstance(sub, dict) else None
            types.extend([t] if isinstance(t, str) else (t or []))
        if types and all(isinstance(sub, dict) and set(sub) <= {"type", "format", "description"}
                         for sub in err.validator_value):
            return [SchemaError(path, _type_invalid(name, _types(types), err.instance), type_error=True)]
    if kind == "enum":
        allowed = ", ".join(_quoted(v if isinstance(v, str) else json.dumps(v)) for v in err.validator_value or ())
        return [SchemaError(path, f"Unsupported value: {_go_value(err.instance)}: supported values: {allowed}")]
    if kind == "maxLength":
        unit = "byte" if err.validator_value == 1 else "bytes"
        return [SchemaError(path, f"Too long: may not be more than {err.validator_value} {unit}")]
    if kind == "maxItems" and isinstance(err.instance, list):
        return [SchemaError(path, f"Too many: {len(err.instance)}: must have at most {err.validator_value} items")]
    if kind == "maxProperties" and isinstance(err.instance, dict):
        return [SchemaError(path, f"Too many: {len(err.instance)}: must have at most {err.validator_value} items")]
    bound = err.validator_value
    if kind in ("minimum", "maximum") and (err.schema or {}).get("exclusive" + kind.capitalize()) is True:
        kind = "exclusive" + kind.capitalize()          # draft 4: a boolean beside the bound
    template = _MESSAGES.get(kind)
    if template is not None:
        detail = template.replace("{name}", name).replace("{bound}", _go_number(bound))
    else:       # a keyword kube-openapi has no message of its own for: what it asks, as JSON
        detail = f"{name} in body does not satisfy {_quoted(str(kind))}: {_go_value(bound)}"
    value: Any = err.instance
    if kind in ("minItems", "minProperties") and isinstance(value, (list, dict)):
        value = len(value)
    return [SchemaError(path, f"Invalid value: {_go_value(value)}: {detail}")]


# kube-openapi's messages (k8s.io/kube-openapi/pkg/validation/errors), `in` being "body"
_MESSAGES = {
    "pattern": "{name} in body should match '{bound}'",
    "minLength": "{name} in body should be at least {bound} chars long",
    "minimum": "{name} in body should be greater than or equal to {bound}",
    "maximum": "{name} in body should be less than or equal to {bound}",
    "exclusiveMinimum": "{name} in body should be greater than {bound}",
    "exclusiveMaximum": "{name} in body should be less than {bound}",
    "multipleOf": "{name} in body should be a multiple of {bound}",
    "minItems": "{name} in body should have at least {bound} items",
    "uniqueItems": "{name} in body shouldn't contain duplicates",
    "minProperties": "{name} in body should have at least {bound} properties",
    "format": "{name} in body must be of type {bound}",
    "oneOf": "{name} must validate one and only one schema (oneOf)",
    "anyOf": "{name} must validate at least one schema (anyOf)",
    "allOf": "{name} must validate all the schemas (allOf)",
    "not": "{name} must not validate the schema (not)",
}


def _types(spec: Any) -> list[str]:
    names = [spec] if isinstance(spec, str) else [t for t in spec or () if isinstance(t, str)]
    return [t for t in dict.fromkeys(names) if t != "null"] or names


def _json_type(value: Any) -> str:
    """The JSON type of a value, as kube-openapi names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _type_invalid(name: str, types: list[str], value: Any) -> str:
    """`Invalid value: "object": spec.containers in body must be of type array: "object"`."""
    got = _quoted(_json_type(value))
    return f"Invalid value: {got}: {name} in body must be of type {','.join(types)}: {got}"


def _go_number(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _go_value(value: Any) -> str:
    """A bad value as field.Error prints it: strings quoted, numbers and booleans bare, null,
    anything else as (clipped) JSON."""
    if isinstance(value, str):
        return _quoted(clip(value, 100))
    if value is None:
        return "null"
    if isinstance(value, (bool, int, float)):
        return _go_number(value)
    try:
        return clip(json.dumps(value, ensure_ascii=False, sort_keys=True, default=str), 100)
    except (TypeError, ValueError):   # pragma: no cover - YAML values are JSON values
        return clip(str(value), 100)


class SchemaStore:
    """The validators of one Kubernetes version, compiled on first use.

    `validate` is kubectl's `--validate` (`VALIDATE_MODES`; True is strict, False ignore, as
    kubectl reads a boolean): unless it is `ignore`, the strict schemas are used and unknown
    fields are errors of their own (`SchemaError.unknown_field`), which the caller reports as
    errors (strict) or warnings (warn). `validator(api_version, kind)` returns None for a kind
    without a schema; `is_builtin_group` tells a removed or misspelt version of a built-in API
    from a custom resource.
    """

    def __init__(self, version: str = DEFAULT_K8S_VERSION, validate: str | bool = "ignore",
                 schema_dirs: tuple[str, ...] = (), *, strict: bool | None = None) -> None:
        self.version = normalize_version(version)
        if strict is not None:          # the keyword of old: strict=True is --validate=strict
            validate = strict
        if isinstance(validate, bool):
            validate = "strict" if validate else "ignore"
        self.validate = parse_validate(validate)
        self.strict = self.validate != "ignore"     # the strict schemas: unknown fields are found
        document = _definitions(self.version, self.strict)
        self._document = document
        self._defs: dict[str, Any] = document.get("$defs") or {}
        self._builtin = builtin_kinds(self._defs)
        self._builtin_groups = {group_of(a) for a, _ in self._builtin}
        self._builtin_kinds: dict[str, list[str]] = {}
        for api_version, kind in self._builtin:
            self._builtin_kinds.setdefault(kind, []).append(api_version)
        self._fast = FastCompiler(self._defs)
        self._custom = CustomSchemas(self.strict)
        for d in schema_dirs:
            self._custom.load_dir(d)
        self._validators: dict[tuple[str, str], KindValidator | None] = {}

    @property
    def origin(self) -> str:
        return f"Kubernetes {self.version}{' (strict)' if self.strict else ''}"

    def is_builtin_group(self, api_version: str) -> bool:
        return group_of(api_version) in self._builtin_groups

    def served_versions(self, kind: str) -> list[str]:
        """The API versions of a built-in kind in this Kubernetes version."""
        return sorted(self._builtin_kinds.get(kind, []))

    def validator(self, api_version: str, kind: str) -> KindValidator | None:
        key = gvk_key(api_version, kind)
        if key not in self._validators:
            self._validators[key] = self._compile(api_version, kind)
        return self._validators[key]

    def _compile(self, api_version: str, kind: str) -> KindValidator | None:
        custom = self._custom.get(api_version, kind)
        if custom is not None:
            return custom
        name = self._builtin.get(gvk_key(api_version, kind))
        if name is None:
            return None
        import jsonschema

        schema = {**self._document, "$ref": _DEFS_PREFIX + name}
        validator = jsonschema.Draft202012Validator(schema)
        try:
            fast: Check | None = self._fast.ref(_DEFS_PREFIX + name)
        except Unsupported:
            fast = None
        decode = functools.partial(builtin_index(self.version).decode_error_of, name)
        return KindValidator(api_version, kind, self.origin, validator, fast, decode)


# -- custom resources (--schemas DIR) ----------------------------------------------------------
SCHEMA_SUFFIXES = (".json", ".yaml", ".yml")


def openapi_to_jsonschema(schema: Any, strict: bool, *, top: bool = False) -> Any:
    """A CRD's OpenAPI v3 structural schema as a JSON schema: `nullable` adds null to the type,
    `x-kubernetes-int-or-string` becomes integer-or-string, and in strict mode objects with
    `properties` refuse unknown fields unless `x-kubernetes-preserve-unknown-fields` is set.
    At the top, apiVersion, kind and metadata are always allowed."""
    if isinstance(schema, list):
        return [openapi_to_jsonschema(s, strict) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("properties", "patternProperties", "definitions"):
            out[key] = {k: openapi_to_jsonschema(v, strict) for k, v in (value or {}).items()}
        elif key in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
            out[key] = openapi_to_jsonschema(value, strict)
        elif key == "nullable":
            continue
        else:
            out[key] = value
    if schema.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if schema.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"] if isinstance(out["type"], str) else [*out["type"], "null"]
    embedded = top or schema.get("x-kubernetes-embedded-resource")
    if embedded:
        props = dict(out.get("properties") or {})
        props.setdefault("apiVersion", {"type": "string"})
        props.setdefault("kind", {"type": "string"})
        props.setdefault("metadata", {"type": "object"})
        out["properties"] = props
    if strict and "properties" in out and "additionalProperties" not in out \
            and not schema.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    return out


class CustomSchemas:
    """Schemas from `--schemas` directories, keyed by (apiVersion, kind)."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self._schemas: dict[tuple[str, str], tuple[Any, str, Any]] = {}   # key -> (schema, origin, validator class)
        self._by_lower: dict[tuple[str, str], tuple[Any, str, Any]] = {}
        self._validators: dict[tuple[str, str], KindValidator] = {}

    def load_dir(self, directory: str) -> None:
        root = Path(directory)
        if not root.is_dir():
            raise InputError("--schemas: not a directory", source=Source(directory))
        for dirpath, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SCHEMA_SUFFIXES):
                    self._load_file(Path(dirpath) / name, root)

    def _load_file(self, path: Path, root: Path) -> None:
        try:
            text = path.read_text(encoding="utf-8-sig")
            docs = [json.loads(text)] if path.suffix == ".json" else list(yaml.load_all(text, Loader=SafeLoader))
        except (OSError, ValueError, yaml.YAMLError) as err:
            raise InputError(f"--schemas: cannot read schema: {err}", source=Source(str(path))) from None
        for doc in docs:
            if not isinstance(doc, dict):
                continue
            if doc.get("kind") == "CustomResourceDefinition":
                self._add_crd(doc, str(path))
            elif doc.get("x-kubernetes-group-version-kind"):
                gvks = doc["x-kubernetes-group-version-kind"]
                for gvk in gvks if isinstance(gvks, list) else [gvks]:
                    key = (_api_version(gvk.get("group", ""), gvk.get("version", "")), gvk.get("kind", ""))
                    self._schemas[key] = (doc, str(path), None)
            else:
                self._add_catalog(doc, path, root)

    def _add_crd(self, crd: dict[str, Any], origin: str) -> None:
        spec = crd.get("spec") or {}
        group = spec.get("group") or ""
        kind = (spec.get("names") or {}).get("kind") or ""
        shared = (spec.get("validation") or {}).get("openAPIV3Schema")   # apiextensions v1beta1
        for version in spec.get("versions") or ():
            schema = ((version.get("schema") or {}).get("openAPIV3Schema")) or shared
            if not isinstance(schema, dict) or not version.get("name"):
                continue
            converted = openapi_to_jsonschema(schema, self.strict, top=True)
            self._schemas[(f"{group}/{version['name']}", kind)] = (converted, origin, "draft4")

    def _add_catalog(self, schema: dict[str, Any], path: Path, root: Path) -> None:
        """`<group>/<kind>_<version>.json`: the kind in lower case."""
        rel = path.relative_to(root).parts
        stem = path.stem
        if len(rel) < 2 or "_" not in stem:
            return
        kind, _, version = stem.rpartition("_")
        self._by_lower[(f"{rel[-2]}/{version}", kind.lower())] = (schema, str(path), None)

    def get(self, api_version: str, kind: str) -> KindValidator | None:
        key = (api_version, kind)
        if key in self._validators:
            return self._validators[key]
        entry = self._schemas.get(key) or self._by_lower.get((api_version, kind.lower()))
        if entry is None:
            return None
        import jsonschema

        schema, origin, cls = entry
        if cls == "draft4":
            cls = jsonschema.Draft4Validator
        cls = cls or jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        try:
            cls.check_schema(schema)
        except jsonschema.SchemaError as err:
            raise InputError(f"--schemas: invalid JSON schema for {kind}: {err.message}",
                             source=Source(origin)) from None
        try:
            draft4 = cls in (jsonschema.Draft3Validator, jsonschema.Draft4Validator)
            fast: Check | None = FastCompiler({}, float_integers=not draft4).compile(schema)
        except Unsupported:
            fast = None
        validator = KindValidator(api_version, kind, origin, cls(schema), fast)
        self._validators[key] = validator
        return validator


def iter_kinds(store: SchemaStore) -> Iterator[tuple[str, str]]:
    """Every built-in (apiVersion, kind) of the store's version (for tests and docs)."""
    yield from sorted(store._builtin)


# -- the built-in kinds, for `kexplain POD` -----------------------------------------------------
FieldCheck = Callable[[Any], bool]


class ApiIndex:
    """What the API server of one Kubernetes version knows of its built-in kinds, from the
    strict definitions lint validates against, without jsonschema: the API versions each kind
    is served at, how an object decodes (`decode_error`: the error the API server's decoding
    answers a create request with, the same for lint and `kexplain POD`), and the fields each
    kind defines (`unknown_fields`: the fields strict decoding refuses, with the same paths lint
    reports).

    One compiled yes/no walk per kind answers both questions for the nearly all objects that
    decode and have no unknown field (`decode_problems`); only an object it says no to is
    walked again, in the API server's order, to name the problem."""

    def __init__(self, version: str = DEFAULT_K8S_VERSION) -> None:
        self.version = normalize_version(version)
        self._defs: dict[str, Any] = _definitions(self.version, True).get("$defs") or {}
        self._kinds = builtin_kinds(self._defs)
        self._groups = {group_of(a) for a, _ in self._kinds}
        self._served: dict[str, list[str]] = {}
        for api_version, kind in self._kinds:
            self._served.setdefault(kind, []).append(api_version)
        self._checks: dict[tuple[str, bool], FieldCheck | None] = {}

    def served_versions(self, kind: str) -> list[str]:
        return sorted(self._served.get(kind, ()))

    def api_version_problem(self, api_version: Any, kind: str) -> str | None:
        """Why the API server would not take a `kind` object at `api_version` (no apiVersion, or
        a built-in group at a version it does not serve); None when it would, and for a group of
        its own (a custom resource: not known here)."""
        if not isinstance(api_version, str) or not api_version:
            return NO_API_VERSION
        if (api_version, kind) in self._kinds:
            return None
        served = self.served_versions(kind)
        if served and group_of(api_version) in self._groups:
            return not_served(api_version, kind, served, self.version)
        return None

    def knows(self, api_version: str, kind: str) -> bool:
        return (api_version, kind) in self._kinds

    def definition(self, api_version: Any, kind: Any) -> str | None:
        """The name of the definition of a built-in kind; at an API version it is not served at
        (or without one), of the kind at the first it is served at; None for other kinds."""
        name = self._kinds.get((api_version, kind))
        if name is None and kind in self._served:
            name = self._kinds[(self.served_versions(kind)[0], kind)]
        return name

    def decode_problems(self, api_version: str, kind: str, obj: Any,
                        unknown: bool = True) -> tuple["DecodeError | None", list[str]]:
        """What decoding `obj` (a create request) as the API server does finds: its decoding
        error (which refuses the object, whatever field validation asks), or else, when
        `unknown`, the dotted paths of its fields the schema does not define, in the API
        server's order. (None, []) for a kind without a definition."""
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
            if shape == "slice":
                if each is None:
                    return lambda v: v is None or type(v) is list
                return lambda v: v is None or (type(v) is list and all(map(each, v)))
            if each is None:
                return lambda v: v is None or type(v) is dict
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
            name = ref[len(_DEFS_PREFIX):]
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
            schema = self._defs.get(schema["$ref"][len(_DEFS_PREFIX):]) or {}
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
# kube-apiserver does not validate a built-in object against its OpenAPI schema: it decodes the
# JSON kubectl sends (keys sorted: kubectl encodes maps) into the kind's Go struct with
# sigs.k8s.io/json (Go's encoding/json, case-sensitive). A value of the wrong JSON type is a
# *json.UnmarshalTypeError, kept while decoding goes on (the first one is reported): `json: cannot
# unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`, naming the
# Go struct holding the field, the field's path from the object (JSON names, no list indices, no
# map keys) and its Go type. resource.Quantity, intstr.IntOrString and metav1.Time decode
# themselves: their errors end decoding at once and are reported instead (`quantities must match
# the regular expression ...`, `parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x"
# as "2006"`). A decoding error refuses the object before field validation: the API server says
# `Deployment in version "v1" cannot be handled as a Deployment: <error>`; kexplain says the error,
# after the file, the object and the field.
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


_QUANTITY_PROBLEMS: dict[str, str | None] = {}


def _quantity_problem(v: Any) -> str | None:
    """resource.ParseQuantity's error for the JSON text of `v` (a string without its quotes),
    None when it parses. kexplain's own limit (digits) is not the API server's: None."""
    t = type(v)
    if t is int or t is float:
        return None
    if t is str and v in _QUANTITY_PROBLEMS:
        return _QUANTITY_PROBLEMS[v]
    from kexplain.apimachinery import quantity_format as quantity

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
    """The Go type (as reflect prints it, pointers left out) the OpenAPI schema implies:
    `int32`, `[]v1.Container`, `map[string]string`, `resource.Quantity`. Fields declared with
    another (a named string type, ...) are in `kexplain.apimachinery.gotypes.FIELD_TYPES`."""
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
    from kexplain.apimachinery.gotypes import NAMED_CONTAINERS

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
    from decimal import Decimal

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
            self.walk({"$ref": _DEFS_PREFIX + name}, go_type_of({"$ref": _DEFS_PREFIX + name}), obj, (), (), None)
        except _Hard as hard:
            return hard.error
        return self.saved

    def walk(self, schema: Any, go_type: str, value: Any, path: tuple[str | int, ...], fields: tuple[str, ...],
             struct: str | None) -> None:
        if value is None:       # null: a nil pointer, slice or map, or the zero value
            return
        shape, detail = self.index._shape(schema)

        def mismatch(word: str, hard: bool = False, of: str = go_type, at: tuple[str | int, ...] = path) -> None:
            context = f"Go struct field {struct or ''}.{'.'.join(fields)}" if struct or fields else "Go value"
            error = DecodeError(at, f"json: cannot unmarshal {word} into {context} of type {of}")
            if hard:
                raise _Hard(error)
            if self.saved is None:
                self.saved = error

        if shape == "any":
            return
        if shape == "struct":
            if type(value) is not dict:
                mismatch(_json_word(value))
                return
            from kexplain.apimachinery.gotypes import FIELD_TYPES

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
                mismatch(_json_word(value))
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
                mismatch(_json_word(value))
        elif shape == "bool":
            if value is not True and value is not False:
                mismatch(_json_word(value))
        elif shape in ("int32", "int64"):
            if type(value) is int or type(value) is float:
                if not _in_range(value, _INT32 if shape == "int32" else _INT64):
                    mismatch("number " + json_number(value))
            else:
                mismatch(_json_word(value))
        elif shape == "float":
            if type(value) is not int and type(value) is not float:
                mismatch(_json_word(value))
        elif shape == "bytes":
            if type(value) is str:
                problem = _base64_problem(value)
                if problem is not None and self.saved is None:
                    self.saved = DecodeError(path, problem)
            elif type(value) is list:        # an array of numbers is a []byte too
                for i, item in enumerate(value):
                    if item is not None and not _in_range(item, _UINT8):
                        mismatch("number " + json_number(item) if type(item) in (int, float) else _json_word(item),
                                 of="uint8", at=path + (i,))
            else:
                mismatch(_json_word(value))
        elif shape == "quantity":
            problem = _quantity_problem(value)
            if problem is not None:
                raise _Hard(DecodeError(path, problem))
        elif shape == "intstr":
            # IntOrString.UnmarshalJSON: a string, else json.Unmarshal into its int32; that
            # error gets the field's context as it leaves the decoder
            if not _int_or_string(value):
                word = "number " + json_number(value) if type(value) in (int, float) else _json_word(value)
                mismatch(word, hard=True, of="int32")
        elif shape == "time":
            # metav1.Time.UnmarshalJSON: json.Unmarshal into a string, then time.Parse
            if not _is_text(value):
                mismatch(_json_word(value), hard=True, of="string")
            problem = go_time_parse_error(detail, _timestamp_text(value))
            if problem is not None:
                raise _Hard(DecodeError(path, problem))


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


@functools.lru_cache(maxsize=4096)
def go_time_parse_error(layout: str, value: str) -> str | None:
    """time.Parse(layout, value)'s error (`parsing time "x" as "2006-01-02T15:04:05Z07:00":
    cannot parse "x" as "2006"`), None when it parses: for the layouts of metav1.Time and
    MicroTime. The value is cut in the message when long (clip)."""
    raw = value.encode("utf-8", "surrogatepass")
    shown = _go_quote(clip(value, 200).encode("utf-8", "surrogatepass"))

    def error(layout_elem: str, value_elem: bytes, message: str = "") -> str:
        if message:
            return f"parsing time {shown}{message}"
        rest = clip(value_elem.decode("utf-8", "replace"), 200).encode("utf-8", "surrogatepass")
        return f"parsing time {shown} as {json.dumps(layout)}: cannot parse {_go_quote(rest)} as {json.dumps(layout_elem)}"

    def digit(b: bytes, i: int) -> bool:
        return len(b) > i and 48 <= b[i] <= 57

    def getnum(b: bytes, fixed: bool) -> tuple[int, bytes] | None:
        if not digit(b, 0):
            return None
        if not digit(b, 1):
            return None if fixed else (b[0] - 48, b[1:])
        return (b[0] - 48) * 10 + b[1] - 48, b[2:]

    def atoi(b: bytes) -> int | None:
        neg = b[:1] == b"-"
        if b[:1] in (b"-", b"+"):
            b = b[1:]
        if b and not all(48 <= c <= 57 for c in b):
            return None
        return -int(b or b"0") if neg else int(b or b"0")

    year = month = day = -1
    rest = raw
    chunks = _TIME_CHUNKS[layout]
    for index, (prefix, std) in enumerate(chunks):
        p = prefix.encode()
        if not rest.startswith(p):
            common = 0
            while common < len(p) and common < len(rest) and rest[common] == p[common]:
                common += 1
            return error(prefix, rest[common:])
        rest = rest[len(p):]
        hold = rest
        bad = False
        out_of_range = ""
        if std == "2006":
            if len(rest) < 4 or not digit(rest, 0):
                bad = True
            else:
                year_value = atoi(rest[:4])
                rest = rest[4:]
                bad = year_value is None
                year = year_value or 0
        elif std in ("01", "02", "15", "04", "05"):
            got = getnum(rest, std != "15")
            if got is None:
                bad = True
            else:
                number, rest = got
                if std == "01":
                    month = number
                    out_of_range = "month" if not 1 <= number <= 12 else ""
                elif std == "02":
                    day = number
                elif std == "15" and number >= 24:
                    out_of_range = "hour"
                elif std == "04" and number >= 60:
                    out_of_range = "minute"
                elif std == "05":
                    if number >= 60:
                        out_of_range = "second"
                    elif (len(rest) >= 2 and rest[:1] in (b".", b",") and digit(rest, 1)
                          and chunks[index + 1][1] != ".000000"):
                        n = 2
                        while n < len(rest) and digit(rest, n):
                            n += 1
                        rest = rest[n:]
        elif std == ".000000":
            if len(rest) < 7 or rest[:1] not in (b".", b","):
                bad = True
            else:
                nanos = atoi(rest[1:7])
                bad = nanos is None
                out_of_range = "fractional second" if nanos is not None and nanos < 0 else ""
                rest = rest[7:]
        else:       # Z07:00
            if rest[:1] == b"Z":
                rest = rest[1:]
            elif len(rest) < 6 or rest[3:4] != b":":
                bad = True
            else:
                sign, hour, minute, rest = rest[:1], rest[1:3], rest[4:6], rest[6:]
                hh, mm = getnum(hour, True), getnum(minute, True)
                bad = hh is None or mm is None
                if hh is not None and hh[0] > 24:
                    out_of_range = "time zone offset hour"
                if mm is not None and mm[0] > 60:
                    out_of_range = "time zone offset minute"
                bad = bad or sign not in (b"+", b"-")
        if out_of_range:
            return error(std, rest, f": {out_of_range} out of range")
        if bad:
            return error(std, hold)
    if rest:
        return error("", rest, ": extra text: " + _go_quote(rest))
    if month == 2:
        days = 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    else:
        days = 30 if month in (4, 6, 9, 11) else 31
    if day < 1 or day > days:
        return error("", rest, ": day out of range")
    return None

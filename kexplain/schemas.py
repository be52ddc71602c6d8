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

Field validation follows kubectl's `--validate` (`VALIDATE_MODES`): `strict` (kubectl's
default: the API server refuses unknown fields), `warn` (it accepts the object, drops them and
warns) or `ignore`. `kexplain POD` asks the same of the objects it reads through
`builtin_index()`: the same definitions, read without jsonschema (a few milliseconds), with
the API versions each built-in kind is served at and a walk that lists unknown fields.
"""
from __future__ import annotations

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

from .errors import InputError, KexplainError, Source, clip
from .load.yaml_io import SafeLoader

if TYPE_CHECKING:  # pragma: no cover - imported where validators are built (68 ms: not for `kexplain POD`)
    import jsonschema

from .versions import DEFAULT_K8S_VERSION  # noqa: E402  (re-exported)
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

    def errors(self, obj: Any, limit: int = MAX_ERRORS_PER_OBJECT) -> list[SchemaError]:
        if self.fast is not None and self.fast(obj):
            return []
        out: list[SchemaError] = []
        found = sorted(self.validator.iter_errors(obj), key=lambda e: [str(p) for p in e.absolute_path])
        for err in found:
            out.extend(_describe(err))
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
        return [SchemaError(path, _type_invalid(name, _types(err.validator_value), err.instance))]
    if kind in ("oneOf", "anyOf") and err.context:
        types = []      # oneOf over types (IntOrString, Quantity): say which types were expected
        for sub in err.validator_value:
            t = sub.get("type") if isinstance(sub, dict) else None
            types.extend([t] if isinstance(t, str) else (t or []))
        if types and all(isinstance(sub, dict) and set(sub) <= {"type", "format", "description"}
                         for sub in err.validator_value):
            return [SchemaError(path, _type_invalid(name, _types(types), err.instance))]
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
        return KindValidator(api_version, kind, self.origin, validator, fast)


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
    is served at, and the fields each kind defines (`unknown_fields`: the fields strict
    decoding refuses, in document order, with the same paths lint reports)."""

    def __init__(self, version: str = DEFAULT_K8S_VERSION) -> None:
        self.version = normalize_version(version)
        self._defs: dict[str, Any] = _definitions(self.version, True).get("$defs") or {}
        self._kinds = builtin_kinds(self._defs)
        self._groups = {group_of(a) for a, _ in self._kinds}
        self._served: dict[str, list[str]] = {}
        for api_version, kind in self._kinds:
            self._served.setdefault(kind, []).append(api_version)
        self._checks: dict[str, FieldCheck | None] = {}

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

    def unknown_fields(self, api_version: str, kind: str, obj: Any) -> list[str]:
        """The dotted paths of the fields of `obj` its schema does not define ([] for a kind
        without one). A compiled yes/no walk first: objects without unknown fields (nearly all)
        cost one pass over their keys."""
        name = self._kinds.get((api_version, kind))
        if name is None:
            return []
        check = self._ref(name)
        if check is None or check(obj):
            return []
        out: list[str] = []
        self._collect(self._defs[name], obj, (), out)
        return out

    # the yes/no walk: None where nothing below can be unknown (scalars, free-form objects)
    def _ref(self, name: str) -> FieldCheck | None:
        if name in self._checks:
            return self._checks[name]
        cell: list[FieldCheck | None] = [None]

        def recursive(v: Any) -> bool:
            return cell[0] is None or cell[0](v)
        self._checks[name] = recursive          # a definition that contains itself sees this
        check = self._compile(self._defs.get(name) or {})
        cell[0] = check
        self._checks[name] = check
        return check

    def _compile(self, schema: Any) -> FieldCheck | None:
        if not isinstance(schema, dict):
            return None
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(_DEFS_PREFIX):
            return self._ref(ref[len(_DEFS_PREFIX):])
        items = schema.get("items")
        if isinstance(items, dict):
            each = self._compile(items)
            if each is None:
                return None
            return lambda v: type(v) is not list or all(each(x) for x in v)
        props = schema.get("properties")
        extra = schema.get("additionalProperties", True)
        if props is None and not isinstance(extra, dict) and extra is not False:
            return None
        names = frozenset(props or ())
        below = {k: c for k, c in ((k, self._compile(s)) for k, s in (props or {}).items()) if c is not None}
        closed = extra is False
        other = self._compile(extra) if isinstance(extra, dict) else None
        if not closed and not below and other is None:
            return None

        def check(v: Any) -> bool:
            if type(v) is not dict:
                return True         # a type error: decoding says so, not this
            for key, value in v.items():
                c = below.get(key)
                if c is not None:
                    if not c(value):
                        return False
                elif key not in names:
                    if closed or (other is not None and not other(value)):
                        return False
            return True
        return check

    # the walk that names them, for the objects that have some
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
            for key, item in value.items():
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

"""Lint's schema validation: validators compiled once per kind and version, `--schemas DIR` for
custom resources. jsonschema decides, worded as kube-openapi's errors; a fast yes/no check
compiled from the same schema skips it for the valid objects. A built-in kind's decoding error
(`ApiIndex.decode_error`) is its one error. Details: docs/internals/lint.md."""
from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import jsonschema

from kexplain.admission.openapi import (DEFAULT_K8S_VERSION, DEFS_PREFIX, DecodeError, api_version_of, builtin_index, builtin_kinds,
                                        definitions, dotted_path, gvk_key, normalize_version, parse_validate,
                                        quote, unknown_field_warning)
from kexplain.errors import InputError, Source, clip
from kexplain.apimachinery.unstructured import json_type
from kexplain.load.manifests import read_text
from kexplain.load.yaml_io import parse_documents
from kexplain.lint.tables import table

MAX_ERRORS_PER_OBJECT = 20

Check = Callable[[Any], bool]


# -- the fast check --------------------------------------------------------------------------
class Unsupported(Exception):
    """The schema uses a keyword the fast check does not implement: jsonschema alone decides."""


_IGNORED = frozenset({"description", "format", "$schema", "$id", "title", "default", "example", "examples",
                      "$comment", "deprecated", "readOnly", "writeOnly"})
_KEYWORDS = frozenset({"type", "enum", "properties", "required", "additionalProperties", "items", "oneOf",
                       "$ref"}) | _IGNORED


_SIMPLE_TYPES = {"string": str, "object": dict, "array": list, "boolean": bool}


def _is_type(value: Any, name: str, float_integers: bool = True) -> bool:
    """jsonschema's type semantics: booleans are not numbers; 1.0 is an integer from draft 6 on."""
    if name in _SIMPLE_TYPES:
        return isinstance(value, _SIMPLE_TYPES[name])
    if name == "null":
        return value is None
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
        if not ref.startswith(DEFS_PREFIX):
            raise Unsupported(f"$ref {ref}")
        name = ref[len(DEFS_PREFIX):]
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
        if all(n in ("string", "object", "array", "null") for n in names):
            types = tuple(_SIMPLE_TYPES[n] for n in names if n != "null")
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


@dataclass
class KindValidator:
    """A compiled validator for one kind of one API version."""

    api_version: str
    kind: str
    origin: str                      # "Kubernetes 1.35" or the schema file
    validator: Any = field(repr=False)          # a jsonschema validator instance
    fast: Check | None = field(default=None, repr=False)
    # a built-in kind: the API server's decoding (`ApiIndex.decode_error`) instead of type checks
    decode: Callable[[Any], DecodeError | None] | None = field(default=None, repr=False)

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
        allowed = ", ".join(quote(v if isinstance(v, str) else json.dumps(v)) for v in err.validator_value or ())
        return [SchemaError(path, f"Unsupported value: {_go_value(err.instance)}: supported values: {allowed}")]
    if kind == "maxLength":
        unit = "byte" if err.validator_value == 1 else "bytes"
        return [SchemaError(path, f"Too long: may not be more than {err.validator_value} {unit}")]
    if kind in ("maxItems", "maxProperties") and isinstance(err.instance, (list, dict)):    # (each on its type)
        return [SchemaError(path, f"Too many: {len(err.instance)}: must have at most {err.validator_value} items")]
    bound = err.validator_value
    if kind in ("minimum", "maximum") and (err.schema or {}).get("exclusive" + kind.capitalize()) is True:
        kind = "exclusive" + kind.capitalize()          # draft 4: a boolean beside the bound
    template = _MESSAGES.get(kind)
    if template is not None:
        detail = template.replace("{name}", name).replace("{bound}", _go_number(bound))
    else:       # a keyword kube-openapi has no message of its own for: what it asks, as JSON
        detail = f"{name} in body does not satisfy {quote(str(kind))}: {_go_value(bound)}"
    value: Any = err.instance
    if kind in ("minItems", "minProperties") and isinstance(value, (list, dict)):
        value = len(value)
    return [SchemaError(path, f"Invalid value: {_go_value(value)}: {detail}")]


# kube-openapi's messages (k8s.io/kube-openapi/pkg/validation/errors), `in` being "body"
_MESSAGES = table("kubeOpenapiMessages")


def _types(spec: Any) -> list[str]:
    names = [spec] if isinstance(spec, str) else [t for t in spec or () if isinstance(t, str)]
    return [t for t in dict.fromkeys(names) if t != "null"] or names


def _type_invalid(name: str, types: list[str], value: Any) -> str:
    """`Invalid value: "object": spec.containers in body must be of type array: "object"`."""
    got = quote(json_type(value))
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
        return quote(clip(value, 100))
    if value is None:
        return "null"
    if isinstance(value, (bool, int, float)):
        return _go_number(value)
    try:
        return clip(json.dumps(value, ensure_ascii=False, sort_keys=True, default=str), 100)
    except (TypeError, ValueError):   # pragma: no cover - YAML values are JSON values
        return clip(str(value), 100)


class SchemaStore:
    """The validators of one Kubernetes version, compiled on first use. Unless `validate` (kubectl's
    --validate; a boolean as kubectl reads it) is `ignore`, the strict schemas find unknown fields."""

    def __init__(self, version: str = DEFAULT_K8S_VERSION, validate: str = "ignore",
                 schema_dirs: tuple[str, ...] = ()) -> None:
        self.version = normalize_version(version)
        self.validate = parse_validate(validate)
        self.strict = self.validate != "ignore"     # the strict schemas: unknown fields are found
        document = definitions(self.version, self.strict)
        self._document = document
        self._defs: dict[str, Any] = document.get("$defs") or {}
        self._builtin = builtin_kinds(self._defs)
        self._fast = FastCompiler(self._defs)
        self._custom = CustomSchemas(self.strict)
        for d in schema_dirs:
            self._custom.load_dir(d)
        self._validators: dict[tuple[str, str], KindValidator | None] = {}

    @property
    def origin(self) -> str:
        return f"Kubernetes {self.version}{' (strict)' if self.strict else ''}"

    def served_versions(self, kind: str) -> list[str]:
        """The API versions of a built-in kind in this Kubernetes version (what the API server's own
        index must agree with: tests/admission/test_field_validation.py)."""
        return sorted(api_version for api_version, known in self._builtin if known == kind)

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

        schema = {**self._document, "$ref": DEFS_PREFIX + name}
        validator = jsonschema.Draft202012Validator(schema)
        try:
            fast: Check | None = self._fast.ref(DEFS_PREFIX + name)
        except Unsupported:
            fast = None
        decode = functools.partial(builtin_index(self.version).decode_error_of, name)
        return KindValidator(api_version, kind, self.origin, validator, fast, decode)


# -- custom resources (--schemas DIR) ----------------------------------------------------------
SCHEMA_SUFFIXES = (".json", ".yaml", ".yml")


def openapi_to_jsonschema(schema: Any, strict: bool, *, top: bool = False) -> Any:
    """A CRD's OpenAPI v3 schema as a JSON schema (`nullable`, `x-kubernetes-int-or-string`; strict:
    unknown fields refused unless preserved); at the top apiVersion, kind, metadata allowed."""
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
            docs = [parsed.value for parsed in parse_documents(read_text(str(path)), str(path))]
        except InputError as err:
            raise InputError(f"--schemas: cannot read schema: {err.message}", source=Source(str(path))) from None
        for doc in docs:
            if not isinstance(doc, dict):
                continue
            if doc.get("kind") == "CustomResourceDefinition":
                self._add_crd(doc, str(path))
            elif doc.get("x-kubernetes-group-version-kind"):
                gvks = doc["x-kubernetes-group-version-kind"]
                for gvk in gvks if isinstance(gvks, list) else [gvks]:
                    key = (api_version_of(gvk.get("group", ""), gvk.get("version", "")), gvk.get("kind", ""))
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


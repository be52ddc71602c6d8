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
for jsonschema too; otherwise jsonschema runs and its errors are the ones reported.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterator

import jsonschema
import yaml

from .errors import InputError, KexplainError, Source

from .versions import DEFAULT_K8S_VERSION  # noqa: E402  (re-exported)
SCHEMA_PACKAGE = "kubernetes_validate"
SCHEMA_ROOT = "kubernetes-json-schema"
MAX_ERRORS_PER_OBJECT = 20
_VERSION_DIR = re.compile(r"^v(\d+)\.(\d+)\.\d+-local$")
_DEFS_PREFIX = "#/$defs/"

Check = Callable[[Any], bool]


# -- versions ------------------------------------------------------------------------------
def _schema_root() -> Any:
    try:
        return resources.files(SCHEMA_PACKAGE) / SCHEMA_ROOT
    except ModuleNotFoundError:
        raise KexplainError("the Kubernetes schemas are missing: install the kubernetes-validate package "
                            "(pip install kubernetes-validate)") from None


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
    versions = available_versions()
    if version not in versions:
        raise KexplainError(f"--k8s-version: no schemas for Kubernetes {version} "
                            f"(installed: {versions[0]} to {versions[-1]})" if versions else
                            "no Kubernetes schemas are installed")
    folder = f"v{version}.0-local" + ("-strict" if strict else "")
    text = (_schema_root() / folder / "_definitions.json").read_text(encoding="utf-8")
    return json.loads(text)


# -- API versions ----------------------------------------------------------------------------
def group_of(api_version: str) -> str:
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


def gvk_key(api_version: str, kind: str) -> tuple[str, str]:
    return (api_version, kind)


def _api_version(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


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


def _describe(err: jsonschema.ValidationError) -> list[SchemaError]:
    path = tuple(err.absolute_path)
    if err.validator == "additionalProperties" and err.validator_value is False and isinstance(err.instance, dict):
        known = set((err.schema or {}).get("properties") or {})
        extras = [k for k in err.instance if k not in known]
        return [SchemaError(path + (k,), f"unknown field {json.dumps(k)}", unknown_field=True) for k in extras]
    if err.validator == "required":
        return [SchemaError(path, err.message)]
    if err.validator == "oneOf" and err.context:
        # oneOf over types (IntOrString, Quantity): say which types were expected
        types = []
        for sub in err.validator_value:
            t = sub.get("type") if isinstance(sub, dict) else None
            types.extend([t] if isinstance(t, str) else (t or []))
        wanted = [t for t in dict.fromkeys(types) if t != "null"]
        if wanted:
            return [SchemaError(path, f"{json.dumps(err.instance)} is not of type {' or '.join(wanted)}")]
    return [SchemaError(path, err.message)]


class SchemaStore:
    """The validators of one Kubernetes version (plain or strict), compiled on first use.

    `validator(api_version, kind)` returns None for a kind without a schema; `is_builtin_group`
    tells a removed or misspelt version of a built-in API from a custom resource.
    """

    def __init__(self, version: str = DEFAULT_K8S_VERSION, strict: bool = False,
                 schema_dirs: tuple[str, ...] = ()) -> None:
        self.version = normalize_version(version)
        self.strict = strict
        document = _definitions(self.version, strict)
        self._document = document
        self._defs: dict[str, Any] = document.get("$defs") or {}
        self._builtin: dict[tuple[str, str], str] = {}
        for name, schema in self._defs.items():
            for gvk in schema.get("x-kubernetes-group-version-kind") or ():
                key = gvk_key(_api_version(gvk.get("group", ""), gvk.get("version", "")), gvk.get("kind", ""))
                self._builtin.setdefault(key, name)
        self._builtin_groups = {group_of(a) for a, _ in self._builtin}
        self._builtin_kinds: dict[str, list[str]] = {}
        for api_version, kind in self._builtin:
            self._builtin_kinds.setdefault(kind, []).append(api_version)
        self._fast = FastCompiler(self._defs)
        self._custom = CustomSchemas(strict)
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
            docs = [json.loads(text)] if path.suffix == ".json" else list(yaml.safe_load_all(text))
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
            self._schemas[(f"{group}/{version['name']}", kind)] = (
                converted, origin, jsonschema.Draft4Validator)

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

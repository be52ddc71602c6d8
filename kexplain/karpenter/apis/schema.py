"""What kube-apiserver checks of a custom resource before storing it (the structural schema as
apiextensions-apiserver reports it, then the `x-kubernetes-validations` rules as predicates)."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Callable, Mapping, Sequence

import msgspec

from kexplain.admission.openapi import unknown_field_warning, unknown_fields_error
from kexplain.apimachinery.unstructured import json_type
from kexplain.apimachinery.strconv import parse_int64
from kexplain.apimachinery.fielderrors import (INVALID, NOT_SUPPORTED, FieldError, GoString, child, index, invalid,
                                               invalid_message, required, too_long)
from kexplain.errors import AdmissionRejected, InputError, Source

TYPE_INVALID = INVALID          # field.ErrorTypeTypeInvalid prints as "Invalid value" too
TOO_MANY = "Too many"
NOT_CHECKED = ("some validation rules were not checked because the object was invalid; correct the existing "
               "errors to complete validation")
QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?"
                    r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")


class RuleError(Exception):
    """A rule that fails to evaluate (CEL's `no such key`, a failed `int()`): the API server
    reports `<error> evaluating rule: <message>`."""


# A rule: a predicate over the value (raising RuleError where CEL would fail), and its message.
Rule = tuple[Callable[[Any], bool], str]


CLEAN_MAX = 4096        # the clean walks one node remembers, at most


def _remembers(node: "Node") -> bool:
    """Whether a node remembers its clean walks: an object or array whose whole subtree is checked (no
    `any` in it, whose values, such as metadata's, are taken as written: each object's own, not worth a key)."""
    return node.type in ("object", "array") and _checked_through(node)


def _checked_through(node: "Node") -> bool:
    if node.type == "any":
        return False
    if node.type == "object":
        if node.properties is None and node.values is None:
            return False
        subs = [*(node.properties or {}).values(), *([node.values] if node.values is not None else [])]
        return all(_checked_through(sub) for sub in subs)
    if node.type == "array":
        return node.items is not None and _checked_through(node.items)
    return True


@dataclass(frozen=True)
class Node:
    """One schema node. `type`: string, integer, boolean, array, object, int-or-string
    (a quantity), any. Objects: `properties` (a closed object) or `values` (a map)."""

    type: str
    properties: Mapping[str, "Node"] | None = None
    values: "Node | None" = None
    items: "Node | None" = None
    required: tuple[str, ...] = ()
    enum: tuple[Any, ...] = ()
    pattern: str | None = None
    minimum: int | None = None
    maximum: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    max_properties: int | None = None
    rules: tuple[Rule, ...] = ()
    default: Any = None
    compiled: re.Pattern[str] | None = field(default=None, compare=False)
    # A subtree's clean walks (`_Walk.visit`), by the value's text: see `_remembers`.
    clean: dict[bytes, tuple[bytes, bool]] | None = field(default=None, compare=False, repr=False)
    plain: bool = field(default=False, compare=False, repr=False)      # a string it checks no further

    def __post_init__(self) -> None:
        if self.pattern is not None:
            object.__setattr__(self, "compiled", re.compile(self.pattern, re.ASCII))
        if _remembers(self):
            object.__setattr__(self, "clean", {})
        object.__setattr__(self, "plain", self.type == "string" and not (
            self.enum or self.pattern is not None or self.min_length is not None or self.max_length is not None
            or self.rules))


BOOLEAN = Node("boolean")
ANY = Node("any")
QUANTITY = Node("int-or-string", pattern=QUANTITY_PATTERN)
STRING = Node("string")


_NAMED = {"string": STRING, "integer": Node("integer"), "boolean": BOOLEAN, "any": ANY, "quantity": QUANTITY}


def load_schemas(package: str, name: str, named_rules: Mapping[str, tuple[Rule, ...]]) -> dict[str, Node]:
    """The CRD schemas of `package`'s `data/NAME.json` (data, as the CRDs' YAML is), each node's
    `x-kubernetes-validations` the Python predicates `named_rules` gives for its name."""
    data = json.loads(resources.files(package).joinpath(f"data/{name}.json").read_text(encoding="utf-8"))
    return {kind: _node(raw, named_rules) for kind, raw in data.items()}


def _node(raw: Any, named_rules: Mapping[str, tuple[Rule, ...]]) -> Node:
    if isinstance(raw, str):
        return _NAMED[raw]
    kw = dict(raw)
    if "properties" in kw:
        kw["properties"] = {k: _node(v, named_rules) for k, v in kw["properties"].items()}
    for key in ("values", "items"):
        if key in kw:
            kw[key] = _node(kw[key], named_rules)
    for key in ("required", "enum"):
        if key in kw:
            kw[key] = tuple(kw[key])
    if "rules" in kw:
        kw["rules"] = named_rules[kw["rules"]]
    return Node(**kw)


def _type_ok(node: Node, jtype: str) -> bool:
    if node.type == "any":
        return True
    if node.type == "int-or-string":
        return jtype in ("integer", "string")
    return node.type == jtype


def _number(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


class _Walk:
    def __init__(self) -> None:
        self.errors: list[FieldError] = []
        self.unknown: list[str] = []
        self.rules: list[tuple[str, Node, Any]] = []     # (path, node, value), in document order
        self.blocking = False       # a type, required, enum or size error: the rules are not run
        self.ruled = False          # a remembered walk had rules (which held): `rules` is not empty
        self.fatal = False          # a type or required error: the object cannot be read at all

    def error(self, err: FieldError, blocking: bool = False, fatal: bool = False) -> None:
        self.errors.append(err)
        self.blocking = self.blocking or blocking or fatal
        self.fatal = self.fatal or fatal

    def visit(self, value: Any, node: Node, path: str) -> Any:
        """The value with nulls dropped and defaults applied; errors recorded. A node that remembers
        its clean walks (`Node.clean`) walks a value written alike once: 2,000 NodeClaims repeat a few
        specs, capacities and conditions."""
        if node.clean is not None:
            text = _text(value)
            if text is not None:
                found = node.clean.get(text)
                if found is not None:
                    stored, ruled = found
                    self.ruled = self.ruled or ruled
                    return _decode(stored)
                return self._remembered(value, node, path, text)
        return self._visit(value, node, path)

    def _remembered(self, value: Any, node: Node, path: str, text: bytes) -> Any:
        """`_visit`, its value kept in `node.clean` when the walk is clean: no error, no unknown field,
        every rule of the subtree holding (the rules run again at the end, as any)."""
        errors, unknown, first, ruled = len(self.errors), len(self.unknown), len(self.rules), self.ruled
        self.ruled = False
        out = self._visit(value, node, path)
        had_rules = self.ruled or len(self.rules) > first       # (its own, or a remembered part's)
        self.ruled = ruled or had_rules
        if len(self.errors) == errors and len(self.unknown) == unknown and len(node.clean) < CLEAN_MAX \
                and _holding(self.rules[first:]):
            stored = _text(out)
            if stored is not None:
                node.clean[text] = (stored, had_rules)
        return out

    def _visit(self, value: Any, node: Node, path: str) -> Any:
        jtype = json_type(value, integral_floats=True)
        if not _type_ok(node, jtype):
            shown = node.type if node.type != "int-or-string" else "integer,string"
            self.error(FieldError(TYPE_INVALID, path, GoString(jtype), f"{path} in body must be of type {shown}: "
                                  f'"{jtype}"'), fatal=True)
            return value
        if node.rules:
            self.rules.append((path, node, None))
            slot = len(self.rules) - 1
        if jtype == "object":
            value = self._object(value, node, path)
        elif jtype == "array":
            value = self._array(value, node, path)
        else:
            self._scalar(_number(value) if jtype == "integer" else value, node, path, jtype)
        if node.rules:
            self.rules[slot] = (path, node, value)
        return value

    def _object(self, value: dict, node: Node, path: str) -> dict:
        out: dict = {}
        for key, item in value.items():
            if item is None:
                continue
            sub = None
            if node.properties is not None and node.values is None:
                sub = node.properties.get(key)
                if sub is None:
                    self.unknown.append(child(path, str(key)))
                    continue
                if sub.plain and type(item) is str:     # (what its walk would find: nothing)
                    out[key] = item
                    continue
                out[key] = self.visit(item, sub, child(path, str(key)))
            else:
                sub = node.values or ANY
                out[key] = self.visit(item, sub, index(path, key)) if sub.type != "any" else item
        for key, sub in (node.properties or {}).items():
            if key not in out and sub.default is not None:
                out[key] = self.visit(_copy(sub.default), sub, child(path, key))
        for key in node.required:
            if key not in out:
                self.error(required(child(path, key)), fatal=True)
        if node.max_properties is not None and len(out) > node.max_properties:
            self.error(_too_many(path, len(out), node.max_properties), True)
        return out

    def _array(self, value: list, node: Node, path: str) -> list:
        if node.max_items is not None and len(value) > node.max_items:
            self.error(_too_many(path, len(value), node.max_items), True)
            return value
        if node.min_items is not None and len(value) < node.min_items:
            self.error(FieldError(INVALID, path, value, f"{path} in body should have at least {node.min_items} items"))
        items = node.items or ANY
        return [self.visit(v, items, index(path, i)) if v is not None else v for i, v in enumerate(value)]

    def _scalar(self, value: Any, node: Node, path: str, jtype: str) -> None:
        if node.enum and value not in node.enum:
            shown = GoString(value) if isinstance(value, str) else value
            detail = "supported values: " + ", ".join(f'"{v}"' for v in node.enum)
            self.error(FieldError(NOT_SUPPORTED, path, shown, detail), True)
            return
        if jtype == "string":
            if node.max_length is not None and len(value) > node.max_length:
                self.error(too_long(path, node.max_length), True)
            if node.min_length is not None and len(value) < node.min_length:
                self.error(invalid(path, value, f"{path} in body should be at least {node.min_length} chars long"))
            if node.compiled is not None and not node.compiled.search(value):
                self.error(invalid(path, value, f"{path} in body should match '{node.pattern}'"))
        elif jtype == "integer":
            if node.minimum is not None and value < node.minimum:
                self.error(FieldError(INVALID, path, value,
                                      f"{path} in body should be greater than or equal to {node.minimum}"))
            if node.maximum is not None and value > node.maximum:
                self.error(FieldError(INVALID, path, value,
                                      f"{path} in body should be less than or equal to {node.maximum}"))


_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder().decode


def _text(value: Any) -> bytes | None:
    """A value's text, as a key: MessagePack tells apart what JSON would not (a str from bytes, an
    int from a float); None for a value it cannot write (an int past 64 bits)."""
    try:
        return _encode(value)
    except (TypeError, OverflowError, ValueError):
        return None


def _holding(found: list[tuple[str, Node, Any]]) -> bool:
    """Whether each of these rules holds of its value (a rule that fails or cannot run: not clean)."""
    try:
        return all(predicate(v) for _, node, v in found for predicate, _ in node.rules)
    except Exception:   # (a rule that raises: the end's run reports it, in its place)
        return False


def _too_many(path: str, count: int, limit: int) -> FieldError:
    """field.TooMany: `Too many: 21: must have at most 20 items`."""
    return FieldError(TOO_MANY, path, None, f"{count}: must have at most {limit} items")


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


_RULE_TYPE = {"object": "object", "array": "array", "string": "string", "integer": "integer", "boolean": "boolean",
              "int-or-string": "string", "any": "object"}


@dataclass
class Checked:
    """The object as stored (nulls dropped, defaults set), the errors that refuse it, its unknown fields."""

    value: dict
    errors: list[FieldError]
    unknown: list[str]
    fatal: bool = False         # a type or required error: the object cannot be read


def check(value: dict, schema: Node) -> Checked:
    """Schema validation, then the rules unless the schema found a blocking error."""
    walk = _Walk()
    out = walk.visit(value, schema, "")
    errors = list(walk.errors)
    if walk.blocking:
        if walk.rules or walk.ruled:
            errors.append(FieldError(INVALID, "<nil>", None, NOT_CHECKED))
    else:
        for path, node, v in walk.rules:
            for predicate, message in node.rules:
                try:
                    ok = predicate(v)
                except RuleError as e:
                    errors.append(FieldError(INVALID, path, GoString(_RULE_TYPE[node.type]),
                                             f"{e} evaluating rule: {message}"))
                    continue
                if not ok:
                    errors.append(FieldError(INVALID, path, GoString(_RULE_TYPE[node.type]), message))
    return Checked(out, errors, walk.unknown, walk.fatal)


def admit(value: dict, schema: Node, qualified_kind: str, source: Source | None, validate: str = "strict",
          invalid: str = "note", warnings: list[str] | None = None) -> dict:
    """The object as stored (nulls dropped, defaults set): unknown fields per `validate`; a type or
    required error refuses it; other violations refuse it with `invalid` "refuse", else warn."""
    checked = check(value, schema)
    meta = value.get("metadata") if isinstance(value.get("metadata"), dict) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else ""
    kind = qualified_kind.split(".", 1)[0]
    if checked.unknown and validate == "strict":
        raise InputError(f"{kind} in version \"v1\" cannot be handled as a {kind}: "
                         + unknown_fields_error(checked.unknown), source=source, obj=value)
    if checked.unknown and validate == "warn" and warnings is not None:
        warnings.extend(f"{source}: {kind} {name}: {p}: {unknown_field_warning(p)}" for p in checked.unknown)
    if checked.errors:
        message = invalid_message(qualified_kind, name, checked.errors)
        if checked.fatal or invalid == "refuse":
            raise AdmissionRejected(message, source=source, obj=value)
        if warnings is not None:
            warnings.append(f"{source}: {kind} {name}: the API server would refuse it ({message}); used as written")
    return checked.value


def has(value: Any, key: str) -> bool:
    """CEL's has(): the field is set."""
    return isinstance(value, dict) and key in value


def get(value: Any, key: str) -> Any:
    """CEL's field selection: a missing key fails the rule (`no such key: KEY`)."""
    if not isinstance(value, dict) or key not in value:
        raise RuleError(f"no such key: {key}")
    return value[key]


def cel_int(text: Any) -> int:
    """CEL's int(string): strconv.ParseInt's error otherwise."""
    n = parse_int64(text) if isinstance(text, str) else (text if isinstance(text, int) else None)
    if n is None:
        raise RuleError(f'strconv.ParseInt: parsing "{text}": invalid syntax')
    return n


def prefix_before_slash(key: str) -> str:
    """CEL's `key.find("^([^/]+)")`: the text before the first `/`, "" when it starts with one."""
    m = re.match(r"[^/]+", key)
    return m.group(0) if m else ""


def rules(*pairs: tuple[Callable[[Any], bool], str]) -> tuple[Rule, ...]:
    return tuple(pairs)


def all_of(items: Sequence[Any], predicate: Callable[[Any], bool]) -> bool:
    """CEL's `all` macro: false wins over an error, as CEL's logical AND does."""
    error: RuleError | None = None
    for item in items:
        try:
            if not predicate(item):
                return False
        except RuleError as e:
            error = error or e
    if error is not None:
        raise error
    return True

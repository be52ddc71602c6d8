"""field.Error and field.ErrorList as apimachinery prints them, so a rejection reads exactly like the
API server's: the bad value rendered as Go does (%q strings, typed values through encoding/json).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from kexplain.errors import clip

MAX_VALUE = 1000   # characters of a bad value shown in a message (Go prints it whole)
_PLAIN = re.compile(r'[ !#-\[\]-~]*')   # printable ASCII but '"' and '\\': quoted as it is

REQUIRED = "Required value"
INVALID = "Invalid value"
NOT_SUPPORTED = "Unsupported value"
FORBIDDEN = "Forbidden"
DUPLICATE = "Duplicate value"
NOT_FOUND = "Not found"
TOO_LONG = "Too long"

_BARE_VALUE_TYPES = {INVALID, NOT_SUPPORTED, NOT_FOUND, DUPLICATE}


@dataclass(frozen=True)
class GoString:
    """A value Go holds in a plain `string` (printed with %q, not JSON)."""

    text: str


@dataclass(frozen=True)
class Raw:
    """A value already rendered (e.g. a json.Marshal of a struct with Go field names)."""

    text: str


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
            "\t": "\\t", "\v": "\\v"}


def _quoted_char(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    code = ord(ch)
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if not ch.isprintable():    # strconv.IsPrint: zero-width, separators, C1 controls are escaped
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    return ch


def go_quote(s: str) -> str:
    """strconv.Quote (Go's %q) for the characters a manifest can hold."""
    if _PLAIN.fullmatch(s):
        return f'"{s}"'
    return '"' + "".join(map(_quoted_char, s)) + '"'


def go_json(value: Any, sort_keys: bool = False) -> str:
    """encoding/json.Marshal output (HTML-escaped, compact; `sort_keys`: a Go map's keys are
    written sorted)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=sort_keys)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_value(value: Any) -> str:
    """How ErrorBody prints a bad value."""
    if isinstance(value, GoString):
        if len(value.text) > MAX_VALUE:   # a value no API server would take whole: a shorter line
            return f"{go_quote(value.text[:MAX_VALUE])}...({len(value.text) - MAX_VALUE:,} more characters)"
        return go_quote(value.text)
    if isinstance(value, Raw):
        return clip(value.text, MAX_VALUE)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return clip(str(value), MAX_VALUE)
    return clip(go_json(value), MAX_VALUE)


@dataclass(frozen=True)
class FieldError:
    """One field.Error: `path: Type[: value][: detail]`."""

    kind: str
    path: str
    value: Any = None
    detail: str = ""

    def body(self) -> str:
        if self.kind in _BARE_VALUE_TYPES:
            text = f"{self.kind}: {render_value(self.value)}"
        else:
            text = self.kind
        if self.detail:
            text += f": {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.path}: {self.body()}"


def required(path: str, detail: str = "") -> FieldError:
    return FieldError(REQUIRED, path, None, detail)


def invalid(path: str, value: Any, detail: str) -> FieldError:
    """field.Invalid; pass a plain Python str for Go `string` values (printed with %q)."""
    if isinstance(value, str):
        value = GoString(value)
    return FieldError(INVALID, path, value, detail)


def invalid_typed(path: str, value: Any, detail: str) -> FieldError:
    """field.Invalid with a typed Go value (enum string, quantity, pointer): printed as JSON."""
    return FieldError(INVALID, path, value, detail)


def not_supported(path: str, value: Any, valid: Sequence[str], *, typed: bool = True) -> FieldError:
    """field.NotSupported; `typed` False when Go passes a plain `string`."""
    detail = "supported values: " + ", ".join(go_quote(v) for v in valid) if valid else ""
    if not typed and isinstance(value, str):
        value = GoString(value)
    return FieldError(NOT_SUPPORTED, path, value, detail)


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError(FORBIDDEN, path, None, detail)


def duplicate(path: str, value: Any, *, typed: bool = False, detail: str = "") -> FieldError:
    if not typed and isinstance(value, str):
        value = GoString(value)
    return FieldError(DUPLICATE, path, value, detail)


def not_found(path: str, value: Any, detail: str = "") -> FieldError:
    if isinstance(value, str):
        value = GoString(value)
    return FieldError(NOT_FOUND, path, value, detail)


def too_long(path: str, max_length: int) -> FieldError:
    unit = "byte" if max_length == 1 else "bytes"
    return FieldError(TOO_LONG, path, None, f"may not be more than {max_length} {unit}")


def aggregate(errs: Sequence[object]) -> str:
    """utilerrors.NewAggregate(errs).Error() (and ErrorList.ToAggregate's): one error bare,
    several as `[e1, e2]`, duplicates once."""
    seen: list[str] = []
    for err in errs:
        text = str(err)
        if text not in seen:
            seen.append(text)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


def invalid_message(kind: str, name: str, errs: list[FieldError]) -> str:
    """apierrors.NewInvalid's message: `Kind "name" is invalid: ...`."""
    return f"{kind} {go_quote(name)} is invalid: {aggregate(errs)}"


def forbidden_message(resource: str, name: str, reason: str) -> str:
    """admission.NewForbidden's message: `resource "name" is forbidden: reason`."""
    return f"{resource} {go_quote(name)} is forbidden: {reason}"


# A field.Path is kept as the text it prints (`a.b[0][key]`); an empty base is Go's nil path.
def child(base: str, *names: str) -> str:
    """field.Path.Child."""
    for name in names:
        base = f"{base}.{name}" if base else name
    return base


def index(base: str, i: int | str) -> str:
    """field.Path.Index (and .Key, which Go renders the same way, unquoted)."""
    return f"{base}[{i}]"

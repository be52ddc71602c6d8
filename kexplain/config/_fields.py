"""apimachinery-style field errors, so config messages read exactly like kube-scheduler's.

`FieldError.__str__` renders `<path>: <Type>: <value>: <detail>` the way
`field.Error.Error()` does; `aggregate` joins several like `utilerrors.Aggregate`.
Paths are plain strings built with `child`/`index` (an empty base is Go's nil path).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

_OMIT = object()


def child(base: str, *names: str) -> str:
    """`path.Child(names...)`."""
    for name in names:
        base = f"{base}.{name}" if base else name
    return base


def index(base: str, i: int | str) -> str:
    """`path.Index(i)` (and `path.Key(k)`, which Go renders the same way, unquoted)."""
    return f"{base}[{i}]"


def go_quote(s: str) -> str:
    """Close enough to Go's %q for the printable strings that appear in configs."""
    return json.dumps(s, ensure_ascii=False)


def go_json(value: object) -> str:
    """`json.Marshal` output: compact, with Go's HTML escaping."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def go_value(value: object) -> str:
    """How `field.Error` prints a bad value: %v for numbers/bools, %q for strings, JSON else."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    return go_json(value)


@dataclass(frozen=True)
class FieldError:
    path: str
    type: str
    value: object = _OMIT
    detail: str = ""

    def body(self) -> str:
        s = self.type
        if self.value is not _OMIT:
            s += ": " + go_value(self.value)
        if self.detail:
            s += ": " + self.detail
        return s

    def __str__(self) -> str:
        return f"{self.path}: {self.body()}"


def invalid(path: str, value: object, detail: str) -> FieldError:
    return FieldError(path, "Invalid value", value, detail)


def required(path: str, detail: str = "") -> FieldError:
    return FieldError(path, "Required value", _OMIT, detail)


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError(path, "Forbidden", _OMIT, detail)


def duplicate(path: str, value: object) -> FieldError:
    return FieldError(path, "Duplicate value", value)


def not_supported(path: str, value: object, supported: Iterable[str]) -> FieldError:
    detail = "supported values: " + ", ".join(go_quote(s) for s in supported)
    return FieldError(path, "Unsupported value", value, detail)


def aggregate(errors: Sequence[object]) -> str:
    """`utilerrors.Aggregate.Error()`: the single message, or `[a, b, ...]`."""
    msgs = [str(e) for e in errors]
    return msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]"


# --- apimachinery name validation (api/validate/content) -------------------------------

_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', "
            "and must start and end with an alphanumeric character")
_VALUE_FMT = "(" + _KEY_FMT + ")?"
_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, "
              "'-', '_' or '.', and must start and end with an alphanumeric character")
_DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUB_FMT = _DNS_LABEL + "(\\." + _DNS_LABEL + ")*"
_DNS_SUB_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                "'-' or '.', and must start and end with an alphanumeric character")
_KEY_RE = re.compile(_KEY_FMT)
_VALUE_RE = re.compile(_VALUE_FMT)
_DNS_SUB_RE = re.compile(_DNS_SUB_FMT)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len(n: int) -> str:
    return f"must be no more than {n} bytes"


def is_dns1123_subdomain(value: str) -> list[str]:
    errs = []
    if len(value.encode()) > 253:
        errs.append(_max_len(253))
    if not _DNS_SUB_RE.fullmatch(value):
        errs.append(_regex_error(_DNS_SUB_MSG, _DNS_SUB_FMT, "example.com"))
    return errs


def is_label_key(value: str) -> list[str]:
    """`content.IsLabelKey` (a.k.a. IsQualifiedName)."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [
            "a valid label key " + _regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errs.append("name part " + _max_len(63))
    if not _KEY_RE.fullmatch(name):
        errs.append("name part " + _regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


def is_label_value(value: str) -> list[str]:
    errs = []
    if len(value.encode()) > 63:
        errs.append(_max_len(63))
    if not _VALUE_RE.fullmatch(value):
        errs.append(_regex_error(_VALUE_MSG, _VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def validate_label_name(name: str, path: str) -> list[FieldError]:
    """`metav1validation.ValidateLabelName`: one error per problem."""
    return [invalid(path, name, m) for m in is_label_key(name)]

"""Name, label key and label value syntax, with apimachinery's exact messages.

Two families of messages exist in v1.35: util/validation (DNS names, "characters")
and api/validate/content (label keys and values, "bytes"); both are mirrored.
"""
from __future__ import annotations

import re
from functools import lru_cache
from itertools import repeat

from kexplain.apimachinery.fielderrors import FieldError, invalid

_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = _LABEL + "(\\." + _LABEL + ")*"
_LABEL_RE = re.compile("^" + _LABEL + "$")
_SUBDOMAIN_RE = re.compile("^" + _SUBDOMAIN + "$")
_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
              "and must start and end with an alphanumeric character")
_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                  "'-' or '.', and must start and end with an alphanumeric character")

_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_KEY_RE = re.compile("^" + _KEY_FMT + "$")
_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character")
_VALUE_FMT = "(" + _KEY_FMT + ")?"
_VALUE_RE = re.compile("^" + _VALUE_FMT + "$")
_STR = repeat(str)      # (`isinstance`'s second argument, for as many values as `map` asks)
_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
              "'.', and must start and end with an alphanumeric character")


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """validation.RegexError: `msg` with its examples and the regex."""
    text = msg + " (e.g. "
    for i, example in enumerate(examples):
        if i:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def _fullmatch(regex: re.Pattern[str], value: str) -> bool:
    # Go's `$` never matches before a trailing newline; Python's does.
    return regex.match(value) is not None and not value.endswith("\n")


@lru_cache(maxsize=16384)
def is_dns1123_label(value: str) -> tuple[str, ...]:
    """util/validation.IsDNS1123Label."""
    errs = []
    if len(value.encode()) > 63:
        errs.append("must be no more than 63 characters")
    if not _fullmatch(_LABEL_RE, value):
        if _fullmatch(_SUBDOMAIN_RE, value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_LABEL_MSG, _LABEL, "my-name", "123-abc"))
    return tuple(errs)


@lru_cache(maxsize=16384)
def is_dns1123_subdomain(value: str, *, unit: str = "characters") -> tuple[str, ...]:
    """IsDNS1123Subdomain (util/validation prints "characters", content prints "bytes")."""
    errs = []
    if len(value.encode()) > 253:
        errs.append(f"must be no more than 253 {unit}")
    if not _fullmatch(_SUBDOMAIN_RE, value):
        errs.append(regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN, "example.com"))
    return tuple(errs)


@lru_cache(maxsize=16384)
def is_label_key(value: str) -> tuple[str, ...]:
    """content.IsLabelKey (= IsQualifiedName)."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix, unit="bytes"))
    else:
        return ("a valid label key " + regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",)
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errs.append("name part must be no more than 63 bytes")
    if not _fullmatch(_KEY_RE, name):
        errs.append("name part " + regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc"))
    return tuple(errs)


@lru_cache(maxsize=16384)
def is_label_value(value: str) -> tuple[str, ...]:
    """content.IsLabelValue."""
    errs = []
    if len(value.encode()) > 63:
        errs.append("must be no more than 63 bytes")
    if not _fullmatch(_VALUE_RE, value):
        errs.append(regex_error(_VALUE_MSG, _VALUE_FMT, "MyValue", "my_value", "12345"))
    return tuple(errs)


def validate_label_name(key: str, path: str) -> list[FieldError]:
    """metav1 validation.ValidateLabelName."""
    return [invalid(path, key, msg) for msg in is_label_key(key)]


def validate_labels(labels: dict | None, path: str) -> list[FieldError]:
    """metav1 validation.ValidateLabels (keys, then values; null is ""), all-valid labels told in C first:
    thousands of nodes' labels took a Python loop each."""
    if type(labels) is dict and all(map(isinstance, labels, _STR)) and all(map(isinstance, labels.values(), _STR)) \
            and not any(map(is_label_key, labels)) and not any(map(is_label_value, labels.values())):
        return []
    errs: list[FieldError] = []
    for key, value in (labels or {}).items():
        value = "" if value is None else str(value)
        errs.extend(validate_label_name(str(key), path))
        errs.extend(invalid(path, value, msg) for msg in is_label_value(value))
    return errs


def validate_dns1123_label(value: str, path: str) -> list[FieldError]:
    return [invalid(path, value, msg) for msg in is_dns1123_label(value)]



def path_segment_errors(name: str) -> list[str]:
    """content.IsPathSegmentName (path.ValidatePathSegmentName, not a prefix)."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]

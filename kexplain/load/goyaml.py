"""Scalars as kubectl reads them: go-yaml v2's `resolve` (go.yaml.in/yaml/v2 resolve.go and
decode.go, under sigs.k8s.io/yaml), then what its YAML-to-JSON step sends.

Where PyYAML's YAML 1.1 reading differs (`y`, `1:30`, `0o17`, `.inf`, unknown tags, ...): the table
in docs/internals/load.md. `plain` is `resolve` of a plain scalar, remembered.
"""
from __future__ import annotations

import base64
import math
import re
from typing import Any

PREFIX = "tag:yaml.org,2002:"
STR, BOOL, INT, FLOAT, NULL, TIMESTAMP, BINARY, MERGE = (
    PREFIX + t for t in ("str", "bool", "int", "float", "null", "timestamp", "binary", "merge"))
_RESOLVABLE = frozenset({"", STR, BOOL, INT, FLOAT, NULL, TIMESTAMP})


class GoYamlError(ValueError):
    """A scalar go-yaml refuses, or a value kubectl cannot send as JSON, in their words."""


# -- go-yaml's table: the first character hints at what a plain scalar may be ------------------
_HINTS = {**dict.fromkeys("+-", "S"), **dict.fromkeys("0123456789", "D"),
          **dict.fromkeys("yYnNtTfFoO~", "M"), ".": "."}
_WORDS: dict[str, tuple[str, Any]] = {}
for _words, _tag, _value in (
        ("y Y yes Yes YES true True TRUE on On ON", BOOL, True),
        ("n N no No NO false False FALSE off Off OFF", BOOL, False),
        ("~ null Null NULL", NULL, None),
        (".nan .NaN .NAN", FLOAT, math.nan),
        (".inf .Inf .INF +.inf +.Inf +.INF", FLOAT, math.inf),
        ("-.inf -.Inf -.INF", FLOAT, -math.inf)):
    _WORDS.update(dict.fromkeys(_words.split(), (_tag, _value)))
_WORDS[""] = (NULL, None)
# The longest text that may resolve to something else than a string, by its first character
# (absent: none does): the words are short, numbers are not.
RESOLVABLE_LEN: dict[str, int] = {**{c: 5 for c in "yYnNtTfFoO"}, "~": 1, "": 0,
                                  **{c: 1 << 62 for c in "+-.0123456789"}}

_YAML_STYLE_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_DECIMAL = re.compile(r"[-+]?([0-9_]*)(?:\.([0-9_]*))?(?:[eE][-+]?[0-9][0-9_]*)?")
_INT64 = (-(1 << 63), (1 << 63) - 1)
_UINT64_MAX = (1 << 64) - 1


def _lower(c: str) -> str:
    """An ASCII letter lowered, anything else as it is (Go's `lower` of a byte, for letters)."""
    return c.lower() if "A" <= c <= "Z" else c


def _underscores_ok(s: str) -> bool:
    """Go's underscoreOK: `_` only between digits, or between a base prefix and a digit."""
    if s[:1] in ("+", "-"):
        s = s[1:]
    saw, i, hexa = "^", 0, False
    if len(s) >= 2 and s[0] == "0" and _lower(s[1]) in "box":
        i, saw, hexa = 2, "0", _lower(s[1]) == "x"
    for c in s[i:]:
        if "0" <= c <= "9" or (hexa and "a" <= _lower(c) <= "f"):
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def parse_uint(s: str, base: int) -> int | None:
    """Go's strconv.ParseUint(s, base, 64); None for its syntax and range errors. Base 0 reads
    the prefixes 0b, 0o, 0x and a leading 0 (octal), and underscores between digits."""
    if not s:
        return None
    base0 = base == 0
    digits = s
    if base0:
        base = 10
        if s[0] == "0":
            prefix = _lower(s[1]) if len(s) >= 3 else ""
            base = {"b": 2, "o": 8, "x": 16}.get(prefix, 8)
            digits = s[2:] if prefix in ("b", "o", "x") else s[1:]
    n = 0
    underscores = False
    for c in digits:
        if c == "_" and base0:
            underscores = True
            continue
        if "0" <= c <= "9":
            d = ord(c) - 48
        elif "a" <= _lower(c) <= "z":
            d = ord(_lower(c)) - 87
        else:
            return None
        if d >= base:
            return None
        n = n * base + d
        if n > _UINT64_MAX:
            return None
    if underscores and not _underscores_ok(s):
        return None
    return n


def parse_int(s: str, base: int) -> int | None:
    """Go's strconv.ParseInt(s, base, 64): a sign, then ParseUint; None for its errors."""
    negative = s[:1] == "-"
    n = parse_uint(s[1:] if s[:1] in ("+", "-") else s, base)
    if n is None:
        return None
    n = -n if negative else n
    return n if _INT64[0] <= n <= _INT64[1] else None


def parse_float(s: str) -> float | None:
    """Go's strconv.ParseFloat(s, 64) for the decimal forms go-yaml hands it; None for its syntax and
    range errors (Go refuses past a float's range, where Python reads infinity)."""
    m = _DECIMAL.fullmatch(s)
    if m is None or not any(c.isdigit() for c in (m.group(1) or "") + (m.group(2) or "")):
        return None
    if "_" in s and not _underscores_ok(s):
        return None
    value = float(s.replace("_", ""))
    return None if math.isinf(value) else value


# -- timestamps: go-yaml's four layouts of time.Parse ------------------------------------------
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(?:Z|[+-]([0-9]{2}):([0-9]{2}))"
    r"| ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?)?")
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def is_timestamp(text: str) -> bool:
    """Whether go-yaml's parseTimestamp reads `text`: `2006-1-2T15:4:5.999999999Z07:00` (T or t),
    `2006-1-2 15:4:5.999999999` or `2006-1-2`, with time.Parse's ranges."""
    m = _TIMESTAMP.fullmatch(text)
    if m is None:
        return False
    year, month, day = (int(g) for g in m.groups()[:3])
    if not 1 <= month <= 12:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not 1 <= day <= _DAYS[month - 1] + (1 if month == 2 and leap else 0):
        return False
    hour, minute, second = m.group(4, 5, 6) if m.group(4) is not None else m.group(9, 10, 11)
    if hour is not None and not (int(hour) < 24 and int(minute) < 60 and int(second) < 60):
        return False
    zone_hour, zone_minute = m.group(7, 8)
    return zone_hour is None or (int(zone_hour) <= 24 and int(zone_minute) <= 60)


# -- resolve -------------------------------------------------------------------------------------
def _short(tag: str) -> str:
    return "!!" + tag[len(PREFIX):] if tag.startswith(PREFIX) else tag


def _number(tag: str, text: str) -> tuple[str, Any] | None:
    """go-yaml's reading of a text that starts with a digit or a sign."""
    if tag in ("", TIMESTAMP) and text[:4].isdigit() and text[4:5] == "-" and is_timestamp(text):
        return TIMESTAMP, text            # into an interface: the text as written
    plain = text.replace("_", "")
    n = parse_int(plain, 0)
    if n is None:
        n = parse_uint(plain, 0)
    if n is not None:
        return INT, n
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        f = parse_float(plain)
        if f is not None:
            return FLOAT, f
    if plain.startswith("0b"):
        n = parse_int(plain[2:], 2)
        if n is None:
            n = parse_uint(plain[2:], 2)
    elif plain.startswith("-0b"):
        n = parse_int("-" + plain[3:], 2)
    return (INT, n) if n is not None else None


def _resolved(tag: str, text: str) -> tuple[str, Any]:
    hint = _HINTS.get(text[:1], "") if text else "M"
    if hint and tag != STR:
        word = _WORDS.get(text)
        if word is not None:
            return word
        if hint == ".":
            f = parse_float(text)
            if f is not None:
                return FLOAT, f
        elif hint in ("D", "S"):
            found = _number(tag, text)
            if found is not None:
                return found
    return STR, text


def resolve(tag: str, text: str) -> tuple[str, Any]:
    """(tag, value) of a scalar as go-yaml v2 decodes it into an interface (`tag` "" when plain); a tag
    it resolves must fit the text, else GoYamlError in its words. A timestamp's value is its text."""
    if tag not in _RESOLVABLE:
        return tag, text
    rtag, value = _resolved(tag, text)
    if tag in ("", rtag, STR):
        return rtag, value
    if tag == FLOAT and rtag == INT:
        return FLOAT, float(value)
    raise GoYamlError(f"cannot decode {_short(rtag)} `{text}` as a {_short(tag)}")


_PLAIN: dict[str, tuple[str, Any]] = {}
_PLAIN_CACHED = 100_000
_PLAIN_CACHED_LEN = 200


def plain(text: str) -> tuple[str, Any]:
    """(tag, value) of a plain scalar: `resolve("", text)`, a timestamp's tag made `!!str` (its
    value is its text). Remembered: a bounded cache of short texts."""
    found = _PLAIN.get(text)
    if found is None:
        tag, value = resolve("", text)
        found = (STR, text) if tag == TIMESTAMP else (tag, value)
        if len(text) < _PLAIN_CACHED_LEN and len(_PLAIN) < _PLAIN_CACHED:
            _PLAIN[text] = found
    return found


def plain_tag(text: str) -> str:
    """The tag of a plain scalar (`plain`'s), where a string is worth a look-up only when its
    first character may start something else (`RESOLVABLE_LEN`)."""
    if len(text) > RESOLVABLE_LEN.get(text[:1], -1):
        return STR
    return plain(text)[0]


# -- what kubectl sends --------------------------------------------------------------------------
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def binary_text(text: str) -> str:
    """A `!!binary` scalar as kubectl sends it: Go's base64.StdEncoding, then a Go string in JSON
    (invalid UTF-8 bytes made U+FFFD)."""
    compact = text.replace("\r", "").replace("\n", "")
    if not _BASE64.fullmatch(compact):
        raise GoYamlError("!!binary value contains invalid base64 data")
    data = base64.b64decode(compact)
    out: list[str] = []
    while True:
        try:
            out.append(data.decode("utf-8"))
            return "".join(out)
        except UnicodeDecodeError as err:
            out.append(data[:err.start].decode("utf-8") + "\ufffd" * (err.end - err.start))
            data = data[err.end:]


def json_float(value: float, text: str) -> float:
    """`value`, which kubectl sends as a JSON number; infinity and NaN it cannot send."""
    if math.isfinite(value):
        return value
    word = "NaN" if math.isnan(value) else "+Inf" if value > 0 else "-Inf"
    raise GoYamlError(f"`{text}` cannot be sent as JSON (kubectl: json: unsupported value: {word})")


def scalar(tag: str, text: str) -> Any:
    """The value kubectl sends for a scalar of `tag`; GoYamlError for what go-yaml or JSON refuse."""
    if tag == NULL:
        return None
    if tag == BINARY:
        return binary_text(text)
    rtag, value = plain(text)
    if rtag != tag:
        rtag, value = resolve(tag, text)
    if rtag == FLOAT:
        return json_float(value, text)
    return text if rtag == TIMESTAMP else value

"""cel-go's strings extension at version 2 (ext/strings.go), the version the Kubernetes
environment enables: code-point indexing, Go's `strings` semantics, Go's error texts.
`format` is declared by that version but not implemented here (see library/__init__.py)."""
from __future__ import annotations

from typing import Any

from kexplain.cel.errors import CelEvalError
from kexplain.cel.functions import fn, mov, ov, traversal
from kexplain.cel.values import format_value

# unicode.IsSpace / the White_Space property, as Go's strings.TrimSpace strips.
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" \
            "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def char_at(s: str, i: int) -> str:
    if i < 0 or i > len(s):
        raise CelEvalError(f"index out of range: {i}")
    return s[i] if i < len(s) else ""


def index_of(s: str, sub: str, offset: int = 0) -> int:
    if sub == "":
        return offset
    if offset < 0:
        raise CelEvalError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    return s.find(sub, offset)


def last_index_of(s: str, sub: str, offset: int | None = None) -> int:
    if offset is None:
        if sub == "":
            return len(s)
        if len(s.encode("utf-8")) < len(sub.encode("utf-8")):
            return -1
        offset = len(s) - 1
    if sub == "":
        return offset
    if offset < 0:
        raise CelEvalError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    off = min(offset, len(s) - len(sub))
    if off < 0:
        return -1
    return s.rfind(sub, 0, off + len(sub))


def lower_ascii(s: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s) if s else s


def upper_ascii(s: str) -> str:
    return "".join(chr(ord(c) - 32) if "a" <= c <= "z" else c for c in s) if s else s


def replace(s: str, old: str, new: str, n: int = -1) -> str:
    return s.replace(old, new, n if n >= 0 else -1)


def split(s: str, sep: str, n: int = -1) -> tuple[str, ...]:
    """Go's strings.SplitN: n == 0 gives no strings, n < 0 all of them."""
    if n == 0:
        return ()
    if sep == "":
        chars = list(s)
        if 0 < n < len(chars):
            return tuple(chars[:n - 1]) + ("".join(chars[n - 1:]),)
        return tuple(chars)
    if n < 0:
        return tuple(s.split(sep))
    return tuple(s.split(sep, n - 1))


def substring(s: str, start: int, end: int | None = None) -> str:
    if end is None:
        if start < 0 or start > len(s):
            raise CelEvalError(f"index out of range: {start}")
        return s[start:]
    if start > end:
        raise CelEvalError(f"invalid substring range. start: {start}, end: {end}")
    if start < 0 or start > len(s):
        raise CelEvalError(f"index out of range: {start}")
    if end < 0 or end > len(s):
        raise CelEvalError(f"index out of range: {end}")
    return s[start:end]


def trim(s: str) -> str:
    return s.strip(_GO_SPACE)


def join(items: Any, sep: str = "") -> str:
    for x in items:
        if type(x) is not str:
            raise CelEvalError(f"join: invalid input: {format_value(x)}")
    return sep.join(items)


_QUOTE = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
          "\v": "\\v", "\\": "\\\\", '"': '\\"'}


def quote(s: str) -> str:
    """`strings.quote`: double quotes around the text, CEL's escapes escaped."""
    return '"' + "".join(_QUOTE.get(c, "\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c) for c in s) + '"'


def _trunc(args: tuple[Any, ...]) -> int:
    """The Kubernetes cost estimator's `traversalCost` on a string: truncated, not rounded up."""
    return int(len(args[0]) * 0.1)


def _first(args: tuple[Any, ...]) -> int:
    return traversal(len(args[0]))


def _double(args: tuple[Any, ...]) -> int:
    return traversal(len(args[0]), 0.2)


def _join_cost(args: tuple[Any, ...], result: Any) -> int:
    return traversal(len(result), 0.2)


FUNCTIONS = [
    fn("charAt", mov("string_char_at_int", "string, int", "string", char_at)),
    fn("indexOf",
       mov("string_index_of_string", "string, string", "int", index_of, precost=_trunc),
       mov("string_index_of_string_int", "string, string, int", "int", index_of, precost=_trunc)),
    fn("lastIndexOf",
       mov("string_last_index_of_string", "string, string", "int", last_index_of, precost=_trunc),
       mov("string_last_index_of_string_int", "string, string, int", "int", last_index_of, precost=_trunc)),
    fn("lowerAscii", mov("string_lower_ascii", "string", "string", lower_ascii, precost=_first)),
    fn("replace",
       mov("string_replace_string_string", "string, string, string", "string", replace, precost=_double),
       mov("string_replace_string_string_int", "string, string, string, int", "string", replace,
           precost=_double)),
    fn("split",
       mov("string_split_string", "string, string", "list(string)", split, precost=_double),
       mov("string_split_string_int", "string, string, int", "list(string)", split, precost=_double)),
    fn("substring",
       mov("string_substring_int", "string, int", "string", substring, precost=_first),
       mov("string_substring_int_int", "string, int, int", "string", substring, precost=_first)),
    fn("trim", mov("string_trim", "string", "string", trim, precost=_first)),
    fn("upperAscii", mov("string_upper_ascii", "string", "string", upper_ascii, precost=_first)),
    fn("strings.quote", ov("strings_quote", "string", "string", quote)),
    fn("join",
       mov("list_join", "list(string)", "string", join, cost=_join_cost),
       mov("list_join_string", "list(string), string", "string", join, cost=_join_cost)),
]

"""The Kubernetes CEL libraries DRA selectors use (apiserver/pkg/cel/library: quantity, semver v1,
regex) with the cost estimator's prices (library/cost.go), faithful to the Go code rather than its doc
comments (global `sign(q)`; `add`/`sub` results refused by `Quantity.Equal`): docs/internals/cel.md.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from kexplain.cel import quantity as Q
from kexplain.cel import semver as SV
from kexplain.cel.errors import CelEvalError
from kexplain.cel.functions import fn, mov, ov, traversal
from kexplain.cel.values import INT64_MAX, INT64_MIN
from kexplain.cel.library import re2
from kexplain.cel.library.stdlib import compile_pattern


def to_quantity(s: str) -> Q.Quantity:
    try:
        return Q.parse(s)
    except Q.QuantityParseError as err:
        raise CelEvalError(str(err)) from None


def is_quantity(s: str) -> bool:
    try:
        Q.parse(s)
    except Q.QuantityParseError:
        return False
    return True


def sign(q: Q.Quantity) -> int:
    return q.sign()


def q_compare(a: Q.Quantity, b: Q.Quantity) -> int:
    return a.cmp(b)


def as_integer(q: Q.Quantity) -> int:
    v = q.as_int64()
    if v is None:
        raise CelEvalError("cannot convert value to integer")
    return v


def is_integer(q: Q.Quantity) -> bool:
    return q.as_int64() is not None


def q_add(q: Q.Quantity, other: Any) -> Q.Quantity:
    return q.add(other if type(other) is Q.Quantity else Q.from_int(other))


def q_sub(q: Q.Quantity, other: Any) -> Q.Quantity:
    return q.add(other if type(other) is Q.Quantity else Q.from_int(other), negate=True)


def to_semver(s: str, normalize: bool = False) -> SV.Semver:
    try:
        return SV.normalize_and_parse(s) if normalize else SV.parse(s)
    except SV.SemverError as err:
        raise CelEvalError(str(err)) from None


def is_semver(s: str, normalize: bool = False) -> bool:
    try:
        to_semver(s, normalize)
    except CelEvalError:
        return False
    return True


def _int64(v: int) -> int:
    """Go's int64(uint64) conversion, as `types.Int(v.Major)` does it."""
    return (v - INT64_MIN) % (1 << 64) + INT64_MIN if v > INT64_MAX else v


def find(s: str, pattern: str) -> str:
    _compile_or_illegal(pattern)
    return _find(pattern, s)


def _compile_or_illegal(pattern: str) -> re2.Program:
    try:
        return compile_pattern(pattern)
    except CelEvalError as err:
        raise CelEvalError(f"Illegal regex: {err}") from None


@lru_cache(maxsize=4096)   # bounded; a selector re-reading one big string costs one scan
def _find(pattern: str, s: str) -> str:
    return re2.find(re2.compile_regex(pattern), s) or ""


@lru_cache(maxsize=1024)   # bounded, as _find
def _find_all(pattern: str, s: str, n: int) -> tuple[str, ...]:
    return tuple(re2.find_all(re2.compile_regex(pattern), s, n))


def find_all(s: str, pattern: str, n: int = -1) -> tuple[str, ...]:
    _compile_or_illegal(pattern)
    return _find_all(pattern, s, n)


def _first(args: tuple[Any, ...]) -> int:
    return traversal(len(args[0]))


def _regex_cost(args: tuple[Any, ...]) -> int:
    return traversal(1 + len(args[0])) * traversal(len(args[1]), 0.25)


FUNCTIONS = [
    fn("quantity", ov("string_to_quantity", "string", "Q", to_quantity, precost=_first)),
    fn("isQuantity", ov("is_quantity_string", "string", "bool", is_quantity, precost=_first)),
    fn("sign", ov("quantity_sign", "Q", "int", sign)),
    fn("isGreaterThan",
       mov("quantity_is_greater_than", "Q, Q", "bool", lambda a, b: a.cmp(b) == 1),
       mov("semver_is_greater_than", "S, S", "bool", lambda a, b: a.compare(b) == 1)),
    fn("isLessThan",
       mov("quantity_is_less_than", "Q, Q", "bool", lambda a, b: a.cmp(b) == -1),
       mov("semver_is_less_than", "S, S", "bool", lambda a, b: a.compare(b) == -1)),
    fn("compareTo",
       mov("quantity_compare_to", "Q, Q", "int", q_compare),
       mov("semver_compare_to", "S, S", "int", lambda a, b: a.compare(b))),
    fn("asApproximateFloat", mov("quantity_get_float", "Q", "double", lambda q: q.approximate_float())),
    fn("asInteger", mov("quantity_get_int", "Q", "int", as_integer)),
    fn("isInteger", mov("quantity_is_integer", "Q", "bool", is_integer)),
    fn("add", mov("quantity_add", "Q, Q", "Q", q_add), mov("quantity_add_int", "Q, int", "Q", q_add)),
    fn("sub", mov("quantity_sub", "Q, Q", "Q", q_sub), mov("quantity_sub_int", "Q, int", "Q", q_sub)),
    fn("semver", ov("string_to_semver", "string", "S", to_semver, precost=_first),
       ov("string_bool_to_semver", "string, bool", "S", to_semver, precost=_first)),
    fn("isSemver", ov("is_semver_string", "string", "bool", is_semver, precost=_first),
       ov("is_semver_string_bool", "string, bool", "bool", is_semver, precost=_first)),
    fn("major", mov("semver_major", "S", "int", lambda v: _int64(v.major))),
    fn("minor", mov("semver_minor", "S", "int", lambda v: _int64(v.minor))),
    fn("patch", mov("semver_patch", "S", "int", lambda v: _int64(v.patch))),
    fn("find", mov("string_find_string", "string, string", "string", find, precost=_regex_cost)),
    fn("findAll",
       mov("string_find_all_string", "string, string", "list(string)", find_all, precost=_regex_cost),
       mov("string_find_all_string_int", "string, string, int", "list(string)", find_all,
           precost=_regex_cost)),
]

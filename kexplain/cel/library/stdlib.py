"""The CEL standard library (cel-go common/stdlib/standard.go) minus timestamps and durations,
with cel-go's overflow checks, conversions and error texts (common/types)."""
from __future__ import annotations

import math
import re
from decimal import Decimal
from functools import lru_cache
from typing import Any

from kexplain.cel.errors import CelEvalError, CelUnsupported
from kexplain.cel.functions import fn, mov, ov, traversal
from kexplain.cel.values import (INT64_MAX, INT64_MIN, UINT64_MAX, TypeValue, UInt, compare,
                      equals, format_value, list_has, map_contains, no_such_overload, size, type_name)
from kexplain.cel.library import re2

OVERFLOW = "integer overflow"
UOVERFLOW = "unsigned integer overflow"


def _int(v: int) -> int:
    if not INT64_MIN <= v <= INT64_MAX:
        raise CelEvalError(OVERFLOW)
    return v


def _uint(v: int) -> UInt:
    if not 0 <= v <= UINT64_MAX:
        raise CelEvalError(UOVERFLOW)
    return UInt(v)


def add(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return _int(a + b)
    if ta is float and tb is float:
        return a + b
    if ta is str and tb is str:
        return a + b
    if ta is UInt and tb is UInt:
        return _uint(a + b)
    if ta is tuple and tb is tuple:
        return a + b if a and b else (a or b)
    if ta is bytes and tb is bytes:
        return a + b
    raise no_such_overload("_+_", a, b)


def sub(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return _int(a - b)
    if ta is float and tb is float:
        return a - b
    if ta is UInt and tb is UInt:
        return _uint(a - b)
    raise no_such_overload("_-_", a, b)


def mul(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return _int(a * b)
    if ta is float and tb is float:
        return a * b
    if ta is UInt and tb is UInt:
        return _uint(a * b)
    raise no_such_overload("_*_", a, b)


def div(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int or ta is UInt and tb is UInt:
        if b == 0:
            raise CelEvalError("division by zero")
        q = abs(a) // abs(b)
        q = q if (a >= 0) == (b >= 0) else -q
        return _int(q) if ta is int else UInt(q)
    if ta is float and tb is float:
        if b == 0:
            if a != a or a == 0:
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    raise no_such_overload("_/_", a, b)


def mod(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is int and tb is int or ta is UInt and tb is UInt:
        if b == 0:
            raise CelEvalError("modulus by zero")
        if ta is int and a == INT64_MIN and b == -1:
            raise CelEvalError(OVERFLOW)
        r = abs(a) % abs(b)
        r = -r if a < 0 else r
        return r if ta is int else UInt(r)
    raise no_such_overload("_%_", a, b)


def neg(a: Any) -> Any:
    t = type(a)
    if t is int:
        return _int(-a)
    if t is float:
        return -a
    raise no_such_overload("-_", a)


def logical_not(a: Any) -> bool:
    if type(a) is bool:
        return not a
    raise no_such_overload("!_", a)


def ne(a: Any, b: Any) -> bool:
    return not equals(a, b)


def lt(a: Any, b: Any) -> bool:
    return compare(a, b, "_<_") < 0


def le(a: Any, b: Any) -> bool:
    return compare(a, b, "_<=_") <= 0


def gt(a: Any, b: Any) -> bool:
    return compare(a, b, "_>_") > 0


def ge(a: Any, b: Any) -> bool:
    return compare(a, b, "_>=_") >= 0


def contains_in(elem: Any, container: Any) -> bool:
    """`elem in container`: any equal list element (errors count as unequal), or a map key."""
    t = type(container)
    if t is tuple or t is list:
        return list_has(container, elem)
    if isinstance(container, dict):
        return map_contains(container, elem)
    raise no_such_overload("@in", elem, container)


def go_format_g(f: float) -> str:
    """Go's `fmt.Sprintf("%g", f)`: the shortest digits that round-trip, in exponent form when
    the decimal exponent is below -4 or at least 6 (strconv's rule for shortest `g`)."""
    if f != f:
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    d = Decimal(repr(f))
    sign, digits, exponent = d.as_tuple()
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    exponent += len(digits) - len(ds)
    nd = len(ds)
    dp = nd + exponent            # position of the decimal point
    exp = dp - 1
    neg = "-" if sign else ""
    if exp < -4 or exp >= 6:
        mant = ds[0] + ("." + ds[1:] if nd > 1 else "")
        es = "-" if exp < 0 else "+"
        return f"{neg}{mant}e{es}{abs(exp):02d}"
    if dp <= 0:
        return f"{neg}0.{'0' * -dp}{ds}"
    if dp >= nd:
        return f"{neg}{ds}{'0' * (dp - nd)}"
    return f"{neg}{ds[:dp]}.{ds[dp:]}"


_INT_RE = re.compile(r"[+-]?[0-9]+\Z")
_UINT_RE = re.compile(r"[0-9]+\Z")
_FLOAT_RE = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)\Z",
                       re.IGNORECASE)
_BOOL = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
         "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


def _conv_err(frm: str, to: str) -> CelEvalError:
    return CelEvalError(f"type conversion error from '{frm}' to '{to}'")


def to_int(v: Any) -> int:
    t = type(v)
    if t is int:
        return v
    if t is UInt:
        if v > INT64_MAX:
            raise CelEvalError(OVERFLOW)
        return int(v)
    if t is float:
        if v != v or math.isinf(v) or v <= -9.223372036854775808e18 or v >= 9.223372036854775807e18:
            raise CelEvalError(OVERFLOW)
        return int(v)
    if t is str:
        if _INT_RE.match(v):
            n = int(v)
            if INT64_MIN <= n <= INT64_MAX:
                return n
        raise _conv_err("string", "int")
    raise no_such_overload("int", v)


def to_uint(v: Any) -> UInt:
    t = type(v)
    if t is UInt:
        return v
    if t is int:
        if v < 0:
            raise CelEvalError(UOVERFLOW)
        return UInt(v)
    if t is float:
        if v != v or math.isinf(v) or v < 0 or v >= 1.8446744073709552e19:
            raise CelEvalError(UOVERFLOW)
        return UInt(int(v))
    if t is str:
        if _UINT_RE.match(v):
            n = int(v)
            if n <= UINT64_MAX:
                return UInt(n)
        raise _conv_err("string", "uint")
    raise no_such_overload("uint", v)


def to_double(v: Any) -> float:
    t = type(v)
    if t is float:
        return v
    if t is int or t is UInt:
        return float(v)
    if t is str:
        if _FLOAT_RE.match(v):
            f = float(v)
            if not math.isinf(f) or "inf" in v.lower():
                return f
        raise _conv_err("string", "double")
    raise no_such_overload("double", v)


def to_string(v: Any) -> str:
    t = type(v)
    if t is str:
        return v
    if t is bool:
        return "true" if v else "false"
    if t is int or t is UInt:
        return str(int(v))
    if t is float:
        return go_format_g(v)
    if t is bytes:
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise CelEvalError("invalid UTF-8 in bytes, cannot convert to string") from None
    raise no_such_overload("string", v)


def to_bytes(v: Any) -> bytes:
    t = type(v)
    if t is bytes:
        return v
    if t is str:
        return v.encode("utf-8", errors="surrogatepass")
    raise no_such_overload("bytes", v)


def to_bool(v: Any) -> bool:
    t = type(v)
    if t is bool:
        return v
    if t is str:
        if v in _BOOL:
            return _BOOL[v]
        raise _conv_err("string", "bool")
    raise no_such_overload("bool", v)


def matches(s: str, pattern: str) -> bool:
    compile_pattern(pattern)   # the error, if any, with CEL's wording
    return _matches(pattern, s)


@lru_cache(maxsize=4096)   # bounded; a selector re-reading one big string costs one scan
def _matches(pattern: str, s: str) -> bool:
    return re2.has_match(re2.compile_regex(pattern), s)


def compile_pattern(pattern: str) -> re2.Program:
    try:
        return re2.compile_regex(pattern)
    except re2.RegexError as err:
        raise CelEvalError(str(err)) from None
    except re2.RegexUnsupported as err:
        raise CelUnsupported(f"kexplain does not support {err} in regular expressions") from None


def _size(v: Any) -> int:
    return len(v)


def _eq_cost(args: tuple[Any, ...]) -> int:
    return traversal(min(size(args[0]), size(args[1])))


def _cmp_cost(args: tuple[Any, ...]) -> int:
    a, b = args
    if type(a) in (str, bytes) and type(b) in (str, bytes):
        return traversal(min(len(a), len(b)))
    return 1


def _add_cost(args: tuple[Any, ...]) -> int:
    a, b = args
    if type(a) in (str, bytes) and type(b) in (str, bytes):
        return traversal(len(a) + len(b))
    return 1


def _matches_cost(args: tuple[Any, ...]) -> int:
    return traversal(1 + len(args[0])) * traversal(len(args[1]), 0.25)


def _contains_cost(args: tuple[Any, ...]) -> int:
    return traversal(len(args[0])) * traversal(len(args[1]))


def _in_cost(args: tuple[Any, ...]) -> int:
    c = args[1]
    return len(c) if type(c) in (tuple, list) else 1


def _first_cost(args: tuple[Any, ...]) -> int:
    return traversal(size(args[0]))


_COMPARABLE = [("bool", "bool"), ("int", "int"), ("int", "double"), ("int", "uint"), ("uint", "uint"),
               ("uint", "double"), ("uint", "int"), ("double", "double"), ("double", "int"),
               ("double", "uint"), ("string", "string"), ("bytes", "bytes")]
_OVERLOAD_NAMES = {"bool": "bool", "int": "int64", "uint": "uint64", "double": "double",
                   "string": "string", "bytes": "bytes"}


def _comparisons(op: str, name: str, impl: Any) -> Any:
    overloads = []
    for a, b in _COMPARABLE:
        oid = f"{name}_{_OVERLOAD_NAMES[a]}" if a == b else f"{name}_{_OVERLOAD_NAMES[a]}_{_OVERLOAD_NAMES[b]}"
        overloads.append(ov(oid, f"{a}, {b}", "bool", impl, precost=_cmp_cost))
    return fn(op, *overloads)


def _type_of(v: Any) -> TypeValue:
    return TypeValue(type_name(v))


def _index_stub(*_: Any) -> Any:   # indexing is compiled by the evaluator itself
    raise AssertionError("indexing is evaluated inline")


FUNCTIONS = [
    fn("_?_:_", ov("conditional", "bool, A, A", "A")),
    fn("_&&_", ov("logical_and", "bool, bool", "bool")),
    fn("_||_", ov("logical_or", "bool, bool", "bool")),
    fn("!_", ov("logical_not", "bool", "bool", logical_not)),
    fn("@not_strictly_false", ov("not_strictly_false", "bool", "bool")),
    fn("_==_", ov("equals", "A, A", "bool", equals, precost=_eq_cost)),
    fn("_!=_", ov("not_equals", "A, A", "bool", ne, precost=_eq_cost)),
    fn("_+_",
       ov("add_bytes", "bytes, bytes", "bytes", add, precost=_add_cost),
       ov("add_double", "double, double", "double", add),
       ov("add_int64", "int, int", "int", add),
       ov("add_list", "list(A), list(A)", "list(A)", add),
       ov("add_string", "string, string", "string", add, precost=_add_cost),
       ov("add_uint64", "uint, uint", "uint", add)),
    fn("_/_",
       ov("divide_double", "double, double", "double", div),
       ov("divide_int64", "int, int", "int", div),
       ov("divide_uint64", "uint, uint", "uint", div)),
    fn("_%_",
       ov("modulo_int64", "int, int", "int", mod),
       ov("modulo_uint64", "uint, uint", "uint", mod)),
    fn("_*_",
       ov("multiply_double", "double, double", "double", mul),
       ov("multiply_int64", "int, int", "int", mul),
       ov("multiply_uint64", "uint, uint", "uint", mul)),
    fn("-_",
       ov("negate_double", "double", "double", neg),
       ov("negate_int64", "int", "int", neg)),
    fn("_-_",
       ov("subtract_double", "double, double", "double", sub),
       ov("subtract_int64", "int, int", "int", sub),
       ov("subtract_uint64", "uint, uint", "uint", sub)),
    _comparisons("_<_", "less", lt),
    _comparisons("_<=_", "less_equals", le),
    _comparisons("_>_", "greater", gt),
    _comparisons("_>=_", "greater_equals", ge),
    fn("_[_]",
       ov("index_list", "list(A), int", "A", _index_stub),
       ov("index_map", "map(A, B), A", "B", _index_stub),
       ov("optional_list_index_int", "optional(list(V)), int", "optional(V)", _index_stub),
       ov("optional_map_index_value", "optional(map(K, V)), K", "optional(V)", _index_stub)),
    fn("_[?_]",
       ov("list_optindex_optional_int", "list(V), int", "optional(V)", _index_stub),
       ov("optional_list_optindex_optional_int", "optional(list(V)), int", "optional(V)", _index_stub),
       ov("map_optindex_optional_value", "map(K, V), K", "optional(V)", _index_stub),
       ov("optional_map_optindex_optional_value", "optional(map(K, V)), K", "optional(V)", _index_stub)),
    fn("@in",
       ov("in_list", "A, list(A)", "bool", contains_in, precost=_in_cost),
       ov("in_map", "A, map(A, B)", "bool", contains_in)),
    fn("size",
       ov("size_bytes", "bytes", "int", _size), mov("bytes_size", "bytes", "int", _size),
       ov("size_list", "list(A)", "int", _size), mov("list_size", "list(A)", "int", _size),
       ov("size_map", "map(A, B)", "int", _size), mov("map_size", "map(A, B)", "int", _size),
       ov("size_string", "string", "int", _size), mov("string_size", "string", "int", _size)),
    fn("type", ov("type", "A", "type(A)", _type_of)),
    fn("bool", ov("bool_to_bool", "bool", "bool", to_bool), ov("string_to_bool", "string", "bool", to_bool)),
    fn("bytes", ov("bytes_to_bytes", "bytes", "bytes", to_bytes),
       ov("string_to_bytes", "string", "bytes", to_bytes, precost=_first_cost)),
    fn("double", ov("double_to_double", "double", "double", to_double),
       ov("int64_to_double", "int", "double", to_double),
       ov("string_to_double", "string", "double", to_double),
       ov("uint64_to_double", "uint", "double", to_double)),
    fn("dyn", ov("to_dyn", "A", "dyn", lambda v: v)),
    fn("int", ov("int64_to_int64", "int", "int", to_int),
       ov("double_to_int64", "double", "int", to_int),
       ov("string_to_int64", "string", "int", to_int),
       ov("uint64_to_int64", "uint", "int", to_int)),
    fn("string", ov("string_to_string", "string", "string", to_string),
       ov("bool_to_string", "bool", "string", to_string),
       ov("bytes_to_string", "bytes", "string", to_string, precost=_first_cost),
       ov("double_to_string", "double", "string", to_string),
       ov("int64_to_string", "int", "string", to_string),
       ov("uint64_to_string", "uint", "string", to_string)),
    fn("uint", ov("uint64_to_uint64", "uint", "uint", to_uint),
       ov("double_to_uint64", "double", "uint", to_uint),
       ov("int64_to_uint64", "int", "uint", to_uint),
       ov("string_to_uint64", "string", "uint", to_uint)),
    fn("contains", mov("contains_string", "string, string", "bool", lambda s, t: t in s,
                       precost=_contains_cost)),
    fn("endsWith", mov("ends_with_string", "string, string", "bool", lambda s, t: s.endswith(t),
                       precost=_first_cost)),
    fn("startsWith", mov("starts_with_string", "string, string", "bool", lambda s, t: s.startswith(t),
                         precost=_first_cost)),
    # cel-go prices only the member form by size (overload matches_string); the global one is 1.
    fn("matches", ov("matches", "string, string", "bool", matches),
       mov("matches_string", "string, string", "bool", matches, precost=_matches_cost)),
]



def map_insert(m: Any, k: Any, v: Any = None) -> Any:
    """cel-go's `cel.@mapInsert` (two-variable comprehensions): a new map with the entry or
    entries added; an existing key is an error."""
    entries = [(k, v)] if v is not None or not isinstance(k, dict) else list(k.items())
    out = dict(m)
    for key, val in entries:
        if map_contains(out, key):
            raise CelEvalError(f"insert failed: key {format_value(key)} already exists")
        out[key] = val
    return out


FUNCTIONS.append(fn("cel.@mapInsert",
                    ov("cel_@mapInsert_map_key_value", "map(K, V), K, V", "map(K, V)", map_insert),
                    ov("cel_@mapInsert_map_map", "map(K, V), map(K, V)", "map(K, V)", map_insert)))

# Type names usable as values (`type(x) == int`).
TYPE_IDENTS = {
    "bool": "bool", "bytes": "bytes", "double": "double", "int": "int", "uint": "uint",
    "string": "string", "list": "list", "map": "map", "null_type": "null_type", "type": "type",
    "dyn": "dyn", "optional_type": "optional_type", "kubernetes.Quantity": "kubernetes.Quantity",
    "kubernetes.Semver": "kubernetes.Semver",
}


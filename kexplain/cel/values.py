"""CEL runtime values, as plain Python objects where they fit, with cel-go's `common/types` equality
and ordering (numbers compare across int, uint and double; other mixes are unequal or "no such
overload"). The mapping of types: docs/internals/cel.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.cel.errors import CelEvalError
from kexplain.cel.quantity import Quantity
from kexplain.cel.semver import Semver
from kexplain.apimachinery.fielderrors import go_quote as _quote

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1


class UInt(int):
    """A CEL uint; distinct from int for typing, equal to it numerically."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}u"


@dataclass(frozen=True, slots=True)
class TypeValue:
    """A CEL type as a value (`type(1) == int`)."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Optional:
    """cel-go's `optional_type`: `present` False is `optional.none()`."""

    present: bool
    value: Any = None


NONE = Optional(False)


class DefaultMap(dict):
    """`device.attributes` / `device.capacity`: a missing domain reads as an empty map (`mapper.Find`);
    `in`, `size()` and iteration see only the real keys."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class DeviceObject:
    """The `device` variable, an object of type `kubernetes.DRADevice`."""

    driver: str
    attributes: DefaultMap
    capacity: DefaultMap

    def field(self, name: str) -> Any:
        if name == "driver":
            return self.driver
        if name == "attributes":
            return self.attributes
        if name == "capacity":
            return self.capacity
        raise CelEvalError(f"no such key: {name}")


_TYPE_NAMES = {
    bool: "bool", int: "int", UInt: "uint", float: "double", str: "string", bytes: "bytes",
    type(None): "null_type", tuple: "list", list: "list", dict: "map", DefaultMap: "map",
    Optional: "optional_type", TypeValue: "type", Quantity: "kubernetes.Quantity",
    Semver: "kubernetes.Semver", DeviceObject: "kubernetes.DRADevice",
}


def type_name(v: Any) -> str:
    """The runtime type name cel-go prints for `v` (`int`, `list`, `kubernetes.Quantity`)."""
    return _TYPE_NAMES.get(type(v), type(v).__name__)


def no_such_overload(fn: str, *args: Any) -> CelEvalError:
    """cel-go's `MaybeNoSuchOverload`: `no such overload: fn(int, string)`."""
    return CelEvalError(f"no such overload: {fn}({', '.join(type_name(a) for a in args)})")


def list_has(items: Any, x: Any) -> bool:
    """Whether an element of `items` equals `x`; an element whose comparison errs counts as unequal."""
    for y in items:
        try:
            if equals(x, y):
                return True
        except CelEvalError:
            pass
    return False


def equals(a: Any, b: Any) -> bool:
    """CEL `==` (heterogeneous equality). Raises where Go's receiver `Equal` returns an error."""
    ta, tb = type(a), type(b)
    if ta is tb and ta in _SIMPLE:
        if ta is float and (a != a or b != b):
            return False
        return a == b
    if a is None or b is None:
        return a is None and b is None
    if ta in _NUMBERS:
        if tb not in _NUMBERS:
            return False
        return _num_cmp(a, b) == 0
    if ta is tuple or ta is list:
        if tb is not tuple and tb is not list or len(a) != len(b):
            return False
        for x, y in zip(a, b):
            try:
                if not equals(x, y):
                    return False
            except CelEvalError:
                pass   # Go's list Equal only stops at a False element
        return True
    if ta is dict or ta is DefaultMap:
        if tb is not dict and tb is not DefaultMap or len(a) != len(b):
            return False
        for k, v in a.items():
            found, ov = map_find(b, k)
            if not found:
                return False
            try:
                if not equals(v, ov):
                    return False
            except CelEvalError:
                pass
        return True
    if ta is Quantity:
        if tb is not Quantity or b.boxed:
            raise CelEvalError("no such overload")
        return a.cmp(b) == 0
    if ta is Semver:
        if tb is not Semver:
            raise CelEvalError("no such overload")
        return a.compare(b) == 0
    if ta is Optional:
        if tb is not Optional:
            return False
        if a.present and b.present:
            return equals(a.value, b.value)
        return a.present == b.present
    if ta is TypeValue:
        return tb is TypeValue and a.name == b.name
    if ta is DeviceObject:
        return a is b
    return False


_SIMPLE = frozenset({bool, str, bytes, int, float})
_NUMBERS = frozenset({int, UInt, float})


def _num_cmp(a: Any, b: Any) -> int:
    """cel-go's cross-type numeric comparison (compare.go); NaN is handled by callers."""
    fa, fb = type(a) is float, type(b) is float
    if fa and fb:
        return (a > b) - (a < b)
    if fa or fb:
        d, i, sign = (a, b, 1) if fa else (b, a, -1)
        if d != d:
            raise CelEvalError("NaN values cannot be ordered")
        if type(i) is UInt:
            if d < 0:
                return -sign
            if d > UINT64_MAX:
                return sign
        else:
            if d < INT64_MIN:
                return -sign
            if d > INT64_MAX:
                return sign
        fi = float(i)
        return sign * ((d > fi) - (d < fi))
    return (a > b) - (a < b)


def compare(a: Any, b: Any, fn: str = "_<_") -> int:
    """CEL ordering for `<`, `<=`, `>`, `>=`: -1, 0 or 1, or the runtime error."""
    ta, tb = type(a), type(b)
    if ta in _NUMBERS and tb in _NUMBERS:
        if ta is float and a != a or tb is float and b != b:
            raise CelEvalError("NaN values cannot be ordered")
        return _num_cmp(a, b)
    if ta is tb and ta in (str, bytes, bool):
        return (a > b) - (a < b)
    raise no_such_overload(fn, a, b)


def map_find(m: Mapping[Any, Any], key: Any) -> tuple[bool, Any]:
    """Look a key up as cel-go's maps do; a `DefaultMap` answers every lookup (an empty map
    for a missing domain)."""
    found, v = map_lookup(m, key)
    if not found and type(m) is DefaultMap:
        return True, {}
    return found, v


def map_lookup(m: Mapping[Any, Any], key: Any) -> tuple[bool, Any]:
    """The real keys only: numbers match across int/uint/double, a bool never matches a number."""
    tk = type(key)
    if tk is float:
        if key != key or math.isinf(key) or key != math.floor(key):
            return False, None
        key = int(key)
    elif tk is not bool and tk is not int and tk is not UInt and tk is not str:
        return False, None
    try:
        v = m[key]
    except (KeyError, TypeError):
        return False, None
    if (tk is bool) != _has_bool_key(m, key):
        return False, None
    return True, v


def _has_bool_key(m: Mapping[Any, Any], key: Any) -> bool:
    """Python folds True/1 into one dict key; tell which one the map really holds."""
    if type(key) is not bool and (type(key) is str or key not in (0, 1)):
        return False
    for k in m:
        if type(k) is not str and k == key:
            return type(k) is bool
    return False


def map_contains(m: Mapping[Any, Any], key: Any) -> bool:
    """`key in map` sees only the real keys, also of a `DefaultMap`."""
    return map_lookup(m, key)[0]


def is_zero(v: Any) -> bool:
    """cel-go's `IsZeroValue` for `optional.ofNonZeroValue`."""
    if v is None or v is False:
        return True
    t = type(v)
    if t in (int, UInt, float):
        return v == 0
    if t in (str, bytes, tuple, list, dict, DefaultMap):
        return len(v) == 0
    if t is Optional:
        return not v.present
    return False


def size(v: Any) -> int:
    """cel-go's `actualSize` for cost: the size of sized values, 1 otherwise."""
    t = type(v)
    if t is str or t is bytes or t is tuple or t is list or t is dict or t is DefaultMap:
        return len(v)
    if t is Optional and v.present:
        return size(v.value)
    return 1


def format_value(v: Any, limit: int = 200) -> str:
    """A value as an explanation shows it: CEL literal syntax where there is one."""
    text = _fmt(v)
    if len(text) > limit:
        text = text[:limit] + f"...({len(text) - limit:,} more characters)"
    return text


def _fmt(v: Any) -> str:
    t = type(v)
    if v is None:
        return "null"
    if t is bool:
        return "true" if v else "false"
    if t is UInt:
        return f"{int(v)}u"
    if t is int:
        return str(v)
    if t is float:
        if v != v:
            return "NaN"
        if math.isinf(v):
            return "+Infinity" if v > 0 else "-Infinity"
        return repr(v)
    if t is str:
        return _quote(v)
    if t is bytes:
        return "b" + _quote(v.decode("latin-1"))
    if t is tuple or t is list:
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    if t is dict or t is DefaultMap:
        return "{" + ", ".join(f"{_fmt(k)}: {_fmt(x)}" for k, x in v.items()) + "}"
    if t is Optional:
        return f"optional.of({_fmt(v.value)})" if v.present else "optional.none()"
    if t is Quantity:
        return str(v)
    if t is Semver:
        return str(v)
    if t is TypeValue:
        return v.name
    if t is DeviceObject:
        return f"device({_quote(v.driver)})"
    return repr(v)


"""cel-go's optional types (cel/library.go, optionalLib, latest version): `optional.of`,
`optional.ofNonZeroValue`, `optional.none`, `value`, `hasValue`, `or`, `orValue`, `first`,
`last`, `optional.unwrap`, `unwrapOpt`. `?.` and `[?` are compiled by the evaluator; `or`
and `orValue` short-circuit there as cel-go's decorator makes them."""
from __future__ import annotations

from typing import Any

from kexplain.cel.errors import CelEvalError
from kexplain.cel.functions import fn, mov, ov
from kexplain.cel.values import NONE, Optional, format_value, is_zero


def of(v: Any) -> Optional:
    return Optional(True, v)


def of_non_zero(v: Any) -> Optional:
    return NONE if is_zero(v) else Optional(True, v)


def value(o: Optional) -> Any:
    if not o.present:
        raise CelEvalError("optional.none() dereference")
    return o.value


def has_value(o: Optional) -> bool:
    return o.present


def first(items: Any) -> Optional:
    return Optional(True, items[0]) if items else NONE


def last(items: Any) -> Optional:
    return Optional(True, items[-1]) if items else NONE


def unwrap(items: Any) -> tuple[Any, ...]:
    out = []
    for x in items:
        if type(x) is not Optional:
            raise CelEvalError(f"value {format_value(x)} is not optional")
        if x.present:
            out.append(x.value)
    return tuple(out)


def _or_stub(*_: Any) -> Any:
    raise AssertionError("or/orValue are evaluated inline")


FUNCTIONS = [
    fn("optional.of", ov("optional_of", "V", "optional(V)", of)),
    fn("optional.ofNonZeroValue", ov("optional_ofNonZeroValue", "V", "optional(V)", of_non_zero)),
    fn("optional.none", ov("optional_none", "", "optional(V)", lambda: NONE)),
    fn("value", mov("optional_value", "optional(V)", "V", value)),
    fn("hasValue", mov("optional_hasValue", "optional(V)", "bool", has_value)),
    fn("or", mov("optional_or_optional", "optional(V), optional(V)", "optional(V)", _or_stub)),
    fn("orValue", mov("optional_orValue_value", "optional(V), V", "V", _or_stub)),
    fn("_?._", ov("select_optional_field", "dyn, string", "optional(V)", _or_stub)),
    fn("first", mov("list_first", "list(V)", "optional(V)", first)),
    fn("last", mov("list_last", "list(V)", "optional(V)", last)),
    fn("optional.unwrap", ov("optional_unwrap", "list(optional(V))", "list(V)", unwrap)),
    fn("unwrapOpt", mov("optional_unwrapOpt", "list(optional(V))", "list(V)", unwrap)),
]

"""Function declarations: an `Overload` is one cel-go signature plus kexplain's implementation and cost
(cel-go's runtime tracker: 1 per call unless the library says otherwise; `precost` charged before the
call so growing work stops at the limit, `cost` after it).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

from kexplain.cel.types import Type, sig


@dataclass(frozen=True, slots=True)
class Overload:
    id: str
    args: tuple[Type, ...]      # the receiver first for member overloads
    result: Type
    member: bool
    impl: Callable[..., Any] | None
    precost: Callable[[tuple[Any, ...]], int] | None = None
    cost: Callable[[tuple[Any, ...], Any], int] | None = None


@dataclass(frozen=True, slots=True)
class Function:
    name: str
    overloads: tuple[Overload, ...]
    doc: str = field(default="")


def ov(oid: str, args: str, result: str, impl: Callable[..., Any] | None = None, *,
       member: bool = False, precost: Callable[[tuple[Any, ...]], int] | None = None,
       cost: Callable[[tuple[Any, ...], Any], int] | None = None) -> Overload:
    """An overload from short signatures: `ov("size_string", "string", "int", len)`."""
    arg_types = tuple(sig(a) for a in _split_args(args)) if args else ()
    return Overload(oid, arg_types, sig(result), member, impl, precost, cost)


def mov(oid: str, args: str, result: str, impl: Callable[..., Any] | None = None, **kw: Any) -> Overload:
    return ov(oid, args, result, impl, member=True, **kw)


def fn(name: str, *overloads: Overload) -> Function:
    return Function(name, tuple(overloads))


def _split_args(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for c in text:
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += c == "("
        depth -= c == ")"
        cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


STRING_TRAVERSAL = 0.1


def traversal(n: int, factor: float = STRING_TRAVERSAL) -> int:
    """ceil(n * factor), cel-go's cost of walking n characters."""
    return int(math.ceil(n * factor))

"""The parsed expression: frozen nodes, macros expanded as cel-go expands them, each with `pos` (where
cel-go reports errors) and `start`/`end` (the span an explanation quotes). Nodes compare by identity:
the checker and evaluator key their tables on them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ACCU = "@result"   # cel-go's hidden accumulator name; a user cannot spell it


@dataclass(frozen=True, eq=False, slots=True)
class Expr:
    id: int
    pos: int
    start: int
    end: int


@dataclass(frozen=True, eq=False, slots=True)
class Literal(Expr):
    value: Any


@dataclass(frozen=True, eq=False, slots=True)
class Ident(Expr):
    name: str


@dataclass(frozen=True, eq=False, slots=True)
class Select(Expr):
    operand: Expr
    field: str
    test_only: bool = False   # has(a.b)


@dataclass(frozen=True, eq=False, slots=True)
class Call(Expr):
    function: str
    args: tuple[Expr, ...]
    target: Expr | None = None


@dataclass(frozen=True, eq=False, slots=True)
class ListLit(Expr):
    elements: tuple[Expr, ...]
    optional_indices: frozenset[int] = frozenset()


@dataclass(frozen=True, eq=False, slots=True)
class MapEntry:
    key: Expr
    value: Expr
    optional: bool
    pos: int


@dataclass(frozen=True, eq=False, slots=True)
class MapLit(Expr):
    entries: tuple[MapEntry, ...]


@dataclass(frozen=True, eq=False, slots=True)
class StructLit(Expr):
    """`Name{field: value}`: there are no message types in the DRA environment, so it never
    type-checks; it is kept only to report that as cel-go does."""

    type_name: str
    fields: tuple[tuple[str, Expr, bool], ...]


@dataclass(frozen=True, eq=False, slots=True)
class Comprehension(Expr):
    """A fold, as macros produce it. `macro` names the macro so the evaluator can run it as a
    plain loop; `args` are the user's sub-expressions (predicate, transform, filter)."""

    iter_range: Expr
    iter_var: str
    iter_var2: str | None
    accu_var: str
    accu_init: Expr
    loop_cond: Expr
    loop_step: Expr
    result: Expr
    macro: str
    args: tuple[Expr, ...] = field(default=())


def children(e: Expr) -> tuple[Expr, ...]:
    """Direct sub-expressions, in evaluation order."""
    if isinstance(e, Select):
        return (e.operand,)
    if isinstance(e, Call):
        return ((e.target,) if e.target is not None else ()) + e.args
    if isinstance(e, ListLit):
        return e.elements
    if isinstance(e, MapLit):
        out: list[Expr] = []
        for en in e.entries:
            out += [en.key, en.value]
        return tuple(out)
    if isinstance(e, StructLit):
        return tuple(v for _, v, _ in e.fields)
    if isinstance(e, Comprehension):
        return (e.iter_range, e.accu_init, e.loop_cond, e.loop_step, e.result)
    return ()

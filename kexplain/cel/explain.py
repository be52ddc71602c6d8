"""Why a selector did not match one device: the conjunct that was false (or the sub-expression that
failed) and the values its parts evaluated to, in the order the scheduler's evaluation read them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kexplain.cel import ast as A
from kexplain.cel.errors import CelError
from kexplain.cel.result import Result
from kexplain.cel.values import format_value


@dataclass(frozen=True)
class Step:
    """One sub-expression and what it evaluated to (`value`, or `error`)."""

    text: str
    value: str | None
    error: str | None = None


@dataclass(frozen=True)
class Explanation:
    result: Result
    conjunct: str | None            # the source of the false (or failing) top-level conjunct
    conjunct_index: int | None      # its position in the top-level && chain (0-based)
    steps: tuple[Step, ...] = field(default=())
    error_at: str | None = None     # the sub-expression a runtime error came from

    def summary(self) -> str:
        """One line for a person: `X is false: a = 16Gi, b = 24Gi, ...`."""
        r = self.result
        if r.value is True:
            return "matched"
        parts = ", ".join(f"{s.text} = {s.value}" if s.error is None else f"{s.text}: {s.error}"
                          for s in self.steps)
        if r.error is not None:
            where = f" (in {self.error_at})" if self.error_at else ""
            head = f"error: {r.error}{where}"
            return f"{head}; {parts}" if parts else head
        head = f"{self.conjunct} is false" if self.conjunct else "false"
        return f"{head}: {parts}" if parts else head


def _text(src: str, e: A.Expr) -> str | None:
    if e.end <= e.start:
        return None
    return src[e.start:e.end]


def conjuncts(root: A.Expr) -> list[A.Expr]:
    """The top-level `&&` chain, flattened (cel-go balances it; the order is the source's)."""
    if isinstance(root, A.Call) and root.function == "_&&_" and root.target is None:
        return conjuncts(root.args[0]) + conjuncts(root.args[1])
    return [root]


def _interesting(e: A.Expr, parent: A.Expr | None) -> bool:
    """Worth a line: not a literal, not a link inside an attribute path whose end is shown."""
    if isinstance(e, A.Literal):
        return False
    if isinstance(e, A.Call) and e.function in ("_&&_", "_||_") and isinstance(parent, A.Call) \
            and parent.function == e.function:
        return False
    if parent is not None and _is_path(e) and _is_path(parent) and _path_operand(parent) is e:
        return False   # device.capacity[...] inside device.capacity[...].memory
    return True


def _is_path(e: A.Expr) -> bool:
    return isinstance(e, (A.Ident, A.Select)) or (isinstance(e, A.Call) and e.function in ("_[_]", "_[?_]", "_?._"))


def _path_operand(e: A.Expr) -> A.Expr | None:
    if isinstance(e, A.Select):
        return e.operand
    if isinstance(e, A.Call) and e.function in ("_[_]", "_[?_]", "_?._"):
        return e.args[0]
    return None


def _steps(src: str, node: A.Expr, trace: dict[A.Expr, Any]) -> list[Step]:
    """Post-order values of the node's sub-expressions that were evaluated, skipping macro
    internals (their nodes have no source span)."""
    out: list[Step] = []

    def walk(e: A.Expr, parent: A.Expr | None) -> None:
        if isinstance(e, A.Comprehension):
            for sub in (e.iter_range,):
                walk(sub, e)
        else:
            for c in A.children(e):
                walk(c, e)
        if e not in trace or not _interesting(e, parent):
            return
        text = _text(src, e)
        if text is None:
            return
        v = trace[e]
        if isinstance(v, CelError):
            out.append(Step(text, None, str(v)))
        else:
            out.append(Step(text, format_value(v)))

    walk(node, None)
    return out


def _error_origin(src: str, node: A.Expr, trace: dict[A.Expr, Any]) -> str | None:
    """The innermost traced sub-expression that failed while none of its children did."""
    best: A.Expr | None = None

    def walk(e: A.Expr) -> None:
        nonlocal best
        for c in A.children(e):
            walk(c)
        v = trace.get(e)
        if isinstance(v, CelError) and best is None:
            if not any(isinstance(trace.get(c), CelError) for c in A.children(e)):
                if _text(src, e) is not None:
                    best = e

    walk(node)
    return _text(src, best) if best is not None else None


def explain(src: str, root: A.Expr, result: Result, trace: dict[A.Expr, Any]) -> Explanation:
    """The explanation of one traced evaluation (`Program.trace`) of the expression `src`
    parsed into `root`."""
    if result.value is True:
        return Explanation(result, None, None)
    parts = conjuncts(root)
    chosen: int | None = None
    for i, c in enumerate(parts):
        v = trace.get(c)
        if result.error is None and v is False:
            chosen = i
            break
        if result.error is not None and isinstance(v, CelError):
            chosen = i
            break
    if chosen is None:
        node = root
        return Explanation(result, _text(src, node), None, tuple(_steps(src, node, trace)),
                           _error_origin(src, node, trace) if result.error is not None else None)
    node = parts[chosen]
    steps = _steps(src, node, trace)
    origin = _error_origin(src, node, trace) if result.error is not None else None
    return Explanation(result, _text(src, node), chosen, tuple(steps), origin)

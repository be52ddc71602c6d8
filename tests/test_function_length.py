"""No function in kexplain/ over 80 lines, but the listed ones (issue 53: at most three).

A long function is several steps that want names of their own; the one allowed here is the CEL
evaluator's comprehension, one macro's whole semantics read best in one place."""
from __future__ import annotations

import ast

from tests.support.paths import ROOT

LIMIT = 80
ALLOWED = {("kexplain/cel/evaluator.py", "comprehension")}


def long_functions() -> set[tuple[str, str]]:
    out = set()
    for path in (ROOT / "kexplain").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.end_lineno - node.lineno + 1 > LIMIT:                  # type: ignore[operator]
                out.add((path.relative_to(ROOT).as_posix(), node.name))
    return out


def test_no_function_over_the_limit_but_the_listed_ones():
    found = long_functions()
    assert found - ALLOWED == set(), f"functions over {LIMIT} lines (split them into named steps): {sorted(found - ALLOWED)}"
    assert len(ALLOWED) <= 3


def test_every_listed_function_is_still_long():
    assert ALLOWED <= long_functions(), "a listed function is short now: remove it from ALLOWED"

"""No import cycle between kexplain's modules, and no new import inside a function.

The graph counts every import of a module, wherever it stands (module top, a function, an
`if TYPE_CHECKING:` block), and the packages an import runs first: importing `a.b.c` runs
`a/__init__` and `a/b/__init__`, so it is an edge to each of them too (but a module's own
packages, which are already running). A strongly connected component of more than one module is
a cycle, and there is none. Imports inside functions are counted per package and held at most at today's numbers
(`LAZY_CEILING`): the count may only go down; the lazy imports kept for start-up time are
listed in docs/development.md ("Lazy imports").
"""
from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from tests.support.paths import ROOT

PACKAGE = ROOT / "kexplain"


# Imports inside functions per package (kexplain.X): at most these. Lower a number when you
# remove some; never raise one.
LAZY_CEILING = {
    "admission": 1, "autoscaler": 1, "karpenter": 5, "kueue": 3, "lint": 5, "load": 1, "plugins": 1,
    "render": 1, "app": 0, "cli": 2, "explain": 1, "state": 0, "suggest": 1,
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imported(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import statement names (a name imported from a package that is a module of
    its own counts as that module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".")
        if MODULES[module].name != "__init__.py":
            package.pop()
        package = package[:len(package) - node.level + 1]
        base = ".".join(package + ([base] if base else []))
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]


def _known(name: str) -> str | None:
    """The kexplain module `name` is or lies in, None for a module outside kexplain."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name if name.startswith("kexplain") else None


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or getattr(node, "module", None) == "__future__":
                continue
            for name in _imported(module, node):
                target = _known(name)
                while target and target != "kexplain":
                    if target != module and not module.startswith(target + "."):
                        graph[module].add(target)
                    target = target.rpartition(".")[0]
    return graph


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            child = next(edges, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.add(frozenset(component))
    return found


def lazy_imports(path: Path) -> int:
    """The import statements inside the functions of `path` (each counted once, however nested)."""
    count = 0

    def visit(node: ast.AST, in_function: bool) -> None:
        nonlocal count
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                count += 1
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(path.read_text(), str(path)), False)
    return count


def test_the_graph_sees_function_level_and_package_edges():
    graph = import_graph()
    # a function-level import (the settings' start-up check builds the expander)
    assert "kexplain.autoscaler.expander.factory" in graph["kexplain.autoscaler.params"]
    # importing kexplain.cel.library.re2 runs kexplain/cel/__init__ and kexplain/cel/library/__init__ first
    assert {"kexplain.cel", "kexplain.cel.library"} <= graph["kexplain.autoscaler.expander.priority"]
    # a module's own packages are no edge of it
    assert "kexplain.autoscaler" not in graph["kexplain.autoscaler.loop"]


def test_tarjan_finds_each_cycle_whole():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert cycles(graph) == {frozenset("abc"), frozenset("de")}


def test_no_import_cycle():
    found = [sorted(c) for c in cycles(import_graph())]
    assert not found, f"import cycles (move what both sides need to a lower module): {found}"


def test_imports_inside_functions_stay_under_each_package_ceiling():
    counts: Counter[str] = Counter()
    for module, path in MODULES.items():
        parts = module.split(".")
        counts[parts[1] if len(parts) > 1 else ""] += lazy_imports(path)
    over = {p: f"{n} > {LAZY_CEILING.get(p, 0)}" for p, n in sorted(counts.items()) if n > LAZY_CEILING.get(p, 0)}
    assert not over, f"imports inside functions above the ceiling (import at module top): {over}"


def test_lazy_imports_are_counted_once_however_nested(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("import os\n\ndef f():\n    import re\n    def g():\n        from json import dumps\n"
                    "    return lambda: __import__('x')\n\nclass C:\n    def m(self):\n        import abc\n")
    assert lazy_imports(path) == 3

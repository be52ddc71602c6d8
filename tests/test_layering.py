"""The import layering: data flows one way, cli -> app -> render -> lint -> suggest -> autoscaler / karpenter / volcano -> explain -> state -> controllers -> load ->
framework / plugins / admission / config -> model / cel -> apimachinery -> errors.

Every `kexplain` import of every module (function-level ones too) is read from the source; a
package may import its own modules and packages of a lower rank, never one of its rank or above.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from tests.support.paths import ROOT

ROOT = ROOT / "kexplain"

RANKS = {
    "errors": 0,
    "features": 5,
    "apimachinery": 10,
    "model": 20, "cel": 20,
    "config": 30, "admission": 30,
    "framework": 31,
    "plugins": 32,
    "load": 40,
    "controllers": 45,
    "state": 47,
    "eviction": 48,     # the kubelet's eviction manager, kubectl drain, the Eviction API, taint eviction
    "explain": 50,
    "autoscaler": 55, "karpenter": 55,
    "volcano": 55,      # Volcano's scheduler: its predicates and nodeorder run kube-scheduler's plugins
    "kueue": 56,        # reads Karpenter's CRD schema walk (karpenter.apis.schema) for Kueue's CRDs
    "suggest": 60,
    "lint": 70,
    "render": 80,
    "app": 85,          # the application's wiring: which passes run, in which order (cli only parses and prints)
    "cli": 90,
    "__main__": 100,
}


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, imported kexplain module) for every import in the file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.level:
                raise AssertionError(f"{path}:{node.lineno}: relative import (the layering test reads absolute ones)")
            if node.module == "kexplain":
                out.extend((node.lineno, f"kexplain.{a.name}") for a in node.names)
            elif node.module.startswith("kexplain."):
                out.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names if a.name.startswith("kexplain."))
    return out


MODULES = sorted(p for p in ROOT.rglob("*.py") if p.name != "__init__.py" or p.parent != ROOT)


def test_every_package_has_a_rank():
    packages = {p.relative_to(ROOT).parts[0].removesuffix(".py") for p in MODULES}
    assert packages <= set(RANKS), f"packages without a rank: {packages - set(RANKS)}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_run_down_the_layers(path: Path):
    own = path.relative_to(ROOT).parts[0].removesuffix(".py")
    wrong = [f"line {line}: {mod} ({_package(mod)}, rank {RANKS.get(_package(mod))})"
             for line, mod in _imports(path)
             if _package(mod) != own and RANKS.get(_package(mod), 999) >= RANKS[own]]
    assert not wrong, f"{own} (rank {RANKS[own]}) imports upward or sideways: " + "; ".join(wrong)

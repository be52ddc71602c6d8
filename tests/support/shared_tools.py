"""The comparison tools of ../shared/tools and the case folders they judge, for the tests that run
the real components' cases.

A clone outside the workspace has no ../shared: `comparison_tool` is then None and each test
falls back to its local reading of the README's rules."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT

SHARED = ROOT.parent / "shared"


def comparison_tool(name: str) -> ModuleType | None:
    """`../shared/tools/NAME.py` loaded as a module (its `compare` is the judge's), or None."""
    path = SHARED / "tools" / f"{name}.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location(f"{name}_compare_tool", path)
    module = importlib.util.module_from_spec(spec)     # type: ignore[arg-type]
    spec.loader.exec_module(module)                    # type: ignore[union-attr]
    return module


def family_cases(root: Path, family: str) -> list[Path]:
    """The case folders of one family (`FAMILY-NNNN` holding an expected.json), sorted."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.glob(f"{family}-*") if (p / "expected.json").is_file())


def expected_file(case: Path, minor: str) -> Path:
    """A case's answer for a Kubernetes minor: v1.36.3's expected.json, else expected-v1.XX.json."""
    return case / ("expected.json" if minor == "1.36" else f"expected-v{minor}.json")


def run_json(argv: list[str]) -> tuple[int, dict[str, Any], str]:
    """kexplain run in process: its exit code, its JSON document (empty when it wrote none), stderr."""
    env = TestEnvironment()
    code = main(argv, env)
    return code, (json.loads(env.out) if env.out.strip() else {}), env.err

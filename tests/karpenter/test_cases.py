"""`kexplain karpenter` against the real Karpenter's documents.

Every case of ../shared/karpenter runs in-process (the command's `main`) and is compared with
the comparison tool's own `compare` (../shared/tools/karpenter.py), when that folder is present.
The bundled cases (tests/karpenter/cases/sched-*: the handwritten four and a few themes, copied
unchanged, with the shared AWS data in sched-aws) always run, compared by the tool when it is
there, else by `differences` below, which reads the README's rules the same way.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT, TESTS

BUNDLED = TESTS / "karpenter" / "cases"
BUNDLED_AWS = BUNDLED / "sched-aws"
SHARED = ROOT.parent / "shared" / "karpenter"
SHARED_AWS = SHARED / "aws"
TOOL = ROOT.parent / "shared" / "tools" / "karpenter.py"
EXPECTED = "expected-karpenter.json"


def _tool() -> Any:
    if not TOOL.is_file():
        return None
    spec = importlib.util.spec_from_file_location("karpenter_compare_tool", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)        # type: ignore[union-attr]
    return module


COMPARE_TOOL = _tool()


def _cases(root: Path, prefix: str = "") -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p.parent for p in root.rglob(EXPECTED) if p.parent.name.startswith(prefix))


def argv(case: Path, aws: Path) -> list[str]:
    """The command the comparison tool runs for a case."""
    out = ["karpenter", str(case / "pods.yaml")]
    if (case / "cluster.yaml").exists():
        out += ["--nodes", str(case / "cluster.yaml")]
    out += ["--nodes", str(case / "nodepools.yaml"), "--aws-data", str(case / "aws" if (case / "aws").is_dir()
                                                                         else aws)]
    if (case / "params.yaml").exists():
        out += ["--karpenter-config", str(case / "params.yaml")]
    return out + ["-o", "json"]


def run_case(case: Path, aws: Path) -> tuple[int, dict[str, Any], str]:
    env = TestEnvironment()
    code = main(argv(case, aws), env)
    return code, (json.loads(env.out) if env.out.strip() else {}), env.err


# -- the README's comparison, for a clone without ../shared ------------------------------------
_EMPTY = {"node": "", "nodeClaim": "", "nodePool": "", "error": "", "errors": [], "nodePoolErrors": [],
          "notReady": [], "kubeReserved": {}, "systemReserved": {}, "evictionThreshold": {}, "requirements": [],
          "requests": {}, "labels": {}, "taints": [], "startupTaints": [], "createError": ""}


def _normal(value: Any) -> Any:
    """The document with `why` dropped and each key omitted when empty written out empty."""
    if isinstance(value, list):
        return [_normal(v) for v in value]
    if isinstance(value, dict):
        out = {k: _normal(v) for k, v in value.items() if k != "why"}
        for key, empty in _EMPTY.items():
            if key in out and out[key] == empty:
                del out[key]
        return out
    return value


def differences(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """The top-level keys that differ, as the README compares them."""
    bad = []
    if not (isinstance(got.get("karpenter"), str) and "v1.13.0" in got["karpenter"]):
        bad.append("karpenter")
    for key in ("scheduleError", "nodePools", "instanceTypes", "pods", "nodeClaims", "events", "summary"):
        if _normal(want.get(key) or None) != _normal(got.get(key) or None):
            bad.append(key)
    return bad


def _check(case: Path, aws: Path) -> None:
    code, got, err = run_case(case, aws)
    # an object the API server refuses (limits-0099's `weight: 0`) is bad input, said on stderr;
    # the recorded Karpenter took it as written, and so does the document
    refused = [line for line in err.splitlines() if line.startswith("error: ") and " is invalid: " in line]
    assert code in (0, 1) or (code == 2 and refused), f"{case.name}: exit {code}: {err}"
    want = json.loads((case / EXPECTED).read_text())
    if COMPARE_TOOL is not None:
        bad = COMPARE_TOOL.compare(want, got)
        assert not bad, f"{case.name}: {bad}"
    else:
        assert not differences(want, got), f"{case.name}: keys differ: {differences(want, got)}"
    failed = any(p["result"] in ("Failed", "Ignored", "NotConsidered") for p in got["pods"])
    assert code == (2 if refused else 1 if failed else 0)


@pytest.mark.parametrize("case", _cases(BUNDLED, "sched-"), ids=lambda c: c.name)
def test_bundled_case(case: Path) -> None:
    _check(case, BUNDLED_AWS)


def test_bundled_cases_cover_every_result() -> None:
    results = {p["result"] for c in _cases(BUNDLED, "sched-")
               for p in json.loads((c / EXPECTED).read_text())["pods"]}
    assert results == {"NewNodeClaim", "Failed", "ExistingNode", "Ignored", "NotProvisionable", "NotConsidered"}


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"{SHARED} is not present (a clone outside the project's "
                                                 "workspace): only the bundled cases ran")
@pytest.mark.parametrize("case", _cases(SHARED) or [None], ids=lambda c: c.name if c else "none")
def test_shared_case(case: Path) -> None:
    _check(case, SHARED_AWS)


def test_the_local_comparison_sees_a_wrong_result() -> None:
    case = BUNDLED / "sched-workload-label"
    want = json.loads((case / EXPECTED).read_text())
    got = json.loads(json.dumps(want))
    assert differences(want, got) == []
    got["pods"][2]["nodeClaim"] = "gpu-00002"
    assert differences(want, got) == ["pods"]
    got = json.loads(json.dumps(want))
    got["pods"][0]["errors"] = []
    assert differences(want, got) == ["pods"]
    got = json.loads(json.dumps(want))
    got["pods"][2]["why"] = "a note of the recording tool, not compared"
    assert differences(want, got) == []

"""`kexplain evict taints` against the real taint eviction controller's documents.

The bundled cases (tests/eviction/cases/taints-*, copied unchanged from ../shared/eviction) always
run, against every minor's expected file; every taints case of ../shared/eviction runs too when that
folder is there. Documents are compared by the comparison tool's own `compare`
(../shared/tools/eviction.py) when it is there, else by `differences` below, which reads the
README's rules the same way."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT, TESTS
from tests.support.shared_tools import comparison_tool, expected_file, family_cases, run_json

BUNDLED = TESTS / "eviction" / "cases"
SHARED = ROOT.parent / "shared" / "eviction"
MINORS = ("1.33", "1.34", "1.35", "1.36")
KEYS = ("noExecuteTaints", "pods", "events")


COMPARE_TOOL = comparison_tool("eviction")


def cases(root: Path) -> list[Path]:
    return family_cases(root, "taints")



def run_case(case: Path, minor: str) -> tuple[int, dict[str, Any], str]:
    params = json.loads((case / "params.yaml").read_text())
    argv = ["evict", "taints", params["node"], "--nodes", str(case / "cluster.yaml"), "--now", params["now"],
            "--kubernetes-version", minor, "-o", "json"]
    return run_json(argv)


def differences(want: dict[str, Any], got: dict[str, Any], minor: str) -> list[str]:
    """The README's rules: kubernetesVersion names the minor, events compare as a set, the rest exactly."""
    bad = [] if isinstance(got.get("kubernetesVersion"), str) and minor in got["kubernetesVersion"] \
        else ["kubernetesVersion"]
    for key in KEYS:
        w, g = want.get(key) or [], got.get(key) or []
        if key == "events":
            w, g = (sorted({json.dumps(x, sort_keys=True) for x in v}) for v in (w, g))
        if w != g:
            bad.append(key)
    return bad


def _check(case: Path, minor: str) -> None:
    code, got, err = run_case(case, minor)
    want = json.loads(expected_file(case, minor).read_text())
    evicted = any(p["decision"] != "keep" for p in want["pods"])
    assert code == (1 if evicted else 0), f"{case.name}: exit {code}: {err}"
    bad = COMPARE_TOOL.compare("taints", want, got, version=minor) if COMPARE_TOOL is not None \
        else differences(want, got, minor)
    assert not bad, f"{case.name} ({minor}): {bad}"
    unchecked = [f["pod"] for f in got.get("fixes") or () if f["decisionAfter"] != "keep"]
    assert not unchecked, f"{case.name} ({minor}): fixes that do not keep their pod: {unchecked}"


def _params(root: Path) -> list[Any]:
    return [pytest.param(c, m, id=f"{m}-{c.name}") for m in MINORS for c in cases(root)
            if expected_file(c, m).is_file()]


@pytest.mark.parametrize(("case", "minor"), _params(BUNDLED))
def test_bundled_case(case: Path, minor: str) -> None:
    _check(case, minor)


def test_local_comparison_agrees_with_the_tool_on_a_wrong_document() -> None:
    case = BUNDLED / "taints-0040"
    _, got, _ = run_case(case, "1.36")
    want = json.loads((case / "expected.json").read_text())
    assert differences(want, got, "1.36") == []
    got["pods"][1]["decision"] = "keep"
    got["events"] = list(reversed(got["events"]))       # (order does not matter for events)
    assert differences(want, got, "1.36") == ["pods"]
    if COMPARE_TOOL is not None:
        assert set(COMPARE_TOOL.compare("taints", want, got, version="1.36")) == {"pods"}


def test_bundled_cases_are_varied() -> None:
    decisions = {p["decision"] for c in cases(BUNDLED) for p in json.loads((c / "expected.json").read_text())["pods"]}
    assert decisions == {"evictNow", "evictAfter", "keep"}
    assert any(not json.loads((c / "expected.json").read_text())["noExecuteTaints"] for c in cases(BUNDLED))


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"{SHARED} is not present: only the bundled cases ran")
@pytest.mark.parametrize(("case", "minor"), _params(SHARED) or [(None, None)])
def test_shared_case(case: Path, minor: str) -> None:
    _check(case, minor)

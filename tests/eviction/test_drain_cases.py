"""`kexplain evict drain` against kubectl drain and the API server's own answers.

The bundled cases (tests/eviction/cases/drain-*, copied unchanged from ../shared/eviction) always
run; every drain case of ../shared/eviction runs too when that folder is there; each for every
minor 1.33-1.36 (expected.json is v1.36.3's, expected-v1.XX.json that minor's). Documents are
compared by the comparison tool's own `compare` (../shared/tools/eviction.py) when it is there,
else by `differences` below, which reads the README's rules the same way."""
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
KEYS = ("pdbs", "pods", "warnings", "errors", "evictions", "pdbsAfter")


COMPARE_TOOL = comparison_tool("eviction")


def cases(root: Path) -> list[Path]:
    return family_cases(root, "drain")



def run_case(case: Path, minor: str) -> tuple[int, dict[str, Any], str]:
    params = json.loads((case / "params.yaml").read_text())
    argv = ["evict", "drain", params["node"], "--nodes", str(case / "cluster.yaml"), *params.get("flags", []),
            "--now", params["now"], "--kubernetes-version", minor, "-o", "json"]
    return run_json(argv)


def differences(want: dict[str, Any], got: dict[str, Any], minor: str) -> list[str]:
    """The README's rules: kubernetesVersion names the minor; every other key exactly, a missing
    key equal to its empty value."""
    out = [] if minor in str(got.get("kubernetesVersion")) else ["kubernetesVersion"]
    return out + [k for k in KEYS if (want.get(k) or []) != (got.get(k) or [])]


def compare(want: dict[str, Any], got: dict[str, Any], minor: str) -> list[str]:
    if COMPARE_TOOL is not None:
        return sorted(COMPARE_TOOL.compare("drain", want, got, version=minor))
    return differences(want, got, minor)


SHARED_CASES = [c for c in cases(SHARED)]
ALL = cases(BUNDLED) + SHARED_CASES


@pytest.mark.parametrize("minor", MINORS)
@pytest.mark.parametrize("case", ALL, ids=lambda c: f"{c.parent.name}/{c.name}")
def test_case_matches_the_real_components(case: Path, minor: str):
    want = json.loads(expected_file(case, minor).read_text())
    code, got, err = run_case(case, minor)
    assert compare(want, got, minor) == [], err
    blocked = bool(want["errors"]) or any(not e["evicted"] for e in want["evictions"])
    assert code == (1 if blocked else 0)


def test_the_bundled_cases_cover_every_kind_of_answer():
    """Errors and warnings, skips, evictions refused by a budget (429) and by two budgets (500), and
    a case whose words differ between the minors."""
    docs = [json.loads((c / "expected.json").read_text()) for c in cases(BUNDLED)]
    reasons = {p["reason"] for d in docs for p in d["pods"]}
    codes = {e.get("code") for d in docs for e in d["evictions"]}
    assert reasons == {"Okay", "Skip", "Warning", "Error"} and {429, 500, None} <= codes
    assert any(json.loads(expected_file(c, "1.33").read_text()) != json.loads((c / "expected.json").read_text())
               | {"kubernetesVersion": json.loads(expected_file(c, "1.33").read_text())["kubernetesVersion"]}
               for c in cases(BUNDLED))


def test_the_local_comparison_finds_a_difference():
    case = cases(BUNDLED)[1]
    want = json.loads((case / "expected.json").read_text())
    got = {**want, "evictions": want["evictions"][1:]}
    assert differences(want, got, "1.36") == ["evictions"]
    assert differences(want, {**want, "kubernetesVersion": "v1.35.6"}, "1.36") == ["kubernetesVersion"]

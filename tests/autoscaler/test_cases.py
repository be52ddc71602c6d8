"""`kexplain autoscale` against the real Cluster Autoscaler's documents.

The bundled cases (tests/autoscaler/cases: a few themes, copied unchanged from
../shared/autoscaler) always run; every scale-up case of ../shared/autoscaler runs when that
folder is present. The comparison is the cases' own (tests/support/autoscaler_compare.py).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.cli.app import main
from tests.support.autoscaler_compare import case_inputs, differences
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT, TESTS

BUNDLED = TESTS / "autoscaler" / "cases"
SHARED = ROOT.parent / "shared" / "autoscaler"
SHARED_PRESENT = SHARED.is_dir()


def _cases(root: Path) -> list[Path]:
    """The scale-up cases under `root` (scale-down cases need the scale-down planner)."""
    return sorted(c for c in root.iterdir() if (c / "expected-ca.json").exists()
                  and not c.name.startswith("scaledown-")) if root.is_dir() else []


def _check(case: Path) -> None:
    env = TestEnvironment()
    code = main(case_inputs(case), env)
    assert code in (0, 1), f"{case.name}: exit {code}: {env.err}"
    got = json.loads(env.out)
    want = json.loads((case / "expected-ca.json").read_text())
    bad = differences(want, got)
    assert not bad, f"{case.name}: keys differ: {', '.join(bad)}"
    every_pod_ok = all(p["outcome"] == "TriggeredScaleUp" or p.get("filteredBy") == "FilterOutSchedulable"
                       for p in got["pods"])
    assert code == (0 if every_pod_ok else 1)


@pytest.mark.parametrize("case", _cases(BUNDLED), ids=lambda c: c.name)
def test_bundled_case(case: Path) -> None:
    _check(case)


def test_bundled_cases_cover_the_results() -> None:
    results = {json.loads((c / "expected-ca.json").read_text())["result"] for c in _cases(BUNDLED)}
    assert {"ScaleUpSuccessful", "ScaleUpNoOptionsAvailable", "ScaleUpNotNeeded",
            "ScaleUpLimitedByMaxNodesTotal"} <= results


@pytest.mark.skipif(not SHARED_PRESENT, reason=f"{SHARED} is not present (a clone outside the project's "
                                               "workspace): only the bundled cases ran")
@pytest.mark.parametrize("case", _cases(SHARED) or [None], ids=lambda c: c.name if c else "none")
def test_shared_case(case: Path) -> None:
    _check(case)


def test_the_comparison_sees_a_wrong_count() -> None:
    case = BUNDLED / "gpu-0003"
    want = json.loads((case / "expected-ca.json").read_text())
    got = json.loads(json.dumps(want))
    got["expansion"]["bestOption"]["nodeCount"] += 1
    assert differences(want, got) == ["expansion"]
    got = json.loads(json.dumps(want))
    got["pods"][0]["outcome"] = "NoEvent"
    assert differences(want, got) == ["pods"]

"""kexplain against the real scheduler's traces.

The bundled subset (tests/conformance: a few cases per family) always runs; the full set
in ../shared/conformance runs when that folder is present.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.conformance_support import cases_under, differing_keys
from tests.support.paths import BUNDLED_CONFORMANCE, SHARED_ABSENT, SHARED_CONFORMANCE, SHARED_PRESENT

BUNDLED = BUNDLED_CONFORMANCE
SHARED = SHARED_CONFORMANCE


# Every minor kexplain follows, each against its own real scheduler's traces
# (expected.json for 1.35, expected-v<minor>.json for the others, where that minor ran the case).
VERSIONS = ("1.33", "1.34", "1.35", "1.36")
# No minor and no case is marked as an expected failure: a case the real scheduler decides
# nondeterministically is not a case (its trace is withdrawn), so every failure is a regression.


def _check(case: Path, version: str) -> None:
    bad, want, got = differing_keys(case, version)
    if bad:
        detail = "; ".join(f"{k}: want {json.dumps(want.get(k))[:300]} got {json.dumps(got.get(k))[:300]}"
                           for k in bad[:3])
        pytest.fail(f"{case.name} (Kubernetes {version}): trace keys differ: {', '.join(bad)} -- {detail}",
                    pytrace=False)


def _params(root: Path) -> list:
    return [pytest.param(c, v, id=f"{v}-{c.name}") for v in VERSIONS for c in cases_under(root, v)]


@pytest.mark.parametrize(("case", "version"), _params(BUNDLED))
def test_bundled_case(case: Path, version: str) -> None:
    _check(case, version)


SHARED_CASES = _params(SHARED) if SHARED_PRESENT else []


@pytest.mark.skipif(not SHARED_PRESENT, reason=SHARED_ABSENT)
@pytest.mark.parametrize(("case", "version"), SHARED_CASES or [(None, None)])
def test_shared_case(case: Path, version: str) -> None:
    _check(case, version)


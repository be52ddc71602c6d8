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


def _check(case: Path) -> None:
    bad, want, got = differing_keys(case)
    if bad:
        detail = "; ".join(f"{k}: want {json.dumps(want.get(k))[:300]} got {json.dumps(got.get(k))[:300]}"
                           for k in bad[:3])
        pytest.fail(f"{case.name}: trace keys differ: {', '.join(bad)} -- {detail}", pytrace=False)


@pytest.mark.parametrize("case", cases_under(BUNDLED), ids=lambda p: p.name)
def test_bundled_case(case: Path) -> None:
    _check(case)


SHARED_CASES = [pytest.param(c, id=c.name) for c in cases_under(SHARED)] if SHARED_PRESENT else []


@pytest.mark.skipif(not SHARED_PRESENT, reason=SHARED_ABSENT)
@pytest.mark.parametrize("case", SHARED_CASES or [None])
def test_shared_case(case: Path) -> None:
    _check(case)

"""kexplain against the real scheduler's traces.

The bundled subset (tests/conformance: a few cases per family) always runs; the full set
in ../shared/conformance runs when that folder is present.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.conformance_support import cases_under, differing_keys
from tests.support.paths import BUNDLED_CONFORMANCE, SHARED_ABSENT, SHARED_CONFORMANCE, SHARED_PRESENT

BUNDLED = BUNDLED_CONFORMANCE
SHARED = SHARED_CONFORMANCE


# Every minor kexplain follows, each against its own real scheduler's traces
# (expected.json for 1.35, expected-v<minor>.json for the others, where that minor ran the case).
VERSIONS = ("1.33", "1.34", "1.35", "1.36")
# Minors whose cases do not all pass yet, marked as expected failures by version alone
# (issue 24, "Every Kubernetes version people run"); the issue is done when this is empty.
# 1.34: dra-0161 alone, where the real scheduler named one of two incomplete pools in `filter` and
# the other in `filterAll` (Go's map order, random per call); kexplain names one.
OPEN_VERSIONS: dict[str, str] = {"1.34": "issue 24 (dra-0161: a pool picked in Go's random map order)"}


def _check(case: Path, version: str) -> None:
    bad, want, got = differing_keys(case, version)
    if bad:
        detail = "; ".join(f"{k}: want {json.dumps(want.get(k))[:300]} got {json.dumps(got.get(k))[:300]}"
                           for k in bad[:3])
        pytest.fail(f"{case.name} (Kubernetes {version}): trace keys differ: {', '.join(bad)} -- {detail}",
                    pytrace=False)


def _params(root: Path) -> list:
    marks = {v: [pytest.mark.xfail(reason=f"Kubernetes {v}: {why}", strict=False)] for v, why in OPEN_VERSIONS.items()}
    return [pytest.param(c, v, id=f"{v}-{c.name}", marks=marks.get(v, []))
            for v in VERSIONS for c in cases_under(root, v)]


@pytest.mark.parametrize(("case", "version"), _params(BUNDLED))
def test_bundled_case(case: Path, version: str) -> None:
    _check(case, version)


SHARED_CASES = _params(SHARED) if SHARED_PRESENT else []


@pytest.mark.skipif(not SHARED_PRESENT, reason=SHARED_ABSENT)
@pytest.mark.parametrize(("case", "version"), SHARED_CASES or [(None, None)])
def test_shared_case(case: Path, version: str) -> None:
    _check(case, version)


def test_kexplain_version_names_every_open_case() -> None:
    """`kexplain version` says which cases a minor is not verified on: the same minors as are
    marked open here, each naming the cases the mark names."""
    from kexplain.features.kube_version import KNOWN_DIFFERENCES

    assert set(KNOWN_DIFFERENCES) == set(OPEN_VERSIONS)
    for minor, why in OPEN_VERSIONS.items():
        cases = re.findall(r"\b[a-z]+-\d{4}\b", why)
        assert cases and all(c in KNOWN_DIFFERENCES[minor] for c in cases), (minor, cases)

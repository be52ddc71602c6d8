"""Where the tests' data and the project's files are, whichever folder a test module stands in.

The full conformance set lives beside the checkout (`../shared/conformance`, in the workspace
only); a clone elsewhere has just the bundled subset, so every test that reads the shared set
either falls back to the bundled cases or skips with `SHARED_ABSENT` as its reason.
"""
from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]     # tests/
ROOT = TESTS.parent                              # the checkout
DATA = TESTS / "data"
FIXTURES = ROOT / "fixtures"
DOCS = ROOT / "docs"
BUNDLED_CONFORMANCE = TESTS / "conformance"
SHARED_CONFORMANCE = ROOT.parent / "shared" / "conformance"
SHARED_PRESENT = SHARED_CONFORMANCE.is_dir()
SHARED_ABSENT = (f"{SHARED_CONFORMANCE} is not present (a clone outside the project's workspace): "
                 "only the bundled cases of tests/conformance ran")


def conformance_roots() -> tuple[Path, ...]:
    """The folders of conformance cases to use as a corpus: the bundled subset always, the
    shared set too when it is there."""
    return (BUNDLED_CONFORMANCE, SHARED_CONFORMANCE) if SHARED_PRESENT else (BUNDLED_CONFORMANCE,)

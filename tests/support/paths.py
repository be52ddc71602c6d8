"""Where the tests' data and the project's files are, whichever folder a test module stands in."""
from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]     # tests/
ROOT = TESTS.parent                              # the checkout
DATA = TESTS / "data"
FIXTURES = ROOT / "fixtures"
BUNDLED_CONFORMANCE = TESTS / "conformance"
SHARED_CONFORMANCE = ROOT.parent / "shared" / "conformance"

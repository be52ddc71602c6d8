"""The loader's fuzz target, for a bounded time in CI: libFuzzer (atheris) for about 10 s in a
process of its own when atheris is installed, and the hypothesis variant over raw bytes for a
fixed number of inputs in any case. Longer runs: see tests/fuzz/fuzz_loader.py and docs/reliability.md."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import fuzz_loader  # noqa: E402

FUZZ_SECONDS = 10


@pytest.mark.skipif(fuzz_loader.atheris is None, reason="atheris is not installed")
def test_atheris_finds_no_crash(tmp_path):
    proc = subprocess.run([sys.executable, str(HERE / "fuzz_loader.py"), f"-max_total_time={FUZZ_SECONDS}",
                           "-print_final_stats=1", f"-artifact_prefix={tmp_path}/", "--few-seeds"],
                          capture_output=True, text=True, timeout=30 * FUZZ_SECONDS, cwd=tmp_path)
    log = "\n".join(line for line in proc.stderr.splitlines() if not line.startswith("INFO: Instrumenting"))
    crashes = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("crash-", "timeout-", "oom-")))
    assert proc.returncode == 0 and not crashes, f"{crashes}\n{log[-4000:]}"
    runs = next(int(line.split(":")[-1]) for line in log.splitlines() if "number_of_executed_units" in line)
    assert runs > 50


HYPOTHESIS_EXAMPLES = 60


def test_hypothesis_finds_no_crash():
    """A fixed number of inputs, however long they take (not as many as a few seconds allow)."""
    lines: list[str] = []
    runs = fuzz_loader.run_hypothesis(None, report=lines.append, examples=HYPOTHESIS_EXAMPLES)
    assert runs == HYPOTHESIS_EXAMPLES, lines


@pytest.mark.parametrize("name", sorted(p.name for p in (HERE / "regressions").iterdir()))
def test_crashes_found_before_stay_fixed(name):
    """What the fuzzer found (the inputs as it wrote them, the role byte first); the broken ones
    are in tests/data/broken too, with their error lines."""
    fuzz_loader.one_input((HERE / "regressions" / name).read_bytes())


@pytest.mark.parametrize("data", [
    b"", b"\x00", b"\x01", b"\x00kind: Pod", b"\x01- - -", b"\x00{" * 50, b"\x01!!int ",
    b"\x00apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}]}\n",
])
def test_one_input_on_known_inputs(data):
    fuzz_loader.one_input(data)

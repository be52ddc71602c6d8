"""Fuzz target: any bytes, read as a POD file or as a cluster file, through the loader,
admission, the scheduling cycle and every output format. The only exception allowed out is
a `KexplainError` (one line, exit code 2); anything else is a crash.

    python tests/fuzz/fuzz_loader.py [-max_total_time=600] [--few-seeds] [CORPUS_DIR ...]  # atheris
    python tests/fuzz/fuzz_loader.py --seconds 600                    # hypothesis (also without atheris)

The first byte of an input picks its role: even, the POD file (explained against
fixtures/cluster.yaml); odd, a `--nodes` file (fixtures/pod-web.yaml explained against it).
Seeds are the repository's own manifests (fixtures, the bundled conformance cases, the
broken-input corpus), written with both role bytes into a temporary directory, so a run never
writes into the repository; libFuzzer writes a crash as `crash-<sha1>` in the working
directory: once it is fixed, add it to tests/fuzz/regressions/ as it is, and when it is a broken
input, without its first byte to tests/data/broken/ with its error line (tests/load/test_broken_inputs.py).
"""
from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
SEED_DIRS = (ROOT / "fixtures", ROOT / "tests" / "data" / "broken", ROOT / "tests" / "conformance")
MAX_INPUT = 64 * 1024          # libFuzzer's -max_len: big enough for a whole manifest
MAX_SEED = 16 * 1024           # larger seeds slow every mutation down more than they add

try:  # atheris when it is installed; otherwise the same target runs under hypothesis
    import atheris
except ImportError:  # pragma: no cover - depends on the environment
    atheris = None


def _imports() -> dict[str, Any]:
    import importlib
    import pkgutil

    import kexplain
    for mod in pkgutil.walk_packages(kexplain.__path__, "kexplain."):   # all of them, so atheris
        if not mod.name.endswith("__main__"):                           # instruments the plugins too
            importlib.import_module(mod.name)
    from kexplain.cli.explain import Output, write_trace
    from kexplain.cli.env import Environment
    from kexplain.errors import KexplainError
    from kexplain.explain.inputs import inputs_from_objects, read_config
    from kexplain.explain.pod_file import pending_pod
    from kexplain.explain.request import Request
    from kexplain.explain.run import explain
    from kexplain.load.manifests import load_objects, objects_from_text, read_text
    return dict(locals())


if atheris is not None and __name__ == "__main__":   # imported by a test: never instrumented
    with atheris.instrument_imports(include=["kexplain"]):
        K = _imports()
else:
    K = _imports()

CONFIG = K["read_config"](None)
GOOD_CLUSTER = K["load_objects"]([str(ROOT / "fixtures" / "cluster.yaml")])
GOOD_POD = K["load_objects"]([str(ROOT / "fixtures" / "pod-web.yaml")])[0]
OUTPUTS = list(K["Output"])


def read(data: bytes, path: str) -> list[tuple[dict[str, Any], Any]]:
    """The objects of `data` as `kexplain` reads a file (size, binary, UTF-8 checks included)."""
    text = K["read_text"]("-", 1 << 20, io.BytesIO(data))
    return K["objects_from_text"](text, path)


def one_input(data: bytes) -> None:
    """Raise anything but a KexplainError, and the fuzzer reports a crash."""
    if not data:
        return
    as_pod, body = data[0] % 2 == 0, data[1:]
    try:
        if as_pod:
            objs = read(body, "pod.yaml")
            pod, src = K["pending_pod"](objs, "pod.yaml")
            inputs = K["inputs_from_objects"](pod, src, GOOD_CLUSTER, CONFIG)
        else:
            cluster = read(body, "cluster.yaml")
            inputs = K["inputs_from_objects"](GOOD_POD[0], GOOD_POD[1], cluster, CONFIG)
        trace = K["explain"](inputs, K["Request"](pod_path="pod.yaml")).to_json()
    except K["KexplainError"] as err:
        text = str(err)
        if "\n" in text or not text:
            raise AssertionError(f"an error message must be one line: {text!r}") from None
        return
    for output in OUTPUTS:
        env = K["Environment"](stdout=io.StringIO(), stderr=io.StringIO(), is_terminal=False)
        K["write_trace"](env, trace, output)


def seeds(few: bool = False) -> list[bytes]:
    """Every manifest of the seed directories, once with each role byte (`few`: not the
    conformance cases, for a short run that should not spend its time replaying seeds)."""
    out = []
    for d in SEED_DIRS[:2] if few else SEED_DIRS:
        for path in sorted(d.rglob("*")):
            if path.is_file() and path.suffix in (".yaml", ".yml", ".json") and path.stat().st_size <= MAX_SEED:
                data = path.read_bytes()
                out.extend((b"\x00" + data, b"\x01" + data))
    return out


def write_seeds(directory: str, few: bool = False) -> None:
    for i, data in enumerate(seeds(few)):
        Path(directory, f"seed-{i:04d}").write_bytes(data)


def run_atheris(argv: list[str], few: bool = False) -> None:
    """libFuzzer's own loop; seeds go to a temporary directory given as the first corpus dir."""
    corpus = tempfile.mkdtemp(prefix="kexplain-fuzz-")
    write_seeds(corpus, few)
    flags = [a for a in argv[1:] if a.startswith("-") and not a.startswith("--")]
    dirs = [a for a in argv[1:] if not a.startswith("-")]
    if not any(f.startswith("-max_len=") for f in flags):
        flags.append(f"-max_len={MAX_INPUT}")
    if not any(f.startswith("-dict=") for f in flags):
        flags.append(f"-dict={Path(__file__).with_name('kubernetes.dict')}")
    if not any(f.startswith("-timeout=") for f in flags):
        flags.append("-timeout=10")              # an input that takes longer is reported as a hang
    atheris.Setup([argv[0], *flags, corpus, *dirs], one_input)
    atheris.Fuzz()


def run_hypothesis(seconds: float | None, report: Callable[[str], None] = print, examples: int | None = None) -> int:
    """The same target with hypothesis: mutated seeds and random bytes, for `seconds`, or until
    `examples` inputs ran however long they take (a test's bound: no count that a busy machine misses)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    seed_inputs = seeds(few=True)
    deadline = time.monotonic() + seconds if seconds is not None else None
    runs = 0

    def done() -> bool:
        return (deadline is not None and time.monotonic() > deadline) or (examples is not None and runs >= examples)

    def mutate(seed: bytes, cuts: list[tuple[int, int, bytes]]) -> bytes:
        data = bytearray(seed)
        for pos, length, insert in cuts:
            pos %= max(1, len(data))
            data[pos:pos + length] = insert
        return bytes(data)

    inputs = st.one_of(
        st.binary(max_size=2048),
        st.builds(mutate, st.sampled_from(seed_inputs),
                  st.lists(st.tuples(st.integers(0, MAX_INPUT), st.integers(0, 16),
                                     st.binary(max_size=16) | st.sampled_from(
                                         [b"[", b"{", b"- ", b"\t", b": ", b"*a", b"&a ", b"\n", b"null",
                                          b"-1", b"1e999", b'"', b"!!int ", b"<<: ", b"'", b"\x00"])),
                           max_size=6)))

    @settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(inputs)
    def target(data: bytes) -> None:
        nonlocal runs
        if done():
            return
        runs += 1
        one_input(data)

    while not done():   # rounds of 200 examples, each round freshly random
        target()
    report(f"hypothesis: {runs} inputs{f' in {seconds:g} s' if seconds is not None else ''}, no crash")
    return runs


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--hypothesis", action="store_true")
    parser.add_argument("--few-seeds", action="store_true")
    known, _ = parser.parse_known_args(argv[1:])
    if atheris is not None and not known.hypothesis and known.seconds is None:
        run_atheris(argv, known.few_seeds)
    else:
        run_hypothesis(known.seconds or 10.0)


if __name__ == "__main__":
    main(sys.argv)

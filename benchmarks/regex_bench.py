"""Time CEL's regular expressions: kexplain's engine against the pure-Python one it replaced.

`matches`, `find` and `findAll` run Go's regexp. kexplain parses a pattern with Go's grammar
(kexplain/cel/library/regexp_syntax.py) and matches with google-re2; until that change it matched
with a hand-written Pike VM and lazy DFA in Python. This script times both on the same cases, the
baseline engine read from git (`--baseline`, the last commit with the Python matcher):

- cel: the patterns of tests/cel and of the DRA conformance cases' selectors (grep 'matches(' in
  /work/shared/conformance) on the strings they are matched against (device models and the like);
- redos: patterns that make a backtracking engine exponential ((a+)+$, (a|aa)+$, (.*a){20}, ...)
  on inputs of 1,000, 10,000 and 100,000 characters that almost match: both engines must stay
  linear, so the time per character must not grow with the input.

Per case: compile time (first call, nothing cached) and the time of one match of a compiled
pattern (`matches`, i.e. has a match anywhere), the best of several rounds of at least 0.1 s.
`--quick` skips the 100,000-character inputs.

    .venv/bin/python benchmarks/regex_bench.py [--baseline e619653] [--quick]
"""
from __future__ import annotations

import argparse
import importlib.util
import platform
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BASELINE = "e619653"   # the last commit that matched with the Python Pike VM / lazy DFA
ROUNDS = 5
MIN_ROUND_S = 0.1

# (pattern, text): tests/cel and the conformance selectors.
CEL_CASES: tuple[tuple[str, str], ...] = (
    ("^(A100|H100|H200)$", "H200"),
    ("^(A100|H100|H200)$", "L40S"),
    ("A100|H100", "NVIDIA A100-SXM4-80GB"),
    ("A100|H100", "ConnectX-7"),
    ("^H[0-9]+$", "H100"),
    ("^H[0-9]+$", "BlueField-3"),
    ("^gpu-[0-9]+$", "gpu-0"),
    ("[0-9]+", "abc123"),
    ("^a.c$", "abc"),
    ("(?i)abc", "ABC"),
    ("(?m)^b$", "a\nb"),
    ("a|ab", "ab"),
    ("c", "ab" * 5000),       # the 10,000-character string of test_regex_is_linear_time
)

REDOS_PATTERNS: tuple[tuple[str, Callable[[int], str]], ...] = (
    ("(a+)+$", lambda n: "a" * n + "b"),
    ("(a|aa)+$", lambda n: "a" * n + "b"),
    ("(a|a)*b", lambda n: "a" * n),
    ("(.*a){20}", lambda n: "a" * 19 + "b" * n),
    ("(x+x+)+y", lambda n: "x" * n),
    (r"^(\w+\s?)*$", lambda n: "ab " * (n // 3) + "!"),
    (r"^([a-zA-Z0-9])(([\-.]|[_]+)?([a-zA-Z0-9]+))*(@){1}[a-z0-9]+[.]{1}(([a-z]{2,3})|([a-z]{2,3}[.]{1}[a-z]{2,3}))$",
     lambda n: "a" * n + "!"),
)


def _baseline(rev: str) -> ModuleType:
    """The Python engine as it was at `rev`, loaded without touching the working tree."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:kexplain/cel/library/re2.py"],
                         check=True, capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader("baseline_re2", loader=None)
    mod = importlib.util.module_from_spec(spec)   # type: ignore[arg-type]
    sys.modules[spec.name] = mod                 # dataclasses look their module up there
    exec(compile(src, f"{rev}:re2.py", "exec"), mod.__dict__)
    return mod


def _per_call(fn: Callable[[], object]) -> float:
    """Seconds per call: the best of ROUNDS rounds, each at least MIN_ROUND_S long."""
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t >= MIN_ROUND_S / 10 or n >= 1 << 20:
            break
        n *= 4
    best = float("inf")
    for _ in range(ROUNDS):
        t = time.perf_counter()
        runs = 0
        while True:
            for _ in range(n):
                fn()
            runs += n
            spent = time.perf_counter() - t
            if spent >= MIN_ROUND_S:
                break
        best = min(best, spent / runs)
    return best


def _engine_calls(engine: ModuleType) -> tuple[Callable[[str], object], Callable[[object, str], bool]]:
    compile_fn = getattr(engine.compile_regex, "__wrapped__", engine.compile_regex)   # uncached
    return compile_fn, engine.has_match


def _measure(engine: ModuleType, pattern: str, text: str) -> tuple[float, float, bool]:
    compile_fn, match_fn = _engine_calls(engine)
    t = time.perf_counter()
    prog = compile_fn(pattern)
    compile_s = time.perf_counter() - t
    verdict = match_fn(prog, text)
    return compile_s, _per_call(lambda: match_fn(prog, text)), verdict


def _fmt(s: float) -> str:
    return f"{s * 1e6:,.2f} µs" if s < 1e-3 else f"{s * 1e3:,.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=BASELINE, help="git revision of the Python engine")
    ap.add_argument("--quick", action="store_true", help="skip the 100,000-character inputs")
    args = ap.parse_args()

    from kexplain.cel.library import re2 as current
    engines = (("python", _baseline(args.baseline)), ("google-re2", current))
    print(f"# {platform.python_implementation()} {platform.python_version()}, {platform.machine()}; "
          f"baseline {args.baseline}")
    print("| case | text | python: compile | python: match | google-re2: compile | google-re2: match |")
    print("| --- | --- | --- | --- | --- | --- |")
    for pattern, text in CEL_CASES:
        row, verdicts = [], set()
        for _, engine in engines:
            compile_s, match_s, verdict = _measure(engine, pattern, text)
            row += [_fmt(compile_s), _fmt(match_s)]
            verdicts.add(verdict)
        assert len(verdicts) == 1, f"engines disagree on {pattern!r} / {text!r}"
        shown = text if len(text) <= 24 else f"{len(text):,} chars"
        print(f"| cel `{pattern}` | `{shown!r}` | " + " | ".join(row) + " |")
    sizes = (1_000, 10_000) if args.quick else (1_000, 10_000, 100_000)
    for pattern, make in REDOS_PATTERNS:
        for n in sizes:
            text = make(n)
            row, verdicts = [], set()
            for _, engine in engines:
                compile_s, match_s, verdict = _measure(engine, pattern, text)
                row += [_fmt(compile_s), f"{_fmt(match_s)} ({match_s / len(text) * 1e9:,.0f} ns/char)"]
                verdicts.add(verdict)
            assert len(verdicts) == 1, f"engines disagree on {pattern!r} (n={n})"
            print(f"| redos `{pattern[:40]}` | {len(text):,} chars | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()

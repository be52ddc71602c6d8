"""Benchmark loading at cluster scale: unstored and stored snapshots, and a live cluster.

Rows (each a ratio or a bound measured in the same run, on the 5,000-node / ~146k-pod snapshot
of `generate.py` by default):

- unstored: `kexplain pod.yaml --nodes cluster-unstored.json -o json` (the snapshot with every
  `metadata.resourceVersion` removed, so that every object goes through admission) against the
  standard library's `json.load` of the same file; target at most 1.5x;
- stored: the same command on cluster.json (objects taken as stored); target at most 1.0x;
- live pod: `kexplain pod NAME` against a stand-in API server (`live_standin.py`, another
  process) serving the snapshot plus the pending pods;
- live pending: `kexplain pod --pending -A` with 500 pending pods of 20 shapes; target at most
  60 s and 2 GB.

Each ratio is the median of alternating pairs (json.load, command, json.load, command, ...):
the machine's speed drifts on a shared 2-core VM, and a pair sees the same drift. Every run is
a fresh process whose peak RSS comes from `os.wait4`. Children run with bytecode caching on
(a user's installation has its .pyc files; without them every run compiles kexplain again),
after one warm-up run.

    .venv/bin/python benchmarks/load_bench.py [--dir /tmp/kexplain-bench] [--nodes 5000] [--pairs 3]
        [--no-live] [--pending 500] [--shapes 20] [--no-pending-row]

`bench.py` can call `unstored_snapshot`, `ratio_rows` and `live_rows` and print their rows.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
PYTHON = sys.executable
KEXPLAIN = Path(sys.executable).parent / "kexplain"
JSON_LOAD = "import json, sys\nwith open(sys.argv[1], encoding='utf-8') as fh:\n    json.load(fh)\n"
LIVE_POD, LIVE_NAMESPACE = "bench-web-pending-0000", "team-00"     # a pending pod the stand-in serves


@dataclass(frozen=True)
class Run:
    """One process: wall and CPU seconds, peak RSS in MB, exit code."""

    wall: float
    cpu: float
    peak_mb: float
    code: int


@dataclass(frozen=True)
class Row:
    name: str
    value: float           # a ratio (x) or seconds
    unit: str              # "x" or "s"
    target: float | None
    peak_mb: float
    detail: str

    def line(self) -> str:
        target = f"<= {self.target:g}{self.unit}" if self.target is not None else ""
        verdict = "" if self.target is None else ("ok" if self.value <= self.target else "MISSED")
        return (f"{self.name:<16} {self.value:>7.2f}{self.unit:<2} {target:<10} {verdict:<7} "
                f"{self.peak_mb:>7.0f} MB  {self.detail}")


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run(argv: Sequence[str], stdout: int | None = subprocess.DEVNULL) -> Run:
    """Run `argv` to its end; wall clock here, CPU and peak RSS of that very child (wait4)."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(argv), stdout=stdout, stderr=subprocess.DEVNULL, env=child_env())
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode)


def unstored_snapshot(cluster: Path, out: Path) -> Path:
    """`cluster` (a `kind: List` JSON file) without any metadata.resourceVersion, written to
    `out` as `generate.py` writes (compact); kept when newer than `cluster`."""
    if out.exists() and out.stat().st_mtime >= cluster.stat().st_mtime:
        return out
    with open(cluster, encoding="utf-8") as fh:
        doc = json.load(fh)
    for obj in doc.get("items") or []:
        meta = obj.get("metadata") if isinstance(obj, dict) else None
        if isinstance(meta, dict):
            meta.pop("resourceVersion", None)
    tmp = out.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, separators=(",", ":"))
    tmp.replace(out)
    return out


def ratio_row(name: str, command: Sequence[str], data: Path, pairs: int, target: float | None) -> Row:
    """The median over `pairs` alternating pairs of (command wall) / (json.load wall of `data`)."""
    run(command)                                        # warm-up: bytecode, page cache
    ratios, peaks, walls, loads = [], [], [], []
    for _ in range(pairs):
        base = run([PYTHON, "-c", JSON_LOAD, str(data)])
        got = run(command)
        if got.code not in (0, 1):
            raise RuntimeError(f"{' '.join(command)} exited with {got.code}")
        ratios.append(got.wall / base.wall)
        peaks.append(got.peak_mb)
        walls.append(got.wall)
        loads.append(base.wall)
    detail = (f"command {statistics.median(walls):.2f} s, json.load {statistics.median(loads):.2f} s "
              f"(ratios {', '.join(f'{r:.2f}' for r in ratios)})")
    return Row(name, statistics.median(ratios), "x", target, max(peaks), detail)


def ratio_rows(snapshot_dir: Path, pairs: int = 3) -> list[Row]:
    """The unstored and stored rows for the snapshot in `snapshot_dir` (cluster.json, pod.yaml)."""
    cluster = snapshot_dir / "cluster.json"
    pod = snapshot_dir / "pod.yaml"
    unstored = unstored_snapshot(cluster, snapshot_dir / "cluster-unstored.json")
    rows = []
    for name, data, target in (("unstored", unstored, 1.5), ("stored", cluster, 1.0)):
        rows.append(ratio_row(name, [str(KEXPLAIN), str(pod), "--nodes", str(data), "-o", "json"], data, pairs,
                              target))
    return rows


@contextlib.contextmanager
def standin(cluster: Path, workdir: Path, pending: int = 500, shapes: int = 20) -> Iterator[Path]:
    """A stand-in API server (`live_standin.py`, its own process) for `cluster` plus pending
    pods; yields the kubeconfig that points at it, and stops it on leaving."""
    kubeconfig = workdir / f"kubeconfig-{os.getpid()}"
    proc = subprocess.Popen([PYTHON, str(BENCHMARKS / "live_standin.py"), str(cluster), "--kubeconfig",
                             str(kubeconfig), "--pending", str(pending), "--shapes", str(shapes)],
                            stdout=subprocess.PIPE, text=True, env=child_env())
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("ready "):
            raise RuntimeError(f"the stand-in API server did not start: {line!r}")
        yield kubeconfig
    finally:
        proc.terminate()
        proc.wait()
        kubeconfig.unlink(missing_ok=True)


def live_rows(snapshot_dir: Path, pending: int = 500, shapes: int = 20, pending_row: bool = True) -> list[Row]:
    """`kexplain pod NAME` and (with `pending_row`) `kexplain pod --pending -A` against the
    stand-in server."""
    rows = []
    with standin(snapshot_dir / "cluster.json", snapshot_dir, pending, shapes) as kubeconfig:
        named = [str(KEXPLAIN), "pod", LIVE_POD, "-n", LIVE_NAMESPACE, "--kubeconfig", str(kubeconfig), "-o", "json"]
        run(named)                                     # warm-up
        got = run(named)
        rows.append(Row("live pod", got.wall, "s", None, got.peak_mb, f"cpu {got.cpu:.1f} s, exit {got.code}"))
        if not pending_row:
            return rows
        got = run([str(KEXPLAIN), "pod", "--pending", "-A", "--kubeconfig", str(kubeconfig)])
        rows.append(Row("live pending", got.wall, "s", 60.0, got.peak_mb,
                        f"{pending} pods of {shapes} shapes, cpu {got.cpu:.1f} s, exit {got.code}"
                        + ("" if got.peak_mb <= 2048 else "; memory over 2 GB")))
    return rows


def ensure_snapshot(base: Path, nodes: int) -> Path:
    """The snapshot directory for `nodes`, generated (JSON only) when missing."""
    out = base / f"n{nodes}"
    if not (out / "cluster.json").exists():
        subprocess.run([PYTHON, str(BENCHMARKS / "generate.py"), str(out), "--nodes", str(nodes), "--format", "json"],
                       check=True, env=child_env())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kexplain-bench"))
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--no-live", action="store_true")
    parser.add_argument("--pending", type=int, default=500)
    parser.add_argument("--shapes", type=int, default=20)
    parser.add_argument("--no-pending-row", action="store_true", help="serve the pending pods, skip --pending -A")
    args = parser.parse_args(argv)
    snapshot = ensure_snapshot(args.dir, args.nodes)
    print(f"{'row':<14} {'value':>9} {'target':<10} {'':<7} {'peak':>10}  detail  ({snapshot}, {os.cpu_count()} CPUs)")
    for row in ratio_rows(snapshot, args.pairs):
        print(row.line(), flush=True)
    if not args.no_live:
        for row in live_rows(snapshot, args.pending, args.shapes, not args.no_pending_row):
            print(row.line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark reading a cluster as kubectl dumps it (issue 55, item 3): `kexplain pod.yaml --nodes
cluster.json -o json` on the `kubectl` shape (`kubectl_shapes.py`: about 1.29 GB at 5,000 nodes,
four-space indented) against the standard library's `json.load` of the same file.

Each pair is (json.load, kexplain), alternating, each a fresh process; the rows give the median
ratio of wall time and of CPU time (on a shared machine the CPU ratio is the steadier one: a
pair's wall times see other work, its CPU times much less), the peak RSS of each (`os.wait4`),
and the load average before and after. Targets: read with the default --max-input-size, at most
0.5x, at most 1.5 GB at peak. A last run with a small --max-input-size checks the refusal.

    .venv/bin/python benchmarks/dump_bench.py [--dir /tmp/kexplain-bench] [--nodes 5000] [--pairs 3]
        [--max-input-size BYTES]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

import load_bench
from load_bench import JSON_LOAD, KEXPLAIN, PYTHON, run

SHAPE = "kubectl"


def ensure_dump(base: Path, nodes: int) -> Path:
    """The `kubectl` shape's directory for `nodes`, generated (JSON only) when missing."""
    out = base / f"{SHAPE}-n{nodes}"
    if not (out / "cluster.json").exists():
        subprocess.run([PYTHON, str(load_bench.BENCHMARKS / "generate.py"), str(out), "--nodes", str(nodes),
                        "--shape", SHAPE, "--format", "json"], check=True, env=load_bench.child_env())
    return out


def pairs(dump: Path, count: int, extra: list[str]) -> None:
    data = dump / "cluster.json"
    command = [str(KEXPLAIN), str(dump / "pod.yaml"), "--nodes", str(data), "-o", "json", *extra]
    warm = run(command)
    if warm.code not in (0, 1):
        raise SystemExit(f"kexplain exited with {warm.code}")
    load_before = os.getloadavg()[0]
    walls, cpus, peaks, base_peaks = [], [], [], []
    for _ in range(count):
        base = run([PYTHON, "-c", JSON_LOAD, str(data)])
        got = run(command)
        print(f"  json.load {base.wall:6.2f} s wall {base.cpu:6.2f} s cpu {base.peak_mb:6.0f} MB | "
              f"kexplain {got.wall:6.2f} s wall {got.cpu:6.2f} s cpu {got.peak_mb:6.0f} MB (exit {got.code}) | "
              f"{got.wall / base.wall:.2f}x wall {got.cpu / base.cpu:.2f}x cpu", flush=True)
        walls.append(got.wall / base.wall)
        cpus.append(got.cpu / base.cpu)
        peaks.append(got.peak_mb)
        base_peaks.append(base.peak_mb)
    print(f"{data} ({data.stat().st_size:,} bytes): wall {statistics.median(walls):.2f}x, "
          f"cpu {statistics.median(cpus):.2f}x (target <= 0.5x), kexplain peak {max(peaks):.0f} MB "
          f"(target <= 1,536 MB), json.load peak {max(base_peaks):.0f} MB, "
          f"load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}")


def refusal(dump: Path, limit: int) -> None:
    data = dump / "cluster.json"
    proc = subprocess.run([str(KEXPLAIN), str(dump / "pod.yaml"), "--nodes", str(data), "-o", "json",
                           "--max-input-size", str(limit)], capture_output=True, text=True, env=load_bench.child_env())
    print(f"--max-input-size {limit}: exit {proc.returncode}: {proc.stderr.strip()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kexplain-bench"))
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--max-input-size", type=int, default=None,
                        help="passed to kexplain (default: none, kexplain's own default)")
    parser.add_argument("--refusal-limit", type=int, default=100 << 20)
    args = parser.parse_args(argv)
    dump = ensure_dump(args.dir, args.nodes)
    extra = ["--max-input-size", str(args.max_input_size)] if args.max_input_size else []
    pairs(dump, args.pairs, extra)
    refusal(dump, args.refusal_limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())

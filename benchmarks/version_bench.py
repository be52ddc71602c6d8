"""What choosing a Kubernetes version costs (issue 24): the same command under two versions, or
under two builds of kexplain, in alternating pairs of the same run.

Each row runs one command as A and as B one after the other, `--pairs` times (a pair sees the
same drift of a shared machine), and reports the median of B's wall time over A's, with both
medians and the largest peak RSS. The rows: one pod on the classic 5,000-node snapshot
(`-o json`), 1,000 replicas of it (table), and DRA on `dra_bench.py`'s 1,000 GPU nodes
(`-o json`); each snapshot is generated when missing, as bench.py and dra_bench.py make it.

    .venv/bin/python benchmarks/version_bench.py --a 1.35 --b 1.36 [--pairs 3]
    .venv/bin/python benchmarks/version_bench.py --a 1.35 --b 1.35 --b-kexplain /work/kx-base/.venv/bin/kexplain

`--a`/`--b`: the `--kubernetes-version` each side passes ("" passes none: a build that has no
such option). `--a-kexplain`/`--b-kexplain`: the command each side runs (default: this venv's).
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
from pathlib import Path
from typing import Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

KEXPLAIN = str(Path(sys.executable).parent / "kexplain")


def version_args(version: str) -> list[str]:
    return ["--kubernetes-version", version] if version else []


def paired(name: str, a: Sequence[str], b: Sequence[str], pairs: int) -> str:
    """One row: B's wall time over A's, the median of `pairs` alternating pairs."""
    from load_bench import run
    for command in (a, b):                              # warm-up: bytecode, page cache
        if run(command).code not in (0, 1):
            raise SystemExit(f"{' '.join(command)} failed")
    ratios, walls_a, walls_b, peaks = [], [], [], []
    for i in range(pairs):
        first, second = (a, b) if i % 2 == 0 else (b, a)   # alternate which side runs first
        got = {id(first): run(first), id(second): run(second)}
        ra, rb = got[id(a)], got[id(b)]
        ratios.append(rb.wall / ra.wall)
        walls_a.append(ra.wall)
        walls_b.append(rb.wall)
        peaks += [ra.peak_mb, rb.peak_mb]
    return (f"{name:<28} {statistics.median(ratios):5.3f}x  A {statistics.median(walls_a):6.2f} s  "
            f"B {statistics.median(walls_b):6.2f} s  peak {max(peaks):5.0f} MB  "
            f"(ratios {', '.join(f'{r:.3f}' for r in ratios)})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="1.35", help="side A's --kubernetes-version ('' for none)")
    parser.add_argument("--b", default="1.36", help="side B's --kubernetes-version ('' for none)")
    parser.add_argument("--a-kexplain", default=KEXPLAIN)
    parser.add_argument("--b-kexplain", default=KEXPLAIN)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=5000, help="nodes of the classic snapshot")
    parser.add_argument("--copies", type=int, default=1000)
    parser.add_argument("--rows", default="pod,replicas,dra")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kexplain-bench"))
    parser.add_argument("--dra-dir", type=Path, default=Path("/tmp/kexplain-dra-bench"))
    args = parser.parse_args(argv)
    from bench import ensure_generated
    print(f"# {platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; A: {args.a_kexplain} {args.a or '(no flag)'}, "
          f"B: {args.b_kexplain} {args.b or '(no flag)'}", flush=True)
    rows: dict[str, list[str]] = {}
    wanted = args.rows.split(",")
    if "pod" in wanted or "replicas" in wanted:
        paths = ensure_generated(args.dir, args.nodes, False)
        one = [str(paths["pod"]), "--nodes", str(paths["json"])]
        rows["pod"] = [*one, "-o", "json"]
        rows["replicas"] = [*one, "--replicas", str(args.copies)]
    if "dra" in wanted:
        import dra_bench
        cluster, pod, _ = dra_bench.ensure_generated(args.dra_dir, 1000, 2000)
        rows["dra"] = [str(pod), "--nodes", str(cluster), "-o", "json"]
    labels = {"pod": f"one pod, {args.nodes} nodes", "replicas": f"{args.copies} replicas, {args.nodes} nodes",
              "dra": "DRA, 1000 GPU nodes"}
    for row in wanted:
        command = rows[row]
        print(paired(labels[row], [args.a_kexplain, *command, *version_args(args.a)],
                     [args.b_kexplain, *command, *version_args(args.b)], args.pairs), flush=True)
    print(f"# load average at the end {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Pair the working tree against a previous commit on one command: a wave that slows reading a
snapshot shows before it lands (issue 77, item 28).

REV's `kexplain/` is exported with `git archive` into a temporary directory and run by the same
interpreter, with the same installed dependencies, as the working tree's (`PYTHONPATH` names the
tree; only kexplain's own code differs). Both trees are byte-compiled first, so neither run pays
compilation. The command is, by default, `kexplain POD --nodes SNAPSHOT --kubernetes-version 1.35
-o json` on a stored snapshot (every object with a resourceVersion): `--shape plain` (the
default) is `plain_list.py --stored`, issue 55's plain List of 5,000 nodes and 145,000 pods;
`classic`, `lean`, `heavy` are `generate.py`'s. `--unstored` removes the resourceVersions (every
object admitted). Arguments after `--` replace kexplain's (`{pod}` and `{cluster}` stand for the
snapshot's files), e.g. `-- karpenter {pod} --nodes {cluster} -o json`.

One run of each first, not timed (page cache, the check): the two outputs are compared and said
identical or not (a wave may change them: said, not judged). Then A (the working tree) and B (REV)
run in turn, A B A B ..., each a fresh process timed whole from outside: CPU (user + sys) and peak
RSS of that very child (`os.wait4`), wall from this process's clock. Printed: min / median / max of
each, and of the pair ratios A/B; quote the median CPU ratio (CPU is steadier than wall on a shared
machine, and pairing keeps the ratio meaningful while the machine's speed drifts). No threshold.

    .venv/bin/python benchmarks/against_bench.py --against REV [--pairs 5] [--shape plain|classic|lean|heavy]
        [--nodes 5000] [--unstored] [--dir /tmp/kexplain-bench] [--kubernetes-version 1.35] [-- ARGS...]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import load_bench

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
PYTHON = sys.executable
# the console script's own entry point, run from a tree named by PYTHONPATH
RUNNER = "import sys; sys.argv[0] = 'kexplain'; from kexplain.cli import run; run()"
DEFAULT_ARGS = ("{pod}", "--nodes", "{cluster}", "--kubernetes-version", "{version}", "-o", "json")


@dataclass(frozen=True)
class Run:
    """One process: wall and CPU seconds, peak RSS in MB, exit code."""

    wall: float
    cpu: float
    peak_mb: float
    code: int


def child_env(tree: Path) -> dict[str, str]:
    """The environment of a run of `tree`: its kexplain first on the path, bytecode caches used."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(tree)
    return env


def run(tree: Path, args: Sequence[str], cwd: Path, out: int | None = subprocess.DEVNULL) -> Run:
    """`kexplain ARGS` of `tree` to its end, timed whole (CPU and peak RSS of that child: wait4)."""
    start = time.perf_counter()
    proc = subprocess.Popen([PYTHON, "-c", RUNNER, *args], stdout=out, stderr=subprocess.DEVNULL,
                            env=child_env(tree), cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status))


def export(rev: str, into: Path) -> str:
    """REV's kexplain/ written under `into` (git archive); its short commit id."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", f"{rev}^{{commit}}"],
                            check=True, capture_output=True, text=True).stdout.strip()
    archive = subprocess.Popen(["git", "-C", str(ROOT), "archive", "--format=tar", commit, "kexplain"],
                               stdout=subprocess.PIPE)
    with tarfile.open(fileobj=archive.stdout, mode="r|") as tar:
        tar.extractall(into, filter="data")
    if archive.wait() != 0:
        raise SystemExit(f"git archive {commit} failed")
    return commit


def compiled(tree: Path) -> None:
    """`tree`'s kexplain byte-compiled (the working tree's caches are git-ignored)."""
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(tree / "kexplain")], check=True,
                   stdout=subprocess.DEVNULL, env=child_env(tree))


def snapshot(base: Path, shape: str, nodes: int, unstored: bool) -> tuple[Path, Path]:
    """(pod file, cluster file) of `shape` at `nodes` under `base`, generated when missing."""
    out = base / f"{shape}-{nodes}"
    if not (out / "cluster.json").exists():
        if shape == "plain":
            command = [PYTHON, str(BENCHMARKS / "plain_list.py"), str(out), "--nodes", str(nodes), "--stored"]
        else:
            command = [PYTHON, str(BENCHMARKS / "generate.py"), str(out), "--nodes", str(nodes), "--shape", shape,
                       "--format", "json"]
        subprocess.run(command, check=True, env=load_bench.child_env())
    cluster = out / "cluster.json"
    if unstored:
        cluster = load_bench.unstored_snapshot(cluster, out / "cluster-unstored.json")
    return out / "pod.yaml", cluster


def spread(values: Sequence[float], unit: str = "") -> str:
    return f"{min(values):.3f} / {statistics.median(values):.3f} / {max(values):.3f}{unit}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, metavar="REV", help="the commit B runs (a tag, branch or id)")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--shape", choices=("plain", "classic", "lean", "heavy"), default="plain")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--unstored", action="store_true", help="every resourceVersion removed: all admitted")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kexplain-bench"))
    parser.add_argument("--kubernetes-version", default="1.35")
    parser.add_argument("args", nargs="*", help="after --: kexplain's arguments ({pod}, {cluster} substituted)")
    opts = parser.parse_args(argv)
    pod, cluster = snapshot(opts.dir, opts.shape, opts.nodes, opts.unstored)
    values = {"pod": str(pod), "cluster": str(cluster), "version": opts.kubernetes_version}
    args = [a.format(**values) for a in (opts.args or DEFAULT_ARGS)]
    with tempfile.TemporaryDirectory(prefix="kexplain-against-") as tmp:
        work = Path(tmp)
        old = work / "rev"
        commit = export(opts.against, old)
        compiled(ROOT)
        compiled(old)
        trees = {"A": ROOT, "B": old}
        outputs: dict[str, bytes] = {}
        for name, tree in trees.items():       # (not timed: page cache, bytecode; their outputs compared)
            path = work / f"out-{name}"
            with open(path, "wb") as fh:
                first = run(tree, args, work, fh.fileno())
            outputs[name] = path.read_bytes()
            if first.code not in (0, 1):
                raise SystemExit(f"{name} ({tree}) exited with {first.code}: kexplain {' '.join(args)}")
        same = "identical" if outputs["A"] == outputs["B"] else \
            f"DIFFER ({len(outputs['A']):,} vs {len(outputs['B']):,} bytes)"
        load_before = os.getloadavg()[0]
        runs: dict[str, list[Run]] = {"A": [], "B": []}
        for _ in range(opts.pairs):
            for name, tree in trees.items():
                runs[name].append(run(tree, args, work))
        load_after = os.getloadavg()[0]
    size = cluster.stat().st_size / 1e6
    print(f"kexplain {' '.join(args)}")
    print(f"A: the working tree ({ROOT}), B: {opts.against} ({commit}); {opts.pairs} pairs A B ...; "
          f"snapshot {size:.0f} MB; outputs {same}; load average {load_before:.1f} -> {load_after:.1f}")
    print(f"{'':<8} {'cpu s min / median / max':<28} {'wall s min / median / max':<28} peak MB")
    for name in ("A", "B"):
        got = runs[name]
        print(f"{name:<8} {spread([r.cpu for r in got]):<28} {spread([r.wall for r in got]):<28} "
              f"{max(r.peak_mb for r in got):,.0f}")
    cpu = [a.cpu / b.cpu for a, b in zip(runs["A"], runs["B"])]
    wall = [a.wall / b.wall for a, b in zip(runs["A"], runs["B"])]
    print(f"{'A/B':<8} {spread(cpu, 'x'):<28} {spread(wall, 'x'):<28} "
          f"(cpu ratios {', '.join(f'{r:.2f}' for r in cpu)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

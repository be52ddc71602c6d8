"""What the autoscaler benchmarks (`autoscale_bench.py`, `ca_pending_bench.py`,
`karpenter_bench.py`) share: their command line, the case each writes beside the snapshot, and
the lines they print, so that a change to one (an option, the header, the peak bound) is a
change to all three."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import yaml  # noqa: E402

from generate import DUMPER  # noqa: E402
from load_bench import Row, ensure_snapshot, ratio_row  # noqa: E402

PEAK_MB = 1536.0        # peak RSS bound of every autoscaler benchmark
CLUSTER_SHAPES = ("generated", "plain")

Obj = dict[str, Any]


def parser(doc: str) -> argparse.ArgumentParser:
    """The options every autoscaler benchmark takes (--dir, --nodes, --pairs, --pending,
    --shapes), described by the first line of its docstring `doc`."""
    out = argparse.ArgumentParser(description=doc.splitlines()[0])
    out.add_argument("--dir", type=Path, default=Path("/tmp/kexplain-bench"))
    out.add_argument("--nodes", type=int, default=5000)
    out.add_argument("--pairs", type=int, default=3)
    out.add_argument("--pending", type=int, default=500)
    out.add_argument("--shapes", type=int, default=20)
    out.add_argument("--cluster-shape", choices=CLUSTER_SHAPES, default="generated",
                     help="generated: generate.py's snapshot; plain: plain_list.py --stored's (issue 55)")
    return out


def snapshot(args: argparse.Namespace) -> Path:
    """The snapshot directory the options name: `generate.py`'s (`load_bench.ensure_snapshot`)
    or `plain_list.py --stored`'s (a plain JSON List of lean pods, issue 55's shape), generated
    when missing."""
    if args.cluster_shape == "generated":
        return ensure_snapshot(args.dir, args.nodes)
    out = args.dir / f"plain-n{args.nodes}"
    if not (out / "cluster.json").exists():
        import plain_list
        plain_list.main([str(out), "--nodes", str(args.nodes), "--stored"])
    return out


def read_json(path: Path) -> Obj:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def write_json(path: Path, doc: Obj) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, separators=(",", ":"))


def yaml_text(objs: Iterable[Obj]) -> str:
    """`objs` as one YAML stream, as kubectl writes a file of several objects."""
    return yaml.dump_all(objs, Dumper=DUMPER, sort_keys=False)


def write_case(snapshot_dir: Path, name: str, build: Callable[[Obj], dict[str, str]]) -> Path:
    """The case `snapshot_dir/name`: the snapshot's cluster.json as `build` leaves it (in place),
    then the files `build` returns (name -> text, pods.yaml among them). Kept when its pods.yaml
    is newer than the snapshot (pods.yaml is written last)."""
    out = snapshot_dir / name
    cluster = snapshot_dir / "cluster.json"
    done = out / "pods.yaml"
    if done.exists() and done.stat().st_mtime >= cluster.stat().st_mtime:
        return out
    out.mkdir(exist_ok=True)
    doc = read_json(cluster)
    files = build(doc)
    pods = files.pop("pods.yaml")
    write_json(out / "cluster.json", doc)
    for file, text in files.items():
        (out / file).write_text(text, encoding="utf-8")
    done.write_text(pods, encoding="utf-8")
    return out


def header(case: Path, load: bool = False) -> str:
    """The rows' header line, naming the case, the CPUs and (`load`) the load average."""
    where = f"{case}, {os.cpu_count()} CPUs" + (f", load {os.getloadavg()[0]:.2f}" if load else "")
    return f"{'row':<14} {'value':>9} {'target':<10} {'':<7} {'peak':>10}  detail  ({where})"


def peak_verdict(row: Row) -> str:
    return "ok" if row.peak_mb <= PEAK_MB else "MISSED"


def print_ratio_row(name: str, command: Sequence[str], case: Path, pairs: int, target: float) -> None:
    """A benchmark of one row: `command` timed against json.load of the case's cluster.json,
    printed under the header with its peak RSS against the bound."""
    row = ratio_row(name, command, case / "cluster.json", pairs, target)
    print(header(case))
    print(row.line())
    print(f"peak RSS {row.peak_mb:.0f} MB: {peak_verdict(row)} (<= {PEAK_MB:.0f} MB)")

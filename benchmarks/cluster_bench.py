"""Benchmark `kexplain cluster` at cluster scale (issue 94's Speed target).

On the 5,000-node snapshot of `generate.py` (146,436 bound pods), the whole cluster in one JSON
List as a snapshot holds it: every node in one of `autoscale_bench.py`'s 30 Cluster Autoscaler node
groups (`nodegroups.json`, given with `--node-groups`), every other `general` node Karpenter's
(`karpenter_bench.karpenterize`: its NodeClaim, three DaemonSets) with `karpenter_bench.py`'s ten
NodePools and their EC2NodeClasses, 500 pending pods of 25 shapes (`ca_pending_bench.owned_pods`:
Deployments', StatefulSets' and Jobs' pods in ten namespaces, Pending with PodScheduled False),
200 PodDisruptionBudgets without a status over the first 200 ReplicaSets (`evict_bench.budget`:
every tenth `minAvailable: 100%`) and exactly 10 cordoned nodes (`spec.unschedulable` and its
taint, every 500th; the generator's own 1% uncordoned). The command

    kexplain cluster --nodes cluster.json --node-groups nodegroups.json --now 2026-01-01T12:00:00Z -o json

(every section: pending, budgets, drains, scaledown, karpenter, evictions; queued skipped, no
Kueue) is timed against the standard library's `json.load` of the same two files, each in a fresh
process, as alternating pairs (the median ratio, wall and CPU: `kueue_bench.ratio_row`); target at
most 3x, peak RSS at most 2 GB.

    .venv/bin/python benchmarks/cluster_bench.py [--dir /tmp/kexplain-bench] [--nodes 5000] [--pairs 3]
        [--pending 500] [--shapes 25] [--budgets 200] [--cordoned 10] [--kexplain PATH] [--write-only]
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

from autoscale_bench import node_groups  # noqa: E402
from autoscaler_case import read_json, write_json  # noqa: E402
from ca_pending_bench import owned_pods  # noqa: E402
from evict_bench import budget  # noqa: E402
from karpenter_bench import karpenterize, node_pools  # noqa: E402
from kueue_bench import ratio_row  # noqa: E402
from load_bench import KEXPLAIN, ensure_snapshot  # noqa: E402

TARGET = 3.0            # x json.load of the inputs
PEAK_MB = 2048.0
NOW = "2026-01-01T12:00:00Z"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"      # the taint of a cordoned node

Obj = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Shape:
    pending: int
    shapes: int
    budgets: int
    cordoned: int

    @property
    def name(self) -> str:
        return f"cluster-p{self.pending}-s{self.shapes}-b{self.budgets}-c{self.cordoned}"


def build(doc: Obj, shape: Shape) -> Obj:
    """The snapshot's List made the benchmark's cluster, in place; returns the NodeGroupList."""
    items = doc["items"]
    nodes = [o for o in items if o.get("kind") == "Node"]
    groups = node_groups(nodes)
    karpenterize(doc)
    items.extend(node_pools())
    every = max(1, len(nodes) // max(1, shape.cordoned))
    for node in nodes:          # (exactly `cordoned` cordoned: the generator's own uncordoned first)
        spec = node["spec"]
        spec.pop("unschedulable", None)
        spec["taints"] = [t for t in spec.get("taints") or () if t.get("key") != UNSCHEDULABLE] or None
        if spec["taints"] is None:
            del spec["taints"]
    for node in nodes[::every][:shape.cordoned]:
        node["spec"]["unschedulable"] = True
        node["spec"].setdefault("taints", []).append({"key": UNSCHEDULABLE, "effect": "NoSchedule"})
    replica_sets = [o for o in items if o.get("kind") == "ReplicaSet"]
    items.extend(budget(i, rs) for i, rs in enumerate(replica_sets[:shape.budgets]))
    items.extend(owned_pods(shape.pending, shape.shapes))
    return {"apiVersion": "kexplain/v1", "kind": "NodeGroupList", "nodeGroups": groups}


def write_case(snapshot_dir: Path, shape: Shape) -> Path:
    """cluster.json and nodegroups.json under `snapshot_dir/<shape>`, kept when newer than the snapshot."""
    out = snapshot_dir / shape.name
    cluster, groups = out / "cluster.json", out / "nodegroups.json"
    source = snapshot_dir / "cluster.json"
    if cluster.exists() and cluster.stat().st_mtime >= source.stat().st_mtime:
        return out
    out.mkdir(exist_ok=True)
    doc = read_json(source)
    write_json(groups, build(doc, shape))
    write_json(cluster.with_suffix(".tmp"), doc)
    cluster.with_suffix(".tmp").replace(cluster)
    return out


def command(case: Path, kexplain: Path = KEXPLAIN) -> list[str]:
    return [str(kexplain), "cluster", "--nodes", str(case / "cluster.json"), "--node-groups",
            str(case / "nodegroups.json"), "--now", NOW, "-o", "json"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kexplain-bench"))
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--pending", type=int, default=500)
    parser.add_argument("--shapes", type=int, default=25)
    parser.add_argument("--budgets", type=int, default=200)
    parser.add_argument("--cordoned", type=int, default=10)
    parser.add_argument("--kexplain", type=Path, default=KEXPLAIN, help="the kexplain to time (another build's)")
    parser.add_argument("--write-only", action="store_true", help="write the case, print its path, time nothing")
    args = parser.parse_args(argv)
    shape = Shape(args.pending, args.shapes, args.budgets, args.cordoned)
    case = write_case(ensure_snapshot(args.dir, args.nodes), shape)
    if args.write_only:
        print(case)
        return 0
    print(f"{case}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}", flush=True)
    row = dataclasses.replace(ratio_row("cluster", command(case, args.kexplain),
                                        [case / "cluster.json", case / "nodegroups.json"], args.pairs),
                              target=TARGET)
    print(row.line())
    print(f"peak RSS {row.peak_mb:.0f} MB: {'ok' if row.peak_mb <= PEAK_MB else 'MISSED'} (<= {PEAK_MB:.0f} MB)")
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

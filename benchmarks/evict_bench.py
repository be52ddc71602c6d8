"""Benchmark `kexplain evict drain NODE` at cluster scale (issue 71's target).

On the 5,000-node snapshot of `generate.py` (about 150,000 bound pods of 300 ReplicaSets and two
DaemonSets' pods), every app gets a PodDisruptionBudget without a status (so the disruption
controller's is computed): most `maxUnavailable: 1`, every tenth `minAvailable: 100%` (a budget
that blocks its drain), every seventh a percentage. The command

    kexplain evict drain NODE --nodes cluster.json --ignore-daemonsets --delete-emptydir-data -o json

drains the first node (about 30 pods), with where every evicted pod goes, and is timed against
the standard library's `json.load` of the same cluster file (the median of alternating pairs,
`load_bench.ratio_row`); target at most 1.0x, peak RSS at most 1.5 GB.

    .venv/bin/python benchmarks/evict_bench.py [--dir /tmp/kexplain-bench] [--nodes 5000] [--pairs 3]
        [--cluster-shape generated|plain]
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import autoscaler_case  # noqa: E402
from autoscaler_case import yaml_text  # noqa: E402
from load_bench import KEXPLAIN  # noqa: E402

TARGET = 1.0            # x json.load of the snapshot

Obj = dict[str, Any]


def budget(i: int, rs: Obj) -> Obj:
    """A PodDisruptionBudget over a ReplicaSet's app, without a status."""
    meta = rs["metadata"]
    app = (meta.get("labels") or {}).get("app") or meta["name"]
    spec: Obj = {"selector": {"matchLabels": {"app": app}}}
    if i % 10 == 0:
        spec["minAvailable"] = "100%"
    elif i % 7 == 0:
        spec["maxUnavailable"] = "25%"
    else:
        spec["maxUnavailable"] = 1
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": f"{app}-pdb", "namespace": meta["namespace"]}, "spec": spec}


def build(doc: Obj) -> dict[str, str]:
    """The snapshot with a budget per app appended; the node to drain (node.txt)."""
    items = doc["items"]
    sets = [o for o in items if o.get("kind") == "ReplicaSet"]
    items.extend(budget(i, rs) for i, rs in enumerate(sets))
    node = next(o["metadata"]["name"] for o in items if o.get("kind") == "Node")
    return {"node.txt": node, "pods.yaml": yaml_text([])}


def command(case: Path) -> list[str]:
    node = (case / "node.txt").read_text().strip()
    return [str(KEXPLAIN), "evict", "drain", node, "--nodes", str(case / "cluster.json"), "--ignore-daemonsets",
            "--delete-emptydir-data", "-o", "json"]


def main(argv: list[str] | None = None) -> int:
    args = autoscaler_case.parser(__doc__).parse_args(argv)
    case = autoscaler_case.write_case(autoscaler_case.snapshot(args), "evict", build)
    autoscaler_case.print_ratio_row("evict drain", command(case), case, args.pairs, TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())

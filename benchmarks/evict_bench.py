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
        [--cluster-shape generated|plain] [--ready]

`generate.py`'s pods carry no Ready condition, so the disruption controller counts none healthy and
every budget blocks, and it has no DaemonSet objects, so kubectl refuses their pods; `--ready`
makes the pods Running and Ready and adds the DaemonSets, so the drain evicts and schedules the
replacements (where they go) as on a live cluster.
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


READY = {"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}


def running_and_ready(items: list[Obj]) -> None:
    """Every bound pod Running with a Ready condition, as a live cluster's are: the disruption
    controller then counts them healthy, budgets allow evictions and the drain's replacements
    are scheduled (`--ready`)."""
    for obj in items:
        if obj.get("kind") == "Pod" and (obj.get("spec") or {}).get("nodeName"):
            status = obj.setdefault("status", {})
            status.setdefault("phase", "Running")
            conditions = status.setdefault("conditions", [])
            if not any(c.get("type") == "Ready" for c in conditions):
                conditions.append(dict(READY))


def daemon_sets(items: list[Obj]) -> list[Obj]:
    """The DaemonSets the pods name as their controller (a live cluster has them: kubectl drain
    refuses a DaemonSet pod whose DaemonSet it cannot find), each with its first pod's template."""
    out: dict[tuple[str, str], Obj] = {}
    for obj in items:
        if obj.get("kind") != "Pod":
            continue
        meta = obj["metadata"]
        for ref in meta.get("ownerReferences") or ():
            key = (meta["namespace"], ref["name"])
            if ref.get("kind") == "DaemonSet" and ref.get("controller") and key not in out:
                labels = {"app": (meta.get("labels") or {}).get("app") or ref["name"]}
                out[key] = {"apiVersion": "apps/v1", "kind": "DaemonSet",
                            "metadata": {"name": ref["name"], "namespace": meta["namespace"], "uid": ref["uid"]},
                            "spec": {"selector": {"matchLabels": labels},
                                     "template": {"metadata": {"labels": labels}, "spec": obj["spec"]}}}
    return list(out.values())


def build(doc: Obj, ready: bool = False) -> dict[str, str]:
    """The snapshot with a budget per app appended (with `ready`, its pods Running and Ready); the
    node to drain (node.txt)."""
    items = doc["items"]
    if ready:
        running_and_ready(items)
        items.extend(daemon_sets(items))
    sets = [o for o in items if o.get("kind") == "ReplicaSet"]
    items.extend(budget(i, rs) for i, rs in enumerate(sets))
    node = next(o["metadata"]["name"] for o in items if o.get("kind") == "Node")
    return {"node.txt": node, "pods.yaml": yaml_text([])}


def command(case: Path) -> list[str]:
    node = (case / "node.txt").read_text().strip()
    return [str(KEXPLAIN), "evict", "drain", node, "--nodes", str(case / "cluster.json"), "--ignore-daemonsets",
            "--delete-emptydir-data", "-o", "json"]


def main(argv: list[str] | None = None) -> int:
    parser = autoscaler_case.parser(__doc__)
    parser.add_argument("--ready", action="store_true",
                        help="the pods Running and Ready: budgets allow evictions, replacements are scheduled")
    args = parser.parse_args(argv)
    case = autoscaler_case.write_case(autoscaler_case.snapshot(args), "evict-ready" if args.ready else "evict",
                                      lambda doc: build(doc, args.ready))
    autoscaler_case.print_ratio_row("evict drain", command(case), case, args.pairs, TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main())

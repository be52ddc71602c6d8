"""Benchmark `kexplain kueue` with topology-aware scheduling at cluster scale (issue 72's target).

On the 5,000-node snapshot of `generate.py` (about 150,000 bound pods: the TAS cache counts their
requests against each domain's free capacity), every node gets a block and a rack label (10
blocks of 20 racks of 25 nodes, beside its `kubernetes.io/hostname`) and one three-level
Topology names them. Two ResourceFlavors point at it (`general` and `compute`, by the nodes'
`pool` label); 5 Cohorts of 10 ClusterQueues each cover cpu and memory over both, one LocalQueue
per ClusterQueue in its own namespace. The 1,000 pending Workloads are Jobs (20 per
ClusterQueue, of 20 shapes: cpu, memory, parallelism, priority classes), each pod template with a
topology request: a third `podset-required-topology` (a rack, or a block for the large ones), a
third `podset-preferred-topology` (a rack), the rest `podset-unconstrained-topology`. The command

    kexplain kueue jobs.json --nodes cluster.json --now 2026-01-01T00:00:00Z -o json

is timed against the standard library's `json.load` of the same two files (the median of
alternating pairs, CPU seconds too, as `kueue_bench.ratio_row`); target at most 1.5x, peak RSS
at most 1.5 GB.

    .venv/bin/python benchmarks/kueue_tas_bench.py [--dir /tmp/kexplain-bench] [--nodes 5000] [--pairs 3]
        [--pending 1000] [--no-suggestions] [--kexplain PATH] [--write-only]
"""
from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

from kueue_bench import (COHORTS, KUEUE, PRIORITY_LABEL, QUEUE_LABEL, QUEUES_PER_COHORT, SHAPES,  # noqa: E402
                         obj, options, quota, stamp, template, time_case, uid,
                         write_jobs_case)
from load_bench import ensure_snapshot  # noqa: E402

TOPOLOGY = "datacenter"
BLOCK, RACK, HOST = "cloud.example.com/block", "cloud.example.com/rack", "kubernetes.io/hostname"
NODES_PER_RACK, RACKS_PER_BLOCK = 25, 20
POOLS = ("general", "compute")           # generate.py's node pools: one TAS flavor each
REQUEST = "kueue.x-k8s.io/podset-required-topology"
PREFERENCE = "kueue.x-k8s.io/podset-preferred-topology"
UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"

Obj = dict[str, Any]


def label_nodes(items: list[Obj]) -> None:
    """Each node's block and rack, by its place among the nodes (25 to a rack, 20 racks to a block)."""
    nodes = (o for o in items if o.get("kind") == "Node")
    for index, node in enumerate(nodes):
        rack = index // NODES_PER_RACK
        labels = node["metadata"].setdefault("labels", {})
        labels[BLOCK] = f"block-{rack // RACKS_PER_BLOCK:02d}"
        labels[RACK] = f"rack-{rack:03d}"


def cluster_queue(index: int) -> Obj:
    """cpu and memory over both TAS flavors, borrowing within the cohort."""
    groups = [{"coveredResources": ["cpu", "memory"], "flavors": [
        {"name": f"tas-{pool}", "resources": [quota("cpu", "600"), quota("memory", "2400Gi")]} for pool in POOLS]}]
    return obj(KUEUE, "ClusterQueue", f"cq-{index:02d}", spec={
        "cohortName": f"cohort-{index // QUEUES_PER_COHORT}", "namespaceSelector": {}, "resourceGroups": groups,
        "queueingStrategy": "StrictFIFO" if index % 7 == 3 else "BestEffortFIFO",
        "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}})


def queue_objects() -> list[Obj]:
    out = [obj(KUEUE, "Topology", TOPOLOGY, spec={"levels": [{"nodeLabel": BLOCK}, {"nodeLabel": RACK},
                                                              {"nodeLabel": HOST}]}),
           *(obj(KUEUE, "ResourceFlavor", f"tas-{pool}", spec={"nodeLabels": {"pool": pool}, "topologyName": TOPOLOGY})
             for pool in POOLS),
           obj(KUEUE, "WorkloadPriorityClass", "low", value=100),
           obj(KUEUE, "WorkloadPriorityClass", "high", value=1000)]
    out.extend(obj(KUEUE, "Cohort", f"cohort-{c}", spec={}) for c in range(COHORTS))
    for index in range(COHORTS * QUEUES_PER_COHORT):
        namespace = f"ml-{index:02d}"
        out.append(obj("v1", "Namespace", namespace))
        out[-1]["metadata"]["labels"] = {"kubernetes.io/metadata.name": namespace}
        out.append(cluster_queue(index))
        out.append(obj(KUEUE, "LocalQueue", "user-queue", namespace, spec={"clusterQueue": f"cq-{index:02d}"}))
    return out


def topology_request(index: int, pods: int) -> dict[str, str]:
    """A third required (a rack; a block for 8 pods or more), a third preferred, a third unconstrained."""
    kind = index % 3
    if kind == 0:
        return {REQUEST: BLOCK if pods >= 8 else RACK}
    return {PREFERENCE: RACK} if kind == 1 else {UNCONSTRAINED: "true"}


def pending_job(rng: random.Random, cq: int, index: int) -> Obj:
    cpu, mem, _, par, _, _, pc = SHAPES[(cq + index) % len(SHAPES)]
    pod = template(cpu, mem, 0, False, False)
    pod["metadata"] = {"annotations": topology_request(cq + index, par)}
    out = obj("batch/v1", "Job", f"train-{cq:02d}-{index:03d}", f"ml-{cq:02d}", spec={
        "parallelism": par, "completions": par, "suspend": True, "backoffLimit": 0, "template": pod})
    labels = {QUEUE_LABEL: "user-queue", **({PRIORITY_LABEL: pc} if pc else {})}
    out["metadata"].update(uid=uid(rng), creationTimestamp=stamp(600 + index * 7 + cq), labels=labels)
    return out


def write_case(snapshot_dir: Path, pending: int) -> Path:
    """The snapshot's nodes labelled and the Kueue objects added, the pending Jobs beside it
    (`snapshot_dir/kueue-tas-P`)."""
    def added(items: list[Obj]) -> list[Obj]:
        label_nodes(items)
        items.extend(queue_objects())
        rng = random.Random(72)
        queues = COHORTS * QUEUES_PER_COHORT
        return [pending_job(rng, i % queues, i // queues) for i in range(pending)]
    return write_jobs_case(snapshot_dir, f"kueue-tas-{pending}", added)


def main(argv: list[str] | None = None) -> int:
    args = options(__doc__).parse_args(argv)
    return time_case(write_case(ensure_snapshot(args.dir, args.nodes), args.pending), "kueue TAS", args)


if __name__ == "__main__":
    sys.exit(main())

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

`--shape uneven` is a second shape, not the one the engine was tuned on: four levels (3 zones of
unequal size, spines of 3 to 9 racks, racks of 4 to 40 nodes, in a shuffled node order), 3% of
the nodes NotReady and 2% cordoned, one TAS flavor over every (linux) node and one over the `compute`
pool, and the Jobs' requests a mix: slices (`podset-slice-required-topology` a rack with
`podset-slice-size` 2 or 4) within a required zone or spine or alone, a required rack (one in
nine of those more pods than any rack holds), a preferred spine, unconstrained, some pinned to a
zone by a nodeSelector.

    .venv/bin/python benchmarks/kueue_tas_bench.py [--dir /tmp/kexplain-bench] [--nodes 5000] [--pairs 3]
        [--pending 1000] [--shape racks|uneven] [--no-suggestions] [--kexplain PATH] [--write-only]
"""
from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import kueue_bench  # noqa: E402
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
SLICE = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
FABRIC = "fabric"                        # --shape uneven: its Topology, levels and flavors
ZONE, SPINE = "cloud.example.com/zone", "cloud.example.com/spine"
ZONES = ("zone-a", "zone-b", "zone-c")

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
    """The Topology, a TAS flavor per pool, then the queues as `kueue_bench` writes them."""
    topology = obj(KUEUE, "Topology", TOPOLOGY, spec={"levels": [{"nodeLabel": BLOCK}, {"nodeLabel": RACK},
                                                                 {"nodeLabel": HOST}]})
    tas_flavors = [obj(KUEUE, "ResourceFlavor", f"tas-{pool}", spec={"nodeLabels": {"pool": pool},
                                                                     "topologyName": TOPOLOGY}) for pool in POOLS]
    return kueue_bench.queue_objects([topology, *tas_flavors], cluster_queue)


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


# -- --shape uneven ------------------------------------------------------------------------
def label_uneven(items: list[Obj], rng: random.Random) -> None:
    """Zones of about half, 30% and 20% of the nodes, spines of 3 to 9 racks, racks of 4 to 40
    nodes, over the nodes shuffled; 3% NotReady, 2% cordoned."""
    nodes = [o for o in items if o.get("kind") == "Node"]
    rng.shuffle(nodes)
    rack = spine = at = 0
    racks_left = rng.randint(3, 9)
    while at < len(nodes):
        size = rng.randint(4, 40)
        for node in nodes[at:at + size]:
            share = at / len(nodes)
            node["metadata"].setdefault("labels", {}).update({
                ZONE: ZONES[0 if share < 0.5 else 1 if share < 0.8 else 2], SPINE: f"spine-{spine:03d}",
                RACK: f"rack-{rack:04d}"})
            roll = rng.random()
            if roll < 0.03:
                for cond in node.get("status", {}).get("conditions") or ():
                    if cond.get("type") == "Ready":
                        cond["status"] = "False"
            elif roll < 0.05:
                node.setdefault("spec", {})["unschedulable"] = True
        at, rack, racks_left = at + size, rack + 1, racks_left - 1
        if racks_left == 0:
            spine, racks_left = spine + 1, rng.randint(3, 9)


def uneven_queue_objects() -> list[Obj]:
    """The racks shape's queues with the fabric Topology: `tas-all` over every node, `tas-compute`
    over the compute pool; every third ClusterQueue has only `tas-all`."""
    out = [o for o in queue_objects() if o["kind"] not in ("Topology", "ResourceFlavor")]
    out += [obj(KUEUE, "Topology", FABRIC, spec={"levels": [{"nodeLabel": ZONE}, {"nodeLabel": SPINE},
                                                           {"nodeLabel": RACK}, {"nodeLabel": HOST}]}),
            obj(KUEUE, "ResourceFlavor", "tas-all", spec={"nodeLabels": {"kubernetes.io/os": "linux"},
                                                          "topologyName": FABRIC}),
            obj(KUEUE, "ResourceFlavor", "tas-compute",
                spec={"nodeLabels": {"pool": "compute"}, "topologyName": FABRIC})]
    for cq in (o for o in out if o["kind"] == "ClusterQueue"):
        names = ["tas-all"] if int(cq["metadata"]["name"][3:]) % 3 == 0 else ["tas-compute", "tas-all"]
        for group in cq["spec"]["resourceGroups"]:
            group["flavors"] = [{**group["flavors"][0], "name": name} for name in names]
    return out


def uneven_request(rng: random.Random) -> tuple[dict[str, str], int]:
    """A pod template's topology annotations and the Job's parallelism."""
    roll = rng.random()
    if roll < 0.4:                      # slices of a rack, in a required zone or spine, or alone
        size = rng.choice((2, 4))
        out = {SLICE: RACK, SLICE_SIZE: str(size)}
        if roll < 0.3:
            out[REQUEST] = rng.choice((ZONE, SPINE))
        return out, size * rng.choice((1, 2, 4))
    if roll < 0.45:                     # more than any rack holds: pending, explained each cycle
        return {REQUEST: RACK}, rng.choice((120, 200))
    parallelism = rng.choice((1, 2, 3, 5, 8))
    if roll < 0.6:
        return {REQUEST: RACK}, parallelism
    if roll < 0.8:
        return {PREFERENCE: SPINE}, parallelism
    return {UNCONSTRAINED: "true"}, parallelism


def uneven_job(rng: random.Random, cq: int, index: int) -> Obj:
    out = pending_job(rng, cq, index)
    pod = out["spec"]["template"]
    annotations, parallelism = uneven_request(rng)
    pod["metadata"] = {"annotations": annotations}
    if rng.random() < 0.1:
        pod["spec"]["nodeSelector"] = {ZONE: rng.choice(ZONES)}
    out["spec"].update(parallelism=parallelism, completions=parallelism)
    return out


def write_uneven_case(snapshot_dir: Path, pending: int) -> Path:
    """`snapshot_dir/kueue-tas-uneven-P`: the nodes labelled and some taken out of service, the Kueue
    objects added, the pending Jobs beside it."""
    def added(items: list[Obj]) -> list[Obj]:
        rng = random.Random(7272)
        label_uneven(items, rng)
        items.extend(uneven_queue_objects())
        queues = COHORTS * QUEUES_PER_COHORT
        return [uneven_job(rng, i % queues, i // queues) for i in range(pending)]
    return write_jobs_case(snapshot_dir, f"kueue-tas-uneven-{pending}", added)


def main(argv: list[str] | None = None) -> int:
    parser = options(__doc__)
    parser.add_argument("--shape", choices=("racks", "uneven"), default="racks",
                        help="racks: 10 blocks of 20 racks of 25 nodes; uneven: the second shape (above)")
    args = parser.parse_args(argv)
    snapshot = ensure_snapshot(args.dir, args.nodes)
    if args.shape == "uneven":
        return time_case(write_uneven_case(snapshot, args.pending), "kueue TAS uneven", args)
    return time_case(write_case(snapshot, args.pending), "kueue TAS", args)


if __name__ == "__main__":
    sys.exit(main())

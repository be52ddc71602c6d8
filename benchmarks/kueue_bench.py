"""Benchmark `kexplain kueue` at cluster scale (issue 54's target).

On the 5,000-node snapshot of `generate.py` (about 150,000 bound pods, which Kueue's admission
does not read and lists as ignored), the Kueue objects of a shared batch cluster are added:
three ResourceFlavors (on-demand, a tainted spot flavor, a GPU flavor with node labels), two
WorkloadPriorityClasses, 5 Cohorts of 10 ClusterQueues each (two resource groups, cpu/memory
over on-demand and spot and nvidia.com/gpu; BestEffortFIFO and StrictFIFO, borrowing and lending
limits, classical preemption), one LocalQueue per ClusterQueue in its own namespace, and 5,000
Workloads admitted already (100 per ClusterQueue, filling most of its on-demand quota). The
1,000 pending Workloads are Jobs (20 per ClusterQueue, of 20 template shapes: cpu, memory, GPUs,
spot tolerations, node selectors, parallelism, priority classes) in `jobs.json`. The command

    kexplain kueue jobs.json --nodes cluster.json --now 2026-01-01T00:00:00Z -o json

is timed against the standard library's `json.load` of the same two files in one process (the
median of alternating pairs, as `load_bench.ratio_row`); target at most 1.5x, peak RSS at most
1.5 GB.

    .venv/bin/python benchmarks/kueue_bench.py [--dir /tmp/kexplain-bench] [--nodes 5000] [--pairs 3]
        [--pending 1000] [--admitted 5000] [--no-suggestions] [--kexplain PATH]

The command runs with its defaults, the explanation and the verified fix suggestions included;
`--no-suggestions` times it without them; `--kexplain` times another build's executable. The
detail gives the CPU seconds of both too: on a shared, loaded machine their ratio moves least.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import autoscaler_case  # noqa: E402
from load_bench import KEXPLAIN, PYTHON, Row, ensure_snapshot, run  # noqa: E402

TARGET = 1.5            # x json.load of the input files
NOW = "2026-01-01T00:00:00Z"
COHORTS, QUEUES_PER_COHORT = 5, 10
KUEUE = "kueue.x-k8s.io/v1beta2"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
SPOT_TAINT = {"key": "cloud.example.com/spot", "value": "true", "effect": "NoSchedule"}
JSON_LOAD = ("import json, sys\nfor path in sys.argv[1:]:\n    with open(path, encoding='utf-8') as fh:\n"
             "        json.load(fh)\n")

Obj = dict[str, Any]

# cpu, memory (Gi), gpus, parallelism, tolerates spot, selects the GPU pool, priority class
SHAPES = [(cpu, mem, gpu, par, spot, gpu > 0, pc)
          for cpu, mem, gpu, par, spot, pc in (
              (1, 2, 0, 1, False, None), (2, 4, 0, 1, False, "low"), (4, 8, 0, 2, False, None),
              (8, 32, 0, 1, True, "high"), (2, 8, 0, 4, True, "low"), (16, 64, 0, 1, False, "high"),
              (1, 1, 0, 8, True, None), (4, 16, 1, 1, False, "high"), (8, 32, 2, 1, False, None),
              (2, 4, 0, 3, False, "low"), (3, 12, 0, 2, True, None), (6, 24, 0, 1, False, "high"),
              (12, 48, 4, 1, False, "high"), (1, 4, 0, 16, False, "low"), (5, 10, 0, 1, True, None),
              (2, 2, 0, 2, False, None), (24, 96, 0, 1, True, "high"), (4, 4, 1, 2, False, "low"),
              (10, 40, 0, 1, False, None), (3, 6, 0, 5, True, "low"))]


def obj(api: str, kind: str, name: str, namespace: str | None = None, **rest: Any) -> Obj:
    meta: Obj = {"name": name} if namespace is None else {"name": name, "namespace": namespace}
    return {"apiVersion": api, "kind": kind, "metadata": meta, **rest}


def flavors() -> list[Obj]:
    return [obj(KUEUE, "ResourceFlavor", "on-demand", spec={"nodeLabels": {"pool": "general"}}),
            obj(KUEUE, "ResourceFlavor", "spot", spec={"nodeTaints": [SPOT_TAINT]}),
            obj(KUEUE, "ResourceFlavor", "gpu-a100", spec={"nodeLabels": {"pool": "gpu"}})]


def quota(name: str, amount: str, borrowing: str | None = None, lending: str | None = None) -> Obj:
    out: Obj = {"name": name, "nominalQuota": amount}
    if borrowing is not None:
        out["borrowingLimit"] = borrowing
    if lending is not None:
        out["lendingLimit"] = lending
    return out


def cluster_queue(index: int) -> Obj:
    cohort = index // QUEUES_PER_COHORT
    strict = index % 7 == 3
    borrowing = "100" if index % 4 == 1 else None
    lending = "40" if index % 5 == 2 else None
    groups = [{"coveredResources": ["cpu", "memory"], "flavors": [
                  {"name": "on-demand", "resources": [quota("cpu", "400", borrowing, lending),
                                                      quota("memory", "1600Gi")]},
                  {"name": "spot", "resources": [quota("cpu", "100"), quota("memory", "400Gi")]}]},
              {"coveredResources": ["nvidia.com/gpu"], "flavors": [
                  {"name": "gpu-a100", "resources": [quota("nvidia.com/gpu", "16")]}]}]
    preemption = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any" if index % 2 else "Never",
                  "borrowWithinCohort": {"policy": "Never"}}
    return obj(KUEUE, "ClusterQueue", f"cq-{index:02d}", spec={
        "cohortName": f"cohort-{cohort}", "namespaceSelector": {}, "resourceGroups": groups,
        "queueingStrategy": "StrictFIFO" if strict else "BestEffortFIFO", "preemption": preemption,
        "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"}})


def queue_objects(flavor_objects: list[Obj] | None = None,
                  cluster_queue_of: Callable[[int], Obj] | None = None) -> list[Obj]:
    """The priority classes, Cohorts, ClusterQueues (`cluster_queue_of`, this benchmark's by default)
    and a LocalQueue and Namespace per ClusterQueue, after `flavor_objects` (this benchmark's flavors)."""
    make_queue = cluster_queue_of or cluster_queue
    out = [*(flavors() if flavor_objects is None else flavor_objects),
           obj(KUEUE, "WorkloadPriorityClass", "low", value=100),
           obj(KUEUE, "WorkloadPriorityClass", "high", value=1000)]
    for cohort in range(COHORTS):
        out.append(obj(KUEUE, "Cohort", f"cohort-{cohort}", spec={}))
    for index in range(COHORTS * QUEUES_PER_COHORT):
        namespace = f"ml-{index:02d}"
        out.append(obj("v1", "Namespace", namespace))
        out[-1]["metadata"]["labels"] = {"kubernetes.io/metadata.name": namespace}
        out.append(make_queue(index))
        out.append(obj(KUEUE, "LocalQueue", "user-queue", namespace, spec={"clusterQueue": f"cq-{index:02d}"}))
    return out


def template(cpu: int, mem: int, gpu: int, spot: bool, gpu_pool: bool) -> Obj:
    requests: Obj = {"cpu": str(cpu), "memory": f"{mem}Gi"}
    if gpu:
        requests["nvidia.com/gpu"] = str(gpu)
    spec: Obj = {"restartPolicy": "Never", "containers": [
        {"name": "main", "image": "registry.example.com/train:1.4", "resources": {"requests": requests}}]}
    if spot:
        spec["tolerations"] = [{"key": SPOT_TAINT["key"], "operator": "Equal", "value": "true",
                                "effect": "NoSchedule"}]
    if gpu_pool:
        spec["nodeSelector"] = {"pool": "gpu"}
    return {"spec": spec}


def uid(rng: random.Random) -> str:
    h = "%032x" % rng.getrandbits(128)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def stamp(minute: int) -> str:
    return f"2025-12-31T{minute // 60 % 24:02d}:{minute % 60:02d}:00Z"


def admitted_workload(rng: random.Random, cq: int, index: int) -> Obj:
    """A Workload holding quota in `cq`: 1-2 pods of 2-3 cpu on on-demand (about 80% of its
    cpu quota over 100 of them), some with a GPU."""
    cpu, count, gpu = rng.choice((2, 3)), rng.choice((1, 1, 1, 2)), rng.random() < 0.1
    job_uid = uid(rng)
    name = f"job-svc-{cq:02d}-{index:03d}-{job_uid[:5]}"
    flavors_of = {"cpu": "on-demand", "memory": "on-demand", **({"nvidia.com/gpu": "gpu-a100"} if gpu else {})}
    usage = {"cpu": str(cpu * count), "memory": f"{2 * cpu * count}Gi", **({"nvidia.com/gpu": str(count)} if gpu else {})}
    priority = rng.choice((0, 100, 1000))
    out = obj(KUEUE, "Workload", name, f"ml-{cq:02d}", spec={
        "queueName": "user-queue", "priority": priority,
        "podSets": [{"name": "main", "count": count, "template": template(cpu, 2 * cpu, int(gpu), False, gpu)}]})
    meta = out["metadata"]
    meta.update(uid=uid(rng), creationTimestamp=stamp(index), labels={"kueue.x-k8s.io/job-uid": job_uid},
                ownerReferences=[{"apiVersion": "batch/v1", "kind": "Job", "name": f"svc-{cq:02d}-{index:03d}",
                                  "uid": job_uid, "controller": True, "blockOwnerDeletion": True}])
    out["status"] = {"admission": {"clusterQueue": f"cq-{cq:02d}", "podSetAssignments": [
        {"name": "main", "flavors": flavors_of, "resourceUsage": usage, "count": count}]},
        "conditions": [{"type": t, "status": "True", "reason": t, "message": msg,
                        "lastTransitionTime": stamp(index + 1)}
                       for t, msg in (("QuotaReserved", f"Quota reserved in ClusterQueue cq-{cq:02d}"),
                                      ("Admitted", "The workload is admitted"))]}
    return out


def pending_job(rng: random.Random, cq: int, index: int) -> Obj:
    cpu, mem, gpu, par, spot, gpu_pool, pc = SHAPES[(cq + index) % len(SHAPES)]
    out = obj("batch/v1", "Job", f"train-{cq:02d}-{index:03d}", f"ml-{cq:02d}", spec={
        "parallelism": par, "completions": par, "suspend": True, "backoffLimit": 0,
        "template": template(cpu, mem, gpu, spot, gpu_pool)})
    labels = {QUEUE_LABEL: "user-queue", **({PRIORITY_LABEL: pc} if pc else {})}
    out["metadata"].update(uid=uid(rng), creationTimestamp=stamp(600 + index * 7 + cq), labels=labels)
    return out


def build(pending: int, admitted: int) -> tuple[list[Obj], list[Obj]]:
    """The cluster's Kueue objects with the admitted Workloads, and the pending Jobs."""
    rng = random.Random(54)
    queues = COHORTS * QUEUES_PER_COHORT
    cluster = queue_objects()
    cluster.extend(admitted_workload(rng, i % queues, i // queues) for i in range(admitted))
    jobs = [pending_job(rng, i % queues, i // queues) for i in range(pending)]
    return cluster, jobs


def write_jobs_case(snapshot_dir: Path, name: str, build: Callable[[list[Obj]], list[Obj]]) -> Path:
    """cluster.json (the snapshot's items as `build` leaves them) and jobs.json (the jobs it returns)
    under `snapshot_dir/name`, kept when newer than the snapshot."""
    out = snapshot_dir / name
    cluster = snapshot_dir / "cluster.json"
    done = out / "jobs.json"
    if done.exists() and done.stat().st_mtime >= cluster.stat().st_mtime:
        return out
    out.mkdir(exist_ok=True)
    doc = autoscaler_case.read_json(cluster)
    jobs = build(doc["items"])
    autoscaler_case.write_json(out / "cluster.json", doc)
    autoscaler_case.write_json(done, {"apiVersion": "v1", "kind": "List", "items": jobs})
    return out


def write_case(snapshot_dir: Path, pending: int, admitted: int) -> Path:
    """The Kueue objects and admitted Workloads added to the snapshot, the pending Jobs beside it
    (`snapshot_dir/kueue-P-A`)."""
    def added(items: list[Obj]) -> list[Obj]:
        kueue, jobs = build(pending, admitted)
        items.extend(kueue)
        return jobs
    return write_jobs_case(snapshot_dir, f"kueue-{pending}-{admitted}", added)


def command(case: Path, suggestions: bool = True, kexplain: Path = KEXPLAIN) -> list[str]:
    return [str(kexplain), "kueue", str(case / "jobs.json"), "--nodes", str(case / "cluster.json"), "--now", NOW,
            "-o", "json", *(() if suggestions else ("--no-suggestions",))]


def ratio_row(name: str, argv: Sequence[str], files: Sequence[Path], pairs: int) -> Row:
    """The median over `pairs` alternating pairs of (command wall) / (json.load wall of `files`),
    with the CPU seconds of both (the ratio a loaded machine distorts least) in the detail."""
    run(argv)                                           # warm-up: bytecode, page cache
    ratios, cpu_ratios, peaks, walls, loads, cpus, load_cpus = [], [], [], [], [], [], []
    for _ in range(pairs):
        base = run([PYTHON, "-c", JSON_LOAD, *map(str, files)])
        got = run(argv)
        if got.code not in (0, 1):
            raise RuntimeError(f"{' '.join(argv)} exited with {got.code}")
        ratios.append(got.wall / base.wall)
        cpu_ratios.append(got.cpu / base.cpu)
        peaks.append(got.peak_mb)
        walls.append(got.wall)
        loads.append(base.wall)
        cpus.append(got.cpu)
        load_cpus.append(base.cpu)
    median = statistics.median
    detail = (f"command {median(walls):.2f} s, json.load {median(loads):.2f} s "
              f"(ratios {', '.join(f'{r:.2f}' for r in ratios)}); CPU {median(cpus):.2f} s vs {median(load_cpus):.2f} s "
              f"= {median(cpu_ratios):.2f}x (ratios {', '.join(f'{r:.2f}' for r in cpu_ratios)})")
    return Row(name, median(ratios), "x", TARGET, max(peaks), detail)


def options(doc: str) -> argparse.ArgumentParser:
    """The options of the Kueue benchmarks (this one's and kueue_tas_bench's), described by `doc`."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kexplain-bench"))
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--pending", type=int, default=1000)
    parser.add_argument("--no-suggestions", action="store_true", help="time the command without its suggestions")
    parser.add_argument("--write-only", action="store_true", help="write the case, print its path, time nothing")
    parser.add_argument("--kexplain", type=Path, default=KEXPLAIN, help="the kexplain to time (another build's)")
    return parser


def time_case(case: Path, name: str, args: argparse.Namespace) -> int:
    """`kexplain kueue` over the case against json.load of its two files, printed as a row."""
    if args.write_only:
        print(case)
        return 0
    start = os.getloadavg()[0]
    row = ratio_row(name if not args.no_suggestions else f"{name} -S",
                    command(case, not args.no_suggestions, args.kexplain),
                    [case / "jobs.json", case / "cluster.json"], args.pairs)
    print(f"load average {start:.2f} at the start")
    print(autoscaler_case.header(case, load=True))
    print(row.line())
    print(f"peak RSS {row.peak_mb:.0f} MB: {autoscaler_case.peak_verdict(row)} (<= {autoscaler_case.PEAK_MB:.0f} MB)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = options(__doc__)
    parser.add_argument("--admitted", type=int, default=5000)
    args = parser.parse_args(argv)
    return time_case(write_case(ensure_snapshot(args.dir, args.nodes), args.pending, args.admitted), "kueue", args)


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark `kexplain volcano` at cluster scale (issue 93's target).

One JSON List (as a JSON list of a cluster's objects is written: no resourceVersion, so every core
object goes through admission) of N Nodes, each with a DaemonSet's pod of the default scheduler,
Q Queues (weights, some with a capability, one Closed), two PriorityClasses, and J Volcano jobs of T
tasks in all, written as Volcano's job controller writes them: a PodGroup per job (`<job>-<job uid>`,
owned by the Job, `minMember` and `minTaskMember` from the tasks' minAvailable, `minResources` as
`calcPGMinResources` sums the tasks' quota usage) and its pods (`schedulerName: volcano`, the
`scheduling.k8s.io/group-name` annotation and the controller's labels), one to three roles a job.
About one job in six is running (its pods bound, its PodGroup `Running`); some gangs fit, some do
not (the cluster is about full, a few tasks larger than any node, a few jobs larger than their
queue's capability). The command

    kexplain volcano --nodes cluster.json -o json --no-suggestions

(the session alone: each waiting PodGroup's fixes run it again) is timed against the standard
library's `json.load` of the same file, each in a fresh process, as alternating pairs (the median
ratio, wall and CPU; `kueue_bench.ratio_row`); target at most 2x, peak RSS at most 1 GB.

    .venv/bin/python benchmarks/volcano_bench.py [--style standard|small|gang|hetero] [--nodes 1000]
        [--jobs 200] [--tasks 5000] [--queues 20] [--seed 93] [--pairs 3] [--dir /tmp/kexplain-bench]
        [--kexplain PATH] [--write-only]

Styles: `standard` the shape above (the engine's design target); `small` many small jobs (by
default 2,500 jobs of two tasks); `gang` one gang of every task (`minMember` all of them, asking
85% of the free CPUs: more than the untainted nodes hold; allocate places thousands, then the gang
rolls back); `hetero` nodes in
pools and zones with taints, cordoned and NotReady nodes, and tasks with node selectors,
tolerations, required zone affinity and a hostname anti-affinity among a job's pods.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import os
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import autoscaler_case  # noqa: E402
from kueue_bench import ratio_row, uid as new_uid  # noqa: E402
from load_bench import KEXPLAIN, Row  # noqa: E402

TARGET = 2.0            # x json.load of the input file
PEAK_MB = 1024.0
STYLES = ("standard", "small", "gang", "hetero")
VOLCANO_SCHEDULING = "scheduling.volcano.sh/v1beta1"
VOLCANO_BATCH = "batch.volcano.sh/v1alpha1"
GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
GPU = "nvidia.com/gpu"
GPU_TAINT = {"key": GPU, "value": "present", "effect": "NoSchedule"}
HIGHMEM_TAINT = {"key": "dedicated", "value": "highmem", "effect": "NoSchedule"}
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
NAMESPACES = tuple(f"team-{i:02d}" for i in range(10))
# pool, cpu cores, memory Gi, GPUs, share of the nodes (standard); hetero adds highmem
POOLS = (("cpu-a", 32, 128, 0, 0.6), ("cpu-b", 64, 256, 0, 0.3), ("gpu", 48, 384, 8, 0.1))
HETERO_POOLS = (("cpu-a", 16, 64, 0, 0.35), ("cpu-b", 64, 256, 0, 0.3), ("highmem", 32, 1024, 0, 0.15),
                ("gpu", 48, 384, 8, 0.2))

Obj = dict[str, Any]


@dataclass(frozen=True)
class Shape:
    style: str
    nodes: int
    jobs: int
    tasks: int
    queues: int
    seed: int

    @property
    def name(self) -> str:
        return f"volcano-{self.style}-n{self.nodes}-j{self.jobs}-t{self.tasks}-q{self.queues}-s{self.seed}"


@dataclass
class Gen:
    """The generator's state: the random stream, the clock of creation times, the nodes' free room
    (for the running jobs' pods) and the objects written so far."""

    rng: random.Random
    shape: Shape
    clock: int = 0
    free: list[list[Any]] = dataclasses.field(default_factory=list)   # [name, cpu, mem Gi, gpus, pool, zone]
    items: list[Obj] = dataclasses.field(default_factory=list)

    def meta(self, name: str, namespace: str | None = None, **rest: Any) -> Obj:
        self.clock += 1
        out: Obj = {"name": name}
        if namespace is not None:
            out["namespace"] = namespace
        out.update(creationTimestamp=stamp(self.clock), uid=new_uid(self.rng), **rest)
        return out


def stamp(second: int) -> str:
    return f"2026-01-01T{second // 3600 % 24:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"


def node(gen: Gen, index: int, pools: tuple[tuple[str, int, int, int, float], ...]) -> Obj:
    """A Node of a pool drawn by share (taints on the GPU and highmem pools); in `hetero` 2%
    cordoned and 2% NotReady."""
    draw, acc = gen.rng.random(), 0.0
    pool, cpu, mem, gpus = pools[-1][:4]
    for p, c, m, g, share in pools:
        acc += share
        if draw < acc:
            pool, cpu, mem, gpus = p, c, m, g
            break
    zone = ZONES[index % len(ZONES)]
    name = f"{pool}-{index:05d}"
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
              "topology.kubernetes.io/zone": zone, "topology.kubernetes.io/region": "us-east-1",
              "node.kubernetes.io/instance-type": f"{pool}-{cpu}c{mem}g", "pool": pool}
    spec: Obj = {}
    taints = [GPU_TAINT] if gpus else [HIGHMEM_TAINT] if pool == "highmem" else []
    hetero = gen.shape.style == "hetero"
    if taints:
        spec["taints"] = list(taints)
    if hetero and index % 50 == 7:
        spec["unschedulable"] = True
    capacity = {"cpu": str(cpu), "memory": f"{mem}Gi", "pods": "110", "ephemeral-storage": "203057515Ki"}
    allocatable = {"cpu": f"{cpu * 1000 - 150}m", "memory": f"{mem * 1024 * 1024 - 600 * 1024}Ki", "pods": "110",
                   "ephemeral-storage": "191630322068"}
    if gpus:
        capacity[GPU] = allocatable[GPU] = str(gpus)
    ready = "False" if hetero and index % 50 == 23 else "True"
    out = {"apiVersion": "v1", "kind": "Node", "metadata": gen.meta(name, labels=labels), "spec": spec,
           "status": {"capacity": capacity, "allocatable": allocatable, "conditions": [
               {"type": "Ready", "status": ready, "reason": "KubeletReady" if ready == "True" else "KubeletNotReady"}]}}
    if not spec.get("unschedulable") and ready == "True":
        gen.free.append([name, cpu - 1, mem - 2, gpus, pool, zone])     # the DaemonSet's pod and slack
    return out


def daemon_pod(gen: Gen, node_name: str) -> Obj:
    """A DaemonSet's pod of the default scheduler on `node_name` (room Volcano counts as used)."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": gen.meta(
        f"node-agent-{node_name}", "kube-system", labels={"app": "node-agent"},
        ownerReferences=[{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "node-agent",
                          "uid": "e75225f0-8530-4634-a7aa-abc543230116", "controller": True,
                          "blockOwnerDeletion": True}]),
            "spec": {"schedulerName": "default-scheduler", "nodeName": node_name, "tolerations": [
                {"operator": "Exists"}], "containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10",
                                                         "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}}}]},
            "status": {"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"}]}}


def queue(gen: Gen, index: int, cluster_cpu: int) -> Obj:
    """A Queue: weight 1-5; one in three with a capability (a share of the cluster's CPUs); the last
    of more than three Closed."""
    spec: Obj = {"weight": gen.rng.randint(1, 5), "reclaimable": index % 4 != 3}
    if index % 3 == 1:
        cpu = max(8, cluster_cpu * gen.rng.randint(2, 8) // 100)
        spec["capability"] = {"cpu": str(cpu), "memory": f"{cpu * 4}Gi"}
    closed = index == gen.shape.queues - 1 and gen.shape.queues > 3
    return {"apiVersion": VOLCANO_SCHEDULING, "kind": "Queue", "metadata": gen.meta(f"q-{index:02d}"),
            "spec": spec, "status": {"state": "Closed" if closed else "Open"}}


def priority_classes(gen: Gen) -> list[Obj]:
    return [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": gen.meta(name), "value": value,
             "description": f"{name} priority batch jobs"} for name, value in (("batch-high", 1000), ("batch-low", 100))]


def job_sizes(gen: Gen) -> list[int]:
    """The tasks of each job, at least one, `shape.tasks` in all (exponentially spread)."""
    jobs, tasks = gen.shape.jobs, max(gen.shape.tasks, gen.shape.jobs)
    weights = [gen.rng.expovariate(1.0) for _ in range(jobs)]
    total = sum(weights)
    sizes = [1 + int((tasks - jobs) * w / total) for w in weights]
    for _ in range(tasks - sum(sizes)):
        sizes[gen.rng.randrange(jobs)] += 1
    return sizes


@dataclass(frozen=True)
class Role:
    """A task of a Volcano Job: its replicas and minAvailable, what one pod requests, its placement."""

    name: str
    replicas: int
    min_available: int
    cpu: int
    mem: int
    gpus: int
    placement: tuple[tuple[str, Any], ...] = ()


def roles(gen: Gen, size: int) -> list[Role]:
    """One to three roles of `size` pods; a gang needs all, or (two in five) fewer workers; one in
    ten a GPU job; one in thirty asks more CPUs than any node has."""
    rng = gen.rng
    gpus = rng.choice((1, 2, 4, 8)) if rng.random() < 0.1 else 0
    cpu = 96 if rng.random() < 1 / 30 else rng.choice((1, 2, 4, 8, 16)) if not gpus else 4 * gpus
    mem = cpu * rng.choice((2, 4))
    partial = rng.random() < 0.4
    if size >= 4 and rng.random() < 0.6:
        lead = rng.choice(("master", "ps"))
        leads = 1 if lead == "master" else min(size - 2, rng.randint(2, 4))
        out = [Role(lead, leads, leads, max(1, cpu // 2), max(1, mem // 2), 0),
               Role("worker", size - leads, (size - leads + 1) // 2 if partial else size - leads, cpu, mem, gpus)]
    else:
        out = [Role("worker", size, max(1, size // 2) if partial and size > 1 else size, cpu, mem, gpus)]
    if gen.shape.style == "hetero":
        out = [dataclasses.replace(r, placement=placement(gen, r)) for r in out]
    return out


def placement(gen: Gen, role: Role) -> tuple[tuple[str, Any], ...]:
    """hetero: a pool selected (a GPU role on the GPU pool), a toleration of the highmem taint, a
    required zone, a hostname anti-affinity among the job's pods of this role."""
    rng, out = gen.rng, []
    if role.gpus:
        out.append(("nodeSelector", {"pool": "gpu"}))
    elif rng.random() < 0.3:
        out.append(("nodeSelector", {"pool": rng.choice(("cpu-a", "cpu-b", "highmem"))}))
    if rng.random() < 0.3:
        out.append(("tolerations", [{"key": "dedicated", "operator": "Equal", "value": "highmem",
                                     "effect": "NoSchedule"}]))
    if rng.random() < 0.25:
        zones = rng.sample(ZONES, rng.randint(1, 2))
        out.append(("affinity", {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": sorted(zones)}]}]}}}))
    elif rng.random() < 0.15:
        out.append(("antiAffinity", True))
    return tuple(out)


def usage(role: Role, count: int) -> dict[str, int]:
    """`count` pods' quota usage (GetPodQuotaUsage: count/pods, pods, cpu and memory plain and as
    requests.*, an extended resource both ways)."""
    out = {"count/pods": count, "cpu": role.cpu * count, "memory": role.mem * count, "pods": count,
           "requests.cpu": role.cpu * count, "requests.memory": role.mem * count}
    if role.gpus:
        out[GPU] = out[f"requests.{GPU}"] = role.gpus * count
    return out


def min_resources(tasks: list[Role]) -> Obj:
    """calcPGMinResources with the job's minAvailable the sum of its tasks' (CalcPGMinResources: each
    task's minAvailable pods)."""
    total: dict[str, int] = {}
    for role in tasks:
        for key, value in usage(role, role.min_available).items():
            total[key] = total.get(key, 0) + value
    return {k: (f"{v}Gi" if k.endswith("memory") else str(v)) for k, v in sorted(total.items())}


def bind_running(gen: Gen, tasks: list[Role]) -> list[str] | None:
    """Nodes for every pod of a running job (first fit from a random node), the room taken; None
    (nothing taken) when they do not all fit."""
    taken: list[tuple[list[Any], Role]] = []
    start = gen.rng.randrange(len(gen.free)) if gen.free else 0
    order = gen.free[start:] + gen.free[:start]
    out = []
    for role in tasks:
        for _ in range(role.replicas):
            spot = next((f for f in order if f[1] >= role.cpu and f[2] >= role.mem and f[3] >= role.gpus
                         and (role.gpus > 0) == (f[4] == "gpu")), None)
            if spot is None:
                for f, r in taken:
                    f[1], f[2], f[3] = f[1] + r.cpu, f[2] + r.mem, f[3] + r.gpus
                return None
            spot[1], spot[2], spot[3] = spot[1] - role.cpu, spot[2] - role.mem, spot[3] - role.gpus
            taken.append((spot, role))
            out.append(spot[0])
    return out


def pod_spec(role: Role, job: str, index: int, priority: str | None, node_name: str | None) -> Obj:
    requests: Obj = {"cpu": str(role.cpu), "memory": f"{role.mem}Gi"}
    resources: Obj = {"requests": requests}
    spec: Obj = {"schedulerName": "volcano", "restartPolicy": "Never"}
    if role.gpus:
        requests[GPU] = str(role.gpus)
        resources["limits"] = {GPU: str(role.gpus)}
        spec["tolerations"] = [{"key": GPU, "operator": "Exists", "effect": "NoSchedule"}]
    if priority:
        spec["priorityClassName"] = priority
    for key, value in role.placement:
        if key == "antiAffinity":
            spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"volcano.sh/job-name": job, "volcano.sh/task-spec": role.name}},
                 "topologyKey": "kubernetes.io/hostname"}]}}
        elif key == "tolerations":
            spec["tolerations"] = [*spec.get("tolerations", ()), *value]
        else:
            spec[key] = value
    spec["containers"] = [{"name": role.name, "image": f"ghcr.io/example/{role.name}:1.4.{index % 7}",
                           "resources": resources}]
    if node_name:
        spec["nodeName"] = node_name
    return spec


def job(gen: Gen, index: int, size: int, queues: list[str], given: list[Role] | None = None) -> None:
    """One Volcano Job's PodGroup and pods, as its controller writes them (of the `given` tasks, else
    drawn); about one in six running (bound), when its pods fit where the running ones are put."""
    rng = gen.rng
    name = f"{rng.choice(('train', 'bert', 'resnet', 'etl', 'sim', 'rl'))}-{index:04d}-{new_uid(rng)[:5]}"
    job_uid, namespace = new_uid(rng), NAMESPACES[index % len(NAMESPACES)]
    queue_name = queues[index % len(queues)]
    priority = rng.choice((None, None, None, "batch-high", "batch-low"))
    tasks = given or roles(gen, size)
    running = given is None and rng.random() < 1 / 6 and queue_name != queues[-1]
    nodes = bind_running(gen, tasks) if running else None
    owner = [{"apiVersion": VOLCANO_BATCH, "kind": "Job", "name": name, "uid": job_uid, "controller": True,
              "blockOwnerDeletion": True}]
    group = f"{name}-{job_uid}"
    spec: Obj = {"minMember": sum(r.min_available for r in tasks),
                 "minTaskMember": {r.name: r.min_available for r in tasks}, "queue": queue_name,
                 "minResources": min_resources(tasks)}
    if priority:
        spec["priorityClassName"] = priority
    status: Obj = {"phase": "Running", "running": size} if nodes else {"phase": "Pending"}
    gen.items.append({"apiVersion": VOLCANO_SCHEDULING, "kind": "PodGroup",
                      "metadata": gen.meta(group, namespace, ownerReferences=owner), "spec": spec, "status": status})
    placed = iter(nodes or ())
    for role in tasks:
        for i in range(role.replicas):
            labels = {"volcano.sh/job-name": name, "volcano.sh/job-namespace": namespace,
                      "volcano.sh/queue-name": queue_name, "volcano.sh/task-spec": role.name,
                      "volcano.sh/job-retry-count": "0"}
            annotations = {"volcano.sh/task-index": str(i), "volcano.sh/task-spec": role.name,
                           GROUP_ANNOTATION: group, "volcano.sh/job-name": name, "volcano.sh/queue-name": queue_name,
                           "volcano.sh/job-version": "0", "volcano.sh/template-uid": f"{name}-{role.name}",
                           "volcano.sh/job-retry-count": "0"}
            node_name = next(placed, None)
            pod_status: Obj = ({"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"}]}
                               if node_name else {"phase": "Pending"})
            gen.items.append({"apiVersion": "v1", "kind": "Pod", "metadata": gen.meta(
                f"{name}-{role.name}-{i}", namespace, labels=labels, annotations=annotations, ownerReferences=owner),
                "spec": pod_spec(role, name, i, priority, node_name), "status": pod_status})


def gang_roles(gen: Gen) -> list[Role]:
    """`gang`: one job of every task, all in its gang: a launcher and workers that ask, together,
    about 85% of the cluster's free CPUs (enqueue admits it), more than the untainted nodes hold
    in workers of that size (allocate places thousands, then rolls the gang back)."""
    tasks = gen.shape.tasks
    cpus = sum(f[1] for f in gen.free)
    cpu = max(1, math.ceil(cpus * 0.85 / max(1, tasks - 1)))
    return [Role("launcher", 1, 1, 2, 4, 0), Role("worker", tasks - 1, tasks - 1, cpu, 2 * cpu, 0)]


def build(shape: Shape) -> list[Obj]:
    """Every object of the cluster, in the order a dump lists them (nodes and their DaemonSet pods,
    namespaces, priority classes, queues, then each job's PodGroup and pods)."""
    gen = Gen(random.Random(shape.seed), shape)
    pools = HETERO_POOLS if shape.style == "hetero" else POOLS
    for i in range(shape.nodes):
        gen.items.append(node(gen, i, pools))
        gen.items.append(daemon_pod(gen, gen.items[-1]["metadata"]["name"]))
    for ns in ("kube-system", *NAMESPACES):
        gen.items.append({"apiVersion": "v1", "kind": "Namespace", "metadata": gen.meta(
            ns, labels={"kubernetes.io/metadata.name": ns}), "status": {"phase": "Active"}})
    gen.items.extend(priority_classes(gen))
    cluster_cpu = sum(f[1] for f in gen.free)
    queues = [queue(gen, i, cluster_cpu) for i in range(shape.queues)]
    gen.items.extend(queues)
    names = [q["metadata"]["name"] for q in queues]
    if shape.style == "gang":
        job(gen, 0, shape.tasks, names[:1], gang_roles(gen))
        return gen.items
    for index, size in enumerate(job_sizes(gen)):
        job(gen, index, size, names)
    return gen.items


def write_case(base: Path, shape: Shape) -> Path:
    """`base/<shape name>/cluster.json`, one JSON List (compact), kept when written already."""
    out = base / shape.name
    cluster = out / "cluster.json"
    if not cluster.exists():
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / "cluster.tmp"
        autoscaler_case.write_json(tmp, {"apiVersion": "v1", "kind": "List", "items": build(shape)})
        tmp.replace(cluster)
    return out


def command(case: Path, kexplain: Path = KEXPLAIN) -> list[str]:
    return [str(kexplain), "volcano", "--nodes", str(case / "cluster.json"), "-o", "json", "--no-suggestions"]


DEFAULT_JOBS = {"standard": 200, "small": 2500, "gang": 1, "hetero": 200}


def options() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--style", choices=STYLES, default="standard")
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=None, help="jobs (default: 200; small 2,500; gang 1)")
    parser.add_argument("--tasks", type=int, default=5000)
    parser.add_argument("--queues", type=int, default=20)
    parser.add_argument("--seed", type=int, default=93)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kexplain-bench"))
    parser.add_argument("--kexplain", type=Path, default=KEXPLAIN, help="the kexplain to time (another build's)")
    parser.add_argument("--write-only", action="store_true", help="write the case, print its path, time nothing")
    return parser


def shape_of(args: argparse.Namespace) -> Shape:
    jobs = DEFAULT_JOBS[args.style] if args.jobs is None else args.jobs
    if args.style == "gang":
        jobs = 1
    return Shape(args.style, args.nodes, max(1, jobs), max(2, args.tasks), max(1, args.queues), args.seed)


def main(argv: list[str] | None = None) -> int:
    args = options().parse_args(argv)
    shape = shape_of(args)
    case = write_case(args.dir, shape)
    if args.write_only:
        print(case)
        return 0
    start = os.getloadavg()[0]
    row = dataclasses.replace(ratio_row(f"volcano {shape.style}", command(case, args.kexplain),
                                        [case / "cluster.json"], args.pairs), target=TARGET)
    print(f"load average {start:.2f} at the start")
    print(autoscaler_case.header(case, load=True))
    print(row.line())
    verdict = "ok" if row.value <= TARGET and row.peak_mb <= PEAK_MB else "MISSED"
    print(f"volcano {shape.style}: {row.value:.2f}x json.load (<= {TARGET:g}x), peak RSS {row.peak_mb:.0f} MB "
          f"(<= {PEAK_MB:.0f} MB): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

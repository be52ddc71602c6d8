"""Benchmark the Cluster Autoscaler's loop where a pod is explained (issue 37's speed target).

`kexplain POD` with --node-groups, `kexplain pod NAME` and `kexplain pod --pending` each run
CA's loop over EVERY pending pod (the pending pass), so on the 5,000-node / 30-group snapshot of
`autoscale_bench.py` with 500 pending pods each row times one command against a bare `json.load`
of the cluster file (the median of alternating pairs); target at most 3x (issue 40: 1.5x), peak
RSS at most 1.5 GB:

- `explain set`: `kexplain pods.yaml --nodes cluster.json --node-groups nodegroups.yaml -o json`,
  the 500 pending pods in the file (each explained by the scheduler, then one loop over all);
- `explain own`: `kexplain pod.yaml --nodes cluster-pending.json --node-groups ... -o json`, one
  pod explained, the 500 pending pods the snapshot's own (the loop over all of them, and the
  node-group suggestions verified by running it again);
- `live pod`, `live pending`: the same cluster served by the stand-in API server
  (`live_standin.py`) with its 500 pending pods: `kexplain pod NAME -n team-00 --node-groups ...
  -o json`, and `kexplain pod --pending -A --node-groups ...` (its table: -o json adds a
  trace of 5,000 nodes per pod, which `bench.py`'s rows time).

Two generators of pending pods: `standin` (`live_standin.pending_pods`: the benchmark's web pod,
its unschedulable variant and plain pods, 20 shapes, one namespace) and `owned` (`owned_pods`
here: pods of Deployments, StatefulSets and Jobs in ten namespaces, with zone and instance-type
selectors, GPU and batch tolerations, preferred node affinity, zone spread, pod affinity to a
running app, a few that no group can take).

    .venv/bin/python benchmarks/ca_pending_bench.py [--dir /tmp/kexplain-bench] [--nodes 5000] [--pairs 3]
        [--pending 500] [--generator standin|owned|both] [--rows explain-set,explain-own,live-pod,live-pending]
        [--cluster-shape generated|plain]

`--cluster-shape plain`: on `plain_list.py --stored`'s cluster (issue 55's shape), its nodes in
`autoscale_bench.py`'s 30 groups by index.
"""
from __future__ import annotations

import copy
import os
import sys
from pathlib import Path
from typing import Any, Callable

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

import autoscaler_case  # noqa: E402
import live_standin  # noqa: E402
from autoscale_bench import write_case  # noqa: E402
from autoscaler_case import peak_verdict, read_json, write_json, yaml_text  # noqa: E402
from generate import ZONES  # noqa: E402
from load_bench import KEXPLAIN, ratio_row, standin  # noqa: E402

TARGET = 3.0
ROWS = ("explain-set", "explain-own", "live-pod", "live-pending")

Obj = dict[str, Any]


def owned_pods(count: int, shapes: int = 24) -> list[Obj]:
    """`count` pending pods of `shapes` shapes, round robin, each owned by a controller (a
    Deployment's ReplicaSet, a StatefulSet, a Job) in one of ten namespaces, Pending with
    PodScheduled False."""
    kinds = [_owned_shape(s) for s in range(shapes)]
    out = []
    for i in range(count):
        pod = copy.deepcopy(kinds[i % shapes])
        meta = pod["metadata"]
        owner = meta["ownerReferences"][0]
        suffix = f"{i // shapes}" if owner["kind"] == "StatefulSet" else f"{i:05x}"
        meta.update(name=f"{owner['name']}-{suffix}", uid=f"00000000-0000-4000-a000-{i:012d}",
                    resourceVersion=str(950000 + i), creationTimestamp=f"2026-01-01T00:{4 + i % 50:02d}:00Z")
        pod["spec"].setdefault("schedulerName", "default-scheduler")
        pod["spec"].setdefault("priority", 0)
        pod["status"] = {"phase": "Pending", "conditions": [dict(live_standin.CONDITION)]}
        out.append(pod)
    return out


def _owned_shape(s: int) -> Obj:
    """Shape `s` of `owned_pods`: its owner, selectors, tolerations and requests."""
    namespace = f"team-{s % 10:02d}"
    app = f"owned-{s:02d}"
    kind = ("ReplicaSet", "StatefulSet", "Job")[s % 3]
    owner = {"apiVersion": "batch/v1" if kind == "Job" else "apps/v1", "kind": kind,
             "name": f"{app}-7d9f{s:02d}" if kind == "ReplicaSet" else app,
             "uid": f"00000000-0000-4000-b000-{s:012d}", "controller": True, "blockOwnerDeletion": True}
    labels = {"app": app, "tier": ("web", "worker", "batch")[s % 3]}
    cpu = ("250m", "1", "2500m", "6", "14", "40")[s % 6]          # the last: no node or group has it
    spec: Obj = {"containers": [{"name": "main", "image": f"registry.example/{app}:1.{s}.0",
                                 "resources": {"requests": {"cpu": cpu, "memory": f"{512 * (1 + s % 4)}Mi"}}}]}
    if s % 4 == 0:
        spec["nodeSelector"] = {"topology.kubernetes.io/zone": ZONES[s % len(ZONES)]}
    elif s % 4 == 1:
        spec["nodeSelector"] = {"node.kubernetes.io/instance-type": ("m5.4xlarge", "m5.8xlarge", "c5.9xlarge")[s % 3]}
    if s % 5 == 0:
        spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    elif s % 5 == 1:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}]
        spec["nodeSelector"] = {**spec.get("nodeSelector", {}), "dedicated": "batch"}
    if s % 6 == 2:
        spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 50, "preference": {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["compute"]}]}}]}}
    if s % 6 == 3:
        spec["topologySpreadConstraints"] = [
            {"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": app}}}]
    if s % 8 == 5:
        spec["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": f"app-{s:03d}"}}, "topologyKey": "topology.kubernetes.io/zone"}]}}
    if kind == "Job":
        spec["restartPolicy"] = "Never"
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": app, "namespace": namespace, "labels": labels, "ownerReferences": [owner]},
            "spec": spec}


GENERATORS: dict[str, Callable[[int, int], list[Obj]]] = {
    "standin": live_standin.pending_pods, "owned": lambda n, _shapes: owned_pods(n)}
# The pending pod explained alone (`explain own`, `live pod`): one no node takes, so that the
# command runs CA's loop (a pod that fits needs no autoscaler): the web pod's unschedulable
# variant, an owned pod of 40 CPUs.
EXPLAINED = {"standin": 1, "owned": 5}


def write_pending_case(case: Path, generator: str, pending: int, shapes: int) -> Path:
    """Under `case/<generator>`: pods.yaml (the pending pods, without status, as a file gives
    them), pod.yaml (a copy of the one `EXPLAINED` names, for `explain own`) and cluster-pending.json (the case's
    cluster with the pending pods in it); kept when newer than the case's cluster."""
    out = case / generator
    cluster = case / "cluster.json"
    done = out / "cluster-pending.json"
    out.mkdir(exist_ok=True)
    pods = GENERATORS[generator](pending, shapes)
    bare = [{k: v for k, v in p.items() if k != "status"} for p in pods]
    explained = copy.deepcopy(bare[EXPLAINED[generator]])
    explained["metadata"]["name"] += "-explained"
    explained["metadata"].pop("uid", None)
    (out / "pod.yaml").write_text(yaml_text([explained]), encoding="utf-8")
    if done.exists() and done.stat().st_mtime >= cluster.stat().st_mtime:
        return out
    (out / "pods.yaml").write_text(yaml_text(bare), encoding="utf-8")
    doc = read_json(cluster)
    doc["items"] += pods
    write_json(done, doc)
    return out


def groups_args(case: Path) -> list[str]:
    return ["--node-groups", str(case / "nodegroups.yaml"), "-o", "json"]


def main(argv: list[str] | None = None) -> int:
    parser = autoscaler_case.parser(__doc__)
    parser.add_argument("--generator", choices=(*GENERATORS, "both"), default="both")
    parser.add_argument("--rows", default=",".join(ROWS), help="comma-separated, of " + ", ".join(ROWS))
    args = parser.parse_args(argv)
    rows = [r for r in args.rows.split(",") if r]
    unknown = set(rows) - set(ROWS)
    if unknown:
        parser.error(f"unknown rows: {', '.join(sorted(unknown))}")
    case = write_case(autoscaler_case.snapshot(args), args.pending, args.shapes)
    data = case / "cluster.json"
    print(autoscaler_case.header(case, load=True), flush=True)
    for generator in GENERATORS if args.generator == "both" else (args.generator,):
        sub = write_pending_case(case, generator, args.pending, args.shapes)
        results = []
        if "explain-set" in rows:
            results.append(ratio_row(f"{generator} set", [str(KEXPLAIN), str(sub / "pods.yaml"), "--nodes", str(data),
                                                         *groups_args(case)], data, args.pairs, TARGET))
        if "explain-own" in rows:
            results.append(ratio_row(f"{generator} own", [str(KEXPLAIN), str(sub / "pod.yaml"), "--nodes",
                                                         str(sub / "cluster-pending.json"), *groups_args(case)],
                                     data, args.pairs, TARGET))
        live = [r for r in rows if r.startswith("live-")]
        if live:
            first = GENERATORS[generator](EXPLAINED[generator] + 1, args.shapes)[-1]["metadata"]
            with _served(generator, data, sub, args.pending, args.shapes) as kubeconfig:
                common = ["--kubeconfig", str(kubeconfig), *groups_args(case)]
                if "live-pod" in rows:
                    results.append(ratio_row(f"{generator} live pod", [str(KEXPLAIN), "pod", first["name"], "-n",
                                                                      first["namespace"], *common],
                                             data, args.pairs, TARGET))
                if "live-pending" in rows:      # the table, as load_bench.py's --pending row
                    results.append(ratio_row(f"{generator} live -A", [str(KEXPLAIN), "pod", "--pending", "-A",
                                                                     *common[:4]], data, args.pairs, TARGET))
        for row in results:
            print(row.line() + f"  peak {peak_verdict(row)}", flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return 0


def _served(generator: str, data: Path, sub: Path, pending: int, shapes: int):
    """The stand-in API server: for `standin`, the case's cluster with its own pending pods;
    for another generator, the case's cluster-pending.json as it is (no pods added)."""
    if generator == "standin":
        return standin(data, sub, pending, shapes)
    return standin(sub / "cluster-pending.json", sub, 0, shapes)


if __name__ == "__main__":
    sys.exit(main())

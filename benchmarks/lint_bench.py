"""Benchmark `kexplain lint`: objects per second, schema only and schema + scheduling.

Generates, in a temporary directory, a corpus of manifests (10,000 by default: one object per
file, in 100 directories; Deployments, StatefulSets, Jobs, Pods, Services, ConfigMaps, Secrets,
ServiceAccounts and Ingresses, a few of them invalid) and a pool of nodes with bound pods, then
lints the corpus twice in this process: without and with --nodes. Prints the figures the
README records.

    .venv/bin/python benchmarks/lint_bench.py [--manifests 10000] [--nodes 20] [--bound-pods 100]
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kexplain.lint.linter import LintOptions, Linter  # noqa: E402

ZONES = ("zone-a", "zone-b", "zone-c")
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def container(rng: random.Random, name: str) -> dict:
    return {"name": name, "image": f"registry.example/{name}:1.{rng.randint(0, 9)}",
            "ports": [{"containerPort": 8080, "name": "http"}],
            "env": [{"name": "LOG_LEVEL", "value": "info"}],
            "resources": {"requests": {"cpu": f"{rng.choice((50, 100, 250, 500))}m",
                                       "memory": f"{rng.choice((64, 128, 256, 512))}Mi"},
                          "limits": {"memory": "1Gi"}},
            "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"}, "periodSeconds": 10}}


def pod_spec(rng: random.Random, app: str) -> dict:
    spec: dict = {"containers": [container(rng, app)]}
    roll = rng.random()
    if roll < 0.2:
        spec["nodeSelector"] = {"topology.kubernetes.io/zone": rng.choice(ZONES)}
    elif roll < 0.3:
        spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}]
    elif roll < 0.4:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"app": app}}}]
    elif roll < 0.45:
        spec["containers"][0]["resources"]["requests"]["cpu"] = "64"      # fits nowhere
    return spec


def manifest(rng: random.Random, i: int) -> dict:
    app = f"app-{i}"
    meta = {"name": app, "namespace": f"team-{i % 7}", "labels": {"app": app}}
    template = {"metadata": {"labels": {"app": app}}, "spec": pod_spec(rng, app)}
    kind = rng.choices(("Deployment", "StatefulSet", "Job", "Pod", "Service", "ConfigMap", "Secret",
                        "ServiceAccount", "Ingress"), weights=(30, 8, 5, 7, 20, 15, 5, 5, 5))[0]
    if kind == "Deployment":
        obj = {"apiVersion": "apps/v1", "kind": kind, "metadata": meta,
               "spec": {"replicas": rng.randint(1, 4), "selector": {"matchLabels": {"app": app}}, "template": template}}
    elif kind == "StatefulSet":
        obj = {"apiVersion": "apps/v1", "kind": kind, "metadata": meta,
               "spec": {"replicas": rng.randint(1, 3), "serviceName": app, "selector": {"matchLabels": {"app": app}},
                        "template": template}}
    elif kind == "Job":
        template["spec"]["restartPolicy"] = "Never"
        obj = {"apiVersion": "batch/v1", "kind": kind, "metadata": meta,
               "spec": {"parallelism": rng.randint(1, 3), "template": template}}
    elif kind == "Pod":
        obj = {"apiVersion": "v1", "kind": kind, "metadata": meta, "spec": template["spec"]}
    elif kind == "Service":
        obj = {"apiVersion": "v1", "kind": kind, "metadata": meta,
               "spec": {"selector": {"app": app}, "ports": [{"port": 80, "targetPort": "http"}]}}
    elif kind in ("ConfigMap", "Secret"):
        obj = {"apiVersion": "v1", "kind": kind, "metadata": meta,
               ("data" if kind == "ConfigMap" else "stringData"): {"config.yaml": "key: value\n"}}
    elif kind == "ServiceAccount":
        obj = {"apiVersion": "v1", "kind": kind, "metadata": meta}
    else:
        obj = {"apiVersion": "networking.k8s.io/v1", "kind": kind, "metadata": meta,
               "spec": {"rules": [{"host": f"{app}.example", "http": {"paths": [{
                   "path": "/", "pathType": "Prefix",
                   "backend": {"service": {"name": app, "port": {"number": 80}}}}]}}]}}
    if rng.random() < 0.02:      # a few schema errors
        obj["metadata"]["labels"] = ["not", "a", "map"]
    return obj


def pool(rng: random.Random, nodes: int, bound: int) -> list[dict]:
    out: list[dict] = []
    for n in range(nodes):
        labels = {"kubernetes.io/hostname": f"node-{n}", "topology.kubernetes.io/zone": ZONES[n % 3]}
        node: dict = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{n}", "labels": labels},
                      "status": {"capacity": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}
        if n % 10 == 9:
            node["spec"] = {"taints": [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]}
        out.append(node)
    for p in range(bound):
        out.append({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": f"running-{p}", "namespace": "prod", "labels": {"app": f"svc-{p % 25}"}},
                    "spec": {"nodeName": f"node-{rng.randrange(nodes)}",
                             "containers": [{"name": "c", "image": "x",
                                             "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}]}})
    return out


def generate(root: Path, manifests: int, nodes: int, bound: int, seed: int = 1) -> tuple[Path, Path]:
    rng = random.Random(seed)
    corpus = root / "corpus"
    for i in range(manifests):
        folder = corpus / f"dir-{i % 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m-{i:05d}.yaml").write_text(yaml.dump(manifest(rng, i), Dumper=DUMPER, sort_keys=False))
    pool_file = root / "pool.yaml"
    pool_file.write_text(yaml.dump_all(pool(rng, nodes, bound), Dumper=DUMPER, sort_keys=False))
    return corpus, pool_file


def run(options: LintOptions) -> tuple[float, float, int, int, dict]:
    """Wall-clock and CPU seconds (CPU time is steadier on a shared machine)."""
    start, cpu = time.perf_counter(), time.process_time()
    report = Linter(options).run()
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    return elapsed, cpu, report.objects, report.scheduled_objects, report.summary()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifests", type=int, default=10_000)
    parser.add_argument("--nodes", type=int, default=20)
    parser.add_argument("--bound-pods", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kexplain-lint-bench-") as tmp:
        t0 = time.perf_counter()
        corpus, pool_file = generate(Path(tmp), args.manifests, args.nodes, args.bound_pods)
        print(f"corpus: {args.manifests:,} manifests (one object per file) generated in "
              f"{time.perf_counter() - t0:.1f}s; pool: {args.nodes} nodes, {args.bound_pods} bound pods")
        print(f"machine: {platform.machine()}, {os.cpu_count()} cpus, Python {platform.python_version()}, "
              f"{platform.platform()}")
        elapsed, cpu, objects, _, summary = run(LintOptions(paths=(str(corpus),)))
        print(f"schema only:         {objects:,} objects in {elapsed:.1f}s = {objects / elapsed:,.0f} objects/s "
              f"(CPU {cpu:.1f}s = {objects / cpu:,.0f} objects/CPU-s; {summary['errors']} errors)")
        elapsed, cpu, objects, scheduled, summary = run(LintOptions(paths=(str(corpus),),
                                                                    node_paths=(str(pool_file),)))
        print(f"schema + scheduling: {objects:,} objects ({scheduled:,} scheduled, every replica) in {elapsed:.1f}s "
              f"= {objects / elapsed:,.0f} objects/s (CPU {cpu:.1f}s = {objects / cpu:,.0f} objects/CPU-s; "
              f"{summary['errors']} errors, {summary['warnings']} warnings)")


if __name__ == "__main__":
    main()

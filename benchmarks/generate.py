"""Generate a realistic large cluster snapshot and pending pods to explain against it.

The cluster looks like a big production one: N nodes (5,000 by default) in 3 zones of one
region, about 30 bound pods per node (two DaemonSet pods per node, the rest from a few hundred
Deployments in 20 namespaces; some apps with required or preferred pod anti-affinity, some with
a zone spread constraint), 8% of the nodes tainted (dedicated=batch, or gpu), 1% cordoned, plus
the ReplicaSets, Services, Namespaces and PriorityClasses that go with them. The same seed gives
the same files. That is the `classic` shape; `--shape teams` and `--shape wide` make clusters
of other kinds (`cluster_shapes.py`: another generator's content; preferences over label groups
thousands of pods share, many pod shapes, zones of uneven size).

Written to OUT (a directory):

- `cluster.yaml` and `cluster.json`: the snapshot, one `kind: List` (the same objects);
- `pod.yaml`: a pending pod with required and preferred pod anti-affinity, two topology spread
  constraints, required node affinity and a toleration; it fits;
- `pod-unschedulable.yaml`: the same pod asking for more CPU (34 cores) than any node has left, with a
  high priority: Unschedulable, and DefaultPreemption looks for victims on every node;
- `config-100.yaml`: a KubeSchedulerConfiguration with percentageOfNodesToScore: 100;
- `pod-plain.yaml`: a plain pod (requests and a nodeSelector only), for the many-copies row.

    .venv/bin/python benchmarks/generate.py OUT [--nodes 5000] [--shape classic|teams|wide|lean|heavy|kubectl]
        [--pods-per-node 30] [--seed 1] [--format both|yaml|json]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import uuid
from pathlib import Path
from typing import Any

import yaml

ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
REGION = "us-east-1"
INSTANCE_TYPES = (("m5.4xlarge", "16", "64Gi"), ("m5.8xlarge", "32", "128Gi"), ("c5.9xlarge", "36", "72Gi"))
NAMESPACES = tuple(f"team-{i:02d}" for i in range(20))
DAEMONSETS = ("kube-proxy", "node-exporter")
BENCH_APP = "bench-web"           # the pending pod's app; it already runs on some nodes
BENCH_NAMESPACE = "team-00"
CREATED = "2026-01-01T00:00:00Z"
TOPOLOGY_LABELS = ("topology.kubernetes.io/zone", "topology.kubernetes.io/region")


class DUMPER(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Writes shared objects out in full, as kubectl does: anchors and aliases for them would
    make most of a big snapshot aliases, which go-yaml (and kexplain) refuse as excessive."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

Obj = dict[str, Any]


def _uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


class App:
    """One Deployment: its pod template's traits, shared by all its pods."""

    def __init__(self, rng: random.Random, index: int) -> None:
        self.name = BENCH_APP if index == 0 else f"app-{index:03d}"
        self.namespace = BENCH_NAMESPACE if index == 0 else NAMESPACES[index % len(NAMESPACES)]
        self.hash = f"{rng.getrandbits(40):010x}"[:10]
        self.rs_uid = _uid(rng)
        self.cpu = rng.choice(("50m", "100m", "200m", "250m", "500m"))
        self.memory = rng.choice(("64Mi", "128Mi", "256Mi", "512Mi", "1Gi"))
        self.image = f"registry.example/{self.name}:1.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
        self.port = rng.choice((8080, 8443, 9090, 3000))
        roll = rng.random()
        self.required_anti = index == 0 or roll < 0.08          # one per node
        self.preferred_anti = 0.08 <= roll < 0.20               # rather in other zones
        self.zone_spread = index == 0 or 0.15 <= roll < 0.30    # even over zones
        self.tolerates_batch = rng.random() < 0.10
        self.priority_class = "high-priority" if rng.random() < 0.05 else None
        self.replicas = 0
        self.suffixes: set[int] = set()

    def labels(self) -> dict[str, str]:
        return {"app": self.name, "tier": "backend" if len(self.name) % 2 else "frontend",
                "pod-template-hash": self.hash}

    def spec(self) -> Obj:
        spec: Obj = {"containers": [{
            "name": self.name, "image": self.image,
            "ports": [{"containerPort": self.port, "name": "http", "protocol": "TCP"}],
            "resources": {"requests": {"cpu": self.cpu, "memory": self.memory},
                          "limits": {"memory": self.memory}}}]}
        selector = {"matchLabels": {"app": self.name}}
        affinity: Obj = {}
        if self.required_anti:
            affinity["requiredDuringSchedulingIgnoredDuringExecution"] = [
                {"labelSelector": selector, "topologyKey": "kubernetes.io/hostname"}]
        if self.preferred_anti:
            affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"weight": 50, "podAffinityTerm": {"labelSelector": selector,
                                                   "topologyKey": "topology.kubernetes.io/zone"}}]
        if affinity:
            spec["affinity"] = {"podAntiAffinity": affinity}
        if self.zone_spread:
            spec["topologySpreadConstraints"] = [{
                "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": selector}]
        if self.tolerates_batch:
            spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "batch",
                                    "effect": "NoSchedule"}]
        if self.priority_class:
            spec["priorityClassName"] = self.priority_class
        return spec

    def replica_set(self) -> Obj:
        return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": f"{self.name}-{self.hash}", "namespace": self.namespace,
                             "uid": self.rs_uid, "labels": self.labels()},
                "spec": {"replicas": self.replicas,
                         "selector": {"matchLabels": {"app": self.name, "pod-template-hash": self.hash}},
                         "template": {"metadata": {"labels": self.labels()}, "spec": self.spec()}}}

    def service(self) -> Obj:
        return {"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": self.name, "namespace": self.namespace},
                "spec": {"selector": {"app": self.name},
                         "ports": [{"port": 80, "targetPort": self.port, "protocol": "TCP"}]}}


def node(rng: random.Random, i: int) -> Obj:
    name = f"node-{i:05d}"
    zone = ZONES[i % len(ZONES)]
    itype, cpu, memory = rng.choice(INSTANCE_TYPES)
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
              "topology.kubernetes.io/zone": zone, "topology.kubernetes.io/region": REGION,
              "node.kubernetes.io/instance-type": itype, "pool": rng.choice(("general", "general", "compute"))}
    spec: Obj = {"providerID": f"aws:///{zone}/i-{rng.getrandbits(64):016x}"}
    roll = rng.random()
    if roll < 0.06:
        spec["taints"] = [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
        labels["dedicated"] = "batch"
    elif roll < 0.08:
        spec["taints"] = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    if rng.random() < 0.01:
        spec["unschedulable"] = True
        spec.setdefault("taints", []).append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
    capacity = {"cpu": cpu, "memory": memory, "pods": "110", "ephemeral-storage": "100Gi"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": _uid(rng), "labels": labels, "creationTimestamp": CREATED},
            "spec": spec,
            "status": {"capacity": capacity,
                       "allocatable": {**capacity, "cpu": f"{int(cpu) * 1000 - 100}m"},
                       "conditions": [{"type": "Ready", "status": "True"}],
                       "images": [{"names": [f"registry.example/app-{rng.randint(1, 300):03d}:1.0.0"],
                                   "sizeBytes": rng.randint(10, 500) * 1_000_000}]}}


def bound_pod(rng: random.Random, app: App, node_name: str) -> Obj:
    app.replicas += 1
    suffix = rng.getrandbits(25)
    while suffix in app.suffixes:          # pod names are unique: the API server refuses a second one
        suffix = rng.getrandbits(25)
    app.suffixes.add(suffix)
    meta = {"name": f"{app.name}-{app.hash}-{suffix:07x}", "namespace": app.namespace,
            "uid": _uid(rng), "labels": app.labels(), "creationTimestamp": CREATED,
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{app.name}-{app.hash}",
                                 "uid": app.rs_uid, "controller": True}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {**app.spec(), "nodeName": node_name},
            "status": {"phase": "Running"}}


def daemon_pod(rng: random.Random, ds: str, node_name: str, taken: set[str]) -> Obj:
    name = f"{ds}-{rng.getrandbits(25):07x}"
    while name in taken:                   # pod names are unique: the API server refuses a second one
        name = f"{ds}-{rng.getrandbits(25):07x}"
    taken.add(name)
    meta = {"name": name, "namespace": "kube-system", "uid": _uid(rng),
            "labels": {"app": ds}, "creationTimestamp": CREATED,
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds,
                                 "uid": f"00000000-0000-4000-8000-{len(ds):012d}", "controller": True}]}
    spec = {"containers": [{"name": ds, "image": f"registry.k8s.io/{ds}:v1.35.4",
                            "resources": {"requests": {"cpu": "100m", "memory": "100Mi"}}}],
            "tolerations": [{"operator": "Exists"}], "priorityClassName": "system-node-critical",
            "nodeName": node_name}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": "Running"}}


def cluster(nodes: int, pods_per_node: int, apps: int, seed: int) -> list[Obj]:
    rng = random.Random(seed)
    app_list = [App(rng, i) for i in range(apps)]
    objects: list[Obj] = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
                          for ns in ("kube-system", *NAMESPACES)]
    objects.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                    "metadata": {"name": "high-priority"}, "value": 100000})
    node_objs = [node(rng, i) for i in range(nodes)]
    pods: list[Obj] = []
    daemon_names: set[str] = set()
    for n in node_objs:
        name = n["metadata"]["name"]
        pods += [daemon_pod(rng, ds, name, daemon_names) for ds in DAEMONSETS]
        count = max(0, pods_per_node - len(DAEMONSETS) + rng.randint(-3, 3))
        chosen = rng.sample(app_list[1:], count)                       # distinct apps per node
        if int(name[5:]) % 25 == 0:                                    # bench-web runs on 4% of nodes
            chosen[0] = app_list[0]
        pods += [bound_pod(rng, app, name) for app in chosen]
    objects += node_objs
    objects += [a.replica_set() for a in app_list]
    objects += [a.service() for a in app_list[::2]]
    objects += pods
    return stored(objects, {n["metadata"]["name"]: n for n in node_objs})


SYSTEM_PRIORITIES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000,
                     "high-priority": 100000}
DEFAULT_TOLERATIONS = [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                        "tolerationSeconds": 300},
                       {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                        "tolerationSeconds": 300}]


def stored(objects: list[Obj], nodes: dict[str, Obj]) -> list[Obj]:
    """The objects as a live cluster's API server holds them, which is what a snapshot is: each
    with a resourceVersion, and bound pods with what admission and binding gave them (resolved
    priority, default tolerations, their node's zone and region labels). kexplain takes objects
    with a resourceVersion as they are (admission.md)."""
    for version, obj in enumerate(objects, start=1000):
        obj["metadata"]["resourceVersion"] = str(version)
        if obj["kind"] != "Pod":
            continue
        spec = obj["spec"]
        spec["priority"] = SYSTEM_PRIORITIES.get(spec.get("priorityClassName", ""), 0)
        spec["preemptionPolicy"] = "PreemptLowerPriority"
        tolerations = spec.get("tolerations", [])
        spec["tolerations"] = tolerations + [t for t in DEFAULT_TOLERATIONS
                                             if not any(have.get("operator") == "Exists" and not have.get("key")
                                                        for have in tolerations)]
        node_labels = nodes[spec["nodeName"]]["metadata"]["labels"]
        obj["metadata"]["labels"].update({k: node_labels[k] for k in TOPOLOGY_LABELS})
    return objects


def pending_pod(unschedulable: bool = False) -> Obj:
    selector = {"matchLabels": {"app": BENCH_APP}}
    spec: Obj = {
        "containers": [{"name": "web", "image": "registry.example/bench-web:2.0.0",
                        "ports": [{"containerPort": 8080, "name": "http"}],
                        "resources": {"requests": {"cpu": "34" if unschedulable else "500m", "memory": "1Gi"}}}],
        "affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{
                "matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "In", "values": list(ZONES)},
                    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}]}},
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": selector, "topologyKey": "kubernetes.io/hostname"}],
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 100, "podAffinityTerm": {
                        "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In",
                                                                "values": ["app-001", "app-002", "app-003"]}]},
                        "topologyKey": "kubernetes.io/hostname"}}]}},
        "topologySpreadConstraints": [
            {"maxSkew": 3, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": selector},
            {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": selector}],
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}],
    }
    if unschedulable:
        spec["priorityClassName"] = "high-priority"
    name = "bench-web-unschedulable" if unschedulable else "bench-web-pending"
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": BENCH_NAMESPACE, "labels": {"app": BENCH_APP}},
            "spec": spec}


def plain_pod() -> Obj:
    """A pod with requests and a nodeSelector only: what most of a rollout's pods look like
    (no pod affinity, no spread constraints of its own, owned by nothing)."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "plain", "namespace": BENCH_NAMESPACE, "labels": {"app": "plain"}},
            "spec": {"containers": [{"name": "app", "image": "registry.example/plain:1.0.0",
                                     "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}}}],
                     "nodeSelector": {"pool": "general"}}}


def write_pods(out: Path, shape: str = "classic") -> dict[str, Path]:
    """The pending pods and the configuration under `out` (by role), for an existing snapshot too."""
    if shape == "classic":
        pending, plain = pending_pod, plain_pod
    elif shape in KUBECTL_SHAPES:
        import cluster_shapes
        import kubectl_shapes
        pending, plain = kubectl_shapes.pending, cluster_shapes._plain
    else:
        import cluster_shapes
        pending, plain = cluster_shapes.SHAPES[shape].pending, cluster_shapes.SHAPES[shape].plain
    paths: dict[str, Path] = {}
    for role, obj in (("pod", pending(False)), ("pod-unschedulable", pending(True)), ("config-100", CONFIG_100),
                      ("pod-plain", plain())):
        paths[role] = out / f"{role}.yaml"
        paths[role].write_text(yaml.dump(obj, Dumper=DUMPER, sort_keys=False), encoding="utf-8")
    return paths


CONFIG_100 = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
              "percentageOfNodesToScore": 100}
KUBECTL_SHAPES = ("lean", "heavy", "kubectl")   # `kubectl_shapes.py`: as kubectl prints a busy cluster's objects
SHAPES = ("classic", "teams", "wide", *KUBECTL_SHAPES)
PODS_PER_NODE = {"classic": 30, "teams": 29, "wide": 30, "lean": 29, "heavy": 29, "kubectl": 29}


def _dump_json(path: Path, items: list[Obj]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items}, fh, separators=(",", ":"))


def write(out: Path, nodes: int, pods_per_node: int | None = None, apps: int = 300, seed: int = 1,
          formats: tuple[str, ...] = ("yaml", "json"), shape: str = "classic") -> dict[str, Path]:
    """Write the snapshot of `shape` (`classic`: this file's; others: `cluster_shapes.py`'s), the
    pods and the config under `out`; returns the paths by role. `apps` is `classic`'s alone."""
    out.mkdir(parents=True, exist_ok=True)
    per_node = PODS_PER_NODE[shape] if pods_per_node is None else pods_per_node
    paths: dict[str, Path] = {}
    if shape == "classic":
        items = cluster(nodes, per_node, apps, seed)
    elif shape in KUBECTL_SHAPES:
        import kubectl_shapes
        items = kubectl_shapes.cluster(shape != "lean", nodes, per_node, seed, mesh=shape != "kubectl")
    else:
        import cluster_shapes
        items = cluster_shapes.cluster(shape, nodes, per_node, seed)
    if "json" in formats:
        paths["json"] = out / "cluster.json"
        if shape == "kubectl":
            import kubectl_shapes
            kubectl_shapes.dump_as_kubectl(paths["json"], items)
        else:
            _dump_json(paths["json"], items)
    if "yaml" in formats:
        paths["yaml"] = out / "cluster.yaml"
        with open(paths["yaml"], "w", encoding="utf-8") as fh:
            yaml.dump({"apiVersion": "v1", "kind": "List", "items": items}, fh, Dumper=DUMPER, sort_keys=False)
    paths.update(write_pods(out, shape))
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--shape", choices=SHAPES, default="classic",
                        help="classic: this file's cluster; teams, wide: cluster_shapes.py's; lean, heavy, kubectl: "
                             "kubectl_shapes.py's (as `kubectl get -o json` prints a busy cluster; "
                             "kubectl: heavy's objects in kubectl's own layout, four-space indented)")
    parser.add_argument("--pods-per-node", type=int, default=None, help="30 (teams: 29)")
    parser.add_argument("--apps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--format", choices=("both", "yaml", "json"), default="both")
    args = parser.parse_args(argv)
    if args.shape == "classic" and (args.pods_per_node or 30) > args.apps:
        parser.error("--pods-per-node must not exceed --apps")
    formats = ("yaml", "json") if args.format == "both" else (args.format,)
    for role, path in write(args.out, args.nodes, args.pods_per_node, args.apps, args.seed, formats,
                            args.shape).items():
        print(f"{role}: {path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

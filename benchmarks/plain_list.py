"""A cluster shape written without kexplain in mind (issue 55): a plain JSON List of lean pods.

Another generator's 5,000-node / ~146k-pod snapshot, as the issue describes it: `{"apiVersion":
"v1","kind":"List","items":[...]}` with `json.dump`'s default separators and no indentation;
5,000 Nodes, 8 Namespaces and bound Pods carrying a name, a namespace, four labels (`app`,
`team`, `tier`, `pod-template-hash`), `spec.nodeName`, one container with cpu and memory requests
and a memory limit, `status.phase` and `status.startTime` — no uid, no owner references. With
`--stored` every object has a `metadata.resourceVersion` (a snapshot as stored); without it the
objects are admitted as manifests. With `--rich` each pod also carries what differs per pod in other
dumps: an annotation of its own (a build id) and the status a kubelet writes (pod IP, conditions,
a container status with its own container ID).

    .venv/bin/python benchmarks/plain_list.py OUT_DIR [--nodes 5000] [--pods-per-node 29] [--stored] [--rich]

It writes OUT_DIR/cluster.json and OUT_DIR/pod.yaml (one pending pod to explain).
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

Obj = dict[str, Any]
NAMESPACES = tuple(f"ns-{i}" for i in range(8))
TIERS = ("web", "api", "worker", "cache")
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
SIZES = (("4", "16Gi"), ("8", "32Gi"), ("16", "64Gi"))
REQUESTS = (("100m", "128Mi"), ("250m", "256Mi"), ("500m", "512Mi"), ("1", "1Gi"))


def node(i: int, rng: random.Random) -> Obj:
    cpu, memory = SIZES[i % len(SIZES)]
    name = f"node-{i:05d}"
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                   "topology.kubernetes.io/zone": ZONES[i % len(ZONES)]}},
            "status": {"capacity": {"cpu": cpu, "memory": memory, "pods": "110"},
                       "allocatable": {"cpu": cpu, "memory": memory, "pods": "110"}}}


def pod(i: int, node_name: str, rng: random.Random) -> Obj:
    app = f"app-{rng.randrange(400):03d}"
    cpu, memory = REQUESTS[rng.randrange(len(REQUESTS))]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{app}-{i:06d}", "namespace": NAMESPACES[i % len(NAMESPACES)],
                         "labels": {"app": app, "team": f"team-{rng.randrange(20)}",
                                    "tier": TIERS[rng.randrange(len(TIERS))],
                                    "pod-template-hash": f"{rng.getrandbits(32):08x}"[:10]}},
            "spec": {"nodeName": node_name,
                     "containers": [{"name": "app", "image": f"registry.example/{app}:1",
                                     "resources": {"requests": {"cpu": cpu, "memory": memory},
                                                   "limits": {"memory": memory}}}]},
            "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"}}


def enriched(obj: Obj, i: int, rng: random.Random) -> Obj:
    """`obj` (a pod) with an annotation and a kubelet's status of its own (`--rich`)."""
    obj["metadata"]["annotations"] = {"example.com/build": f"{rng.getrandbits(48):012x}"}
    ip = f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"
    obj["status"].update({
        "conditions": [{"type": t, "status": "True", "lastTransitionTime": "2026-01-01T00:00:05Z"}
                       for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")],
        "podIP": ip, "podIPs": [{"ip": ip}], "hostIP": f"192.168.{i >> 8 & 255}.{i & 255}",
        "qosClass": "Burstable",
        "containerStatuses": [{"name": "app", "ready": True, "restartCount": 0, "started": True,
                               "image": obj["spec"]["containers"][0]["image"], "imageID": "",
                               "containerID": f"containerd://{rng.getrandbits(128):032x}",
                               "state": {"running": {"startedAt": "2026-01-01T00:00:03Z"}}}]})
    return obj


def cluster(nodes: int, pods_per_node: int, stored: bool, seed: int = 1, rich: bool = False) -> list[Obj]:
    rng = random.Random(seed)
    items = [node(i, rng) for i in range(nodes)]
    items += [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}} for ns in NAMESPACES]
    items += [pod(i, items[i % nodes]["metadata"]["name"], rng) for i in range(nodes * pods_per_node)]
    if rich:
        items[nodes + len(NAMESPACES):] = [enriched(obj, i, rng) for i, obj in enumerate(items[nodes + len(NAMESPACES):])]
    if stored:
        for n, obj in enumerate(items):
            obj["metadata"]["resourceVersion"] = str(1000 + n)
    return items


PENDING = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pending", "namespace": "ns-0"},
           "spec": {"containers": [{"name": "app", "image": "registry.example/pending:1",
                                    "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods-per-node", type=int, default=29)
    parser.add_argument("--stored", action="store_true")
    parser.add_argument("--rich", action="store_true", help="an annotation and a kubelet's status of each pod's own")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "cluster.json", "w", encoding="utf-8") as fh:
        json.dump({"apiVersion": "v1", "kind": "List",
                   "items": cluster(args.nodes, args.pods_per_node, args.stored, rich=args.rich)}, fh)
    (args.out / "pod.yaml").write_text(json.dumps(PENDING), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

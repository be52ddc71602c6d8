"""Benchmark `kexplain karpenter --disruption` at cluster scale (issue 78's Speed target).

A Karpenter-managed cluster in one JSON List (`cluster.json`): Nodes with their NodeClaims
(conditions Launched/Registered/Initialized/Ready, most Consolidatable, some Drifted, a few
not initialized), Deployments' pods (owned by ReplicaSets), two DaemonSets and their pods, some
pods annotated `karpenter.sh/do-not-disrupt`, PodDisruptionBudgets with their status (some
allowing no disruption), NodePools with budgets (percentages, counts, cron windows, reasons) and
their EC2NodeClasses. Instance types are those of the AWS data the Karpenter yardsticks use
(`--aws-data`, default /work/shared/karpenter/aws). Two shapes, so that nothing is tuned to one:

    standard  2,000 nodes of 2-4 vCPUs, 30,000 pods, 300 PDBs, 20 NodePools (issue 78's figure)
    big       200 nodes of 96-128 vCPUs, 30,000 pods, 1,000 PDBs over one- and two-pod apps,
              60 NodePools

`--style rich` writes either shape's pods as fuller templates make them, to measure a shape the
fast paths were not written for: per app a sidecar and an init container, probes, environment,
configMap and emptyDir volumes, tolerations, some a node selector, a zone spread or a
hostname anti-affinity; apps over eight namespaces (with their Namespace objects); every
object with a uid, a creation time and (`stored`) a resourceVersion, as a dump has them; half the
PDBs without a status (the disruption controller computes it). `--style served` writes the plain
shape's pods as an API server serves them, without resourceVersions, in a file spaced as `json.dump`
writes it: each its own uid and creation time, service-account token volume (`kube-api-access-xxxxx`)
and mount, and status (IPs, start time, container statuses with their ids). `--style controller` writes the
served pods as their controllers make them and `kubectl get -o json` prints them (indented by four): named
from their ReplicaSet's or DaemonSet's generateName, with its pod-template-hash or revision labels, every field
the API server defaults written, the kubelet's conditions with their times. `--style distinct` writes the plain
shape with each workload its own requests and image (a pod shape per workload, as real Deployments are).
Five more write the plain shape's app pods as other generators do: `annotated` each with its own pod IP
annotation (a CNI's), `statefulset` as a StatefulSet's (pod-name and pod-index labels, the hostname its name,
a subdomain), `antiaffinity` each with a preferred anti-affinity naming its app, `repelling` with a required
one on the hostname (a workload kept one pod a node; the bound pods are placed as the others, so some break
it), `requests` each with its own random cpu and memory requests (a shape per pod).

The command

    kexplain karpenter --disruption --nodes cluster.json --aws-data AWS --now 2026-01-01T12:00:00Z -o json

is timed as a process against the standard library's `json.load` of the same `cluster.json`
(the median of alternating pairs, `load_bench.ratio_row`); target at most 2x, peak RSS at most
1.5 GB (`autoscaler_case.PEAK_MB`).

    .venv/bin/python benchmarks/disruption_bench.py [--dir /tmp/kexplain-bench] [--shape standard|big]
        [--nodes N] [--pods N] [--pdbs N] [--nodepools N] [--pairs 3] [--seed 1]
        [--style plain|rich|stored|served|controller|distinct|annotated|statefulset|antiaffinity|requests]
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

from autoscaler_case import header, peak_verdict, write_json  # noqa: E402
from load_bench import KEXPLAIN, ratio_row  # noqa: E402

TARGET = 2.0            # x json.load of cluster.json
AWS_DATA = Path("/work/shared/karpenter/aws")
NOW = "2026-01-01T12:00:00Z"
ZONES = ("test-zone-1a", "test-zone-1b", "test-zone-1c")
NODEPOOL_LABEL = "karpenter.sh/nodepool"
DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"

Obj = dict[str, Any]

# instance type -> vCPUs, memory MiB, max pods (the AWS data's x86_64 types)
TYPES = {"m5.large": (2, 8192, 29), "t3.large": (2, 8192, 35), "m7i-flex.large": (2, 8192, 29),
         "m5.xlarge": (4, 16384, 58), "m5.metal": (96, 393216, 737), "m6idn.32xlarge": (128, 524288, 345)}


@dataclass(frozen=True)
class Shape:
    """A cluster's proportions: its node types, sizes and the apps' sizes."""
    types: tuple[str, ...]
    nodes: int
    pods: int
    pdbs: int
    nodepools: int
    app_pods: tuple[int, int]          # replicas per Deployment, low and high
    cpu_millis: tuple[int, ...]        # a pod's CPU request, drawn


SHAPES = {
    "standard": Shape(("m5.large", "t3.large", "m7i-flex.large", "m5.xlarge"), 2000, 30000, 300, 20, (5, 80),
                      (25, 50, 50, 100, 100, 150, 200)),
    "big": Shape(("m5.metal", "m6idn.32xlarge"), 200, 30000, 1000, 60, (1, 2), (100, 250, 250, 500)),
}


def _condition(kind: str, reason: str | None = None, status: str = "True") -> Obj:
    return {"type": kind, "status": status, "reason": reason or kind, "message": "",
            "lastTransitionTime": "2025-12-31T06:00:00Z"}


def node_pools(rng: random.Random, count: int) -> list[Obj]:
    """`count` NodePools over the shape's families, on-demand and spot, with budgets of every kind."""
    out: list[Obj] = []
    budget_kinds = (
        [{"nodes": "10%"}],
        [{"nodes": "1", "reasons": ["Empty", "Drifted"]}, {"nodes": "20%"}],
        [{"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h"}, {"nodes": "5"}],
        [{"nodes": "0", "schedule": "30 11 * * *", "duration": "1h", "reasons": ["Underutilized"]},
         {"nodes": "50%"}],
        [{"nodes": "100%"}],
    )
    for i in range(count):
        policy = "WhenEmptyOrUnderutilized" if i % 4 else "WhenEmpty"
        out.append({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": f"pool-{i:02d}"},
                    "spec": {**({"weight": 10 + i} if i % 3 == 0 else {}),
                             "template": {"spec": {
                                 "requirements": [
                                     {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                                     {"key": "karpenter.sh/capacity-type", "operator": "In",
                                      "values": ["spot", "on-demand"] if i % 5 == 1 else ["on-demand"]},
                                     {"key": "karpenter.k8s.aws/instance-family", "operator": "In",
                                      "values": ["m5", "t3", "m7i-flex", "m6idn"]}],
                                 "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                  "name": "default"},
                                 "expireAfter": "720h"}},
                             "disruption": {"consolidationPolicy": policy,
                                            "consolidateAfter": rng.choice(("0s", "30s", "5m")),
                                            "budgets": budget_kinds[i % len(budget_kinds)]}}})
    out.append({"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
                "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole-bench",
                         "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "bench"}}],
                         "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "bench"}}]}})
    return out


def node_and_claim(rng: random.Random, i: int, kind: str, pool: str, spot: bool) -> tuple[Obj, Obj]:
    """A registered Node and its NodeClaim (joined by providerID); most Consolidatable, some
    Drifted, a few not yet initialized."""
    cpus, mib, pods = TYPES[kind]
    zone = ZONES[i % len(ZONES)]
    name = f"ip-10-{i // 65536}-{i // 256 % 256}-{i % 256}.ec2.internal"
    provider = f"aws:///{zone}/i-{rng.getrandbits(60):015x}"
    initialized = i % 97 != 5
    labels = {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "kubernetes.io/hostname": name,
              "node.kubernetes.io/instance-type": kind, "topology.kubernetes.io/zone": zone,
              "topology.kubernetes.io/region": "us-west-2", "karpenter.k8s.aws/instance-family": kind.split(".")[0],
              "karpenter.k8s.aws/instance-size": kind.split(".")[1],
              "karpenter.sh/capacity-type": "spot" if spot else "on-demand", NODEPOOL_LABEL: pool,
              "karpenter.sh/registered": "true", "karpenter.k8s.aws/ec2nodeclass": "default",
              **({"karpenter.sh/initialized": "true"} if initialized else {})}
    memory = int(mib * 0.925)
    capacity = {"cpu": str(cpus), "memory": f"{memory}Mi", "pods": str(pods), "ephemeral-storage": "20Gi"}
    allocatable = {"cpu": f"{cpus * 1000 - 70 - 10 * (cpus // 4)}m", "memory": f"{memory - 1000}Mi",
                   "pods": str(pods), "ephemeral-storage": "18Gi"}
    created = f"2025-12-{10 + i % 20:02d}T{i % 24:02d}:00:00Z"
    node = {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels, "creationTimestamp": created},
            "spec": {"providerID": provider}, "status": {"capacity": capacity, "allocatable": allocatable}}
    conditions = [_condition(t) for t in ("Launched", "Registered")]
    conditions.append(_condition("Initialized") if initialized else _condition("Initialized", "NotInitialized", "False"))
    conditions.append(_condition("Ready"))
    if i % 10 < 7:
        conditions.append(_condition("Consolidatable"))
    if i % 33 == 3:
        conditions.append(_condition("Drifted", "AMIDrift"))
    claim = {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
             "metadata": {"name": f"{pool}-{i:06x}", "labels": dict(labels), "creationTimestamp": created},
             "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                      "requirements": [
                          {"key": NODEPOOL_LABEL, "operator": "In", "values": [pool]},
                          {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": [kind]},
                          {"key": "karpenter.sh/capacity-type", "operator": "In",
                           "values": ["spot" if spot else "on-demand"]}],
                      "expireAfter": "720h"},
             "status": {"providerID": provider, "nodeName": name, "capacity": capacity,
                        "allocatable": allocatable, "conditions": conditions}}
    return node, claim


def _pod(name: str, labels: dict[str, str], owner: Obj, cpu: int, mem: int, node: str, annotations: Obj) -> Obj:
    meta: Obj = {"name": name, "namespace": "default", "labels": labels, "ownerReferences": [owner]}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "app", "image": "registry.example/app:1",
                                     "resources": {"requests": {"cpu": f"{cpu}m", "memory": f"{mem}Mi"}}}],
                     "nodeName": node},
            "status": {"phase": "Running", "startTime": "2026-01-01T05:00:00Z",
                       "conditions": [{"type": "Ready", "status": "True"}, {"type": "PodScheduled", "status": "True"}]}}


def daemonsets(nodes: list[Obj]) -> list[Obj]:
    """Two DaemonSets and a pod of each on every node."""
    out: list[Obj] = []
    for ds, cpu, mem in (("aws-node", 25, 64), ("kube-proxy", 100, 128)):
        out.append({"apiVersion": "apps/v1", "kind": "DaemonSet",
                    "metadata": {"name": ds, "namespace": "kube-system", "uid": f"ds-{ds}"},
                    "spec": {"selector": {"matchLabels": {"k8s-app": ds}}, "template": {
                        "metadata": {"labels": {"k8s-app": ds}},
                        "spec": {"tolerations": [{"operator": "Exists"}],
                                 "containers": [{"name": ds, "image": f"registry.example/{ds}:1",
                                                 "resources": {"requests": {"cpu": f"{cpu}m",
                                                                            "memory": f"{mem}Mi"}}}]}}}})
        owner = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds, "uid": f"ds-{ds}", "controller": True}
        for node in nodes:
            name = node["metadata"]["name"]
            pod = _pod(f"{ds}-{name.split('.')[0]}", {"k8s-app": ds}, owner, cpu, mem, name, {})
            pod["metadata"]["namespace"] = "kube-system"
            out.append(pod)
    return out


def workloads(rng: random.Random, shape: Shape, nodes: list[Obj], count: int) -> tuple[list[Obj], list[str]]:
    """`count` Deployments' pods spread over the nodes (each node filled to a utilization of its
    own, some left empty), and the apps they belong to."""
    pods: list[Obj] = []
    apps: list[str] = []
    room = []       # node name, CPU millis left, pod slots left
    for node in nodes:
        alloc = node["status"]["allocatable"]
        fill = 0.0 if rng.random() < 0.05 else rng.uniform(0.15, 0.9)
        room.append([node["metadata"]["name"], int(int(alloc["cpu"][:-1]) * fill), int(alloc["pods"]) - 2])
    placed = 0
    app = 0
    while placed < count:
        replicas = min(rng.randint(*shape.app_pods), count - placed)
        cpu = rng.choice(shape.cpu_millis)
        mem = cpu * rng.choice((2, 4, 8))
        name = f"app-{app:05d}"
        apps.append(name)
        owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{name}-5d8f7c", "uid": f"rs-{name}",
                 "controller": True}
        for r in range(replicas):
            annotations = {DO_NOT_DISRUPT: "true"} if rng.random() < 0.004 else {}
            for _ in range(8):
                slot = room[rng.randrange(len(room))]
                if slot[1] >= cpu and slot[2] > 0:
                    break
            else:       # the cluster is full enough: any node with a free slot (overcommit is the input's)
                slot = next((s for s in room if s[2] > 0), room[0])
            slot[1] -= cpu
            slot[2] -= 1
            pods.append(_pod(f"{name}-5d8f7c-{r:05d}", {"app": name}, owner, cpu, mem, slot[0], annotations))
        placed += replicas
        app += 1
    return pods, apps


def pdbs(rng: random.Random, apps: list[str], pods: list[Obj], count: int) -> list[Obj]:
    """`count` PodDisruptionBudgets over the first apps, with the status the disruption controller
    reads (some allowing no disruption)."""
    replicas: dict[str, int] = {}
    for pod in pods:
        replicas[pod["metadata"]["labels"]["app"]] = replicas.get(pod["metadata"]["labels"]["app"], 0) + 1
    out: list[Obj] = []
    for i, app in enumerate(apps[:count]):
        n = replicas[app]
        if i % 25 == 3:
            spec: Obj = {"maxUnavailable": 0}
            desired = n
        elif i % 2:
            spec = {"maxUnavailable": 1}
            desired = n - 1
        else:
            spec = {"minAvailable": "50%"}
            desired = (n + 1) // 2
        out.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                    "metadata": {"name": f"{app}-pdb", "namespace": "default", "generation": 1},
                    "spec": {**spec, "selector": {"matchLabels": {"app": app}}},
                    "status": {"currentHealthy": n, "desiredHealthy": max(desired, 0),
                               "disruptionsAllowed": max(n - max(desired, 0), 0), "expectedPods": n,
                               "observedGeneration": 1}})
    return out


NAMESPACES = tuple(f"team-{i}" for i in range(8))


def _rich_template(rng: random.Random, app: str) -> tuple[Obj, Obj]:
    """An app's extra pod fields (merged into each of its pods' spec) and metadata, drawn once."""
    spec: Obj = {"initContainers": [{"name": "init", "image": "registry.example/init:2",
                                     "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}],
                 "volumes": [{"name": "config", "configMap": {"name": f"{app}-config"}},
                             {"name": "scratch", "emptyDir": {}}],
                 "tolerations": [{"key": "team", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}],
                 "serviceAccountName": "default", "terminationGracePeriodSeconds": rng.choice((30, 60))}
    draw = rng.random()
    if draw < 0.2:
        spec["nodeSelector"] = {"kubernetes.io/arch": "amd64"}
    elif draw < 0.35:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "ScheduleAnyway",
                                              "labelSelector": {"matchLabels": {"app": app}}}]
    elif draw < 0.45:
        spec["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 50, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                               "labelSelector": {"matchLabels": {"app": app}}}}]}}
    meta = {"labels": {"app.kubernetes.io/part-of": rng.choice(("shop", "search", "billing")),
                       "pod-template-hash": f"{rng.getrandbits(32):08x}"},
            "annotations": {"prometheus.io/scrape": "true", "team": rng.choice(("a", "b", "c"))}}
    return spec, meta


def _enriched(rng: random.Random, pods: list[Obj], pdb_list: list[Obj]) -> list[Obj]:
    """`--style rich`: the apps' pods (not the DaemonSets') over the namespaces with fuller
    templates; their PDBs moved along, half without a status; the Namespaces."""
    templates: dict[str, tuple[Obj, Obj, str]] = {}
    for pod in pods:
        meta = pod["metadata"]
        app = meta.get("labels", {}).get("app")
        if app is None:
            continue
        if app not in templates:
            templates[app] = (*_rich_template(rng, app), rng.choice(NAMESPACES))
        spec, extra, namespace = templates[app]
        meta["namespace"] = namespace
        meta["labels"] = {**meta["labels"], **extra["labels"]}
        meta["annotations"] = {**extra["annotations"], **meta.get("annotations", {})}
        container = pod["spec"]["containers"][0]
        container["env"] = [{"name": "APP", "value": app}, {"name": "POD", "valueFrom": {
            "fieldRef": {"fieldPath": "metadata.name"}}}]
        container["readinessProbe"] = {"httpGet": {"path": "/ready", "port": 8080}, "periodSeconds": 5}
        container["volumeMounts"] = [{"name": "config", "mountPath": "/etc/app"},
                                     {"name": "scratch", "mountPath": "/tmp"}]
        sidecar = {"name": "proxy", "image": "registry.example/proxy:1.9",
                   "resources": {"requests": {"cpu": "20m", "memory": "32Mi"}, "limits": {"memory": "64Mi"}}}
        pod["spec"] = {**pod["spec"], **spec, "containers": [container, sidecar]}
    for i, pdb in enumerate(pdb_list):
        app = pdb["spec"]["selector"]["matchLabels"]["app"]
        pdb["metadata"]["namespace"] = templates[app][2]
        if i % 2:
            del pdb["status"]
    return [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in NAMESPACES]


def _identified(objects: list[Obj], stored: bool) -> None:
    """Each object with a uid and a creation time (and a resourceVersion when `stored`)."""
    for i, obj in enumerate(objects):
        meta = obj["metadata"]
        meta.setdefault("uid", f"00000000-0000-4000-8000-{i:012x}")
        meta.setdefault("creationTimestamp", "2025-12-01T00:00:00Z")
        if stored:
            meta["resourceVersion"] = str(1000 + i)


def _served(rng: random.Random, pods: list[Obj]) -> None:
    """`--style served`: each pod with what an API server writes into it (uid, creation time, its token volume
    and mount, a status with IPs, start time and container statuses)."""
    letters = "bcdfghjklmnpqrstvwxz2456789"
    for i, pod in enumerate(pods):
        meta, spec = pod["metadata"], pod["spec"]
        created = f"2025-12-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:" \
                  f"{rng.randint(0, 59):02d}Z"
        meta.update(uid=f"{rng.getrandbits(32):08x}-0000-4000-8000-{i:012x}", creationTimestamp=created)
        token = "kube-api-access-" + "".join(rng.choice(letters) for _ in range(5))
        spec["volumes"] = [*spec.get("volumes", ()), {"name": token, "projected": {"defaultMode": 420, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}]}}]
        for container in spec["containers"]:
            container["volumeMounts"] = [*container.get("volumeMounts", ()), {
                "name": token, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": True}]
        spec.setdefault("serviceAccountName", "default")
        status = pod.setdefault("status", {})
        status.update(podIP=f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}", hostIP=f"10.0.{rng.randint(0, 255)}."
                      f"{rng.randint(1, 254)}", startTime=created, conditions=[{"type": "Ready", "status": "True"}],
                      containerStatuses=[{"name": c["name"], "ready": True, "restartCount": 0, "started": True,
                                          "image": c.get("image", ""), "containerID": f"containerd://{rng.getrandbits(256):064x}",
                                          "state": {"running": {"startedAt": created}}} for c in spec["containers"]])


def _controlled(rng: random.Random, pods: list[Obj]) -> None:
    """`--style controller`: served pods (`_served`) as their controllers make them: named from their
    owner's generateName (five random characters), its hash or revision labels, the owner reference blocking
    its deletion, the fields the API server defaults, the kubelet's conditions with their times."""
    letters = "bcdfghjklmnpqrstvwxz2456789"
    for pod in pods:
        meta, spec, status = pod["metadata"], pod["spec"], pod["status"]
        owner = meta["ownerReferences"][0]
        owner["blockOwnerDeletion"] = True
        meta["generateName"] = owner["name"] + "-"
        meta["name"] = meta["generateName"] + "".join(rng.choice(letters) for _ in range(5))
        if owner["kind"] == "ReplicaSet":
            meta["labels"]["pod-template-hash"] = owner["name"].rsplit("-", 1)[-1]
        else:
            meta["labels"].update({"controller-revision-hash": "6d9f7c8b5", "pod-template-generation": "1"})
        for container in spec["containers"]:
            container.update(imagePullPolicy="IfNotPresent", terminationMessagePath="/dev/termination-log",
                             terminationMessagePolicy="File")
        spec.update(restartPolicy="Always", terminationGracePeriodSeconds=30, dnsPolicy="ClusterFirst",
                    serviceAccount=spec["serviceAccountName"], securityContext={}, schedulerName="default-scheduler",
                    priority=0, enableServiceLinks=True, preemptionPolicy="PreemptLowerPriority")
        spec["tolerations"] = [*spec.get("tolerations", ()), *(
            {"key": f"node.kubernetes.io/{key}", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
            for key in ("not-ready", "unreachable"))]
        status["conditions"] = [{"type": kind, "status": "True", "lastProbeTime": None,
                                 "lastTransitionTime": status["startTime"]}
                                for kind in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                                             "PodScheduled")]
        status["qosClass"] = "Burstable"


def _distinct(rng: random.Random, pods: list[Obj]) -> None:
    """`--style distinct`: each app's pods (not the DaemonSets') with the app's own requests and image."""
    own: dict[str, tuple[Obj, str]] = {}
    for pod in pods:
        app = pod["metadata"]["labels"].get("app")
        if app is None:
            continue
        container = pod["spec"]["containers"][0]
        if app not in own:
            cpu = int(container["resources"]["requests"]["cpu"][:-1])
            own[app] = ({"cpu": f"{max(10, cpu + rng.randint(-40, 40))}m", "memory": f"{rng.randint(64, 4096)}Mi"},
                        f"registry.example/{app}:{rng.randint(1, 9)}.{rng.randint(0, 20)}")
        container["resources"]["requests"] = dict(own[app][0])
        container["image"] = own[app][1]


def _written_otherwise(rng: random.Random, pods: list[Obj], style: str) -> None:
    """The app pods (not the DaemonSets') as another generator writes them (`--style annotated`, `statefulset`,
    `antiaffinity`, `repelling`, `requests`)."""
    for i, pod in enumerate(pods):
        meta, spec = pod["metadata"], pod["spec"]
        app = meta["labels"].get("app")
        if app is None:
            continue
        if style == "annotated":
            meta.setdefault("annotations", {})["cni.projectcalico.org/podIP"] = f"10.{i >> 16}.{i >> 8 & 255}.{i & 255}/32"
        elif style == "statefulset":
            meta["labels"].update({"statefulset.kubernetes.io/pod-name": meta["name"],
                                   "apps.kubernetes.io/pod-index": str(i)})
            spec.update(hostname=meta["name"], subdomain=app)
        elif style == "antiaffinity":
            spec["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": app}},
                                                    "topologyKey": "kubernetes.io/hostname"}}]}}
        elif style == "repelling":
            spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}}
        else:
            spec["containers"][0]["resources"]["requests"] = {"cpu": f"{rng.randrange(50, 500)}m",
                                                              "memory": f"{rng.randrange(64, 2048)}Mi"}


_OTHERWISE = ("annotated", "statefulset", "antiaffinity", "repelling", "requests")


def cluster(shape: Shape, seed: int, style: str = "plain") -> list[Obj]:
    """The whole cluster of `shape` as one list of objects."""
    rng = random.Random(seed)
    pools = node_pools(rng, shape.nodepools)
    spot_pools = {p["metadata"]["name"] for p in pools if p["kind"] == "NodePool"
                  and "spot" in p["spec"]["template"]["spec"]["requirements"][1]["values"]}
    nodes, claims = [], []
    for i in range(shape.nodes):
        pool = f"pool-{i % shape.nodepools:02d}"
        node, claim = node_and_claim(rng, i, shape.types[i % len(shape.types)], pool,
                                     pool in spot_pools and i % 2 == 0)
        nodes.append(node)
        claims.append(claim)
    system = daemonsets(nodes)
    pods, apps = workloads(rng, shape, nodes, max(shape.pods - 2 * len(nodes), 0))
    budgets = pdbs(rng, apps, pods, shape.pdbs)
    if style == "distinct":
        _distinct(rng, pods)
    if style in _OTHERWISE:
        _written_otherwise(rng, pods, style)
    if style in ("plain", "served", "controller", "distinct", *_OTHERWISE):
        if style in ("served", "controller"):
            _served(rng, [o for o in (*system, *pods) if o["kind"] == "Pod"])
        if style == "controller":
            _controlled(rng, [o for o in (*system, *pods) if o["kind"] == "Pod"])
        return [*pools, *nodes, *claims, *system, *pods, *budgets]
    namespaces = _enriched(rng, pods, budgets)
    out = [*namespaces, *pools, *nodes, *claims, *system, *pods, *budgets]
    _identified(out, stored=style == "stored")
    return out


def write_case(out: Path, shape: Shape, seed: int, style: str = "plain") -> Path:
    """`out/cluster.json` (a List), kept when it exists."""
    path = out / "cluster.json"
    if not path.exists():
        out.mkdir(parents=True, exist_ok=True)
        doc = {"apiVersion": "v1", "kind": "List", "items": cluster(shape, seed, style)}
        if style == "served":       # (spaced, as json.dump writes)
            path.write_text(json.dumps(doc), encoding="utf-8")
        elif style == "controller":     # (indented by four, as kubectl prints)
            path.write_text(json.dumps(doc, indent=4), encoding="utf-8")
        else:
            write_json(path, doc)
    return out


def command(case: Path, aws: Path = AWS_DATA) -> list[str]:
    return [str(KEXPLAIN), "karpenter", "--disruption", "--nodes", str(case / "cluster.json"),
            "--aws-data", str(aws), "--now", NOW, "-o", "json"]


def parse(argv: list[str] | None) -> argparse.Namespace:
    out = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    out.add_argument("--dir", type=Path, default=Path("/tmp/kexplain-bench"))
    out.add_argument("--shape", choices=sorted(SHAPES), default="standard")
    for name in ("nodes", "pods", "pdbs", "nodepools"):
        out.add_argument(f"--{name}", type=int, help="overrides the shape's")
    out.add_argument("--pairs", type=int, default=3)
    out.add_argument("--seed", type=int, default=1)
    out.add_argument("--style", choices=("plain", "rich", "stored", "served", "controller", "distinct", *_OTHERWISE),
                     default="plain",
                     help="rich: fuller pod templates over namespaces; stored: the same with resourceVersions; "
                          "served: the plain pods as an API server serves them, spaced; controller: served pods "
                          "as their controllers make them, indented as kubectl prints; distinct: each workload its "
                          "own requests and image; annotated, statefulset, antiaffinity, repelling, requests: the "
                          "plain app pods each with its own pod IP annotation, as a StatefulSet's, with a preferred "
                          "anti-affinity naming its app, with a required one, with its own random requests")
    out.add_argument("--aws-data", type=Path, default=AWS_DATA)
    out.add_argument("--write-only", action="store_true", help="write the case, print its folder, time nothing")
    return out.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    base = SHAPES[args.shape]
    shape = Shape(base.types, args.nodes or base.nodes, args.pods or base.pods, args.pdbs or base.pdbs,
                  args.nodepools or base.nodepools, base.app_pods, base.cpu_millis)
    style = "" if args.style == "plain" else f"-{args.style}"
    case = write_case(args.dir / f"disruption-{args.shape}-n{shape.nodes}-p{shape.pods}-b{shape.pdbs}"
                      f"-np{shape.nodepools}-s{args.seed}{style}", shape, args.seed, args.style)
    if args.write_only:
        print(case)
        return 0
    row = ratio_row(f"disruption {args.shape}{style}", command(case, args.aws_data), case / "cluster.json", args.pairs,
                    TARGET)
    print(header(case, load=True))
    print(row.line())
    print(f"peak RSS {row.peak_mb:.0f} MB: {peak_verdict(row)} (<= 1536 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Cluster shapes other than `generate.py`'s own: the targets must hold on clusters kexplain's
authors did not write, so the benchmark generates more than one kind.

- `teams`: the content of the 5,000-node snapshot an independent generator made (issue 25):
  about 600 Deployments with app/team/tier labels (a few huge, most small), about 29 pods per
  node, 10% of the apps with required pod anti-affinity on the hostname, 10% with preferred
  anti-affinity, 10% with zone spread; 8% of the nodes tainted, 1% cordoned; no DaemonSets;
  lean pods as a script writes them (labels, one container with requests; no uid, no owner).
  The pending pod has required anti-affinity on its app, a DoNotSchedule zone
  spread, required and preferred node affinity, a toleration, and a preferred anti-affinity on
  its tier (a label thousands of pods share).
- `wide`: preferences over large label groups and variety. 1,200 Deployments (some in the
  middle of a rollout: two ReplicaSets), StatefulSets with a claim per pod, five DaemonSets
  (each pod pinned to its node by the controller's node affinity), Job pods; 30% of the apps
  prefer their team's zone (pod affinity on `team`), 20% prefer other hosts than their tier
  (anti-affinity on `tier`), 10% have required anti-affinity on their app; nodes over three
  zones unevenly (55/30/15%), the pending pod's app mostly in the biggest zone. The pending pod
  adds to `teams`' a preferred affinity on its team (zone) and a hostname spread over its team.

Both write what `generate.py` writes for its own shape: the objects as an API server stores
them (a resourceVersion each), and the same pending pods and configuration.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

import generate
from generate import Obj

REGION = generate.REGION
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
TEAMS = tuple(f"team-{c}" for c in "abcdefghijklmnopqrstuvwxyz0123")       # 30 teams
TIERS = (("web", 0.30), ("api", 0.25), ("worker", 0.25), ("cache", 0.10), ("data", 0.10))
CREATED = generate.CREATED
ALPHABET = "bcdfghjklmnpqrstvwxz2456789"      # the API server's generateName suffixes


def _suffix(rng: random.Random, n: int = 5) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(n))


def _tier(rng: random.Random) -> str:
    return rng.choices([t for t, _ in TIERS], [w for _, w in TIERS])[0]


@dataclass
class Shape:
    """How one shape's cluster is made: its zones (with the share of nodes in each), node
    count scaling, workloads and pending pods."""

    name: str
    zones: tuple[tuple[str, float], ...]
    build: Callable[["Cluster"], None]
    pending: Callable[[bool], Obj]
    plain: Callable[[], Obj]
    lean: bool = False      # pods as a script writes them: labels, containers, requests; no uid


@dataclass
class Workload:
    """One controller and its pod template; `pods` are filled while placing."""

    kind: str                       # Deployment, StatefulSet, DaemonSet, Job
    name: str
    namespace: str
    labels: dict[str, str]
    spec: Obj                       # the pod template's spec
    replicas: int = 0
    uid: str = ""
    revisions: tuple[str, ...] = ("",)          # a Deployment's ReplicaSet hashes (two: a rollout)
    owner_uids: dict[str, str] = field(default_factory=dict)     # per ReplicaSet (revision)
    pods: list[Obj] = field(default_factory=list)
    hard_anti: bool = False         # one per node
    zone_spread: bool = False       # even over zones
    zone_bias: str | None = None    # mostly in this zone
    tolerates: str | None = None    # the taint key it tolerates


class Cluster:
    """Nodes and workloads of one shape being made, and their pods placed."""

    def __init__(self, shape: Shape, nodes: int, pods_per_node: int, seed: int) -> None:
        self.shape = shape
        self.rng = random.Random(seed)
        self.nodes_wanted = nodes
        self.pods_per_node = pods_per_node
        self.namespaces: list[str] = []
        self.workloads: list[Workload] = []
        self.extra: list[Obj] = []          # PVCs, PVs, Services, ...
        self.nodes = [self._node(i) for i in range(nodes)]
        self.by_zone: dict[str, list[Obj]] = {}
        for n in self.nodes:
            self.by_zone.setdefault(n["metadata"]["labels"][ZONE], []).append(n)
        self.load = {n["metadata"]["name"]: 0 for n in self.nodes}
        self.taken: set[tuple[str, str]] = set()         # pod names: the API server refuses a second one

    def _unique(self, namespace: str, prefix: str) -> str:
        name = f"{prefix}-{_suffix(self.rng)}"
        while (namespace, name) in self.taken:
            name = f"{prefix}-{_suffix(self.rng)}"
        self.taken.add((namespace, name))
        return name

    # -- nodes ---------------------------------------------------------------------------------
    def _node(self, i: int) -> Obj:
        rng = self.rng
        zones = self.shape.zones
        zone = rng.choices([z for z, _ in zones], [w for _, w in zones])[0]
        name = f"ip-10-{i // 250}-{i % 250}-{rng.randint(1, 254)}.ec2.internal"
        itype, cpu, memory = rng.choice(generate.INSTANCE_TYPES)
        labels = {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
                  HOSTNAME: name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                  ZONE: zone, "topology.kubernetes.io/region": REGION,
                  "node.kubernetes.io/instance-type": itype,
                  "eks.amazonaws.com/nodegroup": rng.choice(("general", "general", "general", "compute", "memory"))}
        spec: Obj = {"providerID": f"aws:///{zone}/i-{rng.getrandbits(64):016x}"}
        roll = rng.random()
        if roll < 0.05:
            spec["taints"] = [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
            labels["dedicated"] = "batch"
        elif roll < 0.08:
            spec["taints"] = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
            labels["nvidia.com/gpu.present"] = "true"
        if rng.random() < 0.01:
            spec["unschedulable"] = True
            spec.setdefault("taints", []).append({"key": "node.kubernetes.io/unschedulable",
                                                  "effect": "NoSchedule"})
        capacity = {"cpu": cpu, "memory": memory, "pods": "110", "ephemeral-storage": "200Gi",
                    "hugepages-2Mi": "0", "attachable-volumes-aws-ebs": "25"}
        return {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "uid": generate._uid(rng), "labels": labels, "creationTimestamp": CREATED},
                "spec": spec,
                "status": {"capacity": capacity,
                           "allocatable": {**capacity, "cpu": f"{int(cpu) * 1000 - 90}m"},
                           "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
                           "nodeInfo": {"kubeletVersion": "v1.35.4", "containerRuntimeVersion": "containerd://2.1.1",
                                        "architecture": "amd64", "operatingSystem": "linux"},
                           "images": [{"names": [f"registry.example/svc-{rng.randint(1, 600):03d}:1.0.0"],
                                       "sizeBytes": rng.randint(10, 500) * 1_000_000} for _ in range(3)]}}

    def _tolerated(self, node: Obj, key: str | None) -> bool:
        taints = [t for t in node["spec"].get("taints", ()) if t["key"] != "node.kubernetes.io/unschedulable"]
        return all(t["key"] == key for t in taints)

    # -- workloads -----------------------------------------------------------------------------
    def pod_spec(self, name: str, team: str, *, cpu: str, memory: str, image: str) -> Obj:
        if self.shape.lean:
            return {"containers": [{"name": name.split("-")[0] or "app", "image": image,
                                    "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}
        return {"containers": [{
            "name": name.split("-")[0] or "app", "image": image,
            "ports": [{"containerPort": self.rng.choice((8080, 8443, 9090)), "name": "http", "protocol": "TCP"}],
            "env": [{"name": "TEAM", "value": team}, {"name": "POD_NAME", "valueFrom": {
                "fieldRef": {"fieldPath": "metadata.name"}}}],
            "resources": {"requests": {"cpu": cpu, "memory": memory}, "limits": {"memory": memory}},
            "readinessProbe": {"httpGet": {"path": "/ready", "port": "http"}, "periodSeconds": 10}}],
            "serviceAccountName": name}

    def add(self, w: Workload) -> Workload:
        w.uid = generate._uid(self.rng)
        self.workloads.append(w)
        return w

    def place(self) -> None:
        """Pods of each workload on nodes: a DaemonSet's on every node it tolerates, the rest
        spread at random over the nodes they tolerate, one per node with required anti-affinity,
        round robin over zones with a zone spread, mostly in one zone with a bias; nodes that
        have their share of pods are passed over while others have room."""
        rng = self.rng
        for w in self.workloads:
            w.owner_uids = {revision: generate._uid(rng) for revision in w.revisions}
            if w.kind == "DaemonSet":
                for n in self.nodes:
                    if w.tolerates == "*" or self._tolerated(n, w.tolerates):
                        self._pod(w, n)
                continue
            eligible = [n for n in self.nodes if self._tolerated(n, w.tolerates)]
            zones = sorted({n["metadata"]["labels"][ZONE] for n in eligible})
            by_zone = {z: [n for n in eligible if n["metadata"]["labels"][ZONE] == z] for z in zones}
            used: set[str] = set()
            for i in range(w.replicas):
                if w.zone_spread:
                    pool = by_zone[zones[i % len(zones)]]
                elif w.zone_bias and w.zone_bias in by_zone and rng.random() < 0.7:
                    pool = by_zone[w.zone_bias]
                else:
                    pool = eligible
                node = None
                for _ in range(12):
                    candidate = rng.choice(pool)
                    name = candidate["metadata"]["name"]
                    if w.hard_anti and name in used:
                        continue
                    node = candidate
                    if self.load[name] < self.pods_per_node:
                        break
                if node is None:
                    if not w.hard_anti:
                        node = rng.choice(pool)
                    else:
                        free = [n for n in pool if n["metadata"]["name"] not in used]
                        if not free:
                            break
                        node = rng.choice(free)
                used.add(node["metadata"]["name"])
                self._pod(w, node)

    def _pod(self, w: Workload, node: Obj) -> None:
        rng = self.rng
        node_name = node["metadata"]["name"]
        self.load[node_name] += 1
        labels = dict(w.labels)
        spec = {**w.spec}
        owner_kind, owner_name, owner_uid = w.kind, w.name, w.uid
        meta: Obj = {"namespace": w.namespace}
        if w.kind == "Deployment" and self.shape.lean:
            meta["name"] = self._unique(w.namespace, f"{w.name}-{w.revisions[0]}")
        elif w.kind == "Deployment":
            revision = w.revisions[0] if len(w.revisions) == 1 or rng.random() < 0.6 else w.revisions[1]
            owner_kind, owner_name, owner_uid = "ReplicaSet", f"{w.name}-{revision}", w.owner_uids[revision]
            labels["pod-template-hash"] = revision
            if revision != w.revisions[0]:          # the old ReplicaSet: the previous image
                spec["containers"] = [{**spec["containers"][0],
                                       "image": spec["containers"][0]["image"].rsplit(":", 1)[0] + ":0.9.0"}]
            meta["generateName"] = f"{owner_name}-"
            meta["name"] = self._unique(w.namespace, owner_name)
        elif w.kind == "StatefulSet":
            ordinal = len(w.pods)
            name = meta["name"] = f"{w.name}-{ordinal}"
            labels.update({"controller-revision-hash": f"{w.name}-{w.revisions[0]}",
                           "statefulset.kubernetes.io/pod-name": name, "apps.kubernetes.io/pod-index": str(ordinal)})
            spec.update({"hostname": name, "subdomain": w.name,
                         "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": f"data-{name}"}}]})
            spec["containers"] = [{**spec["containers"][0],
                                   "volumeMounts": [{"name": "data", "mountPath": "/var/lib/data"}]}]
            self._claim(w, f"data-{name}", node)
        elif w.kind == "DaemonSet":
            meta["generateName"] = f"{w.name}-"
            meta["name"] = self._unique(w.namespace, w.name)
            labels.update({"controller-revision-hash": w.revisions[0], "pod-template-generation": "3"})
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                        "values": [node_name]}]}]}}}
            spec["tolerations"] = [*spec.get("tolerations", ()), *DAEMON_TOLERATIONS,
                                   *([NETWORK_UNAVAILABLE] if spec.get("hostNetwork") else [])]
        else:                                        # a Job's pod
            meta["generateName"] = f"{w.name}-"
            meta["name"] = self._unique(w.namespace, w.name)
            labels.update({"batch.kubernetes.io/controller-uid": w.uid, "batch.kubernetes.io/job-name": w.name,
                           "controller-uid": w.uid, "job-name": w.name})
        meta["labels"] = labels
        if not self.shape.lean:
            meta["uid"] = generate._uid(rng)
        if not self.shape.lean:
            meta.update({"creationTimestamp": CREATED, "ownerReferences": [{
                "apiVersion": "batch/v1" if w.kind == "Job" else "apps/v1", "kind": owner_kind, "name": owner_name,
                "uid": owner_uid, "controller": True, "blockOwnerDeletion": True}]})
        spec["nodeName"] = node_name
        w.pods.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
                       "status": {"phase": "Running"}})

    def _claim(self, w: Workload, claim: str, node: Obj) -> None:
        zone = node["metadata"]["labels"][ZONE]
        volume = f"pvc-{generate._uid(self.rng)}"
        self.extra.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                           "metadata": {"name": claim, "namespace": w.namespace, "uid": volume[4:],
                                        "labels": {"app": w.labels["app"]},
                                        "annotations": {"pv.kubernetes.io/bind-completed": "yes",
                                                        "pv.kubernetes.io/bound-by-controller": "yes"}},
                           "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "gp3",
                                    "resources": {"requests": {"storage": "20Gi"}}, "volumeName": volume},
                           "status": {"phase": "Bound"}})
        self.extra.append({"apiVersion": "v1", "kind": "PersistentVolume",
                           "metadata": {"name": volume,
                                        "annotations": {"pv.kubernetes.io/provisioned-by": "ebs.csi.aws.com"}},
                           "spec": {"capacity": {"storage": "20Gi"}, "accessModes": ["ReadWriteOnce"],
                                    "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "gp3",
                                    "claimRef": {"kind": "PersistentVolumeClaim", "namespace": w.namespace,
                                                 "name": claim, "uid": volume[4:]},
                                    "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": f"vol-{volume[4:21]}",
                                            "fsType": "ext4"},
                                    "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                                        {"key": ZONE, "operator": "In", "values": [zone]}]}]}}},
                           "status": {"phase": "Bound"}})

    # -- objects -------------------------------------------------------------------------------
    def controllers(self) -> list[Obj]:
        out: list[Obj] = []
        for w in self.workloads:
            selector = {"matchLabels": {"app": w.labels["app"]}}
            template = {"metadata": {"labels": w.labels}, "spec": w.spec}
            if w.kind == "Deployment":
                for revision in w.revisions:
                    count = sum(1 for p in w.pods if p["metadata"]["labels"].get("pod-template-hash", revision)
                                == revision)
                    out.append({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                "metadata": {"name": f"{w.name}-{revision}", "namespace": w.namespace,
                                             "uid": w.owner_uids[revision],
                                             "labels": {**w.labels, "pod-template-hash": revision}},
                                "spec": {"replicas": count,
                                         "selector": {"matchLabels": {**selector["matchLabels"],
                                                                      "pod-template-hash": revision}},
                                         "template": template}})
            elif w.kind == "StatefulSet":
                out.append({"apiVersion": "apps/v1", "kind": "StatefulSet",
                            "metadata": {"name": w.name, "namespace": w.namespace, "uid": w.uid, "labels": w.labels},
                            "spec": {"replicas": len(w.pods), "serviceName": w.name, "selector": selector,
                                     "template": template}})
            if w.kind in ("Deployment", "StatefulSet") and self.rng.random() < 0.7:
                out.append({"apiVersion": "v1", "kind": "Service",
                            "metadata": {"name": w.name, "namespace": w.namespace},
                            "spec": {"selector": {"app": w.labels["app"]},
                                     "ports": [{"port": 80, "targetPort": "http", "protocol": "TCP"}]}})
        return out

    def objects(self) -> list[Obj]:
        self.shape.build(self)
        self.place()
        objects: list[Obj] = [{"apiVersion": "v1", "kind": "Namespace",
                               "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns}}}
                              for ns in ("kube-system", *self.namespaces)]
        objects.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                        "metadata": {"name": "high-priority"}, "value": 100000})
        objects.append({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                        "metadata": {"name": "gp3"}, "provisioner": "ebs.csi.aws.com",
                        "volumeBindingMode": "WaitForFirstConsumer"})
        objects += self.nodes
        objects += self.controllers()
        objects += self.extra
        pods = [p for w in self.workloads for p in w.pods]
        self.rng.shuffle(pods)                      # listed as an API server lists them: by name, not by owner
        pods.sort(key=lambda p: (p["metadata"]["namespace"], p["metadata"]["name"]))
        return objects + pods


# -- the shapes' workloads ----------------------------------------------------------------------
def _replica_counts(rng: random.Random, apps: int, total: int) -> list[int]:
    """`apps` replica counts summing to about `total`: a long tail (a few Deployments of
    thousands of pods, most of a few dozen), each at least 1."""
    weights = [rng.lognormvariate(0, 1.3) for _ in range(apps)]
    scale = total / sum(weights)
    return [max(1, round(w * scale)) for w in weights]


def _deployments(c: Cluster, apps: int, total: int, traits: Callable[[random.Random, Workload], None],
                 namespaces: int) -> list[Workload]:
    rng = c.rng
    c.namespaces = [f"ns-{t}" for t in TEAMS[:namespaces]]
    out = []
    counts = _replica_counts(rng, apps, total)
    for i, replicas in enumerate(counts):
        team = TEAMS[i % len(TEAMS)]
        tier = _tier(rng)
        name = f"{tier}-svc-{i:04d}"
        labels = {"app": name, "team": team, "tier": tier}
        spec = c.pod_spec(name, team, cpu=rng.choice(("50m", "100m", "200m", "250m", "500m")),
                          memory=rng.choice(("64Mi", "128Mi", "256Mi", "512Mi", "1Gi")),
                          image=f"registry.example/svc-{i:03d}:1.{rng.randint(0, 20)}.{rng.randint(0, 9)}")
        w = c.add(Workload("Deployment", name, c.namespaces[i % namespaces], labels, spec, replicas,
                           revisions=(f"{rng.getrandbits(40):010x}"[:10],)))
        traits(rng, w)
        out.append(w)
    deficit = total - sum(w.replicas for w in out)          # replicas capped by one-per-node rules
    if deficit > 0:
        max((w for w in out if not w.hard_anti), key=lambda w: w.replicas).replicas += deficit
    return out


def _anti(selector: Obj, key: str, weight: int | None = None) -> Obj:
    term = {"labelSelector": selector, "topologyKey": key}
    return term if weight is None else {"weight": weight, "podAffinityTerm": term}


def _build_teams(c: Cluster) -> None:
    nodes = c.nodes_wanted
    apps = max(30, round(600 * nodes / 5000))

    def traits(rng: random.Random, w: Workload) -> None:
        roll = rng.random()
        selector = {"matchLabels": {"app": w.name}}
        affinity: Obj = {}
        if roll < 0.10:
            w.hard_anti = True
            w.replicas = min(w.replicas, int(nodes * 0.8))
            affinity["requiredDuringSchedulingIgnoredDuringExecution"] = [_anti(selector, HOSTNAME)]
        elif roll < 0.20:
            affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [_anti(selector, HOSTNAME, 100)]
        if affinity:
            w.spec["affinity"] = {"podAntiAffinity": affinity}
        if 0.20 <= roll < 0.30:
            w.zone_spread = True
            w.spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": ZONE,
                                                    "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": selector}]
        if rng.random() < 0.08:
            w.tolerates = "dedicated"
            w.spec["tolerations"] = [{"key": "dedicated", "operator": "Equal", "value": "batch",
                                      "effect": "NoSchedule"}]
    ws = _deployments(c, apps, c.pods_per_node * nodes, traits, 12)
    ws[0].name = ws[0].labels["app"] = TEAMS_APP          # the pending pod's app: about 1% of the nodes
    ws[0].labels.update({"team": TEAMS[0], "tier": "web"})
    ws[0].replicas = max(3, nodes // 100)
    ws[0].hard_anti, ws[0].zone_spread = True, True
    ws[0].spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _anti({"matchLabels": {"app": TEAMS_APP}}, HOSTNAME)]}}


TEAMS_APP = "storefront"
PENDING_NAMESPACE = "ns-team-a"


def _pending(app: str, unschedulable: bool, *, wide: bool) -> Obj:
    own = {"matchLabels": {"app": app}}
    affinity: Obj = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                {"key": "eks.amazonaws.com/nodegroup", "operator": "In", "values": ["general", "compute"]}]}]},
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 50, "preference": {"matchExpressions": [
                    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.8xlarge"]}]}}]},
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [_anti(own, HOSTNAME)],
            "preferredDuringSchedulingIgnoredDuringExecution": [
                _anti({"matchLabels": {"tier": "web"}}, HOSTNAME, 40)]}}
    spread: list[Obj] = [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                          "labelSelector": own}]
    if wide:
        affinity["podAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            _anti({"matchExpressions": [{"key": "team", "operator": "In", "values": [TEAMS[0]]}]}, ZONE, 20)]}
        spread.append({"maxSkew": 2, "topologyKey": HOSTNAME, "whenUnsatisfiable": "ScheduleAnyway",
                       "labelSelector": {"matchLabels": {"team": TEAMS[0]}}})
    spec: Obj = {
        "containers": [{"name": "web", "image": f"registry.example/{app}:2.0.0",
                        "ports": [{"containerPort": 8080, "name": "http"}],
                        "resources": {"requests": {"cpu": "64" if unschedulable else "300m", "memory": "512Mi"}}}],
        "affinity": affinity,
        "topologySpreadConstraints": spread,
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}]}
    if unschedulable:
        spec["priorityClassName"] = "high-priority"
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{app}-{'unschedulable' if unschedulable else 'pending'}",
                         "namespace": PENDING_NAMESPACE, "labels": {"app": app, "team": TEAMS[0], "tier": "web"}},
            "spec": spec}


def _plain() -> Obj:
    """Requests and a nodeSelector, and the labels every pod of these clusters carries (so the
    existing pods' terms over teams and tiers select it)."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "plain", "namespace": PENDING_NAMESPACE,
                         "labels": {"app": "plain", "team": TEAMS[0], "tier": "web"}},
            "spec": {"containers": [{"name": "app", "image": "registry.example/plain:1.0.0",
                                     "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}}}],
                     "nodeSelector": {"eks.amazonaws.com/nodegroup": "general"}}}


WIDE_APP = "checkout"
# What the DaemonSet controller adds to each of its pods.
DAEMON_TOLERATIONS = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"})
NETWORK_UNAVAILABLE = {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists", "effect": "NoSchedule"}
DAEMONSETS = (("kube-proxy", "100m", "*"), ("aws-node", "25m", "*"), ("ebs-csi-node", "10m", "*"),
              ("node-exporter", "50m", None), ("fluent-bit", "100m", "dedicated"))


def _build_wide(c: Cluster) -> None:
    nodes = c.nodes_wanted
    rng = c.rng
    big_zone = c.shape.zones[0][0]

    def traits(rng: random.Random, w: Workload) -> None:
        team, tier = w.labels["team"], w.labels["tier"]
        pod_affinity: Obj = {}
        anti: Obj = {}
        if rng.random() < 0.30:
            pod_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
                _anti({"matchLabels": {"team": team}}, ZONE, rng.choice((10, 20, 50)))]
        if rng.random() < 0.20:
            anti["preferredDuringSchedulingIgnoredDuringExecution"] = [
                _anti({"matchExpressions": [{"key": "tier", "operator": "In", "values": [tier]}]}, HOSTNAME,
                      rng.choice((10, 30)))]
        if rng.random() < 0.10:
            w.hard_anti = True
            w.replicas = min(w.replicas, int(nodes * 0.8))
            anti["requiredDuringSchedulingIgnoredDuringExecution"] = [_anti({"matchLabels": {"app": w.name}},
                                                                              HOSTNAME)]
        affinity = {k: v for k, v in (("podAffinity", pod_affinity), ("podAntiAffinity", anti)) if v}
        if affinity:
            w.spec["affinity"] = affinity
        roll = rng.random()
        if roll < 0.15:
            w.zone_spread = True
            w.spec["topologySpreadConstraints"] = [{
                "maxSkew": 1, "topologyKey": ZONE, "labelSelector": {"matchLabels": {"app": w.name}},
                "whenUnsatisfiable": rng.choice(("ScheduleAnyway", "DoNotSchedule")),
                "matchLabelKeys": ["pod-template-hash"]}]
        elif roll < 0.50:
            w.zone_bias = big_zone
        if rng.random() < 0.08:
            w.tolerates = "dedicated"
            w.spec["tolerations"] = [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]
        if rng.random() < 0.25:                   # mid-rollout: the old ReplicaSet still has pods
            w.revisions = (*w.revisions, f"{rng.getrandbits(40):010x}"[:10])
        if rng.random() < 0.3:
            w.spec["initContainers"] = [{"name": "init", "image": "registry.example/init:1.0",
                                         "command": ["/init"], "resources": {"requests": {"cpu": "10m"}}}]
    daemon_pods = sum(1 for _ in DAEMONSETS) * nodes
    stateful_pods = max(3, nodes // 2)
    job_pods = max(2, nodes // 5)
    total = c.pods_per_node * nodes - daemon_pods - stateful_pods - job_pods
    ws = _deployments(c, max(40, round(1200 * nodes / 5000)), total, traits, 30)
    ws[0].name = ws[0].labels["app"] = WIDE_APP
    ws[0].labels.update({"team": TEAMS[0], "tier": "web"})
    ws[0].replicas = max(6, nodes // 25)
    ws[0].hard_anti, ws[0].zone_spread, ws[0].zone_bias, ws[0].tolerates = True, False, big_zone, None
    ws[0].spec.pop("tolerations", None)
    ws[0].spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        _anti({"matchLabels": {"app": WIDE_APP}}, HOSTNAME)]}}
    ws[0].spec.pop("topologySpreadConstraints", None)
    for name, cpu, tolerates in DAEMONSETS:
        spec: Obj = {"containers": [{"name": name, "image": f"registry.k8s.io/{name}:v1.35.4",
                                     "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}],
                     "priorityClassName": "system-node-critical", "serviceAccountName": name,
                     "hostNetwork": name != "fluent-bit",
                     "tolerations": [{"operator": "Exists"}] if tolerates == "*" else
                     [{"key": "dedicated", "operator": "Exists"}] if tolerates else []}
        c.add(Workload("DaemonSet", name, "kube-system", {"app": name, "team": "platform", "tier": "system"},
                       spec, revisions=(f"{rng.getrandbits(32):08x}",), tolerates=tolerates))
    for i in range(max(1, nodes // 100)):
        team = TEAMS[i % len(TEAMS)]
        name = f"db-{i:03d}"
        w = c.add(Workload("StatefulSet", name, c.namespaces[i % len(c.namespaces)],
                           {"app": name, "team": team, "tier": "data"},
                           c.pod_spec(name, team, cpu="500m", memory="2Gi", image="registry.example/postgres:16.4"),
                           max(1, stateful_pods // max(1, nodes // 100)), revisions=(f"{rng.getrandbits(32):08x}",)))
        w.hard_anti = True
        w.spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            _anti({"matchLabels": {"app": name}}, HOSTNAME)]}}
    for i in range(max(1, nodes // 50)):
        team = TEAMS[i % len(TEAMS)]
        name = f"report-{i:03d}-29{rng.randint(100000, 999999)}"
        spec = c.pod_spec(name, team, cpu="1", memory="1Gi", image="registry.example/report:3.1")
        spec["restartPolicy"] = "Never"
        c.add(Workload("Job", name, c.namespaces[i % len(c.namespaces)],
                       {"app": "report", "team": team, "tier": "worker"}, spec, max(1, job_pods // max(1, nodes // 50))))


SHAPES = {
    "teams": Shape("teams", (("us-east-1a", 1 / 3), ("us-east-1b", 1 / 3), ("us-east-1c", 1 / 3)), _build_teams,
                   lambda unschedulable: _pending(TEAMS_APP, unschedulable, wide=False), _plain, lean=True),
    "wide": Shape("wide", (("us-east-1a", 0.55), ("us-east-1b", 0.30), ("us-east-1c", 0.15)), _build_wide,
                  lambda unschedulable: _pending(WIDE_APP, unschedulable, wide=True), _plain),
}


def cluster(shape: str, nodes: int, pods_per_node: int, seed: int) -> list[Obj]:
    """The cluster of `shape`, as an API server stores it (`generate.stored`)."""
    c = Cluster(SHAPES[shape], nodes, pods_per_node, seed)
    return generate.stored(c.objects(), {n["metadata"]["name"]: n for n in c.nodes})

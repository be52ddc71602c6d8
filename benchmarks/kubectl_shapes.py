"""Clusters as `kubectl get nodes,pods -o json` prints a busy one: the `lean` and `heavy` shapes.

The other shapes (`generate.py`, `cluster_shapes.py`) were written with kexplain's model in mind.
These copy what an API server returns instead: every mapping's keys in the order kubectl prints
them (sorted: it prints unstructured maps), nodes with their conditions, addresses, node info and
image lists, pods with their owner references, the fields admission defaulted (`dnsPolicy`,
`schedulerName`, `terminationGracePeriodSeconds`, ...) and a status.

- `lean`: pods of about 700 bytes each (129 MB for 5,000 nodes): two labels, no annotations,
  one container with requests, an owner, a phase and a pod IP. 600 Deployments of a long tail
  of replica counts, two DaemonSets.
- `heavy`: pods of about 5 KB (780 MB): a dozen labels and five annotations, an app container
  and a service-mesh sidecar, the mesh's init container, a probe, environment, volume mounts,
  four volumes (a configMap, emptyDirs, a projected service-account token named as each pod's own:
  `kube-api-access-x7k2p`), the fields
  admission defaulted, the default tolerations, and a status with conditions and container
  statuses (each pod's own container ids and start times). Four DaemonSets, and 3% of the pods
  of StatefulSets with a claim (and its volume) each.

- `kubectl`: `heavy`'s objects written as `kubectl get nodes,pods -A -o json` writes them (Go's
  `json.MarshalIndent` with four spaces: one value a line, `": "` after a key; the List's own
  `metadata` last), about 1.3 GB for 5,000 nodes: the dump issue 55 asks to be read by default.

All make about 29 pods per node (146,000 on 5,000 nodes) over three zones, 8% of the nodes
tainted and 1% cordoned, and the pending pods of `cluster_shapes.py`'s `teams` (its app here
too). The objects are stored ones (a resourceVersion each), as `generate.stored` leaves them;
`load_bench.unstored_snapshot` removes the resourceVersions for the unstored rows.
"""
from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any, Callable

import cluster_shapes
import generate
from generate import Obj

ZONES = (("us-east-1a", 0.4), ("us-east-1b", 0.35), ("us-east-1c", 0.25))
REGION = generate.REGION
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
APP = cluster_shapes.TEAMS_APP          # the pending pods' app (`cluster_shapes._pending`)
PENDING_NAMESPACE = cluster_shapes.PENDING_NAMESPACE
TEAMS = cluster_shapes.TEAMS
CREATED = "2026-01-01T00:00:00Z"
ALPHABET = cluster_shapes.ALPHABET


def _sorted(value: Any) -> Any:
    """`value` with every mapping's keys sorted, as kubectl prints an object."""
    if type(value) is dict:
        return {k: _sorted(value[k]) for k in sorted(value)}
    if type(value) is list:
        return [_sorted(v) for v in value]
    return value


class Maker:
    """One cluster of a shape being made: a seeded generator, names taken, resource versions."""

    def __init__(self, heavy: bool, seed: int, mesh: bool = True) -> None:
        self.heavy = heavy
        self.mesh = mesh
        self.rng = random.Random(seed)
        self.tokens = random.Random(seed + 1)       # (the token volumes' names: the rest as before they had any)
        self.version = 5_000_000
        self.taken: set[tuple[str, str]] = set()
        self.claims: list[tuple[Obj, Obj]] = []       # (a StatefulSet pod's claim, its volume)

    def uid(self) -> str:
        return generate._uid(self.rng)

    def rv(self) -> str:
        self.version += self.rng.randint(1, 40)
        return str(self.version)

    def unique(self, namespace: str, prefix: str) -> str:
        name = f"{prefix}-{''.join(self.rng.choice(ALPHABET) for _ in range(5))}"
        while (namespace, name) in self.taken:
            name = f"{prefix}-{''.join(self.rng.choice(ALPHABET) for _ in range(5))}"
        self.taken.add((namespace, name))
        return name

    def own_token(self, spec: Obj) -> Obj:
        """`spec` with its service account's token volume named as the API server names it in each pod
        since Kubernetes 1.22 (`kube-api-access-` and five characters of its own), in the volumes and the
        containers' mounts."""
        token = f"kube-api-access-{''.join(self.tokens.choice(ALPHABET) for _ in range(5))}"

        def mounts(containers: list[Obj]) -> list[Obj]:
            return [{**c, "volumeMounts": [{**m, "name": token} if m["name"] == "kube-api-access" else m
                                           for m in c["volumeMounts"]]} if "volumeMounts" in c else c
                    for c in containers]
        out = {**spec, "volumes": [{**v, "name": token} if v["name"] == "kube-api-access" else v
                                   for v in spec["volumes"]], "containers": mounts(spec["containers"])}
        if "initContainers" in spec:
            out["initContainers"] = mounts(spec["initContainers"])
        return out

    def ip(self, prefix: str = "10.1") -> str:
        return f"{prefix}.{self.rng.randint(0, 255)}.{self.rng.randint(1, 254)}"

    # -- nodes -------------------------------------------------------------------------------------
    def node(self, i: int) -> Obj:
        rng = self.rng
        zone = rng.choices([z for z, _ in ZONES], [w for _, w in ZONES])[0]
        ip = f"10.0.{i // 250}.{i % 250 + 2}"
        name = f"ip-{ip.replace('.', '-')}.ec2.internal"
        itype, cpu, memory = rng.choice(generate.INSTANCE_TYPES)
        group = rng.choice(("general", "general", "general", "compute", "memory"))
        labels = {"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": itype,
                  "beta.kubernetes.io/os": "linux", "eks.amazonaws.com/capacityType": "ON_DEMAND",
                  "eks.amazonaws.com/nodegroup": group, "eks.amazonaws.com/nodegroup-image": "ami-0a1b2c3d4e5f67890",
                  "failure-domain.beta.kubernetes.io/region": REGION, "failure-domain.beta.kubernetes.io/zone": zone,
                  HOSTNAME: name, "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
                  "node.kubernetes.io/instance-type": itype, "topology.ebs.csi.aws.com/zone": zone,
                  "topology.kubernetes.io/region": REGION, ZONE: zone}
        spec: Obj = {"providerID": f"aws:///{zone}/i-{rng.getrandbits(64):016x}"}
        roll = rng.random()
        if roll < 0.05:
            spec["taints"] = [{"effect": "NoSchedule", "key": "dedicated", "value": "batch"}]
            labels["dedicated"] = "batch"
        elif roll < 0.08:
            spec["taints"] = [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "present"}]
            labels["nvidia.com/gpu.present"] = "true"
        if rng.random() < 0.01:
            spec["unschedulable"] = True
            spec.setdefault("taints", []).append({"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable",
                                                  "timeAdded": CREATED})
        capacity = {"attachable-volumes-aws-ebs": "25", "cpu": cpu, "ephemeral-storage": "104845292Ki",
                    "hugepages-1Gi": "0", "hugepages-2Mi": "0", "memory": memory, "pods": "110"}
        allocatable = {**capacity, "cpu": f"{int(cpu) * 1000 - 90}m", "ephemeral-storage": "95551679124"}
        beat = "2026-01-01T06:00:00Z"
        conditions = [{"lastHeartbeatTime": beat, "lastTransitionTime": CREATED, "message": message,
                       "reason": reason, "status": status, "type": kind}
                      for kind, status, reason, message in (
                          ("MemoryPressure", "False", "KubeletHasSufficientMemory",
                           "kubelet has sufficient memory available"),
                          ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                          ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                          ("Ready", "True", "KubeletReady", "kubelet is posting ready status"))]
        images = [{"names": [f"registry.example/svc-{rng.randint(0, 599):03d}@sha256:{rng.getrandbits(256):064x}",
                             f"registry.example/svc-{rng.randint(0, 599):03d}:1.{rng.randint(0, 20)}.0"],
                   "sizeBytes": rng.randint(10, 900) * 1_000_000} for _ in range(8)]
        node_info = {"architecture": "amd64", "bootID": self.uid(), "containerRuntimeVersion": "containerd://1.7.27",
                     "kernelVersion": "6.1.132-147.221.amzn2023.x86_64", "kubeProxyVersion": "",
                     "kubeletVersion": "v1.35.4-eks-1a2b3c4", "machineID": f"{rng.getrandbits(128):032x}",
                     "operatingSystem": "linux", "osImage": "Amazon Linux 2023.7.20250512",
                     "systemUUID": f"ec2{rng.getrandbits(116):029x}"}
        return _sorted({"apiVersion": "v1", "kind": "Node", "metadata": {
            "annotations": {"alpha.kubernetes.io/provided-node-ip": ip,
                            "csi.volume.kubernetes.io/nodeid": f'{{"ebs.csi.aws.com":"i-{rng.getrandbits(64):016x}"}}',
                            "node.alpha.kubernetes.io/ttl": "0",
                            "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
            "creationTimestamp": CREATED, "labels": labels, "name": name, "resourceVersion": self.rv(),
            "uid": self.uid()},
            "spec": spec,
            "status": {"addresses": [{"address": ip, "type": "InternalIP"}, {"address": name, "type": "InternalDNS"},
                                     {"address": name, "type": "Hostname"}],
                       "allocatable": allocatable, "capacity": capacity, "conditions": conditions,
                       "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}}, "images": images,
                       "nodeInfo": node_info}})

    # -- pods ----------------------------------------------------------------------------------------
    def lean_pod(self, w: "Workload", node: Obj) -> Obj:
        owner_name = f"{w.name}-{w.revision}" if w.kind == "Deployment" else w.name
        name = self.unique(w.namespace, owner_name)
        labels = {"app": w.app}
        if w.kind == "Deployment":
            labels["pod-template-hash"] = w.revision
        else:
            labels.update({"controller-revision-hash": w.revision, "pod-template-generation": "1"})
        spec: Obj = {"containers": [{"image": w.image, "name": w.container, "resources": w.resources}],
                     "nodeName": node["metadata"]["name"], "priority": w.priority}
        spec.update(w.extra_spec)
        node_ip = node["status"]["addresses"][0]["address"]
        return _sorted({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "creationTimestamp": CREATED, "labels": labels, "name": name, "namespace": w.namespace,
            "ownerReferences": [{"apiVersion": "apps/v1", "controller": True,
                                 "kind": "ReplicaSet" if w.kind == "Deployment" else w.kind, "name": owner_name,
                                 "uid": w.owner_uid}],
            "resourceVersion": self.rv(), "uid": self.uid()},
            "spec": spec,
            "status": {"phase": "Running", "podIP": node_ip if w.host_network else self.ip()}})

    def heavy_pod(self, w: "Workload", node: Obj) -> Obj:
        rng = self.rng
        node_name = node["metadata"]["name"]
        owner_kind = {"Deployment": "ReplicaSet"}.get(w.kind, w.kind)
        owner_name = f"{w.name}-{w.revision}" if w.kind == "Deployment" else w.name
        if w.kind == "StatefulSet":
            name = f"{w.name}-{len(w.names)}"
            w.names.append(name)
        else:
            name = self.unique(w.namespace, owner_name)
        labels = dict(w.labels)
        if w.kind == "Deployment":
            labels["pod-template-hash"] = w.revision
        elif w.kind == "StatefulSet":
            labels.update({"apps.kubernetes.io/pod-index": name.rsplit("-", 1)[1],
                           "controller-revision-hash": f"{w.name}-{w.revision}",
                           "statefulset.kubernetes.io/pod-name": name})
        else:
            labels.update({"controller-revision-hash": w.revision, "pod-template-generation": "4"})
        spec: Obj = {**self.own_token(w.template), "nodeName": node_name}
        if w.kind == "StatefulSet":
            spec.update({"hostname": name, "subdomain": w.name,
                         "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": f"data-{name}"}},
                                     *spec["volumes"]]})
            self.claims.append(self.claim(w, f"data-{name}", node))
        if w.kind == "DaemonSet":
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                        "values": [node_name]}]}]}}}
        started = f"2026-01-01T0{rng.randint(0, 5)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}Z"
        statuses = [{"containerID": f"containerd://{rng.getrandbits(256):064x}", "image": c["image"],
                     "lastState": {}, "name": c["name"], "ready": True, "restartCount": 0, "started": True,
                     "state": {"running": {"startedAt": started}}}
                    for c in spec["containers"]]
        init_statuses = [{"containerID": f"containerd://{rng.getrandbits(256):064x}", "image": c["image"],
                          "lastState": {}, "name": c["name"], "ready": True, "restartCount": 0,
                          "started": False, "state": {"terminated": {"exitCode": 0,
                              "finishedAt": started, "reason": "Completed", "startedAt": started}}}
                         for c in spec.get("initContainers", ())]
        node_ip = node["status"]["addresses"][0]["address"]
        pod_ip = node_ip if spec.get("hostNetwork") else self.ip()
        conditions = [{"lastProbeTime": None, "lastTransitionTime": started, "status": "True", "type": kind}
                      for kind in ("Initialized", "Ready", "ContainersReady", "PodScheduled")]
        status: Obj = {"conditions": conditions, "containerStatuses": statuses, "hostIP": node_ip,
                       "phase": "Running", "podIP": pod_ip, "qosClass": w.qos, "startTime": started}
        if not self.mesh:           # (as a 1.30+ API server writes a pod's status)
            status.update({"hostIPs": [{"ip": node_ip}], "podIPs": [{"ip": pod_ip}]})
        if init_statuses:
            status["initContainerStatuses"] = init_statuses
        return _sorted({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "annotations": w.annotations, "creationTimestamp": started,
            **({"generateName": f"{owner_name}-"} if w.kind != "StatefulSet" else {}),
            "labels": labels, "name": name, "namespace": w.namespace, "ownerReferences": [{
                "apiVersion": "apps/v1", "blockOwnerDeletion": True, "controller": True, "kind": owner_kind,
                "name": owner_name, "uid": w.owner_uid}],
            "resourceVersion": self.rv(), "uid": self.uid()},
            "spec": spec, "status": status})

    def claim(self, w: "Workload", claim: str, node: Obj) -> tuple[Obj, Obj]:
        """A StatefulSet pod's claim, bound, and its volume in the node's zone."""
        zone = node["metadata"]["labels"][ZONE]
        volume = f"pvc-{self.uid()}"
        pvc = _sorted({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {
            "annotations": {"pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes",
                            "volume.kubernetes.io/selected-node": node["metadata"]["name"],
                            "volume.kubernetes.io/storage-provisioner": "ebs.csi.aws.com"},
            "creationTimestamp": CREATED, "finalizers": ["kubernetes.io/pvc-protection"],
            "labels": {"app": w.app}, "name": claim, "namespace": w.namespace, "resourceVersion": self.rv(),
            "uid": volume[4:]},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "20Gi"}},
                     "storageClassName": "gp3", "volumeMode": "Filesystem", "volumeName": volume},
            "status": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "20Gi"}, "phase": "Bound"}})
        pv = _sorted({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {
            "annotations": {"pv.kubernetes.io/provisioned-by": "ebs.csi.aws.com"}, "creationTimestamp": CREATED,
            "finalizers": ["kubernetes.io/pv-protection"], "name": volume, "resourceVersion": self.rv(),
            "uid": self.uid()},
            "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "20Gi"},
                     "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": claim,
                                  "namespace": w.namespace, "resourceVersion": self.rv(), "uid": volume[4:]},
                     "csi": {"driver": "ebs.csi.aws.com", "fsType": "ext4", "volumeHandle": f"vol-{volume[4:21]}"},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": "topology.ebs.csi.aws.com/zone", "operator": "In", "values": [zone]}]}]}},
                     "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "gp3",
                     "volumeMode": "Filesystem"},
            "status": {"phase": "Bound"}})
        return pvc, pv


class Workload:
    """A controller and what its pods share."""

    def __init__(self, m: Maker, kind: str, name: str, namespace: str, app: str, team: str, tier: str,
                 cpu: str, memory: str, image: str, replicas: int) -> None:
        rng = m.rng
        self.kind, self.name, self.namespace, self.app, self.replicas = kind, name, namespace, app, replicas
        self.revision = f"{rng.getrandbits(40):010x}"[:10] if kind == "Deployment" else f"{rng.getrandbits(36):09x}"
        self.owner_uid = m.uid()
        self.image = image
        self.container = app.split("-")[0]
        self.priority = 2000001000 if kind == "DaemonSet" else 0
        self.host_network = False
        self.hard_anti = self.zone_spread = False
        self.tolerates: str | None = None
        self.names: list[str] = []
        requests = {"cpu": cpu, "memory": memory}
        self.resources: Obj = {"requests": requests}
        self.qos = "Burstable"
        self.extra_spec: Obj = {}
        self.labels: dict[str, str] = {"app": app}
        self.annotations: dict[str, str] = {}
        self.template: Obj = {}
        if m.heavy and m.mesh:
            self.heavy_template(m, team, tier, cpu, memory)
        elif m.heavy:
            self.plain_template(team, tier, cpu, memory)

    def heavy_template(self, m: Maker, team: str, tier: str, cpu: str, memory: str) -> None:
        rng = m.rng
        app = self.app
        version = self.image.rsplit(":", 1)[1]
        self.labels = {"app": app, "app.kubernetes.io/component": tier, "app.kubernetes.io/instance": app,
                       "app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/name": app,
                       "app.kubernetes.io/part-of": team, "app.kubernetes.io/version": version,
                       "security.istio.io/tlsMode": "istio", "service.istio.io/canonical-name": app,
                       "team": team, "tier": tier}
        config_sum = hashlib.sha256(f"{app}{rng.random()}".encode()).hexdigest()
        self.annotations = {
            "checksum/config": config_sum, "kubectl.kubernetes.io/default-container": self.container,
            "kubectl.kubernetes.io/restartedAt": "2025-12-30T10:15:00Z", "prometheus.io/port": "15020",
            "prometheus.io/scrape": "true"}
        limits = {"cpu": str(max(1, int(cpu.rstrip("m")) * 4 // 1000)) if cpu.endswith("m") else cpu, "memory": memory}
        mounts = [{"mountPath": "/etc/config", "name": "config", "readOnly": True},
                  {"mountPath": "/tmp", "name": "tmp"},
                  {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access",
                   "readOnly": True}]
        mesh = "docker.io/istio/proxyv2:1.26.2"
        self.template = {
            "containers": [
                {"env": [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                                          "fieldPath": "metadata.name"}}}],
                 "image": self.image, "imagePullPolicy": "IfNotPresent", "name": self.container,
                 "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                 "readinessProbe": {"failureThreshold": 3, "httpGet": {"path": "/ready", "port": 8080,
                                                                       "scheme": "HTTP"},
                                    "periodSeconds": 10, "successThreshold": 1, "timeoutSeconds": 1},
                 "resources": {"limits": limits, "requests": {"cpu": cpu, "memory": memory}},
                 "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                 "volumeMounts": mounts},
                {"args": ["proxy", "sidecar", "--domain", f"{self.namespace}.svc.cluster.local"],
                 "image": mesh, "imagePullPolicy": "IfNotPresent", "name": "istio-proxy",
                 "resources": {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "100m",
                                                                                      "memory": "128Mi"}},
                 "volumeMounts": [{"mountPath": "/etc/istio/proxy", "name": "istio-envoy"}]}],
            "dnsPolicy": "ClusterFirst", "enableServiceLinks": True,
            "initContainers": [{"args": ["istio-iptables", "-p", "15001"], "image": mesh,
                                "imagePullPolicy": "IfNotPresent", "name": "istio-init",
                                "resources": {"limits": {"cpu": "2", "memory": "1Gi"},
                                              "requests": {"cpu": "100m", "memory": "128Mi"}},
                                "terminationMessagePath": "/dev/termination-log",
                                "terminationMessagePolicy": "File"}],
            "preemptionPolicy": "PreemptLowerPriority", "priority": self.priority, "restartPolicy": "Always",
            "schedulerName": "default-scheduler", "securityContext": {"fsGroup": 1000, "runAsNonRoot": True},
            "serviceAccount": app, "serviceAccountName": app, "terminationGracePeriodSeconds": 30,
            "tolerations": [{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists",
                             "tolerationSeconds": 300},
                            {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists",
                             "tolerationSeconds": 300}],
            "volumes": [{"configMap": {"defaultMode": 420, "name": f"{app}-config"}, "name": "config"},
                        {"emptyDir": {}, "name": "tmp"}, {"emptyDir": {"medium": "Memory"}, "name": "istio-envoy"},
                        {"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
                            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                            {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}],
                                           "name": "kube-root-ca.crt"}}]}}]}


    def plain_template(self, team: str, tier: str, cpu: str, memory: str) -> None:
        """The `kubectl` shape's pods: the issue's (four labels, one container with cpu and memory
        requests and a memory limit; here a port, an environment variable and a restart
        annotation too) with what the API server, the service-account admission and the kubelet
        add to every pod (defaults, the projected token volume, a full status)."""
        self.labels = {"app": self.app, "team": team, "tier": tier}
        self.annotations = {"kubectl.kubernetes.io/restartedAt": "2025-12-30T10:15:00Z"}
        self.template = {
            "containers": [
                {"env": [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1",
                                                                          "fieldPath": "metadata.name"}}}],
                 "image": self.image, "imagePullPolicy": "IfNotPresent", "name": self.container,
                 "ports": [{"containerPort": 8080, "name": "http", "protocol": "TCP"}],
                 "resources": {"limits": {"memory": memory}, "requests": {"cpu": cpu, "memory": memory}},
                 "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                 "volumeMounts": [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                                   "name": "kube-api-access", "readOnly": True}]}],
            "dnsPolicy": "ClusterFirst", "enableServiceLinks": True,
            "preemptionPolicy": "PreemptLowerPriority", "priority": self.priority, "restartPolicy": "Always",
            "schedulerName": "default-scheduler", "securityContext": {},
            "serviceAccount": "default", "serviceAccountName": "default", "terminationGracePeriodSeconds": 30,
            "tolerations": [{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists",
                             "tolerationSeconds": 300},
                            {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists",
                             "tolerationSeconds": 300}],
            "volumes": [{"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
                {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                                            "path": "namespace"}]}}]}}]}


def _workloads(m: Maker, nodes: int, pods_per_node: int) -> list[Workload]:
    rng = m.rng
    namespaces = [f"ns-{t}" for t in TEAMS[:12]]
    daemons = (("kube-proxy", "100m", "*"), ("aws-node", "25m", "*")) if not m.heavy else \
        (("kube-proxy", "100m", "*"), ("aws-node", "25m", "*"), ("ebs-csi-node", "10m", "*"),
         ("node-exporter", "50m", None))
    out: list[Workload] = []
    for name, cpu, tolerates in daemons:
        w = Workload(m, "DaemonSet", name, "kube-system", name, "platform", "system", cpu, "64Mi",
                     f"registry.k8s.io/{name}:v1.35.4", 0)
        w.tolerates = tolerates
        w.priority = 2000001000
        w.host_network = name in ("kube-proxy", "aws-node")
        w.extra_spec = {"tolerations": [{"operator": "Exists"}]} if tolerates == "*" else {}
        if m.heavy:
            w.template = {**w.template, "priority": w.priority, "priorityClassName": "system-node-critical",
                          "hostNetwork": w.host_network,
                          "tolerations": [{"operator": "Exists"}] if tolerates == "*" else w.template["tolerations"]}
        else:
            w.extra_spec["priorityClassName"] = "system-node-critical"
        out.append(w)
    stateful = 0.03 if m.heavy else 0.0
    total = pods_per_node * nodes - sum(1 for _ in daemons) * nodes
    apps = max(30, round(600 * nodes / 5000))
    weights = [rng.lognormvariate(0, 1.3) for _ in range(apps)]
    scale = total * (1 - stateful) / sum(weights)
    for i, weight in enumerate(weights):
        team = TEAMS[i % len(TEAMS)]
        tier = rng.choices(("web", "api", "worker", "cache", "data"), (0.3, 0.25, 0.25, 0.1, 0.1))[0]
        app = APP if i == 0 else f"{tier}-svc-{i:04d}"
        w = Workload(m, "Deployment", app, namespaces[i % len(namespaces)] if i else PENDING_NAMESPACE, app, team,
                     tier, rng.choice(("50m", "100m", "200m", "250m", "500m")),
                     rng.choice(("64Mi", "128Mi", "256Mi", "512Mi", "1Gi")),
                     f"registry.example/svc-{i:03d}:1.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
                     max(3, nodes // 100) if i == 0 else max(1, round(weight * scale)))
        roll = rng.random()
        affinity: Obj = {}
        selector = {"matchLabels": {"app": app}}
        if i == 0 or roll < 0.10:
            w.hard_anti = True
            w.replicas = min(w.replicas, int(nodes * 0.8))
            affinity["requiredDuringSchedulingIgnoredDuringExecution"] = [
                {"labelSelector": selector, "topologyKey": HOSTNAME}]
        elif roll < 0.20:
            affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
                {"podAffinityTerm": {"labelSelector": selector, "topologyKey": HOSTNAME}, "weight": 100}]
        extra: Obj = {}
        if affinity:
            extra["affinity"] = {"podAntiAffinity": affinity}
        if 0.20 <= roll < 0.30:
            w.zone_spread = True
            extra["topologySpreadConstraints"] = [{"labelSelector": selector, "maxSkew": 1, "topologyKey": ZONE,
                                                   "whenUnsatisfiable": "ScheduleAnyway"}]
        if rng.random() < 0.08:
            w.tolerates = "dedicated"
            toleration = {"effect": "NoSchedule", "key": "dedicated", "operator": "Equal", "value": "batch"}
            if m.heavy:
                extra["tolerations"] = [toleration, *w.template["tolerations"]]
            else:
                extra["tolerations"] = [toleration]
        if m.heavy:
            w.template = {**w.template, **extra}
        else:
            w.extra_spec = extra
        out.append(w)
    if m.heavy:
        for i in range(max(1, nodes // 100)):
            team = TEAMS[i % len(TEAMS)]
            w = Workload(m, "StatefulSet", f"db-{i:03d}", namespaces[i % len(namespaces)], f"db-{i:03d}", team,
                         "data", "500m", "2Gi", "registry.example/postgres:16.4",
                         max(1, round(total * stateful / max(1, nodes // 100))))
            w.hard_anti = True
            w.template = {**w.template, "affinity": {"podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": w.app}}, "topologyKey": HOSTNAME}]}}}
            out.append(w)
    deficit = total - sum(w.replicas for w in out if w.kind != "DaemonSet")
    if deficit > 0:
        biggest = max((w for w in out if not w.hard_anti and w.kind == "Deployment"), key=lambda w: w.replicas)
        biggest.replicas += deficit
    return out


def _tolerated(node: Obj, key: str | None) -> bool:
    if key == "*":
        return True
    return all(t["key"] == key for t in node["spec"].get("taints", ())
               if t["key"] != "node.kubernetes.io/unschedulable")


def cluster(heavy: bool, nodes: int, pods_per_node: int, seed: int, mesh: bool = True) -> list[Obj]:
    """The cluster's objects, as `kubectl get -o json` lists them (each kind by namespace and name);
    `mesh` False: heavy's cluster with the `kubectl` shape's pods (`Workload.plain_template`)."""
    m = Maker(heavy, seed, mesh)
    node_objs = [m.node(i) for i in range(nodes)]
    make: Callable[[Workload, Obj], Obj] = m.heavy_pod if heavy else m.lean_pod
    load = {n["metadata"]["name"]: 0 for n in node_objs}
    pods: list[Obj] = []
    workloads = _workloads(m, nodes, pods_per_node)
    rng = m.rng
    by_zone: dict[str, list[Obj]] = {}
    for n in node_objs:
        by_zone.setdefault(n["metadata"]["labels"][ZONE], []).append(n)
    for w in workloads:
        if w.kind == "DaemonSet":
            for n in node_objs:
                if _tolerated(n, w.tolerates):
                    load[n["metadata"]["name"]] += 1
                    pods.append(make(w, n))
            continue
        eligible = [n for n in node_objs if _tolerated(n, w.tolerates)]
        zones = sorted({n["metadata"]["labels"][ZONE] for n in eligible})
        pools = {z: [n for n in eligible if n["metadata"]["labels"][ZONE] == z] for z in zones}
        used: set[str] = set()
        for i in range(w.replicas):
            pool = pools[zones[i % len(zones)]] if w.zone_spread else eligible
            node = None
            for _ in range(12):
                candidate = rng.choice(pool)
                if w.hard_anti and candidate["metadata"]["name"] in used:
                    continue
                node = candidate
                if load[candidate["metadata"]["name"]] < pods_per_node:
                    break
            if node is None:
                free = [n for n in pool if n["metadata"]["name"] not in used]
                if not free:
                    break
                node = rng.choice(free)
            used.add(node["metadata"]["name"])
            load[node["metadata"]["name"]] += 1
            pods.append(make(w, node))
    pods.sort(key=lambda p: (p["metadata"]["namespace"], p["metadata"]["name"]))
    objects: list[Obj] = [_sorted({"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "creationTimestamp": CREATED, "labels": {"kubernetes.io/metadata.name": ns}, "name": ns,
        "resourceVersion": m.rv(), "uid": m.uid()}, "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"}})
        for ns in sorted({"default", "kube-system", *(w.namespace for w in workloads)})]
    objects.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {
        "creationTimestamp": CREATED, "name": "high-priority", "resourceVersion": m.rv(), "uid": m.uid()},
        "preemptionPolicy": "PreemptLowerPriority", "value": 100000})
    objects.append({"allowVolumeExpansion": True, "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                    "metadata": {"creationTimestamp": CREATED, "name": "gp3", "resourceVersion": m.rv(),
                                 "uid": m.uid()},
                    "parameters": {"type": "gp3"}, "provisioner": "ebs.csi.aws.com", "reclaimPolicy": "Delete",
                    "volumeBindingMode": "WaitForFirstConsumer"})
    objects += node_objs
    claims = sorted(m.claims, key=lambda c: (c[0]["metadata"]["namespace"], c[0]["metadata"]["name"]))
    objects += [pvc for pvc, _ in claims]
    objects += sorted((pv for _, pv in claims), key=lambda v: v["metadata"]["name"])
    objects += pods
    return objects


def pending(unschedulable: bool) -> Obj:
    return cluster_shapes._pending(APP, unschedulable, wide=False)


PODS_PER_NODE = 29


def dump_as_kubectl(path: Path, items: list[Obj]) -> None:
    """`items` written to `path` as kubectl writes a List with `-o json`: its keys sorted, four
    spaces a level, non-ASCII escaped (Go escapes `<`, `>` and `&` too; none occur here)."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}},
                  fh, indent=4)
        fh.write("\n")

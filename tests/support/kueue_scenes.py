"""Small Kueue clusters and jobs written to a folder, for the tests of what kexplain says around
Kueue's answer: a ClusterQueue of 4 cpu over one tainted GPU node whose flavor tolerates the
taint, and Jobs that fit it, exceed it, or queue behind each other."""
from __future__ import annotations

from pathlib import Path

CLUSTER = """apiVersion: v1
kind: Namespace
metadata: {name: ml}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: a100}
spec:
  nodeLabels: {gpu.example.com/model: %(label)s}
  nodeTaints:
  - {key: gpu.example.com/reserved, value: "true", effect: NoSchedule}
  tolerations:
  - {key: gpu.example.com/reserved, operator: Equal, value: "true", effect: NoSchedule}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: ml-cq}
spec:
  namespaceSelector: {}
  queueingStrategy: %(strategy)s
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: a100
      resources:
      - {name: cpu, nominalQuota: "4"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: ml-q, namespace: ml}
spec: {clusterQueue: ml-cq}
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  labels: {kubernetes.io/hostname: gpu-1, gpu.example.com/model: a100}
spec:
  taints:
  - {key: gpu.example.com/reserved, value: "true", effect: NoSchedule}
status:
  allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
  capacity: {cpu: "16", memory: 64Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
"""

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: %(name)s
  namespace: ml
  creationTimestamp: "%(created)s"
  labels: {kueue.x-k8s.io/queue-name: ml-q}
spec:
  parallelism: %(pods)d
  completions: %(pods)d
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: main, image: x, resources: {requests: {cpu: "2"}}}
"""


def cluster(folder: Path, *, label: str = "a100", strategy: str = "BestEffortFIFO") -> str:
    """The cluster file: the flavor's node label `label` (the node's is a100)."""
    path = folder / "cluster.yaml"
    path.write_text(CLUSTER % {"label": label, "strategy": strategy})
    return str(path)


def jobs(folder: Path, name: str, *pods: int) -> str:
    """A file of Jobs of 2 cpu per pod, one per count, created a minute apart (job-0, job-1...)."""
    path = folder / name
    path.write_text("---\n".join(JOB % {"name": f"job-{i}", "pods": n, "created": f"2026-01-01T00:0{i}:00Z"}
                                 for i, n in enumerate(pods)))
    return str(path)

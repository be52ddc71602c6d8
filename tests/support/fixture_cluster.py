"""A bundled fixture served as a live cluster by the stand-in API server (tests/support/live_server.py):
its Namespaces, Nodes, Pods and Kueue objects become the collections the server lists, every other
collection of the recorded cluster empty. So a test asks `kexplain pod NAME` of the very cluster it
gives `kexplain FILE --nodes CLUSTER` (tests/cli/test_kueue_ai_chain.py)."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Iterable

import yaml

from tests.support.live_server import RecordedApiServer

CORE = {"Namespace": "namespaces", "Node": "nodes", "Pod": "pods"}
KUEUE = {"ResourceFlavor": "resourceflavors", "ClusterQueue": "clusterqueues", "LocalQueue": "localqueues",
         "Topology": "topologies", "AdmissionCheck": "admissionchecks", "Workload": "workloads",
         "ProvisioningRequestConfig": "provisioningrequestconfigs", "Cohort": "cohorts",
         "WorkloadPriorityClass": "workloadpriorityclasses", "MultiKueueConfig": "multikueueconfigs",
         "MultiKueueCluster": "multikueueclusters"}
KARPENTER = {"NodePool": "/apis/karpenter.sh/v1/nodepools", "NodeClaim": "/apis/karpenter.sh/v1/nodeclaims",
             "EC2NodeClass": "/apis/karpenter.k8s.aws/v1/ec2nodeclasses"}
# what an API server and Kueue's pod webhook add to a pod it stores (a pod Kueue gates, still pending)
POD_DEFAULTS = {"schedulerName": "default-scheduler", "priority": 0, "preemptionPolicy": "PreemptLowerPriority",
                "serviceAccountName": "default"}
TOPOLOGY_GATE = {"name": "kueue.x-k8s.io/topology"}
GATED = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated",
                                             "message": "Scheduling is blocked due to non-empty scheduling gates"}]}


def path_of(obj: dict[str, Any]) -> str | None:
    kind = obj.get("kind")
    if kind in CORE:
        return f"/api/v1/{CORE[kind]}"
    if kind in KUEUE:
        return f"/apis/kueue.x-k8s.io/v1beta2/{KUEUE[kind]}"
    return KARPENTER.get(str(kind))


def stored(obj: dict[str, Any], n: int) -> dict[str, Any]:
    """The object as the API server lists it: a resourceVersion, a pod defaulted, a gated pod
    Kueue manages labelled and pending."""
    obj = copy.deepcopy(obj)
    meta = obj.setdefault("metadata", {})
    meta.setdefault("resourceVersion", str(7000 + n))
    meta.setdefault("uid", f"00000000-0000-4000-8000-{n:012d}")
    meta.setdefault("creationTimestamp", "2026-01-01T00:00:00Z")
    if obj.get("kind") == "Pod":
        obj["spec"] = {**POD_DEFAULTS, **obj["spec"]}
        if (meta.get("labels") or {}).get("kueue.x-k8s.io/queue-name"):
            meta["labels"] = {**meta["labels"], "kueue.x-k8s.io/managed": "true"}
            gates = obj["spec"].get("schedulingGates") or []
            if gates and TOPOLOGY_GATE not in gates:        # Kueue's webhook gates it for TAS too
                obj["spec"]["schedulingGates"] = [*gates, TOPOLOGY_GATE]
        if obj["spec"].get("schedulingGates") and not obj["spec"].get("nodeName"):
            obj["status"] = copy.deepcopy(GATED)
    return obj


def serve(api: RecordedApiServer, files: Iterable[Path]) -> None:
    """Make `api` the cluster of `files`: their objects listed, the recorded cluster's collections empty
    (Karpenter's served, with the DaemonSets, only when the files hold its objects)."""
    objects = [o for f in files for o in yaml.safe_load_all(f.read_text()) if isinstance(o, dict)]
    api.add_collections("kueue")
    if any(o.get("kind") in KARPENTER for o in objects):
        api.add_collections("karpenter")
    for body in api.collections.values():
        body["items"] = []
    for n, obj in enumerate(objects):
        path = path_of(obj)
        if path is not None:
            api.collections[path]["items"].append(stored(obj, n))

"""Kueue objects as people write them, for the table-driven tests of tests/kueue: small YAML
makers and the inputs, cache snapshot and pass made of them."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import yaml

from kexplain.apimachinery.quantity import parse
from kexplain.kueue.resources import resource_quantity_text, resource_value

from kexplain.kueue.cache.cache import Cache
from kexplain.kueue.cache.snapshot import Snapshot
from kexplain.kueue.inputs import KueueInputs, inputs_of
from kexplain.kueue.run import Pass, Settings, run_pass
from kexplain.kueue.versions import VERSIONS
from kexplain.kueue.workload.info import new_info
from kexplain.kueue.workload.workload import Workload, has_quota_reservation
from kexplain.load.manifests import objects_from_text

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def flavor(name: str, labels: dict[str, str] | None = None, taints: list[dict[str, Any]] | None = None) -> str:
    spec = {}
    if labels:
        spec["nodeLabels"] = labels
    if taints:
        spec["nodeTaints"] = taints
    return _yaml({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name},
                  "spec": spec})


def cluster_queue(name: str, quotas: dict[str, dict[str, Any]], cohort: str = "", **spec: Any) -> str:
    """A ClusterQueue with one resource group: `quotas` flavor -> {resource: nominal or
    {nominalQuota, borrowingLimit, lendingLimit}}, the flavors in the order given."""
    resources = list(next(iter(quotas.values())))
    flavors = []
    for fname, per in quotas.items():
        flavors.append({"name": fname, "resources": [
            {"name": r, **(v if isinstance(v, dict) else {"nominalQuota": v})} for r, v in per.items()]})
    body: dict[str, Any] = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": resources,
                                                                         "flavors": flavors}], **spec}
    if cohort:
        body["cohortName"] = cohort
    return _yaml({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name},
                  "spec": body})


def local_queue(name: str, cq: str, namespace: str = "default", **spec: Any) -> str:
    return _yaml({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                  "metadata": {"name": name, "namespace": namespace}, "spec": {"clusterQueue": cq, **spec}})


def workload(name: str, queue: str, requests: dict[str, str], *, count: int = 1, priority: int = 0,
             created: str = "2025-12-31T20:00:00Z", namespace: str = "default", admitted_in: str = "",
             flavors: dict[str, str] | None = None, uid: str = "", spec: dict[str, Any] | None = None,
             min_count: int | None = None) -> str:
    """A Workload of one pod set `main`; with `admitted_in`, holding quota there in `flavors`."""
    pod_spec = {"restartPolicy": "Never",
                "containers": [{"name": "c", "image": "busybox", "resources": {"requests": requests}}], **(spec or {})}
    pod_set: dict[str, Any] = {"name": "main", "count": count, "template": {"spec": pod_spec}}
    if min_count is not None:
        pod_set["minCount"] = min_count
    obj: dict[str, Any] = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                           "metadata": {"name": name, "namespace": namespace, "creationTimestamp": created,
                                        **({"uid": uid} if uid else {})},
                           "spec": {"queueName": queue, "priority": priority, "podSets": [pod_set]}}
    if admitted_in:
        usage = {}
        for r, q in requests.items():
            usage[r] = resource_quantity_text(r, resource_value(r, parse(q).value) * count)
        obj["status"] = {"admission": {"clusterQueue": admitted_in, "podSetAssignments": [
            {"name": "main", "count": count, "flavors": flavors or {r: "default" for r in requests},
             "resourceUsage": usage}]},
            "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                            "message": f"Quota reserved in ClusterQueue {admitted_in}",
                            "lastTransitionTime": "2025-12-31T23:00:00Z"},
                           {"type": "Admitted", "status": "True", "reason": "Admitted",
                            "message": "The workload is admitted", "lastTransitionTime": "2025-12-31T23:00:00Z"}]}
    return _yaml(obj)


def _yaml(obj: dict[str, Any]) -> str:
    return yaml.safe_dump(obj, sort_keys=False)


def read(*docs: str, submitted: tuple[str, ...] = ()) -> KueueInputs:
    cluster = objects_from_text("---\n".join(docs), "cluster.yaml") if docs else []
    subs = objects_from_text("---\n".join(submitted), "workloads.yaml") if submitted else []
    return inputs_of(subs, cluster)


def cache_of(inputs: KueueInputs) -> Cache:
    """The cache of the inputs, with the usage of the Workloads holding quota."""
    cache = Cache.build(inputs.flavors, inputs.cluster_queues, inputs.cohorts)
    for obj in inputs.workloads:
        wl = Workload.of(obj)
        if has_quota_reservation(wl):
            cache.add_workload(new_info(wl))
    return cache


def snapshot(*docs: str) -> Snapshot:
    return cache_of(read(*docs)).snapshot()


def run(*docs: str, submitted: tuple[str, ...] = (), version: str = "0.17") -> Pass:
    return run_pass(read(*docs, submitted=submitted), Settings(VERSIONS[version], NOW))

"""Fixes for a Workload Kueue does not try (the workload controller's checks, the namespace
selector): a LocalQueue that exists (the closest name first) or one created for it; a stopped
LocalQueue or ClusterQueue started (stopPolicy None); a missing ClusterQueue created; a missing
ResourceFlavor created; the namespace labelled so the ClusterQueue selects it."""
from __future__ import annotations

import difflib
from typing import Any

from kexplain.kueue.apis.constants import API_VERSION, STOP_NONE
from kexplain.kueue.controller.core import workload_controller as wc
from kexplain.kueue.resources import iteration_order, resource_quantity_text
from kexplain.kueue.workload.info import new_info
from kexplain.suggest.change import pointer
from kexplain.suggest.kueue_context import Idea, KueueContext, find, ref

ID = "kueue-queues"
KINDS = ("use-local-queue", "create-local-queue", "start-queue", "create-cluster-queue", "create-resource-flavor",
         "label-namespace")
CLOSEST = 3


def ideas(ctx: KueueContext) -> list[Idea]:
    wl = ctx.workload
    found = wc.inadmissible(wl, {lq.key: lq for lq in ctx.inputs.local_queues}, ctx.done.queues.cluster_queue_for,
                            ctx.done.cache.active)
    out: list[Idea] = []
    if found is not None:
        check, name = found
        if check == wc.LOCAL_QUEUE_MISSING:
            out += _local_queue(ctx)
        elif check == wc.LOCAL_QUEUE_STOPPED:
            lq = find(ctx.inputs, "LocalQueue", wl.spec.queue_name, wl.meta.namespace)
            if lq is not None:
                out.append(_start(lq, "LocalQueue", name))
        elif check == wc.CLUSTER_QUEUE_MISSING:
            out += _create_cluster_queue(ctx, name)
        elif check == wc.CLUSTER_QUEUE_INACTIVE:
            out += _cluster_queue_inactive(ctx, name)
    elif ctx.entry is not None and ctx.entry.message == ctx.done.settings.version.namespace_mismatch:
        out += _label_namespace(ctx)
    return out


def _start(obj: dict[str, Any], kind: str, name: str) -> Idea:
    return Idea("start-queue", {"kind": kind, "name": name, "from": (obj.get("spec") or {}).get("stopPolicy")},
                ({"op": "replace", "object": ref(obj), "path": "/spec/stopPolicy", "value": STOP_NONE},))


def _local_queue(ctx: KueueContext) -> list[Idea]:
    wl = ctx.workload
    out = []
    names = [lq.meta.name for lq in ctx.inputs.local_queues if lq.meta.namespace == wl.meta.namespace]
    for name in difflib.get_close_matches(wl.spec.queue_name, names, n=CLOSEST, cutoff=0.0):
        op = ctx.queue_label_op(name)
        if op is not None:
            out.append(Idea("use-local-queue", {"localQueue": name, "namespace": wl.meta.namespace}, (op,)))
    labels = ctx.inputs.namespace_labels(wl.meta.namespace)
    for cq in ctx.inputs.cluster_queues:
        if not ctx.done.cache.active(cq.name) or not cq.namespace_selector.matches(labels):
            continue
        lq = {"apiVersion": API_VERSION, "kind": "LocalQueue",
              "metadata": {"name": wl.spec.queue_name, "namespace": wl.meta.namespace},
              "spec": {"clusterQueue": cq.name}}
        out.append(Idea("create-local-queue", {"localQueue": wl.spec.queue_name, "namespace": wl.meta.namespace,
                                               "clusterQueue": cq.name},
                        ({"op": "create", "object": ref(lq), "value": lq},)))
    return out


def _create_cluster_queue(ctx: KueueContext, name: str) -> list[Idea]:
    """A ClusterQueue of that name selecting every namespace, one group covering the Workload's
    resources on the first ResourceFlavor, its nominal quota their requests."""
    if not ctx.inputs.flavors:
        return []
    flavor = next(iter(ctx.inputs.flavors))
    totals: dict[str, int] = {}
    for ps in new_info(ctx.workload).total_requests:
        for r, v in ps.requests.items():
            totals[r] = totals.get(r, 0) + v
    resources = iteration_order(r for r, v in totals.items() if v)
    if not resources:
        return []
    cq = {"apiVersion": API_VERSION, "kind": "ClusterQueue", "metadata": {"name": name},
          "spec": {"namespaceSelector": {}, "resourceGroups": [{
              "coveredResources": resources,
              "flavors": [{"name": flavor, "resources": [{"name": r, "nominalQuota": resource_quantity_text(r, totals[r])}
                                                         for r in resources]}]}]}}
    return [Idea("create-cluster-queue", {"clusterQueue": name, "flavor": flavor,
                                          "quota": {r: resource_quantity_text(r, totals[r]) for r in resources}},
                 ({"op": "create", "object": ref(cq), "value": cq},))]


def _cluster_queue_inactive(ctx: KueueContext, name: str) -> list[Idea]:
    cached = ctx.done.cache.cluster_queues.get(name)
    obj = find(ctx.inputs, "ClusterQueue", name)
    out = []
    if cached is None or obj is None:
        return out
    if cached.stopped:
        out.append(_start(obj, "ClusterQueue", name))
    missing = list(cached.missing_flavors)
    if missing:
        ops = []
        for flavor in missing:
            rf = {"apiVersion": API_VERSION, "kind": "ResourceFlavor", "metadata": {"name": flavor}}
            ops.append({"op": "create", "object": ref(rf), "value": rf})
        out.append(Idea("create-resource-flavor", {"clusterQueue": name, "flavors": missing}, tuple(ops)))
    return out


def _label_namespace(ctx: KueueContext) -> list[Idea]:
    """The labels the ClusterQueue's namespaceSelector asks for (matchLabels, and the first value
    of each `In` expression) on the Workload's namespace."""
    cq = next((c for c in ctx.inputs.cluster_queues if c.name == ctx.entry.info.cluster_queue), None)
    raw = cq.namespace_selector_raw if cq is not None else None
    if not isinstance(raw, dict):
        return []
    labels = {str(k): str(v) for k, v in (raw.get("matchLabels") or {}).items()}
    for expr in raw.get("matchExpressions") or ():
        if expr.get("operator") == "In" and expr.get("values"):
            labels.setdefault(str(expr.get("key")), str(expr["values"][0]))
        elif expr.get("operator") == "Exists":
            labels.setdefault(str(expr.get("key")), "true")
    if not labels:
        return []
    ns = ctx.workload.meta.namespace
    existing = find(ctx.inputs, "Namespace", ns)
    if existing is None:
        obj = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": labels}}
        ops = ({"op": "create", "object": ref(obj), "value": obj},)
    else:
        ops = tuple({"op": "add", "object": ref(existing), "path": pointer("metadata", "labels", k), "value": v}
                    for k, v in labels.items())
    return [Idea("label-namespace", {"namespace": ns, "labels": labels, "clusterQueue": cq.name}, ops)]

"""Placing a workload's replicas copy by copy, as the scheduler would meet them one after another.

A Deployment of five replicas is five pending pods: each is scheduled against the cluster as
the previous ones left it. Copy i is scheduled, bound to the node the scheduler picks, and only
then is copy i+1 scheduled, with the scheduler's round-robin position carried over from the
previous attempt (`search.nextStartIndex`). Placement stops at the first copy that does not
fit, whose trace says why (the preemption dry run included: a nominated node is reported, not
acted on).

Which node a copy is bound to: the trace's `result.suggestedHost`, the node the scheduler's own
selectHost picks. When PreFilter narrowed the nodes (`search.orderDeterministic` false), the
scheduler visits them in a random order, so its pick among tied nodes is random too; kexplain
then binds the copy to the smallest name among `result.selectedNodes`, so that the result is
reproducible.

Binding a copy adds it to the node as a bound pod in a new snapshot
(`Snapshot.with_pod_bound`), with the zone and region labels the PodTopologyLabels admission
plugin copies onto bound pods; the snapshot the caller passed in is never changed, and every
index cached on it (by the snapshot or by a plugin) stays valid for it.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import Any, Iterator

from .admission.pipeline import copy_json
from .explain import Inputs, Request, explain
from .model.pod import PodInfo
from .trace import SCHEDULED, Trace

TOPOLOGY_LABELS = ("topology.kubernetes.io/zone", "topology.kubernetes.io/region")
_COPY_UID_NAMESPACE = uuid.UUID("0b3c6f0e-5c2d-4a8e-9f61-7d2a4c1e9b35")


@dataclass(frozen=True)
class Placement:
    """One copy's attempt: the inputs it was scheduled with, its trace, and where it was bound
    (None when it did not fit: the last placement of a run)."""

    index: int
    inputs: Inputs
    trace: Trace
    node: str | None


def copy_name(name: str, index: int) -> str:
    return f"{name}-{index}"


def chosen_node(trace: Trace) -> str | None:
    """The node a scheduled copy is bound to (see the module docstring), None if it did not fit."""
    result = trace.result
    if result.status != SCHEDULED:
        return None
    if trace.search is not None and not trace.search.order_deterministic and result.selected_nodes:
        return min(result.selected_nodes)
    return result.suggested_host or (min(result.selected_nodes) if result.selected_nodes else None)


def pending_copy(pod: PodInfo, index: int) -> dict[str, Any]:
    """The pending pod object of copy `index`: the pod with the name `<name>-<index>` and its own uid."""
    obj = copy_json(pod.obj)
    meta = obj.setdefault("metadata", {})
    meta["name"] = copy_name(pod.name, index)
    meta["uid"] = str(uuid.uuid5(_COPY_UID_NAMESPACE, f"{pod.namespace}/{meta['name']}"))
    return obj


def bound_copy(obj: dict[str, Any], node_name: str, node_labels: dict[str, str]) -> PodInfo:
    """The copy as stored after binding: spec.nodeName set, topology labels copied from the node."""
    bound = copy_json(obj)
    bound.setdefault("spec", {})["nodeName"] = node_name
    copied = {k: node_labels[k] for k in TOPOLOGY_LABELS if k in node_labels}
    if copied:
        meta = bound.setdefault("metadata", {})
        meta["labels"] = {**(meta.get("labels") or {}), **copied}
    return PodInfo(bound)


def iter_placements(inputs: Inputs, request: Request, copies: int) -> Iterator[Placement]:
    """Schedule up to `copies` copies of `inputs.pod` one after another; stops after the first
    copy that does not fit (that placement has `node` None)."""
    snapshot = inputs.snapshot
    start = request.start_index
    for i in range(copies):
        obj = pending_copy(inputs.pod, i)
        copy_inputs = replace(inputs, pod=PodInfo(obj), snapshot=snapshot)
        trace = explain(copy_inputs, replace(request, start_index=start))
        node = chosen_node(trace)
        yield Placement(i, copy_inputs, trace, node)
        if node is None:
            return
        info = snapshot.get(node)
        labels = info.node.labels if info is not None else {}
        snapshot = snapshot.with_pod_bound(bound_copy(obj, node, labels))
        if trace.search is not None:
            start = trace.search.next_start_index


def place_copies(inputs: Inputs, request: Request, copies: int) -> list[Trace]:
    """The traces of the copies placed (every one Scheduled) and of the first that did not fit."""
    return [p.trace for p in iter_placements(inputs, request, copies)]

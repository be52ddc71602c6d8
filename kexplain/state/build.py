"""A cluster state's snapshot and nominated pods, and the set's hand-bound pods as their kubelets admit them."""
from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cached_property
from itertools import compress, repeat
from operator import eq
from typing import Any, Callable

from kexplain.admission.decode import SCHEMAS, check_decodes
from kexplain.admission.pipeline import copy_json
from kexplain.apimachinery import columns
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.controllers.disruption import Statuses, is_healthy, with_status as budgets_with_status
from kexplain.controllers.kubelet import admission
from kexplain.errors import InputError, KexplainError, describe
from kexplain.features import KubeVersion
from kexplain.load.gcpolicy import bulk_load
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from kexplain.state.objects import Objects

def build_cluster(cluster: Objects, budgets: Statuses | None = None, healthy: Callable[[PodInfo], bool] = is_healthy
                  ) -> tuple[Snapshot, dict[str, list[PodInfo]]]:
    """The snapshot and nominated pods by node, from admitted or stored objects (the collector paused);
    `budgets`: the budgets' statuses computed already of these objects (`disruption.notes`), the others
    computed with `healthy` (`disruption.healthy_rule`)."""
    try:
        with bulk_load():
            return _build_cluster(cluster, budgets, healthy)
    except KexplainError:
        raise
    except (AttributeError, TypeError, ValueError, KeyError, ArithmeticError) as exc:
        raise _unreadable(cluster, exc) from None


def _build_cluster(cluster: Objects, budgets: Statuses | None = None, healthy: Callable[[PodInfo], bool] = is_healthy
                   ) -> tuple[Snapshot, dict[str, list[PodInfo]]]:
    nodes: Objects = []
    pods: list[dict[str, Any]] = []
    unbound: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    rows = columns.rows_of(cluster)
    try:            # 150,000 objects split by kind in C: their rows' kinds, or asked of each
        objects = columns.objects(cluster)
        kinds = rows.kinds if rows is not None else columns.kinds(objects)
    except columns.NotPlain:
        kinds = None
    if kinds is not None:       # (in C: `compress` by each kind's column of verdicts)
        is_pod, is_node = list(map(eq, kinds, repeat("Pod"))), list(map(eq, kinds, repeat("Node")))
        pods = list(compress(objects, is_pod))
        nodes = list(compress(cluster, is_node))
        others = list(compress(objects, map(operator.not_, map(operator.or_, is_pod, is_node))))
    else:
        for o, s in cluster:
            kind = o.get("kind")
            if kind == "Pod":
                pods.append(o)
            elif kind == "Node":
                nodes.append((o, s))
            else:
                others.append(o)
    others = budgets_with_status(others, pods, budgets, healthy)      # the disruption controller's, where none is written
    parts = _BuiltFrom([o for o, _ in nodes], pods)
    last = _LAST_BUILT[0] if _LAST_BUILT else None
    replaced = last[0].replaced_in(parts) if last is not None else None
    patched = _patched(last[1], replaced) if last is not None and replaced else None
    if replaced is not None and (patched is not None or not replaced):   # its nodes and indexes, these objects
        listed = Snapshot.build([], [], others)
        snapshot = (patched or last[1]).with_objects(listed.namespaces, listed.objects)    # type: ignore[index]
        if patched is not None:
            _LAST_BUILT[:] = [(parts, patched)]
        unbound = parts.unbound
    else:           # (the pods without a node put in `unbound` by the one pass over them)
        snapshot = Snapshot.build(nodes, pods, others, unbound)
        _LAST_BUILT[:] = [(parts, snapshot)]
    nominated: dict[str, list[PodInfo]] = {}
    for p in unbound:
        if (p.get("status") or {}).get("nominatedNodeName"):
            info = PodInfo(p)
            nominated.setdefault(info.nominated_node_name, []).append(info)
    return snapshot, nominated


@dataclass(frozen=True)
class _BuiltFrom:
    """What a snapshot was built from, so a second build can reuse it when only bound pods differ."""

    nodes: list[dict[str, Any]]
    pods: list[dict[str, Any]]

    @cached_property
    def bound(self) -> list[dict[str, Any]]:
        return [p for p in self.pods if type(p) is StoredPod or (p.get("spec") or {}).get("nodeName")]

    @cached_property
    def unbound(self) -> list[dict[str, Any]]:
        return [p for p in self.pods if type(p) is not StoredPod and not (p.get("spec") or {}).get("nodeName")]

    def replaced_in(self, other: "_BuiltFrom") -> list[tuple[dict[str, Any], dict[str, Any]]] | None:
        """The pods `other` has in place of this one's when at most MAX_REPLACED differ; else None."""
        if not _same(self.nodes, other.nodes):
            return None
        mine, theirs = self.bound, other.bound
        if len(mine) != len(theirs):
            return None
        at = list(compress(range(len(mine)), map(operator.is_not, mine, theirs)))
        if len(at) > MAX_REPLACED:
            return None
        pairs = [(mine[i], theirs[i]) for i in at]
        if any(((o.get("spec") or {}).get("nodeName") != (n.get("spec") or {}).get("nodeName")) for o, n in pairs):
            return None
        return pairs


MAX_REPLACED = 64       # pods replaced in a cluster built before, patched into its snapshot (else built again)


def _patched(snapshot: Snapshot, pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> Snapshot | None:
    """`snapshot` with the pods of `pairs` replaced on their nodes; None when the build would differ."""
    by_node: dict[str, dict[int, PodInfo]] = {}
    for old, new in pairs:
        info = PodInfo(new)
        if info.status.get("phase") in ("Succeeded", "Failed"):
            return None
        ni = snapshot.get(info.node_name)
        found = next((p for p in ni.pods if p.obj is old), None) if ni is not None else None
        if found is None:
            return None
        by_node.setdefault(info.node_name, {})[id(found)] = info
    for node, replaced in by_node.items():
        snapshot = snapshot.with_pods_replaced(node, replaced)
    return snapshot


def _same(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(map(operator.is_, a, b))


# The last snapshot built and what from, so CA's loop reuses the scheduler's nodes and indexes
# (`Snapshot.with_objects`) instead of building 5,000 nodes and 150,000 pods again.
_LAST_BUILT: list[tuple[_BuiltFrom, Snapshot]] = []


def _unreadable(cluster: Objects, exc: Exception) -> KexplainError:
    """The error naming the first field of a cluster the model could not read."""
    for obj, src in cluster:
        if obj.get("kind") in SCHEMAS:
            try:
                check_decodes(copy_json(obj), src)
            except KexplainError as err:
                return err
            except RecursionError:
                return InputError("object is nested too deeply", source=src, obj=obj)
    return InputError(f"cannot read the cluster: {type(exc).__name__}: {exc}",
                      source=cluster[0][1] if cluster else None)


def kubelets_admit(snapshot: Snapshot, pods: Objects, kube: KubeVersion, bound: bool,
                    stored: bool) -> tuple[Snapshot, dict[int, tuple[dict[str, Any], tuple[str, str]]], list[str],
                                           dict[tuple[str, str], list[str]]]:
    """The set's pods bound by spec.nodeName, admitted or rejected by each node's kubelet in creation order."""
    candidates = [(PodInfo(o), s) for o, s in pods if (o.get("spec") or {}).get("nodeName")
                  and snapshot.get(str(o["spec"]["nodeName"])) is not None
                  and (o.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    if bound and (stored or all(_admitted_among_all(pod, snapshot, kube) for pod, _ in candidates)):
        return snapshot, {}, [], {}
    if bound:
        for pod, _ in candidates:
            snapshot = snapshot.without_pod(pod.node_name, pod.namespace, pod.name)
    failed: dict[int, tuple[dict[str, Any], tuple[str, str]]] = {}
    said: list[str] = []
    evicted: dict[tuple[str, str], list[str]] = {}
    for pod, src in candidates:
        info = snapshot.get(pod.node_name)
        verdict = admission(pod, info, kube) if not stored and info is not None else None
        if verdict is not None and not verdict.admitted:
            failed[id(pod.obj)] = ({**pod.obj, "status": {**pod.status, "phase": "Failed", "reason": verdict.reason,
                                                          "message": verdict.status_message}},
                                   (verdict.reason, verdict.message))
            said.append(f"{src}: {describe(pod.obj)}: spec.nodeName is {pod.node_name}: its kubelet rejects it "
                        f"({verdict.reason}: {verdict.message}): the pod fails, and takes no room")
            continue
        for victim in (verdict.evicted if verdict is not None else ()):
            namespace, _, name = victim.partition("/")
            snapshot = snapshot.without_pod(pod.node_name, namespace, name)
        if verdict is not None and verdict.evicted:
            evicted[(pod.namespace, pod.name)] = list(verdict.evicted)
        snapshot = snapshot.with_pod_bound(pod)
    return snapshot, failed, said, evicted


def _admitted_among_all(pod: PodInfo, snapshot: Snapshot, kube: KubeVersion) -> bool:
    """Whether `pod`'s kubelet admits it, evicting nothing, with every other pod of its node there."""
    info = snapshot.get(pod.node_name)
    if info is None:
        return True
    info = info.clone()
    if any(p.key == pod.key for p in info.pods):
        info.remove_pod(pod)
    verdict = admission(pod, info, kube)
    return verdict.admitted and not verdict.evicted

"""The Cluster Autoscaler's answer for pods the scheduler left pending (`kexplain POD
--node-groups`, lint): one CA loop run with them as its pending pods, and, for the pod
explained, every Filter plugin's verdict on each group's template node.

CA stops at a template's first failing Filter plugin and reports only it; kexplain runs every
plugin there (the template placed in the loop's snapshot, as the scale-up places it, through
the profile CA embeds), so a reader sees all that stands in the way, CA's own plugin marked by
the document's `predicate`. The result is the loop's document (`document.build_document`) with
one more key, `explained` (docs/trace.md).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Sequence

from kexplain.autoscaler.inputs import PENDING_AGE, LoopInputs, load_loop
from kexplain.features import KubeVersion
from kexplain.model.pod import PodInfo

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.autoscaler.cloudprovider import Discovery


@dataclass(frozen=True)
class GroupsRequest:
    """Where the node groups and CA's settings come from, as the command line gives them (or,
    live, the groups found in the cluster)."""

    node_groups: str                     # --node-groups FILE
    config: str | None = None            # --autoscaler-config FILE
    node_paths: tuple[str, ...] = ()     # --nodes: the cluster CA sees
    max_bytes: int | None = None
    max_objects: int | None = None
    validate: str = "strict"
    cluster_objects: list | None = None  # the cluster already read (a live one), in place of node_paths
    discovered: "Discovery | None" = None  # the groups found in the cluster, in place of node_groups


def load_groups(req: GroupsRequest, kube: KubeVersion, now: datetime | None = None) -> LoopInputs:
    """The loop's inputs without pending pods: cluster, groups, settings (bad input: InputError)."""
    from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS
    groups = req.discovered if req.discovered is not None else req.node_groups
    return load_loop(None, req.node_paths, groups, req.config, kube,
                     max_bytes=req.max_bytes or DEFAULT_MAX_BYTES, max_objects=req.max_objects or DEFAULT_MAX_OBJECTS,
                     validate=req.validate, now=now, pods_given=True, cluster_objects=req.cluster_objects)


def with_pending(loop: LoopInputs, pending: Sequence[PodInfo], bound: Sequence[PodInfo] = ()) -> LoopInputs:
    """`loop` with `pending` as its pending pods (created ten minutes ago, a second apart, in
    order) and `bound` (pods with a nodeName: a workload's copies that fit) in its snapshot."""
    snapshot = loop.snapshot
    for pod in bound:
        if snapshot.get(pod.spec.get("nodeName") or "") is not None:
            snapshot = snapshot.with_pod_bound(pod)
    created = [loop.now - PENDING_AGE + timedelta(seconds=i) for i in range(len(pending))]
    return replace(loop, snapshot=snapshot, pending=list(pending), pending_created=created)


def autoscaler_document(loop: LoopInputs, explained: PodInfo | None = None) -> dict[str, Any]:
    """One CA loop over `loop`'s pending pods: the document, with `explained` (every Filter
    plugin on each group's template) for `explained` (default: the first pending pod)."""
    from kexplain.autoscaler.document import build_document
    from kexplain.autoscaler.loop import run_once
    from kexplain.autoscaler.templates import template_node_infos

    result = run_once(loop)
    doc = build_document(loop, result)
    pod = explained if explained is not None else (loop.pending[0] if loop.pending else None)
    if pod is not None:
        templates = result.templates or template_node_infos(loop)
        snapshot = result.snapshot if result.snapshot is not None else loop.snapshot
        doc["explained"] = {"pod": pod.key, "kubernetes": loop.kube.minor,
                            "nodeGroups": {g.name: template_verdict(loop, pod, templates[g.name].node_info, snapshot,
                                                                    templates[g.name].csi_node)
                                           for g in loop.groups if g.name in templates}}
    return doc


def batch_pods(unfit_and_placed) -> tuple[list[PodInfo], list[PodInfo]]:
    """The pending pods and the bound copies of a batch: from (pod as admitted, [(copy name,
    node or None)]) per object, each copy the pod under its own name, bound when it fit."""
    pending: list[PodInfo] = []
    bound: list[PodInfo] = []
    for pod, copies in unfit_and_placed:
        for name, node in copies:
            obj = dict(pod.obj)
            obj["metadata"] = {**(pod.metadata or {}), "name": name}
            if node is None:
                pending.append(PodInfo(obj))
            else:
                obj["spec"] = {**pod.spec, "nodeName": node}
                bound.append(PodInfo(obj))
    return pending, bound


def template_verdict(loop: LoopInputs, pod: PodInfo, template, cluster=None, csi_node=None) -> dict[str, Any]:
    """Every Filter plugin's verdict on `template` placed after the nodes of `cluster` (the
    snapshot the scale-up started from: `LoopResult.snapshot`; default: the loop's)
    (`filterAll`, as the scheduling trace records a node's), the plugins' facts there
    (`plugins`, what `--node` reads), or the PreFilter plugin that rejects the pod for every
    node (`preFilter`), or the PreFilter plugins whose node names leave the template out
    (`notAmong`). `csi_node`: the template's CSINode (CSI-node-aware scheduling)."""
    from kexplain.autoscaler.loop import framework
    from kexplain.autoscaler.simulator import with_node
    from kexplain.framework.cycle_state import CycleState
    from kexplain.framework.extras import plugin_verdicts

    snapshot = with_node(cluster if cluster is not None else loop.snapshot, template, csi_node)
    fw = framework(loop, snapshot)
    state = CycleState()
    outcome = fw.run_pre_filter(state, pod)
    if not outcome.status.is_success:
        return {"preFilter": outcome.status.to_json(with_plugin=True)}
    out: dict[str, Any] = {}
    names = outcome.result.node_names if outcome.result is not None else None
    if names is not None and template.name not in names:
        out["notAmong"] = sorted(outcome.plugins_with_nodes)
    node = snapshot.get(template.name)
    batch = fw.run_filter_nodes(state.clone(), pod, [node], every=True)
    out["filterAll"] = plugin_verdicts(batch.columns or [], 0)
    facts = fw.run_explain(state.clone(), pod, node)
    if facts:
        out["plugins"] = facts
    return out

"""Template node infos per node group (CA's MixedTemplateNodeInfoProvider and
simulator/node_info_utils.go): from the first good member, else the provider's template with its
DaemonSets, else any member; sanitized as CA does (docs/internals/autoscaler.md)."""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Mapping, Sequence

from kexplain.apimachinery.labels import (LABEL_FAILURE_DOMAIN_BETA_REGION, LABEL_FAILURE_DOMAIN_BETA_ZONE,
                                          LABEL_HOSTNAME, LABEL_INSTANCE_TYPE, LABEL_INSTANCE_TYPE_BETA,
                                          LABEL_TOPOLOGY_REGION, LABEL_TOPOLOGY_ZONE)
from kexplain.autoscaler.identity_memo import remembered
from kexplain.autoscaler.podutil import daemonset_ref, is_daemonset_pod, is_mirror_pod
from kexplain.autoscaler.inputs import LoopInputs
from kexplain.autoscaler.params import Settings
from kexplain.autoscaler.taints import TO_BE_DELETED, TaintConfig, sanitize_taints
from kexplain.errors import Source
from kexplain.explain.placement import should_run_daemon_pod
from kexplain.controllers.workloads import pod_from_workload
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.apimachinery.quantity import QuantityError, canonical, parse

TEMPLATE_LABEL = "cluster-autoscaler.kubernetes.io/template-node"
HOSTNAME = LABEL_HOSTNAME
STABILIZATION = timedelta(minutes=1)
# stable label -> the deprecated label CA sets beside it on a provider template
DEPRECATED_LABELS = {LABEL_INSTANCE_TYPE: LABEL_INSTANCE_TYPE_BETA, LABEL_TOPOLOGY_REGION: LABEL_FAILURE_DOMAIN_BETA_REGION,
                     LABEL_TOPOLOGY_ZONE: LABEL_FAILURE_DOMAIN_BETA_ZONE}
SYSTEM_NODE_CRITICAL = "system-node-critical"


@dataclass(frozen=True)
class Template:
    """A group's template node info and where it came from (`node`, `template`)."""

    group: str
    source: str
    node_info: NodeInfo
    pod_names: tuple[str, ...]        # `DaemonSet NS/NAME` or `Pod NS/NAME`, sorted
    csi_node: Mapping[str, Any] | None = None     # the template's CSINode (CSI-node-aware scheduling)
    member: str = ""                  # source `node`: the member node it was built from
    origin: str = ""                  # source `template` from the provider: what it is, in words

    def to_json(self) -> dict[str, Any]:
        node = self.node_info.node
        status = node.obj.get("status") or {}
        return {"source": self.source,
                "labels": {k: v for k, v in sorted(node.labels.items()) if k != HOSTNAME},
                "taints": [_taint_json(t) for t in node.taints],
                "allocatable": {k: _quantity(v) for k, v in sorted((status.get("allocatable") or {}).items())},
                "pods": list(self.pod_names)}


def _taint_json(t: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"key": t.get("key", "")}
    if t.get("value"):
        out["value"] = t["value"]
    out["effect"] = t.get("effect", "")
    if t.get("timeAdded"):
        out["timeAdded"] = t["timeAdded"]
    return out


def _quantity(raw: Any) -> str:
    try:
        return canonical(parse(raw))
    except (QuantityError, ValueError, TypeError):
        return str(raw)


def _sanitized_node(obj: Mapping[str, Any], name: str, settings: Settings) -> dict[str, Any]:
    node = copy.deepcopy(dict(obj))
    meta = node.setdefault("metadata", {})
    meta["name"] = name
    meta["uid"] = f"uid-{name}"
    meta["labels"] = {**(meta.get("labels") or {}), HOSTNAME: name}
    spec = node.setdefault("spec", {})
    config = TaintConfig.of(settings)
    taints = sanitize_taints(spec.get("taints") or (), config)
    if taints:
        spec["taints"] = taints
    else:
        spec.pop("taints", None)
    if config.scale_from_unschedulable:
        spec.pop("unschedulable", None)
    status = node.setdefault("status", {})
    if "allocatable" not in status and "capacity" in status:
        status["allocatable"] = dict(status["capacity"])
    return node


def renamed_csi_node(csi_node: Mapping[str, Any], node_name: str) -> dict[str, Any]:
    """CreateSanitizedCSINode: a copy of `csi_node` named after (and owned by) `node_name`."""
    meta = dict(csi_node.get("metadata") or {})
    meta.update(name=node_name, uid=f"uid-csinode-{node_name}",
                ownerReferences=[{"apiVersion": "v1", "kind": "Node", "name": node_name, "uid": f"uid-{node_name}"}])
    return {**csi_node, "metadata": meta}


def renamed_pod(pod: PodInfo, node_name: str, suffix: str) -> PodInfo:
    """A copy of `pod` on `node_name`, named (and uid'd) with `suffix`: a template's pods as CA
    copies them onto a new node."""
    obj = dict(pod.obj)
    meta = dict(obj.get("metadata") or {})
    meta["name"] = f"{pod.name}-{suffix}"
    meta["uid"] = f"uid-{pod.namespace}-{meta['name']}"
    obj["metadata"] = meta
    obj["spec"] = {**pod.spec, "nodeName": node_name}
    return PodInfo(obj)


def _shown_name(pod: PodInfo, original_name: str) -> str:
    ref = daemonset_ref(pod)
    if ref is not None:
        return f"DaemonSet {pod.namespace}/{ref.get('name')}"
    return f"Pod {pod.namespace}/{original_name}"


def daemonset_pod(ds: Mapping[str, Any], node_name: str) -> PodInfo:
    """The pod GetDaemonSetPodsForNode makes for `node_name` (daemon.NewPod): the template with the
    controller's tolerations, bound to the node, owned by the DaemonSet; its node affinity the template's."""
    obj = dict(_template_pod(ds))       # (the DaemonSet's template pod is shared: what changes is copied)
    meta = obj["metadata"] = dict(obj.get("metadata") or {})
    obj["spec"] = dict(obj["spec"])
    ds_meta = ds.get("metadata") or {}
    meta["name"] = f"{ds_meta.get('name')}-pod"
    meta["namespace"] = ds_meta.get("namespace") or "default"
    meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds_meta.get("name"),
                                "uid": ds_meta.get("uid"), "controller": True}]
    obj["spec"]["nodeName"] = node_name
    return PodInfo(obj)


def _template_pod(ds: Mapping[str, Any]) -> dict[str, Any]:
    """The DaemonSet's template as a pod, with the controller's tolerations (unpinned): read only, made once
    per DaemonSet object (each group's template asks it of every DaemonSet, in each loop)."""
    return _template_pod_info(ds).obj


def _template_pod_info(ds: Mapping[str, Any]) -> PodInfo:
    return remembered(_TEMPLATE_PODS, ds, _TEMPLATE_PODS_KEPT, _made_template_pod, ds)


def _made_template_pod(ds: Mapping[str, Any]) -> PodInfo:
    obj = pod_from_workload(dict(ds), Source("daemonset"), 0)
    obj.setdefault("spec", {})
    return PodInfo(obj)


# DaemonSet (by id, kept alive so no id is reused) -> its template pod: a bounded cache
_TEMPLATE_PODS: dict[int, tuple[Mapping[str, Any], PodInfo]] = {}
_TEMPLATE_PODS_KEPT = 256


def should_run(ds: Mapping[str, Any], node: Node) -> bool:
    """NodeShouldRunDaemonPod as GetDaemonSetPodsForNode asks it of a template node: spec.nodeName, node
    selector and required affinity match, no untolerated NoSchedule or NoExecute taint
    (`explain.placement.should_run_daemon_pod`)."""
    return should_run_daemon_pod(_template_pod_info(ds), node) is None


def _preempting_system_node_critical(pod: PodInfo) -> bool:
    if pod.spec.get("priorityClassName") != SYSTEM_NODE_CRITICAL:
        return False
    return pod.spec.get("preemptionPolicy") in (None, "PreemptLowerPriority")


def sanitized_template(group: str, source: str, node_obj: Mapping[str, Any], pods: Sequence[PodInfo],
                       daemonsets: Sequence[Mapping[str, Any]], force_ds: bool, settings: Settings,
                       *, deprecated_labels: bool = False) -> Template:
    """SanitizedTemplateNodeInfoFromNodeInfo: the node renamed and cleaned, its DaemonSet and mirror pods,
    and those of DaemonSets that would run there (all with `force_ds`, else system-node-critical
    ones that preempt)."""
    name = f"template-node-for-{group}-1"
    obj = _sanitized_node(node_obj, name, settings)
    sanitized = Node.from_obj(obj)       # what the DaemonSets are matched against
    labels = obj["metadata"]["labels"]   # the labels CA adds afterwards
    labels[TEMPLATE_LABEL] = "true"
    if deprecated_labels:
        for stable, deprecated in DEPRECATED_LABELS.items():
            if stable in labels:
                labels[deprecated] = labels[stable]
    node = Node.from_obj(obj)
    kept: list[PodInfo] = []
    shown: list[str] = []
    running: set[str] = set()
    for pod in pods:
        if pod.deletion_timestamp is None and (is_mirror_pod(pod) or is_daemonset_pod(pod)):
            kept.append(renamed_pod(pod, name, "1"))
            shown.append(_shown_name(pod, pod.name))
        ref = daemonset_ref(pod)
        if ref is not None:
            running.add(str(ref.get("uid")))
    for ds in daemonsets:
        if str((ds.get("metadata") or {}).get("uid")) in running:
            continue
        if not should_run(ds, sanitized):
            continue
        ds_pod = daemonset_pod(ds, name)
        if force_ds or _preempting_system_node_critical(ds_pod):
            kept.append(ds_pod)
            shown.append(_shown_name(ds_pod, ds_pod.name))
    info = NodeInfo(node)
    if kept:
        info.add_pods(kept)
    return Template(group, source, info, tuple(sorted(shown)))


def good_candidate(facts, node: Node, now: datetime) -> bool:
    """isNodeGoodTemplateCandidate: Ready for more than a minute, schedulable, not being deleted."""
    stable = facts.ready_since is None or facts.ready_since + STABILIZATION < now
    return facts.ready and stable and not node.unschedulable and \
        not any(t.get("key") == TO_BE_DELETED for t in node.taints)


def template_node_infos(loop: LoopInputs) -> dict[str, Template]:
    """Each group's template, by group name; a group without one is left out."""
    settings = loop.settings
    force_ds = settings.flag("force-ds")
    snapshot = loop.snapshot
    csi_nodes = {((c.get("metadata") or {}).get("name") or ""): c for c in snapshot.of_kind("CSINode")} \
        if settings.flag("enable-csi-node-aware-scheduling") else {}
    out: dict[str, Template] = {}

    def from_member(facts) -> None:
        if facts.group is None or facts.group in out:
            return
        info = snapshot.get(facts.name)
        made = sanitized_template(facts.group, "node", info.node.obj, info.pods, loop.daemonsets, force_ds, settings)
        csi = csi_nodes.get(facts.name)
        out[facts.group] = replace(made, member=facts.name,
                                   csi_node=renamed_csi_node(csi, made.node_info.name) if csi is not None else None)

    bad = []
    for facts in loop.nodes:
        if good_candidate(facts, snapshot.get(facts.name).node, loop.now):
            from_member(facts)
        else:
            bad.append(facts)
    for group in loop.groups:
        if group.name not in out and group.template is not None:
            made = sanitized_template(group.name, "template", _template_node(group.template),
                                      (), loop.daemonsets, True, settings, deprecated_labels=True)
            out[group.name] = replace(made, origin=group.template_origin)
    for facts in bad:
        from_member(facts)
    return out


def _template_node(template: Mapping[str, Any]) -> dict[str, Any]:
    node = {"apiVersion": "v1", "kind": "Node", **copy.deepcopy(dict(template))}
    node.setdefault("metadata", {})
    return node

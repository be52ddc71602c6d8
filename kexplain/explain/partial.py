"""Per node, for a user who cannot read every pod: what the node-local Filter plugins say of the pod."""
from __future__ import annotations

from typing import Any, Optional

from kexplain.apimachinery.display import format_toleration
from kexplain.errors import KexplainError, Source
from kexplain.explain.inputs import inputs_from_objects
from kexplain.explain.request import RunOptions
from kexplain.explain.run import explain
from kexplain.features import KubeVersion
from kexplain.framework.status import Code
from kexplain.plugins import names, plugin_class

Obj = dict[str, Any]
# Node-local plugins whose verdict counts the node's pods (requests, host ports).
USAGE_PLUGINS = frozenset({names.NODE_RESOURCES_FIT, names.NODE_PORTS})
REJECTED, AT_MOST, PASSES = "rejected", "atMost", "passes"


def per_node(pod: Obj, source: Source, cluster: list[tuple[Obj, Source]], config: Any,
             kube: KubeVersion) -> Optional[Obj]:
    """A row per node read, and the plugins not known; None when the cycle cannot run on what was read."""
    try:
        trace = _cycle(pod, source, cluster, config, kube)
    except KexplainError as err:
        return {"nodes": [], "unknown": [], "error": err.message}
    verdicts = trace.get("filterAll") or {}
    nodes = {o["metadata"]["name"]: o for o, _ in cluster if o.get("kind") == "Node"}
    keys = label_keys(pod)
    unknown: set[str] = set()
    rows = []
    for name, node in nodes.items():
        by_plugin = verdicts.get(name) or {}
        local = {p: v for p, v in by_plugin.items() if _node_local(p)}
        unknown |= {p for p, v in by_plugin.items() if p not in local and v.get("code") != Code.SKIP.value}
        failed = [(p, v) for p, v in local.items() if v.get("code") not in (Code.SUCCESS.value, Code.SKIP.value)]
        if failed:
            verdict, plugin, reasons = REJECTED, failed[0][0], list(failed[0][1].get("reasons") or [])
        elif any(p in USAGE_PLUGINS for p in local):
            verdict, plugin, reasons = AT_MOST, None, []
        else:
            verdict, plugin, reasons = PASSES, None, []
        status = node.get("status") or {}
        rows.append({"node": name, "verdict": verdict, "plugin": plugin, "reasons": reasons,
                     "allocatable": dict(status.get("allocatable") or {}),
                     "capacity": dict(status.get("capacity") or {}),
                     "labels": {k: v for k, v in ((node.get("metadata") or {}).get("labels") or {}).items() if k in keys},
                     "taints": [format_toleration({**t, "operator": "Equal"})
                                for t in (node.get("spec") or {}).get("taints") or []],
                     "unschedulable": bool((node.get("spec") or {}).get("unschedulable")),
                     "evaluated": bool(by_plugin)})
    return {"nodes": rows, "unknown": sorted(unknown)}


def label_keys(pod: Obj) -> frozenset[str]:
    """The node label keys the pod's spec reads."""
    spec = pod.get("spec") or {}
    keys = set(spec.get("nodeSelector") or {})
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    for term in required.get("nodeSelectorTerms") or []:
        keys |= {e.get("key") for e in term.get("matchExpressions") or [] if e.get("key")}
    keys |= {c.get("topologyKey") for c in spec.get("topologySpreadConstraints") or [] if c.get("topologyKey")}
    return frozenset(keys)


def _node_local(name: str) -> bool:
    try:
        return bool(getattr(plugin_class(name), "node_local", False))
    except (KeyError, ValueError):
        return False


def gating(pod: Obj, source: Source, cluster: list[tuple[Obj, Source]], config: Any,
           kube: KubeVersion) -> list[Obj]:
    """The PreEnqueue plugins that refuse the pod, which a namespace's reader can run."""
    try:
        trace = _cycle(pod, source, cluster, config, kube)
    except KexplainError as err:
        return [{"plugin": None, "code": "Error", "reasons": [err.message]}]
    return [{"plugin": e.get("plugin"), "code": e.get("code"), "reasons": list(e.get("reasons") or [])}
            for e in trace.get("preEnqueue") or [] if e.get("code") not in (Code.SUCCESS.value, Code.SKIP.value)]


def _cycle(pod: Obj, source: Source, cluster: list[tuple[Obj, Source]], config: Any, kube: KubeVersion) -> Obj:
    """One cycle of `pod` on what was read, every Filter plugin recorded, no preemption."""
    inputs = inputs_from_objects(pod, source, cluster, config, stored=True, kube=kube)
    return explain(inputs, RunOptions(preemption=False, filter_all=True)).to_json()

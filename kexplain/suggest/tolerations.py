"""add-toleration: tolerate the taints that alone keep the pod off some nodes, the smallest sets
opening the most (two at most); node-condition, cordon and control-plane taints never."""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo
from kexplain.model.taints import NO_EXECUTE, NO_SCHEDULE, taint_to_string, tolerations_tolerate
from kexplain.plugins.names import TAINT_TOLERATION
from kexplain.suggest.change import Candidate, Fix, pod_op
from kexplain.suggest.context import MAX_GROUPS, MAX_PER_REASON, Context

ID = "tolerations"
ADD_TOLERATION = "add-toleration"
KINDS = (ADD_TOLERATION,)
PLUGIN = TAINT_TOLERATION

# Taints a pod should not be told to tolerate: node conditions, the cordon, the control plane.
SYSTEM_TAINT_PREFIXES = ("node.kubernetes.io/", "node.cloudprovider.kubernetes.io/",
                         "node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master")

TaintKey = tuple[str, str, str]


def untolerated(pod: PodInfo, node: Node) -> list[dict[str, Any]]:
    """The node's NoSchedule and NoExecute taints the pod does not tolerate."""
    return [t for t in node.taints if t.get("effect") in (NO_SCHEDULE, NO_EXECUTE)
            and not tolerations_tolerate(pod.tolerations, t)]


def taint_key(taint: Mapping[str, Any]) -> TaintKey:
    return (str(taint.get("key") or ""), str(taint.get("value") or ""), str(taint.get("effect") or ""))


def _system_taint(taint: Mapping[str, Any]) -> bool:
    return str(taint.get("key") or "").startswith(SYSTEM_TAINT_PREFIXES)


def _toleration(taint: Mapping[str, Any]) -> dict[str, Any]:
    if taint.get("value"):
        return {"key": taint.get("key", ""), "operator": "Equal", "value": taint["value"],
                "effect": taint.get("effect", "")}
    return {"key": taint.get("key", ""), "operator": "Exists", "effect": taint.get("effect", "")}


def candidates(ctx: Context) -> list[Candidate]:
    """Tolerate the taints that alone keep the pod off some nodes: the sets opening most nodes."""
    per_node: dict[str, frozenset[TaintKey]] = {}
    taints: dict[TaintKey, dict[str, Any]] = {}
    for node in ctx.only(TAINT_TOLERATION):
        info = ctx.info(node)
        if info is None:
            continue
        found = untolerated(ctx.pod, info.node)
        if not found or any(_system_taint(t) for t in found):
            continue
        keys = frozenset(taint_key(t) for t in found)
        taints.update((taint_key(t), t) for t in found)
        per_node[node] = keys
    counts = Counter(per_node.values())
    groups = sorted(counts, key=lambda k: (len(k), -counts[k], sorted(k)))[:MAX_GROUPS]
    opened = {g: sum(1 for keys in per_node.values() if keys <= g) for g in groups}
    out = []
    for group in sorted(groups, key=lambda g: (len(g), -opened[g], sorted(g)))[:MAX_PER_REASON]:
        chosen = [taints[k] for k in sorted(group)]
        ops = tuple(pod_op(ctx.pod, "add", "/spec/tolerations/-", _toleration(t)) for t in chosen)
        names = ", ".join(taint_to_string(t) for t in chosen)
        plural = "s" if len(chosen) > 1 else ""
        out.append(Candidate(ADD_TOLERATION, ctx.pod_target, f"add a toleration{plural} for the taint{plural} {names}",
                             ops))
    return out


def node_fix(ctx: Context, node: str, info: NodeInfo) -> Fix | None:
    """Tolerate every taint the pod does not tolerate on the node (for `combined`)."""
    found = untolerated(ctx.pod, info.node)
    if not found or any(_system_taint(t) for t in found):
        return None
    return ([pod_op(ctx.pod, "add", "/spec/tolerations/-", _toleration(t)) for t in found],
            [f"tolerate {', '.join(taint_to_string(t) for t in found)}"])

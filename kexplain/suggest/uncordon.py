"""uncordon-node: uncordon the first node that only its cordon keeps from the pod, as `kubectl
uncordon` does (`spec.unschedulable` and its taint removed)."""
from __future__ import annotations

from kexplain.model.taints import UNSCHEDULABLE_TAINT
from kexplain.plugins.names import NODE_UNSCHEDULABLE, TAINT_TOLERATION
from kexplain.suggest.change import Candidate, Op, node_ref, pointer
from kexplain.suggest.context import Context
from kexplain.suggest.tolerations import untolerated

ID = "uncordon"
UNCORDON_NODE = "uncordon-node"
KINDS = (UNCORDON_NODE,)

CORDON_TAINT_KEY = UNSCHEDULABLE_TAINT["key"]


def candidates(ctx: Context) -> list[Candidate]:
    """Uncordon the first node that only its cordon keeps from the pod."""
    for node in ctx.within({NODE_UNSCHEDULABLE, TAINT_TOLERATION}):
        if NODE_UNSCHEDULABLE not in ctx.blocked[node]:
            continue
        info = ctx.info(node)
        if info is None:
            continue
        if any(t.get("key") != CORDON_TAINT_KEY for t in untolerated(ctx.pod, info.node)):
            continue
        ops: list[Op] = [{"op": "remove", "object": node_ref(node), "path": "/spec/unschedulable"}]
        for i in reversed(range(len(info.node.taints))):
            if info.node.taints[i].get("key") == CORDON_TAINT_KEY:
                ops.append({"op": "remove", "object": node_ref(node), "path": pointer("spec", "taints", i)})
        return [Candidate(UNCORDON_NODE, f"node {node}", f"uncordon node {node} (kubectl uncordon {node})",
                          tuple(ops))]
    return []

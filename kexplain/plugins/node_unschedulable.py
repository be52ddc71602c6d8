"""NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods that tolerate
the `node.kubernetes.io/unschedulable:NoSchedule` taint."""
from __future__ import annotations

from kexplain.framework.interface import Explainer, FilterPlugin, SignPlugin
from kexplain.framework import signers
from kexplain.framework.status import SUCCESS, Status, unresolvable
from kexplain.model.taints import UNSCHEDULABLE_TAINT, taint_to_string, tolerations_tolerate
from kexplain.plugins import names

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"


class NodeUnschedulable(FilterPlugin, Explainer, SignPlugin):
    name = names.NODE_UNSCHEDULABLE
    node_local = True      # reads only the pod and the node's NodeInfo (kexplain.framework.node_memo)
    pod_fields = ("tolerations",)

    def sign_pod(self, pod) -> signers.Fragments | None:
        """Its verdict reads only the tolerations."""
        return [(signers.TOLERATIONS, signers.tolerations(pod))]

    def filter(self, state, pod, node_info) -> Status:
        if not node_info.node.unschedulable:
            return SUCCESS
        if tolerations_tolerate(pod.tolerations, UNSCHEDULABLE_TAINT):
            return SUCCESS
        return unresolvable(ERR_REASON_UNSCHEDULABLE)

    def explain(self, state, pod, node_info) -> dict:
        """Whether the node is cordoned, and whether the pod tolerates the cordon's taint."""
        cordoned = node_info.node.unschedulable
        return {"unschedulable": cordoned, "taint": taint_to_string(UNSCHEDULABLE_TAINT),
                "tolerated": cordoned and tolerations_tolerate(pod.tolerations, UNSCHEDULABLE_TAINT)}

"""NodeName: a pod that names its node (spec.nodeName) fits only there."""
from __future__ import annotations

from kexplain.framework.interface import Explainer, FilterPlugin, SignPlugin
from kexplain.framework import signers
from kexplain.framework.status import SUCCESS, Status, unresolvable
from kexplain.plugins import names

ERR_REASON = "node(s) didn't match the requested node name"


class NodeName(FilterPlugin, Explainer, SignPlugin):
    name = names.NODE_NAME
    node_local = True      # reads only the pod and the node's NodeInfo (kexplain.framework.node_memo)
    pod_fields = ("nodeName",)

    def sign_pod(self, pod) -> signers.Fragments | None:
        """Its verdict reads only spec.nodeName."""
        return [(signers.NODE_NAME, pod.spec.get("nodeName") or "")]

    def filter(self, state, pod, node_info) -> Status:
        if not pod.node_name or pod.node_name == node_info.name:
            return SUCCESS
        return unresolvable(ERR_REASON)

    def explain(self, state, pod, node_info) -> dict | None:
        """The node the pod names (spec.nodeName), when it names one."""
        if not pod.node_name:
            return None
        return {"nodeName": pod.node_name, "match": pod.node_name == node_info.name}

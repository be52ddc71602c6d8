"""NodePorts: a pod asking for host ports cannot share a node with pods already holding the
same protocol and port on an overlapping host IP (0.0.0.0 overlaps every IP)."""
from __future__ import annotations

from kexplain.framework.interface import Explainer, FilterPlugin, PreFilterPlugin, PreFilterResult, SignPlugin
from kexplain.framework import signers
from kexplain.framework.status import SKIP, SUCCESS, Status, unschedulable
from kexplain.model.nodeinfo import WILDCARD_IP, HostPortInfo
from kexplain.plugins import names

NAME = names.NODE_PORTS
PRE_FILTER_STATE_KEY = "PreFilter" + NAME

ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


def fits_ports(wanted, used_ports) -> bool:
    return not any(used_ports.conflicts(p) for p in wanted)


class NodePorts(PreFilterPlugin, FilterPlugin, Explainer, SignPlugin):
    name = NAME
    node_local = True      # reads only the pod and the node's NodeInfo (kexplain.framework.node_memo)

    def sign_pod(self, pod) -> signers.Fragments | None:
        """The host ports the pod asks for."""
        return [(signers.HOST_PORTS, signers.host_ports(pod))]

    def pre_filter(self, state, pod, nodes) -> tuple[PreFilterResult | None, Status]:
        wanted = pod.host_ports
        if not wanted:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, wanted)
        return None, SUCCESS

    def filter(self, state, pod, node_info) -> Status:
        wanted = state.get(PRE_FILTER_STATE_KEY)
        if wanted is None:
            return Status.error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if fits_ports(wanted, node_info.used_ports):
            return SUCCESS
        return unschedulable(ERR_REASON)

    def explain(self, state, pod, node_info) -> dict | None:
        """Each host port the pod asks for: free on the node, or which of its pods hold it."""
        wanted = pod.host_ports
        if not wanted:
            return None
        holders = []
        for other in node_info.pods:
            if other.host_ports:
                used = HostPortInfo()
                for hp in other.host_ports:
                    used.add(hp)
                holders.append((other, used))
        ports = []
        for p in wanted:
            by = [f"{o.namespace}/{o.name}" for o, used in holders if used.conflicts(p)]
            ports.append({"port": f"{p.protocol or 'TCP'} {p.ip or WILDCARD_IP}:{p.port}", "free": not by,
                          "usedBy": by})
        return {"ports": ports}

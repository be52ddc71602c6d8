"""NodePorts: a pod asking for host ports cannot share a node with pods already holding the
same protocol and port on an overlapping host IP (0.0.0.0 overlaps every IP).

From 1.34 the host ports of restartable (sidecar) init containers count, on both sides;
before, only `spec.containers` did."""
from __future__ import annotations

from kexplain.framework.interface import Explainer, FilterPlugin, PreFilterPlugin, PreFilterResult, SignPlugin
from kexplain.framework import signers
from kexplain.framework.status import SKIP, SUCCESS, Status, unschedulable
from kexplain.model.nodeinfo import WILDCARD_IP, HostPortInfo
from kexplain.model.pod import HostPort
from kexplain.plugins import names

NAME = names.NODE_PORTS
PRE_FILTER_STATE_KEY = "PreFilter" + NAME

ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
SIDECAR_PORTS_SINCE = "1.34"   # util.GetHostPorts: sidecars' host ports count from 1.34


def container_host_ports(pod) -> tuple[HostPort, ...]:
    """The host ports of `spec.containers` alone (how kube-scheduler read them before 1.34)."""
    return tuple(HostPort(p.get("hostIP") or "0.0.0.0", p.get("protocol") or "TCP", int(p["hostPort"]))
                 for c in pod.spec.get("containers") or () for p in c.get("ports") or ()
                 if (p.get("hostPort") or 0) > 0)


def _has_sidecar_host_ports(pod) -> bool:
    return any(c.get("restartPolicy") == "Always" and any((p.get("hostPort") or 0) > 0 for p in c.get("ports") or ())
               for c in pod.spec.get("initContainers") or ())


def fits_ports(wanted, used_ports) -> bool:
    return not any(used_ports.conflicts(p) for p in wanted)


class NodePorts(PreFilterPlugin, FilterPlugin, Explainer, SignPlugin):
    name = NAME
    node_local = True      # reads only the pod and the node's NodeInfo (kexplain.framework.node_memo)
    pod_fields = ("initContainers", "containers")

    def sign_pod(self, pod) -> signers.Fragments | None:
        """The host ports the pod asks for."""
        return [(signers.HOST_PORTS, signers.host_ports(pod))]

    def __init__(self, args, handle) -> None:
        super().__init__(args, handle)
        self._sidecars_count = self.kube.since(SIDECAR_PORTS_SINCE)

    def _ports_of(self, pod) -> tuple[HostPort, ...]:
        return pod.host_ports if self._sidecars_count else container_host_ports(pod)

    def _used_ports(self, node_info) -> HostPortInfo:
        """The node's used host ports as this minor counts them (NodeInfo.UsedPorts)."""
        if self._sidecars_count or not any(_has_sidecar_host_ports(p) for p in node_info.pods if p.host_ports):
            return node_info.used_ports
        used = HostPortInfo()
        for other in node_info.pods:
            for hp in container_host_ports(other):
                used.add(hp)
        return used

    def pre_filter(self, state, pod, nodes) -> tuple[PreFilterResult | None, Status]:
        wanted = self._ports_of(pod)
        if not wanted:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, wanted)
        return None, SUCCESS

    def filter(self, state, pod, node_info) -> Status:
        wanted = state.get(PRE_FILTER_STATE_KEY)
        if wanted is None:
            return Status.error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if fits_ports(wanted, self._used_ports(node_info)):
            return SUCCESS
        return unschedulable(ERR_REASON)

    def explain(self, state, pod, node_info) -> dict | None:
        """Each host port the pod asks for: free on the node, or which of its pods hold it."""
        wanted = self._ports_of(pod)
        if not wanted:
            return None
        holders = []
        for other in node_info.pods:
            if ports := self._ports_of(other):
                used = HostPortInfo()
                for hp in ports:
                    used.add(hp)
                holders.append((other, used))
        ports = []
        for p in wanted:
            by = [f"{o.namespace}/{o.name}" for o, used in holders if used.conflicts(p)]
            ports.append({"port": f"{p.protocol or 'TCP'} {p.ip or WILDCARD_IP}:{p.port}", "free": not by,
                          "usedBy": by})
        return {"ports": ports}

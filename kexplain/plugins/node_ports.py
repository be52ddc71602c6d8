"""NodePorts: a pod asking for host ports cannot share a node with pods already holding the
same protocol and port on an overlapping host IP (0.0.0.0 overlaps every IP)."""
from __future__ import annotations

from ..framework.interface import Plugin, PreFilterResult, points
from ..framework.status import SKIP, SUCCESS, Status, unschedulable

NAME = "NodePorts"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME

ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


def fits_ports(wanted, used_ports) -> bool:
    return not any(used_ports.conflicts(p) for p in wanted)


class NodePorts(Plugin):
    name = NAME
    extension_points = points("preFilter", "filter")

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

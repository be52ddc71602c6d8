"""SchedulingGates: a pod with spec.schedulingGates waits in the queue; nothing else runs."""
from __future__ import annotations

from kexplain.framework.interface import Plugin, points
from kexplain.framework.status import SUCCESS, Status, unresolvable


class SchedulingGates(Plugin):
    name = "SchedulingGates"
    extension_points = points("preEnqueue")

    def pre_enqueue(self, pod) -> Status:
        gates = [g.get("name", "") for g in pod.spec.get("schedulingGates") or ()]
        if not gates:
            return SUCCESS
        # Go prints the slice with %v: [a b]
        return unresolvable(f"waiting for scheduling gates: [{' '.join(gates)}]")

"""SchedulingGates: a pod with spec.schedulingGates waits in the queue; nothing else runs."""
from __future__ import annotations

from kexplain.framework.interface import PreEnqueuePlugin
from kexplain.framework.status import SUCCESS, Status, unresolvable
from kexplain.plugins import names


class SchedulingGates(PreEnqueuePlugin):
    name = names.SCHEDULING_GATES

    def pre_enqueue(self, pod) -> Status:
        gates = [g.get("name", "") for g in pod.spec.get("schedulingGates") or ()]
        if not gates:
            return SUCCESS
        # Go prints the slice with %v: [a b]
        return unresolvable(f"waiting for scheduling gates: [{' '.join(gates)}]")

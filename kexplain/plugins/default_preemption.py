"""DefaultPreemption: whether evicting lower-priority pods would make room for a pod that fits
nowhere, on which node and at the cost of which victims, as a dry run (nothing is evicted).
PostFilter checks the pod may preempt, then hands the search to `kexplain.framework.preemption`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from kexplain.framework.interface import NodeToStatus, PostFilterPlugin, PostFilterResult, PreEnqueuePlugin
from kexplain.framework.preemption import (DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE, DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE,
                                           is_preemption_allowed, preempt)
from kexplain.framework.status import SUCCESS, Code, Status
from kexplain.plugins import names

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.framework.cycle_state import CycleState
    from kexplain.model.pod import PodInfo

NAME = names.DEFAULT_PREEMPTION

MESSAGE_PREFIX = "preemption: "
ERR_NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
ERR_NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
# PreEnqueue's reason while an asynchronous preemption for the pod is under way (never in a dry run).
ERR_WAITING_FOR_PREEMPTION = "waiting for the preemption for this pod to be finished"

PREEMPT_NEVER = "Never"
DISRUPTION_TARGET = "DisruptionTarget"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"


def terminating_by_preemption(pod: "PodInfo") -> bool:
    """Being deleted (deletionTimestamp) because the scheduler preempted it: its first
    DisruptionTarget condition is True with reason PreemptionByScheduler."""
    if not pod.deletion_timestamp:
        return False
    for cond in pod.status.get("conditions") or ():
        if cond.get("type") == DISRUPTION_TARGET:
            return cond.get("status") == "True" and cond.get("reason") == REASON_PREEMPTION_BY_SCHEDULER
    return False


def _int_arg(args: Mapping[str, Any], key: str, default: int) -> int:
    value = args.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


class DefaultPreemption(PreEnqueuePlugin, PostFilterPlugin):
    name = NAME

    @property
    def offset(self) -> int:
        """Where the candidate search starts: the framework's preemption_offset (random in the
        scheduler, 0 unless kexplain is given one)."""
        return max(0, self.handle.preemption_offset)

    def pre_enqueue(self, pod: "PodInfo") -> Status:
        # No preemption is ever in flight in a dry run, so no pod waits for one.
        return SUCCESS

    def pod_eligible_to_preempt_others(self, pod: "PodInfo", nominated_status: Status) -> tuple[bool, str]:
        """(True, "") when the pod may preempt, else (False, why)."""
        if pod.preemption_policy == PREEMPT_NEVER:
            return False, ERR_NOT_ELIGIBLE_NEVER
        nominated = pod.nominated_node_name
        if nominated:
            # A nominated node the filters now reject for good frees the pod to preempt again.
            if nominated_status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            node_info = self.handle.snapshot.get(nominated)
            if node_info is not None:
                for p in node_info.pods:
                    if is_preemption_allowed(p, pod) and terminating_by_preemption(p):
                        return False, ERR_NOT_ELIGIBLE_TERMINATING
        return True, ""

    def post_filter(self, state: "CycleState", pod: "PodInfo",
                    statuses: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
        ok, why = self.pod_eligible_to_preempt_others(pod, statuses.get(pod.nominated_node_name))
        if not ok:
            result, status = None, Status(Code.UNSCHEDULABLE, (why,))
        else:
            result, status = preempt(
                self.handle, state, pod, statuses, offset=self.offset,
                percentage=_int_arg(self.args, "minCandidateNodesPercentage", DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE),
                absolute=_int_arg(self.args, "minCandidateNodesAbsolute", DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE))
        message = status.message()
        if message:
            return result, Status(status.code, (MESSAGE_PREFIX + message,))
        return result, status

"""The eviction manager's admit handler (`managerImpl.Admit`, a `lifecycle.PodAdmitHandler`):
while the node reports a pressure condition, a new pod is refused unless it is critical, or the
only condition is MemoryPressure and the pod is not BestEffort or tolerates the memory-pressure
taint."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from kexplain.controllers.kubelet import qos_class
from kexplain.eviction.kubelet import message as msg
from kexplain.eviction.kubelet import rank
from kexplain.eviction.kubelet.thresholds import CONDITION_ORDER, MEMORY_PRESSURE
from kexplain.model.pod import PodInfo
from kexplain.model.taints import NO_SCHEDULE, tolerations_tolerate

TAINT_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
BEST_EFFORT = "BestEffort"

# why each pod was admitted or not (the explanation's words; the kubelet says only the refusal)
WHY_NO_CONDITION = "no pressure condition"
WHY_CRITICAL = "critical pod"
WHY_NOT_BEST_EFFORT = "not BestEffort under memory pressure alone"
WHY_TOLERATES = "tolerates the memory-pressure taint"
WHY_REFUSED = "refused under the node's conditions"


@dataclass(frozen=True)
class Admission:
    """lifecycle.PodAdmitResult for one pod, with the QoS class read and why."""

    pod: str
    qos_class: str
    admit: bool
    reason: str = ""
    message: str = ""
    why: str = ""


def reported_conditions(node: Mapping) -> list[str]:
    """The pressure conditions a Node's status reports True: the eviction manager's nodeConditions
    as the kubelet's node status setters publish them (MemoryPressure, DiskPressure, PIDPressure,
    in that order), what its admit handler reads when no stats Summary says more."""
    status = node.get("status") if isinstance(node.get("status"), Mapping) else {}
    true = {c.get("type") for c in status.get("conditions") or () if isinstance(c, Mapping) and c.get("status") == "True"}
    return [c for c in CONDITION_ORDER if c in true]


def go_list(items: Sequence[str]) -> str:
    """fmt's %v of a []NodeConditionType."""
    return "[" + " ".join(items) + "]"


def admit(pod: Mapping, conditions: Sequence[str], pod_level: bool, comparison_operators: bool) -> Admission:
    """Admit: the eviction manager's answer for a pod arriving now."""
    info = PodInfo(dict(pod))
    qos = qos_class(info, pod_level)
    name = f"{info.namespace}/{info.name}"
    if not conditions:
        return Admission(name, qos, True, why=WHY_NO_CONDITION)
    if rank.is_critical(pod):
        return Admission(name, qos, True, why=WHY_CRITICAL)
    if list(conditions) == [MEMORY_PRESSURE]:
        if qos != BEST_EFFORT:
            return Admission(name, qos, True, why=WHY_NOT_BEST_EFFORT)
        taint = {"key": TAINT_MEMORY_PRESSURE, "effect": NO_SCHEDULE}
        if tolerations_tolerate(info.spec.get("tolerations") or (), taint,
                                enable_comparison_operators=comparison_operators):
            return Admission(name, qos, True, why=WHY_TOLERATES)
    return Admission(name, qos, False, msg.REASON, msg.NODE_CONDITION.format(go_list(conditions)), WHY_REFUSED)

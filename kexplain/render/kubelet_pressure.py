"""The kubelet's eviction manager's admission of a pod bound to a node under pressure, in words:
one sentence the text and the page both say (the trace's `kubelet.pressure`)."""
from __future__ import annotations

from typing import Any, Mapping, Optional

from kexplain.eviction.kubelet import admit as handler
from kexplain.eviction.kubelet.admit import TAINT_MEMORY_PRESSURE

ADMITTED = {
    handler.WHY_CRITICAL: "admits it: a critical pod is admitted under any pressure",
    handler.WHY_NOT_BEST_EFFORT: "admits it: under MemoryPressure alone only BestEffort pods are refused, and it is "
                                 "{qos}",
    handler.WHY_TOLERATES: f"admits it: a BestEffort pod that tolerates the {TAINT_MEMORY_PRESSURE} taint",
}
REFUSED_MEMORY = (f"refuses it: under MemoryPressure alone a BestEffort pod that does not tolerate the "
                  f"{TAINT_MEMORY_PRESSURE} taint is refused (a critical pod would be admitted)")
REFUSED_OTHER = "refuses it: under {conditions} every pod but a critical one is refused"


def pressure_sentence(kubelet: Mapping[str, Any]) -> Optional[str]:
    """`Node NODE reports MemoryPressure (node status): the kubelet's eviction manager ...`, or None
    when the node reports no pressure condition."""
    pressure = kubelet.get("pressure")
    if not pressure:
        return None
    conditions = [str(c) for c in pressure.get("conditions") or ()]
    said = ", ".join(conditions)
    head = f"Node {kubelet.get('node')} reports {said} ({pressure.get('from')}): the kubelet's eviction manager "
    if pressure.get("admitted"):
        why = ADMITTED.get(str(pressure.get("why")), "admits it")
        return head + why.format(qos=pressure.get("qosClass")) + "."
    if conditions == ["MemoryPressure"]:
        return head + REFUSED_MEMORY + "."
    others = [c for c in conditions if c != "MemoryPressure"]
    return head + REFUSED_OTHER.format(conditions=" and ".join(others)) + "."

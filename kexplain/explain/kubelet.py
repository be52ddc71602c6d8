"""The trace of a pod that names its node: its kubelet's verdict in place of a scheduling cycle.

The kubelet runs its admit handlers in order and the first refusal is the pod's: the eviction
manager's (`eviction.kubelet.admit`, the node's pressure conditions: its status's, or what a stats
Summary shows, `readmit`), then the predicate handler's (`controllers.kubelet.admission`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from kexplain.controllers.kubelet import KubeletVerdict, admission
from kexplain.eviction.kubelet.admit import admit as eviction_admit, reported_conditions
from kexplain.eviction.kubelet.thresholds import CONDITION_ORDER
from kexplain.features import KubeVersion, version_json
from kexplain.framework.extras import node_facts, pod_facts
from kexplain.framework.trace import FAILED, SCHEDULED, Result, Trace
from kexplain.model.nodeinfo import NodeInfo
from kexplain.model.pod import PodInfo

if TYPE_CHECKING:
    from kexplain.explain.pod_inputs import Inputs
    from kexplain.explain.request import RunOptions

NODE_STATUS = "node status"         # where the pressure conditions were read (`pressure.from`)
STATS_SUMMARY = "stats Summary"


def bound_node(pod: PodInfo, inputs: "Inputs") -> str | None:
    """The node a pod names when the cluster has it: its kubelet, not the scheduler, decides."""
    name = pod.node_name
    return name if name and inputs.snapshot.get(name) is not None else None


def kubelet_verdict(pod: PodInfo, info: NodeInfo, kube: KubeVersion, conditions: Optional[Sequence[str]] = None,
                    read_from: str = NODE_STATUS) -> tuple[KubeletVerdict, Optional[dict[str, Any]]]:
    """The kubelet's admit handlers over `pod`: the eviction manager's under the node's pressure
    `conditions` (None: those its status reports), then the predicate handler's; with what the
    eviction manager said (None: no pressure condition)."""
    if conditions is None:
        conditions = reported_conditions(info.node.obj)
    pressure = None
    if conditions:
        answer = eviction_admit(pod.obj, conditions, kube.enabled("PodLevelResources"),
                                kube.enabled("TaintTolerationComparisonOperators"))
        pressure = {"conditions": list(conditions), "from": read_from, "admitted": answer.admit,
                    "why": answer.why, "qosClass": answer.qos_class}
        if not answer.admit:
            return KubeletVerdict(info.node.name, answer.reason, answer.message), pressure
    return admission(pod, info, kube), pressure


def verdict_json(verdict: KubeletVerdict, pressure: Optional[dict[str, Any]]) -> tuple[Result, dict[str, Any]]:
    """The trace's `result` and `kubelet` of a verdict."""
    node = verdict.node
    result = Result(SCHEDULED, [node], "", suggested_host=node) if verdict.admitted else \
        Result(FAILED, [], verdict.status_message)
    out = verdict.to_json()
    if pressure is not None:
        out["pressure"] = pressure
    return result, out


def kubelet_trace(inputs: "Inputs", options: "RunOptions", node: str) -> Trace:
    """The trace of a pod bound to `node`: no scheduling cycle, the kubelet's verdict under `kubelet`."""
    pod = inputs.pod
    info = inputs.snapshot.get(node)
    assert info is not None
    kube = inputs.config.kube
    trace = Trace(pod={"namespace": pod.namespace, "name": pod.name},
                  profile=str(pod.spec.get("schedulerName") or "default-scheduler"), kubernetes=version_json(kube))
    trace.result, trace.extra["kubelet"] = verdict_json(*kubelet_verdict(pod, info, kube))
    if options.details:
        trace.extra["details"] = {"pod": pod_facts(pod), "nodes": {node: node_facts(info)}}
    return trace


def readmit(trace: dict[str, Any], pod: PodInfo, info: NodeInfo, kube: KubeVersion, shown: Sequence[str]) -> None:
    """A bound pod's trace (a document) decided again when a stats Summary shows the node's
    pressure `shown` (the eviction manager's conditions from it): the node status's conditions and
    the Summary's together, the kubelet's verdict and the result rewritten."""
    if not trace.get("kubelet"):
        return
    reported = reported_conditions(info.node.obj)
    if not [c for c in shown if c not in reported]:
        return
    conditions = [c for c in CONDITION_ORDER if c in reported or c in shown]
    read_from = f"{NODE_STATUS} and {STATS_SUMMARY}" if reported else STATS_SUMMARY
    result, kubelet = verdict_json(*kubelet_verdict(pod, info, kube, conditions, read_from))
    trace["result"] = result.to_json()
    trace["kubelet"] = kubelet

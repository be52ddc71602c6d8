"""The trace of a pod that names its node: its kubelet's verdict in place of a scheduling cycle."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kexplain.controllers.kubelet import admission
from kexplain.features import version_json
from kexplain.framework.extras import node_facts, pod_facts
from kexplain.framework.trace import FAILED, SCHEDULED, Result, Trace
from kexplain.model.pod import PodInfo

if TYPE_CHECKING:
    from kexplain.explain.pod_inputs import Inputs
    from kexplain.explain.request import RunOptions


def bound_node(pod: PodInfo, inputs: "Inputs") -> str | None:
    """The node a pod names when the cluster has it: its kubelet, not the scheduler, decides."""
    name = pod.node_name
    return name if name and inputs.snapshot.get(name) is not None else None



def kubelet_trace(inputs: "Inputs", options: "RunOptions", node: str) -> Trace:
    """The trace of a pod bound to `node`: no scheduling cycle, the kubelet's verdict under `kubelet`."""
    pod = inputs.pod
    info = inputs.snapshot.get(node)
    assert info is not None
    kube = inputs.config.kube
    verdict = admission(pod, info, kube)
    trace = Trace(pod={"namespace": pod.namespace, "name": pod.name},
                  profile=str(pod.spec.get("schedulerName") or "default-scheduler"), kubernetes=version_json(kube))
    trace.result = Result(SCHEDULED, [node], "", suggested_host=node) if verdict.admitted else \
        Result(FAILED, [], verdict.status_message)
    trace.extra["kubelet"] = verdict.to_json()
    if options.details:
        trace.extra["details"] = {"pod": pod_facts(pod), "nodes": {node: node_facts(info)}}
    return trace

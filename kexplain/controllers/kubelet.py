"""The kubelet's admission of a pod that names its node (pkg/kubelet/lifecycle/predicate.go
`predicateAdmitHandler.Admit`, and pkg/kubelet/preemption for critical pods): the scheduler never sees
such a pod, the kubelet admits or rejects it (phase Failed, its reason). One home for the cluster state,
explain (`kexplain.explain.kubelet`) and lint (`kubelet-rejected`). The checks, their order and what is
not reproduced: docs/internals/controllers.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Sequence

from kexplain.features import KubeVersion
from kexplain.features.gate_table import SPECS
from kexplain.framework.trace import FAILED
from kexplain.model.nodeinfo import HostPortInfo, NodeInfo
from kexplain.model.nodeselector import RequiredNodeAffinity
from kexplain.model.owners import is_mirror_pod
from kexplain.model.pod import PodInfo
from kexplain.model.resources import Resource, is_extended_resource, pod_requests, resource_list
from kexplain.model.taints import NO_EXECUTE, tolerations_tolerate
from kexplain.plugins import names
from kexplain.plugins.node_affinity import ERR_REASON_POD
from kexplain.plugins.node_name import ERR_REASON as NODE_NAME_REASON
from kexplain.plugins.node_ports import ERR_REASON as NODE_PORTS_REASON, SIDECAR_PORTS_SINCE, \
    container_host_ports, fits_ports
from kexplain.plugins.node_resources_fit import InsufficientResource, insufficient_resources

KUBELET = "kubelet"         # the events' source
LABEL_OS = "kubernetes.io/os"
SYSTEM_CRITICAL_PRIORITY = 2000000000
# tainttoleration.ErrReasonNotMatch, which the kubelet reports (the scheduler's Filter says otherwise)
TAINT_REASON = "node(s) had taints that the pod didn't tolerate"
_OUT_OF = {"cpu": "OutOfcpu", "memory": "OutOfmemory", "ephemeral-storage": "OutOfephemeral-storage",
           "pods": "OutOfpods"}


@dataclass(frozen=True)
class KubeletVerdict:
    """What the kubelet of `node` does with a pod bound to it: admits it (`reason` "") or rejects it;
    `evicted`: the pods a critical pod's admission evicts."""

    node: str
    reason: str = ""
    message: str = ""
    evicted: tuple[str, ...] = ()

    @property
    def admitted(self) -> bool:
        return not self.reason

    @property
    def status_message(self) -> str:
        """The rejected pod's `status.message`."""
        return f"Pod was rejected: {self.message}" if self.reason else ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"node": self.node, "admitted": self.admitted}
        if self.evicted:
            out["evicted"] = list(self.evicted)
        if not self.admitted:
            out["event"] = {"type": "Warning", "reason": self.reason, "from": KUBELET, "message": self.message}
            out["status"] = {"phase": FAILED, "reason": self.reason, "message": self.status_message}
        return out


# -- the checks ----------------------------------------------------------------------------------
def _node_os(info: NodeInfo) -> str:
    return info.node.labels.get(LABEL_OS) or "linux"


def _supplemental_groups(pod: PodInfo, info: NodeInfo, kube: KubeVersion) -> bool:
    """rejectPodAdmissionBasedOnSupplementalGroupsPolicy: Strict asked of a node that does not
    support it, once the gate is beta or GA (a gate the minor no longer lists went GA)."""
    sc = pod.spec.get("securityContext") if isinstance(pod.spec.get("securityContext"), dict) else {}
    if sc.get("supplementalGroupsPolicy") is None:
        return False
    stage = SPECS.get(kube.minor, {}).get("SupplementalGroupsPolicy", (True, "GA", True))[1]
    if stage not in ("Beta", "GA"):
        return False
    features = (info.node.obj.get("status") or {}).get("features") or {}
    return sc.get("supplementalGroupsPolicy") == "Strict" and features.get("supplementalGroupsPolicy") is not True


def _without_missing_extended(spec: dict[str, Any], info: NodeInfo) -> dict[str, Any]:
    """removeMissingExtendedResources: the containers' requests of extended resources the node
    does not have are dropped (requests only: fitting reads no limit)."""
    have = info.allocatable.scalar

    def trimmed(containers: Any) -> list[Any]:
        out = []
        for c in containers or ():
            requests = ((c.get("resources") or {}).get("requests") if isinstance(c, dict) else None) or {}
            if isinstance(requests, dict) and any(is_extended_resource(n) and n not in have for n in requests):
                kept = {n: q for n, q in requests.items() if not (is_extended_resource(n) and n not in have)}
                c = {**c, "resources": {**(c.get("resources") or {}), "requests": kept}}
            out.append(c)
        return out
    return {**spec, "containers": trimmed(spec.get("containers")),
            "initContainers": trimmed(spec.get("initContainers"))}


def _ports_fit(pod: PodInfo, info: NodeInfo, kube: KubeVersion) -> bool:
    """nodeports.Fits: the pod's host ports free on the node (sidecars' counted from 1.34)."""
    if kube.since(SIDECAR_PORTS_SINCE):
        wanted, used = pod.host_ports, info.used_ports
    else:
        wanted, used = container_host_ports(pod), HostPortInfo()
        for other in info.pods:
            for hp in container_host_ports(other):
                used.add(hp)
    return not wanted or fits_ports(wanted, used)


def _untolerated_no_execute(pod: PodInfo, info: NodeInfo, kube: KubeVersion) -> bool:
    comparison = kube.enabled("TaintTolerationComparisonOperators")
    return any(t.get("effect") == NO_EXECUTE and not tolerations_tolerate(pod.tolerations, t,
                                                                           enable_comparison_operators=comparison)
               for t in info.node.taints)


Failure = InsufficientResource | tuple[str, str]     # a resource lacking, or (predicate, its reason)


def _general_filter(pod: PodInfo, info: NodeInfo, kube: KubeVersion) -> list[Failure]:
    """generalFilter: AdmissionCheck's every failure, in its order, then the NoExecute taints."""
    request = Resource.from_list(pod_requests({"spec": _without_missing_extended(pod.spec, info)}))
    failures: list[Failure] = list(insufficient_resources(request, info))
    if not RequiredNodeAffinity.from_pod(pod).matches(info.node):
        failures.append((names.NODE_AFFINITY, ERR_REASON_POD))
    if pod.node_name and pod.node_name != info.node.name:
        failures.append((names.NODE_NAME, NODE_NAME_REASON))
    if not _ports_fit(pod, info, kube):
        failures.append((names.NODE_PORTS, NODE_PORTS_REASON))
    if _untolerated_no_execute(pod, info, kube):
        failures.append((names.TAINT_TOLERATION, TAINT_REASON))
    return failures


def _said(failure: Failure) -> tuple[str, str]:
    """(reason, message) of a failure, as the kubelet reports the first one."""
    if isinstance(failure, InsufficientResource):
        return (_OUT_OF.get(failure.name, f"OutOf{failure.name}"),
                f"Node didn't have enough resource: {failure.name}, requested: {failure.requested}, "
                f"used: {failure.used}, capacity: {failure.capacity}")
    predicate, why = failure
    return predicate, f"Predicate {predicate} failed: {why}"


# -- a critical pod: pkg/kubelet/preemption --------------------------------------------------------
def _critical(pod: PodInfo) -> bool:
    """kubetypes.IsCriticalPod for a pod from the API server: a mirror pod, or priority at
    least SystemCriticalPriority."""
    return is_mirror_pod(pod) or pod.priority >= SYSTEM_CRITICAL_PRIORITY


def _preemptable(preemptor: PodInfo, preemptee: PodInfo) -> bool:
    if _critical(preemptor) and not _critical(preemptee):
        return True
    return preemptor.priority > preemptee.priority


def _positive(resources: Any) -> dict[str, Fraction]:
    """processResourceList's view: the cpu and memory quantities above zero."""
    return {n: q for n, q in resource_list(resources).items() if n in ("cpu", "memory") and q > 0}


def qos_class(pod: PodInfo, pod_level: bool = True) -> str:
    """v1qos.GetPodQOS: the status's class, else ComputePodQOS (pod-level resources when the
    gate is on and the pod has them)."""
    given = pod.status.get("qosClass")
    if given:
        return str(given)
    requests: dict[str, Fraction] = {}
    limits: dict[str, Fraction] = {}
    guaranteed = True
    own = pod.spec.get("resources")
    if pod_level and isinstance(own, dict):
        requests.update(_positive(own.get("requests")))
        if own.get("limits"):
            limits.update(_positive(own.get("limits")))
            guaranteed = {"cpu", "memory"} <= set(limits)
    else:
        for c in [*(pod.spec.get("containers") or ()), *(pod.spec.get("initContainers") or ())]:
            resources = (c.get("resources") or {}) if isinstance(c, dict) else {}
            for n, q in _positive(resources.get("requests")).items():
                requests[n] = requests.get(n, 0) + q
            found = _positive(resources.get("limits"))
            for n, q in found.items():
                limits[n] = limits.get(n, 0) + q
            if not {"cpu", "memory"} <= set(found):
                guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and all(limits.get(n) == q for n, q in requests.items()) and len(requests) == len(limits):
        return "Guaranteed"
    return "Burstable"


def _request(pod: PodInfo, name: str) -> int:
    """resource.GetResourceRequest: 1 for pods, millicores for cpu, units otherwise; overhead
    only on a request that is not zero."""
    if name == "pods":
        return 1
    spec = {k: v for k, v in pod.spec.items() if k != "overhead"}
    total = pod_requests({"spec": spec}).get(name, Fraction(0))
    overhead = pod_requests({"spec": {"overhead": pod.spec.get("overhead")}}).get(name, Fraction(0))
    if total and overhead:
        total += overhead
    return Resource.from_list({name: total}).get(name)


Requirements = list[tuple[str, int]]


def _subtract(requirements: Requirements, pods: Sequence[PodInfo]) -> Requirements:
    out = []
    for name, quantity in requirements:
        for p in pods:
            quantity -= _request(p, name)
            if quantity <= 0:
                break
        if quantity > 0:
            out.append((name, quantity))
    return out


class _CannotReclaim(Exception):
    pass


def _to_string(requirements: Requirements) -> str:
    return "[" + "".join(f"(res: {name}, q: {q}), " for name, q in requirements) + "]"


def _by_distance(pods: list[PodInfo], requirements: Requirements) -> list[PodInfo]:
    """getPodsToPreemptByDistance: the pod closest to what is still missing, each round."""
    chosen: list[PodInfo] = []
    pods = list(pods)
    while requirements:
        if not pods:
            raise _CannotReclaim(f"no set of running pods found to reclaim resources: {_to_string(requirements)}")
        best, best_distance = 0, float(len(requirements) + 1)
        for i, p in enumerate(pods):
            distance = 0.0
            for name, quantity in requirements:
                remaining = float(quantity - _request(p, name))
                if remaining > 0:
                    distance += (remaining / quantity) ** 2
            if distance < best_distance or (distance == best_distance and _smaller(p, pods[best])):
                best, best_distance = i, distance
        requirements = _subtract(requirements, [pods[best]])
        chosen.append(pods[best])
        pods[best] = pods[-1]
        pods.pop()
    return chosen


def _smaller(a: PodInfo, b: PodInfo) -> bool:
    for name in ("memory", "cpu"):
        ra, rb = _request(a, name), _request(b, name)
        if ra != rb:
            return ra < rb
    return True


def _victims(pod: PodInfo, info: NodeInfo, lacking: Iterable[InsufficientResource], pod_level: bool) -> list[PodInfo]:
    """getPodsToPreempt: the pods whose eviction frees what `lacking` misses (raises
    _CannotReclaim when the node's pods cannot)."""
    requirements = [(r.name, r.requested - (r.capacity - r.used)) for r in lacking]
    by_class: dict[str, list[PodInfo]] = {"BestEffort": [], "Burstable": [], "Guaranteed": []}
    for other in info.pods:
        if _preemptable(pod, other):
            by_class[qos_class(other, pod_level)].append(other)
    best_effort, burstable, guaranteed = by_class["BestEffort"], by_class["Burstable"], by_class["Guaranteed"]
    left = _subtract(requirements, [*best_effort, *burstable, *guaranteed])
    if left:
        raise _CannotReclaim(f"no set of running pods found to reclaim resources: {_to_string(left)}")
    g = _by_distance(guaranteed, _subtract(requirements, [*best_effort, *burstable]))
    b = _by_distance(burstable, _subtract(requirements, [*best_effort, *g]))
    e = _by_distance(best_effort, _subtract(requirements, [*b, *g]))
    return [*e, *b, *g]


# -- the verdict ----------------------------------------------------------------------------------
def admission(pod: PodInfo, info: NodeInfo, kube: KubeVersion) -> KubeletVerdict:
    """predicateAdmitHandler.Admit of `pod` by the kubelet of `info`'s node (its pods: the
    others it runs)."""
    node = info.node.name
    node_os = _node_os(info)
    if LABEL_OS in pod.labels and pod.labels[LABEL_OS] != node_os:
        return KubeletVerdict(node, "PodOSSelectorNodeLabelDoesNotMatch",
                              "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label")
    os_field = pod.spec.get("os") if isinstance(pod.spec.get("os"), dict) else None
    if os_field is not None and os_field.get("name") != node_os:
        return KubeletVerdict(node, "PodOSNotSupported", "Failed to admit pod as the OS field doesn't match node OS")
    if _supplemental_groups(pod, info, kube):
        return KubeletVerdict(node, "SupplementalGroupsPolicyNotSupported",
                              "SupplementalGroupsPolicy=Strict is not supported in this node")
    failures = _general_filter(pod, info, kube)
    if not failures:
        return KubeletVerdict(node)
    if _critical(pod):          # CriticalPodAdmissionHandler.HandleAdmissionFailure
        others = [f for f in failures if not isinstance(f, InsufficientResource)]
        if not others:
            pod_level = kube.enabled("PodLevelResources")
            try:
                evicted = _victims(pod, info, [f for f in failures if isinstance(f, InsufficientResource)],
                                   pod_level)
            except _CannotReclaim as err:
                return KubeletVerdict(node, "UnexpectedAdmissionError",
                                      "Unexpected error while attempting to recover from admission failure: "
                                      f"preemption: error finding a set of pods to preempt: {err}")
            return KubeletVerdict(node, evicted=tuple(p.key for p in evicted))
        failures = others
    return KubeletVerdict(node, *_said(failures[0]))

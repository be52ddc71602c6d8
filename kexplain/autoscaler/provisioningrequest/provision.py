"""CA's answer for ProvisioningRequests, one per loop (processors/provreq: the injector takes the
first request not yet provisioned, marks it Accepted and injects its pods; provisioningrequest/
orchestrator: the class that takes them): `check-capacity` (checkcapacity/provisioningclass.go:
do all its pods fit on the existing nodes, nothing scaled) and `best-effort-atomic-scale-up`
(besteffortatomic/provisioning_class.go: the pods that do not fit, by one scale-up that takes
all of them or none). A request provisioned books its pods in the later loops (bookCapacity)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from kexplain.autoscaler.inputs import LoopInputs
from kexplain.autoscaler.loop import framework, is_listed_unschedulable, scale_up_context, sim_memo
from kexplain.autoscaler.orchestrator import ScaleUpStatus, scale_up
from kexplain.autoscaler.podlistprocessor import process
from kexplain.autoscaler.provisioningrequest import conditions as c
from kexplain.autoscaler.provisioningrequest.pods import ProvisioningRequest, pods_for
from kexplain.autoscaler.simulator import ClusterSim
from kexplain.autoscaler.status import NOT_NEEDED, NOT_TRIED, NO_OPTIONS, SUCCESSFUL
from kexplain.autoscaler.templates import template_node_infos
from kexplain.model.pod import PodInfo

DISABLED = ("CA runs with --enable-provisioning-requests=false (CA's default): it does not handle "
            "ProvisioningRequests, so this one stays without Accepted or Provisioned conditions (give "
            "flags: {enable-provisioning-requests: true} in --autoscaler-config if CA runs with it)")
NOT_SUPPORTED = ("CA takes only the check-capacity.autoscaling.x-k8s.io and "
                 "best-effort-atomic-scale-up.autoscaling.x-k8s.io classes (and check-capacity only for its "
                 "processor instance): it leaves this request to another provisioner")


@dataclass
class Answer:
    """CA's answer for one request: the conditions it leaves, the ScaleUpResult, where each pod
    fits on an existing node, the scale-up (group, from, to) and why the other pods fit no group."""

    request: ProvisioningRequest
    processed: bool
    conditions: list[c.Condition] = field(default_factory=list)
    result: str = NOT_TRIED
    placed: dict[str, str] = field(default_factory=dict)
    unplaced: list[str] = field(default_factory=list)
    scale_ups: list[dict[str, Any]] = field(default_factory=list)
    rejected: dict[str, dict[str, list[str]]] = field(default_factory=dict)   # group -> reasons, per pod
    partial: list[dict[str, Any]] = field(default_factory=list)     # groups that would take only some pods
    note: str = ""

    @property
    def provisioned(self) -> bool:
        return any(x.type == c.PROVISIONED and x.status == "True" for x in self.conditions)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.request.name, "namespace": self.request.namespace,
                               "provisioningClassName": self.request.class_name, "processed": self.processed,
                               "conditions": [x.to_json() for x in self.conditions], "scaleUpResult": self.result}
        for key, value in (("fitsOnNodes", self.placed), ("fitsNoNode", self.unplaced),
                           ("scaleUps", self.scale_ups), ("podsRejected", self.rejected),
                           ("partialOptions", self.partial), ("note", self.note)):
            if value:
                out[key] = value
        return out


def provision_all(loop: LoopInputs, requests: Sequence[ProvisioningRequest]) -> list[Answer]:
    """CA's loops over `requests`, one request a loop, in order, as the loop's settings say: none
    without --enable-provisioning-requests (CA builds no injector: each request is left as it is),
    and only the classes of its --check-capacity-processor-instance."""
    if not loop.settings.flag(c.ENABLE_FLAG):
        return [Answer(pr, False, list(pr.conditions), note=DISABLED) for pr in requests]
    instance = loop.settings.flag("check-capacity-processor-instance")
    booked: list[PodInfo] = []
    out = []
    for pr in requests:
        if not c.supported(pr.class_name, pr.parameters, instance):
            out.append(Answer(pr, False, list(pr.conditions), note=NOT_SUPPORTED))
            continue
        sim = _loop_sim(loop, booked)
        answer = _provision(loop, sim, pr, instance)
        if answer.provisioned:
            booked += [PodInfo(p) for p in pods_for(pr, loop.kube)]
        out.append(answer)
    return out


def _loop_sim(loop: LoopInputs, booked: list[PodInfo]) -> ClusterSim:
    """The loop's snapshot after its pod list processors: the cluster's own unschedulable pods that
    fit put where they fit (FilterOutSchedulable), then the provisioned requests' pods (bookCapacity)."""
    sim = ClusterSim(loop.snapshot, framework(loop, loop.snapshot), sim_memo(loop))
    created = dict(zip(map(id, loop.pending), loop.pending_created))
    listed = [p for p in loop.pending if is_listed_unschedulable(p)]
    if listed:
        process(listed, [created[id(p)] for p in listed], sim, loop.settings, loop.now)
    for pod in booked:
        sim.schedule_anywhere(pod)
    return sim


def _provision(loop: LoopInputs, sim: ClusterSim, pr: ProvisioningRequest, instance: str) -> Answer:
    pods = [PodInfo(p) for p in pods_for(pr, loop.kube)]
    answer = Answer(pr, True, c.add_or_update(list(pr.conditions), c.Condition(
        c.ACCEPTED, "True", c.ACCEPTED_REASON, c.ACCEPTED_MSG)))      # the injector's MarkAsAccepted
    if c.supported_check_capacity(pr.class_name, pr.parameters, instance):
        _check_capacity(sim, pods, answer)
    else:
        _best_effort_atomic(loop, sim, pods, answer)
    return answer


def _try_schedule(sim: ClusterSim, pods: list[PodInfo], break_on_failure: bool, answer: Answer) -> list[PodInfo]:
    """TrySchedulePods: each pod on the first node it fits from the last match on (bound there);
    the pods that fit nowhere (with `break_on_failure`, the first, and the rest not tried)."""
    left = []
    for i, pod in enumerate(pods):
        node = sim.schedule_anywhere(pod)
        if node is not None:
            answer.placed[pod.name] = node
            continue
        left.append(pod)
        if break_on_failure:
            left += pods[i + 1:]
            break
    answer.unplaced = [p.name for p in left]
    return left


def _set(answer: Answer, type_: str, status: str, reason: str, message: str) -> None:
    answer.conditions = c.add_or_update(answer.conditions, c.Condition(type_, status, reason, message))


def _check_capacity(sim: ClusterSim, pods: list[PodInfo], answer: Answer) -> None:
    """checkCapacity: every pod fits (Provisioned=True, CapacityIsFound), or not: Provisioned=False,
    or Failed=True with the noRetry parameter "true"."""
    sim.fork()
    try:
        left = _try_schedule(sim, pods, True, answer)
    finally:
        sim.revert()
    if not left:
        answer.result = SUCCESSFUL
        _set(answer, c.PROVISIONED, "True", c.CAPACITY_IS_FOUND_REASON, c.CAPACITY_IS_FOUND_MSG)
        return
    answer.result = NO_OPTIONS
    if answer.request.parameters.get(c.NO_RETRY_PARAMETER) == "true":
        _set(answer, c.FAILED, "True", c.CAPACITY_IS_NOT_FOUND_REASON, c.NOT_FOUND_NO_RETRY_MSG)
    else:
        _set(answer, c.PROVISIONED, "False", c.CAPACITY_IS_NOT_FOUND_REASON, c.NOT_FOUND_RETRY_MSG)


def _best_effort_atomic(loop: LoopInputs, sim: ClusterSim, pods: list[PodInfo], answer: Answer) -> None:
    """bestEffortAtomicProvClass.Provision: the pods that fit existing nodes put there; none left →
    Provisioned=True (CapacityIsFound); else ScaleUp of the rest with allOrNothing → Provisioned=True
    (CapacityIsProvisioned) when it scales up, Provisioned=False (CapacityIsNotFound) when not."""
    sim.fork()
    try:
        left = _try_schedule(sim, pods, False, answer)
        if not left:
            answer.result = NOT_NEEDED
            _set(answer, c.PROVISIONED, "True", c.CAPACITY_IS_FOUND_REASON, c.CAPACITY_IS_FOUND_MSG)
            return
        st = scale_up(scale_up_context(loop, sim, template_node_infos(loop)), left, len(sim.snapshot.node_infos),
                      all_or_nothing=True)
    finally:
        sim.revert()
    answer.result = st.result
    _read_status(st, answer)
    if st.result == SUCCESSFUL:
        _set(answer, c.PROVISIONED, "True", c.CAPACITY_IS_PROVISIONED_REASON, c.CAPACITY_IS_PROVISIONED_MSG)
    else:
        _set(answer, c.PROVISIONED, "False", c.CAPACITY_IS_NOT_FOUND_REASON, c.NOT_FOUND_RETRY_MSG)


def _read_status(st: ScaleUpStatus, answer: Answer) -> None:
    answer.scale_ups = [{"nodeGroup": i.group.name, "from": i.current_size, "to": i.new_size}
                        for i in st.scale_up_infos]
    answer.partial = [{"nodeGroup": o.node_group.name, "nodes": o.node_count, "pods": len(o.pods),
                       "of": len(answer.unplaced)} for o in st.partial]
    for info in st.remain_unschedulable:
        answer.rejected[info.pod.name] = {g: list(r) for g, r in {**info.skipped, **info.rejected}.items()}

"""The predicates plugin (plugins/predicates): kube-scheduler's filters over the session's nodes. The
stable filters (NodeUnschedulable, NodeAffinity, TaintToleration) run first and every failure is kept
until one that aborts; then NodePorts, InterPodAffinity and PodTopologySpread after their PreFilters.
The volume and DRA filters pass for pods without volumes or claims (kexplain says so of others)."""
from __future__ import annotations

from typing import Any

from kexplain.framework.cycle_state import CycleState
from kexplain.framework.status import Code as KCode
from kexplain.plugins import names as n
from kexplain.volcano.api.fit_errors import NODE_POD_NUMBER_EXCEEDED, Code, FitError, Status, should_abort
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.task import TaskInfo
from kexplain.volcano.framework.session import EventHandler
from kexplain.volcano.plugins import k8s
from kexplain.volcano.plugins.args import get_bool

NAME = "predicates"
STABLE = (n.NODE_UNSCHEDULABLE, n.NODE_AFFINITY, n.TAINT_TOLERATION)
_CODES = {KCode.ERROR: Code.ERROR, KCode.UNSCHEDULABLE: Code.UNSCHEDULABLE,
          KCode.UNSCHEDULABLE_AND_UNRESOLVABLE: Code.UNSCHEDULABLE_AND_UNRESOLVABLE, KCode.WAIT: Code.WAIT,
          KCode.SKIP: Code.SKIP}
SKIP_KEY = "volcano.skipFilterPlugins"


def _convert(status: Any, plugin: str) -> Status | None:
    """api.ConvertPredicateStatus; None for Success."""
    code = _CODES.get(status.code)
    if code is None:
        return None
    return Status(code, status.message(), plugin)


class Predicates:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        enabled = {n.NODE_AFFINITY: "predicate.NodeAffinityEnable", n.NODE_PORTS: "predicate.NodePortsEnable",
                   n.TAINT_TOLERATION: "predicate.TaintTolerationEnable",
                   n.INTER_POD_AFFINITY: "predicate.PodAffinityEnable",
                   n.POD_TOPOLOGY_SPREAD: "predicate.PodTopologySpreadEnable"}
        self.enabled = {name: get_bool(arguments, key, True) for name, key in enabled.items()}
        self.enabled[n.NODE_UNSCHEDULABLE] = True
        self.filters: dict[str, Any] = {}
        self.states: dict[str, CycleState] = {}

    def on_session_open(self, ssn: Any) -> None:
        handle = k8s.Handle(ssn.k8s, ssn.kube)
        pts_args = {"defaultingType": "System"}
        for name in (n.NODE_UNSCHEDULABLE, n.NODE_AFFINITY, n.NODE_PORTS, n.TAINT_TOLERATION,
                     n.INTER_POD_AFFINITY, n.POD_TOPOLOGY_SPREAD):
            if self.enabled[name]:
                self.filters[name] = k8s.make(name, handle, pts_args if name == n.POD_TOPOLOGY_SPREAD else None)
        view = ssn.k8s
        ssn.add_event_handler(EventHandler(lambda t: view.add(t, t.node_name),
                                           lambda t: view.remove(t, t.node_name)))
        ssn.add("prePredicate", NAME, self.pre_predicate)
        ssn.add("predicate", NAME, lambda t, node: self.predicate(ssn, t, node))

    def pre_predicate(self, task: TaskInfo) -> str | None:
        """PrePredicate: the PreFilters in order; Skip marks the plugin's Filter skipped."""
        state = CycleState()
        skipped: set[str] = set()
        state.write(SKIP_KEY, skipped)
        self.states[task.uid] = state
        pod = k8s.pod_info(task)
        snap = None
        for name in (n.NODE_AFFINITY, n.NODE_PORTS, n.INTER_POD_AFFINITY, n.POD_TOPOLOGY_SPREAD):
            plugin = self.filters.get(name)
            if plugin is None or not hasattr(plugin, "pre_filter"):
                continue
            snap = snap or plugin.handle.snapshot
            _, status = plugin.pre_filter(state, pod, snap.node_infos)
            if status.is_skip:
                skipped.add(name)
            elif not status.is_success:
                return f"plugin {name} pre-predicates failed {status.message()}"
        return None

    def skipped(self, task: TaskInfo) -> set[str] | None:
        """The filters the task's PrePredicate marked skipped (None before its PrePredicate)."""
        state = self.states.get(task.uid)
        return None if state is None else state.get(SKIP_KEY)

    def predicate(self, ssn: Any, task: TaskInfo, node: NodeInfo) -> FitError | None:
        """Predicate: the pod-count check, the stable filters, then the others; every failure kept
        until one aborts."""
        state = self.states.get(task.uid) or CycleState()
        skipped = state.get(SKIP_KEY) or set()
        pod = k8s.pod_info(task)
        info = ssn.k8s.snapshot.get(node.name)
        statuses: list[Status] = []
        if info is None:
            return FitError(task.key, node.name, [Status(Code.ERROR, "node info not found", NAME)])
        if node.allocatable.max_task_num <= len(info.pods):
            statuses.append(Status(Code.UNSCHEDULABLE, NODE_POD_NUMBER_EXCEEDED, NAME))
        for stable in (True, False):
            for name, plugin in self.filters.items():
                if (name in STABLE) != stable or name in skipped:
                    continue
                s = _convert(plugin.filter(state, pod, info), name)
                if s is not None:
                    statuses.append(s)
                    if should_abort(s):
                        return FitError(task.key, node.name, statuses)
        return FitError(task.key, node.name, statuses) if statuses else None

    def on_session_close(self, ssn: Any) -> None:
        pass


def New(arguments: dict[str, Any]) -> Predicates:
    return Predicates(arguments)

"""The pdb plugin (plugins/pdb): preempt and reclaim (and shuffle's victim tasks) never take a task whose
eviction would break a PodDisruptionBudget of its namespace: each budget's `status.disruptionsAllowed` is
spent by the candidates in turn, and a task past any budget's allowance is kept. The budgets are read as
the informer gives them (a budget written without a status gets the disruption controller's,
`api.disruption`)."""
from __future__ import annotations

from typing import Any

from kexplain.framework.preemption import DisruptionBudget
from kexplain.model.pod import PodInfo
from kexplain.volcano.api.task import TaskInfo

NAME = "pdb"


def allowed_victims(budgets: list[DisruptionBudget], tasks: list[TaskInfo]) -> list[TaskInfo]:
    """pdbFilterFn: the tasks whose eviction, counted one after another, leaves every budget that selects
    them (and has not the pod among its disrupted pods already) at zero or more. A pod without labels is
    no victim at all: Go's loop skips it before it is added (its comment says such a pod matches no
    budget, but the `continue` leaves it out of the victims too)."""
    return kept_out(budgets, tasks)[0]


def kept_out(budgets: list[DisruptionBudget], tasks: list[TaskInfo]) -> tuple[list[TaskInfo], dict[str, str]]:
    """`allowed_victims`, and why each other labelled task was kept (by task key: the budgets it would break)."""
    allowed = [b.disruptions_allowed for b in budgets]
    victims, kept = [], {}
    for task in tasks:
        pod = PodInfo(task.pod)
        if not pod.labels:
            continue
        broken = []
        for i, b in enumerate(budgets):
            if not b.selects(pod) or pod.name in b.disrupted_pods:
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                broken.append(f"{b.namespace}/{b.name}")
        if broken:
            kept[task.key] = f"its eviction would break PodDisruptionBudget {', '.join(broken)}"
        else:
            victims.append(task)
    return victims, kept


class Pdb:
    name = NAME

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.spared: dict[str, dict[str, str]] = {}      # preemptor's job -> task key -> why (kexplain's record)

    def on_session_open(self, ssn: Any) -> None:
        budgets: list[DisruptionBudget] = list(getattr(ssn, "budgets", None) or ())

        def filtered(preemptor: TaskInfo, preemptees: list[TaskInfo]) -> list[TaskInfo]:
            victims, kept = kept_out(budgets, preemptees)
            if kept:
                self.spared.setdefault(preemptor.job, {}).update(kept)
            return victims

        ssn.add("preemptable", NAME, filtered)
        ssn.add("reclaimable", NAME, filtered)
        ssn.add("victimTasks", NAME, lambda tasks: allowed_victims(budgets, tasks))

    def on_session_close(self, ssn: Any) -> None:
        pass


def New(arguments: dict[str, Any]) -> Pdb:
    return Pdb(arguments)

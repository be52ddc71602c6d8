"""The ProvisioningRequest controller's turn in a pass (controller.go Reconcile), after the
workload controller has given each Workload that reserved quota its check states: per check of
the controller not Ready yet, the request Kueue creates (`provisioning.create`), what the
provisioner answers for it when one is given (`Capacity`: the Cluster Autoscaler, asked once for
every request, as its loops take them one after the other), and the check state Kueue writes
from that answer (`provisioning_states.synced`). Without a provisioner the requests are shown
and the states left as they are: a request no one has answered has no condition yet."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from kexplain.kueue.apis.admissioncheck import AdmissionCheck, ProvisioningRequestConfig
from kexplain.kueue.apis.constants import CHECK_READY
from kexplain.kueue.apis.resourceflavor import ResourceFlavor
from kexplain.kueue.controller.admissionchecks import provisioning as prov
from kexplain.kueue.controller.admissionchecks import provisioning_states as states
from kexplain.kueue.workload.workload import Workload, has_quota_reservation, is_evicted, is_finished

# The provisioner: for the requests created, in order, each one's answer: at least `conditions`
# (the request's status conditions, as dicts), optionally `provisioningClassDetails`, the rest shown.
Capacity = Callable[[Sequence[prov.Created]], Sequence[Mapping[str, Any]]]


@dataclass
class Asked:
    """One check's request for one Workload: what Kueue created, the provisioner's answer (None:
    none given), and the check state before and after."""

    workload: str
    created: prov.Created
    before: str
    after: str = ""
    message: str = ""
    answer: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"check": self.created.check, "provisioningRequestConfig": self.created.config,
                               "attempt": self.created.attempt, "provisioningRequest": self.created.request,
                               "podTemplates": list(self.created.templates), "checkStateBefore": self.before}
        if self.answer is not None:
            out["provisioner"] = dict(self.answer)
            out["checkState"] = self.after
            if self.message:
                out["checkMessage"] = self.message
        return out


@dataclass
class Inputs:
    checks: Mapping[str, AdmissionCheck]
    configs: Mapping[str, ProvisioningRequestConfig]
    flavors: Mapping[str, ResourceFlavor]


@dataclass
class Result:
    asked: list[Asked] = field(default_factory=list)
    changed: set[str] = field(default_factory=set)      # the Workloads whose check states changed
    errors: dict[str, str] = field(default_factory=dict)
    _index: dict[str, list[dict[str, Any]]] | None = field(default=None, repr=False)

    def by_workload(self) -> dict[str, list[dict[str, Any]]]:
        """Each Workload's requests, as the document shows them (made once)."""
        if self._index is None:
            self._index = {}
            for a in self.asked:
                self._index.setdefault(a.workload, []).append(a.to_json())
        return self._index


def _wanted(wl: Workload) -> bool:
    """Reconcile's guard: a Workload holding quota, neither finished nor evicted."""
    return has_quota_reservation(wl) and wl.admission is not None and not is_finished(wl) and not is_evicted(wl)


def reconcile(workloads: Mapping[str, Workload], inputs: Inputs, capacity: Capacity | None) -> Result:
    """The controller over every Workload (by key), then the provisioner over the requests made,
    then each check state synced from its answer."""
    out = Result()
    for key, wl in sorted(workloads.items()):
        if not _wanted(wl):
            continue
        for check in prov.provisioning_checks(wl, inputs.checks):
            _one_check(key, wl, check, inputs, out, capacity is not None)
    if capacity is None or not out.asked:
        return out
    for asked, answer in zip(out.asked, capacity([a.created for a in out.asked])):
        asked.answer = answer
        _sync(workloads[asked.workload], asked, inputs)
        if asked.after != asked.before or asked.message:
            out.changed.add(asked.workload)
    return out


def _one_check(key: str, wl: Workload, check: str, inputs: Inputs, out: Result, running: bool) -> None:
    """One check: not active (no config) or not needed (no pod set uses a managed resource) written
    when the controller runs (`running`: a provisioner given), else the request it creates."""
    state = next(s for s in wl.admission_checks if s.name == check)
    config = prov.config_for(inputs.checks.get(check), inputs.configs)
    if config is None or not prov.required_pod_sets(wl.spec.pod_sets, config.managed_resources):
        new = states.inactive(state) if config is None else states.not_needed(state)
        if running and new != state:
            _replace_state(wl, new)
            out.changed.add(key)
        return
    if state.state == CHECK_READY:
        return
    try:
        created = prov.create(wl, check, config, (state.retry_count or 0) + 1, inputs.flavors)
    except ValueError as err:
        out.errors[key] = str(err)
        return
    out.asked.append(Asked(key, created, state.state))


def _sync(wl: Workload, asked: Asked, inputs: Inputs) -> None:
    state = next(s for s in wl.admission_checks if s.name == asked.created.check)
    config = inputs.configs[asked.created.config]
    answer = asked.answer or {}
    new = states.synced(state, asked.created, list(answer.get("conditions") or ()), config,
                        answer.get("provisioningClassDetails"))
    asked.after = new.state
    asked.message = new.message if new.message != state.message else ""
    _replace_state(wl, new)


def _replace_state(wl: Workload, new: Any) -> None:
    wl.admission_checks = [new if s.name == new.name else s for s in wl.admission_checks]

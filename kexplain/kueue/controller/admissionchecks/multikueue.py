"""The MultiKueue admission check controller of the manager cluster (admissionchecks/multikueue,
ACReconciler): a check whose controllerName is kueue.x-k8s.io/multikueue is Active as its
MultiKueueConfig's clusters are (all usable: Active; some: still Active, SomeActiveClusters; none:
NoUsableClusters; no config: BadConfig), in Kueue's words. What the worker clusters then do with a
Workload (dispatch, admission there) kexplain cannot see: such a Workload reserves quota here and
waits with the check Pending."""
from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from kexplain.kueue.apis.admissioncheck import AdmissionCheck
from kexplain.kueue.apis.constants import CHECK_READY, GROUP, MULTIKUEUE_CONTROLLER
from kexplain.kueue.apis.multikueue import MultiKueueCluster, MultiKueueConfig

CONFIG_KIND = "MultiKueueConfig"
NOT_SEEN = "dispatched to worker clusters; kexplain cannot see them"


def unseen(controller: str, state: str) -> bool:
    """A reserved Workload's check whose outcome the worker clusters decide, not yet Ready."""
    return controller == MULTIKUEUE_CONTROLLER and state != CHECK_READY


def _config_error(ref: Mapping[str, str] | None, configs: Mapping[str, MultiKueueConfig]) -> str:
    """ConfigFromRef's error ("" when the config is found): refValidForGK, then the Get."""
    if ref is None:
        return "missing parameters reference"
    if not ref.get("name"):
        return "empty name: bad parameters reference"
    if ref.get("apiGroup", "") != GROUP:
        return f'wrong group "{ref.get("apiGroup", "")}", expecting "{GROUP}": bad parameters reference'
    if ref.get("kind", "") != CONFIG_KIND:
        return f'wrong kind "{ref.get("kind", "")}", expecting "{CONFIG_KIND}": bad parameters reference'
    if ref["name"] not in configs:
        return f'multikueueconfigs.{GROUP} "{ref["name"]}" not found'
    return ""


def active_condition(check: AdmissionCheck, configs: Mapping[str, MultiKueueConfig],
                     clusters: Mapping[str, MultiKueueCluster]) -> tuple[bool, str, str]:
    """Reconcile's Active condition: (status True, reason, message)."""
    error = _config_error(check.parameters, configs)
    if error:
        return False, "BadConfig", f"Cannot load the AdmissionChecks parameters: {error}"
    names = configs[(check.parameters or {})["name"]].clusters
    missing = [n for n in names if n not in clusters]
    inactive = [n for n in names if n in clusters and not clusters[n].active]
    if not missing and not inactive:
        return True, "Active", "The admission check is active"
    parts = ([f"Missing clusters: [{' '.join(missing)}]"] if missing else []) + \
            ([f"Inactive clusters: [{' '.join(inactive)}]"] if inactive else [])
    some = len(missing) + len(inactive) < len(names)
    return some, "SomeActiveClusters" if some else "NoUsableClusters", ", ".join(parts)


def with_active_conditions(checks: Mapping[str, AdmissionCheck], configs: Mapping[str, MultiKueueConfig],
                           clusters: Mapping[str, MultiKueueCluster], *, seen: bool) -> dict[str, AdmissionCheck]:
    """The checks with each MultiKueue one's Active condition as the controller sets it, when the
    MultiKueue objects were read (`seen`) or the check carries no Active condition; otherwise the
    stored condition stands (the controller's own, from objects not given)."""
    out = dict(checks)
    for name, check in checks.items():
        if check.controller_name != MULTIKUEUE_CONTROLLER or not (seen or not check.has_active_condition):
            continue
        active, reason, message = active_condition(check, configs, clusters)
        out[name] = replace(check, active=active, inactive_reason="" if active else reason,
                            inactive_message="" if active else message, has_active_condition=True)
    return out

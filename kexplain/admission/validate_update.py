"""What the API server refuses in an update: the fields that may not change once an object exists
(each kind's ValidateXUpdate and its strategy's checks), for the kinds that reach the scheduler or
the autoscalers. A refused update leaves the object as it was; kubectl applies the rest.
Per kind, and how messages are shown: docs/internals/admission.md.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

from kexplain.admission.defaults import default_pod, default_priority_class, default_pvc, default_storage_class
from kexplain.admission.pod_spec_defaults import default_pod_spec
from kexplain.apimachinery.fielderrors import FieldError, GoString, forbidden, invalid_message, invalid_typed
from kexplain.apimachinery.kinds import api_group
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.apimachinery.identity import as_dict

IMMUTABLE = "field is immutable"
STATEFULSET_FORBIDDEN = ("updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
                         "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and "
                         "'minReadySeconds' are forbidden")
STATEFULSET_MUTABLE = ("replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                       "persistentVolumeClaimRetentionPolicy", "minReadySeconds")
PVC_FORBIDDEN = "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"
POD_UPDATABLE = ("`spec.containers[*].image`", "`spec.initContainers[*].image`", "`spec.activeDeadlineSeconds`",
                 "`spec.tolerations` (only additions to existing tolerations)",
                 "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)")
POD_FORBIDDEN = "pod updates may not change fields other than " + ",".join(POD_UPDATABLE)
JOB_IMMUTABLE = ("selector", "completionMode", "podFailurePolicy", "backoffLimitPerIndex", "managedBy",
                 "successPolicy")
JOB_DEFAULTS = {"completionMode": "NonIndexed"}
SCHEDULING_DIRECTIVES = ("nodeSelector", "tolerations", "schedulingGates")


def same(a: Any, b: Any) -> bool:
    """apiequality.Semantic.DeepEqual of two decoded values, where absent, null and empty are one
    (the stored object, written through etcd's omitempty, has no empty list or map)."""
    return _plain(a) == _plain(b)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        out = {k: _plain(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v is not None} or None
    if isinstance(value, list):
        return [_plain(v) for v in value] or None
    return value


def _immutable(path: str, new: Any, old: Any) -> list[FieldError]:
    """ValidateImmutableField: the new value, as JSON, when it differs."""
    return [] if same(new, old) else [invalid_typed(path, new, IMMUTABLE)]


# -- per kind -----------------------------------------------------------------------------------
def _priority_class(new: dict, old: dict, kube: KubeVersion) -> list[FieldError]:
    errs: list[FieldError] = []
    if new.get("value") != old.get("value"):
        errs.append(forbidden("value", "may not be changed in an update."))
    return errs + _immutable("preemptionPolicy", new.get("preemptionPolicy"), old.get("preemptionPolicy"))


def _selector(new: dict, old: dict, kube: KubeVersion) -> list[FieldError]:
    return _immutable("spec.selector", as_dict(new.get("spec")).get("selector"), as_dict(old.get("spec")).get("selector"))


def _statefulset(new: dict, old: dict, kube: KubeVersion) -> list[FieldError]:
    def fixed(obj: dict) -> dict:
        spec = {k: v for k, v in as_dict(obj.get("spec")).items() if k not in STATEFULSET_MUTABLE}
        spec.setdefault("podManagementPolicy", "OrderedReady")
        templates = []
        for claim in spec.get("volumeClaimTemplates") or []:
            claim = copy.deepcopy(claim) if isinstance(claim, dict) else claim
            if isinstance(claim, dict):
                default_pvc(claim)
            templates.append(claim)
        spec["volumeClaimTemplates"] = templates
        return spec
    return [] if same(fixed(new), fixed(old)) else [forbidden("spec", STATEFULSET_FORBIDDEN)]


def _job(new: dict, old: dict, kube: KubeVersion) -> list[FieldError]:
    spec, before = as_dict(new.get("spec")), as_dict(old.get("spec"))
    errs: list[FieldError] = []
    indexed = spec.get("completionMode") == "Indexed"
    if not indexed:
        errs += _immutable("spec.completions", spec.get("completions"), before.get("completions"))
    elif not same(spec.get("completions"), before.get("completions")) and spec.get("completions") is not None \
            and spec.get("completions") != spec.get("parallelism"):
        errs.append(invalid_typed("spec.completions", spec.get("completions"),
                                  "can only be modified in tandem with spec.parallelism"))
    errs += _immutable("spec.selector", spec.get("selector"), before.get("selector"))
    errs += _job_template(spec, before, as_dict(old.get("status")))
    for field in JOB_IMMUTABLE[1:]:
        default = JOB_DEFAULTS.get(field)
        errs += _immutable(f"spec.{field}", spec.get(field, default), before.get(field, default))
    return errs


def _job_template(spec: dict, before: dict, status: dict) -> list[FieldError]:
    """validatePodTemplateUpdate: the template may not change, but for the scheduling directives
    of a Job suspended and not started yet."""
    template, old = _template(spec.get("template")), _template(before.get("template"))
    if before.get("suspend") is True and not status.get("startTime"):
        old_spec, new_spec = old.setdefault("spec", {}), template.get("spec") or {}
        for key in SCHEDULING_DIRECTIVES:
            _copy_key(new_spec, old_spec, key)
        affinity = as_dict(new_spec.get("affinity"))
        old_affinity = as_dict(old_spec.get("affinity"))
        old_affinity = {**old_affinity, "nodeAffinity": affinity.get("nodeAffinity")}
        old_spec["affinity"] = old_affinity if any(v is not None for v in old_affinity.values()) else None
        meta = old.setdefault("metadata", {})
        for key in ("labels", "annotations"):
            _copy_key(as_dict(template.get("metadata")), meta, key)
    return _immutable("spec.template", spec.get("template"), before.get("template")) \
        if not same(template, old) else []


def _copy_key(source: dict, target: dict, key: str) -> None:
    if key in source:
        target[key] = source[key]
    else:
        target.pop(key, None)


def _template(value: Any) -> dict:
    """A pod template, defaulted as the API server stores it (its spec's defaults)."""
    template = copy.deepcopy(value) if isinstance(value, dict) else {}
    if isinstance(template.get("spec"), dict):
        default_pod_spec(template["spec"])
    return template


def _storage_class(new: dict, old: dict, kube: KubeVersion) -> list[FieldError]:
    """ValidateStorageClassUpdate: parameters, provisioner (a plain Go string: quoted), reclaimPolicy and
    volumeBindingMode (pointers: JSON) are immutable, compared as defaulted (a mode the manifest drops
    becomes Immediate)."""
    provisioner, parameters = new.get("provisioner"), new.get("parameters")
    if isinstance(parameters, dict):        # (a Go map: encoding/json sorts its keys)
        parameters = dict(sorted(parameters.items()))
    errs = _immutable("parameters", parameters, old.get("parameters"))
    if not same(provisioner, old.get("provisioner")):
        shown = GoString(provisioner) if isinstance(provisioner, str) else provisioner
        errs.append(invalid_typed("provisioner", shown, IMMUTABLE))
    for field in ("reclaimPolicy", "volumeBindingMode"):
        errs += _immutable(field, new.get(field), old.get(field))
    return errs


def _pvc(new: dict, old: dict, kube: KubeVersion) -> list[FieldError]:
    spec, before = copy.deepcopy(as_dict(new.get("spec"))), copy.deepcopy(as_dict(old.get("spec")))
    notes = as_dict(as_dict(old.get("metadata")).get("annotations"))
    if not before.get("volumeName"):
        before["volumeName"] = spec.get("volumeName")
    beta_class = "volume.beta.kubernetes.io/storage-class"
    if before.get("storageClassName") is None and spec.get("storageClassName") is not None \
            and beta_class not in notes:
        before["storageClassName"] = spec.get("storageClassName")     # (a class set where there was none)
    if as_dict(new.get("status")).get("phase") == "Bound":
        requests = as_dict(as_dict(spec.get("resources")).get("requests"))
        if "storage" in requests:
            spec["resources"] = {**spec["resources"], "requests": {
                **requests, "storage": as_dict(as_dict(before.get("resources")).get("requests")).get("storage")}}
        spec["volumeAttributesClassName"] = before.get("volumeAttributesClassName")
    errs = [] if same(spec, before) else [forbidden("spec", PVC_FORBIDDEN)]
    return errs + _immutable("volumeMode", as_dict(new.get("spec")).get("volumeMode"),
                             as_dict(old.get("spec")).get("volumeMode"))


ALLOCATED = "<allocated>"      # the cluster IP the API server allocated a Service kexplain created (never shown)


def _service(new: dict, old: dict, kube: KubeVersion) -> list[FieldError]:
    """The registry's beginUpdate then validateUpgradeDowngradeClusterIPs: the allocated values the
    manifest leaves out kept (patchAllocatedValues), clusterIPs following a changed clusterIP
    (normalizeClusterIPs), then the primary IP and a headless Service's `None` may not change."""
    spec, before = as_dict(new.get("spec")), as_dict(old.get("spec"))
    if "ExternalName" in (spec.get("type"), before.get("type")):
        return []
    old_ips = _cluster_ips(before) or [ALLOCATED]       # (created without one: the allocator gave it one)
    _, ips = _updated_ips(spec, before, old_ips)
    if old_ips == ["None"] and ips == ["None"]:         # (both headless)
        return []
    if len(ips) == len(old_ips):
        return [invalid_typed(f"spec.clusterIPs[{i}]", ips, "may not change once set")
                for i, x in enumerate(old_ips) if x != ips[i]]
    errs: list[FieldError] = []
    if len(old_ips) > len(ips):         # released (downgraded)
        if not ips:
            errs.append(invalid_typed("spec.clusterIPs[0]", ips, "primary clusterIP can not be unset"))
        elif ips[0] != old_ips[0]:
            errs.append(invalid_typed("spec.clusterIPs[0]", ips, "may not change once set"))
        if len(ips) == 1 and spec.get("ipFamilyPolicy") != "SingleStack":
            errs.append(invalid_typed("spec.ipFamilyPolicy", spec.get("ipFamilyPolicy"),
                                      "must be set to 'SingleStack' when releasing the secondary clusterIP"))
    elif ips[0] != old_ips[0]:          # added (upgraded)
        errs.append(invalid_typed("spec.clusterIPs[0]", ips, "may not change once set"))
    return errs


def _updated_ips(spec: dict, before: dict, old_ips: list[str]) -> tuple[str, list[str]]:
    """The clusterIP and clusterIPs of an update as beginUpdate leaves them: what the manifest leaves
    out kept from the stored Service (patchAllocatedValues), then clusterIPs set from a clusterIP
    changed alone (normalizeClusterIPs)."""
    old_ip = str(before.get("clusterIP") or old_ips[0])
    ip = str(spec.get("clusterIP") or old_ip)
    ips = [str(x) for x in spec.get("clusterIPs") or ()] or old_ips
    if ip != old_ip and ips == old_ips:
        ips = [ip]
    return ip, ips


def _service_stored(new: dict, old: dict) -> dict:
    """The accepted update as the registry stores it: the cluster IPs it allocated kept (a headless
    Service's `None` too) where the manifest leaves them out; `new` when there is none to keep."""
    spec, before = as_dict(new.get("spec")), as_dict(old.get("spec"))
    old_ips = _cluster_ips(before)
    if "ExternalName" in (spec.get("type"), before.get("type")) or not old_ips:
        return new
    ip, ips = _updated_ips(spec, before, old_ips)
    if spec.get("clusterIP") == ip and spec.get("clusterIPs") == ips:
        return new
    return {**new, "spec": {**spec, "clusterIP": ip, "clusterIPs": ips}}


def _cluster_ips(spec: dict) -> list[str]:
    """The Service's cluster IPs as stored: clusterIPs, or the clusterIP a create normalized into them."""
    ips = spec.get("clusterIPs")
    if isinstance(ips, list) and ips:
        return [str(ip) for ip in ips]
    return [str(spec["clusterIP"])] if spec.get("clusterIP") else []


def _pod(new: dict, old: dict, kube: KubeVersion) -> list[FieldError]:
    new, old = copy.deepcopy(new), copy.deepcopy(old)
    default_pod(new, kube)
    default_pod(old, kube)
    spec, before = as_dict(new.get("spec")), as_dict(old.get("spec"))
    for field in ("containers", "initContainers"):
        if len(spec.get(field) or []) != len(before.get(field) or []):
            return [forbidden(f"spec.{field}", "pod updates may not add or remove containers")]
    errs: list[FieldError] = []
    deadline, old_deadline = spec.get("activeDeadlineSeconds"), before.get("activeDeadlineSeconds")
    if isinstance(deadline, int) and isinstance(old_deadline, int) and old_deadline < deadline:
        return [invalid_typed("spec.activeDeadlineSeconds", deadline, "must be less than or equal to previous value")]
    if deadline is None and old_deadline is not None:
        errs.append(invalid_typed("spec.activeDeadlineSeconds", None, "must not update from a positive integer to "
                                                                      "nil value"))
    for toleration in before.get("tolerations") or []:        # (only additions; a new tolerationSeconds)
        if not any(isinstance(t, dict) and isinstance(toleration, dict)
                   and same({**toleration, "tolerationSeconds": t.get("tolerationSeconds")}, t)
                   for t in spec.get("tolerations") or []):
            errs.append(forbidden("spec.tolerations", "existing toleration can not be modified except its "
                                                      "tolerationSeconds"))
            break
    old_gates = {g.get("name") for g in before.get("schedulingGates") or [] if isinstance(g, dict)}
    added = {g.get("name"): i for i, g in enumerate(spec.get("schedulingGates") or []) if isinstance(g, dict)}
    for name, i in added.items():
        if name not in old_gates:
            errs.append(forbidden(f"spec.schedulingGates[{i}].name",
                                  f"only deletion is allowed, but found new scheduling gate '{name}'"))
    munged = dict(spec)
    for field in ("containers", "initContainers"):
        munged[field] = [{**c, "image": o.get("image")} if isinstance(c, dict) and isinstance(o, dict) else c
                         for c, o in zip(spec.get(field) or [], before.get(field) or [])]
    for field in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        _copy_key(before, munged, field)
    grace, old_grace = munged.get("terminationGracePeriodSeconds"), before.get("terminationGracePeriodSeconds")
    if isinstance(old_grace, int) and old_grace < 0 and grace == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    if not same(munged, before):
        errs.append(forbidden("spec", POD_FORBIDDEN))
    return errs


Check = Callable[[dict, dict, KubeVersion], list[FieldError]]
# (API group, kind) -> its update checks
CHECKS: dict[tuple[str, str], Check] = {
    ("scheduling.k8s.io", "PriorityClass"): _priority_class,
    ("apps", "Deployment"): _selector, ("apps", "ReplicaSet"): _selector, ("apps", "DaemonSet"): _selector,
    ("apps", "StatefulSet"): _statefulset,
    ("batch", "Job"): _job,
    ("", "PersistentVolumeClaim"): _pvc,
    ("storage.k8s.io", "StorageClass"): _storage_class,
    ("", "Service"): _service,
    ("", "Pod"): _pod,
}
# what the API server defaults before it compares (a field written as its default is no change)
DEFAULTS: dict[tuple[str, str], Callable[[dict], None]] = {
    ("scheduling.k8s.io", "PriorityClass"): default_priority_class,
    ("", "PersistentVolumeClaim"): default_pvc,
    ("storage.k8s.io", "StorageClass"): default_storage_class,
}


# (API group, kind) -> the object an accepted update stores (the registry's PrepareForUpdate, beginUpdate)
STORED: dict[tuple[str, str], Callable[[dict, dict], dict]] = {("", "Service"): _service_stored}


def stored_update(new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """`new`, an update of `old` the API server accepts, as it stores it: the values it allocated
    and the manifest leaves out kept (`new` itself for a kind without such values)."""
    prepare = STORED.get((api_group(new.get("apiVersion")) or "", str(new.get("kind") or "")))
    return prepare(new, old) if prepare is not None else new


def validate_update(new: dict[str, Any], old: dict[str, Any],
                    kube: KubeVersion = DEFAULT_VERSION) -> list[FieldError]:
    """The errors the API server refuses the update of `old` into `new` with (none for a kind
    without checks here). Neither object is changed."""
    key = (api_group(new.get("apiVersion")) or "", str(new.get("kind") or ""))
    check = CHECKS.get(key)
    if check is None:
        return []
    default = DEFAULTS.get(key)
    if default is not None:
        new, old = copy.deepcopy(new), copy.deepcopy(old)
        default(new)
        default(old)
    return check(new, old, kube)


def update_refusal(new: dict[str, Any], old: dict[str, Any], kube: KubeVersion = DEFAULT_VERSION) -> str | None:
    """The API server's message refusing the update (`PriorityClass.scheduling.k8s.io "high" is
    invalid: value: Forbidden: may not be changed in an update.`), or None."""
    errs = validate_update(new, old, kube)
    if not errs:
        return None
    group = api_group(new.get("apiVersion")) or ""
    kind = str(new.get("kind") or "")
    name = as_dict(new.get("metadata")).get("name")
    return invalid_message(f"{kind}.{group}" if group else kind, str(name or ""), errs)


"""ValidatePodCreate for the fields the scheduler and admission read.

With the options kube-apiserver computes for a create; what depends on the version followed is
resolved once per version from its gates (`rules_for`). The pending pod's claim statuses are
checked as the status update that wrote them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from kexplain.apimachinery import quantity
from kexplain.admission.defaults import aggregate_containers
from kexplain.admission.dra_validate import too_many
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.apimachinery.labels import ANNOTATION_MIRROR_POD
from kexplain.apimachinery.fielderrors import (FieldError, duplicate, forbidden, invalid, invalid_typed, not_found,
                                               not_supported, required, too_long)
from kexplain.apimachinery.names import (is_dns1123_label, is_dns1123_subdomain, is_label_key, validate_dns1123_label,
                    validate_label_name, validate_labels)
from kexplain.admission.validate_common import (comparison_operators, is_hugepages,
                                                validate_container_resource_name, validate_label_selector,
                                                validate_node_selector, validate_node_selector_term,
                                                validate_object_meta, validate_pod_resource_name,
                                                validate_resource_requirements, validate_tolerations)

DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"
_VOLUME_TYPES = (
    "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi",
    "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "quobyte", "downwardAPI", "fc",
    "flexVolume", "configMap", "azureFile", "vsphereVolume", "photonPersistentDisk", "portworxVolume",
    "azureDisk", "storageos", "projected", "scaleIO", "csi", "ephemeral", "image",
)
_HOST_PATH_TYPES = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate",
                    "Socket"]

# Texts and checks that changed without a feature gate, from the minor named on.
HOST_USERS_TEXT_SINCE = "1.34"       # "when `hostUsers` is false" (1.33: `pod.Spec.HostUsers`); volumeDevices refused
RESTART_RULES_TOO_MANY_SINCE = "1.36"   # too many restart rules or exit codes: Too many (before: Too long, "bytes")
ACTIONS_LIST_ALLOWED_SINCE = "1.36"  # an unsupported restart rule action lists the allowed ones (before: "Restart")
RESIZE_NEVER_TEXT_SINCE = "1.36"     # "... when pod `restartPolicy` is 'Never'" (before: "when `restartPolicy`")
INIT_RESIZE_RESTART_SINCE = "1.36"   # a non-sidecar init container may not resize with RestartContainer
CLAIM_STATUS_NAME_PATH_SINCE = "1.36"   # an invalid resourceClaimName is reported at its own field (before: `name`)


@dataclass(frozen=True)
class PodRules:
    """What ValidatePodCreate asks that depends on the version (`rules_for`)."""

    legacy_spread_keys: bool        # spread matchLabelKeys checked against the unmerged selector
    comparison: str                 # Lt/Gt tolerations (`validate_common.comparison_operators`)
    restart_rules_field: bool       # containers have restartPolicyRules (the gate exists)
    restart_rules: bool             # ContainerRestartRules on: container restart policies and rules
    restart_all: bool               # RestartAllContainersOnContainerExits on
    host_network_user_ns: bool      # UserNamespacesHostNetworkSupport on
    host_users_text: str            # HOST_USERS_TEXT_SINCE
    volume_devices_user_ns: bool    # HOST_USERS_TEXT_SINCE: volumeDevices refused with hostUsers false
    too_many: bool                  # RESTART_RULES_TOO_MANY_SINCE
    actions_list_allowed: bool      # ACTIONS_LIST_ALLOWED_SINCE
    resize_never_text: str          # RESIZE_NEVER_TEXT_SINCE
    init_resize_restart: bool       # INIT_RESIZE_RESTART_SINCE
    claim_status_name_field: str    # CLAIM_STATUS_NAME_PATH_SINCE


@lru_cache(maxsize=16)
def rules_for(kube: KubeVersion) -> PodRules:
    """The version's pod validation options (GetValidationOptionsFromPodSpecAndMeta on create)."""
    gates = kube.gates
    host_users = kube.since(HOST_USERS_TEXT_SINCE)
    return PodRules(
        legacy_spread_keys=not (kube.enabled("MatchLabelKeysInPodTopologySpread")
                                and kube.enabled("MatchLabelKeysInPodTopologySpreadSelectorMerge")),
        comparison=comparison_operators(gates),
        restart_rules_field="ContainerRestartRules" in gates,
        restart_rules=kube.enabled("ContainerRestartRules"),
        restart_all=kube.enabled("RestartAllContainersOnContainerExits"),
        host_network_user_ns=kube.enabled("UserNamespacesHostNetworkSupport"),
        host_users_text="when `hostUsers` is false" if host_users else "when `pod.Spec.HostUsers` is false",
        volume_devices_user_ns=host_users,
        too_many=kube.since(RESTART_RULES_TOO_MANY_SINCE),
        actions_list_allowed=kube.since(ACTIONS_LIST_ALLOWED_SINCE),
        resize_never_text=("must be 'NotRequired' when pod `restartPolicy` is 'Never'"
                           if kube.since(RESIZE_NEVER_TEXT_SINCE)
                           else "must be 'NotRequired' when `restartPolicy` is 'Never'"),
        init_resize_restart=kube.since(INIT_RESIZE_RESTART_SINCE),
        claim_status_name_field="resourceClaimName" if kube.since(CLAIM_STATUS_NAME_PATH_SINCE) else "name",
    )


def _deletion_cost_ok(text: str) -> bool:
    if not text or not (text[0] == "-" or text == "0" or "1" <= text[0] <= "9"):
        return False
    if not re.fullmatch(r"-?[0-9]+", text):
        return False
    return -(2**31) <= int(text) < 2**31


def _pod_annotations(meta: dict, spec: dict) -> list[FieldError]:
    errs: list[FieldError] = []
    annotations = meta.get("annotations") or {}
    if ANNOTATION_MIRROR_POD in annotations and not spec.get("nodeName"):
        errs.append(invalid(f"metadata.annotations[{ANNOTATION_MIRROR_POD}]", annotations[ANNOTATION_MIRROR_POD],
                            "must set spec.nodeName if mirror pod annotation is set"))
    if DELETION_COST_ANNOTATION in annotations and not _deletion_cost_ok(annotations[DELETION_COST_ANNOTATION]):
        errs.append(invalid(f"metadata.annotations[{DELETION_COST_ANNOTATION}]",
                            annotations[DELETION_COST_ANNOTATION], "must be a 32bit integer"))
    return errs


def _path_has_backsteps(path: str) -> bool:
    return ".." in path.replace("\\", "/").split("/")


def _volume_source(vol: dict, p: str, pod_name: str) -> list[FieldError]:
    errs: list[FieldError] = []
    count = 0
    for kind in _VOLUME_TYPES:
        src = vol.get(kind)
        if src is None:
            continue
        if count:
            errs.append(forbidden(f"{p}.{kind}", "may not specify more than 1 volume type"))
            continue
        count += 1
        src = src if isinstance(src, dict) else {}
        if kind == "emptyDir" and src.get("sizeLimit") is not None \
                and quantity.parse(src["sizeLimit"]).value < 0:
            errs.append(forbidden(f"{p}.emptyDir.sizeLimit", "SizeLimit field must be a valid resource quantity"))
        elif kind == "hostPath":
            if not src.get("path"):
                errs.append(required(f"{p}.hostPath.path"))
            else:
                if _path_has_backsteps(src["path"]):
                    errs.append(invalid(f"{p}.hostPath.path", src["path"], "must not contain '..'"))
                if src.get("type") is not None and src["type"] not in _HOST_PATH_TYPES:
                    errs.append(not_supported(f"{p}.hostPath.type", src["type"], _HOST_PATH_TYPES))
        elif kind == "persistentVolumeClaim":
            if not src.get("claimName"):
                errs.append(required(f"{p}.persistentVolumeClaim.claimName"))
        elif kind == "ephemeral":
            if src.get("volumeClaimTemplate") is None:
                errs.append(required(f"{p}.ephemeral.volumeClaimTemplate"))
            vol_name = vol.get("name") or ""
            if pod_name and vol_name:
                pvc_name = f"{pod_name}-{vol_name}"
                errs += [invalid(f"{p}.name", vol_name, f'PVC name "{pvc_name}": {m}')
                         for m in is_dns1123_subdomain(pvc_name)]
        elif kind == "csi":
            driver = src.get("driver") or ""
            if not driver:
                errs.append(required(f"{p}.csi.driver"))
            else:
                errs += [invalid(f"{p}.csi.driver", driver, m) for m in is_dns1123_subdomain(driver.lower())]
    if count == 0:
        errs.append(required(p, "must specify a volume type"))
    return errs


def _volumes(spec: dict, pod_name: str) -> tuple[set[str], list[FieldError]]:
    errs: list[FieldError] = []
    names: set[str] = set()
    vols = [v for v in spec.get("volumes") or [] if isinstance(v, dict)]
    created_pvcs = {f"{pod_name}-{v.get('name') or ''}" for v in vols if v.get("ephemeral") is not None} \
        if pod_name else set()
    for i, vol in enumerate(vols):
        p = f"spec.volumes[{i}]"
        name = vol.get("name") or ""
        el = _volume_source(vol, p, pod_name)
        if not name:
            el.append(required(f"{p}.name"))
        else:
            el += validate_dns1123_label(name, f"{p}.name")
        if name in names:
            el.append(duplicate(f"{p}.name", name))
        if not el:
            names.add(name)
        else:
            errs += el
        pvc = vol.get("persistentVolumeClaim")
        if isinstance(pvc, dict) and pvc.get("claimName") in created_pvcs:
            errs.append(invalid(f"{p}.persistentVolumeClaim.claimName", pvc["claimName"],
                                "must not reference a PVC that gets created for an ephemeral volume"))
    return names, errs


def _ports(ports: list, p: str) -> list[FieldError]:
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        ip = f"{p}[{i}]"
        name = port.get("name") or ""
        if name:
            msgs = _port_name_errors(name)
            if msgs:
                errs += [invalid(f"{ip}.name", name, m) for m in msgs]
            elif name in names:
                errs.append(duplicate(f"{ip}.name", name))
            else:
                names.add(name)
        cport = port.get("containerPort") or 0
        if cport == 0:
            errs.append(required(f"{ip}.containerPort"))
        elif not 1 <= cport <= 65535:
            errs.append(invalid_typed(f"{ip}.containerPort", cport, "must be between 1 and 65535, inclusive"))
        hport = port.get("hostPort") or 0
        if hport != 0 and not 1 <= hport <= 65535:
            errs.append(invalid_typed(f"{ip}.hostPort", hport, "must be between 1 and 65535, inclusive"))
        proto = port.get("protocol") or ""
        if not proto:
            errs.append(required(f"{ip}.protocol"))
        elif proto not in ("TCP", "UDP", "SCTP"):
            errs.append(not_supported(f"{ip}.protocol", proto, ["SCTP", "TCP", "UDP"]))
    return errs


def _port_name_errors(name: str) -> list[str]:
    msgs = []
    if len(name) > 15:
        msgs.append("must be no more than 15 characters")
    if not re.fullmatch(r"[-a-z0-9]+", name):
        msgs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search(r"[a-z]", name):
        msgs.append("must contain at least one letter (a-z)")
    if "--" in name:
        msgs.append("must not contain consecutive hyphens")
    if name and (name[0] == "-" or name[-1] == "-"):
        msgs.append("must not begin or end with a hyphen")
    return msgs


def _volume_mounts(mounts: list, volumes: set[str], p: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, mnt in enumerate(mounts):
        ip = f"{p}[{i}]"
        name = mnt.get("name") or ""
        path = mnt.get("mountPath") or ""
        if not name:
            errs.append(required(f"{ip}.name"))
        if name not in volumes:
            errs.append(not_found(f"{ip}.name", name))
        if not path:
            errs.append(required(f"{ip}.mountPath"))
        if path in seen:
            errs.append(invalid(f"{ip}.mountPath", path, "must be unique"))
        seen.add(path)
        sub = mnt.get("subPath") or ""
        if sub:
            if sub.startswith("/"):
                errs.append(invalid(f"{p}.subPath", sub, "must be a relative path"))
            if _path_has_backsteps(sub):
                errs.append(invalid(f"{p}.subPath", sub, "must not contain '..'"))
    return errs


_RESIZE_RESOURCES = ["cpu", "memory"]
_RESIZE_POLICIES = ["NotRequired", "RestartContainer"]


def _resize_policy(policies: list, p: str, pod_restart: str, rules: PodRules) -> list[FieldError]:
    """validateResizePolicy (most errors at the list's own path, as in Go)."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, policy in enumerate(policies):
        name = policy.get("resourceName") or ""
        if name in seen:
            errs.append(duplicate(f"{p}[{i}]", name, typed=True))
        seen.add(name)
        if not name:
            errs.append(required(p))
        elif name not in _RESIZE_RESOURCES:
            errs.append(not_supported(p, name, _RESIZE_RESOURCES))
        restart = policy.get("restartPolicy") or ""
        if not restart:
            errs.append(required(p))
        elif restart not in _RESIZE_POLICIES:
            errs.append(not_supported(p, restart, _RESIZE_POLICIES))
        if pod_restart == "Never" and restart != "NotRequired":
            errs.append(invalid_typed(p, restart, rules.resize_never_text))
    return errs


def _container_common(c: dict, p: str, volumes: set[str], claims: set[str], pod_restart: str,
                      rules: PodRules) -> list[FieldError]:
    errs: list[FieldError] = []
    name = c.get("name") or ""
    if not name:
        errs.append(required(f"{p}.name"))
    else:
        errs += validate_dns1123_label(name, f"{p}.name")
    if not c.get("image"):
        errs.append(required(f"{p}.image"))
    policy = c.get("terminationMessagePolicy") or ""
    if not policy:
        errs.append(required(f"{p}.terminationMessagePolicy"))
    elif policy not in ("File", "FallbackToLogsOnError"):
        errs.append(not_supported(f"{p}.terminationMessagePolicy", policy, ["File", "FallbackToLogsOnError"]))
    errs += _ports(c.get("ports") or [], f"{p}.ports")
    errs += _volume_mounts(c.get("volumeMounts") or [], volumes, f"{p}.volumeMounts")
    pull = c.get("imagePullPolicy") or ""
    if not pull:
        errs.append(required(f"{p}.imagePullPolicy"))
    elif pull not in ("Always", "IfNotPresent", "Never"):
        errs.append(not_supported(f"{p}.imagePullPolicy", pull, ["Always", "IfNotPresent", "Never"]))
    errs += validate_resource_requirements(c.get("resources") or {}, f"{p}.resources",
                                           validate_container_resource_name, claims)
    errs += _resize_policy([r for r in c.get("resizePolicy") or [] if isinstance(r, dict)], f"{p}.resizePolicy",
                           pod_restart, rules)
    return errs


def _host_port_conflicts(containers: list[dict], p: str) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for ci, c in enumerate(containers):
        for pi, port in enumerate(c.get("ports") or []):
            hport = port.get("hostPort") or 0
            if not hport:
                continue
            key = f"{port.get('protocol') or ''}/{port.get('hostIP') or ''}/{hport}"
            if key in seen:
                errs.append(duplicate(f"{p}[{ci}].ports[{pi}].hostPort", key))
            else:
                seen.add(key)
    return errs


_CONTAINER_RESTART_POLICIES = ["Always", "Never", "OnFailure"]
_RESTART_RULE_OPERATORS = ["In", "NotIn"]


def _restart_rules_of(c: dict, rules: PodRules) -> list[dict]:
    """A container's restartPolicyRules (none in a version without the field)."""
    if not rules.restart_rules_field:
        return []
    return [r for r in c.get("restartPolicyRules") or [] if isinstance(r, dict)]


def _too_many(path: str, actual: int, limit: int, rules: PodRules) -> FieldError:
    return too_many(path, actual, limit) if rules.too_many else too_long(path, limit)


def _container_restart_policy(policy: object, restart_rules: list[dict], p: str, rules: PodRules) -> list[FieldError]:
    """validateContainerRestartPolicy: a container's restartPolicy and restartPolicyRules."""
    errs: list[FieldError] = []
    if policy is None:
        if not restart_rules:
            return errs
        errs.append(required(f"{p}.restartPolicy", "must specify restartPolicy when restart rules are used"))
    elif policy not in _CONTAINER_RESTART_POLICIES:
        errs.append(not_supported(f"{p}.restartPolicy", policy, _CONTAINER_RESTART_POLICIES))
    if len(restart_rules) > 20:
        errs.append(_too_many(f"{p}.restartPolicyRules", len(restart_rules), 20, rules))
    allowed = ["Restart", "RestartAllContainers"] if rules.restart_all else ["Restart"]
    listed = allowed if rules.actions_list_allowed else ["Restart"]
    for i, rule in enumerate(restart_rules):
        rp = f"{p}.restartPolicyRules[{i}]"
        action = rule.get("action") or ""
        if action not in allowed:
            errs.append(not_supported(f"{rp}.action", action, listed))
        codes = rule.get("exitCodes")
        if isinstance(codes, dict):
            operator = codes.get("operator") or ""
            if operator not in _RESTART_RULE_OPERATORS:
                errs.append(not_supported(f"{rp}.exitCodes.operator", operator, _RESTART_RULE_OPERATORS))
            values = codes.get("values") or []
            if len(values) > 255:
                errs.append(_too_many(f"{rp}.exitCodes.values", len(values), 255, rules))
        else:
            errs.append(required(f"{rp}.exitCodes", "must be specified"))
    return errs


def _init_restart_policy(c: dict, p: str, rules: PodRules) -> list[FieldError]:
    """validateInitContainerRestartPolicy: `Always` makes a sidecar; ContainerRestartRules allows
    other policies and rules (a sidecar's only with RestartAllContainersOnContainerExits)."""
    policy = c.get("restartPolicy")
    restart_rules = _restart_rules_of(c, rules)
    if policy is None:
        if restart_rules:
            return [required(f"{p}.restartPolicy", "must specify restartPolicy when restart rules are used")]
        return []
    if not rules.restart_rules:
        return [] if policy == "Always" else [not_supported(f"{p}.restartPolicy", policy, ["Always"])]
    if policy != "Always" or rules.restart_all:
        return _container_restart_policy(policy, restart_rules, p, rules)
    if restart_rules:
        return [forbidden(f"{p}.restartPolicyRules",
                          "restartPolicyRules are not allowed for init containers with restart policy Always")]
    return []


def _containers(spec: dict, volumes: set[str], claims: set[str], rules: PodRules) -> list[FieldError]:
    containers = [c for c in spec.get("containers") or [] if isinstance(c, dict)]
    if not containers:
        return [required("spec.containers")]
    errs: list[FieldError] = []
    names: set[str] = set()
    pod_restart = spec.get("restartPolicy") or ""
    for i, c in enumerate(containers):
        p = f"spec.containers[{i}]"
        errs += _container_common(c, p, volumes, claims, pod_restart, rules)
        name = c.get("name") or ""
        if name in names:
            errs.append(duplicate(f"{p}.name", name))
        else:
            names.add(name)
        if rules.restart_rules:
            errs += _container_restart_policy(c.get("restartPolicy"), _restart_rules_of(c, rules), p, rules)
        elif c.get("restartPolicy") is not None:
            errs.append(forbidden(f"{p}.restartPolicy", "may not be set for non-init containers"))
    errs += _host_port_conflicts(containers, "spec.containers")
    return errs


def _init_containers(spec: dict, volumes: set[str], claims: set[str], rules: PodRules) -> list[FieldError]:
    errs: list[FieldError] = []
    names = {c.get("name") or "" for c in spec.get("containers") or [] if isinstance(c, dict)}
    pod_restart = spec.get("restartPolicy") or ""
    for i, c in enumerate(c for c in spec.get("initContainers") or [] if isinstance(c, dict)):
        p = f"spec.initContainers[{i}]"
        errs += _container_common(c, p, volumes, claims, pod_restart, rules)
        errs += _init_restart_policy(c, p, rules)
        policy = c.get("restartPolicy")
        name = c.get("name") or ""
        if name in names:
            errs.append(duplicate(f"{p}.name", name))
        elif name:
            names.add(name)
        errs += _host_port_conflicts([c], "spec.initContainers")
        if policy != "Always":
            for probe in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
                if c.get(probe) is not None:
                    errs.append(forbidden(f"{p}.{probe}",
                                          "may not be set for init containers without restartPolicy=Always"))
            if rules.init_resize_restart:
                for j, resize in enumerate(c.get("resizePolicy") or []):
                    if isinstance(resize, dict) and resize.get("restartPolicy") == "RestartContainer":
                        errs.append(invalid_typed(f"{p}.resizePolicy[{j}].restartPolicy", "RestartContainer",
                                                  "must not be set to 'RestartContainer' for non-sidecar initContainers"))
    return errs


def _pod_resources(spec: dict, claims: set[str]) -> list[FieldError]:
    res = spec.get("resources")
    if not isinstance(res, dict):
        return []
    if (spec.get("os") or {}).get("name") == "windows":
        return [forbidden("spec.resources", "may not be set for a windows pod")]
    errs: list[FieldError] = []
    if res.get("claims") is not None:
        errs.append(forbidden("spec.resources.claims", "claims may not be set for Resources at pod-level"))
    errs += validate_resource_requirements(res, "spec.resources", validate_pod_resource_name, claims)
    requests = res.get("requests") or {}
    limits = res.get("limits") or {}
    for name, agg in aggregate_containers(spec, "requests").items():
        if name not in requests:
            continue
        pod_q = quantity.parse(requests[name])
        if agg.value > pod_q.value:
            errs.append(invalid(f"spec.resources.requests[{name}]", quantity.canonical(pod_q),
                                f"must be greater than or equal to aggregate container requests of "
                                f"{quantity.canonical(agg)}"))
    for name, agg in aggregate_containers(spec, "limits").items():
        if not is_hugepages(name) or name not in limits:
            continue
        pod_q = quantity.parse(limits[name])
        if agg.value > pod_q.value:
            errs.append(invalid(f"spec.resources.limits[{name}]", quantity.canonical(pod_q),
                                f"must be greater than or equal to aggregate container limits of "
                                f"{quantity.canonical(agg)}"))
    for i, c in enumerate(c for c in spec.get("containers") or [] if isinstance(c, dict)):
        for name, raw in ((c.get("resources") or {}).get("limits") or {}).items():
            if name not in limits:
                continue
            cq, pq = quantity.parse(raw), quantity.parse(limits[name])
            if cq.value > pq.value:
                errs.append(invalid(f"spec.resources.containers[{i}][{name}].limits", quantity.canonical(cq),
                                    f"must be less than or equal to pod limits of {quantity.canonical(pq)}"))
    return errs


def _host_network(spec: dict) -> list[FieldError]:
    if not spec.get("hostNetwork"):
        return []
    errs: list[FieldError] = []
    for i, c in enumerate(c for c in spec.get("containers") or [] if isinstance(c, dict)):
        for j, port in enumerate(c.get("ports") or []):
            hp, cp = port.get("hostPort") or 0, port.get("containerPort") or 0
            if hp != cp:
                errs.append(invalid_typed(f"spec.containers[{i}].ports[{j}].hostPort", hp,
                                          "must match `containerPort` when `hostNetwork` is true"))
    return errs


def _host_users(spec: dict, rules: PodRules) -> list[FieldError]:
    """validateHostUsers: `hostUsers: false` shares no host network (unless
    UserNamespacesHostNetworkSupport), PID or IPC namespace, nor (from 1.34) uses volume devices."""
    if spec.get("hostUsers") is not False:
        return []
    errs: list[FieldError] = []
    if spec.get("hostNetwork") and not rules.host_network_user_ns:
        errs.append(forbidden("spec.hostNetwork", rules.host_users_text))
    if spec.get("hostPID"):
        errs.append(forbidden("spec.HostPID", rules.host_users_text))
    if spec.get("hostIPC"):
        errs.append(forbidden("spec.HostIPC", rules.host_users_text))
    if rules.volume_devices_user_ns:
        for kind in ("initContainers", "containers", "ephemeralContainers"):    # VisitContainersWithPath
            for i, c in enumerate(c for c in spec.get(kind) or [] if isinstance(c, dict)):
                if c.get("volumeDevices"):
                    errs.append(forbidden(f"spec.{kind}[{i}].volumeDevices", rules.host_users_text))
    return errs


def _enum(value: str, path: str, valid: list[str]) -> list[FieldError]:
    if value in valid:
        return []
    if not value:
        return [required(path)]
    return [not_supported(path, value, valid)]


def _match_label_keys(path: str, match: list, mismatch: list, selector: dict | None) -> list[FieldError]:
    """ValidateMatchLabelKeysAndMismatchLabelKeys (checked on the merged selector)."""
    errs: list[FieldError] = []
    for field, keys in (("matchLabelKeys", match), ("mismatchLabelKeys", mismatch)):
        if not keys:
            continue
        if selector is None:
            errs.append(forbidden(f"{path}.{field}", "must not be specified when labelSelector is not set"))
            continue
        for i, key in enumerate(keys):
            errs += validate_label_name(key, f"{path}.{field}[{i}]")
    if selector is not None:
        index = {key: i for i, key in enumerate(match or [])}
        seen = set((selector.get("matchLabels") or {}).keys())
        for expr in selector.get("matchExpressions") or []:
            key = expr.get("key") or ""
            if key in index and key in seen:
                errs.append(invalid(f"{path}[{index[key]}]", key, "exists in both matchLabelKeys and labelSelector"))
            seen.add(key)
    mismatch_set = set(mismatch or [])
    for i, key in enumerate(match or []):
        if key in mismatch_set:
            errs.append(invalid(f"{path}.matchLabelKeys[{i}]", key,
                                "exists in both matchLabelKeys and mismatchLabelKeys"))
    return errs


def _pod_affinity_term(term: dict, p: str) -> list[FieldError]:
    errs = validate_label_selector(term.get("labelSelector"), f"{p}.labelSelector")
    errs += validate_label_selector(term.get("namespaceSelector"), f"{p}.namespaceSelector")
    for ns in term.get("namespaces") or []:
        errs += [invalid(f"{p}.namespace", ns, m) for m in is_dns1123_label(ns)]
    selector = term.get("labelSelector") if isinstance(term.get("labelSelector"), dict) else None
    errs += _match_label_keys(p, term.get("matchLabelKeys") or [], term.get("mismatchLabelKeys") or [], selector)
    key = term.get("topologyKey") or ""
    if not key:
        errs.append(required(f"{p}.topologyKey", "can not be empty"))
    errs += validate_label_name(key, f"{p}.topologyKey")
    return errs


def _pod_affinity(section: dict, p: str) -> list[FieldError]:
    errs: list[FieldError] = []
    required_terms = section.get("requiredDuringSchedulingIgnoredDuringExecution")
    for i, term in enumerate(required_terms or []):
        errs += _pod_affinity_term(term or {}, f"{p}.requiredDuringSchedulingIgnoredDuringExecution[{i}]")
    for i, weighted in enumerate(section.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        wp = f"{p}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
        weight = (weighted or {}).get("weight") or 0
        if weight <= 0 or weight > 100:
            errs.append(invalid_typed(f"{wp}.weight", weight, "must be in the range 1-100"))
        errs += _pod_affinity_term((weighted or {}).get("podAffinityTerm") or {}, f"{wp}.podAffinityTerm")
    return errs


def _affinity(affinity: dict) -> list[FieldError]:
    errs: list[FieldError] = []
    node = affinity.get("nodeAffinity")
    if isinstance(node, dict):
        req = node.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(req, dict):
            errs += validate_node_selector(
                req, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution")
        for i, term in enumerate(node.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
            p = f"spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
            weight = (term or {}).get("weight") or 0
            if weight <= 0 or weight > 100:
                errs.append(invalid_typed(f"{p}.weight", weight, "must be in the range 1-100"))
            errs += validate_node_selector_term((term or {}).get("preference") or {}, f"{p}.preference", True)
    if isinstance(affinity.get("podAffinity"), dict):
        errs += _pod_affinity(affinity["podAffinity"], "spec.affinity.podAffinity")
    if isinstance(affinity.get("podAntiAffinity"), dict):
        errs += _pod_affinity(affinity["podAntiAffinity"], "spec.affinity.podAntiAffinity")
    return errs


def _scheduling_gates(gates: list) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, gate in enumerate(gates):
        name = (gate or {}).get("name") or ""
        errs += [invalid(f"spec.schedulingGates[{i}]", name, m) for m in is_label_key(name)]
        if name in seen:
            errs.append(duplicate(f"spec.schedulingGates[{i}]", name))
        seen.add(name)
    return errs


def _legacy_spread_keys(path: str, match: list, selector: dict | None) -> list[FieldError]:
    """ValidateMatchLabelKeysInTopologySpread: the check without the selector merge (1.33, or
    its gate off), on the selector as written: a key that is any key of the selector is refused."""
    if not match:
        return []
    errs: list[FieldError] = []
    keys: set[str] = set()
    if selector is not None:
        keys.update((selector.get("matchLabels") or {}).keys())
        keys.update((e or {}).get("key") or "" for e in selector.get("matchExpressions") or [])
    else:
        errs.append(forbidden(path, "must not be specified when labelSelector is not set"))
    for i, key in enumerate(match):
        errs += validate_label_name(key, f"{path}[{i}]")
        if key in keys:
            errs.append(invalid(f"{path}[{i}]", key, "exists in both matchLabelKeys and labelSelector"))
    return errs


def _topology_spread(constraints: list, rules: PodRules) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, c in enumerate(constraints):
        p = f"spec.topologySpreadConstraints[{i}]"
        skew = c.get("maxSkew") or 0
        if skew <= 0:
            errs.append(invalid_typed(f"{p}.maxSkew", skew, "must be greater than zero"))
        if not c.get("topologyKey"):
            errs.append(required(f"{p}.topologyKey", "can not be empty"))
        action = c.get("whenUnsatisfiable") or ""
        if action not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(not_supported(f"{p}.whenUnsatisfiable", action, ["DoNotSchedule", "ScheduleAnyway"]))
        for later in constraints[i + 1:]:
            if (later.get("topologyKey") or "") == (c.get("topologyKey") or "") \
                    and (later.get("whenUnsatisfiable") or "") == action:
                errs.append(duplicate(f"{p}.{{topologyKey, whenUnsatisfiable}}",
                                      f"{{{c.get('topologyKey') or ''}, {action}}}"))
                break
        min_domains = c.get("minDomains")
        if min_domains is not None:
            if min_domains <= 0:
                errs.append(invalid_typed(f"{p}.minDomains", min_domains, "must be greater than zero"))
            if action != "DoNotSchedule":
                errs.append(invalid_typed(f"{p}.minDomains", min_domains,
                                          f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"))
        for policy in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            value = c.get(policy)
            if value is not None and value not in ("Honor", "Ignore"):
                errs.append(not_supported(f"{p}.{policy}", value, ["Honor", "Ignore"]))
        selector = c.get("labelSelector") if isinstance(c.get("labelSelector"), dict) else None
        if rules.legacy_spread_keys:
            errs += _legacy_spread_keys(f"{p}.matchLabelKeys", c.get("matchLabelKeys") or [], selector)
        else:
            errs += _match_label_keys(p, c.get("matchLabelKeys") or [], [], selector)
        errs += validate_label_selector(selector, f"{p}.labelSelector")
    return errs


def _claim_statuses(pod: dict, rules: PodRules) -> list[FieldError]:
    """validatePodResourceClaimStatuses: the status update that wrote them (each names an entry
    of spec.resourceClaims, once; a claim name a valid object name)."""
    statuses = (pod.get("status") or {}).get("resourceClaimStatuses")
    if not isinstance(statuses, list):
        return []
    claims = {(c or {}).get("name") or "" for c in (pod.get("spec") or {}).get("resourceClaims") or []
              if isinstance(c, dict)}
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, status in enumerate(s for s in statuses if isinstance(s, dict)):
        p = f"status.resourceClaimStatuses[{i}]"
        name = status.get("name") or ""
        if name not in claims:
            errs.append(invalid(f"{p}.name", name, "must match the name of an entry in `spec.resourceClaims`"))
        if name in seen:
            errs.append(duplicate(f"{p}.name", name))
        seen.add(name)
        claim = status.get("resourceClaimName")
        if isinstance(claim, str):
            errs += [invalid(f"{p}.{rules.claim_status_name_field}", claim, m) for m in is_dns1123_subdomain(claim)]
    return errs


def validate_pod_status(pod: dict, kube: KubeVersion = DEFAULT_VERSION) -> list[FieldError]:
    """What the status updates that wrote a pod's status (as kexplain takes it) are checked for."""
    return _claim_statuses(pod, rules_for(kube))


def validate_pod_create(pod: dict, kube: KubeVersion = DEFAULT_VERSION) -> list[FieldError]:
    """ValidatePodCreate on a defaulted, admitted pod, as `kube`'s API server validates it."""
    rules = rules_for(kube)
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    pod_name = meta.get("name") or ""
    errs = validate_object_meta(meta, True, is_dns1123_subdomain)
    errs += _pod_annotations(meta, spec)
    # ValidatePodSpec
    if spec.get("terminationGracePeriodSeconds") is None:
        errs.append(required("spec.terminationGracePeriodSeconds"))
    volumes, vol_errs = _volumes(spec, pod_name)
    errs += vol_errs
    claims = {(c or {}).get("name") or "" for c in spec.get("resourceClaims") or []}
    errs += _containers(spec, volumes, claims, rules)
    errs += _init_containers(spec, volumes, claims, rules)
    errs += _pod_resources(spec, claims)
    errs += _host_network(spec)
    errs += _enum(spec.get("restartPolicy") or "", "spec.restartPolicy", ["Always", "OnFailure", "Never"])
    errs += _enum(spec.get("dnsPolicy") or "", "spec.dnsPolicy", ["ClusterFirstWithHostNet", "ClusterFirst",
                                                                  "Default", "None"])
    errs += validate_labels(spec.get("nodeSelector"), "spec.nodeSelector")
    if isinstance(spec.get("affinity"), dict):
        errs += _affinity(spec["affinity"])
    for i, gate in enumerate(spec.get("readinessGates") or []):
        cond = (gate or {}).get("conditionType") or ""
        errs += [invalid(f"spec.readinessGates[{i}].conditionType", cond, m) for m in is_label_key(cond)]
    errs += _scheduling_gates(spec.get("schedulingGates") or [])
    errs += _topology_spread([c for c in spec.get("topologySpreadConstraints") or [] if isinstance(c, dict)], rules)
    errs += _host_users(spec, rules)
    if spec.get("serviceAccountName"):
        errs += [invalid("spec.serviceAccountName", spec["serviceAccountName"], m)
                 for m in is_dns1123_subdomain(spec["serviceAccountName"])]
    if spec.get("nodeName"):
        errs += [invalid("spec.nodeName", spec["nodeName"], m) for m in is_dns1123_subdomain(spec["nodeName"])]
    deadline = spec.get("activeDeadlineSeconds")
    if deadline is not None and not 1 <= deadline <= 2**31 - 1:
        errs.append(invalid_typed("spec.activeDeadlineSeconds", deadline, "must be between 1 and 2147483647, inclusive"))
    if spec.get("hostname"):
        errs += validate_dns1123_label(spec["hostname"], "spec.hostname")
    if spec.get("subdomain"):
        errs += validate_dns1123_label(spec["subdomain"], "spec.subdomain")
    if spec.get("tolerations"):
        errs += validate_tolerations([t for t in spec["tolerations"] if isinstance(t, dict)], "spec.tolerations",
                                     rules.comparison)
    if spec.get("priorityClassName"):
        errs += [invalid("spec.priorityClassName", spec["priorityClassName"], m)
                 for m in is_dns1123_subdomain(spec["priorityClassName"])]
    if spec.get("runtimeClassName") is not None:
        errs += [invalid("spec.runtimeClassName", spec["runtimeClassName"], m)
                 for m in is_dns1123_subdomain(spec["runtimeClassName"])]
    if spec.get("preemptionPolicy") is not None:
        errs += _enum(spec["preemptionPolicy"], "spec.preemptionPolicy", ["PreemptLowerPriority", "Never"])
    if spec.get("overhead") is not None:
        errs += validate_resource_requirements({"limits": spec["overhead"]}, "spec.overhead",
                                               validate_container_resource_name, claims)
    # validatePodMetadataAndSpec: pod-only container checks
    for field in ("containers", "initContainers"):
        for i, c in enumerate(c for c in spec.get(field) or [] if isinstance(c, dict)):
            image = c.get("image") or ""
            if image != image.strip():
                errs.append(invalid(f"spec.{field}[{i}].image", image, "must not have leading or trailing whitespace"))
    # ValidatePodCreate
    if spec.get("ephemeralContainers"):
        errs.append(forbidden("spec.ephemeralContainers", "cannot be set on create"))
    if spec.get("nodeName") and spec.get("schedulingGates"):
        errs.append(forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared"))
    return errs

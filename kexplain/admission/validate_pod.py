"""ValidatePodCreate for the fields the scheduler and admission read.

Options are those kube-apiserver v1.35.4 computes for a create under default
feature gates: strict label values in selectors and required node affinity,
pod-level resources on, matchLabelKeys selector merge on, Lt/Gt toleration
operators refused, container restart policies allowed.
"""
from __future__ import annotations

import re

from kexplain.apimachinery import quantity
from kexplain.admission.defaults import aggregate_containers
from kexplain.apimachinery.labels import ANNOTATION_MIRROR_POD as MIRROR_ANNOTATION
from kexplain.apimachinery.fielderrors import (FieldError, duplicate, forbidden, invalid, invalid_typed, not_found, not_supported,
                          required)
from kexplain.apimachinery.names import (is_dns1123_label, is_dns1123_subdomain, is_label_key, validate_dns1123_label,
                    validate_label_name, validate_labels)
from kexplain.admission.validate_common import (is_hugepages, validate_container_resource_name, validate_label_selector,
                              validate_node_selector, validate_node_selector_term, validate_object_meta,
                              validate_pod_resource_name, validate_resource_requirements, validate_tolerations)

DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"
_VOLUME_TYPES = (
    "emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs", "iscsi",
    "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "quobyte", "downwardAPI", "fc",
    "flexVolume", "configMap", "azureFile", "vsphereVolume", "photonPersistentDisk", "portworxVolume",
    "azureDisk", "storageos", "projected", "scaleIO", "csi", "ephemeral", "image",
)
_HOST_PATH_TYPES = ["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate",
                    "Socket"]


def _deletion_cost_ok(text: str) -> bool:
    if not text or not (text[0] == "-" or text == "0" or "1" <= text[0] <= "9"):
        return False
    if not re.fullmatch(r"-?[0-9]+", text):
        return False
    return -(2**31) <= int(text) < 2**31


def _pod_annotations(meta: dict, spec: dict) -> list[FieldError]:
    errs: list[FieldError] = []
    annotations = meta.get("annotations") or {}
    if MIRROR_ANNOTATION in annotations and not spec.get("nodeName"):
        errs.append(invalid(f"metadata.annotations[{MIRROR_ANNOTATION}]", annotations[MIRROR_ANNOTATION],
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


def _container_common(c: dict, p: str, volumes: set[str], claims: set[str]) -> list[FieldError]:
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


def _containers(spec: dict, volumes: set[str], claims: set[str]) -> list[FieldError]:
    containers = [c for c in spec.get("containers") or [] if isinstance(c, dict)]
    if not containers:
        return [required("spec.containers")]
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, c in enumerate(containers):
        p = f"spec.containers[{i}]"
        errs += _container_common(c, p, volumes, claims)
        name = c.get("name") or ""
        if name in names:
            errs.append(duplicate(f"{p}.name", name))
        else:
            names.add(name)
        policy = c.get("restartPolicy")
        if policy is not None and policy not in _CONTAINER_RESTART_POLICIES:
            errs.append(not_supported(f"{p}.restartPolicy", policy, _CONTAINER_RESTART_POLICIES))
    errs += _host_port_conflicts(containers, "spec.containers")
    return errs


def _init_containers(spec: dict, volumes: set[str], claims: set[str]) -> list[FieldError]:
    errs: list[FieldError] = []
    names = {c.get("name") or "" for c in spec.get("containers") or [] if isinstance(c, dict)}
    for i, c in enumerate(c for c in spec.get("initContainers") or [] if isinstance(c, dict)):
        p = f"spec.initContainers[{i}]"
        errs += _container_common(c, p, volumes, claims)
        policy = c.get("restartPolicy")
        if policy is not None and policy != "Always" and policy not in _CONTAINER_RESTART_POLICIES:
            errs.append(not_supported(f"{p}.restartPolicy", policy, _CONTAINER_RESTART_POLICIES))
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


def _topology_spread(constraints: list) -> list[FieldError]:
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
        errs += _match_label_keys(p, c.get("matchLabelKeys") or [], [], selector)
        errs += validate_label_selector(selector, f"{p}.labelSelector")
    return errs


def validate_pod_create(pod: dict) -> list[FieldError]:
    """ValidatePodCreate on a defaulted, admitted pod."""
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
    errs += _containers(spec, volumes, claims)
    errs += _init_containers(spec, volumes, claims)
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
    errs += _topology_spread([c for c in spec.get("topologySpreadConstraints") or [] if isinstance(c, dict)])
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
        errs += validate_tolerations([t for t in spec["tolerations"] if isinstance(t, dict)], "spec.tolerations")
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

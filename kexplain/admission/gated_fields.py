"""Pod and Node fields of disabled feature gates, dropped on create as the followed version's API
server does (DropDisabledPodFields in pkg/api/pod/util.go, the node strategy's dropDisabledFields,
the volume strategies'): the scheduler never sees them. Only a gate the minor knows and has off
drops anything. The tables (POD_DROPPED, ...): docs/internals/admission.md.
"""
from __future__ import annotations

from typing import Callable, Iterator

from kexplain.features import KubeVersion
from kexplain.apimachinery.identity import as_dict, dicts as _dicts

_CONTAINER_KINDS = ("containers", "initContainers", "ephemeralContainers")


class _Field:
    """Drop one field of an object's spec or status (`where`); `found`: whether the object has it."""

    __slots__ = ("where", "key")

    def __init__(self, where: str, key: str) -> None:
        self.where, self.key = where, key

    def __call__(self, obj: dict) -> None:
        as_dict(obj.get(self.where)).pop(self.key, None)

    def found(self, obj: dict) -> bool:
        return self.key in as_dict(obj.get(self.where))


def _containers(spec: dict, kinds: tuple[str, ...] = _CONTAINER_KINDS) -> Iterator[dict]:
    for kind in kinds:
        yield from _dicts(spec.get(kind))


def _affinity_terms(spec: dict) -> Iterator[dict]:
    affinity = as_dict(spec.get("affinity"))
    for section in (as_dict(affinity.get("podAffinity")), as_dict(affinity.get("podAntiAffinity"))):
        yield from _dicts(section.get("requiredDuringSchedulingIgnoredDuringExecution"))
        for weighted in _dicts(section.get("preferredDuringSchedulingIgnoredDuringExecution")):
            if isinstance(weighted.get("podAffinityTerm"), dict):
                yield weighted["podAffinityTerm"]


def _pop_all(items: Iterator[dict], *keys: str) -> None:
    for item in items:
        for key in keys:
            item.pop(key, None)


def _host_users(pod: dict) -> None:
    pod["spec"].pop("hostUsers", None)


def _security_context(key: str) -> Callable[[dict], None]:
    def drop(pod: dict) -> None:
        as_dict(pod["spec"].get("securityContext")).pop(key, None)
    return drop


def _pod_level_resources(pod: dict) -> None:
    pod["spec"].pop("resources", None)


def _proc_mount(pod: dict) -> None:
    """The gate off: a procMount written is forced to the default (never removed: see Go)."""
    for c in _containers(pod["spec"]):
        context = as_dict(c.get("securityContext"))
        if context.get("procMount") is not None:
            context["procMount"] = "Default"


def _node_inclusion_policies(pod: dict) -> None:
    _pop_all(_dicts(pod["spec"].get("topologySpreadConstraints")), "nodeAffinityPolicy", "nodeTaintsPolicy")


def _spread_match_label_keys(pod: dict) -> None:
    _pop_all(_dicts(pod["spec"].get("topologySpreadConstraints")), "matchLabelKeys")


def _affinity_match_label_keys(pod: dict) -> None:
    _pop_all(_affinity_terms(pod["spec"]), "matchLabelKeys", "mismatchLabelKeys")


def _resource_claims(pod: dict) -> None:
    spec = pod["spec"]
    for c in _containers(spec):
        as_dict(c.get("resources")).pop("claims", None)
    spec.pop("resourceClaims", None)
    as_dict(pod.get("status")).pop("resourceClaimStatuses", None)


def _extended_resource_claim_status(pod: dict) -> None:
    as_dict(pod.get("status")).pop("extendedResourceClaimStatus", None)


def _projected_source(key: str) -> Callable[[dict], None]:
    def drop(pod: dict) -> None:
        for volume in _dicts(pod["spec"].get("volumes")):
            _pop_all(_dicts(as_dict(volume.get("projected")).get("sources")), key)
    return drop


def _spec_field(key: str) -> _Field:
    return _Field("spec", key)


def _resize_policies(pod: dict) -> None:
    _pop_all(_containers(pod["spec"]), "resizePolicy")


def _init_restart_policies(pod: dict) -> None:
    _pop_all(_containers(pod["spec"], ("initContainers",)), "restartPolicy")


def _container_restart_rules(pod: dict) -> None:
    """dropContainerRestartRules: every container's restart policy and rules, but a sidecar's
    `restartPolicy: Always` (SidecarContainers)."""
    spec = pod["spec"]
    for c in _containers(spec, ("initContainers",)):
        if c.get("restartPolicy") is not None and c.get("restartPolicy") != "Always":
            c.pop("restartPolicy")
        c.pop("restartPolicyRules", None)
    _pop_all(_containers(spec, ("containers", "ephemeralContainers")), "restartPolicy", "restartPolicyRules")


def _recursive_read_only(pod: dict) -> None:
    for c in _containers(pod["spec"]):
        _pop_all(_dicts(c.get("volumeMounts")), "recursiveReadOnly")


def _file_key_refs(pod: dict) -> None:
    for c in _containers(pod["spec"]):
        for env in _dicts(c.get("env")):
            as_dict(env.get("valueFrom")).pop("fileKeyRef", None)


def _sleep_actions(pod: dict) -> None:
    for c in _containers(pod["spec"], ("containers", "initContainers")):
        lifecycle = c.get("lifecycle")
        if not isinstance(lifecycle, dict):
            continue
        for hook in ("preStop", "postStart"):
            handler = lifecycle.get(hook)
            if isinstance(handler, dict) and handler.get("sleep") is not None:
                handler.pop("sleep")
                if not any(handler.get(k) is not None for k in ("exec", "httpGet", "tcpSocket")):
                    lifecycle.pop(hook)
        if all(lifecycle.get(k) is None for k in ("preStop", "postStart", "stopSignal")):
            c.pop("lifecycle")


def _stop_signals(pod: dict) -> None:
    for c in _containers(pod["spec"]):
        lifecycle = c.get("lifecycle")
        if isinstance(lifecycle, dict) and lifecycle.get("stopSignal") is not None:
            lifecycle.pop("stopSignal")
            if all(v is None for v in lifecycle.values()):
                c.pop("lifecycle")


def _image_volumes(pod: dict) -> None:
    """dropImageVolumes: the image volumes and every mount of them (a list left empty is unset)."""
    spec = pod["spec"]
    volumes = spec.get("volumes")
    if not isinstance(volumes, list):
        return
    names = {v.get("name") for v in _dicts(volumes) if v.get("image") is not None}
    if not names:
        return
    kept = [v for v in volumes if not (isinstance(v, dict) and v.get("name") in names and v.get("image") is not None)]
    if kept:
        spec["volumes"] = kept
    else:
        spec.pop("volumes")
    for c in _containers(spec):
        mounts = c.get("volumeMounts")
        if isinstance(mounts, list):
            left = [m for m in mounts if not (isinstance(m, dict) and m.get("name") in names)]
            if left:
                c["volumeMounts"] = left
            else:
                c.pop("volumeMounts")


Dropped = tuple[Callable[[dict], None], ...]

# gate -> what goes when the minor has that gate and it is off, in DropDisabledPodFields' order
POD_DROPPED: tuple[tuple[str, Callable[[dict], None]], ...] = (
    ("UserNamespacesSupport", _host_users),
    ("SupplementalGroupsPolicy", _security_context("supplementalGroupsPolicy")),
    ("PodLevelResources", _pod_level_resources),
    ("ProcMountType", _proc_mount),
    ("NodeInclusionPolicyInPodTopologySpread", _node_inclusion_policies),
    ("MatchLabelKeysInPodTopologySpread", _spread_match_label_keys),
    ("MatchLabelKeysInPodAffinity", _affinity_match_label_keys),
    ("DynamicResourceAllocation", _resource_claims),
    ("ClusterTrustBundleProjection", _projected_source("clusterTrustBundle")),
    ("PodCertificateRequest", _projected_source("podCertificate")),
    ("GenericWorkload", _spec_field("workloadRef")),              # 1.35
    ("GenericWorkload", _spec_field("schedulingGroup")),          # 1.36
    ("InPlacePodVerticalScaling", _resize_policies),
    ("SidecarContainers", _init_restart_policies),
    ("ContainerRestartRules", _container_restart_rules),
    ("RecursiveReadOnlyMounts", _recursive_read_only),
    ("HostnameOverride", _spec_field("hostnameOverride")),
    ("EnvFiles", _file_key_refs),
    ("PodLifecycleSleepAction", _sleep_actions),
    ("ImageVolume", _image_volumes),
    ("SELinuxChangePolicy", _security_context("seLinuxChangePolicy")),
    ("ContainerStopSignals", _stop_signals),
    ("DRAExtendedResource", _extended_resource_claim_status),
)


def _status_field(key: str) -> _Field:
    return _Field("status", key)


# the node strategy's dropDisabledFields (the fields kexplain reads)
NODE_DROPPED: tuple[tuple[str, Callable[[dict], None]], ...] = (
    ("SupplementalGroupsPolicy", _status_field("features")),
    ("NodeDeclaredFeatures", _status_field("declaredFeatures")),
)

# pkg/api/persistentvolumeclaim and persistentvolume: DropDisabledFields (VolumeAttributesClass:
# beta, off in 1.33; so a 1.33 claim reaches the binder without a class it would refuse)
VOLUME_DROPPED: tuple[tuple[str, Callable[[dict], None]], ...] = (
    ("VolumeAttributesClass", _spec_field("volumeAttributesClassName")),
    ("VolumeAttributesClass", _status_field("currentVolumeAttributesClassName")),
    ("VolumeAttributesClass", _status_field("modifyVolumeStatus")),
)


def _dropped(table: tuple[tuple[str, Callable[[dict], None]], ...], kube: KubeVersion) -> Dropped:
    return tuple(drop for gate, drop in table if gate in kube.gates and not kube.enabled(gate))


def pod_dropped_by(kube: KubeVersion) -> Dropped:
    """What `kube`'s API server drops from every pod it creates (resolve once per run)."""
    return _dropped(POD_DROPPED, kube)


def node_dropped_by(kube: KubeVersion) -> Dropped:
    """What `kube`'s API server drops from every node it creates (resolve once per run)."""
    return _dropped(NODE_DROPPED, kube)


def volume_dropped_by(kube: KubeVersion) -> Dropped:
    """What `kube`'s API server drops from every PersistentVolume(Claim) it creates."""
    return _dropped(VOLUME_DROPPED, kube)


def drops_any(obj: dict, dropped: Dropped) -> bool:
    """Whether `drop_disabled_fields` would drop anything from `obj` (asked of a drop of one
    field; any other drop is taken to drop something)."""
    return any(not isinstance(drop, _Field) or drop.found(obj) for drop in dropped)


def drop_disabled_fields(obj: dict, dropped: Dropped) -> None:
    """Drop from `obj` (a defaulted copy; a pod with a spec mapping) the fields `dropped` names,
    in place."""
    for drop in dropped:
        drop(obj)

"""The API server's defaulting of a PodSpec, in full: SetDefaults_PodSpec and the generated defaulter's
walk of the spec shared by SetObjectDefaults_Pod and SetObjectDefaults_PodTemplate, in place; a Pod's
own SetDefaults_Pod runs before it (`defaults.default_pod`). What is defaulted, and why a template's
quantities are rewritten: docs/internals/admission.md.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from kexplain.apimachinery import quantity

TERMINATION_MESSAGE_PATH = "/dev/termination-log"
DEFAULT_MODE = 0o644                # secret, configMap, downwardAPI and projected volumes
TOKEN_EXPIRATION_SECONDS = 3600
VOLUME_SOURCES = (                  # v1.VolumeSource's fields: none set, the volume is an emptyDir
    "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs",
    "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker",
    "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk",
    "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral",
    "image",
)


def _dict(parent: dict, key: str) -> dict | None:
    value = parent.get(key)
    return value if isinstance(value, dict) else None


def _items(parent: dict, key: str) -> list[dict]:
    value = parent.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def round_resource_list(rl: Any, canonical: bool = False, change: bool = True) -> bool:
    """SetDefaults_ResourceList: every value rounded up to milli precision, in place (`canonical`: in
    the stored text); returns whether it changes a value (`change` False: asks without changing)."""
    if not isinstance(rl, dict):
        return False
    changed = False
    for name, raw in list(rl.items()):
        try:
            rounded = _rounded_text(raw, canonical) if type(raw) is str else _rounded(raw, canonical)
        except quantity.QuantityError:
            continue
        if rounded is not None:
            if not change:
                return True
            rl[name] = rounded
            changed = True
    return changed


def _rounded(raw: Any, canonical: bool) -> str | None:
    """The canonical text of `raw` rounded up to milli precision; None when it needs neither
    rounding nor (with `canonical`) rewriting."""
    q = quantity.parse(raw)
    rounded = quantity.round_up_milli(q)
    if canonical or raw is None or rounded.value != q.value:
        return quantity.canonical(rounded)
    return None


@lru_cache(maxsize=4096)
def _rounded_text(raw: str, canonical: bool) -> str | None:
    """`_rounded` of a text: the same few texts recur on every node and container of a cluster."""
    return _rounded(raw, canonical)


def image_tag(image: str) -> str:
    """parsers.ParseImageName's tag: "latest" without a tag or digest, "" for a name it refuses."""
    name, _, digest = image.partition("@")
    slash, colon = name.rfind("/"), name.rfind(":")
    repo, tag = (name[:colon], name[colon + 1:]) if colon > slash else (name, "")
    first, sep, rest = repo.partition("/")
    path = rest if sep and ("." in first or ":" in first or first == "localhost") else repo
    if not path or path != path.lower():
        return ""
    return tag or ("" if digest else "latest")


def _resources(resources: Any, canonical: bool) -> None:
    if isinstance(resources, dict):
        round_resource_list(resources.get("limits"), canonical)
        round_resource_list(resources.get("requests"), canonical)


def _http_get(action: dict | None) -> None:
    if action is not None:
        if not action.get("path"):
            action["path"] = "/"
        if not action.get("scheme"):
            action["scheme"] = "HTTP"


def _probe(probe: Any, _canonical: bool) -> None:
    if not isinstance(probe, dict):
        return
    for key, default in (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1),
                         ("failureThreshold", 3)):
        if not probe.get(key):
            probe[key] = default
    _http_get(_dict(probe, "httpGet"))
    grpc = _dict(probe, "grpc")
    if grpc is not None and grpc.get("service") is None:
        grpc["service"] = ""


def _field_ref(ref: dict | None) -> None:
    if ref is not None and not ref.get("apiVersion"):
        ref["apiVersion"] = "v1"


def _ports(ports: Any, _canonical: bool) -> None:
    for port in ports if isinstance(ports, list) else ():
        if isinstance(port, dict) and not port.get("protocol"):
            port["protocol"] = "TCP"


def _env(env: Any, _canonical: bool) -> None:
    for var in env if isinstance(env, list) else ():
        source = _dict(var, "valueFrom") if isinstance(var, dict) else None
        if source is not None:
            _field_ref(_dict(source, "fieldRef"))
            file_ref = _dict(source, "fileKeyRef")
            if file_ref is not None and file_ref.get("optional") is None:
                file_ref["optional"] = False


def _lifecycle(lifecycle: Any, _canonical: bool) -> None:
    if isinstance(lifecycle, dict):
        for hook in ("postStart", "preStop"):
            handler = _dict(lifecycle, hook)
            if handler is not None:
                _http_get(_dict(handler, "httpGet"))


# A container's fields the generated defaulter walks into, and how.
_CONTAINER_FIELDS: dict[str, Callable[[Any, bool], None]] = {
    "ports": _ports, "env": _env, "resources": _resources, "livenessProbe": _probe, "readinessProbe": _probe,
    "startupProbe": _probe, "lifecycle": _lifecycle}


@lru_cache(maxsize=4096)
def _pull_policy(image: str) -> str:
    return "Always" if image_tag(image) == "latest" else "IfNotPresent"


def default_container(c: dict, canonical: bool = False) -> None:
    """SetDefaults_Container and what the generated defaulter does to a container's fields."""
    if not c.get("imagePullPolicy"):
        c["imagePullPolicy"] = _pull_policy(str(c.get("image") or ""))
    if not c.get("terminationMessagePath"):
        c["terminationMessagePath"] = TERMINATION_MESSAGE_PATH
    if not c.get("terminationMessagePolicy"):
        c["terminationMessagePolicy"] = "File"
    for key, value in c.items():
        walk = _CONTAINER_FIELDS.get(key)
        if walk is not None:
            walk(value, canonical)


def _default_mode(source: dict, _canonical: bool = False) -> None:
    if source.get("defaultMode") is None:
        source["defaultMode"] = DEFAULT_MODE


def _host_path(source: dict, _canonical: bool) -> None:
    if source.get("type") is None:
        source["type"] = ""


def _iscsi(source: dict, _canonical: bool) -> None:
    if not source.get("iscsiInterface"):
        source["iscsiInterface"] = "default"


def _rbd(source: dict, _canonical: bool) -> None:
    for key, default in (("pool", "rbd"), ("user", "admin"), ("keyring", "/etc/ceph/keyring")):
        if not source.get(key):
            source[key] = default


def _downward_api(source: dict, _canonical: bool) -> None:
    _default_mode(source)
    for item in _items(source, "items"):
        _field_ref(_dict(item, "fieldRef"))


def _azure_disk(source: dict, _canonical: bool) -> None:
    for key, default in (("cachingMode", "ReadWrite"), ("fsType", "ext4"), ("readOnly", False), ("kind", "Shared")):
        if source.get(key) is None:
            source[key] = default


def _projected(source: dict, _canonical: bool) -> None:
    _default_mode(source)
    for projection in _items(source, "sources"):
        api = _dict(projection, "downwardAPI")
        for item in _items(api, "items") if api is not None else ():
            _field_ref(_dict(item, "fieldRef"))
        token = _dict(projection, "serviceAccountToken")
        if token is not None and token.get("expirationSeconds") is None:
            token["expirationSeconds"] = TOKEN_EXPIRATION_SECONDS


def _scale_io(source: dict, _canonical: bool) -> None:
    if not source.get("storageMode"):
        source["storageMode"] = "ThinProvisioned"
    if not source.get("fsType"):
        source["fsType"] = "xfs"


def _ephemeral(source: dict, canonical: bool) -> None:
    claim = _dict(source, "volumeClaimTemplate")
    if claim is not None:
        spec = _dict(claim, "spec")
        if spec is None:
            spec = claim["spec"] = {}
        if spec.get("volumeMode") is None:
            spec["volumeMode"] = "Filesystem"
        _resources(spec.get("resources"), canonical)


# The volume sources the generated defaulter walks into, and how (the others have no defaults).
_VOLUME_SOURCE_DEFAULTS: dict[str, Callable[[dict, bool], None]] = {
    "hostPath": _host_path, "secret": _default_mode, "iscsi": _iscsi, "rbd": _rbd, "downwardAPI": _downward_api,
    "configMap": _default_mode, "azureDisk": _azure_disk, "projected": _projected, "scaleIO": _scale_io,
    "ephemeral": _ephemeral}
_SOURCES = frozenset(VOLUME_SOURCES)


def default_volume(v: dict, canonical: bool = False) -> None:
    """SetDefaults_Volume (no source: an emptyDir) and the generated defaulter's walk of each source."""
    sources = [(key, value) for key, value in v.items() if value is not None and key in _SOURCES]
    if not sources:
        v["emptyDir"] = {}
    for key, source in sources:
        walk = _VOLUME_SOURCE_DEFAULTS.get(key)
        if walk is not None and isinstance(source, dict):
            walk(source, canonical)


def default_pod_spec(spec: dict, canonical: bool = False) -> None:
    """SetDefaults_PodSpec and the generated walk of the spec, in place: the same for a Pod and a
    template; `canonical` as `round_resource_list` (a template's quantities)."""
    if not spec.get("dnsPolicy"):
        spec["dnsPolicy"] = "ClusterFirst"
    if not spec.get("restartPolicy"):
        spec["restartPolicy"] = "Always"
    if spec.get("securityContext") is None:
        spec["securityContext"] = {}
    if spec.get("terminationGracePeriodSeconds") is None:
        spec["terminationGracePeriodSeconds"] = 30
    if not spec.get("schedulerName"):
        spec["schedulerName"] = "default-scheduler"
    for v in _items(spec, "volumes"):
        default_volume(v, canonical)
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in _items(spec, key):
            default_container(c, canonical)
    round_resource_list(spec.get("overhead"), canonical)
    _resources(spec.get("resources"), canonical)


def default_pod_template(template: dict) -> dict:
    """SetObjectDefaults_PodTemplate of a workload's `spec.template`, in place (no SetDefaults_Pod)."""
    spec = _dict(template, "spec")
    if spec is None:
        spec = template["spec"] = {}
    default_pod_spec(spec, canonical=True)
    return template

"""The API server's defaulting of a PodSpec, in full: SetDefaults_PodSpec and the generated
defaulter's walk of the spec, which SetObjectDefaults_Pod and SetObjectDefaults_PodTemplate
(and the apps and batch defaulters on their templates) share; a Pod's own SetDefaults_Pod runs
before it (`kexplain.admission.defaults.default_pod`).

The walk, in its order: SetDefaults_PodSpec (dnsPolicy, restartPolicy, securityContext,
terminationGracePeriodSeconds, schedulerName), each volume (no source becomes emptyDir; hostPath
type, secret / configMap / downwardAPI / projected defaultMode, token expiration, fieldRef
apiVersion, iSCSI / RBD / Azure disk / ScaleIO defaults, an ephemeral volume's claim volumeMode),
each init, regular and ephemeral container (imagePullPolicy from the image's tag,
terminationMessagePath and policy, port protocol, env fieldRef apiVersion and fileKeyRef
optional, probes' timeouts, periods and thresholds, HTTP GET path and scheme, gRPC service,
lifecycle hooks), resource lists rounded up to milli precision. In place.

A template's every defaulted field matters where the whole template is hashed (the Deployment
controller's `pod-template-hash`, `kexplain.load.controller_utils`): its quantities are written
in the text the API server stores; a Pod's keep the text they were written in where rounding
leaves the value alone (`round_resource_list`).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

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


def round_resource_list(rl: Any, canonical: bool = False) -> None:
    """SetDefaults_ResourceList: every value rounded up to milli precision, in place. `canonical`:
    every value in the canonical text the API server stores; otherwise a value the rounding leaves
    alone keeps its text. A value that does not parse is left to decoding, which refuses it."""
    if not isinstance(rl, dict):
        return
    for name, raw in list(rl.items()):
        try:
            rounded = _rounded_text(raw, canonical) if type(raw) is str else _rounded(raw, canonical)
        except quantity.QuantityError:
            continue
        if rounded is not None:
            rl[name] = rounded


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
    """parsers.ParseImageName's tag: after the last `:` of the name's last path part; "latest"
    when there is neither a tag nor a digest; "" for a name the reference parser refuses (a
    repository path with upper-case letters), whose error SetDefaults_Container ignores."""
    name, _, digest = image.partition("@")
    slash, colon = name.rfind("/"), name.rfind(":")
    repo, tag = (name[:colon], name[colon + 1:]) if colon > slash else (name, "")
    first, sep, rest = repo.partition("/")
    path = rest if sep and ("." in first or ":" in first or first == "localhost") else repo
    if not path or path != path.lower():
        return ""
    return tag or ("" if digest else "latest")


def _resources(resources: dict | None, canonical: bool) -> None:
    if resources is not None:
        round_resource_list(resources.get("limits"), canonical)
        round_resource_list(resources.get("requests"), canonical)


def _http_get(action: dict | None) -> None:
    if action is not None:
        if not action.get("path"):
            action["path"] = "/"
        if not action.get("scheme"):
            action["scheme"] = "HTTP"


def _probe(probe: dict | None) -> None:
    if probe is None:
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


def default_container(c: dict, canonical: bool = False) -> None:
    """SetDefaults_Container and what the generated defaulter does to a container's fields."""
    if not c.get("imagePullPolicy"):
        c["imagePullPolicy"] = "Always" if image_tag(str(c.get("image") or "")) == "latest" else "IfNotPresent"
    if not c.get("terminationMessagePath"):
        c["terminationMessagePath"] = TERMINATION_MESSAGE_PATH
    if not c.get("terminationMessagePolicy"):
        c["terminationMessagePolicy"] = "File"
    for port in _items(c, "ports"):
        if not port.get("protocol"):
            port["protocol"] = "TCP"
    for env in _items(c, "env"):
        source = _dict(env, "valueFrom")
        if source is not None:
            _field_ref(_dict(source, "fieldRef"))
            file_ref = _dict(source, "fileKeyRef")
            if file_ref is not None and file_ref.get("optional") is None:
                file_ref["optional"] = False
    _resources(_dict(c, "resources"), canonical)
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        _probe(_dict(c, key))
    lifecycle = _dict(c, "lifecycle")
    if lifecycle is not None:
        for hook in ("postStart", "preStop"):
            handler = _dict(lifecycle, hook)
            if handler is not None:
                _http_get(_dict(handler, "httpGet"))


def _default_mode(source: dict | None) -> None:
    if source is not None and source.get("defaultMode") is None:
        source["defaultMode"] = DEFAULT_MODE


def default_volume(v: dict, canonical: bool = False) -> None:
    """SetDefaults_Volume and the generated defaulter's walk of one volume."""
    if all(v.get(source) is None for source in VOLUME_SOURCES):
        v["emptyDir"] = {}
    host_path = _dict(v, "hostPath")
    if host_path is not None and host_path.get("type") is None:
        host_path["type"] = ""
    _default_mode(_dict(v, "secret"))
    iscsi = _dict(v, "iscsi")
    if iscsi is not None and not iscsi.get("iscsiInterface"):
        iscsi["iscsiInterface"] = "default"
    rbd = _dict(v, "rbd")
    if rbd is not None:
        for key, default in (("pool", "rbd"), ("user", "admin"), ("keyring", "/etc/ceph/keyring")):
            if not rbd.get(key):
                rbd[key] = default
    downward = _dict(v, "downwardAPI")
    if downward is not None:
        _default_mode(downward)
        for item in _items(downward, "items"):
            _field_ref(_dict(item, "fieldRef"))
    _default_mode(_dict(v, "configMap"))
    azure = _dict(v, "azureDisk")
    if azure is not None:
        for key, default in (("cachingMode", "ReadWrite"), ("fsType", "ext4"), ("readOnly", False),
                             ("kind", "Shared")):
            if azure.get(key) is None:
                azure[key] = default
    projected = _dict(v, "projected")
    if projected is not None:
        _default_mode(projected)
        for source in _items(projected, "sources"):
            api = _dict(source, "downwardAPI")
            for item in _items(api, "items") if api is not None else ():
                _field_ref(_dict(item, "fieldRef"))
            token = _dict(source, "serviceAccountToken")
            if token is not None and token.get("expirationSeconds") is None:
                token["expirationSeconds"] = TOKEN_EXPIRATION_SECONDS
    scale_io = _dict(v, "scaleIO")
    if scale_io is not None:
        if not scale_io.get("storageMode"):
            scale_io["storageMode"] = "ThinProvisioned"
        if not scale_io.get("fsType"):
            scale_io["fsType"] = "xfs"
    ephemeral = _dict(v, "ephemeral")
    claim = _dict(ephemeral, "volumeClaimTemplate") if ephemeral is not None else None
    if claim is not None:
        spec = _dict(claim, "spec")
        if spec is None:
            spec = claim["spec"] = {}
        if spec.get("volumeMode") is None:
            spec["volumeMode"] = "Filesystem"
        _resources(_dict(spec, "resources"), canonical)


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
    _resources(_dict(spec, "resources"), canonical)


def default_pod_template(template: dict) -> dict:
    """Defaults (in place) a pod template (`spec.template` of a workload) as the API server's
    defaulter does on create (SetObjectDefaults_PodTemplate: no SetDefaults_Pod, whose requests
    from limits, enableServiceLinks and host ports are a Pod's only); returns it."""
    spec = _dict(template, "spec")
    if spec is None:
        spec = template["spec"] = {}
    default_pod_spec(spec, canonical=True)
    return template

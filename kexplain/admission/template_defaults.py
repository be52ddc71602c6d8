"""The API server's defaulting of a workload's pod template (core/v1 SetObjectDefaults_PodTemplate,
which the apps and batch defaulters run on their templates too), in full.

`kexplain.admission.defaults` defaults what the scheduler reads of a pod; a template's every
defaulted field matters where the whole template is hashed (the Deployment controller's
`pod-template-hash`, `kexplain.load.controller_utils`). So this is the generated defaulter's walk,
in its order: SetDefaults_PodSpec (dnsPolicy, restartPolicy, securityContext,
terminationGracePeriodSeconds, schedulerName), each volume (an empty source becomes emptyDir;
hostPath type, secret / configMap / downwardAPI / projected defaultMode, token expiration,
fieldRef apiVersion, iSCSI / RBD / Azure disk / ScaleIO defaults, an ephemeral volume's claim
volumeMode), each container, init container and ephemeral container (imagePullPolicy from the
image's tag, terminationMessagePath and policy, port protocol, env fieldRef apiVersion and
fileKeyRef optional, probes' timeouts, periods and thresholds, HTTP GET path and scheme, gRPC
service, lifecycle hooks), resource lists rounded up to milli precision. Not SetDefaults_Pod's
(requests from limits, enableServiceLinks): those are a Pod's only. In place.
"""
from __future__ import annotations

from typing import Any

from kexplain.apimachinery import quantity

TERMINATION_MESSAGE_PATH = "/dev/termination-log"
DEFAULT_MODE = 0o644                # secret, configMap, downwardAPI and projected volumes
TOKEN_EXPIRATION_SECONDS = 3600
_VOLUME_SOURCES_WITH_DEFAULTS = ("hostPath", "secret", "iscsi", "rbd", "downwardAPI", "configMap", "azureDisk",
                                 "projected", "scaleIO", "ephemeral")


def _dict(parent: dict, key: str) -> dict | None:
    value = parent.get(key)
    return value if isinstance(value, dict) else None


def _items(parent: dict, key: str) -> list[dict]:
    value = parent.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


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


def _round(resources: Any) -> None:
    """SetDefaults_ResourceList: each value rounded up to milli precision, in its canonical text."""
    if not isinstance(resources, dict):
        return
    for name, raw in list(resources.items()):
        try:
            resources[name] = quantity.canonical(quantity.round_up_milli(quantity.parse(raw)))
        except quantity.QuantityError:
            continue        # refused by validation elsewhere


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


def default_container(c: dict) -> None:
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
    resources = _dict(c, "resources")
    if resources is not None:
        _round(resources.get("limits"))
        _round(resources.get("requests"))
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


def default_volume(v: dict) -> None:
    """SetDefaults_Volume and the generated defaulter's walk of one volume."""
    sources = [k for k in v if k != "name" and v.get(k) is not None]
    if not sources:
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
        resources = _dict(spec, "resources")
        if resources is not None:
            _round(resources.get("limits"))
            _round(resources.get("requests"))


def default_pod_spec_scalars(spec: dict) -> None:
    """SetDefaults_PodSpec's scalars, in place: the same for a Pod and a template."""
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


def default_pod_template(template: dict) -> dict:
    """Defaults (in place) a pod template (`spec.template` of a workload) as the API server's
    defaulter does on create; returns it."""
    spec = _dict(template, "spec")
    if spec is None:
        spec = template["spec"] = {}
    default_pod_spec_scalars(spec)
    for v in _items(spec, "volumes"):
        default_volume(v)
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for c in _items(spec, key):
            default_container(c)
    _round(spec.get("overhead"))
    resources = _dict(spec, "resources")
    if resources is not None:
        _round(resources.get("limits"))
        _round(resources.get("requests"))
    return template

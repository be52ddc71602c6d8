"""Shared storage lookups for the volume plugins (VolumeBinding, VolumeZone, VolumeRestrictions,
NodeVolumeLimits): their objects indexed once per snapshot, the storage rules they share, and
CSI migration (csi-translation-lib). The admitted raw dicts are never changed."""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Iterable, Mapping
from urllib.parse import urlsplit

from kexplain.model.nodeselector import NodeSelector
from kexplain.model.snapshot import unchanged_by_bind
from kexplain.apimachinery.labels import (ANN_BETA_STORAGE_CLASS, ANN_BIND_COMPLETED, ANN_MIGRATED_PLUGINS,
                                          LABEL_FAILURE_DOMAIN_BETA_REGION as LABEL_REGION_BETA,
                                          LABEL_FAILURE_DOMAIN_BETA_ZONE as LABEL_ZONE_BETA,
                                          LABEL_MULTI_ZONE_DELIMITER as MULTI_ZONE_DELIMITER,
                                          LABEL_TOPOLOGY_REGION as LABEL_REGION, LABEL_TOPOLOGY_ZONE as LABEL_ZONE)
from kexplain.apimachinery.quantity import QuantityError, parse_quantity

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.pod import PodInfo
    from kexplain.model.snapshot import Snapshot

Obj = Mapping[str, Any]

# Annotations and well-known names (k8s.io/api core/v1, component-helpers storage/volume).
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"

WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
FILESYSTEM = "Filesystem"
CLAIM_LOST = "Lost"
VOLUME_AVAILABLE = "Available"


INDEX_KEY = "volumes/index"


# --- object accessors -------------------------------------------------------------------

def meta(obj: Obj | None) -> Mapping[str, Any]:
    return (obj or {}).get("metadata") or {}


def spec(obj: Obj | None) -> Mapping[str, Any]:
    return (obj or {}).get("spec") or {}


def name_of(obj: Obj | None) -> str:
    return meta(obj).get("name") or ""


def namespace_of(obj: Obj | None) -> str:
    return meta(obj).get("namespace") or "default"


def annotations(obj: Obj | None) -> Mapping[str, str]:
    return meta(obj).get("annotations") or {}


def labels(obj: Obj | None) -> Mapping[str, str]:
    return {str(k): str(v) for k, v in (meta(obj).get("labels") or {}).items()}


def not_found(resource: str, name: str) -> str:
    """The API's NotFound text, as listers report it."""
    return f'{resource} "{name}" not found'


PVC_RESOURCE = "persistentvolumeclaim"
PV_RESOURCE = "persistentvolume"
SC_RESOURCE = "storageclass.storage.k8s.io"


def claim_class(obj: Obj) -> str:
    """A claim's or volume's storage class: the beta annotation wins over spec.storageClassName."""
    ann = annotations(obj)
    if ANN_BETA_STORAGE_CLASS in ann:
        return ann[ANN_BETA_STORAGE_CLASS] or ""
    return spec(obj).get("storageClassName") or ""


volume_class = claim_class      # (GetPersistentVolumeClass reads a volume as GetPersistentVolumeClaimClass a claim)


def _quantity(raw: object) -> Fraction:
    if raw is None:
        return Fraction(0)
    try:
        return parse_quantity(raw)
    except QuantityError:
        return Fraction(0)


def storage_request(pvc: Obj) -> Fraction:
    """spec.resources.requests.storage (zero when absent)."""
    return _quantity(((spec(pvc).get("resources") or {}).get("requests") or {}).get("storage"))


def volume_capacity(pv: Obj) -> Fraction:
    """spec.capacity.storage (zero when absent)."""
    return _quantity((spec(pv).get("capacity") or {}).get("storage"))


def access_modes(obj: Obj) -> tuple[str, ...]:
    return tuple(spec(obj).get("accessModes") or ())


def volume_mode(obj: Obj) -> str:
    return spec(obj).get("volumeMode") or FILESYSTEM


def attributes_class(obj: Obj) -> str:
    return spec(obj).get("volumeAttributesClassName") or ""


def is_fully_bound(pvc: Obj) -> bool:
    """isPVCFullyBound (volumebinding/binder.go): a volume name and the bind-completed
    annotation, whatever its value; the claim's phase and the volume's claimRef are not read."""
    return bool(spec(pvc).get("volumeName")) and ANN_BIND_COMPLETED in annotations(pvc)


def binding_mode(sc: Obj) -> str | None:
    return sc.get("volumeBindingMode")


# --- pod volumes ------------------------------------------------------------------------

def pod_volumes(pod: "PodInfo") -> list[Mapping[str, Any]]:
    return [v for v in pod.spec.get("volumes") or () if isinstance(v, dict)]


def claim_of_volume(pod: "PodInfo", vol: Obj) -> tuple[str, bool] | None:
    """The claim a pod volume uses and whether it is a generic ephemeral one
    (claim `<pod>-<volume>`); None for volumes without a claim."""
    pvc = vol.get("persistentVolumeClaim")
    if isinstance(pvc, dict):
        return pvc.get("claimName") or "", False
    if isinstance(vol.get("ephemeral"), dict):
        return f"{pod.name}-{vol.get('name') or ''}", True
    return None


def ephemeral_owner_error(pod: "PodInfo", pvc: Obj) -> str | None:
    """Why an ephemeral volume's claim may not be used: it must be controlled by the pod."""
    ns = namespace_of(pvc)
    controlled = any(ref.get("controller") is True and (ref.get("uid") or "") == pod.uid
                     for ref in meta(pvc).get("ownerReferences") or ())
    if ns != pod.namespace or not controlled:
        return (f"PVC {ns}/{name_of(pvc)} was not created for pod "
                f"{pod.namespace}/{pod.name} (pod is not owner)")
    return None


# --- node affinity and topology -----------------------------------------------------------

@dataclass(frozen=True)
class LabelsOnlyNode:
    """A node known only by its labels: volume node affinity is matched against a node
    object carrying nothing else, so matchFields never constrain it."""

    labels: Mapping[str, str]
    name: str = ""


def affinity_selector(pv: Obj) -> NodeSelector | None:
    """The PV's required node affinity (None: every node)."""
    required = (spec(pv).get("nodeAffinity") or {}).get("required")
    if required is None:
        return None
    return NodeSelector.from_raw(required)


def selector_admits(selector: NodeSelector | None, node_labels: Mapping[str, str]) -> bool:
    return selector is None or selector.matches(LabelsOnlyNode(node_labels))  # type: ignore[arg-type]


def match_topology_terms(terms: Iterable[Obj] | None, node_labels: Mapping[str, str]) -> bool:
    """StorageClass.allowedTopologies: no terms admit every node; otherwise one term must
    have every label requirement (key In values) met. Empty terms admit nothing."""
    terms = list(terms or ())
    if not terms:
        return True
    for term in terms:
        reqs = term.get("matchLabelExpressions") or ()
        if not reqs:
            continue
        if all(node_labels.get(r.get("key") or "") in set(r.get("values") or ())
               and (r.get("key") or "") in node_labels for r in reqs):
            return True
    return False


def label_zones(value: str) -> frozenset[str] | None:
    """A zone label value holding several zones (`a__b`); None when an element is empty."""
    zones = set()
    for part in value.split(MULTI_ZONE_DELIMITER):
        part = part.strip()
        if not part:
            return None
        zones.add(part)
    return frozenset(zones)


# --- CSI migration (csi-translation-lib) ------------------------------------------------

class TranslationError(Exception):
    """An in-tree volume that csi-translation-lib refuses to translate."""


@dataclass(frozen=True)
class InTreePlugin:
    source: str           # the volume source field (gcePersistentDisk, ...)
    plugin: str           # in-tree plugin name (kubernetes.io/gce-pd)
    driver: str           # CSI driver it migrates to
    topology_key: str = ""  # the driver's zone topology key, when it rewrites PV topology


GCE_PD = InTreePlugin("gcePersistentDisk", "kubernetes.io/gce-pd", "pd.csi.storage.gke.io",
                      "topology.gke.io/zone")
AWS_EBS = InTreePlugin("awsElasticBlockStore", "kubernetes.io/aws-ebs", "ebs.csi.aws.com",
                       "topology.ebs.csi.aws.com/zone")
CINDER = InTreePlugin("cinder", "kubernetes.io/cinder", "cinder.csi.openstack.org",
                      "topology.cinder.csi.openstack.org/zone")
AZURE_DISK = InTreePlugin("azureDisk", "kubernetes.io/azure-disk", "disk.csi.azure.com")
AZURE_FILE = InTreePlugin("azureFile", "kubernetes.io/azure-file", "file.csi.azure.com")
VSPHERE = InTreePlugin("vsphereVolume", "kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com")
PORTWORX = InTreePlugin("portworxVolume", "kubernetes.io/portworx-volume", "pxd.portworx.com")

IN_TREE_PLUGINS = (GCE_PD, AWS_EBS, CINDER, AZURE_DISK, AZURE_FILE, VSPHERE, PORTWORX)
_BY_PLUGIN_NAME = {p.plugin: p for p in IN_TREE_PLUGINS}

# Plugins whose migration the scheduler treats as on (CSIMigrationPortworx is GA and
# locked on in v1.35); Azure File and vSphere are never counted as migrated.
MIGRATION_ON = frozenset({GCE_PD.plugin, AWS_EBS.plugin, CINDER.plugin, AZURE_DISK.plugin,
                          PORTWORX.plugin})


def inline_plugin(vol: Obj) -> InTreePlugin | None:
    """The in-tree plugin an inline pod volume uses, when csi-translation-lib knows it."""
    for p in IN_TREE_PLUGINS:
        if isinstance(vol.get(p.source), dict):
            return p
    return None


def pv_plugin(pv: Obj) -> InTreePlugin | None:
    """The in-tree plugin of a PersistentVolume, when csi-translation-lib knows it."""
    s = spec(pv)
    for p in IN_TREE_PLUGINS:
        if isinstance(s.get(p.source), dict):
            return p
    return None


def plugin_by_name(name: str) -> InTreePlugin | None:
    return _BY_PLUGIN_NAME.get(name)


def migrated_plugins(csinode: Obj | None) -> frozenset[str]:
    """In-tree plugins the node's CSINode says were migrated (comma-separated annotation)."""
    if csinode is None:
        return frozenset()
    raw = annotations(csinode).get(ANN_MIGRATED_PLUGINS) or ""
    return frozenset(raw.split(",")) if raw else frozenset()


_AWS_VOLUME_ID = re.compile(r"^vol-[^/]*$")


def ebs_volume_id(kubernetes_id: str) -> str:
    """aws://zone/vol-id (or a bare vol-id) -> the EBS volume id."""
    if not kubernetes_id.startswith("aws://"):
        return kubernetes_id
    try:
        url = urlsplit(kubernetes_id)
    except ValueError as err:
        raise TranslationError(f"Invalid disk name ({kubernetes_id}): {err}") from None
    aws_id = url.path.strip("/")
    if not _AWS_VOLUME_ID.match(aws_id):
        raise TranslationError(f"Invalid format for AWS volume ({kubernetes_id})")
    return aws_id


def _gce_region(zones: list[str]) -> str:
    if not zones:
        raise TranslationError("no zones specified")
    regions = set()
    for zone in zones:
        parts = zone.split("-")
        if len(parts) != 3:
            raise TranslationError(
                f"zone in unexpected format, expected: {{locale}}-{{region}}-{{zone}}, got: {zone}")
        regions.add("-".join(parts[:2]))
    if len(regions) != 1:
        raise TranslationError(f"multiple or no regions gotten from zones, got: {sorted(regions)}")
    return next(iter(regions))


def _azure_disk_check(source: Obj) -> None:
    kind = source.get("kind") or "Shared"   # the API server defaults kind to Shared
    if str(kind).lower() != "managed":
        raise TranslationError(f"kind({kind}) is not supported in csi migration")


def inline_volume_handle(plugin: InTreePlugin, vol: Obj) -> str:
    """The CSI volume handle csi-translation-lib gives an inline in-tree volume."""
    src = vol.get(plugin.source) or {}
    if plugin is GCE_PD:
        return f"projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{src.get('pdName') or ''}"
    return _source_handle(plugin, src)


def _source_handle(plugin: InTreePlugin, src: Obj) -> str:
    """The handle of a non-GCE in-tree source: the same whether inline or in a PV."""
    if plugin is AWS_EBS:
        try:
            return ebs_volume_id(src.get("volumeID") or "")
        except TranslationError as err:
            raise TranslationError(f"failed to translate Kubernetes ID to EBS Volume ID {err}") from None
    if plugin is AZURE_DISK:
        _azure_disk_check(src)
        return src.get("diskURI") or ""
    if plugin is CINDER or plugin is PORTWORX:
        return src.get("volumeID") or ""
    if plugin is VSPHERE:
        return src.get("volumePath") or ""
    return src.get("shareName") or ""


def pv_volume_handle(plugin: InTreePlugin, pv: Obj) -> str:
    """The CSI volume handle csi-translation-lib gives an in-tree PersistentVolume."""
    src = spec(pv).get(plugin.source) or {}
    if plugin is GCE_PD:
        pv_labels = labels(pv)
        zones_label = pv_labels.get(LABEL_ZONE_BETA) or pv_labels.get(LABEL_ZONE) or ""
        zones = zones_label.split(MULTI_ZONE_DELIMITER)
        pd = src.get("pdName") or ""
        if len(zones) == 1 and zones[0]:
            return f"projects/UNSPECIFIED/zones/{zones[0]}/disks/{pd}"
        if len(zones) > 1:
            try:
                region = _gce_region(zones)
            except TranslationError as err:
                raise TranslationError(f"failed to get region from zones: {err}") from None
            return f"projects/UNSPECIFIED/regions/{region}/disks/{pd}"
        return f"projects/UNSPECIFIED/zones/UNSPECIFIED/disks/{pd}"
    return _source_handle(plugin, src)


# -- PV topology rewrite (translateTopologyFromInTreeToCSI) --

def _terms(pv: dict) -> list[dict]:
    required = (pv.get("spec", {}).get("nodeAffinity") or {}).get("required") or {}
    return required.get("nodeSelectorTerms") or []


def _has_key(pv: dict, key: str) -> bool:
    return any(r.get("key") == key for t in _terms(pv) for r in t.get("matchExpressions") or ())


def _values_for(pv: dict, key: str) -> list[str]:
    vals = {v for t in _terms(pv) for r in t.get("matchExpressions") or () if r.get("key") == key
            for v in r.get("values") or ()}
    return sorted(vals)


def _replace_key(pv: dict, old: str, new: str) -> None:
    for t in _terms(pv):
        for r in t.get("matchExpressions") or ():
            if r.get("key") == old:
                r["key"] = new


def _add_topology(pv: dict, key: str, zones: list[str]) -> None:
    kept = sorted({z.strip() for z in zones if z.strip()})
    if not kept:
        return  # "there are no valid zones to add to pv": ignored by the caller
    s = pv.setdefault("spec", {})
    affinity = s.get("nodeAffinity") or {}
    s["nodeAffinity"] = affinity
    required = affinity.get("required") or {}
    affinity["required"] = required
    terms = required.get("nodeSelectorTerms") or [{}]
    required["nodeSelectorTerms"] = terms
    for t in terms:
        t["matchExpressions"] = list(t.get("matchExpressions") or []) + [
            {"key": key, "operator": "In", "values": list(kept)}]


def _topology_labels(pv: dict) -> tuple[str, str]:
    if _has_key(pv, LABEL_ZONE):
        return LABEL_ZONE, LABEL_REGION
    if _has_key(pv, LABEL_ZONE_BETA):
        return LABEL_ZONE_BETA, LABEL_REGION_BETA
    pv_labels = labels(pv)
    if LABEL_ZONE in pv_labels:
        return LABEL_ZONE, LABEL_REGION
    if LABEL_ZONE_BETA in pv_labels:
        return LABEL_ZONE_BETA, LABEL_REGION_BETA
    return LABEL_ZONE, LABEL_REGION


def _translate_topology(pv: dict, csi_key: str) -> None:
    zone_label, region_label = _topology_labels(pv)
    if _values_for(pv, zone_label):
        _replace_key(pv, zone_label, csi_key)
    else:
        pv_labels = labels(pv)
        if zone_label in pv_labels:
            _add_topology(pv, csi_key, pv_labels[zone_label].split(MULTI_ZONE_DELIMITER))
    if region_label == LABEL_REGION_BETA and _values_for(pv, region_label):
        _replace_key(pv, region_label, LABEL_REGION)


def translate_pv(plugin: InTreePlugin, pv: Obj) -> dict:
    """A copy of an in-tree PV as csi-translation-lib rewrites it: a CSI source (driver,
    volume handle) and, for zonal disks, node affinity on the driver's topology key."""
    out = copy.deepcopy(dict(pv))
    handle = pv_volume_handle(plugin, out)
    if plugin.topology_key:
        _translate_topology(out, plugin.topology_key)
    s = out.setdefault("spec", {})
    s.pop(plugin.source, None)
    s["csi"] = {"driver": plugin.driver, "volumeHandle": handle}
    return out


# --- the per-snapshot index ----------------------------------------------------------

@dataclass
class VolumeIndex:
    """Claims, volumes, classes and CSINodes by name, built once per snapshot."""

    pvcs: dict[tuple[str, str], Obj] = field(default_factory=dict)
    pvs: dict[str, Obj] = field(default_factory=dict)
    classes: dict[str, Obj] = field(default_factory=dict)
    csinodes: dict[str, Obj] = field(default_factory=dict)
    pvs_by_class: dict[str, list[Obj]] = field(default_factory=dict)
    _affinity: dict[int, NodeSelector | None] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, snapshot: "Snapshot") -> "VolumeIndex":
        idx = cls()
        for pvc in snapshot.of_kind("PersistentVolumeClaim"):
            idx.pvcs[(namespace_of(pvc), name_of(pvc))] = pvc
        for pv in snapshot.of_kind("PersistentVolume"):
            idx.pvs[name_of(pv)] = pv
        for sc in snapshot.of_kind("StorageClass"):
            idx.classes[name_of(sc)] = sc
        for cn in snapshot.of_kind("CSINode"):
            idx.csinodes[name_of(cn)] = cn
        for pv in idx.pvs.values():
            idx.pvs_by_class.setdefault(volume_class(pv), []).append(pv)
        return idx

    def pvc(self, namespace: str, name: str) -> Obj | None:
        return self.pvcs.get((namespace, name))

    def pv(self, name: str) -> Obj | None:
        return self.pvs.get(name)

    def storage_class(self, name: str) -> Obj | None:
        return self.classes.get(name)

    def csinode(self, node_name: str) -> Obj | None:
        return self.csinodes.get(node_name)

    def volumes_of_class(self, class_name: str) -> list[Obj]:
        return self.pvs_by_class.get(class_name, [])

    def pv_admits(self, pv: Obj, node_labels: Mapping[str, str]) -> bool:
        """CheckNodeAffinity for a stored PV (its selector parsed once)."""
        key = id(pv)
        if key not in self._affinity:
            self._affinity[key] = affinity_selector(pv)
        return selector_admits(self._affinity[key], node_labels)


def volume_index(snapshot: "Snapshot") -> VolumeIndex:
    """The index of the snapshot's volume objects; a bind changes none (`with_pod_bound`)."""
    return snapshot.cached(INDEX_KEY, lambda: VolumeIndex.build(snapshot), unchanged_by_bind)

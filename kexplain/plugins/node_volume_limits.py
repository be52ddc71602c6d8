"""NodeVolumeLimits: a node can attach only so many volumes of each CSI driver (its CSINode's
`allocatable.count`): the pod's volumes counted per driver by unique handle (unbound claims by
provisioner, in-tree disks through CSI migration), the node's own not twice."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.framework.interface import Explainer, FilterPlugin, PreFilterPlugin, SignPlugin
from kexplain.framework import signers
from kexplain.framework.status import SKIP, SUCCESS, Code, Status
from kexplain.plugins import names
from kexplain.plugins.volumes import (
    PORTWORX, PVC_RESOURCE, InTreePlugin, Obj, TranslationError, VolumeIndex, claim_class,
    claim_of_volume, ephemeral_owner_error, inline_plugin, inline_volume_handle,
    migrated_plugins, name_of, namespace_of, not_found, plugin_by_name, pod_volumes, pv_plugin,
    pv_volume_handle, spec, volume_index,
)

ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"

# Stands in for the random prefix the scheduler gives the handles of volumes not yet
# provisioned: only its sameness within a run matters.
UNBOUND_HANDLE_PREFIX = "kexplainunboundvolumeprefix00000"

# Plugins migrated without consulting the CSINode annotation (isCSIMigrationOn).
_ALWAYS_MIGRATED = frozenset({"kubernetes.io/aws-ebs", "kubernetes.io/gce-pd",
                              "kubernetes.io/azure-disk", "kubernetes.io/cinder"})


class VolumeError(Exception):
    """Counting failed: `not_found` marks a missing claim of the pod being scheduled."""

    def __init__(self, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


def migration_on(csinode: Obj | None, plugin_name: str) -> bool:
    """Whether the scheduler counts this in-tree plugin's volumes as CSI on the node: only
    with a CSINode; Portworx also needs the node's migrated-plugins annotation."""
    if csinode is None or not plugin_name:
        return False
    if plugin_name in _ALWAYS_MIGRATED:
        return True
    if plugin_name == PORTWORX.plugin:
        return plugin_name in migrated_plugins(csinode)
    return False


def volume_limits(csinode: Obj | None) -> dict[str, int]:
    """Driver -> attach limit, from the CSINode's allocatable counts."""
    out: dict[str, int] = {}
    if csinode is None:
        return out
    for d in spec(csinode).get("drivers") or ():
        count = (d.get("allocatable") or {}).get("count")
        if count is not None:
            out[d.get("name") or ""] = int(count)
    return out


class NodeVolumeLimits(PreFilterPlugin, FilterPlugin, Explainer, SignPlugin):
    name = names.NODE_VOLUME_LIMITS

    def sign_pod(self, pod) -> signers.Fragments | None:
        """The pod's volume sources."""
        return [(signers.VOLUMES, signers.volumes(pod))]

    @property
    def index(self) -> VolumeIndex:
        return volume_index(self.handle.snapshot)

    def pre_filter(self, state, pod, nodes):
        for vol in pod_volumes(pod):
            if (isinstance(vol.get("persistentVolumeClaim"), dict)
                    or isinstance(vol.get("ephemeral"), dict) or inline_plugin(vol) is not None):
                return None, SUCCESS
        return None, SKIP

    def filter(self, state, pod, node_info) -> Status:
        if not pod_volumes(pod):
            return SUCCESS
        csinode = self.index.csinode(node_info.name)
        try:
            new = self._attachable(pod, csinode, new_pod=True)
        except VolumeError as err:
            code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if err.not_found else Code.ERROR
            return Status(code, (str(err),))
        if not new:
            return SUCCESS
        limits = volume_limits(csinode)
        if not limits:
            return SUCCESS
        attached: dict[str, str] = {}
        try:
            for other in node_info.pods:
                attached.update(self._existing(other, csinode))
        except VolumeError as err:
            return Status.error(str(err))
        attached_count: dict[str, int] = {}
        for unique, driver in attached.items():
            new.pop(unique, None)
            attached_count[driver] = attached_count.get(driver, 0) + 1
        new_count: dict[str, int] = {}
        for driver in new.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        for driver, count in new_count.items():
            limit = limits.get(driver)
            if limit is not None and attached_count.get(driver, 0) + count > limit:
                return Status(Code.UNSCHEDULABLE, (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,))
        return SUCCESS

    def _existing(self, pod, csinode: Obj | None) -> dict[str, str]:
        """An existing pod's attachable volumes, computed once per pod and CSINode."""
        cache: dict = self.handle.snapshot.cached("NodeVolumeLimits/existing", dict)
        key = (pod.uid, pod.namespace, pod.name, name_of(csinode) if csinode is not None else None)
        if key not in cache:
            cache[key] = self._attachable(pod, csinode, new_pod=False)
        return cache[key]

    def _attachable(self, pod, csinode: Obj | None, new_pod: bool) -> dict[str, str]:
        """Unique volume name (`driver/handle`) -> driver, for the pod's attachable volumes."""
        out: dict[str, str] = {}
        idx = self.index
        for vol in pod_volumes(pod):
            ref = claim_of_volume(pod, vol)
            if ref is None:
                self._inline(vol, csinode, out)
                continue
            claim, ephemeral = ref
            if not claim:
                raise VolumeError("PersistentVolumeClaim had no name")
            pvc = idx.pvc(pod.namespace, claim)
            if pvc is None:
                if new_pod:
                    raise VolumeError(f"looking up PVC {pod.namespace}/{claim}: "
                                      f"{not_found(PVC_RESOURCE, claim)}", not_found=True)
                continue
            if ephemeral:
                err = ephemeral_owner_error(pod, pvc)
                if err:
                    raise VolumeError(err)
            driver, handle = self._driver_info(csinode, pvc)
            if not driver or not handle:
                continue
            out[f"{driver}/{handle}"] = driver
        return out

    def _inline(self, vol: Mapping[str, Any], csinode: Obj | None, out: dict[str, str]) -> None:
        plugin = inline_plugin(vol)
        if plugin is None or not migration_on(csinode, plugin.plugin):
            return
        try:
            handle = inline_volume_handle(plugin, vol)
        except TranslationError as err:
            raise VolumeError(f"converting volume({vol.get('name') or ''}) from inline to csi: {err}") from None
        out[f"{plugin.driver}/{handle}"] = plugin.driver

    def _driver_info(self, csinode: Obj | None, pvc: Obj) -> tuple[str, str]:
        """The claim's CSI driver and volume handle; ("", "") when it is not counted."""
        pv_name = spec(pvc).get("volumeName") or ""
        pv = self.index.pv(pv_name) if pv_name else None
        if pv is None:
            return self._driver_info_from_class(csinode, pvc)
        csi = spec(pv).get("csi")
        if isinstance(csi, dict):
            return csi.get("driver") or "", csi.get("volumeHandle") or ""
        plugin = pv_plugin(pv)
        if plugin is None or not migration_on(csinode, plugin.plugin):
            return "", ""
        try:
            return plugin.driver, pv_volume_handle(plugin, pv)
        except TranslationError:
            return "", ""

    def _driver_info_from_class(self, csinode: Obj | None, pvc: Obj) -> tuple[str, str]:
        """A claim without a volume yet: its class's provisioner, a handle of its own."""
        cls_name = claim_class(pvc)
        if not cls_name:
            return "", ""
        sc = self.index.storage_class(cls_name)
        if sc is None:
            return "", ""
        handle = f"{UNBOUND_HANDLE_PREFIX}-{namespace_of(pvc)}/{name_of(pvc)}"
        provisioner = sc.get("provisioner") or ""
        plugin: InTreePlugin | None = plugin_by_name(provisioner)
        if plugin is not None:
            if not migration_on(csinode, provisioner):
                return "", ""
            return plugin.driver, handle
        return provisioner, handle

    def explain(self, state, pod, node_info) -> dict | None:
        """Per CSI driver of the pod's volumes: the node's attach limit (CSINode), the volumes
        its pods already attach and the new ones the pod would add."""
        if not pod_volumes(pod):
            return None
        csinode = self.index.csinode(node_info.name)
        try:
            new = self._attachable(pod, csinode, new_pod=True)
            attached: dict[str, str] = {}
            for other in node_info.pods:
                attached.update(self._existing(other, csinode))
        except VolumeError as err:
            return {"error": str(err)}
        limits = volume_limits(csinode)
        drivers = []
        for driver in sorted(set(new.values())):
            adds = sum(1 for u, d in new.items() if d == driver and u not in attached)
            used = sum(1 for d in attached.values() if d == driver)
            limit = limits.get(driver)
            drivers.append({"driver": driver, "limit": limit, "attached": used, "new": adds,
                            "exceeded": limit is not None and used + adds > limit})
        return {"csiNode": csinode is not None, "drivers": drivers} if drivers or csinode is None else None

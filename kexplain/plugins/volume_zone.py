"""VolumeZone: a pod whose bound volumes live in given zones or regions can only run on nodes of
those (a node without topology labels is not constrained; claims still waiting for their first
consumer are VolumeBinding's)."""
from __future__ import annotations

from dataclasses import dataclass

from kexplain.framework.interface import Explainer, FilterPlugin, PreFilterPlugin, SignPlugin
from kexplain.framework import signers
from kexplain.framework.status import SKIP, SUCCESS, Code, Status
from kexplain.plugins import names
from kexplain.plugins.volumes import (
    LABEL_REGION, LABEL_REGION_BETA, LABEL_ZONE, LABEL_ZONE_BETA, PV_RESOURCE, PVC_RESOURCE,
    SC_RESOURCE, WAIT_FOR_FIRST_CONSUMER, binding_mode, claim_class, label_zones, labels,
    name_of, not_found, pod_volumes, spec, volume_index,
)

ERR_REASON_CONFLICT = "node(s) had no available volume zone"
ERR_CLAIM_NO_NAME = "PersistentVolumeClaim had no name"
ERR_NO_PV_NO_CLASS = "PersistentVolumeClaim had no pv name and storageClass name"
ERR_PV_NO_NAME = "PersistentVolume had no name"

PRE_FILTER_STATE_KEY = "PreFilterVolumeZone"

# The labels a volume's location is read from, in the order they are checked.
TOPOLOGY_LABELS = (LABEL_ZONE_BETA, LABEL_REGION_BETA, LABEL_ZONE, LABEL_REGION)
_TO_GA = {LABEL_ZONE_BETA: LABEL_ZONE, LABEL_REGION_BETA: LABEL_REGION}


@dataclass(frozen=True)
class PVTopology:
    pv_name: str
    key: str
    values: frozenset[str]


@dataclass(frozen=True)
class VolumeZoneState:
    topologies: tuple[PVTopology, ...]

    def clone(self) -> "VolumeZoneState":
        return self


def pv_topologies(pv) -> list[PVTopology]:
    """The PV's topology labels, in TOPOLOGY_LABELS order; unparsable values are ignored."""
    out = []
    pv_labels = labels(pv)
    for key in TOPOLOGY_LABELS:
        if key in pv_labels:
            zones = label_zones(pv_labels[key])
            if zones is not None:
                out.append(PVTopology(name_of(pv), key, zones))
    return out


def unresolvable(msg: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (msg,))


class VolumeZone(PreFilterPlugin, FilterPlugin, Explainer, SignPlugin):
    name = names.VOLUME_ZONE

    def sign_pod(self, pod) -> signers.Fragments | None:
        """The pod's volume sources."""
        return [(signers.VOLUMES, signers.volumes(pod))]

    def _topologies(self, pod) -> tuple[list[PVTopology], Status]:
        idx = volume_index(self.handle.snapshot)
        out: list[PVTopology] = []
        for vol in pod_volumes(pod):
            ref = vol.get("persistentVolumeClaim")
            if not isinstance(ref, dict):
                continue
            claim = ref.get("claimName") or ""
            if not claim:
                return [], unresolvable(ERR_CLAIM_NO_NAME)
            pvc = idx.pvc(pod.namespace, claim)
            if pvc is None:
                return [], unresolvable(not_found(PVC_RESOURCE, claim))
            pv_name = spec(pvc).get("volumeName") or ""
            if not pv_name:
                cls_name = claim_class(pvc)
                if not cls_name:
                    return [], unresolvable(ERR_NO_PV_NO_CLASS)
                sc = idx.storage_class(cls_name)
                if sc is None:
                    return [], unresolvable(not_found(SC_RESOURCE, cls_name))
                mode = binding_mode(sc)
                if mode is None:
                    return [], unresolvable(f'VolumeBindingMode not set for StorageClass "{cls_name}"')
                if mode == WAIT_FOR_FIRST_CONSUMER:
                    continue
                return [], unresolvable(ERR_PV_NO_NAME)
            pv = idx.pv(pv_name)
            if pv is None:
                return [], unresolvable(not_found(PV_RESOURCE, pv_name))
            out.extend(pv_topologies(pv))
        return out, SUCCESS

    def pre_filter(self, state, pod, nodes):
        topologies, status = self._topologies(pod)
        if not status.is_success:
            return None, status
        if not topologies:
            return None, SKIP
        state.write(PRE_FILTER_STATE_KEY, VolumeZoneState(tuple(topologies)))
        return None, SUCCESS

    def filter(self, state, pod, node_info) -> Status:
        if not pod_volumes(pod):
            return SUCCESS
        st: VolumeZoneState | None = state.get(PRE_FILTER_STATE_KEY)
        if st is None:
            topologies, status = self._topologies(pod)
            if not status.is_success:
                return status
        else:
            topologies = list(st.topologies)
        node_labels = node_info.node.labels
        if not any(k in node_labels for k in TOPOLOGY_LABELS):
            return SUCCESS
        for topo in topologies:
            value = node_labels.get(topo.key)
            if value is None:
                value = node_labels.get(_TO_GA.get(topo.key, topo.key))
            if value is None or value not in topo.values:
                return unresolvable(ERR_REASON_CONFLICT)
        return SUCCESS

    def explain(self, state, pod, node_info) -> dict | None:
        """Each zone/region label of the pod's bound volumes against the node's label (a node
        without any topology label is not constrained)."""
        st: VolumeZoneState | None = state.get(PRE_FILTER_STATE_KEY)
        topologies = list(st.topologies) if st is not None else self._topologies(pod)[0]
        if not topologies:
            return None
        node_labels = node_info.node.labels
        volumes = []
        for topo in topologies:
            value = node_labels.get(topo.key)
            if value is None:
                value = node_labels.get(_TO_GA.get(topo.key, topo.key))
            volumes.append({"volume": topo.pv_name, "label": topo.key, "values": sorted(topo.values),
                            "node": value, "match": value is not None and value in topo.values})
        return {"nodeHasTopologyLabels": any(k in node_labels for k in TOPOLOGY_LABELS), "volumes": volumes}

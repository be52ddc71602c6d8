"""The node groups of a live cluster: what `discover` needs, read with get and list only (CA's
status ConfigMap; Cluster API kinds at v1beta2, else v1beta1). A source missing or refused is a
note, never an error; a status in a format CA does not write is (exit 2)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from kexplain.autoscaler.cloudprovider import Discovery, discover, label_keys, status_configmap
from kexplain.autoscaler.cloudprovider.clusterapi import GROUP
from kexplain.errors import Source
from kexplain.load.live import ClusterReader, LiveError, Resource

STATUS = Resource("ConfigMap", "configmaps", "", "v1", optional=True)
CLUSTER_API: tuple[Resource, ...] = tuple(
    Resource(kind, plural, GROUP, "v1beta2", ("v1beta1",), True)
    for kind, plural in (("MachineDeployment", "machinedeployments"), ("MachineSet", "machinesets"),
                         ("Machine", "machines")))
# What RBAC must grant for these reads (deploy/rbac.yaml): (verb, API group, resource).
ACCESS: tuple[tuple[str, str, str], ...] = (("get", "", "configmaps"),
                                            *(("list", r.group, r.plural) for r in CLUSTER_API))
STATUS_PATH = (f"/api/v1/namespaces/{status_configmap.NAMESPACE}/configmaps/{status_configmap.NAME}")

Obj = dict[str, Any]


@dataclass(frozen=True)
class GroupReads:
    """The objects that report node groups, as read (what `discover` finds groups in, and what a snapshot
    keeps), the notes of what is not there, and `unread`: the reads that failed, in words."""

    objects: tuple[Obj, ...] = ()
    notes: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()



def _scalable(objects: Sequence[Obj]) -> list[Obj]:
    return [o for o in objects if o.get("kind") in ("MachineDeployment", "MachineSet")]


def read_group_objects(reader: ClusterReader) -> GroupReads:
    """CA's status ConfigMap (get) and Cluster API's objects (list, v1beta2 else v1beta1), with
    get and list only; a source that is not there, not served or refused is a note."""
    objects: list[Obj] = []
    notes: list[str] = []
    unread: list[str] = []
    where = f"ConfigMap {status_configmap.NAMESPACE}/{status_configmap.NAME}"
    try:
        config_map = reader.get_optional(STATUS, status_configmap.NAMESPACE, status_configmap.NAME)
    except LiveError as err:
        config_map = None
        unread.append(f"CA's status {where} could not be read: {err.message}")
        notes.append(unread[-1])
    else:
        if config_map is None:
            notes.append(f"no {where}: CA is not running in this cluster, or writes its status elsewhere "
                         "(--write-status-configmap=false, --status-config-map-name)")
    if config_map is not None:
        objects.append(config_map)
    for res in CLUSTER_API:
        try:
            objects.extend(reader.list_served(res))
        except LiveError as err:
            unread.append(f"Cluster API {res.plural} could not be read: {err.message}")
            notes.append(unread[-1])
    if not _scalable(objects) and not unread:
        notes.append(f"no Cluster API MachineDeployment or MachineSet ({GROUP} is not served, or has none)")
    return GroupReads(tuple(objects), tuple(notes), tuple(unread))


def read_node_groups(reader: ClusterReader, cluster: Sequence[tuple[Obj, Source]],
                     extra_labels: Sequence[str] = ()) -> Discovery:
    """The node groups of the cluster `reader` reads (`cluster`: what it read already, for
    the Nodes), members by the provider labels and `extra_labels` (--node-group-label)."""
    read = read_group_objects(reader)
    notes = list(read.notes)
    nodes = [obj for obj, _ in cluster if obj.get("kind") == "Node"]
    found = discover(nodes + list(read.objects), label_keys(extra_labels), Source(reader.conn.server))
    if _scalable(read.objects) and not any(g.name.startswith(("MachineDeployment/", "MachineSet/")) for g in found.groups):
        notes.append("no Cluster API MachineDeployment or MachineSet is a node group: none has the autoscaler's "
                     "min/max-size annotations with room to scale")
    return found.with_notes(notes)

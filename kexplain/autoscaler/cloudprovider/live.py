"""The node groups of a live cluster: what `discover` needs, read with get and list only.

A get of CA's status ConfigMap (kube-system/cluster-autoscaler-status) and lists of the Cluster
API kinds CA's clusterapi provider reads (MachineDeployments, MachineSets, Machines, at
cluster.x-k8s.io v1beta2, else v1beta1). None of them is needed to explain a pod: a source that
is not there (404), not served, or refused (403) is said in a note, never an error. A status
ConfigMap in a format CA does not write is an error (exit 2), as any bad input.
"""
from __future__ import annotations

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


def read_node_groups(reader: ClusterReader, cluster: Sequence[tuple[Obj, Source]],
                     extra_labels: Sequence[str] = ()) -> Discovery:
    """The node groups of the cluster `reader` reads (`cluster`: what it read already, for
    the Nodes), members by the provider labels and `extra_labels` (--node-group-label)."""
    server = reader.conn.server
    objects: list[Obj] = []
    notes: list[str] = []
    where = f"ConfigMap {status_configmap.NAMESPACE}/{status_configmap.NAME}"
    try:
        config_map = reader.get_optional(STATUS, status_configmap.NAMESPACE, status_configmap.NAME)
    except LiveError as err:
        config_map = None
        notes.append(f"CA's status {where} could not be read: {err.message}")
    else:
        if config_map is None:
            notes.append(f"no {where}: CA is not running in this cluster, or writes its status elsewhere "
                         "(--write-status-configmap=false, --status-config-map-name)")
    if config_map is not None:
        objects.append(config_map)
    refused = False
    for res in CLUSTER_API:
        try:
            objects.extend(reader.list_served(res))
        except LiveError as err:
            refused = True
            notes.append(f"Cluster API {res.plural} could not be read: {err.message}")
    scalable = [o for o in objects if o.get("kind") in ("MachineDeployment", "MachineSet")]
    if not scalable and not refused:
        notes.append(f"no Cluster API MachineDeployment or MachineSet ({GROUP} is not served, or has none)")
    nodes = [obj for obj, _ in cluster if obj.get("kind") == "Node"]
    found = discover(nodes + objects, label_keys(extra_labels), Source(server))
    if scalable and not any(g.name.startswith(("MachineDeployment/", "MachineSet/")) for g in found.groups):
        notes.append("no Cluster API MachineDeployment or MachineSet is a node group: none has the autoscaler's "
                     "min/max-size annotations with room to scale")
    return found.with_notes(notes)

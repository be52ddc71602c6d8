"""`kexplain evict`'s wiring: the cluster read once into the one cluster state, then one family's
pass (`pressure`, `drain`, `taints`, a module each, whose `document(request)` returns the
document the command writes). Never prints."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime
from typing import BinaryIO, Optional

from kexplain.admission.defaults import default_pod
from kexplain.errors import InputError, Source
from kexplain.explain.inputs import read_config
from kexplain.features import KubeVersion
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS
from kexplain.load.manifests import load_objects
from kexplain.state.cluster import ClusterState, state_of


@dataclass(frozen=True)
class EvictRequest:
    """What `kexplain evict FAMILY NODE` was asked; the family's own options in `options`
    (pressure: stats, kubelet_config, filesystems, earlier_stats, earlier_at, admit; drain:
    ignore_daemonsets, delete_emptydir_data, force; taints: taints)."""

    node: str
    nodes: tuple[str, ...]
    now: datetime
    kube: KubeVersion
    options: dict = field(default_factory=dict)
    max_bytes: int = DEFAULT_MAX_BYTES
    max_objects: int = DEFAULT_MAX_OBJECTS
    validate: str = "strict"
    stdin: Optional[BinaryIO] = None


def read_state(req: EvictRequest) -> ClusterState:
    """The cluster of `--nodes`, read and indexed once, as stored (nothing admitted: the pods are
    bound and running; `pods_on` gives a node's pods their API defaults)."""
    with bulk_load(freeze=True):
        cluster = load_objects(req.nodes, req.max_bytes, req.stdin, max_objects=req.max_objects)
        return state_of(cluster, read_config(None, kube=req.kube), stored=True, validate=req.validate)


def defaulted(obj: dict, kube: KubeVersion) -> dict:
    """A pod as the API server stores it: its v1 defaults (requests copied from limits, ...) set on
    a copy. The cluster's pods are bound and running: read as stored, never admitted again (their
    admission plugins ran when they were created)."""
    if obj.get("kind") != "Pod" or (obj.get("apiVersion") or "v1") != "v1":
        return obj
    pod = copy.deepcopy(obj)
    default_pod(pod, kube)
    return pod


def node_named(state: ClusterState, name: str, paths: tuple[str, ...]) -> dict:
    """The Node `name` as admitted, or bad input naming the files it is not in."""
    info = state.snapshot.get(name)
    if info is None:
        raise InputError(f"node {name!r} not found in {', '.join(paths) or 'the cluster'}",
                         source=Source(paths[0]) if paths else None)
    return info.node.obj


def pods_on(state: ClusterState, name: str, kube: KubeVersion) -> list[dict]:
    """Every pod bound to node `name`, finished ones too, in the order the objects were read (as
    `kubectl get pods --field-selector spec.nodeName=NAME` lists them before kubectl sorts), each
    with the API server's v1 defaults (`defaulted`): only the node's pods are copied, so a dump of
    a whole cluster stays read as stored."""
    return [defaulted(o, kube) for o, _ in state.objects
            if o.get("kind") == "Pod" and (o.get("spec") or {}).get("nodeName") == name]

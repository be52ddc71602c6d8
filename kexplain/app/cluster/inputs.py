"""What `kexplain cluster` reads, once: the files or a `kexplain snapshot` directory of `--nodes`,
as stored (nothing admitted: what an API server kept), into the one cluster state every section
reads (`state.cluster.ClusterState`), as `kexplain evict` reads it (`app.eviction.request.read_cluster`:
the control plane's version a snapshot recorded, unless given)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import BinaryIO, Optional

from kexplain.apimachinery import columns
from kexplain.app.cluster.access import Refused
from kexplain.app.eviction.request import EvictRequest, followed, read_cluster, settled, with_priorities
from kexplain.explain.inputs import read_config
from kexplain.features import KubeVersion
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS
from kexplain.load.live import recorded_version
from kexplain.state.cluster import ClusterState, state_of
from kexplain.state.objects import Objects


@dataclass(frozen=True)
class ClusterRequest:
    """What `kexplain cluster` was asked: the cluster's files, the clock, the version, the sections
    (empty: every one whose inputs are there) and whether every node's drain is checked."""

    nodes: tuple[str, ...]
    now: datetime
    kube: KubeVersion
    version_given: bool = True
    sections: tuple[str, ...] = ()
    drain_check: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    max_objects: int = DEFAULT_MAX_OBJECTS
    validate: str = "strict"
    stdin: Optional[BinaryIO] = None
    drain_flags: tuple[str, ...] = ()   # kubectl drain's flags every drain takes (ignore_daemonsets, ...)
    node_groups: Optional[str] = None   # --node-groups FILE: CA's groups, else those found among the objects
    node_stats: tuple[tuple[str, str], ...] = ()   # --node-stats NODE=FILE: a node's stats Summary (evict pressure's --stats)
    kubelet_config: Optional[str] = None    # --kubelet-config FILE: every such node's kubelet (else a snapshot's configz)
    autoscaler_config: Optional[str] = None     # --autoscaler-config FILE: CA's flags for its scale-down
    namespace: Optional[str] = None     # -n: the pending pods and budgets of one namespace (None: every one)
    html: bool = False                  # --html: rows carry what only the page shows (a pending group's trace)

    def evict_request(self, node: str = "") -> EvictRequest:
        """The request `kexplain evict drain NODE --nodes ...` with the same flags would be."""
        return EvictRequest(node, self.nodes, self.now, self.kube, {k: True for k in self.drain_flags}, self.max_bytes,
                            self.max_objects, self.validate, self.stdin, None, version_given=self.version_given)


@dataclass(frozen=True)
class ClusterInputs:
    """The cluster read once, and the request as its version settled it."""

    state: ClusterState
    request: ClusterRequest
    refused: tuple[Refused, ...] = ()   # live: the reads the API server refused (a section needing one is skipped)

    @property
    def objects(self) -> list:
        """Every object as read, every kind (the autoscalers', Kueue's and Karpenter's among them): a list of
        its own, a dump's with its rows (`columns.Dump.same`: every section's passes over it ask them)."""
        state = self.state
        if state.read is None:
            return [*state.objects, *state.other_kinds]
        return state.read.same() if columns.rows_of(state.read) is not None else list(state.read)


def read(req: ClusterRequest) -> ClusterInputs:
    """The cluster of `req.nodes`, read, checked and indexed once (bad input: an InputError)."""
    evict = req.evict_request()
    state, _ = read_cluster(evict)
    kube = settled(evict, state).kube
    return ClusterInputs(state, replace(req, kube=kube))


def read_live(req: ClusterRequest, objects: Objects, refused: tuple[Refused, ...] = ()) -> ClusterInputs:
    """The live cluster's objects as `kexplain snapshot` writes them (the API server's /version
    first), read into the one state as `read` reads that snapshot's file (`read_cluster`: the
    version it records unless given, the manifests' priorities, stored), with the reads refused."""
    kube = req.kube
    with bulk_load(freeze=True):
        recorded = recorded_version(objects) if not req.version_given else None
        if recorded is not None:
            kube = followed(recorded[0], "the API server").with_admission(req.kube.admission)
        state = state_of(with_priorities(objects), read_config(None, kube=kube), stored=True, validate=req.validate)
    return ClusterInputs(state, replace(req, kube=state.kube), refused)

"""What `kexplain cluster` reads, once: the files or a `kexplain snapshot` directory of `--nodes`,
as stored (nothing admitted: what an API server kept), into the one cluster state every section
reads (`state.cluster.ClusterState`), as `kexplain evict` reads it (`app.eviction.request.read_cluster`:
the control plane's version a snapshot recorded, unless given)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import BinaryIO, Optional

from kexplain.app.eviction.request import EvictRequest, read_cluster, settled
from kexplain.features import KubeVersion
from kexplain.load.limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_OBJECTS
from kexplain.state.cluster import ClusterState


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

    @property
    def objects(self) -> list:
        """Every object as read, every kind (the autoscalers', Kueue's and Karpenter's among them)."""
        state = self.state
        return list(state.read) if state.read is not None else [*state.objects, *state.other_kinds]


def read(req: ClusterRequest) -> ClusterInputs:
    """The cluster of `req.nodes`, read, checked and indexed once (bad input: an InputError)."""
    evict = req.evict_request()
    state, _ = read_cluster(evict)
    kube = settled(evict, state).kube
    return ClusterInputs(state, replace(req, kube=kube))

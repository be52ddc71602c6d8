"""One node as Karpenter's cluster state holds it (pkg/controllers/state/statenode.go)."""
from __future__ import annotations

from fractions import Fraction
from operator import methodcaller
from typing import Any

from kexplain.apimachinery.labels import LABEL_HOSTNAME as HOSTNAME_LABEL
from kexplain.apimachinery.quantity import DECIMAL_SI, Quantity
from kexplain.karpenter.scheduling.taints import is_known_ephemeral_taint, match_taint
from kexplain.apimachinery.identity import as_dict
from kexplain.karpenter.utils import resources
from kexplain.karpenter.utils.resources import ResourceList

NODEPOOL_LABEL = "karpenter.sh/nodepool"
REGISTERED_LABEL = "karpenter.sh/registered"
INITIALIZED_LABEL = "karpenter.sh/initialized"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ONE_NODE = Quantity(Fraction(1), DECIMAL_SI)        # resource.MustParse("1")
class StateNode:
    """A Node and/or its NodeClaim, with what is bound to it."""

    __slots__ = ("node", "node_claim", "pod_requests", "daemonset_requests", "host_port_usage", "volume_usage",
                 "marked", "nominated", "reschedulable_pods", "_read")

    def __init__(self, node: dict[str, Any] | None, node_claim: dict[str, Any] | None) -> None:
        self.node = node
        self.node_claim = node_claim
        self.pod_requests: list[ResourceList] = []     # each bound pod's (load leaves one pod of a name)
        self.daemonset_requests: dict[tuple[str, str], ResourceList] = {}
        self.host_port_usage: Any = None          # scheduling.HostPortUsage, set by the cluster
        self.volume_usage: Any = None             # scheduling.VolumeUsage, set by the cluster
        self.marked = False                       # Cluster.MarkForDeletion (disruption): never here
        self.nominated = False
        # how many of its bound pods are reschedulable (IsReschedulable; terminal ones included), counted
        # by the cluster state as it reads them (None: not counted)
        self.reschedulable_pods: int | None = None
        self._read: _Read | None = None

    def copy(self) -> "StateNode":
        """A copy sharing what it holds (its pods' requests and usages, which no pass changes in place):
        a pass that changes a state node shared with other passes changes its own copy."""
        out = StateNode.__new__(StateNode)
        for name in StateNode.__slots__:
            setattr(out, name, getattr(self, name))
        return out

    def _reads(self) -> "_Read":
        """What it reads of its Node and NodeClaim (asked 100,000 times a pass), worked out again when
        either object is replaced (the objects themselves are never changed)."""
        read = self._read
        if read is None or read.node is not self.node or read.node_claim is not self.node_claim:
            read = self._read = _Read(self.node, self.node_claim)
        return read

    # -- identity ---------------------------------------------------------------------------
    def name(self) -> str:
        return self._reads().name

    def host_name(self) -> str:
        return self.labels().get(HOSTNAME_LABEL) or self.name()

    def managed(self) -> bool:
        return self.node_claim is not None

    def registered(self) -> bool:
        return self._reads().registered

    def initialized(self) -> bool:
        return self._reads().initialized

    def deleted(self) -> bool:
        """Its NodeClaim is deleting or its instance terminating, or a Node without NodeClaim is
        deleting (read with its identity: `_Read`)."""
        return self._reads().deleted

    def marked_for_deletion(self) -> bool:
        return self.marked or self._reads().deleted

    # -- what it reads from which object -------------------------------------------------------
    def _reads_claim(self) -> bool:
        return self._reads().reads_claim

    def labels(self) -> dict[str, str]:
        return self._reads().labels

    def taints(self) -> list[dict[str, Any]]:
        """The taints pods must tolerate: the NodeClaim's until a managed node registers; until it
        is initialized, without the ephemeral taints and its startup taints."""
        if (not self.registered() and self.managed()) or self.node is None:
            taints = list(as_dict(self.node_claim.get("spec")).get("taints") or ())
        else:
            taints = list(as_dict(self.node.get("spec")).get("taints") or ())
        taints = [t for t in taints if isinstance(t, dict)]
        if not self.initialized() and self.managed():
            startup = [t for t in as_dict(self.node_claim.get("spec")).get("startupTaints") or ()
                       if isinstance(t, dict)]
            return [t for t in taints
                    if not is_known_ephemeral_taint(t) and not any(match_taint(s, t) for s in startup)]
        return taints

    def capacity(self) -> ResourceList:
        """Its capacity, with `nodes: 1`; an uninitialized managed node fills zero values from its
        NodeClaim."""
        return {**self._status_list("capacity"), resources.NODE: ONE_NODE}

    def allocatable(self) -> ResourceList:
        return self._status_list("allocatable")

    def _status_list(self, key: str) -> ResourceList:
        if not self.initialized() and self.node_claim is not None:
            claim = resources.parse_list(as_dict(self.node_claim.get("status")).get(key))
            if self.node is not None:
                out = resources.parse_list(as_dict(self.node.get("status")).get(key))
                for name, q in claim.items():
                    if resources.is_zero(out.get(name)):
                        out[name] = q
                return out
            return claim
        return resources.parse_list(as_dict(as_dict(self.node).get("status")).get(key))

    def available_nanos(self) -> resources.Nanos:
        """Allocatable less the bound pods' requests, as integers (billionths), summed without Quantity
        arithmetic: each allocatable name's sum over the pods' integer views in C (a node's 30 pods are
        mostly of shapes of their own: no shape is summed once for many)."""
        out = resources.to_nanos(self.allocatable())
        listed = list(map(resources.nanos_of, self.pod_requests))
        return {name: v - sum(map(methodcaller("get", name, 0), listed)) for name, v in out.items()}

    def daemonset_requests_nanos(self) -> resources.Nanos:
        """The DaemonSets' requests as integers (billionths), summed without Quantity
        arithmetic."""
        total: dict[str, int] = {}
        for reqs in self.daemonset_requests.values():
            for name, v in resources.nanos_of(reqs).items():
                total[name] = total.get(name, 0) + v
        return total

    def __repr__(self) -> str:
        return f"StateNode({self.name()})"


class _Read:
    """A state node's identity as its objects say it (`StateNode._reads`)."""

    __slots__ = ("node", "node_claim", "registered", "initialized", "reads_claim", "name", "labels", "deleted")

    def __init__(self, node: dict[str, Any] | None, node_claim: dict[str, Any] | None) -> None:
        self.node, self.node_claim = node, node_claim
        node_labels = _labels(node) if node is not None else {}
        managed = node_claim is not None
        self.registered = not managed or (node is not None and node_labels.get(REGISTERED_LABEL) == "true")
        self.initialized = not managed or (node is not None and node_labels.get(INITIALIZED_LABEL) == "true")
        self.reads_claim = node is None or (managed and not self.registered)
        self.name = _name(node_claim if self.reads_claim else node)
        self.labels = _labels(node_claim) if self.reads_claim else node_labels
        self.deleted = _deleted(node, node_claim)


def _deleted(node: dict[str, Any] | None, node_claim: dict[str, Any] | None) -> bool:
    """`StateNode.deleted` of these objects."""
    if node_claim is not None:
        if as_dict(node_claim.get("metadata")).get("deletionTimestamp"):
            return True
        return any(isinstance(c, dict) and c.get("type") == "InstanceTerminating" and c.get("status") == "True"
                   for c in as_dict(node_claim.get("status")).get("conditions") or ())
    return bool(node is not None and as_dict(node.get("metadata")).get("deletionTimestamp"))


def _name(obj: dict[str, Any] | None) -> str:
    return as_dict(as_dict(obj).get("metadata")).get("name") or ""


def _labels(obj: dict[str, Any] | None) -> dict[str, str]:
    """metadata.labels, a missing or malformed level read as empty (asked 100,000 times a pass: the
    common object's first)."""
    if type(obj) is dict:
        meta = obj.get("metadata")
        if type(meta) is dict:
            labels = meta.get("labels")
            if type(labels) is dict:
                return labels
    return as_dict(as_dict(as_dict(obj).get("metadata")).get("labels"))

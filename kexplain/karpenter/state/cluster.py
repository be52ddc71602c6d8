"""The cluster as Karpenter's state sees it when a provisioning pass starts
(pkg/controllers/state/cluster.go and its informers), built once from the loaded objects."""
from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Iterable, Iterator

import msgspec

from kexplain.karpenter.inputs import DefaultedPodInfo, PassInputs, parse_time
from kexplain.karpenter.state.statenode import INITIALIZED_LABEL, INSTANCE_TYPE_LABEL, NODEPOOL_LABEL, StateNode
from kexplain.apimachinery.identity import as_dict
from kexplain.apimachinery.quantity import Quantity, add
from kexplain.karpenter.utils import resources
from kexplain.karpenter.utils.resources import ResourceList
from kexplain.model.pod import PodInfo, StoredPodInfo
from kexplain.model.shapes import stored_spec_facts_key
from kexplain.karpenter.scheduling.hostportusage import HostPortUsage, get_host_ports
from kexplain.karpenter.scheduling.volumeusage import VolumeUsage, get_volumes, volume_limits
from kexplain.plugins.volumes import VolumeIndex, name_of, namespace_of, volume_class

# The NodeClass kinds the AWS provider supports (GetSupportedNodeClasses): what makes a NodeClaim
# or NodePool managed by this Karpenter.
SUPPORTED_NODE_CLASSES = frozenset({("karpenter.k8s.aws", "EC2NodeClass")})

_STORED = (StoredPodInfo, DefaultedPodInfo)     # a dump's bound pods, read off their views


def is_managed_node_claim(claim: dict[str, Any]) -> bool:
    """nodeclaimutils.IsManaged: its nodeClassRef is a kind of this cloud provider."""
    ref = as_dict(as_dict(claim.get("spec")).get("nodeClassRef"))
    return (ref.get("group") or "", ref.get("kind") or "") in SUPPORTED_NODE_CLASSES


def is_owned_by(pod: PodInfo, api_version: str, kind: str) -> bool:
    """podutils.IsOwnedBy: any owner reference of that apiVersion and kind (not only the controller)."""
    for ref in pod.owner_references or ():
        if isinstance(ref, dict) and ref.get("apiVersion") == api_version and ref.get("kind") == kind:
            return True
    return False


def is_owned_by_daemonset(pod: PodInfo) -> bool:
    """`is_owned_by(pod, "apps/v1", "DaemonSet")` (asked of each pod of each candidate: inline)."""
    for ref in pod.owner_references or ():
        if isinstance(ref, dict) and ref.get("kind") == "DaemonSet" and ref.get("apiVersion") == "apps/v1":
            return True
    return False


def is_owned_by_node(pod: PodInfo) -> bool:
    """A static pod's mirror, as Karpenter tells it: owned by its Node (`is_owned_by(pod, "v1", "Node")`, inline)."""
    for ref in pod.owner_references or ():
        if isinstance(ref, dict) and ref.get("kind") == "Node" and ref.get("apiVersion") == "v1":
            return True
    return False


def _controller_uid(pod: PodInfo) -> str | None:
    for ref in pod.owner_references or ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref.get("uid") or None
    return None


def _owners_of(refs: Any) -> tuple[bool, str | None]:
    """(`is_owned_by_daemonset`, `_controller_uid`) of a pod's owner references as written, in one look."""
    daemonset, controller, _ = _owners(refs)
    return daemonset, controller


def _owners(refs: Any) -> tuple[bool, str | None, bool]:
    """`_owners_of`, and whether a Node or a StatefulSet owns the pod (IsReschedulable's other owners)."""
    daemonset, controller, other = False, None, False
    found = False
    for ref in refs:
        if not isinstance(ref, dict):
            continue
        owner = (ref.get("apiVersion"), ref.get("kind"))
        if owner == ("apps/v1", "DaemonSet"):
            daemonset = True
        elif owner == ("v1", "Node") or owner == ("apps/v1", "StatefulSet"):
            other = True
        if not found and ref.get("controller") is True:
            controller, found = ref.get("uid") or None, True
    return daemonset, controller, other


@dataclass
class Cluster:
    """Karpenter's cluster state at the start of the pass."""

    nodes: list[StateNode]                                     # name order (Go's is a map's)
    node_pool_resources: dict[str, ResourceList]
    daemonset_pods: dict[tuple[str, str], PodInfo]             # (namespace, name) of a DaemonSet -> newest pod
    anti_affinity_pods: list[tuple[PodInfo, dict[str, Any]]]   # bound pods with required anti-affinity, their Node
    pods: list[PodInfo]                                        # every pod, pending ones included, input order
    volume_index: Any                                          # kexplain.plugins.volumes.VolumeIndex
    objects: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    by_provider_id: dict[str, StateNode] = field(default_factory=dict)
    by_node_name: dict[str, StateNode] = field(default_factory=dict)
    # The positions in `bound_pods` (the inputs' list, every bound pod) of those a DaemonSet
    # owns (`is_owned_by_daemonset`), in order.
    daemonset_owned: list[int] = field(default_factory=list)
    bound_pods: list[PodInfo] | None = None
    # The inputs' lists it was read from (objects, Nodes, NodeClaims, bound pods, DaemonSets): a pass
    # over other pending pods or NodePools of the same cluster reads it again from here (`overlay`).
    source: tuple = ()
    bound_controlled: dict[Any, list[PodInfo]] = field(default_factory=dict)    # the bound DaemonSets' pods
    counted: Any = None         # what the topology counts from (`topology.counted_for`), once made
    # what each state node alone decides of a scheduler's existing node (`NodeBases`), once made: every
    # scheduler over these state nodes (a pass's, disruption's simulations, another pass's over the
    # same objects: `_kept_for`) starts its nodes from it (`disruption.helpers.shared_node_bases`)
    node_bases: Any = None

    def active(self) -> list[StateNode]:
        """StateNodes.Active: those not marked for deletion."""
        return [n for n in self.nodes if not n.marked_for_deletion()]

    def node_pool_resources_for(self, name: str) -> ResourceList:
        """NodePoolResourcesFor: the capacity of the NodePool's nodes (a copy)."""
        return dict(self.node_pool_resources.get(name) or {})

    def get_daemonset_pod(self, daemonset: dict[str, Any]) -> PodInfo | None:
        meta = as_dict(daemonset.get("metadata"))
        return self.daemonset_pods.get((meta.get("namespace") or "default", meta.get("name") or ""))

    def for_pods_with_anti_affinity(self) -> Iterator[tuple[PodInfo, dict[str, Any]]]:
        return iter(self.anti_affinity_pods)

    def with_nominated(self, states: Iterable[StateNode]) -> "Cluster":
        """This state with `states` nominated for pending pods (Results.Record's NominatePod), copy-on-write:
        each a copy in a state of its own, so that this one, and the state nodes it shares with other
        passes (`_kept_for`, `overlay`), stay as read."""
        copies: dict[int, StateNode] = {}
        for state in states:
            copy = copies[id(state)] = state.copy()
            copy.nominated = True
        if not copies:
            return self

        def mine(state: StateNode) -> StateNode:
            return copies.get(id(state), state)
        return replace(self, nodes=[mine(s) for s in self.nodes],
                       by_provider_id={k: mine(s) for k, s in self.by_provider_id.items()},
                       by_node_name={k: mine(s) for k, s in self.by_node_name.items()})

    def node_by_name(self, name: str) -> dict[str, Any] | None:
        state = self.by_node_name.get(name)
        return state.node if state is not None else None


def new_cluster(inputs: PassInputs, base: Cluster | None = None) -> Cluster:
    """The state Karpenter's informers build from the stored objects: the volumes' index, the
    state nodes, the bound pods on them, each NodePool's usage, each DaemonSet's newest pod. With
    `base`, a cluster read from the same objects, Nodes, NodeClaims, bound pods and DaemonSets
    (the suggestions' passes run again), that state is `base`'s (`overlay`); without, that of an
    earlier pass that read the same objects (`_kept_for`), overlaid likewise."""
    if base is not None and base.source and _source(inputs) == base.source:
        return overlay(base, inputs)
    kept = _kept_for(inputs)
    if kept is not None:
        return replace(overlay(kept, inputs), source=_source(inputs), objects=dict(inputs.objects),
                       bound_pods=inputs.bound_pods, pods=[*inputs.pending, *inputs.bound_pods])
    objects = inputs.objects
    index = _volume_index(objects)
    warnings: list[str] = []
    by_pid, by_node_name = _state_nodes(inputs, index, warnings)
    # The DaemonSets' pods by the DaemonSet's uid (a controller reference), read in the same look
    # at a bound pod's owners as whether a DaemonSet owns it.
    ds_uids = {as_dict(ds.get("metadata")).get("uid") for ds in inputs.daemonsets}
    bound_controlled: dict[Any, list[PodInfo]] = {}
    anti, daemonset_owned = _bound_pods(inputs.bound_pods, by_node_name, index, ds_uids, bound_controlled)
    usage = _pool_usage(by_pid.values())
    all_pods = [*inputs.pending, *inputs.bound_pods]
    newest = _newest_daemonset_pods(inputs.daemonsets, _controlled(inputs.pending, ds_uids, bound_controlled))
    nodes = sorted(by_pid.values(), key=lambda n: n.name())
    cluster = Cluster(nodes, usage, newest, anti, all_pods, index, dict(objects), warnings,
                      by_pid, by_node_name, daemonset_owned, inputs.bound_pods, _source(inputs), bound_controlled)
    _keep(cluster, inputs)
    return cluster


KEPT_STATES = 2         # the cluster states kept for the next pass over the same objects (`_kept_for`)
# (bounded: KEPT_STATES, the latest last) each state with what it was read from: the Nodes, NodeClaims
# and DaemonSets as defaulted, the volume kinds' objects, the bound pods' objects
_kept: list[tuple[Cluster, tuple]] = []
_VOLUME_KINDS = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode")


def _read_from(inputs: PassInputs) -> tuple:
    """All a cluster state reads but the pending pods (`new_cluster`): compared by value (of a DaemonSet
    its namespace, name and uid: a pass's defaults may stamp another creation time), but the bound
    pods, compared by their objects' identity (150,000 of them; a pass's `PodInfo`s are its own)."""
    daemonsets = [(meta.get("namespace"), meta.get("name"), meta.get("uid"))
                  for meta in (as_dict(ds.get("metadata")) for ds in inputs.daemonsets)]
    return (inputs.nodes, inputs.node_claims, daemonsets,
            [inputs.objects.get(kind) or [] for kind in _VOLUME_KINDS], inputs.bound_pods)


def _keep(cluster: Cluster, inputs: PassInputs) -> None:
    _kept.append((cluster, _read_from(inputs)))
    del _kept[:-KEPT_STATES]


def _kept_for(inputs: PassInputs) -> Cluster | None:
    """The state a pass read from the same objects (`kexplain cluster`'s pending and Karpenter sections,
    a suggestion's pass run again: each reads the cluster's one state again, its own copies of the
    Nodes and NodeClaims, its own `PodInfo`s of the same bound pods), else None. No pass changes a
    state node but disruption's nomination, made on copies (`Cluster.with_nominated`)."""
    read = _read_from(inputs)
    for i, (cluster, was) in enumerate(_kept):
        if _same_reads(was, read):
            _kept.append(_kept.pop(i))
            return cluster
    return None


def _same_reads(was: tuple, now: tuple) -> bool:
    *values, pods = now
    *values_was, pods_was = was
    if len(pods) != len(pods_was) or values != values_was:
        return False
    return all(map(operator.is_, map(_OBJ, pods), map(_OBJ, pods_was)))


_OBJ = operator.attrgetter("obj")


def _source(inputs: PassInputs) -> tuple:
    """What a cluster state reads but the pending pods, as the lists themselves (compared by identity)."""
    return tuple(_Same(x) for x in (inputs.objects, inputs.nodes, inputs.node_claims, inputs.bound_pods,
                                    inputs.daemonsets))


class _Same:
    """An object compared by identity (a list of 150,000 pods is never compared by value)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj

    __hash__ = None     # type: ignore[assignment]


def overlay(base: Cluster, inputs: PassInputs) -> Cluster:
    """`base`'s state for `inputs`' pending pods, copy-on-write: the state nodes, their bound pods'
    usage, the NodePools' usage, the anti-affinity pods and the volumes' index are `base`'s, which no
    provisioning pass changes (its existing nodes copy what they add to: `ExistingNode`); each
    DaemonSet's newest pod is chosen again among the pending pods too, as `new_cluster` does.
    Karpenter's own scheduler is made again over the same cluster state for each pass."""
    ds_uids = {as_dict(ds.get("metadata")).get("uid") for ds in inputs.daemonsets}
    newest = _newest_daemonset_pods(inputs.daemonsets, _controlled(inputs.pending, ds_uids, base.bound_controlled))
    same_pods = len(inputs.pending) + len(inputs.bound_pods) == len(base.pods) and all(
        a is b for a, b in zip(inputs.pending, base.pods))
    counted = base.counted if base.counted is not None and not _counted_pending(base, inputs) else None
    return replace(base, daemonset_pods=newest, pods=base.pods if same_pods else [*inputs.pending, *inputs.bound_pods],
                   objects=dict(base.objects), warnings=list(base.warnings), counted=counted)


def _counted_pending(base: Cluster, inputs: PassInputs) -> bool:
    """Whether a pending pod of `base` or of `inputs` is one the topology counts (bound, not finished,
    not terminating: none, as a rule): then `base`'s count of the cluster's pods is not theirs."""
    pending = base.pods[:len(base.pods) - len(base.bound_pods or ())]
    return any(p.node_name for p in (*pending, *inputs.pending))


def _controlled(pending: list[PodInfo], ds_uids: set[Any], bound: dict[Any, list[PodInfo]]
                ) -> dict[Any, list[PodInfo]]:
    """The DaemonSets' pods by their uid: the pending pods a DaemonSet controls, then the bound ones."""
    controlled: dict[Any, list[PodInfo]] = {}
    for pod in pending:
        uid = _controller_uid(pod)
        if uid in ds_uids:
            controlled.setdefault(uid, []).append(pod)
    for uid, pods in bound.items():
        controlled.setdefault(uid, []).extend(pods)
    return controlled


def _volume_index(objects: dict[str, list[dict[str, Any]]]) -> VolumeIndex:
    """The claims, volumes, classes and CSINodes the volume checks look up."""
    index = VolumeIndex()
    for pvc in objects.get("PersistentVolumeClaim", ()):
        index.pvcs[(namespace_of(pvc), name_of(pvc))] = pvc
    for pv in objects.get("PersistentVolume", ()):
        index.pvs[name_of(pv)] = pv
    for sc in objects.get("StorageClass", ()):
        index.classes[name_of(sc)] = sc
    for cn in objects.get("CSINode", ()):
        index.csinodes[name_of(cn)] = cn
    for pv in index.pvs.values():
        index.pvs_by_class.setdefault(volume_class(pv), []).append(pv)
    return index


def _state_nodes(inputs: PassInputs, index: VolumeIndex, warnings: list[str]
                 ) -> tuple[dict[str, StateNode], dict[str, StateNode]]:
    """The state nodes by providerID (a managed NodeClaim without one is warned of and left out) and
    by Node name, with empty usage and their CSINode's volume limits."""
    by_pid: dict[str, StateNode] = {}
    for claim in inputs.node_claims:
        if not is_managed_node_claim(claim):
            continue
        pid = as_dict(claim.get("status")).get("providerID") or ""
        if not pid:
            name = as_dict(claim.get("metadata")).get("name")
            warnings.append(f"NodeClaim {name} has no status.providerID: it has not launched, and Karpenter waits "
                            "for it before provisioning (it is left out here)")
            continue
        by_pid[pid] = StateNode(None, claim)
    node_name_to_pid: dict[str, str] = {}
    for node in inputs.nodes:
        meta = as_dict(node.get("metadata"))
        labels = as_dict(meta.get("labels"))
        managed = bool(labels.get(NODEPOOL_LABEL))
        initialized = bool(labels.get(INITIALIZED_LABEL))
        pid = as_dict(node.get("spec")).get("providerID") or ""
        if not pid:
            if managed:
                continue
            pid = meta.get("name") or ""
        if managed and not labels.get(INSTANCE_TYPE_LABEL) and not initialized:
            continue
        state = by_pid.get(pid)
        if state is None:
            by_pid[pid] = StateNode(node, None)
        else:
            state.node = node
        node_name_to_pid[meta.get("name") or ""] = pid
    by_node_name = {name: by_pid[pid] for name, pid in node_name_to_pid.items()}
    for state in by_pid.values():
        state.reschedulable_pods = 0        # (counted of its bound pods: `_bound_pods`)
        state.host_port_usage = HostPortUsage()
        state.volume_usage = VolumeUsage()
        if state.node is not None:
            for driver, limit in volume_limits(index.csinode(name_of(state.node))).items():
                state.volume_usage.add_limit(driver, limit)
    return by_pid, by_node_name


def _bound_pods(bound_pods: list[PodInfo], by_node_name: dict[str, StateNode], index: VolumeIndex,
                ds_uids: set[Any], controlled: dict[str, list[PodInfo]]
                ) -> tuple[list[tuple[PodInfo, dict[str, Any]]], list[int]]:
    """The bound pods on their state nodes (terminal ones left out): the pods with
    required anti-affinity, the DaemonSets' pods' positions. One loop over 150,000 pods: a dump's
    pod is read off its view (no per-pod `lazy` attribute, which gives each pod a dict), what its
    owner references decide is worked out once per text of them (`_ViewReads`), and what a shape
    decides (requests, host ports, required anti-affinity) once per shape."""
    anti: list[tuple[PodInfo, dict[str, Any]]] = []
    daemonset_owned: list[int] = []
    reads = _ViewReads()
    unowned_controlled = None in ds_uids      # (a pod without a controller has uid None)
    # GetVolumes finds a pod's volumes through their claims: with none in the cluster every pod's
    # volumes are none (each claim it names is not found, and skipped), so no pod's are read
    claims = bool(index.pvcs)
    for position, pod in enumerate(bound_pods):
        view = pod.view if type(pod) in _STORED else None
        if view is not None:
            meta = view.metadata
            daemonset, uid, owned, owned_as = reads.owners(meta.ownerReferences, view)
        else:
            refs = pod.owner_references
            daemonset, uid, owned = _owners(refs) if refs else (False, None, False)
            owned_as = _owned_as(refs) if owned else (False, False)
        if uid in ds_uids if uid is not None else unowned_controlled:
            controlled.setdefault(uid, []).append(pod)
        if daemonset:
            daemonset_owned.append(position)
        state = by_node_name.get(pod.node_name)
        if state is None:
            continue
        if view is not None:            # (StoredPodInfo.phase and has_volumes, read off the view here)
            status = view.status
            phase = status.phase if status is not None else None
            has_volumes = claims and bool(view.spec.volumes)
            terminating = meta.deletionTimestamp
        else:
            spec = pod.spec
            phase, has_volumes = pod.status.get("phase"), claims and "volumes" in spec
            terminating = pod.deletion_timestamp
        if not owned and not daemonset:         # IsReschedulable, as `pods.reschedulable_of` reads it
            if not terminating:
                state.reschedulable_pods = (state.reschedulable_pods or 0) + (phase != "Failed" and phase != "Succeeded")
        elif not daemonset and _reschedulable_owned(owned_as, terminating, phase):
            state.reschedulable_pods = (state.reschedulable_pods or 0) + 1
        if phase == "Failed" or phase == "Succeeded":           # is_terminal
            continue
        reqs, ports, anti_affinity = reads.shaped(pod, view)
        state.pod_requests.append(reqs)
        if daemonset:
            state.daemonset_requests[(pod.namespace, pod.name)] = reqs
        if ports:                      # (a pod without any adds nothing: skipped for 150,000 pods)
            state.host_port_usage.add(pod, ports)
        if has_volumes:
            volumes, _ = get_volumes(index, pod)
            if volumes:
                state.volume_usage.add(pod, volumes)
        if anti_affinity and state.node is not None:
            anti.append((pod, state.node))
    return anti, daemonset_owned


_SPEC_TEXTS = operator.attrgetter("affinity", "resources", "overhead", "initContainers", "containers")
_JOINED = b"\0".join


class _ViewReads:
    """What `_bound_pods` works out once and shares among the pods that write it alike: of a text of
    owner references, `_owners` and `_owned_as`; of a shape, `_shaped`. A dump's pod is keyed by its
    view's texts as written (the spec's NUL-joined: JSON holds no NUL byte), each such text then by
    `stored_spec_facts_key` (cut to what the facts read), a decoded pod's by `_read_parts`."""

    __slots__ = ("of_owners", "of_written", "of_shape", "of_text")

    def __init__(self) -> None:
        self.of_owners: dict[bytes, tuple[bool, str | None, bool, tuple[bool, bool]]] = {}
        self.of_written: dict[bytes, tuple[Any, list[Any], bool]] = {}     # a view's spec texts as written
        self.of_shape: dict[Any, tuple[Any, list[Any], bool]] = {}         # by `_read_parts`, or cut texts
        self.of_text: dict[bytes, tuple[Any, list[Any], bool]] = {}        # (`_shaped`)

    def owners(self, raw: Any, view: Any) -> tuple[bool, str | None, bool, tuple[bool, bool]]:
        """`_owners` and `_owned_as` of a view's owner references (`raw`, their text as written)."""
        text = bytes(raw)
        found = self.of_owners.get(text)
        if found is None:
            refs = view.owner_references()
            found = self.of_owners[text] = (*(_owners(refs) if refs else (False, None, False)), _owned_as(refs))
        return found

    def shaped(self, pod: PodInfo, view: Any) -> tuple[Any, list[Any], bool]:
        """`_shaped` of the pod, once per shape."""
        written = None
        if view is not None:
            written = _JOINED(_SPEC_TEXTS(view.spec))
            found = self.of_written.get(written)
            if found is not None:
                return found
            shape: Any = stored_spec_facts_key(view.spec)       # (a view's: its spec's texts)
        else:
            shape = _read_parts(pod.spec)
        found = self.of_shape.get(shape)
        if found is None:
            found = self.of_shape[shape] = _shaped(pod, view, self.of_text)
        if written is not None:
            self.of_written[written] = found
        return found


def _owned_as(refs: Any) -> tuple[bool, bool]:
    """Whether a Node or a StatefulSet owns the pod of owner references `refs` (IsReschedulable's owners)."""
    mirror = stateful = False
    for ref in refs or ():
        if isinstance(ref, dict):
            owner = (ref.get("apiVersion"), ref.get("kind"))
            mirror = mirror or owner == ("v1", "Node")
            stateful = stateful or owner == ("apps/v1", "StatefulSet")
    return mirror, stateful


def _reschedulable_owned(owned_as: tuple[bool, bool], terminating: Any, phase: Any) -> bool:
    """IsReschedulable of a pod a Node or a StatefulSet owns (not a DaemonSet; `owned_as`: `_owned_as`
    of its owner references): not a mirror pod, and active or a terminating StatefulSet pod."""
    mirror, stateful = owned_as
    return not mirror and bool(terminating and stateful or not terminating and phase not in ("Failed", "Succeeded"))


def _read_parts(spec: dict[str, Any]) -> tuple[int, ...]:
    """A decoded pod's shape as `_bound_pods` reads it: the identities of the spec's values it reads
    (requests, host ports, anti-affinity). The pods of a dump decoded and admitted alike share their
    lists and mappings (`stored_pods`, `admission.patched`), which live as long as the pods: equal
    keys read the same values."""
    get = spec.get
    return (id(get("containers")), id(get("initContainers")), id(get("overhead")), id(get("resources")),
            id(get("affinity")))


_encode = msgspec.msgpack.Encoder().encode


def _shaped(pod: PodInfo, view: Any, of_text: dict[bytes, Any]) -> tuple[Any, list[Any], bool]:
    """What a shape decides of its pods: requests, host ports, required anti-affinity. A decoded pod's
    shape of other identities may still be written alike (admitted one by one, each with its own
    lists): then by the text of what `_read_parts` names (MessagePack: a type of its own for each)."""
    spec = pod.spec
    text = None
    if view is None:
        get = spec.get
        try:
            text = _encode((get("containers"), get("initContainers"), get("overhead"), get("resources"),
                            get("affinity")))
        except (TypeError, OverflowError, ValueError):      # (what it cannot write: worked out for the pod)
            text = None
        found = of_text.get(text) if text is not None else None
        if found is not None:
            return found
    shaped = (resources.requests_for_pod(spec), get_host_ports(pod),
              pod.facts.has_required_anti_affinity if view is not None else _has_required_anti_affinity(spec))
    if text is not None:
        of_text[text] = shaped
    return shaped


def _has_required_anti_affinity(spec: dict[str, Any]) -> bool:
    """`PodFacts.has_required_anti_affinity` of a decoded pod's spec (no `PodFacts` made per pod)."""
    affinity = spec.get("affinity") or {}
    anti = affinity.get("podAntiAffinity") or {}
    return bool(anti.get("requiredDuringSchedulingIgnoredDuringExecution"))


def _pool_usage(states: Iterable[StateNode]) -> dict[str, ResourceList]:
    """Per NodePool, the capacity of its nodes not marked for deletion (`resources.merge` of them, in order)."""
    capacities: dict[str, list[ResourceList]] = {}
    for state in states:
        if state.marked_for_deletion():
            continue
        pool = state.labels().get(NODEPOOL_LABEL)
        if pool:
            capacities.setdefault(pool, []).append(state.capacity())
    return {pool: _merged(lists) for pool, lists in capacities.items()}


def _merged(lists: list[ResourceList]) -> ResourceList:
    """`resources.merge(*lists)`, its values summed as integers per denominator (no `Fraction` added per
    node: 2,000 nodes' capacities)."""
    values: dict[str, list[Quantity]] = {}
    for rl in lists:
        for name, q in rl.items():
            found = values.get(name)
            if found is None:
                values[name] = [q]
            else:
                found.append(q)
    return {name: _sum(quantities) for name, quantities in values.items()}


def _sum(quantities: list[Quantity]) -> Quantity:
    """`quantity.add` folded over `quantities` from zero: the format is the first nonzero one's (each sum
    before it zero), else the last one's; a negative one (a sum that may go back to zero) folds as it."""
    numerators: dict[int, int] = {}
    fmt = None
    for q in quantities:
        value = q.value
        numerator = value.numerator
        if numerator < 0:
            return functools.reduce(add, quantities, resources.ZERO)
        if fmt is None and numerator:
            fmt = q.fmt
        denominator = value.denominator
        numerators[denominator] = numerators.get(denominator, 0) + numerator
    total = sum(Fraction(n, d) for d, n in numerators.items())
    return Quantity(Fraction(total), quantities[-1].fmt if fmt is None else fmt)


def _newest_daemonset_pods(daemonsets: list[dict[str, Any]], controlled: dict[str, list[PodInfo]]
                           ) -> dict[tuple[str, str], PodInfo]:
    """Per DaemonSet (namespace, name), its newest pod in its namespace (the first by name
    among equally new ones)."""
    newest: dict[tuple[str, str], PodInfo] = {}
    for ds in daemonsets:
        meta = as_dict(ds.get("metadata"))
        namespace = meta.get("namespace") or "default"
        best, best_time = None, None
        for pod in sorted(controlled.get(meta.get("uid"), ()), key=lambda p: p.name):
            if pod.namespace != namespace:
                continue
            created = parse_time(pod.creation_timestamp)
            if best is None or (created is not None and best_time is not None and created > best_time):
                best, best_time = pod, created
        if best is not None:
            newest[(namespace, meta.get("name") or "")] = best
    return newest

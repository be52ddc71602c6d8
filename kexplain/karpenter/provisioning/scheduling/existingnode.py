"""A node that is already there, or a NodeClaim in flight, as the scheduler fills it
(provisioning/scheduling/existingnode.go)."""
from __future__ import annotations

from typing import Any, Callable

from kexplain.apimachinery.labels import LABEL_HOSTNAME as HOSTNAME_LABEL
from kexplain.apimachinery.selectors import IN
from kexplain.karpenter.errors import GoError, WrappedError
from kexplain.karpenter.provisioning.scheduling.nodeclaim import REFUSED_AT_VERSION, REFUSED_FOR_GOOD, REFUSED_NOW
from kexplain.karpenter.provisioning.scheduling.topology import TopologyError
from kexplain.karpenter.scheduling.requirement import new_requirement
from kexplain.karpenter.scheduling.requirements import Requirements, new_label_requirements
from kexplain.karpenter.scheduling.taints import Taints
from kexplain.karpenter.state.statenode import StateNode
from kexplain.karpenter.utils import resources
from kexplain.karpenter.utils.resources import ResourceList
from kexplain.karpenter.scheduling.hostportusage import get_host_ports, pod_key

EXCEEDS_NODE_RESOURCES = "exceeds node resources"
# A refusal on requirements whose words nobody reads (`ExistingNode.can_add(why=False)`)
INCOMPATIBLE = GoError("incompatible requirements")


def changed_by(requirements: Requirements, other: Requirements) -> Requirements:
    """The requirements of `other` that `requirements.compatible(other)` and `requirements.add(*other.values())`
    can tell from `requirements` itself: all but those it holds already (the same object) without bounds, which
    are compatible with themselves and their own intersection (`Requirement.intersection`). AddRequirements
    hands back the node's requirements with only the topologies' keys narrowed: for most pods, none."""
    get = dict.get
    return Requirements({key: r for key, r in other.items()
                         if get(requirements, key) is not r or r.gte is not None or r.lte is not None})


class NodeBase:
    """What an ExistingNode starts from that its state node alone decides: taints, labels, the
    room its bound pods leave, its DaemonSet pods' requests, its label requirements. A pass that
    schedules again and again over unchanged state nodes (disruption's simulations) makes it once per
    node (`NodeBases`)."""

    __slots__ = ("taints", "labels", "host_name", "available", "daemonset_nanos", "initialized",
                 "order", "_capacity", "_state", "_daemons", "_rooms", "_requirements", "_refusing")

    _REFUSING_MAX = 256     # pod requirements remembered per node (a pass has a few dozen)

    def __init__(self, state: StateNode) -> None:
        self.taints = state.taints()
        self.labels = state.labels()
        self.host_name = state.host_name()
        self.available = state.available_nanos()
        self.daemonset_nanos = state.daemonset_requests_nanos()
        self._requirements: Requirements | None = None
        self.initialized = state.initialized()
        self.order = (not self.initialized, state.name())      # the scheduler's: initialized first, by name
        self._capacity: resources.Nanos | None = None
        self._state = state
        self._daemons: dict[Any, tuple[int, ...]] = {}
        self._rooms: dict[tuple[tuple[str, int], ...], resources.Nanos] = {}
        self._refusing: dict[Any, bool] = {}

    def refuses(self, key: Any) -> bool | None:
        """Whether its own requirements (`requirements`: those of a node no pod was added to yet) are
        incompatible with pod requirements of `key` (their content), when asked already (else None)."""
        return self._refusing.get(key)

    def refused(self, key: Any, incompatible: bool) -> None:
        """`refuses`' answer for `key`, found by a scheduler: every later one over this base reads it."""
        if len(self._refusing) < self._REFUSING_MAX:
            self._refusing[key] = incompatible

    @property
    def requirements(self) -> Requirements:
        """Its labels' requirements and its hostname's, made when a pod first gets as far as them
        (most nodes of a simulation are passed over on room alone). Shared: not to be changed."""
        if self._requirements is None:
            self._requirements = new_label_requirements(self.labels)
            self._requirements.add(new_requirement(HOSTNAME_LABEL, IN, self.host_name))
        return self._requirements

    def capacity_nanos(self) -> resources.Nanos:
        if self._capacity is None:
            self._capacity = resources.to_nanos(self._state.capacity())
        return self._capacity

    def daemons_on(self, key: Any, find: Callable[[], tuple[int, ...]]) -> tuple[int, ...]:
        """The positions of the DaemonSet pods that land on this node: `find()`'s answer, kept by
        `key`, which must name all the pods' compatibility reads (their tolerations, node selector
        and affinity, in order)."""
        found = self._daemons.get(key)
        if found is None:
            found = self._daemons[key] = find()
        return found

    def room(self, overhead: resources.Nanos) -> resources.Nanos:
        """The room its bound pods leave less the DaemonSet pods' `overhead` it does not run yet
        (kept per overhead: every simulation of a pass asks it again). Shared: not to be changed."""
        key = tuple(overhead.items())
        found = self._rooms.get(key)
        if found is None:
            daemons = dict(overhead)
            for name, v in self.daemonset_nanos.items():
                daemons[name] = daemons.get(name, 0) - v
            found = self._rooms[key] = {name: v - max(daemons.get(name, 0), 0) for name, v in self.available.items()}
        return found


class NodeBases:
    """A NodeBase per state node, for as long as the state nodes do not change (one disruption
    pass: each simulation's scheduler starts its existing nodes from them), and each node's start
    (`node_start`) per set of DaemonSet pods: the simulations' schedulers make equal copies of the
    same DaemonSets' pods, so every one after the first copies its nodes' starts."""

    _STARTS_MAX = 16        # (sets of DaemonSet pods: a pass's schedulers have one or two)

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[StateNode, NodeBase]] = {}
        self._starts: dict[Any, dict[int, tuple[StateNode, dict[str, Any], Any]]] = {}

    def of(self, state: StateNode) -> NodeBase:
        hit = self._by_id.get(id(state))
        if hit is None or hit[0] is not state:
            hit = self._by_id[id(state)] = (state, NodeBase(state))
        return hit[1]

    def starts(self, daemons_key: Any) -> dict[int, tuple[StateNode, dict[str, Any], Any]]:
        """The starts made for the DaemonSet pods `daemons_key` names (all that their compatibility
        and their requests read), by state node id (the state node kept beside its start, and the
        NodePool it counts in)."""
        found = self._starts.get(daemons_key)
        if found is None:
            found = {}
            if len(self._starts) < self._STARTS_MAX:
                self._starts[daemons_key] = found
        return found


def node_start(state: StateNode, taints: list[dict[str, Any]], daemon_resources: ResourceList,
               base: NodeBase) -> dict[str, Any]:
    """What an `ExistingNode` of `state` holds before its scheduler adds a pod (its attributes but its
    pods and topology): none of it is changed in place (the room and usages are copied at the first
    pod added, the requirements replaced), so the schedulers of a pass share one (`ExistingNode.started`)."""
    return {"state": state, "base": base, "taints": taints, "_taints": Taints(taints),
            "version": 0,       # pods added: what a cached refusal on requirements was made at
            "refusal": 0,
            # integers (billionths): the room is compared for every pod tried here, never printed; the base's,
            # shared until the first pod is added here (most nodes of a simulation take none)
            "remaining_resources": base.room(resources.nanos_of(daemon_resources)), "_own_room": False,
            # the base's too (until Add replaces them: CanAdd works on a copy, nothing changes them)
            "_requirements": None,
            # the state node's host ports and volumes, copied when this scheduler first adds to them: upstream
            # schedules over deep copies of the state nodes (Cluster.DeepCopyNodes), so one simulation's pods
            # are never in the next one's, nor in the cluster state
            "host_port_usage": state.host_port_usage, "volume_usage": state.volume_usage}


class TopologyRefusals:
    """The topology's refusals of one pod in one scan of the existing nodes, each by the key of the
    topology group that left no domain and the refused node's requirement on that key.

    AddRequirements asks each group the domains the pod may go to given the node's requirement on the
    group's key (with the pod's, which the scan does not change), and nothing else of the node; the
    groups' counts change only when a pod is added, which ends the scan. So a node whose requirement on
    that key is the same as a refused node's is refused as well: the scan's verdicts, in the same order,
    without building each node's requirements with the pod's again (thousands of nodes of a few zones,
    a pod whose required pod affinity no pod of its zone meets yet)."""

    __slots__ = ("_refusals",)

    def __init__(self) -> None:
        self._refusals: list[tuple[str, tuple | None, BaseException]] = []

    def refusal(self, requirements: Requirements) -> BaseException | None:
        """The refusal a node of these requirements gets, when it is one already made (else None)."""
        for key, content, err in self._refusals:
            if _content(dict.get(requirements, key)) == content:
                return err
        return None

    def refused(self, requirements: Requirements, err: BaseException | None) -> None:
        """A node of these requirements was refused with `err`: kept when the topology refused it."""
        group = getattr(err, "topology", None) if isinstance(err, TopologyError) else None
        if group is not None:
            self._refusals.append((group.key, _content(dict.get(requirements, group.key)), err))


def _content(r: Any) -> tuple | None:
    """All a requirement holds (None: the node has none on that key)."""
    return None if r is None else (r.complement, frozenset(r.value_set), r.gte, r.lte, r.min_values)


class ExistingNode:
    """A state node with the pods this pass adds to it."""

    # (set from `node_start`)
    state: StateNode
    base: NodeBase
    taints: list[dict[str, Any]]
    _taints: Taints
    version: int
    refusal: int
    remaining_resources: resources.Nanos
    _own_room: bool
    _requirements: Requirements | None
    host_port_usage: Any
    volume_usage: Any

    def __init__(self, state: StateNode, topology: Any, taints: list[dict[str, Any]],
                 daemon_resources: ResourceList, base: NodeBase | None = None) -> None:
        """`base`: what `state` alone decides, made already (`NodeBases`)."""
        base = base if base is not None else NodeBase(state)
        self.__dict__.update(node_start(state, taints, daemon_resources, base))
        self.pods: list[Any] = []
        self.topology = topology
        topology.register(HOSTNAME_LABEL, base.host_name)

    @classmethod
    def started(cls, start: dict[str, Any], topology: Any) -> ExistingNode:
        """A node of `start` (`node_start`) in a scheduler with `topology`, its hostname not registered
        there yet (the scheduler registers its nodes' together: `Topology.register_all`)."""
        node = cls.__new__(cls)
        node.__dict__.update(start)
        node.pods = []
        node.topology = topology
        return node

    @property
    def requirements(self) -> Requirements:
        return self._requirements if self._requirements is not None else self.base.requirements

    @requirements.setter
    def requirements(self, value: Requirements) -> None:
        self._requirements = value

    def name(self) -> str:
        return self.state.name()

    def initialized(self) -> bool:
        return self.base.initialized

    def managed(self) -> bool:
        return self.state.managed()

    def can_add(self, pod: Any, pod_data: Any, volumes: Any, topology_refusals: TopologyRefusals | None = None,
                why: bool = True) -> tuple[Requirements | None, BaseException | None]:
        """CanAdd: (the node's requirements with the pod's, error); a refusal sets `refusal` (for good,
        at this version, or now). `topology_refusals`: the scheduler's scan of the existing nodes for this
        pod, while the topology does not change (`TopologyRefusals`); without `why`, a refusal on
        requirements is `INCOMPATIBLE` (the scan reads only that there is one, not its words)."""
        self.refusal = REFUSED_FOR_GOOD
        err = self._taints.tolerates_pod(pod) if self._taints else None
        if err is not None:
            return None, err
        host_ports = get_host_ports(pod)
        # (a node without volume limits never exceeds them, and no port conflicts: asked of 5,000 nodes)
        err = self.volume_usage.exceeds_limits(volumes) if self.volume_usage.limits else None
        if err is not None:
            return None, WrappedError("checking volume usage", err)
        err = self.host_port_usage.conflicts(pod, host_ports) if host_ports else None
        if err is not None:
            return None, WrappedError("checking host port usage", err)
        if not resources.fits_nanos(resources.nanos_of(pod_data.requests), self.remaining_resources):
            return None, GoError(EXCEEDS_NODE_RESOURCES)
        self.refusal = REFUSED_AT_VERSION
        if not self.requirements.is_compatible(pod_data.requirements):      # (the error built only then)
            return None, self.requirements.compatible(pod_data.requirements) if why else INCOMPATIBLE
        self.refusal = REFUSED_NOW
        if topology_refusals is not None and not pod_data.volume_requirements:
            err = topology_refusals.refusal(self.requirements)
            if err is not None:
                return None, err
        base = Requirements(self.requirements)          # NewRequirements(values...): the same requirements
        base.add(*pod_data.requirements.values())
        last: BaseException | None = None
        alternatives = pod_data.volume_requirements or [None]
        for volume_reqs in alternatives:
            reqs, err = self._try_volume_alternative(pod, pod_data, base, volume_reqs, len(alternatives) > 1)
            if err is not None:
                last = err
                continue
            return reqs, None
        if topology_refusals is not None and not pod_data.volume_requirements:
            topology_refusals.refused(self.requirements, last)
        return None, last

    def _try_volume_alternative(self, pod: Any, pod_data: Any, base: Requirements, volume_reqs: Requirements | None,
                                copy: bool = True) -> tuple[Requirements | None, BaseException | None]:
        """One volume alternative on `base` (changed unless `copy`: another alternative needs it)."""
        requirements = Requirements(base) if copy else base
        if volume_reqs is not None:
            err = requirements.compatible(volume_reqs)
            if err is not None:
                return None, WrappedError("incompatible volume requirements", err)
            requirements.add(*volume_reqs.values())
        topology_reqs, err = self.topology.add_requirements(pod, self.taints, pod_data.strict_requirements,
                                                            requirements)
        if err is not None:
            return None, err
        changes = changed_by(requirements, topology_reqs)
        if changes:
            err = requirements.compatible(changes)
            if err is not None:
                return None, err
            requirements.add(*changes.values())
        return requirements, None

    def add(self, pod: Any, pod_data: Any, requirements: Requirements, volumes: Any) -> None:
        self.pods.append(pod)
        self.version += 1
        if not self._own_room:
            self.remaining_resources, self._own_room = dict(self.remaining_resources), True
        remaining = self.remaining_resources
        for name, v in resources.nanos_of(pod_data.requests).items():
            remaining[name] = remaining.get(name, 0) - v
        self.requirements = requirements
        self.topology.record(pod, self.taints, requirements)
        self._add_usage(pod, volumes)

    def _add_usage(self, pod: Any, volumes: Any) -> None:
        """HostPortUsage().Add and VolumeUsage().Add on this node's own copies, made at the first
        write that changes something (a pod without host ports or volumes changes neither)."""
        ports = get_host_ports(pod)
        if ports or pod_key(pod) in self.host_port_usage.reserved:
            if self.host_port_usage is self.state.host_port_usage:
                self.host_port_usage = self.host_port_usage.deep_copy()
            self.host_port_usage.add(pod, ports)
        if volumes:
            if self.volume_usage is self.state.volume_usage:
                self.volume_usage = self.volume_usage.deep_copy()
            self.volume_usage.add(pod, volumes)

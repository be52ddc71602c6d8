"""Karpenter's scheduler for one pass (provisioning/scheduling/scheduler.go)."""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Mapping, Sequence

from kexplain.apimachinery.gosort import go_sort
from kexplain.apimachinery.labels import LABEL_HOSTNAME as HOSTNAME_LABEL
from kexplain.karpenter.errors import GoError, combine
from kexplain.karpenter.provisioning.scheduling import preferences as prefs
from kexplain.karpenter.provisioning.scheduling.events import Event, no_compatible_instance_types
from kexplain.karpenter.provisioning.scheduling.existingnode import (
    ExistingNode, NodeBase, NodeBases, TopologyRefusals, node_start,
)
from kexplain.karpenter.provisioning.scheduling.nodeclaim import (
    REFUSED_AT_VERSION, REFUSED_FOR_GOOD, InstanceTypeFilterError, NodeClaim, SchedulingContext,
    filter_instance_types_by_requirements, is_reserved_offering_error,
)
from kexplain.karpenter.provisioning.scheduling.nodeclaimtemplate import NodeClaimTemplate, new_node_claim_template
from kexplain.karpenter.provisioning.scheduling.queue import Queue
from kexplain.karpenter.provisioning.scheduling.reservationmanager import ReservationManager
from kexplain.karpenter.provisioning.scheduling.roomblocks import SHIFT, RoomBlocks
from kexplain.karpenter.provisioning.scheduling.topology import TopologyError
from kexplain.karpenter.provisioning.scheduling.typeindex import TypeIndex
from kexplain.karpenter.scheduling.requirements import (ALLOW_UNDEFINED_WELL_KNOWN_LABELS, Requirements,
                                                        has_preferred_node_affinity, new_label_requirements,
                                                        new_pod_requirements, new_strict_pod_requirements)
from kexplain.karpenter.scheduling.taints import Taints
from kexplain.karpenter.state.statenode import NODEPOOL_LABEL, StateNode
from kexplain.karpenter.utils.objects import name_of, template_spec
from kexplain.karpenter.utils import resources
from kexplain.karpenter.utils.resources import ResourceList
from kexplain.model.pod import PodInfo
from kexplain.model.shapes import node_fit_key, requests_key
from kexplain.karpenter.inputs import parse_time
from kexplain.karpenter.scheduling.hostportusage import HostPortUsage, get_host_ports
from kexplain.karpenter.scheduling.volumeusage import get_volumes

NODEPOOLS_FILTERED_OUT = "nodepool requirements filtered out all available instance types"
DRA_NOT_SUPPORTED = "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter"
NODE_LIMITS_EXHAUSTED = "node limits have been exhausted for nodepool"
EXCEED_LIMITS = "all available instance types exceed limits for nodepool"
MIN_VALUES_NOT_MET = "pod didn\u2019t schedule because NodePool couldn\u2019t meet minValues requirements"


def _ORDER(node: ExistingNode) -> tuple[bool, str]:
    return node.base.order


class _ShapeScan:
    """One pod shape's view of the existing nodes: those to try (in order), and those that
    refused it on requirements or topology, parked with their version until a pod is added to them
    (`seen`: how much of the scheduler's log of such additions it has read) or, for topology, until
    the refusing group's counts change (`by_group`); nodes that refused it for good are in neither."""

    __slots__ = ("alive", "parked", "seen", "by_group")

    def __init__(self, count: int, seen: int) -> None:
        self.alive = list(range(count))
        self.parked: dict[int, int] = {}
        self.seen = seen
        self.by_group: dict[int, tuple[Any, int, list[int]]] = {}   # id(group) -> (group, its changes, nodes)

    def unpark(self, added: list[int], nodes: Sequence[ExistingNode]) -> None:
        """The parked nodes a pod was added to since the last look back among those to try, in
        their place (a refusal on requirements holds only at the version it was made), and so are
        the nodes a topology group refused whose counts changed since."""
        back = {i for i in added[self.seen:] if i in self.parked and self.parked[i] != nodes[i].version}
        self.seen = len(added)
        if self.by_group:
            for key, (group, changes, parked) in list(self.by_group.items()):
                if group.changes != changes:
                    del self.by_group[key]
                    back.update(i for i in parked if i in self.parked)
        if back:
            for i in back:
                del self.parked[i]
            self.alive = sorted([*self.alive, *back])

    def park_refused(self, i: int, version: int, err: BaseException) -> bool:
        """Park node `i` (at `version`) if a topology group refused the pod there (`err`): it refuses
        the shape again until the node or the group changes (the group's answer reads its counts,
        the pod's shape and the node's requirements alone). Whether it was parked."""
        group = getattr(err, "topology", None) if isinstance(err, TopologyError) else None
        if group is None:
            return False
        self.parked[i] = version
        kept = self.by_group.get(id(group))
        if kept is None or kept[1] != group.changes:
            kept = self.by_group[id(group)] = (group, group.changes, [])
        kept[2].append(i)
        return True


class DRAError(GoError):
    """A pod with resource claims, which this Karpenter does not schedule (IgnoreDRARequests)."""


class NodePoolError(GoError):
    """serrors.Wrap(err, "NodePool", name): `TEXT (NodePool=NAME)`."""

    def __init__(self, text: str, node_pool: str, cause: BaseException | None = None) -> None:
        super().__init__(text, cause)
        self.node_pool = node_pool

    def __str__(self) -> str:
        inner = f"{self.message}, {self.cause}" if self.cause is not None else self.message
        return f"{inner} (NodePool={self.node_pool})"


def is_dra_error(err: BaseException | None) -> bool:
    return isinstance(err, DRAError)


def has_dra_requirements(pod: PodInfo) -> bool:
    for key in ("initContainers", "containers"):
        for c in pod.spec.get(key) or ():
            if isinstance(c, dict) and (c.get("resources") or {}).get("claims"):
                return True
    return False


@dataclass
class PodData:
    """What the scheduler reads of a pod, worked out once per (relaxed) pod."""

    requests: ResourceList
    requirements: Requirements
    strict_requirements: Requirements
    has_resource_claim_requests: bool
    volume_requirements: list[Requirements] | None


class Placeholders:
    """The hostnames NewNodeClaim gives new NodeClaims. Go counts them in one package-level
    variable (nodeID), so a process numbers on across its schedulers: a pass that schedules several
    times (disruption's simulations) shares one, a lone Solve starts at 1."""

    def __init__(self) -> None:
        self.count = 0

    def next(self) -> str:
        self.count += 1
        return f"hostname-placeholder-{self.count:04d}"


@dataclass
class Results:
    """What Solve decided: the new NodeClaims, the existing nodes (with the pods added), and the
    error of each pod that was not placed (keyed by the pod's uid)."""

    new_node_claims: list[NodeClaim]
    existing_nodes: list[ExistingNode]
    pod_errors: dict[str, BaseException]
    pods_by_uid: dict[str, PodInfo] = field(default_factory=dict)


@dataclass(frozen=True)
class Options:
    """The scheduler's options (scheduler.Options) as Provisioner.Schedule sets them."""

    strict_reserved_offerings: bool = True      # DisableReservedCapacityFallback
    ignore_preferences: bool = False            # --preference-policy=Ignore
    min_values_best_effort: bool = False        # --min-values-policy=BestEffort
    reserved_capacity: bool = True              # the ReservedCapacity feature gate
    ignore_dra_requests: bool = True            # --ignore-dra-requests
    reservation_id_label: str = "karpenter.k8s.aws/capacity-reservation-id"


class Scheduler:
    """One pass's scheduler: templates, existing nodes, the NodeClaims it makes."""

    def __init__(self, node_pools: Sequence[Mapping[str, Any]], state_nodes: Sequence[StateNode], topology: Any,
                 instance_types: Mapping[str, list[Any]], daemonset_pods: Sequence[PodInfo],
                 volume_reqs_by_pod: Mapping[str, list[Requirements]], options: Options,
                 satisfies_min_values: Callable[[list[Any], Requirements], tuple[int, dict[str, int], Any]],
                 limits_of: Callable[[Mapping[str, Any]], ResourceList | None], volume_index: Any,
                 type_index: TypeIndex | None = None, node_bases: NodeBases | None = None,
                 placeholders: Placeholders | None = None) -> None:
        """`type_index`: an index of these instance types to keep growing (passes over the same
        types share one: its answers depend on the types and requirements alone); `node_bases`: what
        each state node alone decides, kept by a caller that schedules again over the same state nodes;
        `placeholders`: the pass's hostname counter, when it schedules more than once."""
        self.options = options
        self.events: list[Event] = []
        self.topology = topology
        self.volume_reqs_by_pod = volume_reqs_by_pod
        self.volume_index = volume_index
        self.cached_pod_data: dict[str, PodData] = {}
        self.new_node_claims: list[NodeClaim] = []
        self.placeholders = placeholders if placeholders is not None else Placeholders()
        tolerate = any(t.get("effect") == "PreferNoSchedule"
                       for np in node_pools for t in template_spec(np).get("taints") or () if isinstance(t, dict))
        self.preferences = prefs.Preferences(tolerate)
        self.satisfies_min_values = satisfies_min_values
        self.type_index = type_index if type_index is not None else TypeIndex()
        self.templates = self._templates(node_pools, instance_types)
        # The DaemonSets' pods are the scheduler's own copies, which the compatibility checks
        # change as Go's do (isDaemonPodCompatible adds the PreferNoSchedule toleration and drops
        # required node affinity terms it tried, for good): overhead first, host ports next, then
        # the existing nodes see the changed pods.
        daemons = [PodInfo(prefs.relaxable_copy(p.obj)) for p in daemonset_pods
                   if not (has_dra_requirements(p) and options.ignore_dra_requests)]
        self.daemon_overhead, self.daemon_host_ports = self._daemon_needs(daemons)
        # Each NodePool's limits less what its nodes and new NodeClaims may take, in billionths
        # (compared for every instance type, never printed).
        self.remaining_resources: dict[str, resources.Nanos] = {}
        for np in node_pools:
            self.remaining_resources[name_of(np)] = resources.to_nanos(limits_of(np) or {})
        self.context = SchedulingContext(ReservationManager(instance_types), options.reserved_capacity,
                                         options.strict_reserved_offerings, satisfies_min_values, self.type_index)
        self.existing_nodes = self._existing_nodes(state_nodes, topology, daemons, node_bases)
        self._rooms: RoomBlocks | None = None       # (made at the first scan: `add_to_existing_node`)
        self._scans: dict[Any, _ShapeScan] = {}
        self._added: list[int] = []          # the existing nodes a pod was added to, in turn (by index)
        self._node_refusals: dict[tuple, dict[int, int]] = {}
        self._closed: set[int] = set()           # close_nodes
        self._closed_exempt: set[str] = set()
        self._claim_refusals: dict[bytes, dict[int, int]] = {}
        self._template_refusals: dict[tuple[int, bytes, int], BaseException] = {}
        self._within_limits: dict[tuple[int, tuple], list[Any]] = {}

    def _templates(self, node_pools: Sequence[Mapping[str, Any]],
                   instance_types: Mapping[str, list[Any]]) -> list[NodeClaimTemplate]:
        """A NodeClaimTemplate per NodePool with its compatible instance types (else an event)."""
        out: list[NodeClaimTemplate] = []
        for np in node_pools:
            nct = new_node_claim_template(np)
            its, _, err = filter_instance_types_by_requirements(
                instance_types.get(nct.node_pool_name) or [], nct.requirements, {}, {}, {},
                self.options.min_values_best_effort, self.satisfies_min_values, self.type_index)
            if not its:
                min_values = isinstance(err, InstanceTypeFilterError) and err.min_values_incompatible_err is not None
                self.events.append(no_compatible_instance_types(nct.node_pool_name, min_values))
                continue
            nct.instance_type_options = its
            out.append(nct)
        return out

    def _daemon_needs(self, daemons: Sequence[PodInfo]) -> tuple[dict[int, ResourceList], dict[int, Any]]:
        """Per template (by id): the requests of the DaemonSet pods compatible with it, then their
        host ports (the compatibility check changes the pods: overhead first, as Go's)."""
        overhead: dict[int, ResourceList] = {}
        for nct in self.templates:
            compatible = [p for p in daemons if is_daemon_pod_compatible(nct, p)]
            overhead[id(nct)] = resources.requests_for_pods([p.spec for p in compatible])
        host_ports: dict[int, Any] = {}
        for nct in self.templates:
            usage = HostPortUsage()
            for p in daemons:
                if is_daemon_pod_compatible(nct, p):
                    usage.add(p, get_host_ports(p))
            host_ports[id(nct)] = usage
        return overhead, host_ports

    def _existing_nodes(self, state_nodes: Sequence[StateNode], topology: Any, daemons: Sequence[PodInfo],
                        bases: NodeBases | None = None) -> list[ExistingNode]:
        """The cluster's nodes with their DaemonSet overhead, initialized first, then by name
        (sort.SliceStable); each one's capacity off its NodePool's remaining resources. With `bases`, each
        node starts from the one made for an earlier scheduler with equal DaemonSet pods (`node_start`)."""
        out: list[ExistingNode] = []
        strict: list[tuple[PodInfo, Requirements]] | None = None
        # what the compatibility reads of the DaemonSet pods (a pass's simulations make equal copies):
        # a node's answer, kept on its base, is asked once per pass; with their requests, all a start reads
        daemons_key = tuple(repr((p.spec.get("tolerations"), p.spec.get("nodeSelector"), p.spec.get("affinity")))
                            for p in daemons)
        requests = tuple(requests_key(p.spec) for p in daemons)
        starts = bases.starts((daemons_key, requests)) if bases is not None and None not in requests else {}
        overheads: dict[tuple[int, ...], ResourceList] = {}
        used: dict[str, list[resources.Nanos]] = {}     # the capacities of each NodePool's nodes
        started = ExistingNode.started
        remaining = self.remaining_resources
        for state in state_nodes:
            hit = starts.get(id(state))
            if hit is None or hit[0] is not state:
                base = bases.of(state) if bases is not None else NodeBase(state)
                taints = base.taints
                if strict is None:
                    strict = [(p, new_strict_pod_requirements(p)) for p in daemons]
                key = base.daemons_on(daemons_key, partial(_daemons_compatible_with_node, strict, taints, base.labels))
                overhead = overheads.get(key)
                if overhead is None:
                    overhead = overheads[key] = resources.requests_for_pods([daemons[i].spec for i in key])
                hit = (state, node_start(state, taints, overhead, base), base.labels.get(NODEPOOL_LABEL))
                starts[id(state)] = hit
            node = started(hit[1], topology)
            out.append(node)
            if hit[2] in remaining:
                used.setdefault(hit[2], []).append(node.base.capacity_nanos())
        topology.register_all(HOSTNAME_LABEL, [node.base.host_name for node in out])
        for pool, capacities in used.items():       # (integers: the order they are taken in is no matter)
            remaining[pool] = {name: v - sum(c.get(name, 0) for c in capacities) for name, v in remaining[pool].items()}
        out.sort(key=_ORDER)
        return out

    # -- Solve -------------------------------------------------------------------------------
    def solve(self, pods: Sequence[PodInfo]) -> Results:
        pod_errors: dict[str, BaseException] = {}
        by_uid = {p.uid: p for p in pods}
        for p in pods:
            self.update_cached_pod_data(p)
        queue = Queue(pods, lambda p: self.cached_pod_data[p.uid].requests,
                      lambda p: parse_time(p.metadata.get("creationTimestamp")))
        while True:
            pod = queue.pop()
            if pod is None:
                break
            err = self.try_schedule(pod)
            if err is not None:
                pod_errors[pod.uid] = err
                self.topology.update(pod)
                self.update_cached_pod_data(pod)
                queue.push(pod)
            else:
                pod_errors.pop(pod.uid, None)
        for claim in self.new_node_claims:
            claim.finalize_scheduling(self.options.reservation_id_label)
        return Results(self.new_node_claims, self.existing_nodes, pod_errors, by_uid)

    def try_schedule(self, pod: PodInfo) -> BaseException | None:
        """trySchedule: add the pod, relaxing its preferences until it is placed or nothing is left
        to relax. Relaxation works on the scheduler's own copy of the pod (Solve's pod.DeepCopy()),
        made at the first relaxation (nothing before it changes the pod) and rebuilt at each."""
        own = False
        while True:
            err = self.add(pod)
            if err is None:
                return None
            if is_reserved_offering_error(err) or is_dra_error(err):
                return err
            if not own:
                pod, own = PodInfo(prefs.relaxable_copy(pod.obj)), True
            if self.preferences.relax(pod.spec) is None:
                return err
            pod = PodInfo(pod.obj)
            self.topology.update(pod)
            self.update_cached_pod_data(pod)

    def update_cached_pod_data(self, pod: PodInfo) -> None:
        if self.options.ignore_preferences:
            requirements = new_strict_pod_requirements(pod)
        else:
            requirements = new_pod_requirements(pod)
        strict = new_strict_pod_requirements(pod) if has_preferred_node_affinity(pod) else requirements
        self.cached_pod_data[pod.uid] = PodData(
            resources.requests_for_pod(pod.spec), requirements, strict, has_dra_requirements(pod),
            self.volume_reqs_by_pod.get(pod.uid))

    def add(self, pod: PodInfo) -> BaseException | None:
        data = self.cached_pod_data[pod.uid]
        if data.has_resource_claim_requests and self.options.ignore_dra_requests:
            return DRAError(DRA_NOT_SUPPORTED)
        if self.add_to_existing_node(pod, data):
            return None
        go_sort(self.new_node_claims, lambda a, b: len(a.pods) < len(b.pods))
        if self.add_to_inflight_node(pod, data):
            return None
        if not self.templates:
            return GoError(NODEPOOLS_FILTERED_OUT)
        return self.add_to_new_node_claim(pod, data)

    def close_nodes(self, closed: set[int], exempt_uids: set[str]) -> None:
        """The existing nodes (by index) that take only the pods of `exempt_uids` (Karpenter
        v1.14's consolidation simulation: nodes under their NodePool's consolidateAfter)."""
        self._closed, self._closed_exempt = closed, exempt_uids

    def _shape(self, pod: PodInfo) -> bytes | None:
        """The pod's `kexplain.model.shapes.node_fit_key` (pods with equal ones are refused alike); None
        for a pod with volume requirements."""
        return node_fit_key(pod) if pod.uid not in self.volume_reqs_by_pod else None

    def _scan_key(self, pod: PodInfo) -> Any:
        """What a scan of the existing nodes is kept by (`_ShapeScan`): the pod's shape (`_shape`) and,
        for a pod the topology governs or counts, what the topology's answers read of it besides that: the
        groups that match it (this scheduler's own, each kept for the pass) and its labels."""
        shape = self._shape(pod)
        if shape is None:
            return None
        groups = self.topology.get_matching_topologies(pod, ())
        if not groups:
            return shape
        return shape, tuple(map(id, groups)), tuple(sorted(pod.labels.items()))

    def _requirement_refusals(self, requirements: Requirements) -> tuple[Any, dict[int, int]]:
        """The content of these requirements, and the existing nodes that refused pods of them, and at
        which node version."""
        key = tuple(sorted((k, r.complement, tuple(sorted(r.value_set)), r.gte, r.lte, r.min_values)
                           for k, r in requirements.items()))
        return key, self._node_refusals.setdefault(key, {})

    def add_to_existing_node(self, pod: PodInfo, data: PodData) -> bool:
        """The first existing node that takes the pod, skipping nodes that refused the pod's shape or
        requirements and have not changed since, and those a topology group refused it on while neither
        the node nor the group changed (Karpenter's order of tries kept: a skipped node would refuse)."""
        volumes, err = get_volumes(self.volume_index, pod)
        if err is not None:
            return False
        shape = self._scan_key(pod)
        nodes = self.existing_nodes
        scan = self._scans.get(shape) if shape is not None else None
        if scan is None:
            scan = _ShapeScan(len(nodes), len(self._added))
            if shape is not None:
                self._scans[shape] = scan
        elif scan.seen < len(self._added) or scan.by_group:
            scan.unpark(self._added, nodes)
        requirements_key, refused = self._requirement_refusals(data.requirements)
        gone: list[int] = []          # refused for good, or parked
        parked = scan.parked
        placed = False
        need = resources.nanos_of(data.requests)
        fits = resources.fits_nanos
        closed = self._closed if self._closed and pod.uid not in self._closed_exempt else ()
        rooms = self._rooms if self._rooms is not None else self._room_blocks()
        alive = scan.alive
        read = count = len(alive)       # how many of them were looked at
        topology_refusals = TopologyRefusals()
        at, block = 0, -1
        while at < count:
            i = alive[at]
            if i >> SHIFT != block:     # (a block without the room: each of its nodes refuses the pod for good)
                block = i >> SHIFT
                if rooms.roomless(block, need):
                    at = bisect_left(alive, (block + 1) << SHIFT, at + 1, count)
                    continue
            at += 1
            if closed and i in closed:
                continue
            node = nodes[i]
            version = node.version
            if refused.get(i) == version:
                parked[i] = version
                gone.append(i)
                continue
            if not fits(need, node.remaining_resources):    # CanAdd refuses it for good, whichever
                gone.append(i)                              # check comes first (room only fills up)
                continue
            # a node no pod was added to has its base's requirements: another scheduler over the same
            # base (a pass's reruns, its simulations) may have found them incompatible already
            known = node.base.refuses(requirements_key) if version == 0 else None
            if known:
                parked[i] = refused[i] = version
                gone.append(i)
                continue
            requirements, err = node.can_add(pod, data, volumes, topology_refusals, False)     # (why: no words)
            if version == 0 and known is None and node.refusal != REFUSED_FOR_GOOD:
                node.base.refused(requirements_key, node.refusal == REFUSED_AT_VERSION)
            if err is None:
                node.add(pod, data, requirements, volumes)
                rooms.changed(i)
                self._added.append(i)
                placed = True
                read = at
                break
            if node.refusal == REFUSED_FOR_GOOD:
                gone.append(i)
            elif node.refusal == REFUSED_AT_VERSION:
                parked[i] = refused[i] = version
                gone.append(i)
            elif scan.park_refused(i, version, err):
                gone.append(i)
        if gone:        # (all among those looked at: the rest stays as it is)
            left = set(gone)
            scan.alive = [i for i in alive[:read] if i not in left] + alive[read:]
        return placed

    def _room_blocks(self) -> RoomBlocks:
        self._rooms = RoomBlocks(self.existing_nodes)
        return self._rooms

    def add_to_inflight_node(self, pod: PodInfo, data: PodData) -> bool:
        """The first NodeClaim of this pass (in the order `add` sorted them) that takes the pod;
        a NodeClaim that refused the pod's shape for good, or at its current version, is skipped,
        and so is one whose hostname already holds a pod the pod's hostname anti-affinity counts
        (`Topology.hostname_counts`: it would refuse the pod, now and later)."""
        shape = self._shape(pod)
        refused = self._claim_refusals.setdefault(shape, {}) if shape is not None else {}
        taken = self.topology.hostname_counts(pod)
        for claim in self.new_node_claims:
            seen = refused.get(id(claim))
            if seen is not None and (seen == -1 or seen == claim.version):
                continue
            if taken and any(counts.get(claim.hostname, 0) > 0 for counts in taken):
                continue
            requirements, its, offerings, err = claim.can_add(pod, data, False)
            if err is None:
                claim.add(pod, data, requirements, its, offerings)
                return True
            if claim.refusal == REFUSED_FOR_GOOD:
                refused[id(claim)] = -1
            elif claim.refusal == REFUSED_AT_VERSION:
                refused[id(claim)] = claim.version
        return False

    def add_to_new_node_claim(self, pod: PodInfo, data: PodData) -> BaseException | None:
        """A new NodeClaim from the first template (weight order) that takes the pod, else every
        template's error; a refusal without topology's part is remembered."""
        errs: list[BaseException | None] = []
        shape = self._shape(pod)
        for index, nct in enumerate(self.templates):
            its = nct.instance_type_options
            remaining = self.remaining_resources.get(nct.node_pool_name)
            if remaining is not None:
                if remaining.get(resources.NODE) == 0:
                    errs.append(NodePoolError(NODE_LIMITS_EXHAUSTED, nct.node_pool_name))
                    continue
                limits_key = (index, tuple(sorted(remaining.items())))
                within = self._within_limits.get(limits_key)
                if within is None:
                    within = self._within_limits[limits_key] = filter_by_remaining_resources(its, remaining)
                its = within
                if not its:
                    errs.append(NodePoolError(EXCEED_LIMITS, nct.node_pool_name))
                    continue
            # Go makes the NodeClaim, and takes its number, for every template it tries; a refusal
            # remembered skips the making, not the number. A pod that asks for a hostname is never
            # refused from memory: its error names the placeholder.
            hostname = self.placeholders.next()
            pinned = HOSTNAME_LABEL in data.requirements
            key = (index, shape, len(its)) if shape is not None and not pinned else None
            known = self._template_refusals.get(key) if key is not None else None
            if known is not None:
                errs.append(known)
                continue
            claim = NodeClaim(nct, self.topology, self.daemon_overhead[id(nct)], self.daemon_host_ports[id(nct)],
                              its, hostname, self.context)
            requirements, updated, offerings, err = claim.can_add(pod, data, self.options.min_values_best_effort)
            if err is not None:
                errs.append(err)
                if is_reserved_offering_error(err):
                    break
                if key is not None and claim.refusal in (REFUSED_FOR_GOOD, REFUSED_AT_VERSION):
                    self._template_refusals[key] = err
                continue
            relaxed = any(
                (requirements.get(k).min_values is not None and claim.requirements.get(k).min_values is not None
                 and requirements.get(k).min_values < claim.requirements.get(k).min_values)
                for k in claim.requirements.keys())
            claim.annotations["karpenter.sh/nodeclaim-min-values-relaxed"] = "true" if relaxed else "false"
            claim.add(pod, data, requirements, updated, offerings)
            self.new_node_claims.append(claim)
            self.remaining_resources[nct.node_pool_name] = subtract_max(
                self.remaining_resources.get(nct.node_pool_name) or {}, claim.instance_type_options)
            self._within_limits = {k: v for k, v in self._within_limits.items() if k[0] != index}
            return None
        return combine(errs)


def _daemons_compatible_with_node(daemons: Sequence[tuple[PodInfo, Requirements]], taints: list[dict[str, Any]],
                                  labels: Mapping[str, str]) -> tuple[int, ...]:
    """The positions of the DaemonSet pods isDaemonPodCompatibleWithNode takes: tolerating the
    node's taints, their strict requirements compatible with its labels."""
    node_taints = Taints(taints)
    node_requirements: Requirements | None = None
    out = []
    for i, (pod, strict) in enumerate(daemons):
        if node_taints.tolerates_pod(pod) is not None:
            continue
        if strict:
            if node_requirements is None:
                node_requirements = new_label_requirements(labels)
            if node_requirements.compatible(strict) is not None:
                continue
        out.append(i)
    return tuple(out)


def is_daemon_pod_compatible(template: NodeClaimTemplate, pod: PodInfo) -> bool:
    """isDaemonPodCompatible: would the DaemonSet's pod land on this NodePool's nodes. As Go's, it
    changes the pod it is given."""
    prefs.tolerate_prefer_no_schedule_taints(pod.spec)
    if Taints(template.taints).tolerates_pod(pod) is not None:
        return False
    while True:
        if template.requirements.is_compatible(new_strict_pod_requirements(pod), ALLOW_UNDEFINED_WELL_KNOWN_LABELS):
            return True
        if prefs.remove_required_node_affinity_term(pod.spec) is None:
            return False


def subtract_max(remaining: resources.Nanos, instance_types: Sequence[Any]) -> resources.Nanos:
    """subtractMax: the remaining limits less the largest capacity among the instance types."""
    if not instance_types:
        return remaining
    return {name: v - max(resources.nanos_of(it.capacity).get(name, 0) for it in instance_types)
            for name, v in remaining.items()}


def filter_by_remaining_resources(instance_types: Sequence[Any], remaining: resources.Nanos) -> list[Any]:
    """filterByRemainingResources: the types whose capacity stays within every remaining limit."""
    nanos_of = resources.nanos_of
    out = list(instance_types)
    for name, v in remaining.items():        # (one limit at a time: a NodePool limits one or two)
        out = [it for it in out if nanos_of(it.capacity).get(name, 0) <= v]
    return out

"""Karpenter's provisioner for one pass (pkg/controllers/provisioning/provisioner.go): `schedule_pass`
runs Schedule, then Create for each new NodeClaim."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, Sequence

from kexplain.apimachinery.gosort import go_sort
from kexplain.karpenter.errors import GoError, KarpenterError, WrappedError, combine, multierr_errors
from kexplain.karpenter.provisioning.scheduling import events as ev
from kexplain.karpenter.provisioning.scheduling.existingnode import NodeBases
from kexplain.karpenter.provisioning.scheduling.nodeclaim import NodeClaim, is_reserved_offering_error
from kexplain.karpenter.provisioning.scheduling.nodeclaimtemplate import MAX_INSTANCE_TYPES, to_node_claim
from kexplain.karpenter.provisioning.scheduling.scheduler import (
    MIN_VALUES_NOT_MET, NodePoolError, Options, Results, Scheduler,
)
from kexplain.karpenter.scheduling.requirements import new_pod_requirements
from kexplain.karpenter.state.cluster import Cluster, is_managed_node_claim, is_owned_by_daemonset, is_owned_by_node
from kexplain.karpenter.utils.objects import name_of
from kexplain.karpenter.utils.resources import ResourceList
from kexplain.model.pod import PodInfo
from kexplain.karpenter.provisioning.scheduling.topology import new_topology
from kexplain.karpenter.provisioning.scheduling.volumetopology import VolumeTopology
from kexplain.karpenter.cloudprovider.types import (InstanceTypes, MIN_VALUES_POLICY_BEST_EFFORT,
                                                    MIN_VALUES_POLICY_STRICT)

NODEPOOL_LABEL = "karpenter.sh/nodepool"
NO_DYNAMIC_NODEPOOLS = "no dynamic nodepools found"
IGNORING_POD = "ignoring pod"
MATCH_FIELDS_NOT_SUPPORTED = "node selector term with matchFields is not supported"
DOES_NOT_EXIST_MESSAGE = "configured to not run on a Karpenter provisioned node"

NOT_PROVISIONABLE = "NotProvisionable"
IGNORED = "Ignored"
NOT_CONSIDERED = "NotConsidered"
FAILED = "Failed"
EXISTING_NODE = "ExistingNode"
NEW_NODE_CLAIM = "NewNodeClaim"


class CloudProvider(Protocol):
    """What the provisioner asks of the cloud provider and of the NodePools' status."""

    def get_instance_types(self, node_pool: Mapping[str, Any]) -> tuple[list[Any], BaseException | None]: ...

    def satisfies_min_values(self, instance_types: list[Any], requirements: Any) -> tuple[int, Any, Any]: ...

    def node_pool_ready(self, node_pool: Mapping[str, Any]) -> bool: ...

    def limits(self, node_pool: Mapping[str, Any]) -> ResourceList | None: ...

    def limits_exceeded_by(self, node_pool: Mapping[str, Any], usage: ResourceList) -> BaseException | None: ...

    def validate_requirement(self, requirement: Mapping[str, Any]) -> BaseException | None: ...


class DoesNotExistError(KarpenterError):
    """KarpenterManagedLabelDoesNotExistError: the pod asks not to run on Karpenter's nodes."""

    def __str__(self) -> str:
        return f"{DOES_NOT_EXIST_MESSAGE} (requirement={NODEPOOL_LABEL} DoesNotExist)"


@dataclass
class PodResult:
    """One pending pod's outcome in the pass."""

    pod: PodInfo
    result: str
    error: BaseException | None = None
    node: str = ""
    node_claim: str = ""
    node_pool: str = ""
    why: str = ""


@dataclass
class CreatedNodeClaim:
    """A new NodeClaim as Create made it (or could not: `create_error`)."""

    name: str
    claim: NodeClaim
    node_claim: dict[str, Any]
    create_error: BaseException | None = None


@dataclass
class PassResult:
    """What the pass decided, for the document."""

    pods: list[PodResult]
    node_claims: list[CreatedNodeClaim] = field(default_factory=list)
    events: list[ev.Event] = field(default_factory=list)
    schedule_error: BaseException | None = None
    tried_node_pools: list[str] = field(default_factory=list)    # the scheduler's templates, in order
    node_pools: list[Mapping[str, Any]] = field(default_factory=list)
    type_index: Any = None                                       # the scheduler's TypeIndex, for prices
    scheduler: Any = None           # the Scheduler after Solve (its templates, nodes, limits), for explanations
    node_bases: Any = None          # what each state node alone decides (`NodeBases`), for a pass run again


# -- which pods ---------------------------------------------------------------------------------
def failed_to_schedule(pod: PodInfo) -> bool:
    """The kube-scheduler marked it PodScheduled=False with reason Unschedulable."""
    return any(isinstance(c, dict) and c.get("type") == "PodScheduled" and c.get("reason") == "Unschedulable"
               for c in pod.status.get("conditions") or ())


def not_provisionable_reason(pod: PodInfo) -> str | None:
    """Why IsProvisionable is false, or None when it is true."""
    if not failed_to_schedule(pod):
        return ("no PodScheduled=False condition with reason Unschedulable (e.g. scheduling gates): Karpenter only "
                "provisions for pods the scheduler failed")
    if pod.node_name:
        return "bound to a node"
    if pod.nominated_node_name:
        return f"status.nominatedNodeName is set ({pod.nominated_node_name}): the pod is preempting and about to schedule"
    if is_owned_by_daemonset(pod):
        return "owned by a DaemonSet: its pods follow the nodes"
    if is_owned_by_node(pod):
        return "a mirror pod (owned by its Node)"
    return None


def validate(pod: PodInfo, cloud: CloudProvider, volume_topology: Any) -> BaseException | None:
    """Provisioner.Validate: the nodepool DoesNotExist requirement, each node selector term's
    requirements (restricted and unknown labels), the pod's volume claims."""
    return combine([validate_karpenter_managed_label_can_exist(pod), validate_node_selector(pod, cloud),
                    validate_affinity(pod, cloud), volume_topology.validate_persistent_volume_claims(pod)])


def validate_karpenter_managed_label_can_exist(pod: PodInfo) -> BaseException | None:
    for req in new_pod_requirements(pod).values():
        if req.key == NODEPOOL_LABEL and req.operator() == "DoesNotExist":
            return DoesNotExistError()
    return None


def validate_node_selector(pod: PodInfo, cloud: CloudProvider) -> BaseException | None:
    """Each nodeSelector entry as an `In` term (Go iterates the map: key order here)."""
    return combine([cloud.validate_requirement({"key": key, "operator": "In", "values": [value]})
                    for key, value in sorted((pod.spec.get("nodeSelector") or {}).items())])


def validate_affinity(pod: PodInfo, cloud: CloudProvider) -> BaseException | None:
    node_affinity = (pod.spec.get("affinity") or {}).get("nodeAffinity") or {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, dict):
        return None
    errs = []
    for term in required.get("nodeSelectorTerms") or ():
        if not isinstance(term, dict):
            continue
        if term.get("matchFields") is not None:
            errs.append(GoError(MATCH_FIELDS_NOT_SUPPORTED))
        for expr in term.get("matchExpressions") or ():
            if isinstance(expr, dict):
                errs.append(cloud.validate_requirement(
                    {"key": expr.get("key"), "operator": expr.get("operator"), "values": expr.get("values") or []}))
    return combine(errs)


# -- the DaemonSets' pods ------------------------------------------------------------------------
def pod_for_daemonset(daemonset: Mapping[str, Any]) -> dict[str, Any]:
    """daemonset.PodForDaemonSet: a pod of the template's spec, limits merged into requests
    where a request is missing (the API server's defaulting, which templates do not get)."""
    spec = dict(((daemonset.get("spec") or {}).get("template") or {}).get("spec") or {})
    for key in ("containers", "initContainers"):
        containers = []
        for c in spec.get(key) or ():
            if not isinstance(c, dict):
                continue
            res = dict(c.get("resources") or {})
            requests = dict(res.get("requests") or {})
            for name, q in (res.get("limits") or {}).items():
                requests.setdefault(name, q)
            res["requests"] = requests
            containers.append({**c, "resources": res})
        if key in spec:
            spec[key] = containers
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": spec}


def daemonset_pods(cluster: Cluster, daemonsets: Sequence[Mapping[str, Any]]) -> list[PodInfo]:
    """getDaemonSetPods: per DaemonSet its newest pod, else one from its template."""
    out = []
    ordered = sorted(daemonsets, key=lambda d: ((d.get("metadata") or {}).get("namespace") or "default",
                                                (d.get("metadata") or {}).get("name") or ""))
    for ds in ordered:
        found = cluster.get_daemonset_pod(ds)
        obj = dict(found.obj) if found is not None else pod_for_daemonset(ds)
        template_affinity = ((((ds.get("spec") or {}).get("template") or {}).get("spec") or {}).get("affinity") or {})
        required = (template_affinity.get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
        if required is not None:
            spec = dict(obj.get("spec") or {})
            affinity = dict(spec.get("affinity") or {})
            node_affinity = dict(affinity.get("nodeAffinity") or {})
            node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = required
            affinity["nodeAffinity"] = node_affinity
            spec["affinity"] = affinity
            obj = {**obj, "spec": spec}
        out.append(PodInfo(obj))
    return out


# -- the pass ----------------------------------------------------------------------------------
def order_by_weight(node_pools: list[Mapping[str, Any]]) -> None:
    """nodepoolutils.OrderByWeight: heaviest first, then by name descending."""
    def weight(np: Mapping[str, Any]) -> int:
        w = (np.get("spec") or {}).get("weight")
        return w if isinstance(w, int) and not isinstance(w, bool) else 0
    go_sort(node_pools, lambda a, b: (name_of(a) > name_of(b)) if weight(a) == weight(b) else weight(a) > weight(b))


def _is_managed_pool(np: Mapping[str, Any]) -> bool:
    ref = ((((np.get("spec") or {}).get("template") or {}).get("spec") or {}).get("nodeClassRef") or {})
    return is_managed_node_claim({"spec": {"nodeClassRef": ref}})


def schedule_pass(pending: Sequence[PodInfo], node_pools: Sequence[Mapping[str, Any]],
                  daemonsets: Sequence[Mapping[str, Any]], cluster: Cluster, cloud: CloudProvider,
                  options: Options, preference_policy: str, node_bases: NodeBases | None = None,
                  worded: bool = True) -> PassResult:
    """Provisioner.Schedule, then Create for each new NodeClaim. `node_bases`: an earlier pass's over
    the same state nodes (`PassResult.node_bases`), whose nodes' starts this one's scheduler copies;
    without `worded`, the FailedScheduling events of the pods Solve did not place are left out (a pass
    run again for its placements alone: wording each error was a tenth of such a pass)."""
    results: dict[str, PodResult] = {}
    out = PassResult([], node_pools=list(node_pools), node_bases=node_bases if node_bases is not None else NodeBases())
    volume_topology = VolumeTopology(cluster.volume_index)
    provisionable: list[PodInfo] = []
    for pod in pending:
        reason = not_provisionable_reason(pod)
        if reason is not None:
            results[pod.uid] = PodResult(pod, NOT_PROVISIONABLE, why=reason)
            continue
        err = validate(pod, cloud, volume_topology)
        if err is not None:
            results[pod.uid] = PodResult(pod, IGNORED, WrappedError(IGNORING_POD, err),
                                         why="Provisioner.Validate rejected the pod before scheduling")
            if not any(isinstance(e, DoesNotExistError) for e in multierr_errors(err)):
                out.events.append(ev.pod_failed_to_schedule_event(pod.key, err))
            continue
        provisionable.append(pod)
    out.pods = [results.get(p.uid) for p in pending]          # filled in below
    state_nodes = cluster.active()
    if provisionable:
        _run(provisionable, node_pools, daemonsets, cluster, cloud, options, preference_policy, state_nodes,
             volume_topology, results, out, new_topology, worded)
    out.pods = [results[p.uid] for p in pending]
    return out


def _run(pods: list[PodInfo], node_pools: Sequence[Mapping[str, Any]], daemonsets: Sequence[Mapping[str, Any]],
         cluster: Cluster, cloud: CloudProvider, options: Options, preference_policy: str, state_nodes: list[Any],
         volume_topology: Any, results: dict[str, PodResult], out: PassResult, new_topology: Callable,
         worded: bool = True) -> None:
    pools = [np for np in node_pools if _is_managed_pool(np)
             and (np.get("spec") or {}).get("replicas") is None
             and cloud.node_pool_ready(np)
             and not (np.get("metadata") or {}).get("deletionTimestamp")]
    if not pools:
        for pod in pods:
            results[pod.uid] = PodResult(pod, NOT_CONSIDERED, GoError(NO_DYNAMIC_NODEPOOLS),
                                         why="no ready NodePool: Karpenter records this decision in its cluster "
                                             "state; no event")
        return
    order_by_weight(pools)
    instance_types: dict[str, list[Any]] = {}
    for np in pools:
        its, err = cloud.get_instance_types(np)
        if err is not None or not its:
            continue
        instance_types[name_of(np)] = its
    volume_reqs: dict[str, list[Any]] = {}
    # NewScheduler's pods: one whose volume topology fails is left out of the topology and the volume
    # requirements only; Solve still places it
    schedulable: list[PodInfo] = []
    for pod in pods:
        reqs, err = volume_topology.get_requirements(pod)
        if err is not None:
            continue
        if reqs:
            volume_reqs[pod.uid] = reqs
        schedulable.append(pod)
    topology, err = new_topology(cluster, state_nodes, pools, instance_types, schedulable, preference_policy)
    if err is not None:
        out.schedule_error = WrappedError("creating scheduler", WrappedError("tracking topology counts", err))
        for pod in pods:
            results[pod.uid] = PodResult(pod, NOT_CONSIDERED, out.schedule_error,
                                         why="Provisioner.Schedule returned an error")
        return
    ds_pods = daemonset_pods(cluster, daemonsets)
    scheduler = Scheduler(pools, state_nodes, topology, instance_types, ds_pods, volume_reqs, options,
                          cloud.satisfies_min_values, cloud.limits, cluster.volume_index,
                          getattr(cloud, "type_index", None), out.node_bases)
    out.events.extend(scheduler.events)
    out.tried_node_pools = [t.node_pool_name for t in scheduler.templates]
    solved = scheduler.solve(pods)
    out.scheduler = scheduler
    truncate_instance_types(solved, scheduler.type_index, options.min_values_best_effort)
    record(solved, out, worded)
    create_all(solved, cluster, cloud, out, pools, scheduler.type_index)
    out.type_index = scheduler.type_index
    by_uid = {p.uid: p for p in pods}
    for pod in pods:
        if pod.uid in solved.pod_errors:
            results[pod.uid] = PodResult(pod, FAILED, solved.pod_errors[pod.uid])
    for existing in solved.existing_nodes:
        state = existing.state
        for pod in existing.pods:
            results[pod.uid] = PodResult(by_uid.get(pod.uid, pod), EXISTING_NODE,
                                         node=_obj_name(state.node) if state.node is not None else "",
                                         node_claim=_obj_name(state.node_claim) if state.node_claim is not None else "")
    for created in out.node_claims:
        for pod in created.claim.pods:
            results[pod.uid] = PodResult(by_uid.get(pod.uid, pod), NEW_NODE_CLAIM, node_claim=created.name,
                                         node_pool=created.claim.node_pool_name)


def _obj_name(obj: Mapping[str, Any] | None) -> str:
    return ((obj or {}).get("metadata") or {}).get("name") or ""


def truncate_instance_types(results: Results, index: Any, best_effort: bool) -> None:
    """Results.TruncateInstanceTypes: each new NodeClaim's types cut to `MAX_INSTANCE_TYPES`; one
    that no longer meets minValues (Strict) is dropped and its pods fail."""
    policy = MIN_VALUES_POLICY_BEST_EFFORT if best_effort else MIN_VALUES_POLICY_STRICT
    valid = []
    for claim in results.new_node_claims:
        requirements = claim.requirements
        its, err = InstanceTypes(claim.instance_type_options).truncate(
            requirements, MAX_INSTANCE_TYPES, policy,
            ordered=index.question(requirements).order_by_price(claim.instance_type_options))
        claim.instance_type_options = list(its)
        if err is not None:
            for pod in claim.pods:
                results.pod_errors[pod.uid] = NodePoolError(MIN_VALUES_NOT_MET, claim.node_pool_name, err)
        else:
            valid.append(claim)
    results.new_node_claims = valid


def record(results: Results, out: PassResult, worded: bool = True) -> None:
    """Results.Record: FailedScheduling for each pod error (not for reserved-offering errors; none
    without `worded`), Nominated for each pod placed on an existing node or in-flight NodeClaim."""
    for uid, err in results.pod_errors.items():
        if not worded or is_reserved_offering_error(err):
            continue
        pod = results.pods_by_uid[uid]
        out.events.append(ev.pod_failed_to_schedule_event(pod.key, err))
    for existing in results.existing_nodes:
        state = existing.state
        for pod in existing.pods:
            out.events.append(ev.nominate_pod_event(
                pod.key, _obj_name(state.node) if state.node is not None else None,
                _obj_name(state.node_claim) if state.node_claim is not None else None))


def create_all(results: Results, cluster: Cluster, cloud: CloudProvider, out: PassResult,
               pools: Sequence[Mapping[str, Any]], index: Any) -> None:
    """CreateNodeClaims in the scheduler's order; names numbered over the pass (`POOL-00001`, ...) in
    place of the API server's random ones."""
    by_name = {name_of(np): np for np in pools}
    for i, claim in enumerate(results.new_node_claims, start=1):
        name = f"{claim.node_pool_name}-{i:05d}"
        np = by_name.get(claim.node_pool_name) or {}
        err = cloud.limits_exceeded_by(np, cluster.node_pool_resources_for(claim.node_pool_name))
        if err is not None:
            out.node_claims.append(CreatedNodeClaim(name, claim, {}, WrappedError("creating node claim", err)))
            continue
        obj = to_node_claim(claim.template, index)
        out.node_claims.append(CreatedNodeClaim(name, claim, obj))
        for pod in claim.pods:
            out.events.append(ev.nominate_pod_event(pod.key, None, name))

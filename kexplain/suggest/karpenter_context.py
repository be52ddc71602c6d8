"""What the Karpenter fix families read: the NodePools as the scheduler sees them (template, types,
DaemonSet overhead) and the unplaced pods grouped by shape (one workload's replicas fail alike,
so candidates are worked out, and changes made, once per shape)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from kexplain.karpenter.errors import multierr_errors
from kexplain.karpenter.provisioning.provisioner import FAILED, daemonset_pods, order_by_weight
from kexplain.karpenter.provisioning.scheduling import preferences as prefs
from kexplain.karpenter.provisioning.scheduling.nodeclaimtemplate import NodeClaimTemplate, new_node_claim_template
from kexplain.karpenter.provisioning.scheduling.scheduler import (
    filter_instance_types_by_requirements, has_dra_requirements, is_daemon_pod_compatible,
)
from kexplain.karpenter.provisioning.scheduling.typeindex import TypeIndex
from kexplain.karpenter.provisioning.scheduling.volumetopology import VolumeTopology
from kexplain.karpenter.scheduling.requirements import (
    ALLOW_UNDEFINED_WELL_KNOWN_LABELS, Requirements, new_requirements, new_strict_pod_requirements,
)
from kexplain.karpenter.scheduling.taints import Taints
from kexplain.karpenter.utils import resources
from kexplain.karpenter.utils.resources import ResourceList
from kexplain.model.pod import PodInfo
from kexplain.model.shapes import want_key
from kexplain.model.taints import NO_EXECUTE, NO_SCHEDULE
from kexplain.suggest.change import Candidate, Op
from kexplain.suggest.karpenter_pass import PassRun

ALLOW_UNDEFINED = ALLOW_UNDEFINED_WELL_KNOWN_LABELS


@dataclass
class Pool:
    """A ready NodePool, as the scheduler would try it."""

    name: str
    obj: Mapping[str, Any]                 # the stored object (paths of a change point into it)
    node_pool: Any                         # apis.nodepool.NodePool
    template: NodeClaimTemplate
    instance_types: list[Any]              # GetInstanceTypes: its EC2NodeClass's types
    options: list[Any]                     # those its requirements allow ([]: dropped, NoCompatibleInstanceTypes)
    overhead: ResourceList                 # the DaemonSet pods' requests on its NodeClaims
    index: TypeIndex = field(default_factory=TypeIndex)     # the pass's, which asks of its types (`takes`)

    @property
    def requirements(self) -> Requirements:
        return self.template.requirements

    def spec_requirements(self) -> list[dict[str, Any]]:
        """spec.template.spec.requirements as stored (a change's indices point into this list)."""
        return list(((self.obj.get("spec") or {}).get("template") or {}).get("spec", {}).get("requirements") or ())


@dataclass
class Want:
    """The pods of one shape the pass did not place, and what they ask for."""

    pods: list[PodInfo]
    requirements: Requirements             # required only: Karpenter relaxes preferences before failing
    requests: ResourceList
    errors: dict[str, BaseException] = field(default_factory=dict)    # NodePool -> the first pod's error there
    volumes: Requirements | None = None    # what its volumes require (when they allow one way)

    @property
    def pod(self) -> PodInfo:
        return self.pods[0]

    @property
    def keys(self) -> list[str]:
        return [p.key for p in self.pods]

    @property
    def target(self) -> str:
        """The `target` of a change made to these pods."""
        more = len(self.pods) - 1
        return f"pod {self.pod.key}" + (f" and {more} more like it" if more else "")


@dataclass(frozen=True)
class Idea:
    """A candidate change, only an idea until a pass verifies it; `make` works it out in its turn, and of
    one `group`'s alternatives (smallest first) only the first verified is kept."""

    candidate: Candidate | None
    pool: str = ""                         # the NodePool it is about ("" for none)
    group: str = ""
    make: Callable[[], Candidate | None] | None = None


@dataclass
class KarpenterContext:
    """The first pass and what the fix families read of it; `rerun(change)` runs the pass on
    the changed inputs (None when the change is no valid input or the budget is spent)."""

    run: PassRun
    world: Any
    pools: list[Pool]
    wants: list[Want]
    rerun: Callable[[Sequence[Op]], PassRun | None] = lambda change: None

    def pool(self, name: str) -> Pool | None:
        return next((p for p in self.pools if p.name == name), None)


def not_placed(run: PassRun) -> list[PodInfo]:
    """The pods the pass failed, or put on a NodeClaim Create could not make (a limit)."""
    out = []
    for p in run.result.pods:
        placement = run.placements[p.pod.key]
        if p.result == FAILED or (placement.node_claim and not placement.placed and placement.create_error):
            out.append(p.pod)
    return out


def per_pool_errors(run: PassRun, pod: PodInfo) -> dict[str, BaseException]:
    """The pod's error on each NodePool the scheduler tried (when there is one part for each)."""
    result = next((p for p in run.result.pods if p.pod.uid == pod.uid), None)
    if result is None or result.error is None:
        return {}
    parts = multierr_errors(result.error)
    tried = run.result.tried_node_pools
    if len(parts) != len(tried):
        return {}
    return dict(zip(tried, parts))


def build_context(run: PassRun, world: Any,
                  rerun: Callable[[Sequence[Op]], PassRun | None] | None = None) -> KarpenterContext:
    ctx = KarpenterContext(run, world, ready_pools(run), wants_of(run))
    if rerun is not None:
        ctx.rerun = rerun
    return ctx


def wants_of(run: PassRun) -> list[Want]:
    shapes: dict[bytes | str, list[PodInfo]] = {}
    for pod in not_placed(run):
        shapes.setdefault(want_key(pod) or pod.key, []).append(pod)   # (no key: a pod alone)
    volumes = VolumeTopology(run.cluster.volume_index)
    out = []
    for pods in shapes.values():
        first = pods[0]
        reqs = new_strict_pod_requirements(first)
        alternatives, err = volumes.get_requirements(first)
        volume = alternatives[0] if err is None and alternatives and len(alternatives) == 1 else None
        if volume is not None and reqs.compatible(volume, ALLOW_UNDEFINED) is None:
            reqs = new_requirements(*reqs.values())
            reqs.add(*volume.values())
        out.append(Want(pods, reqs, resources.requests_for_pods([first.spec]), per_pool_errors(run, first), volume))
    return out


def ready_pools(run: PassRun) -> list[Pool]:
    """The NodePools the provisioner hands the scheduler (managed, dynamic, ready, not being
    deleted), heaviest first, then by name descending."""
    cloud = run.cloud
    parsed = {np.name: np for np in run.inputs.node_pools}
    objs = [np.obj for np in run.inputs.node_pools
            if np.is_managed() and not np.is_static() and cloud.node_pool_ready(np.obj)
            and not (np.obj.get("metadata") or {}).get("deletionTimestamp")]
    order_by_weight(objs)
    # The scheduler's own copies: isDaemonPodCompatible changes the pods it is given (a toleration
    # added, required terms dropped), which must not reach the inputs the verifying passes read.
    ds_pods = [PodInfo(prefs.relaxable_copy(p.obj)) for p in daemonset_pods(run.cluster, run.inputs.daemonsets)]
    best_effort = run.inputs.settings.min_values_policy == "BestEffort"
    index = run.result.type_index or TypeIndex()      # the pass's (None when no scheduler ran)
    out = []
    for obj in objs:
        template = new_node_claim_template(obj)
        its, err = cloud.get_instance_types(obj)
        if err is not None:
            its = []
        options, _, _ = filter_instance_types_by_requirements(its, template.requirements, {}, {}, {}, best_effort,
                                                              cloud.satisfies_min_values, index)
        daemons = [p for p in ds_pods if not has_dra_requirements(p) and is_daemon_pod_compatible(template, p)]
        out.append(Pool(template.node_pool_name, obj, parsed[template.node_pool_name], template, its,
                        list(options or ()), resources.requests_for_pods([p.spec for p in daemons]), index))
    return out


# -- questions the families share -----------------------------------------------------------------
def combined(pool: Pool, want: Want) -> Requirements | None:
    """The NodePool's requirements with the pod's, or None when they conflict."""
    if pool.requirements.compatible(want.requirements, ALLOW_UNDEFINED) is not None:
        return None
    reqs = new_requirements(*pool.requirements.values())
    reqs.add(*want.requirements.values())
    return reqs


def untolerated(pool: Pool, want: Want) -> list[Mapping[str, Any]]:
    """The NodePool's NoSchedule/NoExecute taints the pod does not tolerate (PreferNoSchedule
    ones Karpenter tolerates itself when it relaxes the pod)."""
    return [t for t in pool.template.taints if t.get("effect") in (NO_SCHEDULE, NO_EXECUTE)
            and Taints([t]).tolerates_pod(want.pod) is not None]


def without(want: Want, keys: Sequence[str]) -> Want:
    """The pod as if it did not require these label keys."""
    return Want(want.pods, new_requirements(*(r for k, r in want.requirements.items() if k not in keys)),
                want.requests, want.errors, want.volumes)


def total_requests(pool: Pool, want: Want) -> ResourceList:
    return resources.merge(pool.overhead, want.requests)


def takes(pool: Pool, want: Want, its: Sequence[Any] | None = None) -> list[Any]:
    """The types (of the NodePool's options, or `its`) that would take the pod on a new NodeClaim of the pool,
    taints aside: requirements, room after overhead, an offering (asked of the pool's TypeIndex:
    `it.requirements.intersects(reqs)`, `fits`, `has_offering`, each distinct answer once)."""
    reqs = combined(pool, want)
    if reqs is None:
        return []
    total = resources.to_nanos(total_requests(pool, want))
    fits = resources.fits_nanos
    return [it for it, compatible, offering, allocatable in pool.index.compatibility(
                reqs, pool.options if its is None else its)
            if compatible and offering and fits(total, allocatable)]

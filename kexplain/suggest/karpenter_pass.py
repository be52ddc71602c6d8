"""Karpenter's pass as the suggestions run it, on the inputs as loaded and again with a change
applied; a changed NodePool or EC2NodeClass goes through its CRD again (refused: no fix), the
untouched classes' instance types reused from the first run."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from kexplain.errors import AdmissionRejected, InputError
from kexplain.karpenter.inputs import EC2NODECLASS, NODEPOOL, PassInputs
from kexplain.karpenter.provisioning.provisioner import (
    EXISTING_NODE, NEW_NODE_CLAIM, CreatedNodeClaim, PassResult, schedule_pass,
)
from kexplain.karpenter.run import AWSCloud, Pass, options_of, schedule
from kexplain.karpenter.state.cluster import Cluster, is_owned_by_daemonset, new_cluster
from kexplain.model.pod import PodInfo
from kexplain.suggest.change import Op, apply_ops
from kexplain.karpenter.apis.nodepool import parse_node_pool
from kexplain.karpenter.apis.ec2nodeclass import parse_ec2_node_class

POD = "Pod"


@dataclass(frozen=True)
class Placement:
    """Where the pass put one pending pod."""

    result: str
    node: str = ""
    node_claim: str = ""
    node_pool: str = ""
    create_error: str = ""

    @property
    def placed(self) -> bool:
        """On an existing node or in-flight NodeClaim, or on a new NodeClaim that Create made."""
        return self.result == EXISTING_NODE or (self.result == NEW_NODE_CLAIM and not self.create_error)


@dataclass
class PassRun:
    """One pass: its inputs, the cloud provider and cluster state it ran over, its result."""

    inputs: PassInputs
    cloud: AWSCloud
    cluster: Cluster
    result: PassResult
    placements: dict[str, Placement] = field(default_factory=dict)    # pod key -> placement
    claims: dict[str, CreatedNodeClaim] = field(default_factory=dict)   # NodeClaim name -> claim

    def placed(self, key: str) -> bool:
        found = self.placements.get(key)
        return found is not None and found.placed


def run(inputs: PassInputs, world: Any, base: PassRun | None = None) -> PassRun:
    """Karpenter's pass over `inputs` (kexplain.karpenter.run.schedule); with `base`, the
    instance types of the EC2NodeClasses `inputs` shares with it are taken from its cache, and the
    pass starts from its cluster state, read and indexed once (`state.cluster.overlay`, when `inputs`
    holds the same Nodes, NodeClaims and bound pods) and from its existing nodes' starts (`NodeBases`),
    as Karpenter makes its scheduler again over the same cluster state for every pass; such a pass's
    FailedScheduling events are not worded (`schedule_pass`: nothing prints them)."""
    cloud = AWSCloud(inputs, base.cloud.world if base is not None else world)
    if base is None:
        return of_pass(schedule(inputs, world, cloud))
    _share_instance_types(cloud, base.cloud)
    cluster = new_cluster(inputs, base.cluster)
    inputs.warnings.extend(cluster.warnings)
    result = schedule_pass(inputs.pending, [np.obj for np in inputs.node_pools], inputs.daemonsets, cluster, cloud,
                           options_of(inputs), inputs.settings.preference_policy,
                           base.result.node_bases if cluster.source == base.cluster.source else None,
                           worded=False)        # (read for its placements: no event is printed)
    return of_pass(Pass(inputs, cloud, cluster, result))


def of_pass(done: Pass) -> PassRun:
    """A pass already run (the command's own, reused), with each pending pod's placement."""
    inputs, cloud, cluster, result = done.inputs, done.cloud, done.cluster, done.result
    claims = {c.name: c for c in result.node_claims}
    placements = {}
    for p in result.pods:
        created = claims.get(p.node_claim) if p.result == NEW_NODE_CLAIM else None
        error = str(created.create_error) if created is not None and created.create_error is not None else ""
        placements[p.pod.key] = Placement(p.result, p.node, p.node_claim, p.node_pool, error)
    return PassRun(inputs, cloud, cluster, result, placements, claims)


def _share_instance_types(cloud: AWSCloud, base: AWSCloud) -> None:
    """The provider (and its per-class cache) of `base`, and its view of every EC2NodeClass that
    is the same object in both, so that their instance types are not computed again."""
    cloud.provider = base.provider
    cloud.type_index = base.type_index
    for name, node_class in cloud.node_classes.items():
        if base.node_classes.get(name) is node_class and name in base.views:
            cloud.views[name] = base.views[name]


# -- changed inputs ----------------------------------------------------------------------------
def _ref(op: Op) -> tuple[str, str, str]:
    obj = op["object"]
    kind = obj["kind"]
    namespace = (obj.get("namespace") or "default") if kind == POD else ""
    return kind, namespace, obj["name"]


def changed_pass(inputs: PassInputs, change: Sequence[Op]) -> PassInputs | None:
    """The inputs with the change applied (pods patched, same uid: their queue order kept; NodePools and
    EC2NodeClasses stored again through their CRDs); None when the API server would refuse it."""
    by_object: dict[tuple[str, str, str], list[Op]] = {}
    for op in change:
        by_object.setdefault(_ref(op), []).append(op)
    pending, pools, classes = list(inputs.pending), list(inputs.node_pools), list(inputs.node_classes)
    try:
        for (kind, namespace, name), ops in by_object.items():
            if kind == POD:
                at = _index(pending, lambda p: (p.namespace, p.name) == (namespace, name))
                pending[at] = PodInfo(apply_ops(pending[at].obj, ops))
            elif kind == NODEPOOL:
                at = _index(pools, lambda np: np.name == name)
                pools[at] = _store(parse_node_pool, pools[at].obj, apply_ops(pools[at].obj, ops))
            elif kind == EC2NODECLASS:
                at = _index(classes, lambda c: c.name == name)
                classes[at] = _store(parse_ec2_node_class, classes[at].obj, apply_ops(classes[at].obj, ops))
            else:
                return None
    except (KeyError, IndexError, ValueError, AdmissionRejected, InputError):
        return None
    return replace(inputs, pending=pending, node_pools=pools, node_classes=classes, warnings=[])


def shape_inputs(inputs: PassInputs, keys: set[str], nodes: bool = True) -> PassInputs:
    """The inputs with only these pending pods; without `nodes`, also without the cluster's Nodes,
    NodeClaims and bound pods but the DaemonSets' (Karpenter sizes their overhead from them)."""
    pending = [p for p in inputs.pending if p.key in keys]
    if nodes:
        return replace(inputs, pending=pending)
    return replace(inputs, pending=pending, nodes=[], node_claims=[],
                   bound_pods=[p for p in inputs.bound_pods if is_owned_by_daemonset(p)])


def scoped_inputs(inputs: PassInputs, keys: set[str], nodes: set[str], node_claims: set[str],
                  node_pools: set[str] | None = None, bound: "BoundPods | None" = None) -> PassInputs:
    """The inputs with only these pending pods, Nodes, NodeClaims and NodePools (None: every one), the
    pods bound to those Nodes and `bound`'s DaemonSet pods."""
    def named(obj: Mapping[str, Any], names: set[str]) -> bool:
        return (obj.get("metadata") or {}).get("name") in names

    bound = bound if bound is not None else BoundPods.of(inputs)
    if bound.pods is inputs.bound_pods:
        kept = sorted({i for name in nodes for i in bound.by_node.get(name, ())}.union(bound.daemon_at))
        bound_pods = [inputs.bound_pods[i] for i in kept]
    else:
        bound_pods = [p for p in inputs.bound_pods if p.node_name in nodes or id(p) in bound.daemon]
    return replace(inputs, pending=[p for p in inputs.pending if p.key in keys],
                   nodes=[n for n in inputs.nodes if named(n, nodes)],
                   node_claims=[c for c in inputs.node_claims if named(c, node_claims)],
                   bound_pods=bound_pods,
                   node_pools=[np for np in inputs.node_pools if node_pools is None or np.name in node_pools])


@dataclass(frozen=True)
class BoundPods:
    """The bound pods a pass over some nodes keeps wherever they are (ids): the DaemonSet pod
    Karpenter sizes overhead from (`Cluster.daemonset_pods`), else every DaemonSet pod; and `pods`
    indexed by node name, so a pass over some nodes picks theirs alone."""

    daemon: frozenset[int]
    pods: list[PodInfo] | None = field(default=None, compare=False)
    by_node: dict[str, list[int]] = field(default_factory=dict, compare=False)
    daemon_at: tuple[int, ...] = ()

    @classmethod
    def of(cls, inputs: PassInputs, cluster: Cluster | None = None) -> "BoundPods":
        pods = inputs.bound_pods
        by_node: dict[str, list[int]] = {}
        for i, p in enumerate(pods):
            by_node.setdefault(p.node_name, []).append(i)
        if cluster is not None and cluster.bound_pods is pods:      # (the cluster state read their owners)
            owned = {id(pods[i]): i for i in cluster.daemonset_owned}            # id -> position
        else:
            owned = {id(p): i for i, p in enumerate(pods) if is_owned_by_daemonset(p)}
        if cluster is not None and all(pods[i].metadata.get("creationTimestamp") for i in owned.values()):
            daemon = frozenset(id(p) for p in cluster.daemonset_pods.values())
        else:
            daemon = frozenset(owned)
        if all(d in owned for d in daemon):
            at = tuple(sorted(owned[d] for d in daemon))
        else:
            at = tuple(i for i, p in enumerate(pods) if id(p) in daemon)
        return cls(daemon, pods, by_node, at)


def _index(items: list[Any], match: Callable[[Any], bool]) -> int:
    for i, item in enumerate(items):
        if match(item):
            return i
    raise KeyError("no such object")


def _store(parse: Callable[..., Any], original: Mapping[str, Any], changed: dict[str, Any]) -> Any:
    """The changed object as the API server stores it; a value its CRD refuses makes the change no fix,
    unless the object as given broke that rule already (then taken as written, as the first pass did)."""
    try:
        return parse(changed, validate="ignore", invalid="refuse")
    except AdmissionRejected:
        try:
            parse(original, validate="ignore", invalid="refuse")
        except AdmissionRejected:
            return parse(changed, validate="ignore", invalid="note", warnings=[])
        raise

"""`kexplain autoscale`'s wiring: the cluster read into the one cluster state once (the PODS file's
workloads' pass builds it, else it is read here with the file's pods), CA's loop built from that
state (`autoscaler.inputs.loop_of_state`), never admitting the cluster again. Returns the
document; the command line writes it and picks the exit code."""
from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO, Callable, Optional

from kexplain.admission.extendedresourcetoleration import noted
from kexplain.apimachinery import columns
from kexplain.autoscaler.cloudprovider import Discovery, discover_in, provenance
from kexplain.autoscaler.document import build_document
from kexplain.autoscaler.inputs import CA_KUBERNETES, LoopInputs, loop_of_state, refuse_repeats
from kexplain.autoscaler.loop import run_once
from kexplain.autoscaler.params import read_settings
from kexplain.autoscaler.pending import loop_over
from kexplain.errors import InputError, KexplainError
from kexplain.explain.inputs import read_config, settled_version
from kexplain.explain.pods_file_pass import PodsFilePass, pods_file_pass
from kexplain.admission.extendedresourcetoleration import noted
from kexplain.explain.request import VersionChoice
from kexplain.features import KubeVersion
from kexplain.load.gcpolicy import bulk_load
from kexplain.load.manifests import load_objects
from kexplain.state.cluster import ClusterState, state_of
from kexplain.state.objects import Objects, is_bound_pod

Say = Callable[[str], None]


@dataclass(frozen=True)
class AutoscaleRequest:
    """What `kexplain autoscale` was asked: PODS, --nodes, --node-groups, --autoscaler-config and
    how they are read."""

    pods: Optional[str]
    nodes: tuple[str, ...]
    node_groups: Optional[str]
    autoscaler_config: Optional[str]
    max_bytes: int
    max_objects: int
    validate: str = "strict"
    namespace: Optional[str] = None
    stdin: Optional[BinaryIO] = None


def scale_up(req: AutoscaleRequest, choice: VersionChoice, given: Optional[KubeVersion], say: Say) -> dict:
    """ONE CA loop over the PODS file's pending pass, read from the one cluster state; its
    document, with where the groups were found when the cluster reported them. Warnings go to `say`."""
    loop, found, groups = read_loop(req, say, kube=given, choice=choice)
    if found.pending_pass is not None:
        loop, _ = loop_over(loop, found.pending_pass)
    doc = build_document(loop, run_once(loop))
    if not groups.file:         # found in the cluster's objects: where, as live
        doc["nodeGroupsFound"] = provenance(groups)
    said = noted(loop.kube.admission, [(f"{p.namespace}/{p.name}", p.obj.get("spec")) for p in loop.pending])
    if said is not None:        # the tolerations the cluster's API server gave the pending pods (EKS, GKE)
        doc["admission"] = said
    return doc


def read_loop(req: AutoscaleRequest, say: Say = lambda _: None, *, kube: Optional[KubeVersion] = None,
              choice: VersionChoice = VersionChoice(), groups: Optional[Discovery] = None
              ) -> tuple[LoopInputs, PodsFilePass, Discovery]:
    """The files read once: CA's loop from the one cluster state (the PODS file's pending pods in it,
    its pass's not yet: `loop_over`), the PODS file's pass and the node groups (`groups`, else
    --node-groups, else found in the cluster); `kube`, else the version the cluster follows."""
    groups = groups or (Discovery.from_file(req.node_groups, req.max_bytes) if req.node_groups else None)
    with bulk_load(freeze=True):      # as the scheduler's CLI: no collection while reading, the snapshot frozen
        cluster = load_objects(req.nodes, req.max_bytes, req.stdin, max_objects=req.max_objects) if req.nodes else []
        groups = groups or found_groups(cluster)
        pod_objs = load_objects([req.pods], req.max_bytes, req.stdin, max_objects=req.max_objects,
                                namespace=req.namespace) if req.pods else []
        kube = kube or _followed(choice, cluster, say)
        found = pods_file_pass(req.pods or "", pod_objs, cluster, kube, max_bytes=req.max_bytes,
                               max_objects=req.max_objects, validate=req.validate)
        for warning in found.warnings:
            say(f"warning: {warning}")
        loop = _loop(req, found, cluster, groups, kube, say)
    for warning in loop.warnings:
        say(f"warning: {warning}")
    return loop, found, groups


def found_groups(cluster: Objects) -> Discovery:
    """The node groups the cluster's objects report (`cloudprovider.discover_in`), the notes of
    what could not be found said; none there is an error (exit 2)."""
    found = discover_in(cluster)
    if found is None or not found.groups:
        why = f" ({'; '.join(found.notes)})" if found is not None and found.notes else ""
        raise KexplainError("--node-groups FILE is needed: no node group is reported among --nodes (CA's status "
                            f"ConfigMap kube-system/cluster-autoscaler-status, Cluster API's objects){why}")
    return found


def _followed(choice: VersionChoice, cluster: Objects, say: Say) -> KubeVersion:
    """The version a snapshot among the cluster's objects recorded, else the scheduler CA embeds
    (`CA_KUBERNETES`), with its warnings said."""
    kube, warnings = settled_version(choice, cluster, CA_KUBERNETES)
    for warning in warnings:
        say(f"warning: {warning}")
    return kube


def _loop(req: AutoscaleRequest, found: PodsFilePass, cluster: Objects, groups: Discovery, kube: KubeVersion,
          say: Say) -> LoopInputs:
    """CA's loop from the one cluster state: the workloads' pass's (its given pending pods joining
    it as CA's overlay), else the cluster read here with the PODS file's objects."""
    state = found.state
    if state is not None:       # (its pending pods: the PODS file's Pods, which the pass did not read)
        return loop_of_state(state, groups, req.autoscaler_config, max_bytes=req.max_bytes, validate=req.validate,
                             applied=found.pending_pass, given=found.pods)
    state = _state(req, found, cluster, kube)
    for warning in state.said:          # kubectl's checks and admission (nobody said them)
        say(f"warning: {warning}")
    return loop_of_state(state, groups, req.autoscaler_config, max_bytes=req.max_bytes, validate=req.validate,
                         applied=found.pending_pass, held=_pending(found.pods))


def _state(req: AutoscaleRequest, found: PodsFilePass, cluster: Objects, kube: KubeVersion) -> ClusterState:
    """The one cluster state of a PODS file without workloads: the cluster with the file's other
    objects and its pending pods (a pod named as one of the cluster's refused), checked and
    admitted together, the pass's set (ephemeral claims) applied; scale-up mode needs PODS."""
    if not req.pods and read_settings(req.autoscaler_config, req.max_bytes).mode == "scaleup":
        raise InputError("PODS (the pending pods) is needed in scale-up mode; only mode: scaledown in "
                         "--autoscaler-config runs without it")
    pending = _pending(found.pods)
    held = {id(o) for o, _ in pending}
    others = [(o, s) for o, s in found.pods if id(o) not in held]
    objects = found.pending_pass.applied_to(cluster) if found.pending_pass is not None else cluster
    refuse_repeats((objects, others), pending)
    every = _joined(objects, [*others, *pending]) if others or pending else objects
    return state_of(every, read_config(None, kube=kube), validate=req.validate)


def _joined(objects: Objects, more: Objects) -> Objects:
    """`objects` then `more`; a dump kept a dump (its rows and the file's joined), so that the checks
    and admission read each stored pod's kind and whether it is stored off its row, never its object."""
    rows = columns.rows_of(objects)
    if rows is None:
        return [*objects, *more]
    added = columns.Rows.of(more)
    if not added.plain:
        return [*objects, *more]
    return columns.Dump([*objects, *more], rows + added)


def _pending(pods: Objects) -> Objects:
    """The pending Pods of a PODS file's objects, in order."""
    return [(o, s) for o, s in pods if o.get("kind") == "Pod" and not is_bound_pod(o)]

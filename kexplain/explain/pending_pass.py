"""The pending pass: what every autoscaler sees of what kexplain was given, gathered once. Never prints."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from itertools import compress
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from kexplain.controllers.workloads import ordered_ready_why
from kexplain.apimachinery import columns
from kexplain.errors import Source
from kexplain.explain.carryover import preempted
from kexplain.explain.kubelet import bound_node
from kexplain.explain.pass_objects import ephemeral_claims, pods_owner
from kexplain.explain.placement import daemon_copy, pending_copy
from kexplain.explain.pod_events import parse_time
from kexplain.explain.pod_file import ordered_ready
from kexplain.explain.pod_inputs import Inputs
from kexplain.model.pod import PodInfo
from kexplain.state.apply import cluster_with

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.batch import Outcome

Obj = dict[str, Any]
Objects = list[tuple[Obj, Source]]


@dataclass(frozen=True)
class PendingPod:
    """One pod an autoscaler sees pending, and the explained Pod or workload (and copy) it stands for."""

    pod: PodInfo
    stands_for: str = ""
    copy: int | None = None
    created: datetime | None = None

    @property
    def key(self) -> str:
        return self.pod.key


@dataclass(frozen=True)
class Preemption:
    """The scheduler's preemption for a pod left pending: the node it nominates and its victims."""

    pod: str
    node: str
    victims: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"nominatedNodeName": self.node, "victims": list(self.victims)}


@dataclass(frozen=True)
class NotCreated:
    """Copies of an explained workload its controller has not created, and why: no autoscaler sees them."""

    stands_for: str
    pods: tuple[str, ...]
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"standsFor": self.stands_for, "pods": list(self.pods), "why": self.why}


@dataclass(frozen=True)
class PendingPass:
    """What the autoscalers see of the input (see the module docstring)."""

    pending: tuple[PendingPod, ...] = ()
    bound: tuple[PodInfo, ...] = ()
    objects: tuple[tuple[Obj, Source], ...] = ()
    created: tuple[tuple[Obj, Source], ...] = ()
    notes: tuple[str, ...] = ()
    not_created: tuple["NotCreated", ...] = ()
    preemptions: tuple[Preemption, ...] = ()

    @property
    def victims(self) -> set[str]:
        """The keys of the pods the pass's preemptions delete (terminating: `with_victims`)."""
        return {v for p in self.preemptions for v in p.victims}

    def applied_to(self, cluster: Objects) -> Objects:
        """The cluster with the set applied and the pass's preemption victims terminating."""
        victims = self.victims
        if victims:
            cluster = with_victims(cluster, victims)
        if not self.objects and not self.created:
            return cluster
        return cluster_with(cluster, list(self.objects), list(self.created), kinds=None)

    def with_cluster_pending(self, pods: Iterable[PodInfo]) -> "PendingPass":
        """Every pending pod, the cluster's and the set's, in creation order; a pod the set has is the set's."""
        mine = {p.key: p for p in self.pending}
        bound = {p.key for p in self.bound}
        listed: list[PendingPod] = []
        for pod in pods:        # as listed; a pod of the set (read from the cluster too) in its listed place
            if pod.key in bound:
                continue
            listed.append(mine.pop(pod.key, None) or PendingPod(pod, created=creation_time(pod)))
        rest = [p for p in self.pending if p.key in mine]
        merged = sorted([*listed, *rest], key=lambda p: creation_order(p.created))
        return replace(self, pending=tuple(merged))

    def standing_for(self, explained: str) -> list[PendingPod]:
        """The pending pods that stand for `explained` (`Kind namespace/name`), in copy order."""
        return [p for p in self.pending if p.stands_for == explained]

    def with_notes(self, *notes: str) -> "PendingPass":
        return replace(self, notes=(*self.notes, *notes))


def _pod_key(obj: Obj) -> str | None:
    """A bound Pod's key (None for another kind, or a pod not on a node: victims are bound)."""
    if obj.get("kind") != "Pod" or not (obj.get("spec") or {}).get("nodeName"):
        return None
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def with_victims(cluster: Objects, victims: set[str]) -> Objects:
    """The cluster with the bound pods `victims` terminating, a dump kept a dump (its fast paths kept)."""
    rows = columns.rows_of(cluster)
    if rows is None:
        return [(_as_victim(o) if _pod_key(o) in victims else o, s) for o, s in cluster]
    names = {v.partition("/")[2] for v in victims}
    try:
        found = list(compress(range(len(rows.names)), map(names.__contains__, rows.names)))
    except TypeError:           # (a name that is no key: asked object by object)
        return [(_as_victim(o) if _pod_key(o) in victims else o, s) for o, s in cluster]
    out = list(cluster)
    for i in found:
        obj, src = out[i]
        if _pod_key(obj) in victims:
            out[i] = (_as_victim(obj), src)
    return columns.Dump(out, rows)


def _as_victim(obj: Obj) -> Obj:
    return preempted(obj)


def creation_order(created: datetime | None) -> tuple[bool, datetime]:
    """A sort key for creation order: times first (naive ones taken as UTC), then the others in order."""
    if created is None:
        return True, datetime.min.replace(tzinfo=timezone.utc)
    return False, created if created.tzinfo is not None else created.replace(tzinfo=timezone.utc)


def creation_time(pod: PodInfo) -> datetime | None:
    """The pod's creationTimestamp (None: none, or not a time)."""
    return parse_time(pod.metadata.get("creationTimestamp"))


def object_ref(kind: str, namespace: str, name: str) -> str:
    """What a pending pod stands for: `Kind namespace/name`."""
    return f"{kind} {namespace}/{name}"


def pod_ref(pod: PodInfo) -> str:
    return object_ref("Pod", pod.namespace, pod.name)


# -- answers -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PodAnswer:
    """One autoscaler's answer for one pending pod, in the autoscaler's own words (`detail`: its own keys)."""

    autoscaler: str
    pod: str                     # NAMESPACE/NAME
    outcome: str
    reasons: tuple[str, ...] = ()
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"autoscaler": self.autoscaler, "pod": self.pod, "outcome": self.outcome,
                "reasons": list(self.reasons), **self.detail}


@dataclass(frozen=True)
class PassAnswers:
    """One autoscaler's pass over a `PendingPass`: its name, its document and its answers by pod key."""

    autoscaler: str
    key: str
    document: dict[str, Any]
    answers: Mapping[str, PodAnswer]

    def answer(self, pod_key: str) -> PodAnswer | None:
        return self.answers.get(pod_key)


def answers_json(passes: Sequence[PassAnswers], pod_key: str) -> list[dict[str, Any]]:
    """The slot of one pod (key `autoscalers`): each autoscaler's answer for it, in order."""
    return [a.to_json() for p in passes if (a := p.answer(pod_key)) is not None]


def copies_json(passes: Sequence[PassAnswers], pp: PendingPass, explained: str) -> list[dict[str, Any]]:
    """The slot of an explained Pod or workload: every answer for each of its pending pods."""
    return [a for p in pp.standing_for(explained) for a in answers_json(passes, p.key)]


def pass_json(pp: PendingPass) -> dict[str, Any]:
    """The pass beside an autoscaler's document (key `pendingPass`)."""
    pods: dict[str, Any] = {}
    for p in pp.pending:
        if p.stands_for:
            pods[p.key] = {"standsFor": p.stands_for, **({"copy": p.copy} if p.copy is not None else {})}
    out = {"pods": pods, "clusterPending": sum(1 for p in pp.pending if not p.stands_for),
           "bound": len(pp.bound), "notes": list(pp.notes)}
    if pp.not_created:
        out["notYetCreated"] = [n.to_json() for n in pp.not_created]
    if pp.preemptions:
        out["preempting"] = {p.pod: p.to_json() for p in pp.preemptions}
    return out


def not_created_json(pp: PendingPass, explained: str) -> dict[str, Any] | None:
    """The copies of `explained` (`Kind namespace/name`) its controller has not created, or None."""
    found = next((n for n in pp.not_created if n.stands_for == explained), None)
    return found.to_json() if found is not None else None


# -- building the pass ---------------------------------------------------------------------------
class PassBuilder:
    """Gathers a pass as kexplain meets the pods, keeping no trace."""

    def __init__(self) -> None:
        self.pending: list[PendingPod] = []
        self.bound: list[PodInfo] = []
        self.objects: Objects = []
        self.created: Objects = []
        self.notes: list[str] = []
        self.not_created: list[NotCreated] = []
        self.preemptions: list[Preemption] = []

    def build(self) -> PendingPass:
        victims = {v for p in self.preemptions for v in p.victims}
        bound = [PodInfo(_as_victim(p.obj)) if p.key in victims else p for p in self.bound]
        return PendingPass(tuple(self.pending), tuple(bound), tuple(self.objects), tuple(self.created),
                           tuple(self.notes), tuple(self.not_created), tuple(self.preemptions))

    def add_objects(self, objects: Iterable[tuple[Obj, Source]], created: Iterable[tuple[Obj, Source]] = ()) -> None:
        self.objects.extend(objects)
        self.created.extend(created)

    def add_pod(self, pod: PodInfo, source: Source, *, stands_for: str | None = None, node: str | None = None,
                copy: int | None = None, claims: bool = False, post_filter: Mapping[str, Any] | None = None) -> None:
        """One pod, pending or bound to `node`, with its ephemeral claims and its explanation's nomination."""
        if claims:
            self.created.extend(ephemeral_claims(pod.obj, source))
        if node is not None:
            self.bound.append(PodInfo(_bound(pod.obj, node)))
        else:
            pod = self.preempting(pod, post_filter)
            self.pending.append(PendingPod(pod, pod_ref(pod) if stands_for is None else stands_for, copy,
                                           creation_time(pod)))

    def preempting(self, pod: PodInfo, post_filter: Mapping[str, Any] | None) -> PodInfo:
        """The pending pod as its preemption leaves it: `status.nominatedNodeName` set, victims remembered."""
        node = (post_filter or {}).get("nominatedNodeName") or ""
        if not node:
            return pod
        victims = tuple(str(v) for v in (post_filter or {}).get("victims") or ())
        self.preemptions = [p for p in self.preemptions if p.pod != pod.key] + [Preemption(pod.key, node, victims)]
        return PodInfo({**pod.obj, "status": {**pod.status, "nominatedNodeName": node}})

    def settle(self, retried: Iterable[Any]) -> None:
        """The pods the queue's retry placed, bound where they went rather than pending."""
        landed = {(object_ref(r.entry.kind, r.entry.namespace, r.entry.name), r.pod): r.node
                  for r in retried if r.node is not None}
        if not landed:
            return
        still: list[PendingPod] = []
        for p in self.pending:
            node = landed.get((p.stands_for, p.pod.name))
            if node is None:
                still.append(p)
            else:
                self.bound.append(PodInfo(_bound(p.pod.obj, node)))
        self.pending = still

    def add_single(self, inputs: "Inputs", node: str | None = None,
                   post_filter: Mapping[str, Any] | None = None) -> None:
        """The pod of one explanation: pending (nominated as `post_filter` says), or bound to `node`."""
        self.add_pod(inputs.pod, inputs.pod_source, node=node, claims=inputs.claims_from_templates,
                     post_filter=post_filter)

    def add_outcome(self, outcome: "Outcome") -> None:
        """One object of a batch, placed: each of its pods pending, or bound where it went."""
        entry, inputs = outcome.entry, outcome.inputs
        if entry.idle or inputs is None or entry.not_created:     # no pod: none made, or none created
            return
        stands = object_ref(entry.kind, entry.namespace, entry.name)
        claims = inputs.claims_from_templates
        post = _post_filter(outcome)
        owner = pods_owner(entry.workload) if entry.workload is not None else None
        if not entry.replicated:
            node = outcome.copies[0].node if outcome.copies else None
            if node is None and _kubelet_rejects(inputs.pod, inputs):
                return
            self.add_pod(_owned(inputs.pod.obj, owner), inputs.pod_source, stands_for=stands, node=node, claims=claims,
                         post_filter=post)
            return
        nodes = [c.node for c in outcome.copies]
        count = len(outcome.daemon.eligible) if outcome.daemon is not None else existing_copies(entry, nodes)
        if count < entry.copies and outcome.daemon is None:
            naming = entry.naming
            names = tuple(f"{entry.namespace}/{naming.name(i) if naming is not None else f'{entry.name}-{i}'}"
                          for i in range(count, entry.copies))
            waiting = naming.name(count - 1) if naming is not None else f"{entry.name}-{count - 1}"
            self.not_created.append(NotCreated(stands, names, ordered_ready_why(waiting)))
        for i in range(count):
            if outcome.daemon is not None:
                obj = daemon_copy(inputs.pod, i, outcome.daemon.eligible[i], entry.naming)
            else:
                obj = pending_copy(inputs.pod, i, entry.naming)
            node = nodes[i] if i < len(nodes) else None
            if node is None and _kubelet_rejects(PodInfo(obj), inputs):
                continue
            last_tried = i == len(nodes) - 1
            self.add_pod(_owned(obj, owner), inputs.pod_source, stands_for=stands, node=node, copy=i, claims=claims,
                         post_filter=post if last_tried else None)


def existing_copies(entry: Any, nodes: Sequence[str | None]) -> int:
    """How many of a workload's copies its controller has created (OrderedReady: stateful_set_control.go)."""
    if not ordered_ready(entry.workload) or not nodes or nodes[-1] is not None:
        return entry.copies
    return len(nodes)


def _kubelet_rejects(pod: PodInfo, inputs: "Inputs") -> bool:
    """A pod bound by spec.nodeName whose kubelet rejected it: Failed, not pending."""
    return bound_node(pod, inputs) is not None


def _owned(obj: Obj, owner: Obj | None) -> PodInfo:
    """The pod with `owner` as its controller (`pods_owner`), when it has one."""
    if owner is None:
        return PodInfo(obj)
    return PodInfo({**obj, "metadata": {**(obj.get("metadata") or {}), "ownerReferences": [owner]}})


def _bound(obj: Obj, node: str) -> Obj:
    return {**obj, "spec": {**(obj.get("spec") or {}), "nodeName": node}}


def _post_filter(outcome: "Outcome") -> Mapping[str, Any] | None:
    """The PostFilter of the object's first pod that did not fit (where preemption nominates it)."""
    unfit = outcome.first_unfit
    return unfit.trace.post_filter if unfit is not None else None

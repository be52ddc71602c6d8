"""Which part of Karpenter's pass a change to pending pods can reach: when the changed pods are
cut off from every other pod (no topology term, NodeClaim, reservation, volume or claim shared),
the pass run with them alone and the nodes they could land on says what the whole pass would,
at a fraction of its cost. Why that holds: docs/internals/suggest.md."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from kexplain.karpenter.scheduling.requirements import (
    ALLOW_UNDEFINED_WELL_KNOWN_LABELS, Requirements, new_label_requirements, new_strict_pod_requirements,
)
from kexplain.karpenter.scheduling.taints import Taints, is_known_ephemeral_taint
from kexplain.karpenter.state.statenode import INITIALIZED_LABEL, NODEPOOL_LABEL
from kexplain.model.labels import SelectorError, parse_selector
from kexplain.model.pod import PodInfo
from kexplain.model.taints import NO_EXECUTE, NO_SCHEDULE

BLOCKING = (NO_SCHEDULE, NO_EXECUTE)


@dataclass(frozen=True)
class Scope:
    """What a pass run again needs: pending pod keys, Node and NodeClaim names, and the NodePools the pods
    may use (the others would refuse them; the scheduler tries NodePools in order)."""

    pods: tuple[str, ...]
    nodes: tuple[str, ...]
    node_claims: tuple[str, ...]
    node_pools: tuple[str, ...]


def pod_change_scope(pending: Sequence[PodInfo], changed: Sequence[str], pools: Sequence[Any],
                     bound_anti_affinity: Iterable[PodInfo], nodes: Sequence[Mapping[str, Any]],
                     node_claims: Sequence[Mapping[str, Any]], reserved: bool,
                     pod_keys: dict[int, tuple[PodInfo, str]] | None = None) -> Scope | None:
    """The scope of a change to the pending pods `changed` (keys; `pending` as changed), or None when
    they are not cut off from the pools (`Pool`), bound anti-affinity pods and reservations.
    `pod_keys`: `distinct_pods`' keys of the pods met before (the pods no change touched are the same)."""
    keys = set(changed)
    s_pods = [p for p in pending if p.key in keys]
    if not s_pods or any(_reaches_out(p) for p in s_pods):
        return None
    if reserved:
        return None
    s_shapes = distinct_pods(s_pods, pod_keys)
    others = distinct_pods((p for p in pending if p.key not in keys), pod_keys)
    if any(_selects(term_pod, s) for term_pod in [*others, *bound_anti_affinity] for s in s_shapes):
        return None
    s_pools = [pool for pool in pools if any(_may_use(pool, s) for s in s_shapes)]
    if any(_may_use(pool, o) for pool in s_pools for o in others):
        return None
    keep = _Keep(s_shapes, {pool.name for pool in s_pools})
    names = list(map(_name, nodes))
    kept = {name for name, n in zip(names, nodes) if keep(n)}
    claims = {_name(c): _node_name(c) for c in node_claims}
    kept_claims = {name for name, node in claims.items() if node in kept}
    for claim in node_claims:             # an in-flight NodeClaim (and its Node, if it has one by now)
        if _name(claim) not in kept_claims and keep(claim):
            kept_claims.add(_name(claim))
            kept.add(claims[_name(claim)])
    kept.discard("")
    return Scope(tuple(p.key for p in s_pods), tuple(n for n in names if n in kept),
                 tuple(c for c in claims if c in kept_claims), tuple(pool.name for pool in s_pools))


def has_reserved(pools: Sequence[Any]) -> bool:
    """Whether a NodePool has a reserved offering available (asked once per list of pools, of
    each pool's TypeIndex: `TypeIndex.reserved_among`)."""
    return any(p.index.reserved_among(p.instance_types) for p in pools)


def distinct_pods(pods: Iterable[PodInfo], known: dict[int, tuple[PodInfo, str]] | None = None) -> list[PodInfo]:
    """One pod of each set of scheduling facts the checks read (labels, namespace, node
    selection, tolerations, affinity, spread); `known`: the keys worked out before, by the pod's id
    (the pod kept with it, so the id stays its)."""
    known = {} if known is None else known
    seen: dict[str, PodInfo] = {}
    for p in pods:
        got = known.get(id(p))
        if got is None or got[0] is not p:
            spec = p.spec
            got = known[id(p)] = (p, repr((p.namespace, sorted(p.labels.items()), spec.get("nodeSelector"),
                                           spec.get("affinity"), spec.get("tolerations"),
                                           spec.get("topologySpreadConstraints"))))
        seen.setdefault(got[1], p)
    return list(seen.values())


def _reaches_out(pod: PodInfo) -> bool:
    """Whether the pod has what couples it to others: spread, pod (anti-)affinity, volumes
    (claims other pods may share), resource claims."""
    spec = pod.spec
    affinity = spec.get("affinity") or {}
    if spec.get("topologySpreadConstraints") or affinity.get("podAffinity") or affinity.get("podAntiAffinity"):
        return True
    if spec.get("resourceClaims"):
        return True
    return any(isinstance(v, dict) and (v.get("persistentVolumeClaim") or v.get("ephemeral"))
               for v in spec.get("volumes") or ())


def _terms(pod: PodInfo) -> list[Mapping[str, Any]]:
    """Every selector-bearing term of the pod: spread constraints, pod (anti-)affinity required
    and preferred."""
    spec = pod.spec
    out: list[Mapping[str, Any]] = [c for c in spec.get("topologySpreadConstraints") or () if isinstance(c, dict)]
    affinity = spec.get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        section = affinity.get(kind) or {}
        out.extend(t for t in section.get("requiredDuringSchedulingIgnoredDuringExecution") or ()
                   if isinstance(t, dict))
        out.extend(w.get("podAffinityTerm") or {} for w in section.get("preferredDuringSchedulingIgnoredDuringExecution")
                   or () if isinstance(w, dict))
    return out


def _selects(term_pod: PodInfo, pod: PodInfo) -> bool:
    """Whether a term of `term_pod` may count or constrain `pod` (taken to when unsure)."""
    for term in _terms(term_pod):
        if term.get("namespaceSelector") is not None:
            return True
        namespaces = term.get("namespaces") or [term_pod.namespace]
        if pod.namespace not in namespaces:
            continue
        try:
            selector = parse_selector(term.get("labelSelector"))
        except SelectorError:
            return True
        if selector.nothing or selector.matches(pod.labels):
            return True             # (a null selector matches nothing in Go; taken as a match here)
    return False


def _node_selection(pod: PodInfo) -> Requirements | None:
    """The pod's required node selection, or None when it has several terms (Karpenter may try
    any of them: taken to be compatible with everything)."""
    required = ((pod.spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution") or {}
    if len(required.get("nodeSelectorTerms") or ()) > 1:
        return None
    return new_strict_pod_requirements(pod)


def _tolerates(taints: Iterable[Mapping[str, Any]], pod: PodInfo) -> bool:
    blocking = [t for t in taints if isinstance(t, dict) and t.get("effect") in BLOCKING
                and not is_known_ephemeral_taint(t)]
    return not blocking or Taints(blocking).tolerates_pod(pod) is None


def _may_use(pool: Any, pod: PodInfo) -> bool:
    """Whether the pod could go to a NodeClaim of the NodePool (the widest reading)."""
    reqs = _node_selection(pod)
    if reqs is not None and not pool.requirements.is_compatible(reqs, ALLOW_UNDEFINED_WELL_KNOWN_LABELS):
        return False
    return _tolerates(pool.template.taints, pod)


class _Keep:
    """Whether the pass over S needs a node: one S might be placed on, one whose taints may not be its final
    ones, or one of a NodePool S may use. Asked of every node: only the labels S selects by are read
    (Compatible looks at no other key), and each such set of labels and taints is weighed once."""

    def __init__(self, pods: Sequence[PodInfo], pools: set[str]) -> None:
        self.pools = pools
        self.selections = [(pod, _node_selection(pod)) for pod in pods]
        self.keys = sorted({k for _, reqs in self.selections if reqs is not None for k in reqs.keys()})
        self.seen: dict[tuple, bool] = {}

    def __call__(self, node: Mapping[str, Any]) -> bool:
        labels = (node.get("metadata") or {}).get("labels") or {}
        pool = labels.get(NODEPOOL_LABEL)
        if pool in self.pools or (pool and not labels.get(INITIALIZED_LABEL)):
            return True
        own = tuple((k, labels[k]) for k in self.keys if k in labels)      # (`keys` sorted)
        taints = (node.get("spec") or {}).get("taints") or ()
        key = (own, repr(taints) if taints else "")
        if key not in self.seen:
            self.seen[key] = self._weigh(dict(own), taints)
        return self.seen[key]

    def _weigh(self, labels: Mapping[str, str], taints: Sequence[Mapping[str, Any]]) -> bool:
        node_reqs = new_label_requirements(labels)
        for pod, reqs in self.selections:
            if reqs is not None and not node_reqs.is_compatible(reqs, ALLOW_UNDEFINED_WELL_KNOWN_LABELS):
                continue
            if _tolerates(taints, pod):
                return True
        return False


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def _node_name(claim: Mapping[str, Any]) -> str:
    return str((claim.get("status") or {}).get("nodeName") or "")

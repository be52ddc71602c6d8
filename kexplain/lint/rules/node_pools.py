"""The lint rule `no-nodepool` (NodePools among --nodes): `no-node-group`'s Karpenter counterpart.
No NodePool could ever take the pod alone (`never_taken`), or Karpenter's one pass over the set's
pending pods fails them (`not_provisioned_for`), each NodePool with Karpenter's error."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from kexplain.explain.pending_pass import PendingPass, PendingPod, PodAnswer
from kexplain.karpenter.pending import NodePoolsRequest, load_node_pools, pass_over, run_pass as run_karpenter_pass
from kexplain.lint.findings import Finding, guarded
from kexplain.lint.rule import NODEPOOLS, Severity, declare

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.lint.options import LintOptions
    from kexplain.lint.set_state import Gathered
    from kexplain.state.cluster import ClusterState

RULE = "no-nodepool"
RULES = (
    declare(RULE, Severity.WARNING, NODEPOOLS,
            "No Karpenter NodePool could take the pods (NodePools among the --nodes objects): Karpenter's pass "
            "fails them on every NodePool.",
            "Karpenter: its provisioner's scheduling (pkg/controllers/provisioning/scheduling: "
            "each NodePool's requirements, taints, limits and instance types)"),
)
FAILED = "Failed"


@dataclass(frozen=True)
class NoPool:
    """Why no NodePool takes the pods: per NodePool, Karpenter's error for it."""

    message: str
    node_pools: dict[str, str]


def _per_pool(record: Mapping[str, Any]) -> dict[str, str]:
    """Karpenter's error per NodePool tried (`nodePoolErrors`), else its error as a whole."""
    errors = record.get("nodePoolErrors")
    if errors:
        return {str(e.get("nodePool")): str(e.get("error")) for e in errors}
    text = record.get("error") or record.get("why") or ""
    return {"": str(text)} if text else {}


def _listed(pools: Mapping[str, str]) -> str:
    return "; ".join(f"{p} ({r})" if p else r for p, r in pools.items())


def never_taken(record: Mapping[str, Any] | None) -> NoPool | None:
    """The finding's words when Karpenter's pass over the object's pod alone, against the
    NodePools and no node (`record`: the pod's record in that pass's document), fails it."""
    if record is None or record.get("result") != FAILED:
        return None
    pools = _per_pool(record)
    return NoPool("no Karpenter NodePool could ever take its pods: " + _listed(pools), pools)


def not_provisioned_for(answers: Sequence[PodAnswer | None]) -> NoPool | None:
    """The finding's words when Karpenter's one pass fails the object's pending pods (their
    answers, in copy order: the first that failed speaks for them), else None (none pending, or
    Karpenter places them: an existing node, an in-flight or a new NodeClaim)."""
    first = next((a for a in answers if a is not None and a.outcome == FAILED), None)
    if first is None:
        return None
    pools = _per_pool({"nodePoolErrors": first.detail.get("nodePoolErrors"), "error": first.detail.get("error"),
                       "why": first.detail.get("why")})
    return NoPool("Karpenter would launch no node for the pods that do not fit: " + _listed(pools), pools)


def node_pool_findings(gathered: "Gathered", pool: "ClusterState", options: "LintOptions") -> dict[int, list[Finding]]:
    """Rule no-nodepool: ONE Karpenter pass over the set's pending pods, and each object's pod alone
    against the NodePools, with no node."""
    # lazy: Karpenter's provisioner only with NodePools (docs/development.md, "Lazy imports")
    from kexplain.karpenter.document import pod_document
    from kexplain.suggest.karpenter_pass import run, shape_inputs

    pp = gathered.builder.build()
    # the one cluster state, never admitted again; read as stored, the pass admits its objects as read
    cluster = (pool.read or []) if pool.stored else []
    req = NodePoolsRequest(cluster, max_bytes=options.max_bytes, validate=options.validate,
                           state=pool)
    inputs, world = load_node_pools(req, options.kube, applied=pp)
    _, _, answers = run_karpenter_pass(inputs, world, pp)
    # each object's pod alone, as Karpenter would see it pending in an empty cluster
    own, _ = pass_over(replace(inputs, pending=[]), PendingPass(tuple(PendingPod(pod, stands)
                                                                      for _, stands, pod, _ in gathered.objects)))
    base = None
    out: dict[int, list[Finding]] = {}       # by id of the queued object
    for q, stands, pod, _ in gathered.objects:
        def check() -> list[Finding]:
            nonlocal base
            alone = run(shape_inputs(own, {pod.key}, nodes=False), world, base)
            base = base or alone
            record = next((pod_document(p, alone.result.tried_node_pools) for p in alone.result.pods
                           if p.pod.key == pod.key), None)
            found = never_taken(record) or not_provisioned_for(
                [answers.answer(p.key) for p in pp.standing_for(stands)])
            return [] if found is None else [Finding(RULE, q.loc, q.ref, found.message,
                                                     details={"nodePools": found.node_pools})]
        out[id(q)] = guarded(q.ref, q.loc, check)
    return out

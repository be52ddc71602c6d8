"""The lint rule `no-nodepool` (NodePools among --nodes): `no-node-group`'s Karpenter counterpart.
No NodePool could ever take the pod alone (`never_taken`), or Karpenter's one pass over the set's
pending pods fails them (`not_provisioned_for`), each NodePool with Karpenter's error."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kexplain.explain.pending_pass import PodAnswer

RULE = "no-nodepool"
SUMMARY = ("No Karpenter NodePool could take the pods (NodePools among the --nodes objects): Karpenter's "
           "pass fails them on every NodePool.")
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

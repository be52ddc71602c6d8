"""free-devices: free the devices other claims hold on the node that needs the fewest pods to go
(the least important first, never a DaemonSet's or static pod); a claim the pod owns is deleted
with it, another deallocated, as the resourceclaim controller does."""
from __future__ import annotations

from typing import Any

from kexplain.model.pod import PodInfo
from kexplain.suggest.change import Candidate, pod_ref
from kexplain.suggest.context import Context
from kexplain.suggest.dra import Facts, claim_object, claim_pods, dra_nodes, node_facts, pending_requests
from kexplain.suggest.free_room import evictable

ID = "free-devices"
FREE_DEVICES = "free-devices"
KINDS = (FREE_DEVICES,)


def _claim_ref(key: str) -> dict[str, str]:
    ns, _, name = key.partition("/")
    return {"kind": "ResourceClaim", "namespace": ns, "name": name}


def _owned_by(claim: dict[str, Any], pods: list[PodInfo]) -> bool:
    uids = {p.uid for p in pods}
    return any(o.get("controller") and o.get("uid") in uids
               for o in (claim.get("metadata") or {}).get("ownerReferences") or ())


def _holders(ctx: Context, req: Facts, need: int) -> list[tuple[str, list[PodInfo]]] | None:
    """(claim, its pods) to free `need` of the request's in-use devices, least important pods
    first; None when the listed devices cannot give enough or a pod may not go."""
    options: dict[str, list[PodInfo]] = {}
    for d in req.get("devices") or ():
        if d.get("reason") != "inUse":
            continue
        for claim in d.get("by") or ():
            options.setdefault(claim, claim_pods(ctx, claim))
    per_claim = {c: sum(1 for d in req.get("devices") or () if d.get("reason") == "inUse" and c in (d.get("by") or ()))
                 for c in options}
    if any(not all(evictable(p) for p in pods) for pods in options.values()):
        options = {c: pods for c, pods in options.items() if all(evictable(p) for p in pods)}
    ranked = sorted(options, key=lambda c: (max((p.priority for p in options[c]), default=0), -per_claim[c], c))
    chosen, freed = [], 0
    for claim in ranked:
        if freed >= need:
            break
        chosen.append((claim, options[claim]))
        freed += per_claim[claim]
    return chosen if freed >= need else None


def candidates(ctx: Context) -> list[Candidate]:
    """Free in-use devices on the node that needs the fewest pods (then claims) to go."""
    nodes = [n for n in dra_nodes(ctx) if set(ctx.blocked[n]) <= {"DynamicResources", "NodeResourcesFit"}]
    facts = node_facts(ctx, nodes)
    best: tuple[tuple[int, int, int], str, str, list[tuple[str, list[PodInfo]]]] | None = None
    for position, (node, f) in enumerate(facts.items()):
        plan: list[tuple[str, list[PodInfo]]] = []
        stuck = False
        for claim, req in pending_requests(f):
            reasons = req.get("reasons") or {}
            count, free = int(req.get("count") or 1), int(reasons.get("free", 0))
            if req.get("allocationMode") == "All":
                count = sum(reasons.values())
            if free >= count:
                continue
            got = _holders(ctx, req, count - free) if reasons.get("inUse", 0) >= count - free else None
            if got is None:
                stuck = True
                break
            plan += [h for h in got if h[0] not in {c for c, _ in plan}]
        if stuck or not plan:
            continue
        pods = {p.key for _, ps in plan for p in ps}
        rank = (len(pods), len(plan), position)
        if best is None or rank < best[0]:
            best = (rank, node, str(f.get("claims", [{}])[0].get("claim")), plan)
    if best is None:
        return []
    _, node, _, plan = best
    ops: list[dict[str, Any]] = []
    words = []
    for claim, pods in plan:
        ops += [{"op": "delete", "object": pod_ref(p)} for p in pods if {"op": "delete", "object": pod_ref(p)} not in ops]
        obj = claim_object(ctx, claim) or {}
        if pods and _owned_by(obj, pods):
            ops.append({"op": "delete", "object": _claim_ref(claim)})
        else:
            ops.append({"op": "remove", "object": _claim_ref(claim), "path": "/status/allocation"})
            if (obj.get("status") or {}).get("reservedFor"):
                ops.append({"op": "remove", "object": _claim_ref(claim), "path": "/status/reservedFor"})
        users = ", ".join(p.key for p in pods)
        words.append(f"claim {claim} (pod {users})" if pods else f"claim {claim} (no running pod uses it: "
                                                                  "deallocate it)")
    return [Candidate(FREE_DEVICES, f"node {node}",
                      f"free devices on node {node}: the devices held by {'; '.join(words)} would have to be "
                      "released (their pods moved elsewhere or deleted)", tuple(ops))]

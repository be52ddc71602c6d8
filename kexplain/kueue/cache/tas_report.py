"""Why a pod set did not fit a topology, beyond Kueue's one line: per level, the domains that come
closest (pods that fit, how many short) and, per Node of each, what it takes and what limits it
(a resource and how much is free against one pod's request, or why the Node was left out); and the
largest count that fits one domain of the requested level, verified by placing that many again. For
a pod set group, each domain also says whether the leader fits it, the workers that fit beside the
leader, and which of the two falls short."""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any, Mapping

from kexplain.kueue.cache.tas_snapshot import Domain, Placement, PodSetRequest, TASFlavorSnapshot, count_in
from kexplain.kueue.resources import PODS, Requests, resource_quantity_text

CLOSEST = 3             # domains shown per level
NODES_SHOWN = 4         # Nodes shown per domain

# a quantity's text, once per (resource, amount): a pod set no domain holds is explained again each cycle
_text = lru_cache(maxsize=4096)(resource_quantity_text)


def _node(snap: TASFlavorSnapshot, leaf: Domain, requests: Requests, assumed: Mapping[str, Requests],
          simulate_empty: bool) -> dict[str, Any]:
    name = leaf.nodes[0] if len(leaf.nodes) == 1 else leaf.id
    out: dict[str, Any] = {"node": name, "fit": snap.count(leaf)}
    if snap.excluded(leaf):
        out["excluded"] = snap.excluded(leaf)
        return out
    free = snap.remaining(leaf, simulate_empty)
    for k, v in assumed.get(leaf.id, {}).items():
        free[k] = free.get(k, 0) - v
    _, limiting = count_in(requests, free)
    if limiting:
        left = max(0, free.get(limiting, 0))
        out["limitedBy"] = {"resource": limiting, "free": _text(limiting, left),
                            "perPod": _text(limiting, requests[limiting])}
        used = leaf.tas_usage.get(limiting, 0)
        if used and not simulate_empty:
            out["limitedBy"]["usedByTAS"] = _text(limiting, used)
    return out


def closest(snap: TASFlavorSnapshot, ps: PodSetRequest, level: int, assumed: Mapping[str, Requests],
            simulate_empty: bool, group: bool = False) -> list[dict[str, Any]]:
    """Per level, from the requested one up to the highest, the domains holding the most pods
    (as the last placement counted them; for a group, the leader's domains first, then the
    most workers beside it), each with its Nodes."""
    requests = {**ps.single_pod, PODS: ps.single_pod.get(PODS, 0) + 1}
    out = []
    for idx in range(level, -1, -1):
        domains = []
        for dom in (snap.most_with_leader(idx, CLOSEST) if group else snap.most(idx, CLOSEST)):
            leaves, total = snap.fewest_leaves(dom, NODES_SHOWN)        # the fullest first
            fit = snap.count(dom)
            entry = {"domain": list(dom.values), "fit": fit, "short": max(0, ps.count - fit)}
            if group:
                entry.update(_group_entry(snap, dom, ps.count))
            domains.append({**entry, "nodes": [_node(snap, leaf, requests, assumed, simulate_empty) for leaf in leaves],
                            **({"nodesNotShown": total - NODES_SHOWN} if total > NODES_SHOWN else {})})
        out.append({"level": snap.levels[idx], "domains": domains})
    return out


def _group_entry(snap: TASFlavorSnapshot, dom: Domain, count: int) -> dict[str, Any]:
    """A group's part of a domain: the leader fits or not, the workers beside it, who is short."""
    leader, beside = snap.leader_count(dom)
    if not leader:
        return {"leaderFits": False, "fitWithLeader": 0, "shortOf": "leader"}
    return {"leaderFits": True, "fitWithLeader": beside, "short": max(0, count - beside),
            **({"shortOf": "workers"} if beside < count else {})}


def largest_fit(snap: TASFlavorSnapshot, ps: PodSetRequest, top: int, assumed: Mapping[str, Requests],
                simulate_empty: bool, leader: PodSetRequest | None = None) -> dict[str, Any] | None:
    """The most pods one domain of the requested level takes (a group's workers beside its leader),
    verified: that many placed again."""
    if top <= 0 or top >= ps.count:
        return None
    placement = snap.find(replace(ps, count=top), assumed, simulate_empty, leader)
    if placement.assignment is None:
        return None
    out = {"count": top, "verified": True,
           "domains": [{"values": list(d.values), "count": d.count} for d in placement.assignment.domains]}
    if placement.leader is not None:
        out["leaderDomains"] = [{"values": list(d.values), "count": d.count} for d in placement.leader.domains]
    return out


def explained(snap: TASFlavorSnapshot, ps: PodSetRequest, placement: Placement, assumed: Mapping[str, Requests],
              simulate_empty: bool = False, leader: PodSetRequest | None = None) -> Placement:
    """A placement that failed with the domains closest and the largest count one domain takes
    (read before that count is placed again: the snapshot's counts are the failed placement's)."""
    if not placement.reason or placement.level < 0:
        return placement
    group = leader is not None
    nearest = tuple(closest(snap, ps, placement.level, assumed, simulate_empty, group))
    slice_size = ps.request.slice_size if ps.request is not None and ps.request.slice_topology else 1
    if group:
        top = max((snap.leader_count(d)[1] for d in snap.most_with_leader(placement.level, 1)
                   if snap.leader_count(d)[0]), default=0)
    else:
        top = max((snap.count(d) for d in snap.most(placement.level, 1)), default=0)
    return replace(placement, closest=nearest,
                   largest_fit=largest_fit(snap, ps, top - top % (slice_size or 1), assumed, simulate_empty, leader))

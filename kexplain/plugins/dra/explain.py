"""The facts behind DynamicResources' verdict on one node, as plain JSON-able data, computed with
the allocator's own pieces (pools, selectors, device attributes) so that the explanation cannot
disagree with the verdict it explains."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from kexplain.model.dra import ALL, Device, DeviceClass, ExactRequest, ResourceClaim, ResourceSlice, device_id_str
from kexplain.plugins.dra import capacity as cc
from kexplain.plugins.dra.allocator import ClaimAllocation
from kexplain.plugins.dra.claims import ClaimLookupError, claim_name
from kexplain.plugins.dra.features import blocking_taint, capacities, requested_capacity
from kexplain.plugins.dra.inventory import Inventory
from kexplain.plugins.dra.pools import Pool, PoolError, device_matches, gather_pools
from kexplain.plugins.dra.selectors import Owner, SelectorError, Selectors, cel_module
from kexplain.plugins.dra.variant import (CONSUMABLE_CAPACITY, DEFAULT_RULES, DEVICE_TAINTS, PARTITIONABLE_DEVICES,
                                          AllocatorRules)

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import Node
    from kexplain.model.pod import PodInfo
    from kexplain.plugins.dra.state import DraState

MAX_DEVICES = 64   # devices listed per request; the rest are counted

# Why a device cannot serve a request, in the order they are checked for the explanation.
POOL_INCOMPLETE = "poolIncomplete"
POOL_INVALID = "poolInvalid"
BINDING_CONDITIONS = "bindingConditions"
SELECTOR_FALSE = "selectorFalse"
SELECTOR_ERROR = "selectorError"
IN_USE = "inUse"
CONSUMES_COUNTERS = "consumesCounters"
TAINTED = "tainted"
CAPACITY = "capacity"
FREE = "free"


def explain_node(state: "DraState", node: "Node", pods: Iterable["PodInfo"] = ()) -> dict[str, Any] | None:
    """The facts for one node (None for a pod without claims): the Filter verdict, the pools the node
    sees, per claim its allocation or per request each device's reason, the constraints and what
    would be allocated, and per device class its devices in use and free, as the version's allocator
    sees them (the schema: docs/internals/plugins.md, "DRA explain_node")."""
    inv = state.inventory
    if inv is None or not state.claims:
        return None
    outcome = state.outcome(node)
    facts: dict[str, Any] = {"verdict": _verdict(outcome)}
    try:
        pools = list(outcome.pools) or gather_pools(inv.slices, node, state.candidates(node), state.rules)
    except PoolError as err:
        facts["poolsError"] = str(err)
        pools = []
    pools = [_node_devices(p, node) for p in pools]
    facts["pools"] = [_pool_facts(p) for p in pools]
    allocations = {a.claim: a for a in outcome.allocations or ()}
    rules = state.rules
    facts["claims"] = [_claim_facts(inv, pools, claim, i in outcome.unavailable, allocations.get(claim.key), rules)
                       for i, claim in enumerate(state.claims)]
    _name_pods(inv, facts["claims"], pods)
    facts["deviceClasses"] = [class_usage(inv, pools, inv.classes[name], rules)
                              for name in _class_names(state.claims) if name in inv.classes]
    return facts


def _node_devices(pool: Pool, node: "Node") -> Pool:
    """The pool with only the devices available on the node: a slice with per-device node
    selection also lists other nodes' devices."""
    if not any(s.per_device_node_selection for s in pool.slices):
        return pool
    slices = []
    for s in pool.slices:
        if s.per_device_node_selection:
            try:
                s = replace(s, devices=tuple(d for d in s.devices if device_matches(d, node)))
            except PoolError:
                pass    # the allocator reports it
        slices.append(s)
    return replace(pool, slices=tuple(slices))


def claim_users(inv: Inventory, pods: Iterable["PodInfo"], wanted: Iterable[str]) -> dict[str, list[str]]:
    """claim key -> the pods (namespace/name) among `pods` that use it, for the `wanted` claims: named in the
    pod's spec (directly, or through its status for a template) or listed in the claim's reservedFor. Why: a
    device in use is freed by its pods going, and people know pods, not claims."""
    wanted = set(wanted)
    if not wanted:
        return {}
    reserved: dict[str, list[str]] = {}
    for key in wanted:
        claim = inv.claims.get(key)
        for uid in claim.reserved_for if claim is not None else ():
            reserved.setdefault(uid, []).append(key)
    out: dict[str, list[str]] = {}
    for pod in pods:
        keys = list(reserved.get(str(pod.metadata.get("uid") or ""), ()))
        for entry in pod.spec.get("resourceClaims") or ():
            try:
                name, _ = claim_name(pod, entry)
            except ClaimLookupError:
                continue
            if name is not None:
                keys.append(f"{pod.namespace}/{name}")
        for key in dict.fromkeys(keys):
            if key in wanted:
                out.setdefault(key, []).append(pod.key)
    return out


def _in_use(claims: Sequence[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    """The in-use device verdicts of the claims' facts."""
    for c in claims:
        for r in c.get("requests") or ():
            for req in r.get("subrequests") or (r,):
                for d in req.get("devices") or ():
                    if d.get("reason") == IN_USE:
                        yield d


def _name_pods(inv: Inventory, claims: Sequence[dict[str, Any]], pods: Iterable["PodInfo"]) -> None:
    """Add `pods` to every in-use device verdict whose holding claims have known users."""
    users = claim_users(inv, pods, (k for d in _in_use(claims) for k in d.get("by") or ()))
    if not users:
        return
    for d in _in_use(claims):
        named = [p for k in d.get("by") or () for p in users.get(k, ())]
        if named:
            d["pods"] = list(dict.fromkeys(named))


def _verdict(outcome) -> dict[str, Any]:
    if outcome.error:
        return {"code": "Error", "error": outcome.error}
    if outcome.unschedulable:
        return {"code": "UnschedulableAndUnresolvable", "reason": outcome.unschedulable}
    return {"code": "Success"}


def _pool_facts(pool: Pool) -> dict[str, Any]:
    out: dict[str, Any] = {"pool": pool.id, "slices": len(pool.slices),
                           "devices": sum(len(s.devices) for s in pool.slices)}
    if pool.incomplete:
        out["incomplete"] = True
        if pool.usable:
            out["allocatable"] = True     # before 1.35 its devices are allocated all the same
    if pool.invalid:
        out["invalid"] = pool.invalid_reason
    return out


def _class_names(claims: Iterable[ResourceClaim]) -> list[str]:
    names: dict[str, None] = {}
    for claim in claims:
        if claim.allocation is not None:
            continue
        for r in claim.requests:
            for req in ((r.exactly,) if r.exactly is not None else r.first_available):
                if req.device_class_name:
                    names[req.device_class_name] = None
    return list(names)


def _claim_facts(inv: Inventory, pools: Sequence[Pool], claim: ResourceClaim, unavailable: bool,
                 allocation: ClaimAllocation | None, rules: AllocatorRules = DEFAULT_RULES) -> dict[str, Any]:
    out: dict[str, Any] = {"claim": claim.key}
    if claim.allocation is not None:
        out.update(allocated=True, availableOnNode=not unavailable,
                   devices=[device_id_str(r.id) for r in claim.allocation.results],
                   reservedFor=len(claim.reserved_for))
        return out
    out["allocated"] = False
    requests = []
    for r in claim.requests:
        if r.exactly is not None:
            requests.append(request_facts(inv, pools, claim, r.exactly, rules=rules))
            continue
        chosen = _chosen_subrequest(r.name, allocation)
        requests.append({"request": r.name, "chosen": chosen,
                         "subrequests": [request_facts(inv, pools, claim, sub, r.name, rules)
                                         for sub in r.first_available]})
    out["requests"] = requests
    if claim.constraints:
        out["constraints"] = [constraint_facts(inv, pools, claim, i, rules) for i in range(len(claim.constraints))]
    out["wouldAllocate"] = None if allocation is None else [
        {"request": d.request, "device": device_id_str(d.id), **({"adminAccess": True} if d.admin_access else {})}
        for d in allocation.devices]
    return out


def _chosen_subrequest(name: str, allocation: ClaimAllocation | None) -> str | None:
    if allocation is None:
        return None
    for d in allocation.devices:
        base, sep, sub = d.request.partition("/")
        if sep and base == name:
            return sub
    return None


def _devices(pools: Sequence[Pool]) -> Iterable[tuple[Pool, ResourceSlice, Device]]:
    for pool in pools:
        for s in pool.slices:
            for d in s.devices:
                yield pool, s, d


def device_verdict(inv: Inventory, pool: Pool, s: ResourceSlice, d: Device, cls: DeviceClass | None,
                   claim: ResourceClaim, req: ExactRequest, rules: AllocatorRules = DEFAULT_RULES) -> dict[str, Any]:
    """Why one device can (FREE) or cannot serve the request, with the details of the first reason found,
    checked in the allocator's order as `rules` has it (pool, binding, selectors, use, counters, taints, capacity)."""
    did = (s.driver, s.pool, d.name)
    out: dict[str, Any] = {"device": device_id_str(did)}
    if pool.invalid:
        return {**out, "reason": POOL_INVALID, "detail": pool.invalid_reason}
    if not pool.usable:
        return {**out, "reason": POOL_INCOMPLETE}
    if d.binding_conditions and not rules.binding_conditions:
        return {**out, "reason": BINDING_CONDITIONS}
    checks = [(Owner("class", cls.name), cls.selectors)] if cls is not None else []
    checks.append((Owner("claim", claim.key), req.selectors))
    for owner, selectors in checks:
        failed = selector_failure(inv.selectors, owner, selectors, d)
        if failed is not None:
            return {**out, **failed}
    shared = rules.has(CONSUMABLE_CAPACITY)
    holders = inv.in_use_for(shared).get(did)
    if holders and not req.uses_admin_access:
        return {**out, "reason": IN_USE, "by": list(holders)}
    if d.consumes_counters and not rules.has(PARTITIONABLE_DEVICES):
        return {**out, "reason": CONSUMES_COUNTERS}
    taint = blocking_taint(d, req, rules.variant.taints_by_effect) if rules.has(DEVICE_TAINTS) else None
    if taint is not None:
        return {**out, "reason": TAINTED, "taint": str(taint)}
    if shared and not _capacity_left(inv, did, d, req):
        return {**out, "reason": CAPACITY}
    return {**out, "reason": FREE}


def _capacity_left(inv: Inventory, did: tuple[str, str, str], d: Device, req: ExactRequest) -> bool:
    """One more share of the request fits the device, on top of its existing shares."""
    allocated: cc.Consumed = {}
    for one in inv.shares.get(did, ()):
        if one is not None:
            cc.add(allocated, {str(k): cc.amount(v) for k, v in one.items()})
    try:
        return cc.fits(requested_capacity(req), capacities(d), allocated, {})
    except cc.UnknownCapacity:
        return False


def selector_failure(selectors: Selectors, owner: Owner, expressions: Sequence[str | None],
                     d: Device) -> dict[str, Any] | None:
    """The first selector that is false or fails for the device, with what it read; None when all are true."""
    try:
        verdict = selectors.match(owner, expressions, d)
    except SelectorError as err:
        return {"reason": SELECTOR_ERROR, "error": str(err)}
    if verdict.matched:
        return None
    index = verdict.failed
    assert index is not None
    expression = expressions[index] or ""
    out: dict[str, Any] = {"reason": SELECTOR_FALSE, "selector": {"owner": str(owner), "index": index,
                                                                  "expression": expression}}
    try:
        why = selectors.program(owner, index, expression).explain(selectors.device_input(d))
    except (SelectorError, cel_module().CelError):   # explaining is best effort; the verdict stands
        return out
    out["selector"].update(conjunct=why.conjunct, summary=why.summary(),
                           values=[{"expression": st.text, **({"value": st.value} if st.error is None
                                                              else {"error": st.error})} for st in why.steps])
    return out


def request_facts(inv: Inventory, pools: Sequence[Pool], claim: ResourceClaim, req: ExactRequest,
                  parent: str | None = None, rules: AllocatorRules = DEFAULT_RULES) -> dict[str, Any]:
    cls = inv.classes.get(req.device_class_name)
    out: dict[str, Any] = {"request": req.name if parent is None else f"{parent}/{req.name}",
                           "deviceClass": req.device_class_name, "allocationMode": req.allocation_mode}
    if req.allocation_mode != ALL:
        out["count"] = req.count
    if req.uses_admin_access:
        out["adminAccess"] = True
    if cls is None:
        out["deviceClassMissing"] = True
    verdicts = [device_verdict(inv, pool, s, d, cls, claim, req, rules) for pool, s, d in _devices(pools)]
    out["free"] = sum(1 for v in verdicts if v["reason"] == FREE)
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v["reason"]] = counts.get(v["reason"], 0) + 1
    out["reasons"] = counts      # every device counted, also those past MAX_DEVICES
    out["devices"] = verdicts[:MAX_DEVICES]
    if len(verdicts) > MAX_DEVICES:
        out["moreDevices"] = len(verdicts) - MAX_DEVICES
    return out


def constraint_facts(inv: Inventory, pools: Sequence[Pool], claim: ResourceClaim, index: int,
                     rules: AllocatorRules = DEFAULT_RULES) -> dict[str, Any]:
    """A matchAttribute constraint over the free devices of the requests it covers: which value
    each has (grouped) and which lack the attribute."""
    c = claim.constraints[index]
    out: dict[str, Any] = {"index": index, "requests": list(c.requests), "matchAttribute": c.match_attribute}
    if c.distinct_attribute is not None:
        out["distinctAttribute"] = c.distinct_attribute
    if c.match_attribute is None:
        return out
    by_value: dict[str, list[str]] = {}
    missing: list[str] = []
    seen: set[str] = set()
    for r in claim.requests:
        for req, name in ((r.exactly, r.name),) if r.exactly is not None else \
                ((sub, f"{r.name}/{sub.name}") for sub in r.first_available):
            if c.requests and r.name not in c.requests and name not in c.requests:
                continue
            cls = inv.classes.get(req.device_class_name)
            for pool, s, d in _devices(pools):
                v = device_verdict(inv, pool, s, d, cls, claim, req, rules)
                if v["reason"] != FREE or v["device"] in seen:
                    continue
                seen.add(v["device"])
                attr = d.attribute(c.match_attribute)
                if attr is None:
                    missing.append(v["device"])
                else:
                    by_value.setdefault(f"{attr[0]}:{attr[1]}", []).append(v["device"])
    out["values"] = [{"value": k, "devices": v} for k, v in by_value.items()]
    out["missing"] = missing
    return out


def class_usage(inv: Inventory, pools: Sequence[Pool], cls: DeviceClass,
                rules: AllocatorRules = DEFAULT_RULES) -> dict[str, Any]:
    """The node's devices of a class (its selectors true) in usable pools: total, in use, free."""
    total = in_use = errors = unusable = 0
    owner = Owner("class", cls.name)
    for pool, s, d in _devices(pools):
        try:
            if not inv.selectors.match(owner, cls.selectors, d).matched:
                continue
        except SelectorError:
            errors += 1
            continue
        if not pool.usable:
            unusable += 1
            continue
        total += 1
        if (s.driver, s.pool, d.name) in inv.in_use_for(rules.has(CONSUMABLE_CAPACITY)):
            in_use += 1
    out = {"deviceClass": cls.name, "total": total, "inUse": in_use, "free": total - in_use}
    if unusable:
        out["inUnusablePools"] = unusable
    if errors:
        out["selectorErrors"] = errors
    return out

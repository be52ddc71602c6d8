"""The structured allocator: which devices of a node's pools the pod's unallocated claims get.

One depth-first search for every allocator kube-scheduler runs, the version's differences in
`AllocatorRules`; it keeps the real allocator's quirks that decide verdicts (the subrequest cache
key before 1.36, the 32-results budget), listed in docs/internals/plugins.md. `allocate` raises
`AllocatorError` for the scheduler's Errors and `NodeFailure` for this node alone."""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from itertools import count
from typing import TYPE_CHECKING, Any, Callable, Collection, Mapping, Sequence

from kexplain.apimachinery.quantity import canonical
from kexplain.model.dra import (ALL, EXACT_COUNT, Device, DeviceClass, DeviceID, ExactRequest, ResourceClaim,
                                ResourceSlice, device_id_str)
from kexplain.plugins.dra import capacity as cc
from kexplain.plugins.dra.constraints import DistinctAttribute, MatchAttribute
from kexplain.plugins.dra.counters import Counters
from kexplain.plugins.dra.features import (allows_multiple, binding_conditions, binding_failure_conditions,
                                           binds_to_node, blocking_taint, capacities, device_node_fields,
                                           has_capacity, requested_capacity)
from kexplain.plugins.dra.pools import Pool, PoolError, device_matches
from kexplain.plugins.dra.selectors import Owner, SelectorError, Selectors
from kexplain.plugins.dra.variant import (ADMIN_ACCESS, CONSUMABLE_CAPACITY, DEFAULT_RULES, DEVICE_TAINTS,
                                          PARTITIONABLE_DEVICES, PRIORITIZED_LIST, AllocatorRules)

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import Node

__all__ = ["MAX_RESULTS", "AllocatorError", "NodeFailure", "AllocatedDevice", "ClaimAllocation", "MatchAttribute",
           "allocate", "node_selector"]

MAX_RESULTS = 32   # resourceapi.AllocationResultsMaxSize


class AllocatorError(Exception):
    """The allocator failed for a reason that is not about this node: the cycle ends in Error."""


class NodeFailure(Exception):
    """No solution on this node, for a reason the scheduler names (invalid pools)."""


INVALID_POOLS = "invalid resource pools were encountered"


class _BudgetExceeded(Exception):
    """A claim would get more than MAX_RESULTS devices on this path (errAllocationResultMaxSizeExceeded)."""


@dataclass(frozen=True)
class AllocatedDevice:
    request: str          # the request's name, or `request/subrequest`
    driver: str
    pool: str
    device: str
    admin_access: bool = False
    slice: ResourceSlice | None = field(default=None, compare=False, repr=False)
    # What the result records with the features on: the device's binding conditions, the
    # request's tolerations, a share of the device and what the share consumes.
    dev: Device | None = field(default=None, compare=False, repr=False)
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()
    tolerations: tuple[Mapping[str, Any], ...] = field(default=(), compare=False)
    share_id: str | None = None
    consumed: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def id(self) -> DeviceID:
        return self.driver, self.pool, self.device


@dataclass(frozen=True)
class ClaimAllocation:
    """The allocation a claim would get: its devices in order and the node selector of the result."""

    claim: str
    devices: tuple[AllocatedDevice, ...]
    node_selector: Mapping[str, Any] | None = None


@dataclass
class _Request:
    """A request (or subrequest) ready for the search: validated, with its class."""

    request: ExactRequest
    parent: str | None           # the request's name for a subrequest
    device_class: DeviceClass
    num_devices: int
    all_devices: list[tuple[DeviceID, Device, ResourceSlice, Pool]] | None = None   # All mode

    @property
    def full_name(self) -> str:
        return f"{self.parent}/{self.request.name}" if self.parent is not None else self.request.name

    @property
    def base_and_sub(self) -> tuple[str, str]:
        if self.parent is None:
            return self.request.name, ""
        return self.parent, self.request.name


Location = tuple[int, int, int]   # (pool, slice, device) index where the search for a device starts


class _Search:
    """One Allocate call: the prepared requests and the search's mutable state."""

    def __init__(self, claims: Sequence[ResourceClaim], classes: Mapping[str, DeviceClass],
                 pools: Sequence[Pool], in_use: Collection[DeviceID], selectors: Selectors,
                 rules: AllocatorRules = DEFAULT_RULES, node: "Node | None" = None,
                 shares: Mapping[DeviceID, Sequence[Mapping[str, Any]]] | None = None,
                 allocated: Collection[DeviceID] | None = None) -> None:
        self.rules = rules
        self.claims = claims
        self.classes = classes
        self.pools = pools
        self.in_use = in_use
        self.selectors = selectors
        self.node = node
        self.requests: dict[tuple[int, int, int], _Request] = {}
        self.constraints: list[list[MatchAttribute | DistinctAttribute]] = []
        self.selectable_cache: dict[tuple[DeviceID, tuple[int, int, int]], bool] = {}
        self.allocating: dict[DeviceID, set[int]] = {}
        self.results: list[list[AllocatedDevice]] = [[] for _ in claims]
        self.failed: set[tuple[Any, ...]] = set()
        self.shared = rules.has(CONSUMABLE_CAPACITY)
        self.taints = rules.has(DEVICE_TAINTS)
        self.partitionable = rules.has(PARTITIONABLE_DEVICES)
        self.binding = rules.binding_conditions
        self.counters = Counters(in_use if allocated is None else allocated)
        # Consumable capacity: what the device's allocations consume, and this attempt's shares.
        self.allocated_capacity: dict[DeviceID, cc.Consumed] = {}
        for did, consumed in (shares or {}).items():
            total: cc.Consumed = {}
            for one in consumed:
                if one is not None:
                    cc.add(total, {str(k): cc.amount(v) for k, v in one.items()})
            if any(one is not None for one in consumed):
                self.allocated_capacity[did] = total
        self.allocating_capacity: dict[DeviceID, cc.Consumed] = {}

    # -- preparation ------------------------------------------------------------------------
    def prepare(self) -> None:
        for ci, claim in enumerate(self.claims):
            minimum = 0
            for ri, request in enumerate(claim.requests):
                if request.first_available and not self.rules.has(PRIORITIZED_LIST):
                    raise AllocatorError(f"claim {claim.key}, request {request.name}: has subrequests, but the "
                                         "DRAPrioritizedList feature is disabled")
                self._check_capacity_feature(claim, request)
                if request.first_available:
                    fewest = None
                    for si, sub in enumerate(request.first_available):
                        # Before 1.36 devices are looked up under the previous subrequest's key.
                        lookup = si if self.rules.subrequest_key_fix else max(si - 1, 0)
                        data = self._prepare_one(ci, sub, request.name, (ci, ri, lookup))
                        self.requests[(ci, ri, si)] = data
                        fewest = data.num_devices if fewest is None else min(fewest, data.num_devices)
                    minimum += fewest or 0
                else:
                    assert request.exactly is not None   # PreFilter refused requests of no known type
                    data = self._prepare_one(ci, request.exactly, None, (ci, ri, 0))
                    self.requests[(ci, ri, 0)] = data
                    minimum += data.num_devices
            if minimum > MAX_RESULTS:
                raise AllocatorError(f"claim {claim.key}: number of requested devices {minimum} exceeds the "
                                     f"claim limit of {MAX_RESULTS}")
            constraints: list[MatchAttribute | DistinctAttribute] = []
            for i, c in enumerate(claim.constraints):
                if c.match_attribute is not None:
                    constraints.append(MatchAttribute(c.match_attribute, c.requests))
                elif c.distinct_attribute is not None and self.rules.knows_capacity:
                    constraints.append(DistinctAttribute(c.distinct_attribute, c.requests))
                else:
                    raise AllocatorError(f"claim {claim.key}, constraint #{i}: empty constraint "
                                         "(unsupported constraint type?)")
            self.constraints.append(constraints)
        self.selectable_cache.clear()

    def _check_capacity_feature(self, claim: ResourceClaim, request: Any) -> None:
        """An allocator that knows consumable capacity refuses capacity requests while it is off."""
        if not self.rules.knows_capacity or self.shared:
            return
        if request.exactly is not None and has_capacity(request.exactly):
            raise AllocatorError(f"claim {claim.key}, request {request.name}: has capacity requests, but the "
                                 "DRAConsumableCapacity feature is disabled")
        for sub in request.first_available:
            if has_capacity(sub):
                what = f"subrequest {sub.name}" if self.rules.capacity_subrequest_text else f"request {request.name}"
                raise AllocatorError(f"claim {claim.key}, {what}: has capacity requests, but the "
                                     "DRAConsumableCapacity feature is disabled")

    def _prepare_one(self, ci: int, req: ExactRequest, parent: str | None, key: tuple[int, int, int]) -> _Request:
        claim = self.claims[ci]
        for i, expression in enumerate(req.selectors):
            if expression is None:
                raise AllocatorError(f"claim {claim.key}, request {req.name}, selector #{i}: CEL expression empty "
                                     "(unsupported selector type?)")
        if req.uses_admin_access and not self.rules.has(ADMIN_ACCESS):
            raise AllocatorError(f"claim {claim.key}, request {req.name}: admin access is requested, but the "
                                 "feature is disabled")
        if not req.device_class_name:
            raise AllocatorError(f"claim {claim.key}, request {req.name}: missing device class name "
                                 "(unsupported request type?)")
        cls = self.classes.get(req.device_class_name)
        if cls is None:
            raise AllocatorError(f"claim {claim.key}, request {req.name}: could not retrieve device class "
                                 f'{req.device_class_name}: deviceclass.resource.k8s.io "{req.device_class_name}" '
                                 "not found")
        data = _Request(req, parent, cls, 0)
        if req.allocation_mode == EXACT_COUNT:
            data.num_devices = req.count
        elif req.allocation_mode == ALL:
            found: list[tuple[DeviceID, Device, ResourceSlice, Pool]] = []
            for pool in self.pools:
                if pool.incomplete:
                    raise AllocatorError(f"claim {claim.key}, request {req.name}: asks for all devices, but "
                                         f"resource pool {pool.id} is currently being updated")
                if pool.invalid:
                    raise AllocatorError(f"claim {claim.key}, request {req.name}: asks for all devices, but "
                                         f"resource pool {pool.id} is currently invalid")
                for s in pool.slices:
                    for d in s.devices:
                        did = (s.driver, s.pool, d.name)
                        if self.selectable(key, data, s, d) and self._capacity_fits(data, did, d):
                            found.append((did, d, s, pool))
            data.all_devices = found
            data.num_devices = len(found)
        else:
            raise AllocatorError(f"claim {claim.key}, request {req.name}: unsupported count mode "
                                 f"{req.allocation_mode}")
        return data

    # -- device checks --------------------------------------------------------------------------
    def selectable(self, key: tuple[int, int, int], data: _Request, s: ResourceSlice, d: Device) -> bool:
        """isSelectable: binding conditions only with that feature on, the class's selectors,
        then the request's, then a device's own node selection (cached per device and key)."""
        if d.binding_conditions and not self.binding:
            return False
        cache_key = ((s.driver, s.pool, d.name), key)
        known = self.selectable_cache.get(cache_key)
        if known is not None:
            return known
        ok = (self.selectors.match(Owner("class", data.device_class.name), data.device_class.selectors, d).matched
              and self.selectors.match(Owner("claim", self.claims[key[0]].key), data.request.selectors, d).matched)
        if ok and s.per_device_node_selection and self.node is not None:
            try:
                ok = device_matches(d, self.node)
            except PoolError as err:
                raise AllocatorError(str(err)) from None
        self.selectable_cache[cache_key] = ok
        return ok

    def _capacity_fits(self, data: _Request, did: DeviceID, d: Device) -> bool:
        """CmpRequestOverCapacity (consumable capacity on): one more share of the request fits
        the device; a request naming a capacity the device lacks never does."""
        if not self.shared:
            return True
        try:
            return cc.fits(requested_capacity(data.request), capacities(d), self.allocated_capacity.get(did, {}),
                           self.allocating_capacity.get(did, {}))
        except cc.UnknownCapacity:
            return False

    def _busy(self, did: DeviceID, ci: int, admin: bool) -> bool:
        """Admin access may share a device with other claims, but (from 1.34) not within its own claim."""
        if admin:
            return self.rules.admin_same_claim and ci in self.allocating.get(did, ())
        return did in self.in_use or bool(self.allocating.get(did))

    def _share_id(self, ci: int, data: _Request, did: DeviceID) -> str:
        """A share's ID: random in the scheduler; kexplain derives one from what it shares."""
        return str(uuid.uuid5(uuid.NAMESPACE_OID, f"{self.claims[ci].key}/{data.full_name}/"
                                                  f"{device_id_str(did)}/{len(self.results[ci])}"))

    def _take(self, ci: int, data: _Request, did: DeviceID, d: Device, s: ResourceSlice, pool: Pool,
              must: bool) -> Callable[[], None] | None:
        """allocateDevice: add the device to claim `ci` if nothing forbids it; the undo, or None."""
        admin = data.request.uses_admin_access
        multiple = self.shared and allows_multiple(d)
        if not multiple and admin and self.rules.admin_same_claim and ci in self.allocating.get(did, ()):
            return None
        if not admin and (did in self.in_use or self.allocating.get(did)):
            return None
        if d.consumes_counters and not self.partitionable:
            return None
        reserved = False
        if d.consumes_counters and not (multiple and (did in self.allocated_capacity or did in self.allocating_capacity)):
            if not self.counters.reserve(pool, d):
                return None
            reserved = True

        def release_counters() -> None:
            if reserved and self.rules.counter_rollback_fix:
                self.counters.release(pool, d)

        if self.taints and blocking_taint(d, data.request, self.rules.variant.taints_by_effect) is not None:
            release_counters()
            return None
        base, sub = data.base_and_sub
        constraints = self.constraints[ci]
        for i, c in enumerate(constraints):
            if not c.add(base, sub, d):
                for earlier in reversed(constraints[:i]):
                    earlier.remove(base, sub)
                release_counters()
                if must:
                    raise AllocatorError(f"claim {self.claims[ci].key}, request {data.request.name}: cannot add "
                                         f"device {device_id_str(did)} because a claim constraint would not be "
                                         "satisfied")
                return None
        if not multiple:
            self.allocating.setdefault(did, set()).add(ci)
        share_id, consumed, existed = None, {}, False
        if self.shared:
            if not self._capacity_fits(data, did, d):
                if not multiple:
                    self.allocating[did].discard(ci)
                for c in reversed(constraints):
                    c.remove(base, sub)
                release_counters()
                return None
            if multiple:
                consumed = cc.consumed_by(requested_capacity(data.request), capacities(d))
                existed = did in self.allocating_capacity
                cc.add(self.allocating_capacity.setdefault(did, {}), consumed)
                share_id = self._share_id(ci, data, did)
        results = self.results[ci]
        before = len(results)
        results.append(AllocatedDevice(
            data.full_name, did[0], did[1], did[2], admin, s, d,
            tuple(binding_conditions(d)) if self.binding else (),
            tuple(binding_failure_conditions(d)) if self.binding else (),
            tuple(data.request.raw.get("tolerations") or ()) if self.taints else (),
            share_id, {k: canonical(v) for k, v in consumed.items()}))

        def undo() -> None:
            del results[before:]
            if multiple:
                left = self.allocating_capacity[did]
                cc.sub(left, consumed)
                if all(q.value == 0 for q in left.values()):
                    # Emptied: gone, unless an earlier share had it (it stays a share, with nothing).
                    if existed:
                        self.allocating_capacity[did] = {}
                    else:
                        del self.allocating_capacity[did]
            if not multiple:
                self.allocating[did].discard(ci)
            for c in reversed(constraints):
                c.remove(base, sub)
            if reserved:
                self.counters.release(pool, d)
        return undo

    # -- the search -------------------------------------------------------------------------------
    def run(self) -> bool:
        try:
            return self._next(0, 0, 0, 0, False, (0, 0, 0))
        except _BudgetExceeded:
            raise AllocatorError("allocation max size exceeded") from None

    def _state_key(self, *position: Any) -> tuple[Any, ...]:
        """Everything the rest of the search depends on: where it stands, which devices the claims hold, the
        constraints' values and what is consumed of counters and shared capacity (a share holds no device).
        Two paths that took the same devices in a different order reach the same key."""
        held = frozenset((did, ci) for did, cis in self.allocating.items() for ci in cis)
        sizes = tuple(len(r) for r in self.results)
        fixed = tuple(c.state() for cs in self.constraints for c in cs)
        counters = self.counters.state() if self.partitionable else None
        shared = tuple(sorted((did, tuple(sorted((name, q.value) for name, q in c.items())))
                              for did, c in self.allocating_capacity.items())) if self.shared else None
        return position, held, sizes, fixed, counters, shared

    def _next(self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: Location) -> bool:
        """Allocate device `di` of request `ri` (subrequest `si`) of claim `ci` from `start` on, then the
        rest; a failed position is remembered (the search is deterministic: the real allocator only
        spends time exploring every order again)."""
        if ci >= len(self.claims):
            return True
        key = self._state_key(ci, ri, si, di, in_sub, start)
        if key in self.failed:
            return False
        done = self._step(ci, ri, si, di, in_sub, start)
        if not done:
            self.failed.add(key)
        return done

    def _step(self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: Location) -> bool:
        if ri >= len(self.claims[ci].requests):
            try:
                return self._next(ci + 1, 0, 0, 0, False, (0, 0, 0))
            except _BudgetExceeded:
                return False
        data = self.requests[(ci, ri, si)]
        if not in_sub and data.parent is not None:
            return self._first_available(ci, ri, di)
        if data.all_devices is not None and not data.all_devices:
            return False
        if di >= data.num_devices:
            return self._next(ci, ri + 1, 0, 0, False, (0, 0, 0))
        if len(self.results[ci]) + data.num_devices - di > MAX_RESULTS:
            raise _BudgetExceeded
        if data.all_devices is not None:
            did, d, s, pool = data.all_devices[di]
            undo = self._take(ci, data, did, d, s, pool, must=True)
            if undo is None:
                return False
            try:   # before 1.36, sic: the subrequest index is dropped
                done = self._next(ci, ri, si if self.rules.subrequest_key_fix else 0, di + 1, in_sub, (0, 0, 0))
            except BaseException:
                undo()
                raise
            if not done:
                undo()
            return done
        key = (ci, ri, si)
        admin = data.request.uses_admin_access
        if self._too_few(key, ci, admin, data.num_devices - di):
            return False
        first_pool, first_slice, first_device = start if self.rules.combinations else (0, 0, 0)
        fatal_invalid, shared = not self.rules.cluster_wide_pools, self.shared
        for pi in range(first_pool, len(self.pools)):
            pool = self.pools[pi]
            if fatal_invalid and pool.invalid:
                raise AllocatorError(f"pool {pool.name} is invalid: {pool.invalid_reason}")
            if not pool.usable:
                continue
            for sj in range(first_slice if pi == first_pool else 0, len(pool.slices)):
                s = pool.slices[sj]
                devices = s.devices
                for dk in range(first_device if pi == first_pool and sj == first_slice else 0, len(devices)):
                    d = devices[dk]
                    did = (pool.driver, pool.name, d.name)
                    if self._busy(did, ci, admin) or not self.selectable(key, data, s, d):
                        continue
                    if shared and not self._capacity_fits(data, did, d):
                        continue
                    undo = self._take(ci, data, did, d, s, pool, must=False)
                    if undo is None:
                        continue
                    try:
                        done = self._next(ci, ri, si, di + 1, in_sub, (pi, sj, dk + 1))
                    except BaseException:
                        undo()
                        raise
                    if done:
                        return True
                    undo()
        return False

    def _too_few(self, key: tuple[int, int, int], ci: int, admin: bool, need: int) -> bool:
        """Whether fewer devices are left than the request's `need`, known without running a selector not
        run yet (that one fails when the real allocator meets it), no invalid pool ahead and no shared
        device: then no order can succeed and the search is cut short with the same answer."""
        if not self.rules.cluster_wide_pools and any(p.invalid for p in self.pools):
            return False
        found = 0
        binding, partitionable, shared, cache = self.binding, self.partitionable, self.shared, self.selectable_cache
        for pool in self.pools:
            if not pool.usable:
                continue
            for s in pool.slices:
                for d in s.devices:
                    if (d.binding_conditions and not binding) or (d.consumes_counters and not partitionable):
                        continue
                    if shared and allows_multiple(d):
                        return False
                    did = (pool.driver, pool.name, d.name)
                    if self._busy(did, ci, admin):
                        continue
                    known = cache.get((did, key))
                    if known is None:
                        return False
                    if known:
                        found += 1
                        if found >= need:
                            return False
        return True

    def _first_available(self, ci: int, ri: int, di: int) -> bool:
        """The subrequests in order; the first that leads to a complete solution wins."""
        all_exceeded = True
        for si in count():
            if (ci, ri, si) not in self.requests:
                if all_exceeded:
                    raise _BudgetExceeded
                return False
            try:
                done = self._next(ci, ri, si, di, True, (0, 0, 0))
            except _BudgetExceeded:
                continue
            all_exceeded = False
            if done:
                return True
        raise AssertionError("unreachable")  # pragma: no cover

    # -- the result ---------------------------------------------------------------------------------
    def allocations(self) -> list[ClaimAllocation]:
        out = []
        for claim, devices in zip(self.claims, self.results):
            try:
                selector = node_selector(devices, self.node.name if self.node is not None else "",
                                         self.rules.knows_binding_conditions)
            except ValueError as err:
                raise AllocatorError(f"create NodeSelector for claim {claim.name}: {err}") from None
            out.append(ClaimAllocation(claim.key, tuple(devices), selector))
        return out


def node_selector(devices: Sequence[AllocatedDevice], node_name: str = "",
                  binding: bool = False) -> Mapping[str, Any] | None:
    """createNodeSelector: the node a nodeName slice's device (or perDeviceNodeSelection's, or one that
    `bindsToNode` with `binding`) pins the claim to, else the single-term selectors' requirements
    merged, else None (all nodes); ValueError for a selector of several terms."""
    fields: list[Mapping[str, Any]] = []
    expressions: list[Mapping[str, Any]] = []
    for dev in devices:
        s = dev.slice
        if s is None:
            continue
        if s.per_device_node_selection and dev.dev is not None:
            own, _, selector = device_node_fields(dev.dev)
        else:
            own, selector = s.node_name, s.node_selector
        if own or (binding and dev.dev is not None and binds_to_node(dev.dev)):
            return {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node_name or own]}]}]}
        terms = (selector or {}).get("nodeSelectorTerms") or []
        if len(terms) > 1:
            raise ValueError(f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
        if terms:
            _merge(terms[0].get("matchFields") or [], fields)
            _merge(terms[0].get("matchExpressions") or [], expressions)
    if not fields and not expressions:
        return None
    term: dict[str, Any] = {}
    if expressions:
        term["matchExpressions"] = expressions
    if fields:
        term["matchFields"] = fields
    return {"nodeSelectorTerms": [term]}


def _merge(new: Sequence[Mapping[str, Any]], into: list[Mapping[str, Any]]) -> None:
    for req in new:
        same = any(r.get("key") == req.get("key") and r.get("operator") == req.get("operator")
                   and set(r.get("values") or ()) == set(req.get("values") or ()) for r in into)
        if not same:
            into.append(req)


def allocate(claims: Sequence[ResourceClaim], classes: Mapping[str, DeviceClass], pools: Sequence[Pool],
             in_use: Collection[DeviceID], selectors: Selectors, rules: AllocatorRules = DEFAULT_RULES, *,
             node: "Node | None" = None, shares: Mapping[DeviceID, Sequence[Mapping[str, Any]]] | None = None,
             allocated: Collection[DeviceID] | None = None) -> list[ClaimAllocation] | None:
    """The devices each of `claims` gets from `pools` (one ClaimAllocation per claim), or None without
    a solution. `in_use` and `allocated`: devices taken (and counters consumed) in the cluster;
    `shares`: what shared devices' shares consume; raises AllocatorError or NodeFailure."""
    search = _Search(claims, classes, pools, in_use, selectors, rules, node, shares, allocated)
    try:
        search.prepare()
        done = search.run()
    except SelectorError as err:
        raise AllocatorError(str(err)) from None
    if not done:
        if rules.cluster_wide_pools and any(p.invalid for p in pools):
            raise NodeFailure(INVALID_POOLS)
        return None
    return search.allocations()

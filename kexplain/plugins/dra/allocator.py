"""The structured allocator: which devices of a node's pools the pod's unallocated claims get.

One implementation for every allocator kube-scheduler runs (`AllocatorRules`: the version's,
for its feature gates): a depth-first search over the claims, their requests (for
`firstAvailable`, the subrequests in order) and the devices each needs; the first complete
solution wins. Where the allocators differ, the rules say which way:

* before 1.35, devices of an incomplete pool are allocated, and reaching an invalid pool while
  looking for a device ends the cycle (`pool P is invalid: ...`); from 1.35 both are skipped,
  and a node with no solution and an invalid pool fails with "invalid resource pools were
  encountered";
* a feature that is off refuses what needs it (subrequests, admin access).

The search keeps the real allocator's quirks, since they decide verdicts:

* before 1.36, while preparing a request's subrequests, the device-selection cache is keyed
  with the previous subrequest's index, so an `All` subrequest that follows another `All`
  subrequest gets that one's devices; and after the first device of an `All` subrequest, the
  search continues with subrequest 0's data (the real code forgets the subrequest index there);
* running out of the 32-results budget is an error that a subrequest loop absorbs by trying
  the next subrequest, and a claim boundary absorbs as "no solution".

`allocate` is a pure function of its inputs (plus the selector cache); it raises
`AllocatorError` for what the scheduler reports as an Error and `NodeFailure` for what makes
only this node unschedulable.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from typing import Any, Callable, Mapping, Sequence

from kexplain.model.dra import (ALL, EXACT_COUNT, Attribute, Device, DeviceClass, DeviceID, ExactRequest,
                                ResourceClaim, ResourceSlice, device_id_str)
from kexplain.plugins.dra.pools import Pool
from kexplain.plugins.dra.selectors import Owner, SelectorError, Selectors
from kexplain.plugins.dra.variant import ADMIN_ACCESS, DEFAULT_RULES, PRIORITIZED_LIST, AllocatorRules

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
    all_devices: list[tuple[DeviceID, Device, ResourceSlice]] | None = None   # All mode

    @property
    def full_name(self) -> str:
        return f"{self.parent}/{self.request.name}" if self.parent is not None else self.request.name

    @property
    def base_and_sub(self) -> tuple[str, str]:
        if self.parent is None:
            return self.request.name, ""
        return self.parent, self.request.name


class MatchAttribute:
    """A `matchAttribute` constraint while devices are added to and removed from the claim:
    the first device fixes the value, every later one must carry the same typed value."""

    def __init__(self, attribute: str, requests: Sequence[str]) -> None:
        self.attribute = attribute
        self.requests = frozenset(requests)
        self.value: Attribute | None = None
        self.count = 0

    def applies(self, base: str, sub: str) -> bool:
        if not self.requests:
            return True
        return base in self.requests or (bool(sub) and f"{base}/{sub}" in self.requests)

    def add(self, base: str, sub: str, device: Device) -> bool:
        if not self.applies(base, sub):
            return True
        value = device.attribute(self.attribute)
        if value is None:
            return False
        if self.count == 0:
            self.value, self.count = value, 1
            return True
        if value[0] is None or value != self.value:
            return False
        self.count += 1
        return True

    def remove(self, base: str, sub: str) -> None:
        if self.applies(base, sub):
            self.count -= 1


class _Search:
    """One Allocate call: the prepared requests and the search's mutable state."""

    def __init__(self, claims: Sequence[ResourceClaim], classes: Mapping[str, DeviceClass],
                 pools: Sequence[Pool], in_use: frozenset[DeviceID] | set[DeviceID], selectors: Selectors,
                 rules: AllocatorRules = DEFAULT_RULES) -> None:
        self.rules = rules
        self.claims = claims
        self.classes = classes
        self.pools = pools
        self.in_use = in_use
        self.selectors = selectors
        self.requests: dict[tuple[int, int, int], _Request] = {}
        self.constraints: list[list[MatchAttribute]] = []
        self.selectable_cache: dict[tuple[DeviceID, tuple[int, int, int]], bool] = {}
        self.allocating: dict[DeviceID, set[int]] = {}
        self.results: list[list[AllocatedDevice]] = [[] for _ in claims]
        self.failed: set[tuple[Any, ...]] = set()

    # -- preparation ------------------------------------------------------------------------
    def prepare(self) -> None:
        for ci, claim in enumerate(self.claims):
            minimum = 0
            for ri, request in enumerate(claim.requests):
                if request.first_available and not self.rules.has(PRIORITIZED_LIST):
                    raise AllocatorError(f"claim {claim.key}, request {request.name}: has subrequests, but the "
                                         "DRAPrioritizedList feature is disabled")
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
            constraints = []
            for i, c in enumerate(claim.constraints):
                if c.match_attribute is None:
                    raise AllocatorError(f"claim {claim.key}, constraint #{i}: empty constraint "
                                         "(unsupported constraint type?)")
                constraints.append(MatchAttribute(c.match_attribute, c.requests))
            self.constraints.append(constraints)
        self.selectable_cache.clear()

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
            found: list[tuple[DeviceID, Device, ResourceSlice]] = []
            for pool in self.pools:
                if pool.incomplete:
                    raise AllocatorError(f"claim {claim.key}, request {req.name}: asks for all devices, but "
                                         f"resource pool {pool.id} is currently being updated")
                if pool.invalid:
                    raise AllocatorError(f"claim {claim.key}, request {req.name}: asks for all devices, but "
                                         f"resource pool {pool.id} is currently invalid")
                for s in pool.slices:
                    for d in s.devices:
                        if self.selectable(key, data, s, d):
                            found.append(((s.driver, s.pool, d.name), d, s))
            data.all_devices = found
            data.num_devices = len(found)
        else:
            raise AllocatorError(f"claim {claim.key}, request {req.name}: unsupported count mode "
                                 f"{req.allocation_mode}")
        return data

    # -- device checks --------------------------------------------------------------------------
    def selectable(self, key: tuple[int, int, int], data: _Request, s: ResourceSlice, d: Device) -> bool:
        """isSelectable: the class's selectors, then the request's (cached per device and key)."""
        if d.binding_conditions:
            return False
        cache_key = ((s.driver, s.pool, d.name), key)
        known = self.selectable_cache.get(cache_key)
        if known is not None:
            return known
        ok = (self.selectors.match(Owner("class", data.device_class.name), data.device_class.selectors, d).matched
              and self.selectors.match(Owner("claim", self.claims[key[0]].key), data.request.selectors, d).matched)
        self.selectable_cache[cache_key] = ok
        return ok

    def _busy(self, did: DeviceID, ci: int, admin: bool) -> bool:
        """Admin access may share a device with other claims, but not within its own claim."""
        if admin:
            return ci in self.allocating.get(did, ())
        return did in self.in_use or bool(self.allocating.get(did))

    def _take(self, ci: int, data: _Request, did: DeviceID, d: Device, s: ResourceSlice,
              must: bool) -> Callable[[], None] | None:
        """allocateDevice: add the device to claim `ci` if nothing forbids it; the undo, or None."""
        admin = data.request.uses_admin_access
        if self._busy(did, ci, admin):
            return None
        if d.consumes_counters:      # partitionable devices are off
            return None
        base, sub = data.base_and_sub
        constraints = self.constraints[ci]
        for i, c in enumerate(constraints):
            if not c.add(base, sub, d):
                if must:
                    raise AllocatorError(f"claim {self.claims[ci].key}, request {data.request.name}: cannot add "
                                         f"device {device_id_str(did)} because a claim constraint would not be "
                                         "satisfied")
                for earlier in constraints[:i]:
                    earlier.remove(base, sub)
                return None
        self.allocating.setdefault(did, set()).add(ci)
        results = self.results[ci]
        before = len(results)
        results.append(AllocatedDevice(data.full_name, did[0], did[1], did[2], admin, s))

        def undo() -> None:
            for c in constraints:
                c.remove(base, sub)
            self.allocating[did].discard(ci)
            del results[before:]
        return undo

    # -- the search -------------------------------------------------------------------------------
    def run(self) -> bool:
        try:
            return self._next(0, 0, 0, 0, False)
        except _BudgetExceeded:
            raise AllocatorError("allocation max size exceeded") from None

    def _state_key(self, *position: Any) -> tuple[Any, ...]:
        """Everything the rest of the search depends on: where it stands, which devices the
        claims hold, and the constraints' values. Two paths that took the same devices in a
        different order reach the same key."""
        held = frozenset((did, ci) for did, cis in self.allocating.items() for ci in cis)
        sizes = tuple(len(r) for r in self.results)
        fixed = tuple((c.value, c.count) if c.count else None for cs in self.constraints for c in cs)
        return position, held, sizes, fixed

    def _next(self, ci: int, ri: int, si: int, di: int, in_sub: bool) -> bool:
        """Allocate device `di` of request `ri` (subrequest `si`) of claim `ci`, then the rest.

        A position that failed once fails again (the search is deterministic, and an error
        would have ended it), so failures are remembered: the real allocator explores every
        order of the same devices, which only costs time."""
        if ci >= len(self.claims):
            return True
        key = self._state_key(ci, ri, si, di, in_sub)
        if key in self.failed:
            return False
        done = self._step(ci, ri, si, di, in_sub)
        if not done:
            self.failed.add(key)
        return done

    def _step(self, ci: int, ri: int, si: int, di: int, in_sub: bool) -> bool:
        if ri >= len(self.claims[ci].requests):
            try:
                return self._next(ci + 1, 0, 0, 0, False)
            except _BudgetExceeded:
                return False
        data = self.requests[(ci, ri, si)]
        if not in_sub and data.parent is not None:
            return self._first_available(ci, ri, di)
        if data.all_devices is not None and not data.all_devices:
            return False
        if di >= data.num_devices:
            return self._next(ci, ri + 1, 0, 0, False)
        if len(self.results[ci]) + data.num_devices - di > MAX_RESULTS:
            raise _BudgetExceeded
        if data.all_devices is not None:
            did, d, s = data.all_devices[di]
            undo = self._take(ci, data, did, d, s, must=True)
            if undo is None:
                return False
            try:   # before 1.36, sic: the subrequest index is dropped
                done = self._next(ci, ri, si if self.rules.subrequest_key_fix else 0, di + 1, in_sub)
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
        for pool in self.pools:
            if pool.invalid and not self.rules.cluster_wide_pools:
                raise AllocatorError(f"pool {pool.name} is invalid: {pool.invalid_reason}")
            if not pool.usable:
                continue
            for s in pool.slices:
                for d in s.devices:
                    did = (pool.driver, pool.name, d.name)
                    if self._busy(did, ci, admin) or not self.selectable(key, data, s, d):
                        continue
                    undo = self._take(ci, data, did, d, s, must=False)
                    if undo is None:
                        continue
                    try:
                        done = self._next(ci, ri, si, di + 1, in_sub)
                    except BaseException:
                        undo()
                        raise
                    if done:
                        return True
                    undo()
        return False

    def _too_few(self, key: tuple[int, int, int], ci: int, admin: bool, need: int) -> bool:
        """Whether fewer devices are left for the request than the `need` it still has, known
        without evaluating a selector the search has not evaluated yet: then no order of the
        remaining devices can succeed, and the search (which would try them all, as the real
        allocator does) is cut short with the same answer. A device whose selectors were not
        run yet means "not known": the search runs them in its own order, so that a selector
        that fails at run time fails exactly when the real allocator would meet it. Nor is it
        known while an invalid pool would end the search when reached (before 1.35)."""
        if not self.rules.cluster_wide_pools and any(p.invalid for p in self.pools):
            return False
        found = 0
        for pool in self.pools:
            if not pool.usable:
                continue
            for s in pool.slices:
                for d in s.devices:
                    if d.binding_conditions or d.consumes_counters:
                        continue
                    did = (pool.driver, pool.name, d.name)
                    if self._busy(did, ci, admin):
                        continue
                    known = self.selectable_cache.get((did, key))
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
                done = self._next(ci, ri, si, di, True)
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
                selector = node_selector(devices)
            except ValueError as err:
                raise AllocatorError(f"create NodeSelector for claim {claim.name}: {err}") from None
            out.append(ClaimAllocation(claim.key, tuple(devices), selector))
        return out


def node_selector(devices: Sequence[AllocatedDevice]) -> Mapping[str, Any] | None:
    """createNodeSelector: the node a nodeName slice's device pins the claim to, else the
    requirements of the slices' single-term node selectors merged, else None (all nodes);
    ValueError for a slice selector of several terms."""
    fields: list[Mapping[str, Any]] = []
    expressions: list[Mapping[str, Any]] = []
    for dev in devices:
        s = dev.slice
        if s is None:
            continue
        if s.node_name:
            return {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [s.node_name]}]}]}
        terms = (s.node_selector or {}).get("nodeSelectorTerms") or []
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
             in_use: frozenset[DeviceID] | set[DeviceID], selectors: Selectors,
             rules: AllocatorRules = DEFAULT_RULES) -> list[ClaimAllocation] | None:
    """The devices each of `claims` gets from `pools` (one ClaimAllocation per claim, in order),
    or None when there is no solution. `in_use`: devices allocated to claims in the cluster
    (admin-access results excluded); `rules`: the allocator's (the default version's when not
    given). Raises AllocatorError or NodeFailure, see the module."""
    search = _Search(claims, classes, pools, in_use, selectors, rules)
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

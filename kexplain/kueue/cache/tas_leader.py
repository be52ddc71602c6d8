"""A pod set group's placement (findTopologyAssignment with a leader): the leader pod set's one pod
and the workers placed together, in one domain of the requested level when they fit there, every
domain counted for the workers alone (`state`, `slices`), for the leader (`leader`: 0 or 1) and for
the workers beside it (`with_leader`, `slices_wl`). Domains are ranked leader first
(sortedDomainsWithLeader), the leader's domain taken first, then the workers' (updateCountsToMinimumGeneric,
consumeWithLeadersGeneric), level by level down to the leaves. `prioritized` is v0.19's rules: a
domain keeping the capacity the workers need taken for the leader first (prioritizeLeaderDomain),
best fit only among domains holding the leader, least free capacity counting the leader, and a
partly used domain's pods set to what it takes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol

from kexplain.kueue.apis.topology import TopologyAssignment


class Domain(Protocol):
    """What placement reads of a snapshot's domain (`tas_snapshot.Domain`)."""

    pos: int
    values: tuple[str, ...]
    children: list[Any]


class Snapshot(Protocol):
    """What placement reads of the snapshot it places on (`tas_snapshot.TASFlavorSnapshot`)."""

    levels: tuple[str, ...]
    per_level: list[Mapping[str, Any]]

    def not_fit(self, fit: int, total: int, slice_size: int, stats: Any) -> str: ...

    def assignment_of(self, domains: list[Any], state: list[int]) -> TopologyAssignment: ...


@dataclass
class GroupCounts:
    """One placement's counts per domain position, changed as the placement takes domains."""

    state: list[int]
    slices: list[int]
    leader: list[int]
    with_leader: list[int]
    slices_wl: list[int]


@dataclass
class GroupPlacer:
    snap: Snapshot
    c: GroupCounts
    count: int
    slice_size: int
    required: bool
    unconstrained: bool           # least free capacity (TASProfileMixed, on by default)
    prioritized: bool
    stats: Any                    # the placement's `Exclusions`, for the message

    # -- ordering -------------------------------------------------------------------------------
    def sorted_with_leader(self, domains: list[Domain]) -> list[Domain]:
        """sortedDomainsWithLeader: the leader's domains first, then slices beside the leader
        (descending, ascending for least free capacity), pods beside it ascending, the values."""
        c, sign = self.c, (1 if self.unconstrained else -1)
        return sorted(domains, key=lambda d: (-c.leader[d.pos], sign * c.slices_wl[d.pos], c.with_leader[d.pos],
                                              d.values))

    def sorted_plain(self, domains: list[Domain]) -> list[Domain]:
        """sortedDomains on the workers' counts alone."""
        c, sign = self.c, (1 if self.unconstrained else -1)
        return sorted(domains, key=lambda d: (sign * c.slices[d.pos], c.state[d.pos], d.values))

    def best_fit(self, domains: list[Domain], needed: int, leaders: int, use_slices: bool) -> Domain:
        """findBestFitDomain(ForSlices): the first domain with the fewest (beside the leader when one
        is still wanted) that hold `needed`; v0.19 only among those holding the leader."""
        c = self.c
        counts = (c.slices_wl if leaders > 0 else c.slices) if use_slices else \
            (c.with_leader if leaders > 0 else c.state)
        if not self.prioritized:
            best = domains[0]
            for dom in domains:
                if needed <= counts[dom.pos] < counts[best.pos]:
                    best = dom
            return best
        found = None
        for dom in domains:
            if c.leader[dom.pos] >= leaders and counts[dom.pos] >= needed and (
                    found is None or counts[dom.pos] < counts[found.pos]):
                found = dom
        return found if found is not None else domains[0]

    def prioritize(self, domains: list[Domain], count: int, leaders: int, slice_size: int, use_slices: bool
                   ) -> list[Domain]:
        """prioritizeLeaderDomain (v0.19): the first domain that holds the leader and whose loss to it
        still leaves the workers room moved to the front."""
        if not self.prioritized or leaders == 0 or len(domains) < 2:
            return domains
        c = self.c
        primary, beside = (c.slices, c.slices_wl) if use_slices else (c.state, c.with_leader)
        needed = count // slice_size if use_slices else count
        available = sum([primary[d.pos] for d in domains])
        for i, dom in enumerate(domains):
            if c.leader[dom.pos] < leaders or available - (primary[dom.pos] - beside[dom.pos]) < needed:
                continue
            return domains if i == 0 else [dom, *domains[:i], *domains[i + 1:]]
        return domains

    # -- the level that takes the group ---------------------------------------------------------
    def fit_level(self, level: int) -> tuple[int, list[Domain], str]:
        """findLevelWithFitDomains with a leader."""
        snap, c = self.snap, self.c
        domains = list(snap.per_level[level].values())
        if not domains:
            return 0, [], f"no topology domains at level: {snap.levels[level]}"
        ordered = self.sorted_with_leader(domains)
        top, wanted = ordered[0], self.count // self.slice_size
        if not self.unconstrained and c.slices_wl[top.pos] >= wanted and c.leader[top.pos] >= 1:
            top = self.best_fit(ordered, wanted, 1, True)
        if self.unconstrained:
            for dom in ordered:
                if self.prioritized and c.leader[dom.pos] < 1:
                    continue
                if (c.slices_wl if self.prioritized else c.slices)[dom.pos] >= wanted:
                    return level, [dom], ""
            if self.required:
                return 0, [], snap.not_fit(c.state[ordered[-1].pos], wanted, self.slice_size, self.stats)
        if c.slices_wl[top.pos] >= wanted and c.leader[top.pos] >= 1:
            return level, [top], ""
        if self.required:
            return 0, [], snap.not_fit(c.slices[top.pos], wanted, self.slice_size, self.stats)
        if level > 0 and not self.unconstrained:
            return self.fit_level(level - 1)
        return self._spread(level, ordered, wanted)

    def _spread(self, level: int, ordered: list[Domain], wanted: int) -> tuple[int, list[Domain], str]:
        """No one domain holds the group: the leader's domains first, then the workers' by their
        own counts."""
        c = self.c
        ordered = self.prioritize(ordered, self.count, 1, self.slice_size, True)
        results, remaining, leaders, idx = [], wanted, 1, 0
        while leaders > 0 and idx < len(ordered) and c.leader[ordered[idx].pos] > 0:
            dom = ordered[idx]
            if not self.unconstrained and c.slices_wl[dom.pos] >= remaining:
                dom = self.best_fit(ordered[idx:], remaining, leaders, True)
            results.append(dom)
            leaders -= c.leader[dom.pos]
            remaining -= c.slices_wl[dom.pos]
            idx += 1
        if leaders > 0:
            return 0, [], self.snap.not_fit(1 - leaders, wanted, self.slice_size, self.stats)
        rest = self.sorted_plain(ordered[idx:])
        for i, dom in enumerate(rest):
            if remaining <= 0:
                break
            if not self.unconstrained and c.slices[dom.pos] >= remaining:
                dom = self.best_fit(rest[i:], remaining, 0, True)
            results.append(dom)
            remaining -= c.slices[dom.pos]
        if remaining > 0:
            return 0, [], self.snap.not_fit(wanted - remaining, wanted, self.slice_size, self.stats)
        return level, results, ""

    # -- down the levels ------------------------------------------------------------------------
    def minimum(self, domains: list[Domain], count: int, leaders: int, slice_size: int, use_slices: bool
                ) -> list[Domain]:
        """updateCountsToMinimumGeneric: the domains taking the leader and `count` pods, each one's
        counts set to what it takes (Kueue's list is empty when they do not all fit)."""
        c = self.c
        domains = self.prioritize(domains, count, leaders, slice_size, use_slices)
        out: list[Domain] = []
        remaining = count // slice_size if use_slices else count
        primary = c.slices if use_slices else c.state
        for i, dom in enumerate(domains):
            if leaders > 0:
                dom, done, remaining, leaders = self.consume(dom, domains[i:], remaining, leaders, slice_size,
                                                             use_slices)
                out.append(dom)
                if done:
                    return out
                continue
            if not self.unconstrained and primary[dom.pos] >= remaining:
                dom = self.best_fit(domains[i:], remaining, 0, use_slices)
            c.leader[dom.pos] = 0
            out.append(dom)
            if primary[dom.pos] >= remaining:
                c.state[dom.pos] = remaining * (slice_size if use_slices else 1)
                primary[dom.pos] = remaining
                return out
            if use_slices:
                c.state[dom.pos] = c.slices[dom.pos] * slice_size
            remaining -= primary[dom.pos]
        return []

    def consume(self, dom: Domain, rest: list[Domain], remaining: int, leaders: int, slice_size: int,
                use_slices: bool) -> tuple[Domain, bool, int, int]:
        """consumeWithLeadersGeneric: a domain taken while the leader is still to place."""
        c = self.c
        beside, primary = (c.slices_wl, c.slices) if use_slices else (c.with_leader, c.state)
        size = slice_size if use_slices else 1
        if not self.unconstrained and beside[dom.pos] >= remaining and c.leader[dom.pos] >= leaders:
            dom = self.best_fit(rest, remaining, leaders, use_slices)
        p = dom.pos
        if beside[p] >= remaining and c.leader[p] >= leaders:
            primary[p] = remaining
            c.leader[p] = leaders
            c.state[p] = remaining * size
            return dom, True, remaining, leaders
        if use_slices or self.prioritized:
            beside[p] = min(beside[p], remaining)
            c.leader[p] = min(c.leader[p], leaders)
            if self.prioritized:
                primary[p] = beside[p]
            c.state[p] = beside[p] * size
            return dom, False, remaining - beside[p], leaders - c.leader[p]
        # v0.17's pods: what the domain takes subtracted first, its counts clamped to what is left after
        remaining -= beside[p]
        leaders -= c.leader[p]
        beside[p] = min(beside[p], remaining)
        c.leader[p] = min(c.leader[p], leaders)
        return dom, False, remaining, leaders

    def place(self, level: int, slice_level: int) -> tuple[TopologyAssignment | None, TopologyAssignment | None, str]:
        """The workers' and the leader's assignments, or why the group does not fit."""
        snap, c = self.snap, self.c
        fit_level, fit, reason = self.fit_level(level)
        if reason:
            return None, None, reason
        last = len(snap.levels) - 1
        fit = self.minimum(fit, self.count, 1, self.slice_size, True)
        current = fit_level
        while current < min(last, slice_level):
            fit = self.minimum(self.sorted_plain([k for d in fit for k in d.children]), self.count, 1,
                               self.slice_size, True)
            current += 1
        while current < last:
            fit = [k for d in fit for k in self.minimum(self.sorted_plain(d.children), c.state[d.pos],
                                                        c.leader[d.pos], 1, False)]
            current += 1
        leaders = [d for d in fit if c.leader[d.pos] > 0]
        return (snap.assignment_of([d for d in fit if c.state[d.pos] > 0], c.state),
                snap.assignment_of(leaders, c.leader), "")

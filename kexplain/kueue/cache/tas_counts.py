"""How many pods of one request shape fit each domain of a TAS flavor's snapshot (fillInCounts'
counts), kept from one placement to the next. Kueue counts every leaf again for each placement; a
leaf's count changes only when its free capacity does, so the counts of a shape (the pod's
requests, the leaves its template may use) are worked out once, then, after usage changes, again
only for the leaves it touched, the difference carried up to their ancestors (`ShapeCounts.update`).
The answers are those of a count from scratch (`from_scratch`, which the tests compare against)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

MAX_INT32 = (1 << 31) - 1

Wanted = tuple[tuple[str, int], ...]        # one pod's requests (with its pod), by resource name


@dataclass(frozen=True)
class Tree:
    """A topology's domains as positions (the leaves first, at their own index): each one's parent
    (-1 for a root) and level, the positions of each level, each domain's children."""

    parent: tuple[int, ...]
    depth: tuple[int, ...]
    per_level: tuple[tuple[int, ...], ...]
    children: tuple[tuple[int, ...], ...]
    leaves: int

    @property
    def size(self) -> int:
        return len(self.parent)


def leaf_fit(columns: Sequence[Sequence[int]], i: int, wanted: Wanted) -> tuple[int, str]:
    """CountInWithLimitingResource of leaf `i` (each resource's free capacity in `columns`): the pods
    that fit, and the first resource (by name) that fits none."""
    fit, limiting = MAX_INT32, ""
    for (name, want), col in zip(wanted, columns):
        have = col[i]
        count = MAX_INT32 if want == 0 else (min(have // want, MAX_INT32) if have > 0 else 0)
        if count < fit:
            fit = count
        if count == 0 and not limiting:
            limiting = name
    return fit, limiting


def assumed_fit(columns: Sequence[Sequence[int]], i: int, wanted: Wanted, extra: Mapping[str, int]) -> tuple[int, str]:
    """A leaf's count less what earlier pod sets of the Workload took there (`extra`)."""
    counts = [MAX_INT32 if w == 0 else max(0, col[i] - extra.get(n, 0)) // w for (n, w), col in zip(wanted, columns)]
    fit = min(counts)
    return fit, (wanted[counts.index(0)][0] if fit == 0 else "")


def sum_up(tree: Tree, state: list[int]) -> None:
    """Every parent's pods: its children's, level by level from the leaves up."""
    children = tree.children
    for positions in reversed(tree.per_level[:-1]):
        for p in positions:
            state[p] = sum([state[c] for c in children[p]])


def slice_counts(tree: Tree, state: Sequence[int], size: int, level: int) -> list[int]:
    """fillInCountsHelper's slices: at the slice level a domain's pods in slices of `size`, above it
    its children's, below it none."""
    out = [0] * tree.size
    last = len(tree.per_level) - 1
    if level == last:
        for i in tree.per_level[last]:
            out[i] = state[i] // size
    for idx in range(last - 1, -1, -1):
        for p in tree.per_level[idx]:
            out[p] = state[p] // size if idx == level else sum([out[c] for c in tree.children[p]])
    return out


def carry(tree: Tree, state: list[int], slices: Iterable[tuple[int, int, list[int]]], i: int, fit: int) -> None:
    """Leaf `i` now takes `fit` pods: the difference carried up its ancestors, in the pods and in each
    (slice size, slice level, slices) kept."""
    delta = fit - state[i]
    if not delta:
        return
    state[i] = fit
    p = tree.parent[i]
    while p >= 0:
        state[p] += delta
        p = tree.parent[p]
    depth, parent = tree.depth, tree.parent
    for size, level, out in slices:
        p, change = i, 0
        while p >= 0:
            if depth[p] == level:
                new = state[p] // size
                change, out[p] = new - out[p], new
            else:
                out[p] += change
            p = parent[p]


@dataclass
class ShapeCounts:
    """One request shape's counts over every domain (`state`), the resources that leave matched
    leaves without room (`short`, per leaf `limiting`), the slices of each (size, level) asked
    for, and how far the snapshot's log of changed leaves has been read (`seen`)."""

    wanted: Wanted
    simulate_empty: bool
    matched: list[int]
    is_matched: bytearray
    state: list[int]
    limiting: dict[int, str]
    short: dict[str, int]
    seen: int
    slices: dict[tuple[int, int], list[int]] = field(default_factory=dict)

    @classmethod
    def build(cls, tree: Tree, columns: Sequence[Sequence[int]], wanted: Wanted, matched: list[int],
              simulate_empty: bool, seen: int) -> "ShapeCounts":
        """Every matched leaf counted at once, resource by resource, then the parents' sums."""
        state = [0] * tree.size
        per_resource = []
        for (_, want), col in zip(wanted, columns):
            per_resource.append([MAX_INT32] * len(matched) if want == 0 else
                                [min(h // want, MAX_INT32) if h > 0 else 0 for h in (col[i] for i in matched)])
        per_leaf = list(zip(*per_resource))
        limiting, short = {}, {}
        for i, counts in zip(matched, per_leaf):
            fit = state[i] = min(counts)
            if fit == 0:
                name = limiting[i] = wanted[counts.index(0)][0]
                short[name] = short.get(name, 0) + 1
        sum_up(tree, state)
        is_matched = bytearray(tree.leaves)
        for i in matched:
            is_matched[i] = 1
        return cls(wanted, simulate_empty, matched, is_matched, state, limiting, short, seen)

    def slices_of(self, tree: Tree, size: int, level: int) -> list[int]:
        key = (size, level)
        found = self.slices.get(key)
        if found is None:
            found = self.slices[key] = slice_counts(tree, self.state, size, level)
        return found

    def update(self, tree: Tree, columns: Sequence[Sequence[int]], changed: Iterable[int]) -> None:
        """The leaves in `changed` counted again, the differences carried up."""
        slices = [(size, level, out) for (size, level), out in self.slices.items()]
        for i in changed:
            if not self.is_matched[i]:
                continue
            fit, limiting = leaf_fit(columns, i, self.wanted)
            self.mark_limiting(i, limiting if fit == 0 else "", self.limiting, self.short)
            carry(tree, self.state, slices, i, fit)

    @staticmethod
    def mark_limiting(i: int, name: str, limiting: dict[int, str], short: dict[str, int]) -> None:
        """Leaf `i` now fits no pod for `name` (empty: it fits some), in `limiting` and the `short` tally."""
        old = limiting.pop(i, "")
        if old:
            short[old] -= 1
            if not short[old]:
                del short[old]
        if name:
            limiting[i] = name
            short[name] = short.get(name, 0) + 1


def from_scratch(tree: Tree, columns: Sequence[Sequence[int]], wanted: Wanted, matched: Iterable[int]
                 ) -> tuple[list[int], dict[str, int]]:
    """The counts and shortages of a shape worked out leaf by leaf, nothing kept: what the kept ones
    must equal."""
    state, short = [0] * tree.size, {}
    for i in matched:
        fit, limiting = leaf_fit(columns, i, wanted)
        state[i] = fit
        if fit == 0:
            short[limiting] = short.get(limiting, 0) + 1
    sum_up(tree, state)
    return state, short


def leader_leaf(free: Mapping[str, int], wanted: Wanted, leader: Wanted) -> tuple[int, int]:
    """fillLeafCounts' leader part for one leaf's free capacity: whether the leader fits (0 or 1),
    and the workers that fit beside it (all that fit when it does not)."""
    if _count(leader, free) > 0:
        free = dict(free)
        for name, want in leader:
            free[name] = free.get(name, 0) - want
        return 1, _count(wanted, free)
    return 0, _count(wanted, free)


def _count(wanted: Wanted, free: Mapping[str, int]) -> int:
    fit = MAX_INT32
    for name, want in wanted:
        have = free.get(name, 0)
        fit = min(fit, MAX_INT32 if want == 0 else (min(have // want, MAX_INT32) if have > 0 else 0))
    return fit


def leader_parent(tree: Tree, p: int, state: Sequence[int], leader: list[int], with_leader: list[int]) -> None:
    """fillInCountsHelper's leader part for a parent: the leader fits if it fits a child; the
    workers that fit with it, all its children's less the fewest a child holding the leader
    loses to it (none when no child holds it)."""
    kids = tree.children[p]
    leader[p] = max([leader[c] for c in kids], default=0)
    loss = [state[c] - with_leader[c] for c in kids if leader[c] > 0]
    with_leader[p] = state[p] - min(loss) if loss else 0


def leader_slices(tree: Tree, slices: Sequence[int], leader: Sequence[int], with_leader: Sequence[int],
                  size: int, level: int) -> list[int]:
    """fillInCountsHelper's sliceStateWithLeader: at the slice level the workers beside the leader
    in slices, above it the children's slices less the fewest a child holding the leader loses,
    below it none."""
    out = [0] * tree.size
    last = len(tree.per_level) - 1
    for idx in range(last, -1, -1):
        for p in tree.per_level[idx]:
            if idx == level:
                out[p] = with_leader[p] // size
            elif idx < level:
                loss = [slices[c] - out[c] for c in tree.children[p] if leader[c] > 0]
                out[p] = sum([slices[c] for c in tree.children[p]]) - min(loss) if loss else 0
    return out


@dataclass
class LeaderCounts:
    """A pod set group's counts beside its workers' `ShapeCounts`: per domain whether the leader
    fits (`leader`) and the workers that fit with it (`with_leader`), kept as the workers' are:
    a changed leaf counted again and its ancestors worked out again from their children."""

    leader_wanted: Wanted
    leader: list[int]
    with_leader: list[int]
    seen: int

    @classmethod
    def build(cls, tree: Tree, workers: "ShapeCounts", free: "FreeOf", leader_wanted: Wanted, seen: int
              ) -> "LeaderCounts":
        out = cls(leader_wanted, [0] * tree.size, [0] * tree.size, seen)
        for i in workers.matched:
            out.leader[i], out.with_leader[i] = leader_leaf(free(i), workers.wanted, leader_wanted)
        for positions in reversed(tree.per_level[:-1]):
            for p in positions:
                leader_parent(tree, p, workers.state, out.leader, out.with_leader)
        return out

    def copy(self) -> "LeaderCounts":
        return LeaderCounts(self.leader_wanted, self.leader.copy(), self.with_leader.copy(), self.seen)

    def recount(self, tree: Tree, workers_state: Sequence[int], wanted: Wanted, is_matched: bytearray,
                free: "FreeOf", changed: Iterable[int]) -> None:
        """The matched leaves in `changed` counted again (against `free`), then their ancestors,
        the lowest first (`workers_state` already holds the workers' new counts)."""
        ancestors: set[int] = set()
        for i in changed:
            if not is_matched[i]:
                continue
            self.leader[i], self.with_leader[i] = leader_leaf(free(i), wanted, self.leader_wanted)
            p = tree.parent[i]
            while p >= 0 and p not in ancestors:
                ancestors.add(p)
                p = tree.parent[p]
        for p in sorted(ancestors, key=lambda q: -tree.depth[q]):
            leader_parent(tree, p, workers_state, self.leader, self.with_leader)


FreeOf = Callable[[int], Mapping[str, int]]     # a leaf's free capacity by resource name


def group_from_scratch(tree: Tree, free: FreeOf, wanted: Wanted, leader_wanted: Wanted, matched: Iterable[int]
                       ) -> tuple[list[int], list[int], list[int]]:
    """A group's counts (workers, leader, workers beside the leader) worked out leaf by leaf,
    nothing kept: what the kept ones must equal."""
    state, leader, with_leader = [0] * tree.size, [0] * tree.size, [0] * tree.size
    for i in matched:
        state[i] = _count(wanted, free(i))
        leader[i], with_leader[i] = leader_leaf(free(i), wanted, leader_wanted)
    sum_up(tree, state)
    for positions in reversed(tree.per_level[:-1]):
        for p in positions:
            leader_parent(tree, p, state, leader, with_leader)
    return state, leader, with_leader

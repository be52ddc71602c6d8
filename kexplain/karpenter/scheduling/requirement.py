"""One label requirement as Karpenter's scheduler reasons with it (`pkg/scheduling/requirement.go`):
a set of values per key, possibly complemented, with integer bounds and `minValues`."""
from __future__ import annotations

import random as _random
from typing import Protocol, Sequence

from kexplain.apimachinery.selectors import DOES_NOT_EXIST, EXISTS, GT, IN, LT, NOT_IN
from kexplain.apimachinery.strconv import parse_int64
from kexplain.karpenter.apis.labels import NODE_SELECTOR_OP_GTE as GTE, NODE_SELECTOR_OP_LTE as LTE, NORMALIZED_LABELS
from kexplain.karpenter.apis.nodeclaim import NodeSelectorRequirementWithMinValues

MAX_INT = (1 << 63) - 1       # Go's math.MaxInt (64-bit) and math.MaxInt64
MIN_INT = -(1 << 63)
RANDOM_VALUE = "<random value: Requirement.Any()>"


class AnySource(Protocol):
    """Where `Requirement.any()` draws a value when the requirement does not fix one."""

    def pick(self, values: Sequence[str]) -> str:
        """One of several allowed values (Go: the first key of a map, i.e. any); sorted input."""

    def number(self, low: int, high: int) -> str:
        """A decimal in [low, high) (Go: `rand.Intn(high-low) + low`)."""


class GoRandom:
    """Draws as Karpenter does, from `rng` (a `random.Random`; a fresh unseeded one if None)."""

    def __init__(self, rng: _random.Random | None = None) -> None:
        self.rng = rng or _random.Random()

    def pick(self, values: Sequence[str]) -> str:
        return self.rng.choice(list(values))

    def number(self, low: int, high: int) -> str:
        if high <= low:
            raise ValueError(f"rand.Intn({high - low}): Karpenter's Requirement.Any() panics here")
        return str(self.rng.randrange(low, high))


class RandomMarker:
    """Writes RANDOM_VALUE wherever Karpenter would draw at random (what the document prints)."""

    def pick(self, values: Sequence[str]) -> str:
        return RANDOM_VALUE

    def number(self, low: int, high: int) -> str:
        return RANDOM_VALUE


def _atoi(value: str) -> int:
    """strconv.Atoi where Go ignores the error ("prevalidated"): 0 when it does not parse."""
    n = parse_int64(value)
    return 0 if n is None else n


def within_bounds(value: str, gte: int | None, lte: int | None) -> bool:
    """withinBounds: with a bound set, only integers inside it."""
    if gte is None and lte is None:
        return True
    n = parse_int64(value)
    if n is None:
        return False
    return (gte is None or n >= gte) and (lte is None or n <= lte)


def _max(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


def _min(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


class Requirement:
    """A requirement on one label key. Mutable like Go's (`insert`), shared by reference like
    Go's pointers: `copy()` where Go deep-copies."""

    __slots__ = ("key", "complement", "value_set", "gte", "lte", "min_values")

    def __init__(self, key: str, complement: bool, value_set: set[str], gte: int | None = None,
                 lte: int | None = None, min_values: int | None = None) -> None:
        self.key = key
        self.complement = complement
        self.value_set = value_set      # the set itself: read it, do not change it (insert() does)
        self.gte = gte                  # inclusive lower bound (Gt n is stored as n+1)
        self.lte = lte                  # inclusive upper bound (Lt n is stored as n-1)
        self.min_values = min_values

    def copy(self) -> "Requirement":
        return Requirement(self.key, self.complement, set(self.value_set), self.gte, self.lte, self.min_values)

    def __repr__(self) -> str:
        return f"Requirement({self})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Requirement):
            return NotImplemented
        return (self.key, self.complement, self.value_set, self.gte, self.lte, self.min_values) == \
            (other.key, other.complement, other.value_set, other.gte, other.lte, other.min_values)

    __hash__ = None  # type: ignore[assignment]   # mutable, as Go's

    # -- what it allows ------------------------------------------------------------------------
    def operator(self) -> str:
        """In, NotIn, Exists or DoesNotExist (bounds read as Exists with bounds)."""
        if self.complement:
            return NOT_IN if self.value_set else EXISTS
        return IN if self.value_set else DOES_NOT_EXIST

    def len(self) -> int:
        """The number of allowed values; a complement counts as MaxInt64 less its exclusions."""
        return MAX_INT - len(self.value_set) if self.complement else len(self.value_set)

    def values(self) -> list[str]:
        """The set's values, sorted (the excluded ones of a NotIn)."""
        return sorted(self.value_set)

    def has(self, value: str) -> bool:
        """Whether `value` is allowed."""
        if self.complement:
            return value not in self.value_set and within_bounds(value, self.gte, self.lte)
        return value in self.value_set and within_bounds(value, self.gte, self.lte)

    def insert(self, *values: str) -> None:
        self.value_set.update(values)

    def any(self, source: AnySource | None = None) -> str:
        """A value the requirement allows ("" for DoesNotExist): an In's one value as is, else drawn by
        `source` (Go: random)."""
        op = self.operator()
        if op == IN:
            if len(self.value_set) == 1:
                return next(iter(self.value_set))
            return (source or GoRandom()).pick(self.values())
        if op in (NOT_IN, EXISTS):
            low = self.gte if self.gte is not None else 0
            high = self.lte + 1 if self.lte is not None else MAX_INT
            return (source or GoRandom()).number(low, high)
        return ""

    def is_random(self) -> bool:
        """Whether `any()` draws at random (custom labels a NodeClaim gets from such a value)."""
        op = self.operator()
        return op in (NOT_IN, EXISTS) or (op == IN and len(self.value_set) > 1)

    # -- algebra -------------------------------------------------------------------------------
    def intersection(self, other: "Requirement") -> "Requirement":
        """The values both allow (Intersection), with the larger minValues; keeps this key."""
        complement = self.complement and other.complement
        gte = _max(self.gte, other.gte)
        lte = _min(self.lte, other.lte)
        min_values = _max(self.min_values, other.min_values)
        if gte is not None and lte is not None and gte > lte:
            return Requirement(self.key, False, set(), min_values=min_values)
        if self.complement and other.complement:
            values = self.value_set | other.value_set
        elif self.complement:
            values = other.value_set - self.value_set
        elif other.complement:
            values = self.value_set - other.value_set
        else:
            values = self.value_set & other.value_set
        if gte is not None or lte is not None:
            values = {v for v in values if within_bounds(v, gte, lte)}
        if not complement:
            gte = lte = None
        return Requirement(self.key, complement, values, gte, lte, min_values)

    def has_intersection(self, other: "Requirement") -> bool:
        """Whether some value is allowed by both (HasIntersection, without building the set)."""
        gte = _max(self.gte, other.gte)
        lte = _min(self.lte, other.lte)
        if gte is not None and lte is not None and gte > lte:
            return False
        if self.complement and other.complement:
            return True
        if self.complement:
            excluded, candidates = self.value_set, other.value_set
            return any(v not in excluded and within_bounds(v, gte, lte) for v in candidates)
        if other.complement:
            excluded, candidates = other.value_set, self.value_set
            return any(v not in excluded and within_bounds(v, gte, lte) for v in candidates)
        small, large = (self.value_set, other.value_set) if len(self.value_set) <= len(other.value_set) \
            else (other.value_set, self.value_set)
        if gte is None and lte is None:
            return not small.isdisjoint(large)
        return any(v in large and within_bounds(v, gte, lte) for v in small)

    # -- as the API writes it ------------------------------------------------------------------
    def node_selector_requirement(self) -> NodeSelectorRequirementWithMinValues:
        """NodeSelectorRequirement: one API requirement (a bound as Gte/Lte, the lower first)."""
        if self.gte is not None:
            return NodeSelectorRequirementWithMinValues(self.key, GTE, (str(self.gte),), self.min_values)
        if self.lte is not None:
            return NodeSelectorRequirementWithMinValues(self.key, LTE, (str(self.lte),), self.min_values)
        return NodeSelectorRequirementWithMinValues(self.key, self.operator(), tuple(self.values()), self.min_values)

    def bounded_node_selector_requirements(self) -> list[NodeSelectorRequirementWithMinValues]:
        """BoundedNodeSelectorRequirements: both bounds set, written as a Gte and an Lte."""
        return [NodeSelectorRequirementWithMinValues(self.key, GTE, (str(self.gte),), self.min_values),
                NodeSelectorRequirementWithMinValues(self.key, LTE, (str(self.lte),), self.min_values)]

    def __str__(self) -> str:
        """String(): `key In [a b]`, at most 5 values then `and N others`, then bounds and
        minValues (`key Exists >=5 <=9 minValues 2`)."""
        op = self.operator()
        if op in (EXISTS, DOES_NOT_EXIST):
            s = f"{self.key} {op}"
        else:
            values = self.values()
            if len(values) > 5:
                values = values[:5] + [f"and {len(values) - 5} others"]
            s = f"{self.key} {op} [{' '.join(values)}]"
        if self.gte is not None:
            s += f" >={self.gte}"
        if self.lte is not None:
            s += f" <={self.lte}"
        if self.min_values is not None:
            s += f" minValues {self.min_values}"
        return s


def new_requirement(key: str, operator: str, *values: str, min_values: int | None = None) -> Requirement:
    """NewRequirementWithFlexibility: the key normalized, Gt/Lt canonicalized to bounds; a bad bound
    reads 0 and an unknown operator Exists, as Go's do."""
    key = NORMALIZED_LABELS.get(key, key)
    if operator == IN:
        return Requirement(key, False, set(values), min_values=min_values)
    if operator == DOES_NOT_EXIST:
        return Requirement(key, False, set(), min_values=min_values)
    r = Requirement(key, True, set(values) if operator == NOT_IN else set(), min_values=min_values)
    first = values[0] if values else ""
    if operator == GT:
        n = _atoi(first)
        if n == MAX_INT:         # Gt MaxInt matches nothing
            return new_requirement(key, DOES_NOT_EXIST)
        r.gte = n + 1
    elif operator == LT:
        n = _atoi(first)
        r.lte = MAX_INT if n == MIN_INT else n - 1     # Go's int wraps around
    elif operator == GTE:
        r.gte = _atoi(first)
    elif operator == LTE:
        r.lte = _atoi(first)
    return r


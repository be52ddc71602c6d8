"""The instance types of a pass, indexed once for the questions the scheduler asks thousands of
times: which types are compatible with a NodeClaim's requirements, which have an available
offering those requirements allow, which fit, and their order by price."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from kexplain.apimachinery.gosort import go_sort
from kexplain.apimachinery.labels import LABEL_HOSTNAME
from kexplain.karpenter.apis.labels import CAPACITY_TYPE_RESERVED
from kexplain.karpenter.scheduling.requirements import (
    ALLOW_UNDEFINED_WELL_KNOWN_LABELS, Requirements, new_requirements,
)
from kexplain.karpenter.utils import resources

MAX_FLOAT64 = 1.7976931348623157e308


def _content(r: Any) -> tuple:
    return (r.complement, frozenset(r.value_set), r.gte, r.lte, r.min_values)


class TypeIndex:
    """Per instance type: the interned id of its requirement on each key; per offering: the
    interned id of its requirements. Built lazily, type by type; holds the types (ids stay theirs)."""

    def __init__(self) -> None:
        self._keys: dict[tuple, int] = {}                    # (key, content) -> id
        self._key_reqs: list[Any] = []                       # id -> the Requirement
        self._offerings: dict[tuple, int] = {}               # content of a Requirements -> id
        self._offering_reqs: list[Requirements] = []
        # The ids of each Requirements and Offering object indexed (held): an EC2NodeClass's types share
        # the first class's (read only, as the types are), indexed once.
        self._requirement_ids: dict[int, tuple[Any, dict[str, int]]] = {}
        self._offering_ids: dict[int, tuple[Any, int]] = {}
        self._types: dict[int, tuple[Any, dict[str, int], list[tuple[Any, int]], dict[str, int], list[Any], int, int,
                                     list[tuple[Any, int]]]] = {}
        # The sets of requirements ids of a type's offerings (all of them, the available ones),
        # interned: most types are sold in the same zones and capacity types (`Question.has_offering`
        # and the explanation's offerings verdict ask each set once).
        self._set_ids: dict[frozenset[int], int] = {}
        self._sets: list[frozenset[int]] = []
        # A question's requirement on one key, interned (`single_id`), and whether a type's
        # requirement on that key intersects it, by (single id, requirement id): asked once for
        # every question (every NodeClaim's requirements) with that requirement.
        self._singles: dict[tuple, int] = {}
        self._intersects: dict[tuple[int, int], bool] = {}
        # Whole answers by `answer_key` (and the ids of the list asked, whose types they keep
        # alive): `nodeclaim.filter_instance_types_by_requirements`'s; `Question.order_by_price`'s,
        # `capacity_types`' and `cheapest_prices`' (keys told apart by their first item).
        self.filtered: dict[tuple, tuple] = {}
        self.checked: dict[tuple, list[tuple[Any, bool, bool, Any]]] = {}     # (type, compatible, offering, allocatable)
        self.ordered: dict[tuple, tuple] = {}
        self._hostname = False           # some type or offering has a requirement on the hostname
        self._reserving = 0              # how many types indexed have an available reserved offering

    def of(self, it: Any) -> tuple[dict[str, int], list[tuple[Any, int]], dict[str, int]]:
        """(key -> requirement id, [(offering, requirements id)], allocatable in billionths)."""
        got = self._types.get(id(it))
        if got is None or got[0] is not it:
            held_keys = self._requirement_ids.get(id(it.requirements))
            keys = held_keys[1] if held_keys is not None and held_keys[0] is it.requirements else {}
            for key, r in it.requirements.items() if not keys else ():
                content = (key, *_content(r))
                rid = self._keys.get(content)
                if rid is None:
                    rid = self._keys[content] = len(self._key_reqs)
                    self._key_reqs.append(r)
                keys[key] = rid
            self._requirement_ids[id(it.requirements)] = (it.requirements, keys)
            offerings = []
            for o in it.offerings:
                held = self._offering_ids.get(id(o))
                if held is None or held[0] is not o:
                    content = tuple(sorted((k, *_content(r)) for k, r in o.requirements.items()))
                    oid = self._offerings.get(content)
                    if oid is None:
                        oid = self._offerings[content] = len(self._offering_reqs)
                        self._offering_reqs.append(o.requirements)
                    held = self._offering_ids[id(o)] = (o, oid)
                offerings.append((o, held[1]))
            if LABEL_HOSTNAME in keys or any(LABEL_HOSTNAME in o.requirements for o in it.offerings):
                self._hostname = True
            reserved = [o for o in it.offerings if o.available and o.capacity_type() == CAPACITY_TYPE_RESERVED]
            self._reserving += bool(reserved)
            available = self._set_id(frozenset(oid for o, oid in offerings if o.available))
            every = self._set_id(frozenset(oid for _, oid in offerings))
            unavailable = [(o, oid) for o, oid in offerings if not o.available]
            got = (it, keys, offerings, resources.to_nanos(it.allocatable()), reserved, available, every, unavailable)
            self._types[id(it)] = got
        return got[1], got[2], got[3]

    def _set_id(self, oids: frozenset[int]) -> int:
        sid = self._set_ids.get(oids)
        if sid is None:
            sid = self._set_ids[oids] = len(self._sets)
            self._sets.append(oids)
        return sid

    def available_id(self, it: Any) -> int:
        """The interned id of the set of its available offerings' requirements ids."""
        self.of(it)
        return self._types[id(it)][5]

    def offering_set_ids(self, it: Any) -> tuple[int, int]:
        """The interned ids of the sets of its available and of all its offerings' requirements ids."""
        self.of(it)
        got = self._types[id(it)]
        return got[5], got[6]

    def unavailable(self, it: Any) -> list[tuple[Any, int]]:
        """Its unavailable offerings with their requirements ids, in order."""
        self.of(it)
        return self._types[id(it)][7]

    def oid_set(self, set_id: int) -> frozenset[int]:
        return self._sets[set_id]

    def offering_requirements(self, oid: int) -> Requirements:
        """The requirements of the offerings of that requirements id (equal ones: the first's)."""
        return self._offering_reqs[oid]

    def reserved(self, it: Any) -> list[Any]:
        """Its available reserved offerings, in order (the only ones offeringsToReserve looks at:
        the catalog's types have none, and hundreds of other offerings each)."""
        self.of(it)
        return self._types[id(it)][4]

    def reserved_among(self, its: Sequence[Any], indexed: bool = False) -> list[tuple[Any, list[Any]]]:
        """(type, `reserved`) of the types of `its` with some, in order: none, asked of no type,
        when every type is indexed (`indexed`: known to be, as a NodeClaim's filtered types are)
        and none indexed has one (the index holds its types: an id it knows is its type's)."""
        if not self._reserving and (indexed or all(map(self._types.__contains__, map(id, its)))):
            return []
        return [(it, reserved) for it in its if (reserved := self.reserved(it))]

    def single_id(self, key: str, r: Any) -> int:
        """The interned id of the requirement `r` on `key`."""
        content = (key, *_content(r))
        sid = self._singles.get(content)
        if sid is None:
            sid = self._singles[content] = len(self._singles)
        return sid

    def question(self, requirements: Requirements) -> "Question":
        return Question(self, requirements)

    def compatibility(self, requirements: Requirements, its: Sequence[Any]) -> list[tuple[Any, bool, bool, Any]]:
        """Each type with whether the requirements allow it, whether they allow one of its available
        offerings, and its allocatable in billionths: once per list of types and requirements
        (`answer_key`; a NodeClaim's and the explanation's of a NodePool ask alike)."""
        asked = self.answer_key(requirements)
        if asked is not None:
            asked = (asked, tuple(map(id, its)))
            known = self.checked.get(asked)
            if known is not None:
                return known
        question = self.question(requirements)
        out = [(it, question.compatible(it), question.has_offering(it), self.of(it)[2]) for it in its]
        if asked is not None and self.answers_kept():
            self.checked[asked] = out
        return out

    def answer_key(self, requirements: Requirements) -> tuple | None:
        """What a question's answers depend on: the requirements on every key but the hostname; None once
        some type or offering requires the hostname."""
        if self._hostname:
            return None
        return tuple(sorted((k, *_content(r)) for k, r in requirements.items() if k != LABEL_HOSTNAME))

    def answers_kept(self) -> bool:
        """Whether whole answers may be remembered: no type indexed so far names the hostname."""
        return not self._hostname


class Question:
    """One set of requirements asked of many types: each distinct answer worked out once."""

    __slots__ = ("index", "requirements", "_singles", "_offerings", "_available")

    def __init__(self, index: TypeIndex, requirements: Requirements) -> None:
        self.index = index
        self.requirements = requirements
        self._singles = [(key, index.single_id(key, r), r) for key, r in requirements.items()]
        self._offerings: dict[int, bool] = {}
        self._available: dict[int, bool] = {}

    def compatible(self, it: Any) -> bool:
        """`it.Requirements.Intersects(requirements) == nil`, key by key (each (requirement,
        type requirement) pair asked once per index: `TypeIndex.single_id`)."""
        index = self.index
        keys, _, _ = index.of(it)
        memo = index._intersects
        for key, sid, r in self._singles:
            rid = keys.get(key)
            if rid is None:
                continue
            ok = memo.get((sid, rid))
            if ok is None:
                mine = new_requirements(index._key_reqs[rid])
                ok = memo[(sid, rid)] = mine.intersects(new_requirements(r)) is None
            if not ok:
                return False
        return True

    def offering_allowed(self, oid: int) -> bool:
        """`requirements.IsCompatible(offering.Requirements, AllowUndefinedWellKnownLabels)`."""
        ok = self._offerings.get(oid)
        if ok is None:
            ok = self._offerings[oid] = self.requirements.is_compatible(
                self.index._offering_reqs[oid], ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
        return ok

    def has_offering(self, it: Any) -> bool:
        """Some available offering the requirements allow (asked once per set of available
        offerings' requirements: `TypeIndex.available_id`)."""
        aid = self.index.available_id(it)
        ok = self._available.get(aid)
        if ok is None:
            ok = self._available[aid] = any(self.offering_allowed(oid) for oid in self.index.oid_set(aid))
        return ok

    def cheapest_price(self, it: Any) -> float:
        """The cheapest available offering the requirements allow (MaxFloat64 for none)."""
        _, offerings, _ = self.index.of(it)
        price = MAX_FLOAT64
        for o, oid in offerings:
            if o.available and o.price < price and self.offering_allowed(oid):
                price = o.price
        return price

    def _kept(self, tag: str, its: Sequence[Any], work: Callable[[], list[Any]]) -> list[Any]:
        """`work()`'s answer for `its`, worked out once for a list of equal types and equal
        requirements (`answer_key`)."""
        index = self.index
        key = index.answer_key(self.requirements)
        if key is not None:
            key = (tag, key, tuple(map(id, its)))
            known = index.ordered.get(key)
            if known is not None:
                return list(known[0])
        asked = tuple(its)
        out = work()
        if key is not None and index.answers_kept():
            index.ordered[key] = (tuple(out), asked)
        return out

    def cheapest_prices(self, its: Sequence[Any]) -> list[float]:
        """`cheapest_price` of each type, in order (`_kept`)."""
        return self._kept("prices", its, lambda: [self.cheapest_price(it) for it in its])

    def capacity_types(self, its: Sequence[Any]) -> list[str]:
        """The capacity types of the available offerings the requirements allow, in first-seen
        order (ToNodeClaim's lo.Uniq; `_kept`)."""
        def work() -> list[str]:
            out: list[str] = []
            for it in its:
                _, offerings, _ = self.index.of(it)
                for o, oid in offerings:
                    if o.available and self.offering_allowed(oid):
                        ct = o.capacity_type()
                        if ct not in out:
                            out.append(ct)
            return out
        return self._kept("capacity", its, work)

    def order_by_price(self, its: list[Any]) -> list[Any]:
        """InstanceTypes.OrderByPrice: sorted in place by cheapest price with Go's sort.Slice (`_kept`)."""
        def work() -> list[Any]:
            prices = {id(it): self.cheapest_price(it) for it in its}
            if len(set(prices.values())) == len(prices):
                its.sort(key=lambda it: prices[id(it)])
            else:
                go_sort(its, lambda a, b: prices[id(a)] < prices[id(b)])
            return its
        its[:] = self._kept("order", its, work)
        return its

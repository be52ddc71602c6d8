"""Label selectors with apimachinery's semantics (`metav1.LabelSelectorAsSelector`).

A null selector matches nothing, an empty one matches everything; matchLabels and
matchExpressions are ANDed. Selectors are parsed once and reused for every pod.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from kexplain.apimachinery.selectors import DOES_NOT_EXIST, EXISTS, IN, NOT_IN


class SelectorError(ValueError):
    """A selector that the API would refuse (unknown operator, missing values)."""


@dataclass(frozen=True)
class Requirement:
    key: str
    op: str
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.op
        if op == IN:
            v = labels.get(self.key)
            return v is not None and v in self.values
        if op == NOT_IN:
            v = labels.get(self.key)
            return v is None or v not in self.values
        if op == EXISTS:
            return self.key in labels
        return self.key not in labels  # DoesNotExist


@dataclass(frozen=True)
class LabelSelector:
    """A parsed selector. `nothing` is the null selector; no requirements is everything."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    @property
    def everything(self) -> bool:
        return not self.nothing and not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        for r in self.requirements:
            if not r.matches(labels):
                return False
        return True

    def and_(self, extra: Iterable[Requirement]) -> "LabelSelector":
        if self.nothing:
            return self
        return LabelSelector(self.requirements + tuple(extra))


NOTHING = LabelSelector(nothing=True)
EVERYTHING = LabelSelector()


def parse_selector(raw: object) -> LabelSelector:
    """`metav1.LabelSelectorAsSelector`: None -> nothing; {} -> everything."""
    if raw is None:
        return NOTHING
    if not isinstance(raw, Mapping):
        raise SelectorError("label selector must be a mapping")
    reqs: list[Requirement] = []
    for k, v in (raw.get("matchLabels") or {}).items():
        reqs.append(Requirement(str(k), IN, frozenset([str(v)])))
    for expr in raw.get("matchExpressions") or ():
        op = expr.get("operator")
        values = [str(x) for x in expr.get("values") or ()]
        if op in (IN, NOT_IN):
            if not values:
                raise SelectorError(f"for '{op}', 'NotIn' operators, values set can't be empty")
        elif op in (EXISTS, DOES_NOT_EXIST):
            if values:
                raise SelectorError("values set must be empty for exists and does not exist")
        else:
            raise SelectorError(f"{op!r} is not a valid label selector operator")
        reqs.append(Requirement(str(expr.get("key", "")), op, frozenset(values)))
    if not reqs:
        return EVERYTHING
    return LabelSelector(tuple(sorted(reqs, key=lambda r: r.key)))


def selector_from_set(labels: Mapping[str, str]) -> LabelSelector:
    """`labels.SelectorFromSet`: equality on each pair; an empty set selects everything."""
    return LabelSelector(tuple(Requirement(k, IN, frozenset([v])) for k, v in sorted(labels.items())))

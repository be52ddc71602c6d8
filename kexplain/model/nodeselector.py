"""Node selectors as the scheduler evaluates them (component-helpers `nodeaffinity`), parsed once
(`from_raw`, `from_pod`) so that `matches` is a cheap loop per node. The rules that matter for
verdicts (empty and unparsable terms, Gt/Lt, matchFields): docs/internals/model.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from kexplain.apimachinery.fielderrors import aggregate
from kexplain.apimachinery.selectors import (DOES_NOT_EXIST, EXISTS, GT, IN, LT, NOT_IN, requirement_errors,
                                             NODE_SELECTOR_OPERATORS as LABEL_OPERATORS)
from kexplain.apimachinery.strconv import parse_int64

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.model.nodeinfo import Node
    from kexplain.model.pod import PodInfo

FIELD_OPERATORS = (IN, NOT_IN)
NODE_NAME_FIELD = "metadata.name"


class SelectorParseError(ValueError):
    """A node selector requirement the scheduler could not parse."""


# A compiled requirement: labels (or fields) -> bool.
Matcher = Callable[[Mapping[str, str]], bool]


def _label_matcher(key: str, op: str, values: frozenset[str], number: int) -> Matcher:
    if op == IN:
        return lambda ls: ls.get(key) in values if key in ls else False
    if op == NOT_IN:
        return lambda ls: key not in ls or ls[key] not in values
    if op == EXISTS:
        return lambda ls: key in ls
    if op == DOES_NOT_EXIST:
        return lambda ls: key not in ls

    def compare(ls: Mapping[str, str]) -> bool:
        v = ls.get(key)
        if v is None:
            return False
        n = parse_int64(v)
        if n is None:
            return False
        return n > number if op == GT else n < number
    return compare


def _parse_label_requirement(i: int, expr: Mapping[str, Any]) -> tuple[Matcher | None, list[str]]:
    """One matchExpressions entry: its matcher, or the parse errors (labels.NewRequirement)."""
    path = f"matchExpressions[{i}]"
    op = expr.get("operator")
    if op not in LABEL_OPERATORS:
        supported = ", ".join(f'"{o}"' for o in LABEL_OPERATORS)
        return None, [f'{path}.operator: Unsupported value: "{op}": supported values: {supported}']
    key = expr.get("key")
    key = key if isinstance(key, str) else ""
    raw_values = expr.get("values")
    values = None if raw_values is None else [v if isinstance(v, str) else str(v) for v in raw_values]
    errs = [str(e) for e in requirement_errors(key, op, values, path)]
    if errs:
        return None, errs
    number = (parse_int64(values[0]) or 0) if op in (GT, LT) else 0   # values: one int64 (checked)
    return _label_matcher(key, op, frozenset(values or ()), number), []


def _parse_field_requirement(i: int, expr: Mapping[str, Any]) -> tuple[Matcher | None, list[str]]:
    path = f"matchFields[{i}]"
    op = expr.get("operator")
    if op not in FIELD_OPERATORS:
        return None, [f'{path}.operator: Unsupported value: "{op}": supported values: "In", "NotIn"']
    values = expr.get("values") or []
    if len(values) != 1:
        return None, [f"{path}.values: Invalid value: {list(values)}: must have one element"]
    key = expr.get("key") if isinstance(expr.get("key"), str) else ""
    value = str(values[0])
    if op == IN:
        return (lambda fs: fs.get(key, "") == value), []
    return (lambda fs: fs.get(key, "") != value), []


def is_empty_term(term: Mapping[str, Any] | None) -> bool:
    return not term or (not term.get("matchExpressions") and not term.get("matchFields"))


@dataclass(frozen=True)
class ParsedTerm:
    """One non-empty NodeSelectorTerm, compiled. `errors` non-empty: it matches nothing."""

    label_matchers: tuple[Matcher, ...]
    field_matchers: tuple[Matcher, ...]
    errors: tuple[str, ...] = ()

    @classmethod
    def parse(cls, term: Mapping[str, Any]) -> "ParsedTerm":
        labels: list[Matcher] = []
        fields: list[Matcher] = []
        errs: list[str] = []
        for i, expr in enumerate(term.get("matchExpressions") or ()):
            m, e = _parse_label_requirement(i, expr if isinstance(expr, Mapping) else {})
            errs.extend(e)
            if m is not None:
                labels.append(m)
        for i, expr in enumerate(term.get("matchFields") or ()):
            m, e = _parse_field_requirement(i, expr if isinstance(expr, Mapping) else {})
            errs.extend(e)
            if m is not None:
                fields.append(m)
        if errs:
            return cls((), (), tuple(errs))
        return cls(tuple(labels), tuple(fields))

    def matches(self, node: "Node") -> bool:
        if self.errors:
            return False
        labels = node.labels
        for m in self.label_matchers:
            if not m(labels):
                return False
        if self.field_matchers and node.name:
            fields = {NODE_NAME_FIELD: node.name}
            for m in self.field_matchers:
                if not m(fields):
                    return False
        return True


def match_term(term: Mapping[str, Any], node: "Node") -> bool:
    """Whether one NodeSelectorTerm selects the node (empty or unparsable: never)."""
    if is_empty_term(term):
        return False
    return ParsedTerm.parse(term).matches(node)


class NodeSelector:
    """A parsed v1.NodeSelector: the node must match at least one term."""

    __slots__ = ("terms",)

    def __init__(self, terms: Sequence[ParsedTerm]) -> None:
        self.terms: tuple[ParsedTerm, ...] = tuple(terms)

    @classmethod
    def from_raw(cls, raw: Mapping[str, Any] | None) -> "NodeSelector":
        terms = (raw or {}).get("nodeSelectorTerms") or ()
        return cls([ParsedTerm.parse(t) for t in terms if not is_empty_term(t)])

    @property
    def errors(self) -> list[str]:
        """Parse errors of all terms (NewNodeSelector refuses a selector that has any)."""
        return [e for t in self.terms for e in t.errors]

    def matches(self, node: "Node") -> bool:
        for t in self.terms:
            if t.matches(node):
                return True
        return False


class PreferredSchedulingTerms:
    """Weighted preferences: a node scores the sum of the weights of the terms it matches.
    Terms with weight 0 or no requirements are ignored; any parse error refuses them all."""

    __slots__ = ("terms",)

    def __init__(self, terms: Sequence[tuple[int, ParsedTerm]]) -> None:
        self.terms = tuple(terms)

    @classmethod
    def from_raw(cls, raw: Sequence[Mapping[str, Any]] | None) -> "PreferredSchedulingTerms":
        """Raises SelectorParseError when a counted term does not parse."""
        parsed: list[tuple[int, ParsedTerm]] = []
        errs: list[str] = []
        for i, t in enumerate(raw or ()):
            weight = int(t.get("weight") or 0)
            pref = t.get("preference") or {}
            if weight == 0 or is_empty_term(pref):
                continue
            term = ParsedTerm.parse(pref)
            if term.errors:
                errs.extend(f"[{i}].{e}" for e in term.errors)
            else:
                parsed.append((weight, term))
        if errs:
            raise SelectorParseError(aggregate(errs))
        return cls(parsed)

    def score(self, node: "Node") -> int:
        return sum(w for w, t in self.terms if t.matches(node))


class RequiredNodeAffinity:
    """The pod's hard node constraints: spec.nodeSelector AND the required node affinity terms."""

    __slots__ = ("node_selector_labels", "affinity")

    def __init__(self, node_selector_labels: Mapping[str, str] | None,
                 affinity: NodeSelector | None) -> None:
        self.node_selector_labels = dict(node_selector_labels) if node_selector_labels else None
        self.affinity = affinity

    @classmethod
    def from_pod(cls, pod: "PodInfo") -> "RequiredNodeAffinity":
        spec = pod.spec
        ns = spec.get("nodeSelector") or None
        required = None
        node_aff = (spec.get("affinity") or {}).get("nodeAffinity") or {}
        raw = node_aff.get("requiredDuringSchedulingIgnoredDuringExecution")
        if raw is not None:
            required = NodeSelector.from_raw(raw)
        return cls({str(k): str(v) for k, v in ns.items()} if ns else None, required)

    def matches(self, node: "Node") -> bool:
        if self.node_selector_labels:
            labels = node.labels
            for k, v in self.node_selector_labels.items():
                if labels.get(k) != v:
                    return False
        if self.affinity is not None:
            return self.affinity.matches(node)
        return True


__all__ = ["NodeSelector", "RequiredNodeAffinity", "PreferredSchedulingTerms", "ParsedTerm",
           "SelectorParseError", "match_term", "parse_int64"]

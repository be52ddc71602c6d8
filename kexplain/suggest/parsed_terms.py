"""The pod's node selector terms compiled once, not once per node a family looks at.

The node-selection and add-node families ask, for every node NodeAffinity rejected (thousands),
whether each term and each of its expressions selects it; compiling the same expression again
for each node cost more than matching it. A compiled term is kept with the very object it was
compiled from (its id names it while it is held); the pod's spec is never changed in place
(`kexplain.suggest.change.apply_ops` copies), so the object's id is its content."""
from __future__ import annotations

from typing import Any, Callable, Hashable, Mapping, TypeVar

from kexplain.model.nodeselector import ParsedTerm

KEPT = 256          # compiled terms held; all dropped when full (a pod has a handful)
T = TypeVar("T")
_MISSING = object()

_parsed: dict[tuple[int, str], tuple[Mapping[str, Any], ParsedTerm]] = {}


def compiled_term(value: Mapping[str, Any]) -> ParsedTerm:
    """`ParsedTerm.parse(value)` for a whole NodeSelectorTerm."""
    return _compiled(value, "", value)


def compiled_expression(expr: Mapping[str, Any]) -> ParsedTerm:
    """`ParsedTerm.parse({"matchExpressions": [expr]})`: one label requirement alone."""
    return _compiled(expr, "matchExpressions", None)


def compiled_field(expr: Mapping[str, Any]) -> ParsedTerm:
    """`ParsedTerm.parse({"matchFields": [expr]})`: one field requirement alone."""
    return _compiled(expr, "matchFields", None)


def _compiled(value: Mapping[str, Any], section: str, whole: Mapping[str, Any] | None) -> ParsedTerm:
    key = (id(value), section)
    found = _parsed.get(key)
    if found is not None and found[0] is value:
        return found[1]
    parsed = ParsedTerm.parse(whole if whole is not None else {section: [value]})
    if len(_parsed) >= KEPT:
        _parsed.clear()
    _parsed[key] = (value, parsed)
    return parsed


def selection_label_keys(spec: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The node label keys a pod's nodeSelector and required node affinity read; None when they
    read more of a node (a term with matchFields: its name), a key is not a plain string, or the
    spec is not as the API has it (the families then say what they say of it, node by node)."""
    try:
        return _label_keys(spec)
    except (AttributeError, TypeError):
        return None


def _label_keys(spec: Mapping[str, Any]) -> tuple[str, ...] | None:
    keys = list((spec.get("nodeSelector") or {}).keys())
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}) \
        .get("requiredDuringSchedulingIgnoredDuringExecution")
    for term in (required or {}).get("nodeSelectorTerms") or ():
        if not isinstance(term, Mapping) or term.get("matchFields"):
            return None
        for expr in term.get("matchExpressions") or ():
            if not isinstance(expr, Mapping):
                return None
            keys.append(expr.get("key", ""))
    if not all(type(k) is str for k in keys):
        return None
    return tuple(dict.fromkeys(keys))


def by_labels(keys: tuple[str, ...] | None, compute: Callable[[Any], T]) -> Callable[[Any], T]:
    """`compute(node)` worked out once per distinct values of the node labels `keys` (a
    family's per-node edit reads nothing else of a node: thousands of nodes, a few label values);
    with `keys` None, per node."""
    if keys is None:
        return compute
    memo: dict[Hashable, Any] = {}

    def at(node: Any) -> T:
        labels = node.labels
        try:
            key = tuple([labels.get(k) for k in keys])
            found = memo.get(key, _MISSING)
        except TypeError:           # (a value not hashable: not from a cluster)
            return compute(node)
        if found is _MISSING:
            found = memo[key] = compute(node)
        return found
    return at

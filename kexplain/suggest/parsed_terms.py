"""The pod's node selector terms compiled once, not once per node a family looks at.

The node-selection and add-node families ask, for every node NodeAffinity rejected (thousands),
whether each term and each of its expressions selects it; compiling the same expression again
for each node cost more than matching it. A compiled term is kept with the very object it was
compiled from (its id names it while it is held); the pod's spec is never changed in place
(`kexplain.suggest.change.apply_ops` copies), so the object's id is its content."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.model.nodeselector import ParsedTerm

KEPT = 256          # compiled terms held; all dropped when full (a pod has a handful)

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

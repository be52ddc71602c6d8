"""Node selectors: every operator, matchFields, parse errors and the empty-term rule."""
from __future__ import annotations

import pytest

from kexplain.model.nodeselector import (NodeSelector, PreferredSchedulingTerms, RequiredNodeAffinity,
                                         SelectorParseError, match_term, parse_int64)
from tests.support.selection_helpers import node, pod

N = node("node-1", {"zone": "a", "disk": "ssd", "cores": "16", "big": "9223372036854775807",
                    "word": "abc", "empty": ""})


def expr(key, op, *values):
    e = {"key": key, "operator": op}
    if values:
        e["values"] = list(values)
    return e


@pytest.mark.parametrize("exprs,want", [
    ([expr("zone", "In", "a", "b")], True),
    ([expr("zone", "In", "b")], False),
    ([expr("missing", "In", "a")], False),
    ([expr("zone", "NotIn", "b")], True),
    ([expr("zone", "NotIn", "a")], False),
    ([expr("missing", "NotIn", "a")], True),           # absent key satisfies NotIn
    ([expr("disk", "Exists")], True),
    ([expr("missing", "Exists")], False),
    ([expr("empty", "Exists")], True),                 # present with empty value
    ([expr("disk", "DoesNotExist")], False),
    ([expr("missing", "DoesNotExist")], True),
    ([expr("empty", "In", "")], True),
    ([expr("cores", "Gt", "15")], True),
    ([expr("cores", "Gt", "16")], False),
    ([expr("cores", "Lt", "17")], True),
    ([expr("cores", "Lt", "16")], False),
    ([expr("cores", "Gt", "015")], True),              # leading zeros parse
    ([expr("missing", "Gt", "1")], False),             # absent label never compares
    ([expr("missing", "Lt", "1")], False),
    ([expr("word", "Gt", "1")], False),                # non-integer label never compares
    ([expr("big", "Gt", "9223372036854775806")], True),
    ([expr("zone", "In", "a"), expr("disk", "In", "ssd")], True),   # ANDed
    ([expr("zone", "In", "a"), expr("disk", "In", "hdd")], False),
])
def test_label_operators(exprs, want):
    assert match_term({"matchExpressions": exprs}, N) is want


@pytest.mark.parametrize("exprs", [
    [expr("zone", "Foo", "a")],                        # unknown operator
    [expr("zone", "In")],                              # In without values
    [expr("zone", "NotIn")],
    [expr("zone", "Exists", "a")],                     # Exists with values
    [expr("zone", "DoesNotExist", "a")],
    [expr("cores", "Gt", "1", "2")],                   # Gt needs exactly one value
    [expr("cores", "Gt")],
    [expr("cores", "Lt", "x")],                        # not an integer
    [expr("cores", "Gt", "1.5")],
    [expr("cores", "Gt", "-1")],                       # parses, but "-1" is not a valid label value
    [expr("cores", "Gt", "99999999999999999999")],     # overflows int64
    [expr("bad key!", "Exists")],                      # invalid label key
    [expr("", "Exists")],
    [expr("zone", "In", "a b")],                       # invalid label value
    [expr("zone", "In", "a"), expr("zone", "Foo", "a")],  # one bad requirement spoils the term
])
def test_invalid_expressions_match_nothing(exprs):
    assert match_term({"matchExpressions": exprs}, N) is False


@pytest.mark.parametrize("fields,want", [
    ([expr("metadata.name", "In", "node-1")], True),
    ([expr("metadata.name", "In", "node-2")], False),
    ([expr("metadata.name", "NotIn", "node-2")], True),
    ([expr("metadata.name", "NotIn", "node-1")], False),
    ([expr("metadata.name", "In", "node-1", "node-2")], False),  # exactly one value or invalid
    ([expr("metadata.name", "In")], False),
    ([expr("metadata.name", "Exists")], False),                  # only In/NotIn for fields
    ([expr("metadata.other", "In", "")], True),                  # unknown field reads as ""
    ([expr("metadata.other", "NotIn", "x")], True),
    ([expr("metadata.other", "In", "x")], False),
])
def test_match_fields(fields, want):
    assert match_term({"matchFields": fields}, N) is want


def test_fields_and_expressions_are_anded():
    term = {"matchExpressions": [expr("zone", "In", "a")], "matchFields": [expr("metadata.name", "In", "node-1")]}
    assert match_term(term, N)
    term["matchFields"] = [expr("metadata.name", "In", "node-2")]
    assert not match_term(term, N)


@pytest.mark.parametrize("term", [{}, {"matchExpressions": []}, {"matchExpressions": [], "matchFields": []}])
def test_empty_term_matches_nothing(term):
    assert match_term(term, N) is False


@pytest.mark.parametrize("terms,want", [
    ([], False),
    ([{}], False),
    ([{}, {"matchExpressions": [expr("zone", "In", "a")]}], True),              # empty term dropped
    ([{"matchExpressions": [expr("zone", "In", "b")]},
      {"matchExpressions": [expr("disk", "In", "ssd")]}], True),               # ORed
    ([{"matchExpressions": [expr("zone", "Foo")]},
      {"matchExpressions": [expr("disk", "In", "ssd")]}], True),               # invalid term ignored
    ([{"matchExpressions": [expr("zone", "Foo")]}], False),
])
def test_node_selector_or(terms, want):
    sel = NodeSelector.from_raw({"nodeSelectorTerms": terms})
    assert sel.matches(N) is want


def test_node_selector_reports_parse_errors():
    sel = NodeSelector.from_raw({"nodeSelectorTerms": [{"matchExpressions": [expr("zone", "Foo")]}]})
    assert sel.errors and "Unsupported value" in sel.errors[0]
    assert NodeSelector.from_raw({"nodeSelectorTerms": [{"matchExpressions": [expr("zone", "In", "a")]}]}).errors == []


@pytest.mark.parametrize("spec,want", [
    ({}, True),
    ({"nodeSelector": {"zone": "a"}}, True),
    ({"nodeSelector": {"zone": "a", "disk": "hdd"}}, False),
    ({"nodeSelector": {"empty": ""}}, True),
    ({"nodeSelector": {"missing": ""}}, False),
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [expr("zone", "In", "a")]}]}}}}, True),
    # nodeSelector AND required affinity
    ({"nodeSelector": {"disk": "hdd"}, "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [expr("zone", "In", "a")]}]}}}}, False),
    ({"nodeSelector": {"disk": "ssd"}, "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [expr("zone", "In", "b")]}]}}}}, False),
    # A required affinity with no terms matches no node.
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}}, False),
    ({"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}}}, True),
])
def test_required_node_affinity(spec, want):
    assert RequiredNodeAffinity.from_pod(pod(spec=spec)).matches(N) is want


def test_preferred_terms_score():
    terms = PreferredSchedulingTerms.from_raw([
        {"weight": 5, "preference": {"matchExpressions": [expr("zone", "In", "a")]}},
        {"weight": 7, "preference": {"matchExpressions": [expr("disk", "In", "ssd")]}},
        {"weight": 11, "preference": {"matchExpressions": [expr("zone", "In", "b")]}},
        {"weight": 0, "preference": {"matchExpressions": [expr("zone", "Foo")]}},   # weight 0: not parsed
        {"weight": 13, "preference": {}},                                          # empty: ignored
    ])
    assert terms.score(N) == 12


def test_preferred_terms_parse_error():
    with pytest.raises(SelectorParseError):
        PreferredSchedulingTerms.from_raw([{"weight": 1, "preference": {"matchExpressions": [expr("zone", "Foo")]}}])


@pytest.mark.parametrize("s,want", [
    ("0", 0), ("+5", 5), ("-5", -5), ("007", 7), ("9223372036854775807", 2**63 - 1),
    ("-9223372036854775808", -2**63), ("9223372036854775808", None), ("", None), (" 1", None),
    ("1_000", None), ("1.0", None), ("0x10", None), ("١", None),
])
def test_parse_int64(s, want):
    assert parse_int64(s) == want

"""kexplain.apimachinery: each Kubernetes rule once, with Go's exact behaviour."""
from __future__ import annotations

from fractions import Fraction

import pytest

from kexplain.apimachinery import quantity
from kexplain.apimachinery.fielderrors import child, go_quote, index, invalid
from kexplain.apimachinery.labels import LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE, zone_of
from kexplain.apimachinery.selectors import requirement_errors
from kexplain.apimachinery.strconv import parse_int64


# -- strconv.Quote ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, quoted", [
    ("plain", '"plain"'),
    ('a"b\\c', '"a\\"b\\\\c"'),
    ("\x00\x01\x1f\x7f", '"\\x00\\x01\\x1f\\x7f"'),
    ("\a\b\f\n\r\t\v", '"\\a\\b\\f\\n\\r\\t\\v"'),
    ("é ü", '"é ü"'),                                    # printable non-ASCII stays as it is
    ("\u200b\u00a0\u2028\x85", '"\\u200b\\u00a0\\u2028\\u0085"'),   # zero-width, separators, C1
    ("\U000e0001😀", '"\\U000e0001😀"'),
])
def test_go_quote_is_strconv_quote(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted


def test_field_paths() -> None:
    assert child("", "spec", "containers") == "spec.containers"
    assert index(child("spec", "containers"), 0) == "spec.containers[0]"
    assert index("metadata.labels", "app") == "metadata.labels[app]"
    assert str(invalid("spec.x", "a\u200bb", "bad")) == 'spec.x: Invalid value: "a\\u200bb": bad'


# -- resource.Quantity -----------------------------------------------------------------------------

@pytest.mark.parametrize("text, parts", [
    ("+1.5Gi", (True, "+1.5", "1", "5", "Gi")),
    ("-0005", (False, "-0005", "5", "", "")),
    ("000", (True, "0", "0", "", "")),
    (".5", (True, ".5", "0", "5", "")),
    ("1e-3", (True, "1", "1", "", "e-3")),
])
def test_split_is_parse_quantity_string(text: str, parts: tuple) -> None:
    assert quantity.split(text) == parts


@pytest.mark.parametrize("text", ["1.2.3", "1 Gi", "1e3x", "1Kb"])
def test_split_refuses_what_go_refuses(text: str) -> None:
    with pytest.raises(quantity.QuantityError, match="must match the regular expression"):
        quantity.split(text)


@pytest.mark.parametrize("raw, exact, canonical", [
    ("0.0000000001", Fraction(1, 10**9), "1n"),        # rounded up to nano, as ParseQuantity does
    ("-0.0000000001", Fraction(-1, 10**9), "-1n"),     # away from zero
    ("1e0000003", Fraction(1000), "1e3"),              # an exponent with leading zeros is an int64
    ("1.5Gi", Fraction(3 * 2**29), "1536Mi"),
    ("16Ei", Fraction(2**63 - 1), "9223372036854775807"),   # binary values are capped at int64
    ("0.5Ki", Fraction(512), "512"),
    ("1000E", Fraction(10**21), "1"),   # v1.35 drops the exponent beyond exa (fixed after 1.35)
    ("1e21", Fraction(10**21), "1e21"),
])
def test_one_parser_one_printer(raw: str, exact: Fraction, canonical: str) -> None:
    q = quantity.parse_text(raw)
    assert q.value == exact
    assert quantity.parse_quantity(raw) == exact      # the scheduler reads the same value
    assert str(q) == canonical


@pytest.mark.parametrize("raw", ["١", "1e1001", "e", "1Kb", "1e99999999999999999999"])
def test_invalid_quantities(raw: str) -> None:
    with pytest.raises(quantity.QuantityError):
        quantity.parse_quantity(raw)


def test_null_quantity_is_zero_to_admission_and_no_quantity_to_the_scheduler() -> None:
    assert quantity.parse(None).value == 0
    with pytest.raises(quantity.QuantityError):
        quantity.parse_quantity(None)


def test_cel_quantities_share_the_grammar_and_the_error() -> None:
    from kexplain.cel import quantity as cel
    assert cel.QuantityParseError is quantity.QuantityError
    with pytest.raises(quantity.QuantityError, match="unable to parse quantity's suffix"):
        cel.parse("1Ki+")
    q = cel.parse("1e4294967299")         # Go narrows the exponent to int32: 3
    assert (q.value, str(q)) == (1000, "1e3")
    for text in ("1000m", "1.5Gi", "0.0000000001", "8Ei", "1000E"):
        assert str(cel.parse(text)) == str(quantity.parse_text(text))


# -- strconv.ParseInt, label selector requirements ------------------------------------------------

@pytest.mark.parametrize("text, value", [
    ("42", 42), ("-7", -7), ("+3", 3), ("0" * 5000 + "1", 1), ("9223372036854775807", 2**63 - 1),
    ("9223372036854775808", None), ("", None), ("+", None), ("1.0", None), ("١", None), (" 1", None),
])
def test_parse_int64(text: str, value: int | None) -> None:
    assert parse_int64(text) == value


def test_requirement_errors_are_new_requirements() -> None:
    errs = [str(e) for e in requirement_errors("a/b/c", "Gt", ["x", "y"], "matchExpressions[0]")]
    assert errs[0].startswith('matchExpressions[0].key: Invalid value: "a/b/c": a valid label key must consist of')
    assert errs[1:] == [
        "matchExpressions[0].values: Invalid value: [\"x\",\"y\"]: for 'Gt', 'Lt' operators, exactly one value "
        "is required",
        "matchExpressions[0].values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
        "matchExpressions[0].values[1]: Invalid value: \"y\": for 'Gt', 'Lt' operators, the value must be an integer",
    ]
    assert [str(e) for e in requirement_errors("k", "In", None, "r")] == [
        "r.values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"]
    assert requirement_errors("k", "Exists", [], "r") == []


def test_node_selector_and_config_report_the_same_errors() -> None:
    from kexplain.model.nodeselector import ParsedTerm
    term = ParsedTerm.parse({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a b"]}]})
    assert term.errors == (str(requirement_errors("zone", "In", ["a b"], "matchExpressions[0]")[0]),)
    assert term.errors[0].startswith('matchExpressions[0].values[0][zone]: Invalid value: "a b": a valid label')


# -- well-known labels, one framework error ------------------------------------------------------

def test_zone_of_prefers_the_ga_label() -> None:
    assert zone_of({LABEL_FAILURE_DOMAIN_BETA_ZONE: "a", LABEL_TOPOLOGY_ZONE: "b"}) == "b"
    assert zone_of({LABEL_FAILURE_DOMAIN_BETA_ZONE: "a"}) == "a"
    assert zone_of({}) == ""


def test_one_framework_error() -> None:
    from kexplain.errors import FrameworkError
    from kexplain.framework.runtime import FrameworkError as RuntimeFrameworkError
    assert RuntimeFrameworkError is FrameworkError

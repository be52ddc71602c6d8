from fractions import Fraction

import pytest

from kexplain.apimachinery.quantity import QuantityError, format_bytes, format_milli, milli_value, parse_quantity, value


@pytest.mark.parametrize("raw, exact", [
    ("1", Fraction(1)), (2, Fraction(2)), ("500m", Fraction(1, 2)), ("0.5", Fraction(1, 2)),
    (0.25, Fraction(1, 4)), ("1Ki", Fraction(1024)), ("128Mi", Fraction(128 * 2**20)),
    ("1Gi", Fraction(2**30)), ("1G", Fraction(10**9)), ("1k", Fraction(1000)), ("1e3", Fraction(1000)),
    ("1E3", Fraction(1000)), ("2E", Fraction(2 * 10**18)), ("100n", Fraction(1, 10**7)),
    ("1.5Gi", Fraction(3 * 2**29)), ("-1", Fraction(-1)), ("+3", Fraction(3)), (".5", Fraction(1, 2)),
    ("134217728", Fraction(134217728)),
    ("e3", Fraction(0)), (".", Fraction(0)), ("8Ei", Fraction(2**63 - 1)),   # as the API server decodes them
])
def test_parse(raw, exact):
    assert parse_quantity(raw) == exact


@pytest.mark.parametrize("raw", ["", "abc", "1Kb", "1.2.3", "--1", "1 Gi", None, True, [], "1Mii"])
def test_invalid(raw):
    with pytest.raises(QuantityError):
        parse_quantity(raw)


@pytest.mark.parametrize("raw, milli, val", [
    ("100m", 100, 1), ("1", 1000, 1), ("1.5", 1500, 2), ("0.0001", 1, 1), ("1n", 1, 1), ("2", 2000, 2),
])
def test_rounding_up(raw, milli, val):
    """MilliValue and Value round up, as resource.Quantity does."""
    q = parse_quantity(raw)
    assert milli_value(q) == milli
    assert value(q) == val


def test_formatting():
    assert format_milli(1500) == "1500m"
    assert format_milli(2000) == "2"
    assert format_bytes(512 * 2**20) == "512Mi"
    assert format_bytes(3 * 2**30) == "3Gi"
    assert format_bytes(1000) == "1000"


def test_leading_zeros_beyond_python_int_digit_limit():
    """Found by the fuzzer: 5,000 leading zeros are a small number, and int() of the whole digit
    string stops at 4,300 digits; the parser reads the number without them."""
    from kexplain.apimachinery.quantity import parse_text
    assert parse_quantity("0" * 5000 + "5") == 5
    assert parse_text("0" * 5000 + "5").value == 5

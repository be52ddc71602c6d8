"""The CEL functions DRA selectors use, against values worked out by hand from the Go code
(k8s.io/apimachinery resource.Quantity, blang/semver, cel-go's extensions, Go's regexp)."""
from __future__ import annotations

import pytest

from kexplain.cel import CelCompileError, compile_selector, make_device
from kexplain.cel import quantity as Q
from kexplain.cel.library.stdlib import go_format_g

DEVICE = make_device("gpu.example.com")


def run(expr: str):
    """The value of a selector-shaped expression, or the runtime error's text."""
    r = compile_selector(expr).evaluate(DEVICE)
    return r.value if r.error is None else f"error: {r.error}"


# -- quantity: exact decimal values whatever the suffix ---------------------------------------

@pytest.mark.parametrize("a, b, want", [
    ("1Gi", "1024Mi", 0),          # 2^30 both
    ("1Gi", "1073741824", 0),
    ("1G", "1Gi", -1),             # 10^9 < 2^30
    ("500m", "1", -1),
    ("1e3", "1k", 0),
    ("1.5Gi", "1536Mi", 0),
    ("0.5Gi", "512Mi", 0),
    ("200M", "0.2G", 0),           # the library's own doc examples
    ("50M", "50Mi", -1),
    ("50Mi", "50M", 1),
    ("16Gi", "24Gi", -1),
    ("-1", "0", -1),
    ("100n", "0.0000001", 0),
    ("1E", "1000P", 0),
    ("1Ei", "1024Pi", 0),
    ("12345678901234567890", "12345678901234567891", -1),   # beyond int64: inf.Dec, still exact
])
def test_quantity_compare_across_suffixes(a: str, b: str, want: int) -> None:
    assert run(f'quantity("{a}").compareTo(quantity("{b}")) == {want}') is True
    assert run(f'quantity("{a}").isGreaterThan(quantity("{b}"))') is (want == 1)
    assert run(f'quantity("{a}").isLessThan(quantity("{b}"))') is (want == -1)
    assert run(f'quantity("{a}") == quantity("{b}")') is (want == 0)


@pytest.mark.parametrize("text, valid", [
    ("1.3G", True), ("1.3Gi", True), ("1,3G", False), ("10000k", True), ("200K", False),
    ("Three", False), ("", False), ("1e", False), ("1.5", True), ("+1", True), ("-1Ki", True),
    # The library's doc comment says false; Go's parser reads "Mi" as 0 (no digits, a suffix).
    ("Mi", True),
])
def test_is_quantity(text: str, valid: bool) -> None:
    assert run(f'isQuantity("{text}")') is valid


@pytest.mark.parametrize("expr, want", [
    ('quantity("50k").add(20) == quantity("50020")', True),
    ('quantity("50k").sub(20000) == quantity("30k")', True),
    ('quantity("50k").add(20).sub(quantity("100k")).sub(-50000) == quantity("20")', True),
    ('quantity("50k").add(quantity("20k")) == quantity("70k")', True),
    ('quantity("50000000G").isInteger()', True),
    ('quantity("50k").isInteger()', True),
    ('quantity("50k").asInteger() == 50000', True),
    ('quantity("9999999999999999999999999999999999999G").isInteger()', False),
    ('quantity("500m").isInteger()', False),
    ('quantity("1000m").isInteger()', False),            # int64Amount{1000, -3}: Go says no
    ('quantity("1.5Mi").isInteger()', False),            # parsed through inf.Dec
    ('quantity("1536Ki").isInteger()', True),
    ('quantity("50k").sub(20000).asApproximateFloat() == 30000.0', True),
    ('quantity("1.5").asApproximateFloat() == 1.5', True),
    ('sign(quantity("-5")) == -1', True),
    ('sign(quantity("0")) == 0', True),
    ('sign(quantity("3m")) == 1', True),
    ('quantity("1").add(1) == quantity("2")', True),
])
def test_quantity_functions(expr: str, want: bool) -> None:
    assert run(expr) is want


@pytest.mark.parametrize("expr, error", [
    ('quantity("9999999999999999999999999999999999999G").asInteger() == 0', "cannot convert value to integer"),
    ('quantity("Three").sign() == 0', None),   # compile error, below
    ('quantity(device.driver).compareTo(quantity("1")) == 0',
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    # Go's Quantity.Equal refuses the pointer add/sub return as its argument.
    ('quantity("2") == quantity("1").add(1)', "no such overload"),
])
def test_quantity_errors(expr: str, error: str | None) -> None:
    if error is None:
        with pytest.raises(CelCompileError, match="found no matching overload for 'sign' applied to "
                                                  "'kubernetes.Quantity.\\(\\)'"):
            compile_selector(expr)
        return
    assert run(expr) == f"error: {error}"


def test_quantity_suffix_error_text() -> None:
    assert run('quantity("200K") == quantity("1")') == "error: unable to parse quantity's suffix"


@pytest.mark.parametrize("text, canonical, as_int", [
    ("1Gi", "1Gi", 1 << 30), ("1024Mi", "1Gi", 1 << 30), ("1.5Gi", "1536Mi", None),
    ("1000m", "1", None), ("0.0000000001", "1n", None), ("8Ei", "9223372036854775807", None),
    ("1.5G", "1500M", 1_500_000_000), ("100", "100", 100), ("1e3", "1e3", 1000),
])
def test_quantity_representation(text: str, canonical: str, as_int: int | None) -> None:
    q = Q.parse(text)
    assert str(q) == canonical
    assert q.as_int64() == as_int


def test_capacity_is_what_the_api_server_stored() -> None:
    """The scheduler decodes the canonical string the API server stored: `1000m` arrives as `1`."""
    dev = make_device("d", capacity={"c": {"value": "1000m"}})
    prog = compile_selector('device.capacity["d"].c.isInteger()')
    assert prog.evaluate(dev).value is True
    assert run('quantity("1000m").isInteger()') is False


# -- semver: blang/semver ordering ---------------------------------------------------------------

@pytest.mark.parametrize("a, b, want", [
    ("1.10.0", "1.9.0", 1),
    ("1.0.0-alpha", "1.0.0", -1),          # a prerelease sorts before its release
    ("1.0.0-alpha", "1.0.0-alpha.1", -1),  # fewer identifiers first
    ("1.0.0-alpha.1", "1.0.0-alpha.beta", -1),   # numeric before alphanumeric
    ("1.0.0-beta.2", "1.0.0-beta.11", -1),  # numeric identifiers compare as numbers
    ("1.0.0-rc.1", "1.0.0-beta.11", 1),
    ("1.0.0+build.1", "1.0.0", 0),         # build metadata has no precedence
    ("2.0.0", "10.0.0", -1),
])
def test_semver_ordering(a: str, b: str, want: int) -> None:
    assert run(f'semver("{a}").compareTo(semver("{b}")) == {want}') is True
    assert run(f'semver("{a}").isGreaterThan(semver("{b}"))') is (want == 1)
    assert run(f'semver("{a}").isLessThan(semver("{b}"))') is (want == -1)


@pytest.mark.parametrize("expr, want", [
    ('semver("v1.2", true) == semver("1.2.0")', True),
    ('semver("01.02.03", true).major() == 1', True),
    ('semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3', True),
    ('isSemver("1.2.3")', True),
    ('isSemver("1.2")', False),
    ('isSemver("1.2", true)', True),
    ('isSemver("v1.2.3")', False),
    ('isSemver("v1.2.3", true)', True),
])
def test_semver_functions(expr: str, want: bool) -> None:
    assert run(expr) is want


@pytest.mark.parametrize("text, error", [
    ("1.2", "No Major.Minor.Patch elements found"),
    ("v1.2.3", 'Invalid character(s) found in major number "v1"'),
    ("1.02.3", 'Minor number must not contain leading zeroes "02"'),
    ("1.2.3-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
    ("1..3", 'strconv.ParseUint: parsing "": invalid syntax'),
])
def test_semver_errors(text: str, error: str) -> None:
    assert run(f'semver("{text}").major() == 1') == f"error: {error}"


def test_semver_normalize_short_with_prerelease() -> None:
    assert run('semver("1.2-beta", true).major() == 1') == \
        "error: short version cannot contain PreRelease/Build meta data"


def test_version_attribute() -> None:
    dev = make_device("d", attributes={"v": {"version": "1.10.0"}})
    assert compile_selector('device.attributes["d"].v.isGreaterThan(semver("1.9.0"))').evaluate(dev).value
    # A Semver's Equal refuses a non-Semver argument (the reverse order is plain false).
    assert str(compile_selector('device.attributes["d"].v == "1.10.0"').evaluate(dev).error) == "no such overload"
    assert compile_selector('"1.10.0" == device.attributes["d"].v').evaluate(dev).value is False
    bad = make_device("d", attributes={"v": {"version": "1.2"}})
    assert str(compile_selector("true").evaluate(bad).error) == \
        "attribute v: parse semantic version: No Major.Minor.Patch elements found"


# -- strings extension (version 2) -----------------------------------------------------------------

@pytest.mark.parametrize("expr, want", [
    ('"abc".charAt(1) == "b"', True),
    ('"abc".charAt(3) == ""', True),
    ('"hello mellow".indexOf("ello") == 1', True),
    ('"hello mellow".indexOf("ello", 2) == 7', True),
    ('"hello mellow".indexOf("") == 0', True),
    ('"hello mellow".indexOf("jello") == -1', True),
    ('"hello mellow".lastIndexOf("ello") == 7', True),
    ('"hello mellow".lastIndexOf("ello", 6) == 1', True),
    ('"hello mellow".lastIndexOf("") == 12', True),
    ('"TacoCat".lowerAscii() == "tacocat"', True),
    ('"TacoCÆt".upperAscii() == "TACOCÆT"', True),
    ('"hello hello".replace("he", "we") == "wello wello"', True),
    ('"hello hello".replace("he", "we", 1) == "wello hello"', True),
    ('"hello hello".replace("he", "we", 0) == "hello hello"', True),
    ('"a b c".split(" ") == ["a", "b", "c"]', True),
    ('"a b c".split(" ", 0) == []', True),
    ('"a b c".split(" ", 2) == ["a", "b c"]', True),
    ('"abc".split("") == ["a", "b", "c"]', True),
    ('"tacocat".substring(4) == "cat"', True),
    ('"tacocat".substring(0, 4) == "taco"', True),
    ('"  \\ttrim\\n    ".trim() == "trim"', True),
    ('["a", "b"].join("-") == "a-b"', True),
    ('["a", "b"].join() == "ab"', True),
    ('"héllo".size() == 5', True),
    (r'strings.quote("a\nb") == "\"a\\nb\""', True),
])
def test_strings(expr: str, want: bool) -> None:
    assert run(expr) is want


@pytest.mark.parametrize("expr, error", [
    ('"abc".charAt(4) == ""', "index out of range: 4"),
    ('"abc".indexOf("a", -1) == 0', "index out of range: -1"),
    ('"tacocat".substring(4, 2) == ""', "invalid substring range. start: 4, end: 2"),
    ('"tacocat".substring(40) == ""', "index out of range: 40"),
])
def test_string_errors(expr: str, error: str) -> None:
    assert run(expr) == f"error: {error}"


def test_strings_v3_functions_are_absent() -> None:
    """The Kubernetes environment enables strings version 2: no string reverse()."""
    with pytest.raises(CelCompileError, match="found no matching overload for 'reverse'"):
        compile_selector('"abc".reverse() == "cba"')


# -- lists (Kubernetes library and cel-go lists v3), sets --------------------------------------------

@pytest.mark.parametrize("expr, want", [
    ("[1, 2, 3].isSorted()", True),
    ("[3, 1].isSorted()", False),
    ('["a", "b"].isSorted()', True),
    ("[1, 2, 3].sum() == 6", True),
    ("[1.5, 2.5].sum() == 4.0", True),
    ("[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3", True),
    ("[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2", True),
    ("[1, 2].indexOf(5) == -1", True),
    ("[1, 2, 3, 4].slice(1, 3) == [2, 3]", True),
    ("[[1], [2, 3]].flatten() == [1, 2, 3]", True),
    ("[3, 1, 2].sort() == [1, 2, 3]", True),
    ('["b", "a"].sort() == ["a", "b"]', True),
    ("[1, 2, 2, 1].distinct() == [1, 2]", True),
    ("[1, 2].reverse() == [2, 1]", True),
    ("lists.range(4) == [0, 1, 2, 3]", True),
    ('["foo", "bar", "baz"].sortBy(x, x) == ["bar", "baz", "foo"]', True),
    ("[1, 2, 3].sortBy(x, -x) == [3, 2, 1]", True),
    ("sets.contains([1, 2, 3], [3, 1])", True),
    ("sets.contains([1], [1, 2])", False),
    ("sets.equivalent([1, 1, 2], [2, 1])", True),
    ("sets.intersects([1], [2])", False),
    ("sets.intersects([1, 2], [dyn(2.0)])", True),    # equality across numeric types
    ("[1, 2].first().value() == 1 && [1, 2].last().value() == 2", True),
    ("[].first().hasValue()", False),
])
def test_lists_and_sets(expr: str, want: bool) -> None:
    assert run(expr) is want


@pytest.mark.parametrize("expr, error", [
    ("lists.range(0).min() == 0", "min called on empty list"),
    ("[1, 2].slice(2, 1) == []", "cannot slice(2, 1), start index must be less than or equal to end index"),
    ("[1, 2].slice(0, 3) == []", "cannot slice(0, 3), list is length 2"),
    ("[9223372036854775807, 1].sum() == 0", "integer overflow"),
])
def test_list_errors(expr: str, error: str) -> None:
    assert run(expr) == f"error: {error}"


# -- regular expressions: Go's RE2 semantics, linear time ----------------------------------------------

@pytest.mark.parametrize("expr, want", [
    ('"abc123".find("[0-9]+") == "123"', True),
    ('"abc".find("x") == ""', True),
    ('"a1b22".findAll("[0-9]+") == ["1", "22"]', True),
    ('"a1b22".findAll("[0-9]+", 1) == ["1"]', True),
    ('"baaac".findAll("a*") == ["", "aaa", ""]', True),   # Go drops the empty match after "aaa"
    ('"abc".matches("^a.c$")', True),
    ('"abc".matches("b")', True),                         # unanchored, as RE2's MatchString
    ('"a\\n".matches("a$")', False),                      # $ is end of text without (?m)
    ('"a\\n".matches("(?m)a$")', True),
    ('"ab".find("a|ab") == "a"', True),                   # leftmost-first, not leftmost-longest
    ('"ABC".matches("(?i)abc")', True),
    ('"x٣".matches("\\\\d")', False),                     # \\d is ASCII in RE2
    ('matches("gpu-0", "^gpu-[0-9]+$")', True),
    ('"a\\nb".find("(?m)^b$") == "b"', True),           # a match starting after dead positions
    ('"ab".findAll("$") == [""]', True),
])
def test_regex(expr: str, want: bool) -> None:
    assert run(expr) is want


def test_regex_is_linear_time() -> None:
    """`(a+)+$` would backtrack forever in Python's re; Go's engine (and RE2) does not (more in
    test_re2.py)."""
    assert run('"' + "a" * 10_000 + 'b".matches("(a+)+$")') is False


def test_rescanning_a_big_string_is_cheap(monkeypatch) -> None:
    """cel-go prices the global `matches` at 1 whatever the input: a loop over one big string
    must not cost kexplain a scan per iteration."""
    from kexplain.cel.library import re2, stdlib
    scans = []
    real = re2.has_match
    monkeypatch.setattr(re2, "has_match", lambda prog, text: scans.append(text) or real(prog, text))
    stdlib._matches.cache_clear()
    assert run('cel.bind(s, "' + "ab" * 5000 + '", lists.range(50000).all(i, !matches(s, "c")))') is True
    assert len(scans) == 1


@pytest.mark.parametrize("pattern, error", [
    ("(abc", "error parsing regexp: missing closing ): `(abc`"),
    ("a**", "error parsing regexp: invalid nested repetition operator: `**`"),
    ("\\\\1", "error parsing regexp: invalid escape sequence: `\\1`"),
    ("[z-a]", "error parsing regexp: invalid character class range: `z-a`"),
])
def test_regex_errors(pattern: str, error: str) -> None:
    """A pattern computed at run time fails at run time, with Go's message."""
    assert run(f'device.driver.matches("" + "{pattern}")') == f"error: {error}"
    assert run(f'device.driver.find("" + "{pattern}") == ""') == f"error: Illegal regex: {error}"


def test_literal_regex_errors_are_compile_errors() -> None:
    with pytest.raises(CelCompileError, match="invalid matches argument"):
        compile_selector('device.driver.matches("(")')
    with pytest.raises(CelCompileError, match=r"^program instantiation failed: error parsing regexp: "
                                              r"missing closing \): `\(`$"):
        compile_selector('device.driver.find("(") == ""')


# -- conversions and formatting ------------------------------------------------------------------

@pytest.mark.parametrize("f, text", [
    (1.0, "1"), (1.5, "1.5"), (1e6, "1e+06"), (123456.0, "123456"), (1234567.0, "1.234567e+06"),
    (0.0001, "0.0001"), (0.00001, "1e-05"), (-2.5e-10, "-2.5e-10"), (0.1 + 0.2, "0.30000000000000004"),
])
def test_double_to_string_is_go_g(f: float, text: str) -> None:
    assert go_format_g(f) == text


@pytest.mark.parametrize("expr, want", [
    ("int(1.9) == 1 && int(-1.9) == -1", True),
    ('int("12") == 12 && uint("12") == 12u && double("1e3") == 1000.0', True),
    ('string(1.5) == "1.5" && string(1e6) == "1e+06" && string(12u) == "12"', True),
    ('bool("true") && !bool("F")', True),
    ('bytes("é").size() == 2', True),
    ("type(1) == int && type(1u) == uint && type(quantity(\"1\")) == kubernetes.Quantity", True),
])
def test_conversions(expr: str, want: bool) -> None:
    assert run(expr) is want


@pytest.mark.parametrize("expr, error", [
    ("int(device.driver) == 0", "type conversion error from 'string' to 'int'"),
    ("uint(dyn(-1) + size(device.driver) - size(device.driver)) == 0u", "unsigned integer overflow"),
    ("int(9.3e18 + double(size(device.driver))) == 0", "integer overflow"),
])
def test_conversion_errors(expr: str, error: str) -> None:
    assert run(expr) == f"error: {error}"


def test_constant_conversion_failure_refuses_the_program() -> None:
    """cel-go folds conversions of constants while planning; a failing one fails the program."""
    with pytest.raises(CelCompileError, match="^program instantiation failed: type conversion error "
                                              "from 'string' to 'int'$"):
        compile_selector('int("abc") == 1')


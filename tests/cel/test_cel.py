"""The CEL evaluator for DRA selectors: the `device` variable, CEL's semantics (errors, optional
values, numbers across types, macros), cel-go's compile errors and limits, the cost limit, and
the explanation of a false selector. Expected values are worked out by hand from cel-go
v0.26.0 and k8s.io/dynamic-resource-allocation/cel at v1.35.4."""
from __future__ import annotations

import pytest

from kexplain.cel import (COST_LIMIT, CelCompileError, CelCostError, CelEvalError, CelUnsupported,
                          api_validation_error, compile_selector, make_device)
from tests.support.bounded import no_hang

DEVICE = make_device(
    "gpu.example.com",
    attributes={"model": {"string": "a100"}, "cores": {"int": 108}, "ecc": {"bool": True},
                "driverVersion": {"version": "1.2.3"}, "other.com/flag": {"bool": False}},
    capacity={"memory": {"value": "16Gi"}, "other.com/slots": {"value": "4"}},
)


def run(expr: str, device=DEVICE):
    r = compile_selector(expr).evaluate(device)
    return r.value if r.error is None else f"error: {r.error}"


# -- the device variable -----------------------------------------------------------------------

@pytest.mark.parametrize("expr, want", [
    ('device.driver == "gpu.example.com"', True),
    ('device.attributes["gpu.example.com"].model == "a100"', True),
    ('device.attributes["gpu.example.com"].cores > 100', True),
    ('device.attributes["gpu.example.com"].ecc', True),
    ('device.attributes["other.com"].flag', False),                 # qualified name, own domain
    ('device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) == 0', True),
    ('device.capacity["other.com"].slots == quantity("4")', True),
    ('"gpu.example.com" in device.attributes', True),
    ('"nope.com" in device.attributes', False),                     # `in` sees the real domains
    ('size(device.attributes["nope.com"]) == 0', True),             # a missing domain is an empty map
    ('has(device.attributes["gpu.example.com"].model)', True),
    ('has(device.attributes["gpu.example.com"].nope)', False),
    ('has(device.attributes["nope.com"].model)', False),
    ('cel.bind(a, device.attributes["gpu.example.com"], a.model == "a100" && a.cores == 108)', True),
])
def test_device_variable(expr: str, want: bool) -> None:
    assert run(expr) is want


@pytest.mark.parametrize("expr, error", [
    ('device.attributes["gpu.example.com"].missing == "x"', "no such key: missing"),
    ('device.attributes["nope.com"].model == "x"', "no such key: model"),
    ('device.capacity["gpu.example.com"].nope.compareTo(quantity("1")) == 0', "no such key: nope"),
    ('{"a": 1}["b"] == 1', "no such key: b"),
    ('{1: "a"}[2] == "a"', "no such key: 2"),
    ("[1, 2][5] == 1", "index out of bounds: 5"),
])
def test_missing_keys_are_runtime_errors(expr: str, error: str) -> None:
    """The runtime error that aborts the scheduling cycle (`CEL runtime error: no such key: x`)."""
    assert run(expr) == f"error: {error}"


def test_device_input_errors() -> None:
    bad = make_device("d", attributes={"x": {}})
    assert str(compile_selector("true").evaluate(bad).error) == "attribute x: unsupported attribute value"


# -- optional values -----------------------------------------------------------------------------

@pytest.mark.parametrize("expr, want", [
    ('device.attributes["x.com"].?model.orValue("none") == "none"', True),
    ('device.attributes["gpu.example.com"].?model.orValue("none") == "a100"', True),
    ('device.attributes["gpu.example.com"].?nope.hasValue()', False),
    ('device.attributes[?"nope.com"].hasValue()', True),    # the domain lookup never misses
    ('device.attributes["gpu.example.com"].?model.optMap(m, m + "!").value() == "a100!"', True),
    ('optional.of(1).value() == 1', True),
    ('optional.none().orValue(5) == 5', True),
    ('optional.ofNonZeroValue("").hasValue()', False),
    ('optional.ofNonZeroValue(0).hasValue()', False),
    ('[1, 2][?5].hasValue()', False),
    ('{"a": 1}[?"a"].value() == 1', True),
    ('optional.none().or(optional.of(2)).value() == 2', True),
    ('optional.of(1).or(optional.of(2)).value() == 1', True),
    ('{"a": {"b": 1}}.?a.?b.value() == 1', True),
    ('{"a": {"b": 1}}.?a.c.hasValue()', False),              # after `.?` every link is optional
    ('[optional.of(1), optional.none()].unwrapOpt() == [1]', True),
    ('[1, ?optional.none(), ?optional.of(3)] == [1, 3]', True),
    ('{"a": 1, ?"b": optional.none()}.size() == 1', True),
])
def test_optional(expr: str, want: bool) -> None:
    assert run(expr) is want


def test_optional_errors() -> None:
    assert run("optional.none().value() == 1") == "error: optional.none() dereference"
    assert run("optional.none().orValue(1 / 0) == 1") == "error: division by zero"
    assert run("optional.of(1).orValue(1 / 0) == 1") is True   # orValue short-circuits


# -- numbers ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("expr, want", [
    ("1u < 2", True),
    ("1 < 1.5", True),
    ("2.0 > 1u", True),
    ("-1 < 0u", True),
    ("dyn(1) == 1.0", True),
    ("dyn(1u) == 1", True),
    ('dyn(1) == "1"', False),            # different types are unequal, not an error
    ("dyn(1) in [1.0, 2.0]", True),
    ("-7 / 2 == -3 && -7 % 2 == -1", True),   # Go truncates toward zero
    ("9223372036854775807 > 0 && -9223372036854775808 < 0", True),
    ("0.1 + 0.2 != 0.3", True),
    ("1.0 / 0.0 > 1e308", True),
    ("[1, 2] == [1, 2] && {1: 2} == {1: 2}", True),
    ("[1, 2] != [2, 1]", True),
])
def test_numbers(expr: str, want: bool) -> None:
    assert run(expr) is want


@pytest.mark.parametrize("expr, error", [
    ("9223372036854775807 + 1 > 0", "integer overflow"),
    ("-9223372036854775808 - 1 < 0", "integer overflow"),
    ("-9223372036854775808 / -1 == 0", "integer overflow"),
    ("0u - 1u == 0u", "unsigned integer overflow"),
    ("1 / 0 == 0", "division by zero"),
    ("5 % 0 == 0", "modulus by zero"),
    ("dyn(1) < 'a'", "no such overload: _<_(int, string)"),
])
def test_number_errors(expr: str, error: str) -> None:
    assert run(expr) == f"error: {error}"


def test_mixed_numeric_equality_does_not_compile() -> None:
    """`1 == 1.0` is a type error in cel-go's checker; dyn() defers to runtime equality."""
    with pytest.raises(CelCompileError) as exc:
        compile_selector("1 == 1.0")
    assert str(exc.value) == ("compilation failed: ERROR: <input>:1:3: found no matching overload for "
                              "'_==_' applied to '(int, double)'\n | 1 == 1.0\n | ..^")


# -- logical operators absorb errors ------------------------------------------------------------------

@pytest.mark.parametrize("expr, want", [
    ("true || 1 / 0 == 1", True),
    ("1 / 0 == 1 || true", True),          # commutative: the error is absorbed either side
    ("false && 1 / 0 == 1", False),
    ("1 / 0 == 1 && false", False),
    ("1 / 0 == 1 && true", "error: division by zero"),
    ("1 / 0 == 1 || false", "error: division by zero"),
    ("!(1 / 0 == 1)", "error: division by zero"),
    ("(1 / 0 == 1) ? true : false", "error: division by zero"),
    ("true ? true : 1 / 0 == 1", True),
    ("5 % 0 == 1 && 1 / 0 == 1", "error: modulus by zero"),   # the first error wins
])
def test_logical_error_absorption(expr: str, want) -> None:
    assert run(expr) == want


# -- macros ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("expr, want", [
    ("[1, 2, 3].all(x, x > 0)", True),
    ("[1, 2, 3].exists(x, x == 2)", True),
    ("[1, 2, 3].exists_one(x, x > 1)", False),
    ("[1, 2, 3].existsOne(x, x == 2)", True),
    ("[1, 2, 3].map(x, x * 2) == [2, 4, 6]", True),
    ("[1, 2, 3].map(x, x > 1, x * 10) == [20, 30]", True),
    ("[1, 2, 3].filter(x, x % 2 == 1) == [1, 3]", True),
    ('{"a": 1, "b": 2}.all(k, k.size() == 1)', True),
    ("[10, 20].all(i, v, v == (i + 1) * 10)", True),
    ('{"a": 1, "b": 2}.exists(k, v, k == "b" && v == 2)', True),
    ("[1, 2].transformList(i, v, v * 10) == [10, 20]", True),
    ("[1, 2, 3].transformList(i, v, i > 0, v) == [2, 3]", True),
    ('{"a": 1}.transformMap(k, v, v + 1) == {"a": 2}', True),
    ('{"a": 1}.transformMapEntry(k, v, {v: k}) == {1: "a"}', True),
    ("[0, 1].all(x, 1 / x > 0)", "error: division by zero"),   # no false element: the error stays
    ("[0, -1].all(x, 1 / x > 0)", False),                     # a false element absorbs it
    ("[0, 1].exists(x, 1 / x > 0)", True),
    ("[0, 1].map(x, 1 / x) == []", "error: division by zero"),
    ("cel.bind(x, 2, cel.bind(x, x * 10, x + 1)) == 21", True),   # inner binding shadows
    ("[1, 2].map(x, [x].map(x, x * 2)) == [[2], [4]]", True),
    ('device.attributes["gpu.example.com"].all(k, k != "")', True),
])
def test_macros(expr: str, want) -> None:
    assert run(expr) == want


@pytest.mark.parametrize("expr, message", [
    ("[1].all(1, true)", "argument must be a simple name"),
    ("[1].map(1, 2) == []", "argument is not an identifier"),
    ("has(device)", "invalid argument to has() macro"),
    ("cel.bind(1, 2, true)", "cel.bind() variable names must be simple identifiers"),
    ("[1].all(__result__, true)", "iteration variable overwrites accumulator variable"),
    ("[1].all(x, x, true)", "duplicate variable name: x"),
    ("1.all(x, true)", "expression of type 'int' cannot be range of a comprehension "
                       "(must be list, map, or dynamic)"),
])
def test_macro_errors(expr: str, message: str) -> None:
    with pytest.raises(CelCompileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compile_selector(expr)


# -- compile errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("expr, detail", [
    ('devic.driver == "x"',
     "compilation failed: ERROR: <input>:1:1: undeclared reference to 'devic' (in container '')\n"
     ' | devic.driver == "x"\n | ^'),
    ("device.driver", "must evaluate to bool or the unknown type, not string"),
    ("device.capacity", "must evaluate to bool or the unknown type, not "
                        "map(string, map(string, kubernetes.Quantity))"),
    ("dyn(true)", "must evaluate to bool or the unknown type, not dyn"),
    ('device.capacity["x"].memory > 5',
     "compilation failed: ERROR: <input>:1:29: found no matching overload for '_>_' applied to "
     "'(kubernetes.Quantity, int)'\n" + ' | device.capacity["x"].memory > 5\n | ' + "." * 28 + "^"),
    ('device.foo == "x"',
     "compilation failed: ERROR: <input>:1:7: undefined field 'foo'\n"
     ' | device.foo == "x"\n | ......^'),
    ('[1, "a"].size() == 2',
     "compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'\n"
     ' | [1, "a"].size() == 2\n | ....^'),
    ("1 +", "compilation failed: ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting "
            "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, "
            "BYTES, IDENTIFIER}\n | 1 +\n | ...^"),
    ("device.driver == 'a' #", "compilation failed: ERROR: <input>:1:22: Syntax error: token recognition "
                               "error at: '#'\n | device.driver == 'a' #\n | .....................^"),
    ("if == 1", "compilation failed: ERROR: <input>:1:1: reserved identifier: if\n | if == 1\n | ^"),
    ("x.y(1) && z",
     "compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n"
     " | x.y(1) && z\n | ^\n"
     "ERROR: <input>:1:4: undeclared reference to 'y' (in container '')\n"
     " | x.y(1) && z\n | ...^\n"
     "ERROR: <input>:1:11: undeclared reference to 'z' (in container '')\n"
     " | x.y(1) && z\n | ..........^"),
    ('"x" && true', "compilation failed: ERROR: <input>:1:1: expected type 'bool' but found 'string'\n"
                    ' | "x" && true\n | ^'),
])
def test_compile_errors(expr: str, detail: str) -> None:
    with pytest.raises(CelCompileError) as exc:
        compile_selector(expr)
    assert str(exc.value) == detail


def test_attribute_of_unknown_type_may_be_the_result() -> None:
    """An attribute has the unknown (any) type: it compiles as the whole selector, and a
    non-bool value then fails the way DeviceMatches reports it."""
    assert run('device.attributes["gpu.example.com"].ecc') is True
    assert run('device.attributes["gpu.example.com"].cores') == (
        "error: CEL result of type int could not be converted to bool: "
        "unsupported type conversion from 'int' to bool")


def test_unsupported_parts_of_the_environment_say_so() -> None:
    with pytest.raises(CelUnsupported, match="timestamp"):
        compile_selector('timestamp("2024-01-01T00:00:00Z") < timestamp("2025-01-01T00:00:00Z")')


# -- limits: nesting, length, cost -----------------------------------------------------------------------

def test_deep_nesting_is_refused_cleanly() -> None:
    assert run("(" * 240 + "true" + ")" * 240) is True
    for expr in ("(" * 300 + "true" + ")" * 300, "[" * 300 + "]" * 300 + " == []",
                 " + ".join(["1"] * 300) + " > 0", "a" + ".b" * 300 + " == 1",
                 "(" * 5000 + "true" + ")" * 5000):
        with pytest.raises(CelCompileError) as exc:
            compile_selector(expr)
        assert str(exc.value) == ("compilation failed: ERROR: <input>:-1:0: expression recursion limit "
                                  "exceeded: 250")


def test_long_flat_chains_are_fine() -> None:
    """`&&` chains are a loop in the grammar, balanced into a shallow tree: no depth limit."""
    assert run(" && ".join(["true"] * 3000)) is True
    assert run(" || ".join(["false"] * 3000) + " || true") is True


def test_expression_length_limits() -> None:
    assert api_validation_error("device.driver == 'a'" + " " * 10240) == \
        "Too long: may not be more than 10240 bytes"
    with pytest.raises(CelCompileError, match="expression code point size exceeds limit: size: 100005, "
                                              "limit 100000"):
        compile_selector("true" + " " * 100001)
    assert api_validation_error('device.driver == "a"') is None
    assert api_validation_error("device.driver") == (
        'Invalid value: "device.driver": must evaluate to bool or the unknown type, not string')


@pytest.mark.parametrize("expr, cost", [
    ('device.driver == "gpu.example.com"', 4),   # ident 1 + select 1 + ceil(15 * 0.1) string compare
    ('device.attributes["gpu.example.com"].cores > 100', 5),   # device, .attributes, [..], .cores, >
    ('device.capacity["gpu.example.com"].memory.compareTo(quantity("24Gi")) >= 0', 7),
    ("true || false", 0),                        # constants and logical operators cost nothing
    ('2 in [1, 2, 3]', 0),                       # a set lookup against a constant list
    ("[1, 2, 3].all(x, x > 0)", 16),             # 3 x (condition 2 + step 1 + x 1 + `>` 1) + result 1
])
def test_cost_matches_cel_go(expr: str, cost: int) -> None:
    assert compile_selector(expr).evaluate(DEVICE).cost == cost


@pytest.mark.parametrize("expr", [
    "lists.range(1000).all(x, lists.range(1000).all(y, x + y >= 0))",
    "lists.range(100000000).size() > 0",
    "lists.range(2000).map(x, lists.range(2000).filter(y, y == x)).size() > 0",
    'cel.bind(s, "' + "x" * 5000 + '", lists.range(500).all(i, s.contains(s)))',
])
def test_hostile_selector_hits_the_cost_limit(expr: str) -> None:
    """Stopped by the cost limit, not run to the end (how soon: benchmarks/budgets_bench.py)."""
    with no_hang(expr[:60]):
        r = compile_selector(expr).evaluate(DEVICE)
    assert isinstance(r.error, CelCostError)
    assert str(r.error) == "operation cancelled: actual cost limit exceeded"
    assert r.value is None


def test_cost_limit_is_configurable() -> None:
    prog = compile_selector('device.driver == "gpu.example.com"')
    assert prog.evaluate(DEVICE, cost_limit=4).value is True
    assert isinstance(prog.evaluate(DEVICE, cost_limit=3).error, CelCostError)
    assert COST_LIMIT == 1_000_000


def test_cost_error_is_never_absorbed() -> None:
    r = compile_selector("true || lists.range(2000000).size() > 0").evaluate(DEVICE)
    assert r.value is True   # short-circuit: never evaluated
    r = compile_selector("lists.range(2000000).size() > 0 || true").evaluate(DEVICE)
    assert isinstance(r.error, CelCostError)


# -- compile once -------------------------------------------------------------------------------------

def test_compile_is_cached() -> None:
    assert compile_selector('device.driver == "x"') is compile_selector('device.driver == "x"')


# -- explanation -------------------------------------------------------------------------------------

def test_explain_false_conjunct_with_its_values() -> None:
    prog = compile_selector('device.driver == "gpu.example.com" && '
                            'device.capacity["gpu.example.com"].memory.compareTo(quantity("24Gi")) >= 0')
    ex = prog.explain(DEVICE)
    assert ex.result.value is False
    assert ex.conjunct_index == 1
    assert ex.conjunct == 'device.capacity["gpu.example.com"].memory.compareTo(quantity("24Gi")) >= 0'
    steps = {s.text: s.value for s in ex.steps}
    assert steps['device.capacity["gpu.example.com"].memory'] == "16Gi"
    assert steps['quantity("24Gi")'] == "24Gi"
    assert steps['device.capacity["gpu.example.com"].memory.compareTo(quantity("24Gi"))'] == "-1"
    assert steps[ex.conjunct] == "false"
    assert 'device.capacity["gpu.example.com"] =' not in ex.summary()   # only the path's end
    assert ex.summary().startswith(ex.conjunct + " is false: ")


def test_explain_runtime_error_names_its_origin() -> None:
    prog = compile_selector('device.driver == "gpu.example.com" && '
                            'device.attributes["gpu.example.com"].memoryType == "hbm"')
    ex = prog.explain(DEVICE)
    assert isinstance(ex.result.error, CelEvalError)
    assert ex.error_at == 'device.attributes["gpu.example.com"].memoryType'
    assert ex.conjunct_index == 1
    assert "no such key: memoryType" in ex.summary()


def test_explain_match() -> None:
    ex = compile_selector('device.driver == "gpu.example.com"').explain(DEVICE)
    assert ex.result.value is True and ex.summary() == "matched"


# -- robustness: generated expressions never crash ----------------------------------------------------

def _generate(rng, depth: int = 0) -> str:
    atoms = ["0", "1", "-1", "2u", "1.5", '"a"', '""', "true", "false", "null", "x",
             'device.attributes["gpu.example.com"].model', 'device.attributes["gpu.example.com"].cores',
             'device.attributes["x.com"].y', 'device.capacity["gpu.example.com"].memory',
             'quantity("1Gi")', 'semver("1.2.3")', "optional.none()", "[1, 2]", '{"k": 1}']
    if depth > 3 or rng.random() < 0.3:
        return rng.choice(atoms)
    a = _generate(rng, depth + 1)
    b = _generate(rng, depth + 1)
    return rng.choice([
        f"({a} {rng.choice(['==', '!=', '<', '>=', '+', '-', '*', '/', '%', '&&', '||', 'in'])} {b})",
        f"{a}.{rng.choice(['all', 'exists', 'exists_one', 'map', 'filter'])}(x, {b})",
        f"({a} ? {b} : {a})", f"cel.bind(x, {a}, {b})", f"{a}[{b}]", f"{a}.?y", f"!{a}", f"-{a}",
        f"{a}.{rng.choice(['size()', 'compareTo(' + b + ')', 'orValue(' + b + ')', 'contains(' + b + ')', 'sum()'])}",
        f"{rng.choice(['int', 'string', 'dyn', 'size', 'type'])}({a})",
    ])


def test_generated_expressions_compile_or_fail_cleanly() -> None:
    import random
    rng = random.Random(20240601)
    compiled = 0
    for _ in range(800):
        expr = _generate(rng)
        if rng.random() < 0.5:
            expr = f"dyn({expr}) == dyn({_generate(rng)})"
        try:
            prog = compile_selector(expr)
        except (CelCompileError, CelUnsupported):
            continue
        compiled += 1
        r = prog.evaluate(DEVICE)
        assert (r.value is None) == (r.error is not None)
        prog.explain(DEVICE).summary()
    assert compiled > 30

"""`json_parse.loads` gives exactly what `json.loads` gives: the same value (types, key order,
floats to the bit, integers of any size) or the same exception with the same message, on chosen
texts, on any value json.dumps writes, and on texts mutated at random; and a dump it reads
without the standard library."""
from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kexplain.load import json_parse
from tests.load.test_yaml_fast import same


def outcome(parse: Any, text: str | bytes) -> tuple[Any, ...]:
    try:
        value = parse(text)
    except Exception as err:  # noqa: BLE001 - the exception is the outcome compared
        return ("error", type(err), str(err))
    return ("value", value)


def assert_same_outcome(text: str | bytes) -> None:
    got, want = outcome(json_parse.loads, text), outcome(json.loads, text)
    assert got[0] == want[0], (text[:200], got, want)
    if got[0] == "error":
        assert got == want
    else:
        assert same(got[1], want[1]), (text[:200], got[1], want[1])
        assert _floats(got[1]) == _floats(want[1])      # to the bit (-0.0, NaN)


def _floats(value: Any) -> list[str]:
    out, stack = [], [value]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
        elif isinstance(x, float):
            out.append("nan" if math.isnan(x) else x.hex())
    return out


CHOSEN = [
    # values msgspec reads: numbers at and past every width, duplicate keys, escapes
    "0", "-0", "-0.0", "0e0", "1E+2", "1e-400", "2.2250738585072011e-308", "4.9406564584124654e-324",
    "1.7976931348623157e308", "9007199254740993", "9007199254740993.0", "9223372036854775807",
    "9223372036854775808", "18446744073709551615", "18446744073709551616", "-9223372036854775809",
    "123456789012345678901234567890", "123456789012345678901234567890.5", "1" + "0" * 4000,
    '{"a":1,"b":2,"a":3}', '{"a":1,"a":{"b":2},"c":[]}', '{"":1}', '"\\/"', '"\\u0000"', '"\\uD834\\uDD1E"',
    '"\\ud83d\\ude00"', '"\u2028\u00e9\U0001f600"', '{"a" : 1 , "b" :2}', "\r\n\t[1 , 2]\r\n", "[[], {}, [{}]]",
    "[" * 500 + "]" * 500,
    # values only json.loads reads: handed to it
    "NaN", "-Infinity", "[Infinity]", "1e400", "-1e400", '"\\udc00"', '"\\ud800\\u0041"', '{"\\ud800":1}',
    "1" + "0" * 5000, "-" + "9" * 4301,
    # refused by both: the standard library's message
    "", " ", "01", "-", "1.", ".5", "1e", "+1", "-01", "1e+", "\f1", "\v1", "\u00a01", "\ufeff1", '"\\x"',
    '"\\u12"', "[1,]", '{"a":1,}', "[-]", "[1e5.5]", "True", "nul", "1 2", "[] []", '"a\tb"', '"a\nb"', '"\x00"',
    '"x\x1f"', "[" * 100000, "{" * 3000,
]


@pytest.mark.parametrize("text", CHOSEN)
def test_chosen_texts(text: str) -> None:
    assert_same_outcome(text)


@pytest.mark.parametrize("data", [b'{"a": [1, 2.5, "\xc3\xa9"]}', b"\xef\xbb\xbf[1]", '[1, "é"]'.encode("utf-16"),
                                  b'"\xff"', b"[1, 2", b"\x00"])
def test_bytes_as_json_loads_reads_them(data: bytes) -> None:
    assert_same_outcome(data)


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=-(1 << 200), max_value=1 << 200)
    | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6),
    max_leaves=40)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values, st.booleans(), st.sampled_from([None, 0, 2]))
def test_any_dumped_value(value: Any, ascii_only: bool, indent: int | None) -> None:
    assert_same_outcome(json.dumps(value, ensure_ascii=ascii_only, indent=indent))


PIECES = list('{}[],:"\\ -+.eE0123456789tfnul\t\n\r\x00\x1fé/') + ["\\u", "\\ud800", "\\udc00", "NaN", "Infinity",
                                                                  "\ufeff", "\u2028", "1e400", "0" * 30]
SEEDS = [
    json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"app": "a"}},
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
                         "tolerations": [{"key": "k", "operator": "Exists", "tolerationSeconds": 300}]}}),
    json.dumps({"a": [1, -2.5e10, "x\u00e9\\", None, True, {"k": "\U0001f600"}], "b": 12345678901234567890123},
               ensure_ascii=False, indent=2),
]


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(SEEDS), st.lists(st.tuples(st.floats(0, 1), st.sampled_from(["insert", "delete", "replace"]),
                                                  st.sampled_from(PIECES)), min_size=1, max_size=3))
def test_mutated_texts(seed: str, edits: list[tuple[float, str, str]]) -> None:
    text = seed
    for where, how, piece in edits:
        at = int(where * len(text))
        text = (text[:at] + piece + text[at:] if how == "insert" else
                text[:at] + text[at + 1:] if how == "delete" else text[:at] + piece + text[at + 1:])
    assert_same_outcome(text)


def test_a_dump_is_read_without_the_standard_library(monkeypatch: pytest.MonkeyPatch) -> None:
    text = json.dumps({"kind": "List", "items": [json.loads(SEEDS[0])] * 50})

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("json.loads called")
    monkeypatch.setattr(json_parse.json, "loads", refuse)
    assert same(json_parse.loads(text), json.JSONDecoder().decode(text))

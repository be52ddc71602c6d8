"""YAML scalars and tags as kubectl reads them (issue 23, item 2): go-yaml v2 under
sigs.k8s.io/yaml, then its YAML-to-JSON step (`kexplain.load.goyaml`).

Every case is read by each path: SafeLoader (over the C loader), the same reading over PyYAML's
pure-Python loader (PyYAML installed without libyaml), and the fast path (yaml-rs, checked; it
steps aside where it cannot show its result, and must then give the same documents).
"""
from __future__ import annotations

import json
import math
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.errors import InputError
from kexplain.lint.linter import LintOptions, lint
from kexplain.load import goyaml, yaml_io
from kexplain.load.yaml_io import fast_documents, parse_documents
from tests.support.lint_helpers import pool


class PureLoader(yaml_io._KubectlReading, yaml.SafeLoader):
    """kubectl's reading over PyYAML's Python loader (no libyaml)."""


def typed(value: Any) -> Any:
    """`value` with its types spelled out (True is not 1, 1 is not 1.0), for comparing."""
    if isinstance(value, dict):
        return {typed(k): typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return (type(value).__name__, value)


def readings(text: str, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The documents of `text` read every way, asserted equal; returns them."""
    monkeypatch.setattr(yaml_io, "FAST_MIN_CHARS", 1 << 62)
    slow = [doc.value for doc in parse_documents(text, "m.yaml")]
    pure = list(yaml.load_all(text, Loader=PureLoader))
    monkeypatch.setattr(yaml_io, "FAST_MIN_CHARS", 0)
    fast = [doc.value for doc in parse_documents(text, "m.yaml")]
    assert typed(pure) == typed(slow) == typed(fast), (text, slow, pure, fast)
    return slow


def refusal(text: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The error every path gives for `text` (the same one)."""
    messages = set()
    for fast in (False, True):
        monkeypatch.setattr(yaml_io, "FAST_MIN_CHARS", 0 if fast else 1 << 62)
        with pytest.raises(InputError) as exc:
            list(parse_documents(text, "m.yaml"))
        messages.add(str(exc.value))
    with pytest.raises(yaml.YAMLError) as err:
        list(yaml.load_all(text, Loader=PureLoader))
    (message,) = messages
    assert err.value.problem in message
    return message


# -- the real one: a bare `=` ------------------------------------------------------------------
# As written in a chart's values: a flag and its value as separate arguments, one of them `=`.
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: proxy
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels: {app: proxy}
  template:
    metadata:
      labels: {app: proxy}
    spec:
      containers:
      - name: proxy
        image: registry.example/proxy:2.4
        args: ["--separator", =, "--listen", ":8080"]
        env:
        - name: KV_SEPARATOR
          value: =
        resources:
          requests: {cpu: 100m, memory: 64Mi}
"""


def test_a_bare_equals_sign_is_the_string_kubectl_sends(monkeypatch):
    (deployment,) = readings(DEPLOYMENT, monkeypatch)
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["args"] == ["--separator", "=", "--listen", ":8080"]
    assert container["env"] == [{"name": "KV_SEPARATOR", "value": "="}]
    assert fast_documents(DEPLOYMENT) is not None       # read by yaml-rs itself, not left to SafeLoader


def test_explain_and_lint_read_it(tmp_path, capsys):
    path = tmp_path / "proxy.yaml"
    path.write_text(DEPLOYMENT)
    nodes = pool(tmp_path)
    assert main([str(path), "--nodes", nodes, "-o", "json"]) == 0
    out, err = capsys.readouterr()
    assert "invalid YAML" not in err and json.loads(out)
    report = lint(LintOptions((str(path),), (nodes,)))
    assert [(f.rule, f.obj.name) for f in report.findings] == [("fits", "proxy")]


# -- every other difference, on every path -------------------------------------------------------
# (text, what kubectl sends; PyYAML's own reading in the comment)
READ_AS_KUBECTL = [
    ("a: [y, Y, n, N, yes, No, on, OFF]", {"a": [True, True, False, False, True, False, True, False]}),  # y/n: str
    ("y: 1\nn: 2", {True: 1, False: 2}),                                # keys too: kubectl sends "true", "false"
    ("a: =", {"a": "="}),                                                # an error (!!value)
    ("a: [1:30, 190:20:30.15, '1:30']", {"a": ["1:30", "190:20:30.15", "1:30"]}),   # 90, 685230.15
    ("a: [0o17, 0O17, 0X1F, 0B101, 0b-101, 0777]", {"a": [15, 15, 31, 5, -5, 511]}),  # strings but 0777
    ("a: [08, 1e3, 1.0e3, .5e3, 1.5e+3]", {"a": [8.0, 1000.0, 1000.0, 500.0, 1500.0]}),  # strings but 1.5e+3
    ("a: [1.0e+400, ._5, .5_5, 1_000, _1, -_1]", {"a": ["1.0e+400", "._5", 0.55, 1000, "_1", -1]}),  # inf, 0.5, ...
    ("a: [9223372036854775807, 18446744073709551615, 18446744073709551616, -9223372036854775809]",
     {"a": [9223372036854775807, 18446744073709551615, 1.8446744073709552e19, -9.223372036854776e18]}),  # ints
    ("a: [2024-01-01, 2024-01-01T10:00:00Z, 2024-13-45]",
     {"a": ["2024-01-01", "2024-01-01T10:00:00Z", "2024-13-45"]}),         # date, datetime, an error
    ("a: !!timestamp 2001-12-14t21:59:43.10-05:00", {"a": "2001-12-14t21:59:43.10-05:00"}),   # a datetime
    ("a: !!binary aGVsbG8=\nb: !!binary /w==", {"a": "hello", "b": "\ufffd"}),  # bytes
    ("a: !secret nginx\nb: !!python/str x\nc: ! 12\nd: !!value v", {"a": "nginx", "b": "x", "c": "12", "d": "v"}),
    ("a: !!set {x, z}\nb: !!omap [{x: 1}, {z: 2}]\nc: !!str {d: 1}",            # a set, tuples, an error
     {"a": {"x": None, "z": None}, "b": [{"x": 1}, {"z": 2}], "c": {"d": 1}}),
    ("a: !!float 1\nb: !!str 16\nc: !!null {d: 1}\nd: <<", {"a": 1.0, "b": "16", "c": None, "d": "<<"}),
    # merge keys in the order written: a key before `<<` is overridden (PyYAML: written keys win)
    ("b: &b {x: 1, z: 2}\nc: {x: 0, <<: *b, z: 3}", {"b": {"x": 1, "z": 2}, "c": {"x": 1, "z": 3}}),
    ("a: &a {x: 1}\nb: &b {x: 2, z: 2}\nc:\n  <<: [*a, *b]\n", {"a": {"x": 1}, "b": {"x": 2, "z": 2},
                                                               "c": {"x": 1, "z": 2}}),
    ("c: {'<<': {x: 1}, !!merge <<: {z: 2}}", {"c": {"<<": {"x": 1}, "z": 2}}),
]


@pytest.mark.parametrize("text, expected", READ_AS_KUBECTL, ids=[t for t, _ in READ_AS_KUBECTL])
def test_read_as_kubectl_reads_it(text, expected, monkeypatch):
    assert typed(readings(text + "\n", monkeypatch)) == typed([expected])


REFUSED = [
    ("a: !!int high", "line 1, column 4: cannot decode !!str `high` as a !!int"),
    ("a: !!int 1:30", "cannot decode !!str `1:30` as a !!int"),
    ("a: !!bool 1", "cannot decode !!int `1` as a !!bool"),
    ("a: !!timestamp 2024-02-30", "cannot decode !!str `2024-02-30` as a !!timestamp"),
    ("a: !!binary 'a b'", "!!binary value contains invalid base64 data"),
    ("a: [1, .inf]", "`.inf` cannot be sent as JSON (kubectl: json: unsupported value: +Inf)"),
    ("a: {b: .nan}", "unsupported value: NaN"),
    ("~: 1", "line 1, column 1: a null key, which JSON cannot have (kubectl: unsupported map key of type: <nil>)"),
    ("a: {<<: [x]}", "map merge requires map or sequence of maps as the value"),
    ("a: &a {<<: *a}", "a merged mapping contains itself"),
]


@pytest.mark.parametrize("text, words", REFUSED, ids=[t for t, _ in REFUSED])
def test_what_kubectl_refuses_is_refused(text, words, monkeypatch):
    assert words in refusal(text + "\n", monkeypatch)


def test_lint_reads_the_composed_nodes_unchanged_by_merges():
    """Merges are resolved when values are built: the nodes keep their keys, so lint's lines are right."""
    text = "b: &b {x: 1}\nc:\n  <<: *b\n  z: 2\n"
    (doc,) = parse_documents(text, "m.yaml", nodes=True)
    assert doc.value == {"b": {"x": 1}, "c": {"x": 1, "z": 2}}
    c = doc.node.value[1][1]
    assert [k.value for k, _ in c.value] == ["<<", "z"]


# -- go-yaml's resolve and Go's strconv, one rule at a time --------------------------------------
@pytest.mark.parametrize("text, tag, value", [
    ("", goyaml.NULL, None), ("~", goyaml.NULL, None), ("Null", goyaml.NULL, None),
    ("tRue", goyaml.STR, "tRue"), ("yES", goyaml.STR, "yES"),           # only the words of the table
    ("0", goyaml.INT, 0), ("-0", goyaml.INT, 0), ("+12", goyaml.INT, 12), ("1_", goyaml.INT, 1),
    ("0x_1F", goyaml.INT, 31), ("+0x1F", goyaml.INT, 31), ("0b", goyaml.STR, "0b"), ("0x", goyaml.STR, "0x"),
    ("09", goyaml.FLOAT, 9.0), ("1.", goyaml.FLOAT, 1.0), ("+.5", goyaml.FLOAT, 0.5), ("1e", goyaml.STR, "1e"),
    (".", goyaml.STR, "."), ("-.inf", goyaml.FLOAT, -math.inf), ("+.nan", goyaml.STR, "+.nan"),
    ("2024-1-2", goyaml.STR, "2024-1-2"), ("1e400", goyaml.STR, "1e400"),
])
def test_plain_scalars(text, tag, value):
    assert goyaml.plain(text)[0] == tag
    got = goyaml.plain(text)[1]
    assert typed(got) == typed(value) or (isinstance(value, float) and math.isnan(value) and math.isnan(got))


@pytest.mark.parametrize("s, base, expected", [
    ("0b101", 0, 5), ("0o17", 0, 15), ("017", 0, 15), ("0x1f", 0, 31), ("1_000", 0, 1000), ("1__0", 0, None),
    ("_1", 0, None), ("1_", 0, None), ("0x_1", 0, 1), ("1_0", 10, None), ("18446744073709551615", 0, (1 << 64) - 1),
    ("18446744073709551616", 0, None), ("", 0, None), ("08", 0, None),
])
def test_parse_uint_is_gos(s, base, expected):
    assert goyaml.parse_uint(s, base) == expected


@pytest.mark.parametrize("s, expected", [
    ("-9223372036854775808", -(1 << 63)), ("9223372036854775808", None), ("+-1", None), ("-0x10", -16),
])
def test_parse_int_is_gos(s, expected):
    assert goyaml.parse_int(s, 0) == expected


@pytest.mark.parametrize("text, ok", [
    ("2024-02-29", True), ("2023-02-29", False), ("2000-02-29", True), ("1900-02-29", False),
    ("2024-1-2T3:4:5Z", True), ("2024-01-02t03:04:05.123456789+05:30", True), ("2024-01-02 03:04:05.5", True),
    ("2024-01-02T03:04:05", False), ("2024-01-02 03:04:05Z", False), ("2024-01-02T24:00:00Z", False),
    ("2024-01-02T03:04:05+25:00", False), ("24-01-02", False),
])
def test_timestamps_of_go_yaml(text, ok):
    assert goyaml.is_timestamp(text) is ok

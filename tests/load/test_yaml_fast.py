"""The fast YAML path (yaml-rs, checked) gives exactly what SafeLoader gives (go-yaml's reading,
`kexplain.load.goyaml`), or steps aside.

Every text here is read three ways: by SafeLoader itself, by `fast_documents` (which must give
the same documents, compared with their types and key order, or None), and by
`parse_documents` with the fast path on for every size and off (which must give the same
documents, or the same error). Also: the alias ratio of `excessive_aliasing` (go-yaml's rule)
just under and just over its limits.
"""
from __future__ import annotations

import math
import random
import string
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.errors import InputError
from kexplain.load import yaml_io
from kexplain.load.yaml_io import (_allowed_alias_ratio, excessive_aliasing, fast_documents,
                                   parse_documents)
from tests.support.paths import ROOT

needs_yaml_rs = pytest.mark.skipif(yaml_io._yaml_rs is None, reason="yaml-rs is not installed")


# -- comparing ---------------------------------------------------------------------------------
def same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (True is not 1, 1 is not 1.0), key order too."""
    stack, seen = [(a, b)], set()
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, (dict, list)):
            if (id(x), id(y)) in seen:      # shared, or a cycle (a recursive alias): compared already
                continue
            seen.add((id(x), id(y)))
            if len(x) != len(y):
                return False
            if isinstance(x, dict):
                stack.extend(zip(x, y))
                stack.extend(zip(x.values(), y.values()))
            else:
                stack.extend(zip(x, y))
        elif isinstance(x, float):
            if not ((math.isnan(x) and math.isnan(y)) or (x == y and math.copysign(1, x) == math.copysign(1, y))):
                return False
        elif x != y:
            return False
    return True


def reference(text: str) -> list[Any] | None:
    try:
        return list(yaml.load_all(text, Loader=yaml_io.loader_class(text)))
    except (yaml.YAMLError, ValueError, RecursionError):
        return None


def read(text: str, monkeypatch: pytest.MonkeyPatch, fast: bool) -> tuple[str, Any]:
    monkeypatch.setattr(yaml_io, "FAST_MIN_CHARS", 0 if fast else 1 << 62)
    try:
        return "docs", [doc.value for doc in parse_documents(text, "in.yaml")]
    except InputError as err:
        return "error", (str(err), err.source)


def check(text: str, monkeypatch: pytest.MonkeyPatch) -> list[Any] | None:
    """Asserts the three readings agree; returns what the fast path gave."""
    got = fast_documents(text)
    if got is not None:
        ref = reference(text)
        assert ref is not None, f"the fast path read what SafeLoader refuses: {text[:200]!r}"
        assert same(got, ref), f"{text[:300]!r}\nfast: {got!r}\nref:  {ref!r}"
    with_fast, without = read(text, monkeypatch, True), read(text, monkeypatch, False)
    assert with_fast[0] == without[0], (text[:300], with_fast, without)
    if with_fast[0] == "docs":
        assert same(with_fast[1], without[1]), (text[:300], with_fast, without)
    else:
        assert with_fast == without
    return got


# -- documents ---------------------------------------------------------------------------------
KUBECTL_LIKE = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: node-00001
    uid: 5eccf619-fc64-415e-b02d-6a4f5e79ca41
    creationTimestamp: "2026-01-01T00:00:00Z"
    resourceVersion: "123456"
    labels:
      kubernetes.io/hostname: node-00001
      pod-template-hash: "7541229e14"
    annotations:
      note: "yes"
      empty: ""
      multi: |
        line one
        line two
  spec:
    unschedulable: true
    taints: []
    podCIDR: 10.0.0.0/24
  status:
    capacity: {cpu: "16", memory: 64Gi, pods: "110"}
    conditions:
    - type: Ready
      status: "True"
      lastHeartbeatTime: '2026-01-01T00:00:00Z'
    - type: MemoryPressure
      status: 'False'
    images:
    - names: [registry.example/app:1.0.0]
      sizeBytes: 64000000
    nodeInfo:
      kernelVersion: 5.15.0
      count: -12
      zero: 0
      nothing: null
      tilde: ~
      absent:
"""

TRICKY = {
    "yaml11 bools": "a: [yes, no, on, off, Yes, NO, On, OFF, y, n, true, True, TRUE, false, tRue]\n",
    "quoted bools": "a: ['yes', \"no\", 'on', 'off', 'true', 'True', 'y']\n",
    "octal and friends": "a: [0777, 0o17, 0x1F, 0X1F, 0b101, 0B101, 08, 00, -0, +12, 1_000, _1, 0_8, 1:20, 190:20:30]\n",
    "quoted numbers": "a: ['0777', '0o17', '1_000', '1:20', '16', \"110\", '-0', '+12']\n",
    "floats": "a: [1.5, .5, -.5, +.5, 1., 1e3, 1.0e3, 1.0e+3, 6.8523015e+5, 685.230_15e+03, 190:20:30.15, ._5]\n",
    "specials": "a: [.inf, -.Inf, +.INF, .nan, inf, nan, Infinity]\n",
    "quoted specials": "a: ['.inf', '1e3', '1.5', '.nan', '7541229e14']\n",
    "exponent strings": "a: 7541229e14\nb: '7541229e14'\nc: 7541229e+14\n",
    "timestamps": "a: 2026-01-01T00:00:00Z\nb: 2001-12-14 21:59:43.10 -5\nc: 2002-12-14\nd: 2001-12-14t21:59:43.10-05:00\n",
    "quoted timestamps": "a: '2026-01-01T00:00:00Z'\nb: \"2002-12-14\"\n",
    "bad date": "a: 2024-13-45\n",
    "binary": "a: !!binary aGVsbG8=\n",
    "tags": "a: !!str 16\nb: !!int '16'\nc: !!float '1'\nd: !custom x\ne: ! 12\n",
    "merge": "base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\n",
    "inline merge": "other:\n  <<: {x: 1}\n  y: 3\n",
    "merge list": "a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: [*a, *b]\n",
    "anchors": "a: &x [1, {b: 2}]\nb: *x\nc: &s hello\nd: *s\n",
    "duplicate anchor": "a: &x 1\nb: &x 2\nc: *x\n",
    "undefined alias": "a: *x\n",
    "recursive": "a: &x [*x]\n",
    "duplicate keys": "a: 1\nb: 2\na: 3\n",
    "keys": "16: a\ntrue: b\nnull: c\n~: d\n'16': e\n1.5: f\n? [a, b]\n: g\n",
    "complex key": "? {a: 1}\n: b\n",
    "empty values": "a:\nb: ''\nc: \"\"\nd: ~\ne: null\nf: Null\ng: NULL\nh: []\ni: {}\n",
    "multi docs": "a: 1\n---\nb: 2\n...\n---\n- c\n",
    "empty docs": "---\n---\na: 1\n---\n",
    "explicit empty": "--- \n...\n",
    "only comments": "# nothing\n",
    "empty": "",
    "list of docs": "- a\n---\n- b\n---\n- c\n",
    "one list": "- a\n- b\n",
    "two lists": "- [a]\n- [b]\n",
    "scalar doc": "hello\n",
    "unicode": "name: \"caf\\u00e9 \\U0001F600\"\nplain: café 😀\nkey é: ü\n",
    "escapes": "a: \"\\x41\\t\\n\\\\ \\\" \\/ \\0 \\a \\e \\N \\_ \\L \\P\"\nb: 'it''s'\n",
    "folded quoted": "a: \"one\n  two\n\n  three\"\nb: 'one\n  two'\nc: one\n  two\n",
    "block scalars": "a: |\n  x\n\n  y\nb: >\n  f\n  g\n\n  h\nc: |-\n  z\nd: |+\n  w\n\ne: >2\n   indented\n",
    "long string": "a: " + "x" * 5000 + "\nb: '" + "y " * 3000 + "'\n",
    "flow": "a: {b: [1, 2, {c: d}], 'e': \"f\"}\ng: [[], {}, [[]]]\n",
    "json-like": '{"a": 1, "b": [true, null, "x"], "c": {"d": 1.5}}\n',
    "json keys": '{"a":1, "b":"2"}\n',
    "directive": "%YAML 1.1\n---\na: 1\n",
    "tab": "a:\tb\n",
    "crlf": "a: 1\r\nb: '2'\r\n",
    "lone cr": "a: 1\rb: 2\n",
    "other breaks": "a: x\u2028y\nb: \u0085\n",
    "nel break": "a: 'x\u0085y'\n",
    "control char": "a: \x07\n",
    "syntax error": "a: [1, 2\n",
    "bad indent": "a:\n  b: 1\n c: 2\n",
    "value tag": "a: =\n",
    "go-yaml bools": "a: [y, Y, n, N, yes, off]\ny: 1\nn: 2\n",
    "go-yaml numbers": "a: [0o17, 0O17, 0X1F, 0B101, 0b-101, 08, 1e3, 1.0e3, .5e3, 1.0e+400, 18446744073709551615]\n",
    "go-yaml 64 bits": "a: 18446744073709551616\nb: -9223372036854775809\nc: 9223372036854775808\n",
    "merge order": "b: &b {x: 1, y: 2}\nc: {x: 0, <<: *b, y: 3}\n",
    "null key": "~: 1\n",
    "infinity": "a: [1, .inf]\n",
    "merge string": "a: '<<'\nb: <<\n",
    "quoted yaml indicators": "a: '!'\nb: '&'\nc: '*'\nd: '='\ne: '<<'\n",
    "big ints": "a: 99999999999999999999999\nb: -99999999999999999999999\nc: '99999999999999999999999'\n",
    "huge int": "a: " + "9" * 5000 + "\n",
    "sexagesimal strings": "a: '10:30'\nb: 10:30\n",
    "spaces in quoted": "a: '2026-01-01 00:00:00'\nb: ' 16'\nc: '16 '\n",
    "numbers as keys quoted": "'1': a\n'true': b\n'null': c\n",
    "comments": "a: 1 # one\n# between\nb: '#2'\nc: x#y\n",
    "kubectl": KUBECTL_LIKE,
    # a quoted look-alike beside a plain one, the plain one in every place a plain scalar can be
    "plain yes in flow": "a: 'yes'\nb: [x, yes]\n",
    "plain yes in flow mapping": "a: 'yes'\nb: {k: yes}\n",
    "plain yes as key": "a: 'yes'\nyes: 1\n",
    "plain yes after anchor": "a: 'yes'\nb: &y yes\nc: *y\n",
    "plain yes json-like": "{\"a\": \"yes\", \"b\":yes}\n",
    "plain yes as document": "a: 'yes'\n--- yes\n",
    "plain yes explicit key": "a: 'yes'\n? yes\n: 1\n",
    "plain yes sequence": "a: 'yes'\nb:\n- - yes\n",
    "plain yes with comment": "a: 'yes'\nb: yes # c\n",
    "plain yes next line": "a: 'yes'\nb:\n  yes\n",
    "plain yes trailing spaces": "a: 'yes'\nb: yes   \n",
    "plain yes crlf": "a: 'yes'\r\nb: yes\r\n",
    "plain date key": "a: '2026-01-01'\n2026-01-01: x\n",
    "plain date in flow": "a: '2026-01-01'\nb: [2026-01-01]\n",
    "plain leading zero in flow": "a: [0777]\n",
    "plain leading zero signed": "a: -0777\n",
    "plain exponent in flow": "a: [7541229e14, '7541229e14']\n",
    "plain float after anchor": "a: &f 1e3\nb: '1e3'\n",
    "quoted yes in prose": "a: 'yes'\nb: 'say yes or no'\nc: |\n  turn it on\n",
    # go-yaml's (kubectl's) `\'` in double quotes, refused by libyaml: read by SafeLoader alone
    "go-yaml quote escape": "a: \"it\\'s\"\nb: ['C:\\', \"\\\\'\", don\\'t]\nc: |\n  x\\'\n",
    "go-yaml quote escape bad": "a: \"it\\'s\"\nb: \"\\q\"\n",
    "backslash quote outside double quotes": "a: 'C:\\'\nb: don\\'t\n# it\\'s\n",
}


@needs_yaml_rs
@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_documents_read_alike(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    check(TRICKY[name], monkeypatch)


@needs_yaml_rs
def test_the_fast_path_reads_a_kubectl_dump(monkeypatch: pytest.MonkeyPatch) -> None:
    """Quoted numbers, booleans and dates, plain ints and booleans, nulls: all read the fast way."""
    text = KUBECTL_LIKE + "".join(KUBECTL_LIKE.split("items:\n", 1)[1].replace("node-00001", f"node-{i:05d}")
                                  for i in range(2, 50))
    got = check(text, monkeypatch)
    assert got is not None and len(got[0]["items"]) == 49
    status = got[0]["items"][0]["status"]
    assert status["conditions"][0]["status"] == "True" and status["capacity"]["cpu"] == "16"
    assert got[0]["items"][0]["metadata"]["labels"]["pod-template-hash"] == "7541229e14"


@needs_yaml_rs
@pytest.mark.parametrize("name, text", [
    ("plain exponent string", "a: 7541229e14\nb: [1, 2]\n"),           # a string to YAML 1.1
    ("plain float", "a: 1.5\nb: -0.25\n"),
    ("plain dates", "a: 2026-01-01\nb: '2026-01-01'\nc: 2024-13-45\n"),          # strings to both
    ("exponent without a dot", "a: 1e3\nb: 1000.0\n"),
    ("base 60 look-alikes", "a: 1:30\nb: '1:30'\nc: =\n"),
    ("aliases", "a: &x {b: 1}\nc: *x\n"),
])
def test_the_fast_path_takes_what_it_can_show(name: str, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert check(text, monkeypatch) is not None


@needs_yaml_rs
@pytest.mark.parametrize("name, text", [
    ("plain yes beside a quoted one", "a: yes\nb: 'yes'\n"),
    ("plain y beside a quoted one", "a: y\nb: 'y'\n"),
    ("leading zero", "a: 0777\n"),
    ("tag", "a: !!str 1\n"),
    ("merge key", "a: &x {b: 1}\nc:\n  <<: *x\n"),
    ("duplicate anchor", "a: &x 1\nb: &x 2\n"),
    ("NaN", "a: .nan\n"),
    ("infinity", "a: .inf\n"),
    ("past 64 bits", "a: 18446744073709551616\n"),
    ("merge key written plain beside a quoted one", "a: '<<'\nb: {<<: {c: 1}}\n"),
    ("tab", "a: 'x\tb'\n"),
    ("go-yaml quote escape", "a: \"it\\'s\"\n"),
])
def test_the_fast_path_steps_aside(name: str, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert fast_documents(text) is None
    check(text, monkeypatch)


def _yaml_files() -> list[Path]:
    files = [p for base in ("fixtures", "tests/conformance", "tests/data")
             for p in sorted((ROOT / base).rglob("*")) if p.suffix in (".yaml", ".yml")]
    return files


@needs_yaml_rs
@pytest.mark.parametrize("path", _yaml_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_bundled_files_read_alike(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        pytest.skip("not UTF-8 (refused before parsing)")
    check(text, monkeypatch)


# -- random documents --------------------------------------------------------------------------
TOKENS = ["0", "00", "0777", "08", "0o17", "0x1F", "0X1F", "0b11", "1_000", "_1", "1:20", "-0", "+12", "12",
          "1.5", ".5", "+.5", "1.", "1e3", "1E3", "1.0e3", "1.0e+3", "7541229e14", ".inf", "-.inf", "inf",
          "yes", "no", "on", "off", "y", "n", "true", "True", "FALSE", "null", "Null", "~", "", "<<", "=",
          "2026-01-01", "2026-01-01T00:00:00Z", "2026-1-1", "x", "hello world", "a:b", "-x", "é",
          "9" * 25, "1_0.5", "0.0", "-0.0", "1__0", "0_1", "+0x1F", "0xff_ff"]


def _scalar(rng: random.Random) -> str:
    tok = rng.choice(TOKENS + ["".join(rng.choice("0123456789_.eE+-xob") for _ in range(rng.randint(1, 6)))])
    style = rng.random()
    if tok == "" or style < 0.4:
        quote = rng.choice("'\"")
        return quote + tok + quote
    if any(c in tok for c in ":#") or tok.startswith(("-", "<", "=", "~", "!")) and style < 0.5:
        return "'" + tok + "'"
    return tok


def _node(rng: random.Random, depth: int, indent: int) -> str:
    kind = rng.random()
    pad = " " * indent
    if depth > 3 or kind < 0.4:
        return " " + _scalar(rng) + "\n"
    if kind < 0.7:
        return "\n" + "".join(f"{pad}k{i}{rng.choice(['', '_' + _scalar(rng).strip(chr(39) + chr(34))])}:"
                              f"{_node(rng, depth + 1, indent + 2)}" for i in range(rng.randint(1, 4)))
    if kind < 0.9:
        return "\n" + "".join(f"{pad}-{_node(rng, depth + 1, indent + 2)}" for _ in range(rng.randint(1, 4)))
    return " [" + ", ".join(_scalar(rng) for _ in range(rng.randint(0, 4))) + "]\n"


@needs_yaml_rs
@pytest.mark.parametrize("seed", range(60))
def test_random_documents_read_alike(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    docs = []
    for _ in range(rng.randint(1, 3)):
        docs.append("root:" + _node(rng, 0, 2))
    text = ("---\n" if rng.random() < 0.5 else "") + "---\n".join(docs)
    check(text, monkeypatch)


@needs_yaml_rs
@pytest.mark.parametrize("seed", range(30))
def test_dumped_documents_read_alike(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """PyYAML's own dumps (it quotes what YAML 1.1 would misread), in every style."""
    rng = random.Random(seed)

    def value(depth: int) -> Any:
        r = rng.random()
        if depth < 3 and r < 0.3:
            return {rng.choice(TOKENS + ["name", "kind"]) or "k": value(depth + 1) for _ in range(rng.randint(0, 4))}
        if depth < 3 and r < 0.5:
            return [value(depth + 1) for _ in range(rng.randint(0, 4))]
        return rng.choice([rng.choice(TOKENS), rng.randint(-10**6, 10**6), rng.random() * 1e6, True, False, None,
                           "".join(rng.choice(string.printable) for _ in range(rng.randint(0, 20)))])

    doc = {"root": value(0), "shared": (shared := [value(1), value(1)]), "again": shared}
    style = rng.choice([None, "'", '"', "|"])
    text = yaml.dump(doc, Dumper=yaml.CSafeDumper, default_style=style,
                     default_flow_style=rng.choice([None, True, False]), allow_unicode=rng.random() < 0.5,
                     width=rng.choice([20, 80, 1000]))
    check(text, monkeypatch)


QUOTED_TRICKS = ["16", "110", "True", "False", "true", "yes", "no", "on", "null", "~", "", "0777", "1e3", "1.5",
                 "2026-01-01T00:00:00Z", "2026-01-01", "1:20", "0x1F", "<<", "=", "7541229e14", ".inf", "-0"]


def _kubectl_like(rng: random.Random) -> str:
    """Objects the way kubectl writes them: YAML 1.1 look-alikes quoted, plain ints and booleans."""
    lines = ["apiVersion: v1", "kind: List", "items:"]
    for i in range(rng.randint(1, 30)):
        q = rng.choice("'\"")
        lines += [f"- apiVersion: v1", f"  kind: Pod", f"  metadata:", f"    name: pod-{i:05d}",
                  f"    creationTimestamp: {q}2026-01-0{rng.randint(1, 9)}T00:00:00Z{q}",
                  f"    resourceVersion: {q}{rng.randint(0, 10**7)}{q}",
                  f"    labels:", f"      pod-template-hash: {rng.choice(['7541229e14', 'abc123', '5d8f9'])}",
                  f"      tricky: {q}{rng.choice(QUOTED_TRICKS)}{q}",
                  f"  spec:", f"    priority: {rng.randint(-10, 10**9)}", f"    hostNetwork: {rng.choice(['true', 'false'])}",
                  f"    nodeName: {rng.choice(['null', '~', '', 'node-1'])}",
                  f"    ratio: {rng.choice(['0.5', '1.25', '-3.0', '10'])}",
                  f"    script: |", f"      echo {rng.choice(QUOTED_TRICKS)}", f"      é ü {rng.randint(0, 9)}",
                  f"    tolerations: {rng.choice(['[]', '[{key: a, operator: Exists}]'])}",
                  f"    note: {q}{' '.join(rng.choice(QUOTED_TRICKS) for _ in range(3))}{q}"]
    return "\n".join(lines) + "\n"


@needs_yaml_rs
def test_kubectl_like_documents_read_alike_and_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    fast = 0
    for seed in range(40):
        fast += check(_kubectl_like(random.Random(seed)), monkeypatch) is not None
    assert fast >= 30, f"the fast path read only {fast} of 40"


@needs_yaml_rs
@pytest.mark.parametrize("text", ["[" * 2400 + "]" * 2400 + "\n",
                                  "".join(" " * i + "- \n" for i in range(0, 1200, 2)) + " " * 1200 + "x\n",
                                  "[" * 6000 + "]" * 6000 + "\n"], ids=["flow", "block", "too-deep"])
def test_deep_documents_read_alike(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    check(text, monkeypatch)


# -- the builder: what PyYAML's constructor builds, without its overhead -------------------------
BUILDER_CASES = {
    "the first bad value in the constructor's order": "a: {b: !!int x}\nc: !!int y\n",   # breadth first: y
    "merge keys": "a: &x {b: 1}\nc:\n  <<: *x\n  d: 2\n",
    "a recursive alias": "a: &x [1, *x]\n",
    "a shared subtree": "a: &x {b: [1, 2]}\nc: *x\nd: *x\n",
    "tagged scalars": "a: !!str 1\nb: !!float '2'\nc: !!binary aGk=\nd: !!null ''\ne: !!bool 'yes'\n",
    "a mapping tag on a scalar": "a: !!map x\n",
    "a sequence tag on a mapping": "a: !!seq {b: 1}\n",
    "a set": "a: !!set {x, y}\n",
    "an ordered map": "a: !!omap [{x: 1}, {y: 2}]\n",
    "a complex key": "? [a, b]\n: c\n",
    "a mapping key": "? {a: 1}\n: c\n",
    "a value key": "=: x\n",
    "typed keys": "!!binary aGk=: 1\n~: 2\n1: 3\n2026-01-01: 4\ntrue: 5\n",
    "empty documents": "---\n---\na: 1\n---\n",
    "timestamps": "a: 2026-01-01\nb: 2026-01-01T10:00:00+02:00\nc: '2026-01-01'\n",
    "duplicate keys": "a: 1\nb: 2\na: 3\n",
    "an unknown tag": "a: !secret x\n",
}


def constructed(text: str) -> tuple[str, Any]:
    """PyYAML's own constructor over SafeLoader's nodes: the documents, or the problem it names."""
    try:
        return "docs", list(yaml.load_all(text, Loader=yaml_io.loader_class(text)))
    except yaml.YAMLError as err:
        return "error", (getattr(err, "problem", None) or str(err)).splitlines()[0]


def check_builder(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's documents are the constructor's (or its error is the constructor's); lint's
    reading (with nodes) gives the same values."""
    monkeypatch.setattr(yaml_io, "FAST_MIN_CHARS", 1 << 62)
    expected = constructed(text)
    got = read(text, monkeypatch, False)
    assert got[0] == expected[0], (text, got, expected)
    if got[0] == "docs":
        assert same(got[1], expected[1]), (text, got[1], expected[1])
        for_lint = list(parse_documents(text, "in.yaml", nodes=True))
        assert all(d.node is not None for d in for_lint) or text.lstrip().startswith(("{", "["))
        assert same([d.value for d in for_lint], got[1])
    else:
        assert expected[1] in got[1][0], (text, got, expected)


@pytest.mark.parametrize("name", sorted(BUILDER_CASES))
def test_the_builder_builds_what_the_constructor_builds(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    check_builder(BUILDER_CASES[name], monkeypatch)


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_the_builder_reads_tricky_documents_as_the_constructor(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    check_builder(TRICKY[name], monkeypatch)


@pytest.mark.parametrize("seed", range(60))
def test_the_builder_reads_random_documents_as_the_constructor(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    text = "---\n".join("root:" + _node(rng, 0, 2) for _ in range(rng.randint(1, 3)))
    check_builder(text, monkeypatch)


def test_every_reading_keeps_timestamps_as_written() -> None:
    """kubectl sends a timestamp decoded into an interface as the text written."""
    (doc,) = parse_documents(BUILDER_CASES["timestamps"], "in.yaml", nodes=True)
    assert doc.value == {"a": "2026-01-01", "b": "2026-01-01T10:00:00+02:00", "c": "2026-01-01"}
    assert doc.line == 1 and doc.node.value[1][0].start_mark.line == 1
    (default,) = parse_documents(BUILDER_CASES["timestamps"], "in.yaml")
    assert default.value == doc.value and default.node is None


# -- go-yaml's alias ratio ---------------------------------------------------------------------
def _aliased_yaml(aliases: int) -> str:
    """A mapping holding a 99-item list (100 values) and `aliases` aliases of it."""
    return "a: &x [" + ", ".join(["0"] * 99) + "]\n" + "".join(f"b{i}: *x\n" for i in range(aliases))


def test_alias_ratio_just_under_the_limit_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # 9,900 of 10,001 values come from aliases: 98.99%, under go-yaml's 99% for small documents
    docs = [doc.value for doc in parse_documents(_aliased_yaml(99), "in.yaml")]
    assert len(docs[0]) == 100 and excessive_aliasing(docs[0]) is None


def test_alias_ratio_just_over_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # 10,000 of 10,101 values: 99.0001%
    for fast in (False, True):
        monkeypatch.setattr(yaml_io, "FAST_MIN_CHARS", 0 if fast else 1 << 62)
        with pytest.raises(InputError) as err:
            list(parse_documents(_aliased_yaml(100), "in.yaml"))
        assert str(err.value) == ("in.yaml: document 1: YAML aliases make 10,000 of its 10,101 values "
                                  "(excessive aliasing, as kubectl would say: an alias bomb?); refusing to read it")


def test_alias_ratio_needs_more_than_100_aliased_values_and_1000_values() -> None:
    shared = list(range(99))                       # 100 values
    assert excessive_aliasing([shared, shared]) is None                     # 100 aliased of 201
    small = [0] * 5
    assert excessive_aliasing([small] * 150) is None                        # 894 aliased, but 901 values


def test_alias_ratio_limits() -> None:
    assert _allowed_alias_ratio(1_000) == _allowed_alias_ratio(400_000) == 0.99
    assert _allowed_alias_ratio(4_000_000) == _allowed_alias_ratio(50_000_000) == 0.10
    assert _allowed_alias_ratio(2_200_000) == pytest.approx(0.545)


@pytest.mark.parametrize("copies, refused", [(401, False), (402, True)])
def test_alias_ratio_of_large_documents_is_ten_percent(copies: int, refused: bool) -> None:
    """From 4,000,000 values on, 10% may come from aliases: 400,000 of 4,001,002 may, 401,000 of
    4,002,002 may not. (The values are shared Python lists: nothing is expanded.)"""
    shared = [0] * 999                                   # 1,000 values
    doc = [[0] * 3_600_000] + [shared] * copies          # 1 + 3,600,001 + copies * 1,000 values
    problem = excessive_aliasing(doc)
    assert (problem is not None) is refused
    if refused:
        assert problem.startswith("YAML aliases make 401,000 of its 4,002,002 values (excessive aliasing")


def test_text_facts_beside_match_the_facts_here():
    """The text-only checks (libyaml's pass, tabs and tags, risky ints, floats) run in a
    forked child for large texts: the same answers as here, None events for a text libyaml
    rejects, and the child is reaped (calling the waiter twice gives the same answer)."""
    from kexplain.load.yaml_io import FAST_MIN_CHARS, _text_facts, _text_facts_aside
    big = "items:\n" + "".join(f"- {{name: n{i}, value: '{i}'}}\n" for i in range(FAST_MIN_CHARS // 20))
    assert len(big) >= FAST_MIN_CHARS
    wait = _text_facts_aside(big)
    facts = wait()
    assert facts == _text_facts(big) == wait()
    assert facts.events and not (facts.unsafe or facts.risky_int)
    broken = big + "- [unclosed\n"
    assert _text_facts_aside(broken)().events is None
    odd = big + "- {when: 2024-01-02, mode: 0777, tab: !!str x}\n"
    assert _text_facts_aside(odd)() == _text_facts(odd)
    assert _text_facts(odd).unsafe and _text_facts(odd).risky_int

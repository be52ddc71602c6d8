"""YAML as kubectl reads it: double-quoted escapes (issue 15, item 9).

kubectl reads YAML with go-yaml v2 (sigs.k8s.io/yaml), whose double-quoted escapes are libyaml's
but for `\\'` (a `'` to go-yaml, an unknown escape to libyaml and PyYAML) and `\\/` (the other way
round: kexplain keeps accepting it). See `kubectl_escapes` in kexplain/load/yaml_io.py.
"""
from __future__ import annotations

import json

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.errors import InputError
from kexplain.lint.documents import read_documents
from kexplain.load import yaml_io
from kexplain.load.yaml_io import SafeLoader, fast_documents, kubectl_escapes, parse_documents

BS = "\\"

# Every escape of go-yaml v2's yaml_parser_scan_flow_scalar (scannerc.go) and what it yields.
GO_YAML_ESCAPES = {
    "0": "\x00", "a": "\x07", "b": "\x08", "t": "\t", "\t": "\t", "n": "\n", "v": "\x0b", "f": "\x0c",
    "r": "\r", "e": "\x1b", " ": " ", '"': '"', "'": "'", BS: BS, "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029", "x41": "A", "xe9": "\xe9", "u00e9": "\xe9", "u2603": "\u2603",
    "U0001F600": "\U0001F600", "U0010FFFF": "\U0010FFFF",
}


def read(text: str, path: str = "m.yaml") -> list:
    return [doc.value for doc in parse_documents(text, path)]


def error(text: str, path: str = "m.yaml") -> str:
    with pytest.raises(InputError) as exc:
        read(text, path)
    return str(exc.value)


# -- the website's envars-file pattern ---------------------------------------------------------
# A shell command in a double-quoted flow item, single quotes escaped as go-yaml allows.
SETUP_POD = r"""apiVersion: v1
kind: Pod
metadata:
  name: env-from-file
spec:
  initContainers:
    - name: write-env
      image: busybox
      command: ['sh', '-c', "printf \"HOST=\'db.local\'\nPORT=\'5432\'\" > /cfg/app.env"]
      volumeMounts: [{name: cfg, mountPath: /cfg}]
  containers:
    - name: app
      image: busybox
      command: ["sh", "-c", "env"]
  volumes:
    - name: cfg
      emptyDir: {}
"""
SETUP_COMMAND = "printf \"HOST='db.local'\nPORT='5432'\" > /cfg/app.env"


def test_escaped_single_quote_in_a_double_quoted_flow_item():
    (pod,) = read(SETUP_POD)
    assert pod["spec"]["initContainers"][0]["command"] == ["sh", "-c", SETUP_COMMAND]
    assert pod["spec"]["containers"][0]["command"] == ["sh", "-c", "env"]


def test_libyaml_alone_refuses_it():
    """What the fix is for: CSafeLoader (libyaml) and yaml-rs refuse the text as written."""
    with pytest.raises(yaml.YAMLError, match="unknown escape"):
        yaml.load(SETUP_POD, Loader=yaml_io._BaseLoader)


def test_explain_reads_it(capsys, tmp_path):
    pod = tmp_path / "pod.yaml"
    pod.write_text(SETUP_POD)
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\n"
                     'status: {capacity: {cpu: "2", memory: 4Gi, pods: "110"}}\n')
    code = main([str(pod), "--nodes", str(nodes), "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "invalid YAML" not in err
    json.loads(out)


def test_lint_reads_it():
    """lint composes nodes with SafeLoader (asked for them and for dates as written): the nodes have the value too."""
    docs, err = read_documents(SETUP_POD, "m.yaml")
    assert err is None
    assert docs[0].obj["spec"]["initContainers"][0]["command"][2] == SETUP_COMMAND


def test_nodes_and_events_have_the_value():
    text = 'a: "it\\\'s"\n'
    node = yaml.compose(text, Loader=SafeLoader)
    assert node.value[0][1].value == "it's"
    scalars = [e.value for e in yaml.parse(text, Loader=SafeLoader) if isinstance(e, yaml.ScalarEvent)]
    assert scalars == ["a", "it's"]


# -- every escape ------------------------------------------------------------------------------
@pytest.mark.parametrize("escape", list(GO_YAML_ESCAPES), ids=[repr(e) for e in GO_YAML_ESCAPES])
def test_every_go_yaml_escape(escape):
    expected = GO_YAML_ESCAPES[escape]
    assert read(f'a: "x{BS}{escape}y"\n') == [{"a": f"x{expected}y"}]
    assert read(f'- ["x{BS}{escape}y", {{"k{BS}{escape}": 1}}]\n') == [[[f"x{expected}y", {f"k{expected}": 1}]]]


def test_all_escapes_in_one_string():
    text = "a: \"" + "|".join(BS + e for e in GO_YAML_ESCAPES) + "\"\n"
    assert read(text) == [{"a": "|".join(GO_YAML_ESCAPES.values())}]


def test_escaped_line_break_and_folding_around_the_escape():
    assert read('a: "one \\\'\n  two\\\n  three \\\'"\n') == [{"a": "one ' twothree '"}]


@pytest.mark.parametrize("text, expected", [
    ('a: "x\\\\\'y"\n', "x\\'y"),                # `\\` then a quote: not the escape
    ('a: "x\\\\\\\'y"\n', "x\\'y"),              # `\\` then `\'`
    ('a: "\\\'\\\'\\\'"\n', "'''"),
    ('a: "\\x5c\\\'"\n', "\\'"),                 # an escaped backslash written in hex, then `\'`
    ("a: 'C:\\'\nb: \"it\\'s\"\n", None),        # checked below: the backslash stays outside "..."
])
def test_backslash_runs(text, expected):
    if expected is not None:
        assert read(text) == [{"a": expected}]
    else:
        assert read(text) == [{"a": "C:\\", "b": "it's"}]


@pytest.mark.parametrize("text, expected", [
    ("a: 'it\\''s'\n", "it\\'s"),                # single-quoted: a backslash, then an escaped quote
    ("a: don\\'t\n", "don\\'t"),                 # plain
    ("a: |\n  don\\'t\n", "don\\'t\n"),         # literal
    ("a: >\n  don\\'t\n", "don\\'t\n"),         # folded
    ("# don\\'t\na: \"x\"\n", "x"),              # a comment
    ("a: 'x\\' # \\'\n", "x\\"),
])
def test_backslash_quote_elsewhere_is_left_as_written(text, expected):
    assert read(text) == [{"a": expected}]
    assert read(text) == list(yaml.load_all(text, Loader=yaml_io._BaseLoader))


def test_anchors_aliases_and_many_documents():
    text = 'a: &q "\\\'q\\\'"\nb: *q\n---\n- "\\\'"\n- \'\\\'\n'
    assert read(text) == [{"a": "'q'", "b": "'q'"}, ["'", "\\"]]


def test_text_with_the_stand_in_characters():
    """The stand-in is a character the text does not have: one it has is kept as written."""
    first = yaml_io._STAND_INS[0]
    text = f'a: "{first}\\\'"\nb: "{yaml_io._STAND_INS[1]}"\n'
    assert read(text) == [{"a": f"{first}'", "b": yaml_io._STAND_INS[1]}]
    every = "".join(yaml_io._STAND_INS)
    assert kubectl_escapes(f'a: "{every}\\\'"\n')[1] is None          # absurd: then refused as before
    assert "unknown escape" in error(f'a: "{every}\\\'"\n')


def test_untouched_without_the_escape():
    for text in ('a: "x"\n', "a: 'x\\\\'\n", 'a: "x\\\\\'"\n'):
        out, stand_in = kubectl_escapes(text)
        assert stand_in is None and out == text


def test_the_pure_python_loader_reads_the_rewrite_alike():
    text = 'a: "x\\\'y"\nb: \'C:\\\'\nc: [don\\\'t]\n'
    rewritten, stand_in = kubectl_escapes(text)
    assert stand_in is not None and len(rewritten) == len(text)
    node = yaml.compose(rewritten, Loader=yaml.SafeLoader)
    yaml_io._restore_node(node, stand_in)
    assert yaml.SafeLoader("").construct_document(node) == {"a": "x'y", "b": "C:\\", "c": ["don\\'t"]}


# -- what stays refused ------------------------------------------------------------------------
@pytest.mark.parametrize("text, line, column, problem", [
    ('a: "x\\qy"\n', 1, 6, "found unknown escape character"),
    ('a: "\\\'"\nb: "\\\'\\9"\n', 2, 7, "found unknown escape character"),
    ('a: ["\\\'", "x\\x4"]\n', 1, 15, "did not find expected hexdecimal number"),
    ('a: "\\\'\\ud800"\n', 1, 9, "found invalid Unicode character escape code"),
    ('a: "\\\'\\U00110000"\n', 1, 9, "found invalid Unicode character escape code"),
    ("a: \"\\'\n", 2, 1, "found unexpected end of stream"),
    ('a: ["\\\'", ]]\n', 1, 12, "did not find expected key"),   # the column as written
])
def test_invalid_escapes_and_errors_after_the_escape(text, line, column, problem):
    message = error(text, "deploy/web.yaml")
    assert message.startswith("deploy/web.yaml: invalid YAML: ")
    assert f"line {line}, column {column}: {problem}" in message


def test_error_columns_as_written():
    """After `\\'` on its line, an error's column is where it would be for `\\"` (same length)."""
    for tail in (' ]]\n', ', [}\n', ' x: y\n'):
        assert error('a: ["\\\'"' + tail).split(": ", 2)[2] == error('a: ["\\""' + tail).split(": ", 2)[2]


def test_slash_escape_stays_accepted():
    """`\\/` is refused by go-yaml (kubectl) but read by libyaml and PyYAML: left accepted."""
    assert read('a: "x\\/y"\n') == [{"a": "x/y"}]


def test_json_file_with_the_escape():
    """Not JSON (json refuses `\\'`), but YAML, as any JSON-looking text JSON refuses."""
    assert read('{"a": "it\\\'s"}', "m.json") == [{"a": "it's"}]


# -- the fast path -----------------------------------------------------------------------------
needs_yaml_rs = pytest.mark.skipif(yaml_io._yaml_rs is None, reason="yaml-rs is not installed")


def _big(item: str) -> str:
    lines = ["items:"]
    i = 0
    while sum(map(len, lines)) < yaml_io.FAST_MIN_CHARS + 1000:
        lines.append(f"- name: n{i}\n  value: {item}")
        i += 1
    return "\n".join(lines) + "\n"


@needs_yaml_rs
def test_fast_path_steps_aside_for_the_escape():
    text = _big('"it\\\'s"')
    assert fast_documents(text) is None
    (doc,) = read(text)
    assert doc["items"][0] == {"name": "n0", "value": "it's"} and doc["items"][-1]["value"] == "it's"


@needs_yaml_rs
def test_fast_path_agrees_on_every_other_escape():
    escapes = [e for e in GO_YAML_ESCAPES if e not in ("'", "\t")]        # tabs: fast path steps aside
    text = _big('"' + "|".join(BS + e for e in escapes) + '"')
    expected = list(yaml.load_all(text, Loader=yaml_io._BaseLoader))
    fast = fast_documents(text)
    assert fast is None or fast == expected
    assert read(text) == expected
    assert expected[0]["items"][0]["value"] == "|".join(GO_YAML_ESCAPES[e] for e in escapes)


@needs_yaml_rs
def test_fast_path_with_backslash_quote_outside_double_quotes():
    """A `\\'` that is no escape (single-quoted) leaves the text to the fast path as before."""
    text = _big("'C:\\'")
    expected = list(yaml.load_all(text, Loader=yaml_io._BaseLoader))
    assert fast_documents(text) == expected
    assert read(text) == expected


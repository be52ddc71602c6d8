"""A text that starts with `{`, read as kubectl's YAMLOrJSONDecoder reads it (k8s.io/apimachinery
pkg/util/yaml): JSON values one by one while they parse; after none or one of them, the rest as
YAML; after two, an error is the JSON decoder's. The JSON decoder's error stands in for YAML's only
at the document where the switch happened, so a document is either read or refused, never both, and
`kexplain FILE` and `kexplain lint FILE` say the same one error."""
from __future__ import annotations

import io

import pytest

from kexplain.cli.app import main
from kexplain.cli.env import Environment
from kexplain.errors import InputError
from kexplain.lint.documents import read_documents
from kexplain.lint.linter import LintOptions, lint
from kexplain.load.yaml_io import parse_documents
from tests.support.paths import DATA

CLUSTER = str(DATA / "as-written" / "cluster.yaml")
POD = ('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, '
       '"spec": {"containers": [{"name": "app", "image": "nginx"}]}}')
YAML_POD = "{apiVersion: v1, kind: Pod, metadata: {name: web}, spec: {containers: [{name: app, image: nginx}]}}"
# a YAML flow mapping (not JSON), then a second document neither JSON nor YAML reads
FLOW_THEN_BROKEN = YAML_POD + "\n---\n{apiVersion: v1, kind: Pod, metadata: {name: db}\n"
BROKEN_SECOND = "invalid YAML: line 4, column 1: did not find expected ',' or '}'"


def read(text: str, path: str) -> list[tuple[int, object]]:
    return [(d.number, d.value) for d in parse_documents(text, path)]


def refusal(text: str, path: str) -> tuple[str, int]:
    with pytest.raises(InputError) as exc:
        read(text, path)
    return str(exc.value), exc.value.document      # type: ignore[attr-defined]


@pytest.mark.parametrize("path", ["pods.json", "pods.yaml", "-"])
def test_a_broken_later_document_is_yamls_error_not_the_json_decoders_of_the_first(path):
    """The first document is YAML (kubectl switched there) and read; the error is the second's."""
    docs = []
    with pytest.raises(InputError) as exc:
        for doc in parse_documents(FLOW_THEN_BROKEN, path):
            docs.append(doc.number)
    assert docs == [1]
    assert (str(exc.value), exc.value.document) == (f"{path}: {BROKEN_SECOND}", 2)   # type: ignore[attr-defined]


def test_explain_and_lint_give_that_one_error(tmp_path):
    path = tmp_path / "pods.json"
    path.write_text(FLOW_THEN_BROKEN)
    env = Environment(stdin=io.BytesIO(), stdout=io.StringIO(), stderr=io.StringIO())
    assert main([str(path), "--nodes", CLUSTER, "--no-suggestions"], env) == 2
    assert env.stderr.getvalue() == f"error: {path}: {BROKEN_SECOND}\n"
    assert "Pod default/web" in env.stdout.getvalue()          # the first document is explained
    report = lint(LintOptions((str(path),)))
    assert report.objects == 1
    assert [(f.rule, f.location.doc, f.location.line, f.message) for f in report.findings] == [
        ("unreadable", 2, 4, BROKEN_SECOND)]


def test_a_json_value_then_yaml_is_read_as_kubectl_reads_it():
    """kubectl reads the first value as JSON, then switches to YAML for the rest (a block mapping)."""
    text = POD + "\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n"
    assert [(n, v["kind"]) for n, v in read(text, "m.json")] == [(1, "Pod"), (2, "ConfigMap")]
    docs, error = read_documents(text, "m.json")
    assert error is None
    assert [d.location.line for d in docs] == [1, 2]          # the YAML document's line is the text's


def test_after_two_json_values_the_error_is_the_json_decoders():
    """Two values read: a JSON stream, which kubectl no longer reads as YAML."""
    text = POD + "\n" + POD + "\n{apiVersion: v1, kind: Pod}\n"
    assert refusal(text, "m.yaml") == (
        "m.yaml: document 3: invalid JSON: line 3, column 2: Expecting property name enclosed in double quotes", 3)


def test_after_one_json_value_a_document_neither_reads_is_the_json_decoders_error():
    """kubectl's decoder returns its first error (JSON's) when YAML refuses the document too."""
    text = POD + "\n{\"kind\": \"Pod\" \"x\"}\n"
    assert refusal(text, "m.yaml") == ("m.yaml: document 2: invalid JSON: line 2, column 16: Expecting ',' delimiter",
                                       2)


@pytest.mark.parametrize(("path", "said"), [
    ("m.json", "m.json: invalid JSON: line 2, column 16: Expecting ',' delimiter"),
    ("m.yaml", "m.yaml: invalid YAML: line 2, column 16: did not find expected ',' or '}'"),
])
def test_a_first_document_neither_reads_gets_one_error(path, said):
    """Refused by both at the first document: one error, the JSON decoder's for a `.json` file."""
    assert refusal('{"apiVersion": "v1",\n "kind": "Pod" "metadata": {}}\n', path) == (said, 1)


def test_lint_keeps_the_lines_of_a_json_value_before_yaml_documents():
    """`{...}` then `---`: the first value is read as JSON, its lines are still where it was written."""
    text = '{\n  "apiVersion": "v1",\n  "kind": "Pod",\n  "metadata": {"name": "web"}\n}\n---\n' + YAML_POD + "\n"
    docs, error = read_documents(text, "m.json")
    assert error is None and [d.location.line for d in docs] == [1, 7]
    assert docs[0].node is not None and docs[0].node.value[2][0].start_mark.line + 1 == 4      # metadata


RATINGS = "{rating: 5}\n{rating: 4}\n"       # Istio's mongoimport file (bookinfo's ratings_data.json)
NOT_AN_OBJECT = ("not a Kubernetes object: no apiVersion and no kind (a kustomization.yaml, Helm values, another "
                 "tool's file?)")


@pytest.mark.parametrize("name", ["ratings_data.json", "ratings_data.yaml"])
def test_what_follows_a_whole_document_in_its_part_is_not_read(tmp_path, name):
    """Issue 77 item 27: no JSON value parses, so kubectl's YAMLReader reads the text up to the next `---`
    as one part, and go-yaml decodes its first document and stops: one document, not an object (one
    error), and no YAML error for line 2, in explain and lint alike; the next part is read."""
    assert read(RATINGS, name) == [(1, {"rating": 5})]
    assert read(RATINGS + "--- # the next part\n" + YAML_POD + "\n", name) == [
        (1, {"rating": 5}), (2, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
                                 "spec": {"containers": [{"name": "app", "image": "nginx"}]}})]
    path = tmp_path / name
    path.write_text(RATINGS)
    env = Environment(stdin=io.BytesIO(), stdout=io.StringIO(), stderr=io.StringIO())
    assert main([str(path), "--nodes", CLUSTER], env) == 2
    assert env.stderr.getvalue() == f"error: {path}: document 1: {NOT_AN_OBJECT}\n"
    report = lint(LintOptions((str(path),)))
    assert [(f.rule, f.location.doc, f.message) for f in report.findings] == [("invalid-document", 1, NOT_AN_OBJECT)]

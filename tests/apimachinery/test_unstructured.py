"""Lists, unwrapped one way (`kexplain.apimachinery.unstructured`) by the file loader, lint and
admission: `kind: List` and typed lists (PodList: items get the list's kind and apiVersion),
nested ones, and what is refused, with the field at fault."""
from __future__ import annotations

import pytest

from kexplain.apimachinery.unstructured import flatten_lists, is_list, kind_problem, list_items
from kexplain.errors import InputError, Source
from kexplain.lint.linter import LintOptions, lint
from kexplain.load.manifests import objects_from_text

SRC = Source("f.yaml", 1)
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}


def test_what_a_list_is():
    assert is_list({"kind": "List"}) and is_list({"kind": "List", "items": 5})
    assert is_list({"kind": "PodList", "items": []})
    assert not is_list({"kind": "PodList"}) and not is_list({"kind": "BlockList", "items": {}})
    assert not is_list({"kind": 3, "items": []}) and not is_list(["List"]) and not is_list(POD)


def test_typed_list_items_take_the_list_s_kind_and_api_version():
    listed = {"apiVersion": "v1", "kind": "PodList", "items": [{"metadata": {"name": "a"}},
                                                               {"apiVersion": "v2", "metadata": {"name": "b"}},
                                                               {"kind": "Node", "metadata": {"name": "c"}}, 5]}
    items = list_items(listed, SRC)
    assert [(i.get("apiVersion"), i.get("kind")) for i in items[:3]] == [("v1", "Pod"), ("v2", "Pod"), (None, "Node")]
    assert items[3] == 5
    assert "kind" not in listed["items"][0]                 # a copy: the list is not changed


def test_nested_lists_are_flattened_in_order_with_their_fields():
    inner = {"apiVersion": "v1", "kind": "List", "items": [POD, {**POD, "metadata": {"name": "b"}}]}
    outer = {"apiVersion": "v1", "kind": "List", "items": [{**POD, "metadata": {"name": "z"}}, inner]}
    got = [(o["metadata"]["name"], where) for o, where in flatten_lists(outer, SRC)]
    assert got == [("z", "items[0]."), ("a", "items[1].items[0]."), ("b", "items[1].items[1].")]
    assert list(flatten_lists(POD, SRC)) == [(POD, "")]


@pytest.mark.parametrize("listed, field, message", [
    ({"kind": "List", "items": {"a": 1}}, "items", "a List needs an items array"),
    ({"kind": "List", "items": ["x"]}, "items[0]", "list item is not a Kubernetes object (a mapping)"),
    ({"kind": "List", "items": [{"metadata": {}}]}, "items[0].kind", "object has no kind"),
    ({"kind": "List", "items": [{"kind": ["Pod"]}]}, "items[0].kind", "must be a string, not a list"),
    ({"kind": "List", "items": [{"kind": "List", "items": 1}]}, "items[0].items", "a List needs an items array"),
])
def test_what_is_refused_names_its_field(listed, field, message):
    with pytest.raises(InputError) as exc:
        list(flatten_lists(listed, SRC))
    assert (exc.value.field, exc.value.message, exc.value.source) == (field, message, SRC)


def test_kind_problem():
    assert kind_problem(POD) is None
    assert kind_problem({"kind": ""}) == "object has no kind"
    assert kind_problem({"kind": 1.5}) == "must be a string, not a number"


def test_explain_and_lint_read_a_typed_list_alike(tmp_path):
    """A PodList's items name no apiVersion: the list's, for `kexplain POD` and for lint."""
    text = ("apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n"
            "  spec: {containers: [{name: c, image: i}]}\n")
    path = tmp_path / "pods.yaml"
    path.write_text(text)
    assert [(o["apiVersion"], o["kind"]) for o, _ in objects_from_text(text, str(path))] == [("v1", "Pod")]
    report = lint(LintOptions((str(path),)))
    assert report.findings == [] and report.objects == 1
    assert report.linted[0].location.item == 0 and report.linted[0].location.line == 4


def test_json_type_names_values_as_openapi_validation_does():
    from kexplain.apimachinery.unstructured import json_type
    assert [json_type(v) for v in (None, True, 3, 3.0, 2.5, "x", [1], {"a": 1})] == \
        ["null", "boolean", "integer", "number", "number", "string", "array", "object"]
    assert json_type(3.0, integral_floats=True) == "integer"     # a custom resource's integer field
    assert json_type(2.5, integral_floats=True) == "number"
    assert json_type(True, integral_floats=True) == "boolean"

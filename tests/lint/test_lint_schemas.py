"""Schemas: versions, compiled validators, strict mode, the fast check agreeing with jsonschema,
and custom resource schemas from --schemas directories."""
from __future__ import annotations

import copy
import json

import pytest
import yaml

from kexplain.errors import KexplainError
from kexplain.admission.openapi import available_versions, normalize_version
from kexplain.lint.schemas import FastCompiler, SchemaStore, Unsupported, openapi_to_jsonschema

DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"app": "web"}},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
             "template": {"metadata": {"labels": {"app": "web"}},
                          "spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}],
                                                   "resources": {"requests": {"cpu": "100m", "memory": 128}}}],
                                   "tolerations": [{"key": "a", "operator": "Exists"}]}}}}


@pytest.fixture(scope="module")
def store() -> SchemaStore:
    return SchemaStore("1.35")


@pytest.fixture(scope="module")
def strict_store() -> SchemaStore:
    return SchemaStore("1.35", validate="strict")


def mutate(obj: dict, path: str, value: object) -> dict:
    out = copy.deepcopy(obj)
    node = out
    parts = [int(p) if p.isdigit() else p for p in path.split(".")]
    for p in parts[:-1]:
        node = node[p]
    node[parts[-1]] = value
    return out


@pytest.mark.parametrize("text, expected", [("1.35", "1.35"), ("v1.35", "1.35"), ("1.35.4", "1.35"),
                                            (" 1.30 ", "1.30")])
def test_normalize_version(text, expected):
    assert normalize_version(text) == expected


@pytest.mark.parametrize("text", ["latest", "1", "1.x"])
def test_bad_versions_are_usage_errors(text):
    with pytest.raises(KexplainError):
        normalize_version(text)


def test_installed_versions_include_the_scheduler_s_and_refuse_others():
    versions = available_versions()
    assert "1.35" in versions
    with pytest.raises(KexplainError, match="no schemas for Kubernetes 1.99"):
        SchemaStore("1.99")


def test_validators_are_compiled_once_per_kind(store):
    assert store.validator("apps/v1", "Deployment") is store.validator("apps/v1", "Deployment")
    assert store.validator("apps/v1", "Deployment").fast is not None


def test_valid_deployment(store):
    assert store.validator("apps/v1", "Deployment").errors(DEPLOYMENT) == []


# a built-in kind: the API server's decoding error (it runs no OpenAPI validation for these);
# custom resources keep kube-openapi's words (test_crd_schemas_from_a_directory)
@pytest.mark.parametrize("path, value, where, message", [
    ("spec.replicas", "two", "spec.replicas",
     "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"),
    ("spec.replicas", True, "spec.replicas",
     "json: cannot unmarshal bool into Go struct field DeploymentSpec.spec.replicas of type int32"),
    ("spec.replicas", 1.5, "spec.replicas",
     "json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32"),
    ("metadata.labels", ["a"], "metadata.labels",
     "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
    ("spec.template.spec.containers", {"name": "c", "image": "x"}, "spec.template.spec.containers",
     "json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type "
     "[]v1.Container"),
    ("spec.template.spec.containers.0.resources.requests.cpu", {"x": 1},
     "spec.template.spec.containers[0].resources.requests.cpu",
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    ("spec.template.spec.containers.0.ports.0.containerPort", "80",
     "spec.template.spec.containers[0].ports[0].containerPort",
     "json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports."
     "containerPort of type int32"),
    ("spec.template.spec.containers.0", {"image": "x"}, "spec.template.spec.containers[0].name", "Required value"),
])
def test_schema_errors_name_the_field(store, path, value, where, message):
    errors = store.validator("apps/v1", "Deployment").errors(mutate(DEPLOYMENT, path, value))
    assert [(e.dotted, e.message) for e in errors] == [(where, message)]
    assert not errors[0].unknown_field


def test_strict_mode_reports_each_unknown_field(store, strict_store):
    obj = mutate(DEPLOYMENT, "spec.template.spec.containers.0.imagePullPolicyy", "Always")
    obj["spec"]["paused2"] = True
    assert store.validator("apps/v1", "Deployment").errors(obj) == []
    errors = strict_store.validator("apps/v1", "Deployment").errors(obj)
    assert [(e.dotted, e.message, e.unknown_field) for e in errors] == [
        ("spec.paused2", 'unknown field "spec.paused2"', True),
        ("spec.template.spec.containers[0].imagePullPolicyy",
         'unknown field "spec.template.spec.containers[0].imagePullPolicyy"', True)]


@pytest.mark.parametrize("path, value", [
    ("spec.replicas", 1.0), ("spec.replicas", 1.5), ("spec.replicas", None), ("spec.replicas", False),
    ("spec.template.spec.containers.0.resources.requests.cpu", 1.5),
    ("spec.template.spec.containers.0.resources.requests.cpu", None),
    ("spec.template.spec.containers.0.resources.requests.cpu", True),
    ("spec.template.spec.containers.0.ports.0.protocol", "TCP"),
    ("spec.template.spec.containers.0.ports.0.protocol", "tcp"),
    ("spec.template.spec.containers.0.name", 5),
    ("spec.template.spec.containers", {"name": "c"}),
    ("spec.template.spec.tolerations.0.tolerationSeconds", "5"),
    ("spec.strategy", {"type": "Recreate"}),
    ("spec.strategy", {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}}),
    ("spec.strategy", {"rollingUpdate": {"maxSurge": 1.5}}),
    ("metadata.annotations", {"a": None}),
    ("metadata.annotations", {"a": 1}),
    ("spec.template.spec.affinity", {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}}),
])
@pytest.mark.parametrize("strict", [False, True])
def test_fast_check_agrees_with_jsonschema(store, strict_store, path, value, strict):
    validator = (strict_store if strict else store).validator("apps/v1", "Deployment")
    obj = mutate(DEPLOYMENT, path, value)
    assert validator.fast(obj) == validator.validator.is_valid(obj)


def test_fast_compiler_refuses_keywords_it_does_not_implement():
    with pytest.raises(Unsupported):
        FastCompiler({}).compile({"type": "string", "pattern": "^a"})
    with pytest.raises(Unsupported):
        FastCompiler({}).compile({"$ref": "#/definitions/x"})
    assert FastCompiler({}, float_integers=False).compile({"type": "integer"})(1.0) is False
    assert FastCompiler({}).compile({"type": "integer"})(1.0) is True


def test_unknown_kinds_and_versions(store):
    assert store.validator("cert-manager.io/v1", "Certificate") is None
    assert store.validator("extensions/v1beta1", "Deployment") is None
    assert store.served_versions("Deployment") == ["apps/v1"]


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced",
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object",
                 "properties": {"spec": {"type": "object", "required": ["size"], "properties": {
                     "size": {"type": "integer", "minimum": 1},
                     "port": {"x-kubernetes-int-or-string": True},
                     "note": {"type": "string", "nullable": True},
                     "mode": {"type": "string", "enum": ["fast", "slow"]},
                     "name": {"type": "string", "maxLength": 3, "pattern": "^[a-z]+$"},
                     "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 1, "minItems": 1},
                     "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}}}]}}


def widget(**spec) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}


@pytest.mark.parametrize("spec, strict, expected", [
    ({"size": 2, "port": "http", "note": None, "extra": {"anything": 1}}, True, []),
    ({"size": 0}, False, ["spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1"]),
    ({"port": 8080}, False, ["spec.size: Required value"]),
    ({"size": 1, "port": 1.5},
     False, ['spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"']),
    ({"size": "big"}, False, ['spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"']),
    ({"size": 1, "mode": "medium"}, False, ['spec.mode: Unsupported value: "medium": supported values: "fast", "slow"']),
    ({"size": 1, "mode": {"a": [1]}}, False, [
        'spec.mode: Unsupported value: {"a": [1]}: supported values: "fast", "slow"',
        'spec.mode: Invalid value: "object": spec.mode in body must be of type string: "object"']),
    ({"size": 1, "name": "abcd"}, False, ["spec.name: Too long: may not be more than 3 bytes"]),
    ({"size": 1, "name": "A"}, False, ["spec.name: Invalid value: \"A\": spec.name in body should match '^[a-z]+$'"]),
    ({"size": 1, "tags": ["a", "b"]}, False, ["spec.tags: Too many: 2: must have at most 1 items"]),
    ({"size": 1, "tags": []}, False, ["spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items"]),
    ({"size": 1, "colour": "red"}, False, []),
    ({"size": 1, "colour": "red"}, True, ['spec.colour: unknown field "spec.colour"']),
])
def test_crd_schemas_from_a_directory(tmp_path, spec, strict, expected):
    (tmp_path / "widgets.yaml").write_text(yaml.safe_dump(CRD))
    store = SchemaStore("1.35", validate="strict" if strict else "ignore", schema_dirs=(str(tmp_path),))
    errors = store.validator("example.com/v1", "Widget").errors(widget(**spec))
    assert [f"{e.dotted}: {e.message}" for e in errors] == expected


def test_catalog_layout_and_gvk_schemas(tmp_path):
    (tmp_path / "example.com").mkdir()
    (tmp_path / "example.com" / "gadget_v1alpha1.json").write_text(json.dumps(
        {"type": "object", "properties": {"spec": {"type": "object", "required": ["model"]}}}))
    (tmp_path / "thing.json").write_text(json.dumps(
        {"x-kubernetes-group-version-kind": [{"group": "example.org", "version": "v2", "kind": "Thing"}],
         "type": "object", "required": ["spec"]}))
    store = SchemaStore("1.35", schema_dirs=(str(tmp_path),))
    gadget = store.validator("example.com/v1alpha1", "Gadget")
    assert [(e.dotted, e.message) for e in gadget.errors({"kind": "Gadget", "spec": {}})] == [
        ("spec.model", "Required value")]
    thing = store.validator("example.org/v2", "Thing")
    assert [(e.dotted, e.message) for e in thing.errors({"kind": "Thing"})] == [("spec", "Required value")]
    assert store.validator("example.org/v1", "Thing") is None


def test_openapi_conversion():
    converted = openapi_to_jsonschema({"type": "object", "properties": {
        "a": {"type": "string", "nullable": True}, "b": {"x-kubernetes-int-or-string": True},
        "c": {"type": "object", "properties": {"d": {"type": "string"}}}}}, strict=True, top=True)
    assert converted["properties"]["a"]["type"] == ["string", "null"]
    assert converted["properties"]["b"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert converted["properties"]["c"]["additionalProperties"] is False
    assert converted["additionalProperties"] is False and "metadata" in converted["properties"]


def test_bad_schema_dir_is_a_usage_error(tmp_path):
    with pytest.raises(KexplainError, match="not a directory"):
        SchemaStore("1.35", schema_dirs=(str(tmp_path / "missing"),))
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(KexplainError, match="cannot read schema"):
        SchemaStore("1.35", schema_dirs=(str(tmp_path),))


def test_crd_files_are_read_as_kubectl_reads_yaml(tmp_path):
    """A CRD whose description holds a double-quoted `\\'` (go-yaml reads it as a quote) loads."""
    text = yaml.safe_dump(CRD) + 'x-note: "it\\\'s a widget"\n'
    (tmp_path / "widgets.yaml").write_text(text)
    store = SchemaStore("1.35", schema_dirs=(str(tmp_path),))
    assert store.validator("example.com/v1", "Widget").errors(widget(size=1)) == []

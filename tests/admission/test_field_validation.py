"""kubectl's field validation, in `kexplain POD` and `kexplain lint` alike: unknown fields are
refused by default (`--validate=strict`, the API server's `strict decoding error: unknown field
"spec.x"`), warned of with `--validate=warn`, not looked for with `--validate=ignore`; objects an
API server stored (a resourceVersion, or `--stored`) are not checked again. An object without an
apiVersion, or at a version of a built-in group the version followed does not serve, is refused with
lint's words. Objects of kinds kexplain does not read are left alone."""
from __future__ import annotations

import copy
import dataclasses

import pytest

from kexplain.errors import InputError, Source
from kexplain.lint.linter import LintOptions, lint
from kexplain.load.manifests import check_objects, objects_from_text
from kexplain.admission.openapi import builtin_index, parse_validate
from kexplain.apimachinery.versions import OFF_BY_DEFAULT
from kexplain.features import DEFAULT_MINOR
from kexplain.lint.schemas import SchemaStore
from tests.support.cli_helpers import explain_json as explain
from tests.support.lint_helpers import deployment, node, pod, write
from tests.support.paths import DATA, ROOT

BROKEN = DATA / "broken"
CLUSTER = str(ROOT / "fixtures" / "cluster.yaml")
GRPC = "spec.containers[0].livenessProbe.gRPC"




def grpc_pod(name: str = "web", **meta) -> dict:
    obj = pod(name)
    obj["metadata"].update(meta)
    obj["spec"]["containers"][0]["livenessProbe"] = {"gRPC": {"port": 8080}}
    return obj


# -- one story: the line of `kexplain POD` is lint's finding ------------------------------------
@pytest.mark.parametrize("name", ["pod--unknown-field-grpc.yaml", "pod--no-api-version.yaml",
                                  "pod--cronjob-batch-v1beta1.yaml"])
def test_explain_says_what_lint_says(capsys, name):
    path = BROKEN / name
    code, out, err = explain(capsys, str(path), "--nodes", CLUSTER)
    (finding,) = lint(LintOptions((str(path),))).findings
    assert (code, out) == (2, "")
    assert err == f"error: {path}: document 1: {finding.headline()}\n"


def test_every_unknown_field_in_one_line_as_the_api_server_says_it(capsys):
    path = BROKEN / "pod--deployment-unknown-fields.yaml"
    code, _, err = explain(capsys, str(path), "--nodes", CLUSTER)
    assert code == 2
    assert err == (f"error: {path}: document 1: Deployment default/web: strict decoding error: "
                   'unknown field "spec.replica", unknown field "spec.template.spec.containers[0].imagePullPolicyy"\n')
    report = lint(LintOptions((str(path),)))
    assert [(f.rule, f.field, f.message) for f in report.findings] == [
        ("unknown-field", "spec.replica", 'strict decoding error: unknown field "spec.replica"'),
        ("unknown-field", "spec.template.spec.containers[0].imagePullPolicyy",
         'strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolicyy"')]


@pytest.mark.parametrize("value", ["warn"])
def test_warn_explains_the_pod_and_warns(capsys, tmp_path, value):
    path = write(tmp_path, "p.yaml", grpc_pod())
    code, out, err = explain(capsys, path, "--nodes", CLUSTER, "--validate", value)
    assert code == 0 and '"status": "Scheduled"' in out
    assert err == f'warning: {path}: document 1: Pod default/web: {GRPC}: unknown field "{GRPC}"\n'
    (finding,) = lint(LintOptions((path,), validate="warn")).findings
    assert (finding.level.label, finding.headline()) == ("warning", f'Pod default/web: {GRPC}: unknown field "{GRPC}"')


@pytest.mark.parametrize("args", [("--validate", "ignore"), ("--validate", "false"), ("--stored",)])
def test_ignore_and_stored_objects_are_not_checked(capsys, tmp_path, args):
    path = write(tmp_path, "p.yaml", grpc_pod())
    code, out, err = explain(capsys, path, "--nodes", CLUSTER, *args)
    assert code in (0, 1) and err == "" and '"status": "' in out       # explained (stored: not admitted)


def test_an_object_the_api_server_stored_is_not_checked_again(capsys, tmp_path):
    stored = grpc_pod("old", resourceVersion="42", uid="u-1", namespace="default")
    stored["spec"]["nodeName"] = "node-1"
    cluster = write(tmp_path, "cluster.yaml", node("node-1", "8"), stored)
    code, _, err = explain(capsys, write(tmp_path, "p.yaml", pod()), "--nodes", cluster)
    assert (code, err) == (0, "")
    fresh = grpc_pod("new")
    fresh["spec"]["nodeName"] = "node-1"
    cluster = write(tmp_path, "cluster.yaml", node("node-1", "8"), fresh)
    code, _, err = explain(capsys, write(tmp_path, "p.yaml", pod()), "--nodes", cluster)
    assert code == 2
    assert err == f'error: {cluster}: document 2: Pod default/new: {GRPC}: strict decoding error: unknown field "{GRPC}"\n'


@pytest.mark.parametrize("value, message", [
    ("foo", 'invalid - validate option "foo"; must be one of: strict (or true), warn, ignore (or false)'),
    ("Strict", 'invalid - validate option "Strict"'),
])
def test_bad_validate_values(capsys, tmp_path, value, message):
    code, _, err = explain(capsys, write(tmp_path, "p.yaml", pod()), "--nodes", CLUSTER, "--validate", value)
    assert code == 2 and message in " ".join(err.split())


@pytest.mark.parametrize("text, mode", [("strict", "strict"), ("true", "strict"), ("1", "strict"), ("T", "strict"),
                                        ("warn", "warn"), ("ignore", "ignore"), ("false", "ignore"),
                                        ("0", "ignore")])
def test_validate_values_are_kubectls(text, mode):
    assert parse_validate(text) == mode


# -- API versions --------------------------------------------------------------------------------
def test_cluster_objects_of_kinds_kexplain_ignores_stay_ignored(capsys, tmp_path):
    ignored = [{"apiVersion": "extensions/v1beta1", "kind": "Ingress", "metadata": {"name": "i"}, "spec": {"x": 1}},
               {**deployment("old"), "apiVersion": "apps/v1beta1", "bogus": True},
               {"apiVersion": "resource.k8s.io/v1beta2", "kind": "ResourceClaim", "metadata": {"name": "c"}},
               {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"any": 1}}]
    cluster = write(tmp_path, "cluster.yaml", node("node-1", "8"), *ignored)
    code, out, _ = explain(capsys, write(tmp_path, "p.yaml", pod()), "--nodes", cluster)
    assert code == 0 and '"status": "Scheduled"' in out


def test_list_items_are_checked_and_typed_list_items_take_the_list_s_api_version(tmp_path):
    text = ("apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n  spec: {containers: [{name: c, image: i}]}\n"
            "---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: policy/v1beta1\n  kind: PodDisruptionBudget\n"
            "  metadata: {name: pdb}\n")
    objs = objects_from_text(text, "c.yaml")
    assert [(o["apiVersion"], o["kind"]) for o, _ in objs] == [("v1", "Pod"), ("policy/v1beta1", "PodDisruptionBudget")]
    assert check_objects(objs[:1], {"Pod"}).warnings == []
    checked = check_objects(objs, {"Pod", "PodDisruptionBudget"})      # under the default version
    assert [o["kind"] for o, _ in checked.objects] == ["Pod"]
    assert checked.warnings == ['c.yaml: document 2: PodDisruptionBudget default/pdb: apiVersion: no matches for kind '
                                f'"PodDisruptionBudget" in version "policy/v1beta1": Kubernetes {DEFAULT_MINOR} does not serve it '
                                "(use policy/v1); skipped (kubectl apply refuses it and applies the rest of the file)"]


@pytest.mark.parametrize("api_version, kind, problem", [
    ("v1", "Pod", None), ("apps/v1", "Deployment", None), ("batch/v1", "CronJob", None),
    ("resource.k8s.io/v1", "ResourceClaim", None), ("resource.k8s.io/v1beta2", "ResourceSlice", None),
    (None, "Pod", "object has no apiVersion"), ("", "Node", "object has no apiVersion"),
    ("batch/v1beta1", "CronJob",
     'no matches for kind "CronJob" in version "batch/v1beta1": Kubernetes 1.35 does not serve it (use batch/v1)'),
    ("extensions/v1beta1", "DaemonSet",
     'no matches for kind "DaemonSet" in version "extensions/v1beta1": Kubernetes 1.35 does not serve it (use apps/v1)'),
    ("apps/v1beta2", "StatefulSet",
     'no matches for kind "StatefulSet" in version "apps/v1beta2": Kubernetes 1.35 does not serve it (use apps/v1)'),
    ("resource.k8s.io/v1beta1", "ResourceClaim", None),      # off by default: not refused (`api_version_status`)
    ("example.com/v1", "Pod", None),        # a custom resource of its own group: not known here
])
def test_api_versions_served(api_version, kind, problem):
    assert builtin_index("1.35").api_version_problem(api_version, kind) == problem


def test_versions_are_the_lint_schemas_and_served_ones_those_on_by_default(tmp_path):
    store = SchemaStore("1.35")
    index = builtin_index()
    kinds = ["Pod", "Node", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob",
             "ReplicationController", "PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode",
             "PodDisruptionBudget", "PriorityClass", "Namespace", "RuntimeClass", "Service", "DeviceClass",
             "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"]
    for kind in kinds:
        assert sorted(index.available_versions(kind)) == store.served_versions(kind), kind
        assert index.served_versions(kind) == [v for v in index.available_versions(kind)
                                               if v not in OFF_BY_DEFAULT["1.35"]], kind
    assert index.served_versions("ResourceClaim") == ["resource.k8s.io/v1"]


# -- one source of field knowledge: the walk finds what the strict jsonschema validator finds ----------
OBJECTS = [
    grpc_pod(),
    {**deployment(), "status": {"replicas": 1, "bogus": 2}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": {"a": "b"}, "annotation": {}},
     "spec": {"taints": [{"key": "k", "effect": "NoSchedule", "tolerationSeconds": 1}]},
     "status": {"capacity": {"cpu": "1"}, "images": [{"names": ["x"], "size": 1}]}},
    {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"},
     "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": {
         "containers": [{"name": "c", "image": "i", "env": [{"name": "A", "valueFrom": {"fieldRef": {
             "fieldPath": "x", "apiversion": "v1"}}}]}]}}}}}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
     "spec": {"containers": "not a list", "volumes": [{"name": "v", "emptydir": {}}]}},
]


@pytest.mark.parametrize("obj", OBJECTS, ids=lambda o: o["kind"])
def test_unknown_fields_are_those_of_the_strict_schemas(obj):
    strict = SchemaStore("1.35", "strict").validator(obj["apiVersion"], obj["kind"])
    schema_only = dataclasses.replace(strict, decode=None)     # the JSON schema's view, decoding aside
    expected = sorted(e.dotted for e in schema_only.errors(obj) if e.unknown_field)
    assert expected
    assert sorted(builtin_index().unknown_fields(obj["apiVersion"], obj["kind"], copy.deepcopy(obj))) == expected


def test_the_walk_is_cheap_for_valid_objects():
    obj = deployment()
    index = builtin_index()
    assert index.unknown_fields("apps/v1", "Deployment", obj) == []
    assert check_objects([(obj, Source("d.yaml", 1))], {"Deployment"}).warnings == []


def test_lint_checks_its_pool_as_explain_checks_the_cluster(capsys, monkeypatch, tmp_path):
    from tests.support.lint_helpers import run
    pool = str(BROKEN / "nodes--unknown-field.yaml")
    manifest = write(tmp_path, "p.yaml", pod())
    code, _, err = run(capsys, monkeypatch, manifest, "--nodes", pool)
    assert code == 2
    assert err == f'error: {pool}: document 1: Node node-1: spec.taint: strict decoding error: unknown field "spec.taint"\n'
    code, explained, _ = explain(capsys, manifest, "--nodes", pool)
    assert code == 2
    report = lint(LintOptions((manifest,), (pool,), validate="warn"))
    assert report.warnings == [f'{pool}: document 1: Node node-1: spec.taint: unknown field "spec.taint"']

"""A built-in object the API server cannot decode into its Go struct is refused with the decoder's
error (`Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal
string into Go struct field DeploymentSpec.spec.replicas of type int32`): `kexplain POD` exits 2
with it, naming the file, the object and the field, and lint reports it as the object's one
schema finding, in the same words, whatever field kexplain models. Objects an API server
already stored are not decoded again."""
from __future__ import annotations

import copy
import datetime

import pytest

from kexplain.errors import InputError, Source
from kexplain.apimachinery.gotypes import FIELD_TYPES, NAMED_CONTAINERS
from kexplain.lint.linter import LintOptions, lint
from kexplain.load.manifests import check_objects
from kexplain.admission.openapi import (RFC3339, RFC3339_MICRO, _base64_problem, builtin_index, definitions,
                                        go_time_parse_error, go_type_of, json_number)
from tests.support.lint_helpers import WIDGET_CRD, deployment, node, pod, write
from tests.support.cli_helpers import explain_json as explain

QTY = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
U = "json: cannot unmarshal "


def with_(obj: dict, path: str, value) -> dict:
    """A copy of `obj` with the value at a dotted path (numbers index lists) set."""
    obj = copy.deepcopy(obj)
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    here = obj
    for part in parents:
        here = here[part]
    here[last] = value
    return obj


def fc_pod() -> dict:
    obj = pod("san")
    obj["spec"]["volumes"] = [{"name": "v", "fc": {"lun": "<ADD LUN ID Here>", "targetWWNs": ["500a0981891b8dc5"]}}]
    return obj


# (case, object, field, the API server's error)
CASES = [
    ("replicas as a string", deployment(replicas="3"), "spec.replicas",
     U + "string into Go struct field DeploymentSpec.spec.replicas of type int32"),
    ("fc lun as a string", fc_pod(), "spec.volumes[0].fc.lun",
     U + "string into Go struct field FCVolumeSource.spec.volumes.fc.lun of type int32"),
    ("containers as a mapping", with_(pod(), "spec.containers", {"name": "c", "image": "nginx"}), "spec.containers",
     U + "object into Go struct field PodSpec.spec.containers of type []v1.Container"),
    ("a bool for a string", with_(pod(), "spec.containers.0.image", True), "spec.containers[0].image",
     U + "bool into Go struct field Container.spec.containers.image of type string"),
    ("a bool for a named string type", with_(pod(), "spec.containers.0.imagePullPolicy", True),
     "spec.containers[0].imagePullPolicy",
     U + "bool into Go struct field Container.spec.containers.imagePullPolicy of type v1.PullPolicy"),
    ("a float for an int32", deployment(replicas=1.5), "spec.replicas",
     U + "number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32"),
    ("past int32", deployment(replicas=3_000_000_000), "spec.replicas",
     U + "number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32"),
    ("a list for a map", with_(pod(), "spec.nodeSelector", ["disktype=ssd"]), "spec.nodeSelector",
     U + "array into Go struct field PodSpec.spec.nodeSelector of type map[string]string"),
    ("a list for a map in a template", deployment(nodeSelector=["disktype=ssd"]), "spec.template.spec.nodeSelector",
     U + "array into Go struct field PodSpec.spec.template.spec.nodeSelector of type map[string]string"),
    ("a number for a label", with_(pod(), "metadata.labels", {"version": 2}), "metadata.labels.version",
     U + "number into Go struct field ObjectMeta.metadata.labels of type string"),
    ("a bad quantity", with_(pod(), "spec.containers.0.resources.requests.cpu", "lots"),
     "spec.containers[0].resources.requests.cpu", QTY),
    ("a bool for an IntOrString", with_(deployment(), "spec.strategy", {"rollingUpdate": {"maxSurge": True}}),
     "spec.strategy.rollingUpdate.maxSurge",
     U + "bool into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type int32"),
    ("a bad timestamp", with_(pod(), "metadata.creationTimestamp", "yesterday"), "metadata.creationTimestamp",
     'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'),
    # Go's decoder reports the first type error in the order kubectl sends keys (sorted) ...
    ("the first in key order", with_(with_(pod(), "spec.priority", "high"), "metadata.labels", ["a"]),
     "metadata.labels", U + "array into Go struct field ObjectMeta.metadata.labels of type map[string]string"),
    # ... unless a type's own decoder fails later on: that ends decoding, and is reported
    ("a decoder's own error ends it", with_(with_(pod(), "spec.containers.0.image", 5),
                                            "spec.containers.0.resources.requests.cpu", "lots"),
     "spec.containers[0].resources.requests.cpu", QTY),
    # a decoding error refuses the object before strict field validation names unknown fields
    ("before unknown fields", with_(deployment(replicas="x"), "spec.replica", 3), "spec.replicas",
     U + "string into Go struct field DeploymentSpec.spec.replicas of type int32"),
]


@pytest.mark.parametrize("obj, field, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_explain_and_lint_give_the_api_servers_decoding_error(tmp_path, capsys, obj, field, message):
    path = write(tmp_path, "m.yaml", obj)
    cluster = write(tmp_path, "cluster.yaml", node("n1", "4"))
    code, out, err = explain(capsys, path, "--nodes", cluster)
    assert code == 2 and out == ""
    assert err.endswith(f": {field}: {message}\n") and err.count("\n") == 1, err
    assert err.startswith(f"error: {path}: document 1: ")
    report = lint(LintOptions((path,)))
    assert [(f.rule, f.field, f.message) for f in report.findings] == [("schema", field, message)]


@pytest.mark.parametrize("validate", ["warn", "ignore"])
def test_field_validation_does_not_let_a_decoding_error_through(tmp_path, capsys, validate):
    path = write(tmp_path, "m.yaml", deployment(replicas="3"))
    cluster = write(tmp_path, "cluster.yaml", node("n1", "4"))
    code, _, err = explain(capsys, path, "--nodes", cluster, "--validate", validate)
    assert code == 2 and "DeploymentSpec.spec.replicas of type int32" in err
    report = lint(LintOptions((path,), validate=validate))
    assert [f.message for f in report.findings] == [U + "string into Go struct field DeploymentSpec.spec.replicas "
                                                    "of type int32"]


def test_a_cluster_object_is_decoded_too(tmp_path, capsys):
    bound = fc_pod()
    bound["spec"]["nodeName"] = "n1"
    cluster = write(tmp_path, "cluster.yaml", node("n1", "4"), bound)
    code, _, err = explain(capsys, write(tmp_path, "p.yaml", pod("new")), "--nodes", cluster)
    assert code == 2
    assert err == (f"error: {cluster}: document 2: Pod default/san: spec.volumes[0].fc.lun: {U}string into Go "
                   "struct field FCVolumeSource.spec.volumes.fc.lun of type int32\n")


def test_stored_objects_are_not_decoded_again(tmp_path, capsys):
    """An object with a resourceVersion (or every object, with --stored) was taken by an API
    server: kexplain reads it as it is (only the fields the scheduler reads must make sense)."""
    bound = fc_pod()
    bound["spec"]["nodeName"] = "n1"
    bound["metadata"]["resourceVersion"] = "42"
    cluster = write(tmp_path, "cluster.yaml", node("n1", "4"), bound)
    code, out, err = explain(capsys, write(tmp_path, "p.yaml", pod("new")), "--nodes", cluster)
    assert code == 0, err
    del bound["metadata"]["resourceVersion"]
    cluster = write(tmp_path, "cluster.yaml", node("n1", "4"), bound)
    code, out, err = explain(capsys, write(tmp_path, "p.yaml", pod("new")), "--nodes", cluster, "--stored")
    assert code in (0, 1) and err == "", err         # explained (the pending pod unadmitted, as written)


def test_check_objects_skips_stored_objects():
    broken = with_(deployment(replicas="3"), "metadata.resourceVersion", "7")
    assert check_objects([(broken, Source("d.yaml", 1))], {"Deployment"}).warnings == []
    assert check_objects([(with_(broken, "metadata.resourceVersion", ""), Source("d.yaml", 1))], {"Deployment"},
                         stored=True).warnings == []
    with pytest.raises(InputError, match="DeploymentSpec.spec.replicas of type int32"):
        check_objects([(with_(broken, "metadata.resourceVersion", ""), Source("d.yaml", 1))], {"Deployment"})


def test_yaml_timestamps_are_the_strings_kubectl_sends(tmp_path, capsys):
    """kubectl's YAML reader keeps a plain `2024-01-01` a string: a label value, an annotation."""
    path = tmp_path / "p.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {day: 2024-01-01}\n"
                    "  annotations: {at: 2024-01-01T10:00:00Z}\n  creationTimestamp: 2024-01-01T10:00:00Z\n"
                    "spec:\n  containers: [{name: c, image: nginx}]\n")
    cluster = write(tmp_path, "cluster.yaml", node("n1", "4"))
    code, _, err = explain(capsys, str(path), "--nodes", cluster)
    assert code == 0, err
    assert lint(LintOptions((str(path),))).findings == []
    path.write_text(path.read_text().replace("creationTimestamp: 2024-01-01T10:00:00Z", "creationTimestamp: 2024-01-01"))
    code, _, err = explain(capsys, str(path), "--nodes", cluster)
    assert code == 2 and err.endswith('metadata.creationTimestamp: parsing time "2024-01-01" as '
                                      '"2006-01-02T15:04:05Z07:00": cannot parse "" as "T"\n')


def test_custom_resources_keep_kube_openapis_words(tmp_path):
    """The API server validates a custom resource against its CRD's OpenAPI schema."""
    crd = WIDGET_CRD
    schemas = tmp_path / "schemas"
    write(schemas, "crd.yaml", crd)
    path = write(tmp_path, "w.yaml", {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                                      "spec": {"size": "big"}})
    report = lint(LintOptions((path,), schema_dirs=(str(schemas),)))
    assert [f.message for f in report.findings] == [
        'Invalid value: "string": spec.size in body must be of type integer: "string"']


# -- the pieces ----------------------------------------------------------------------------------
def test_valid_objects_decode():
    index = builtin_index()
    for obj in (pod(), deployment(), node("n1"), with_(deployment(replicas=3.0), "spec.paused", None)):
        assert index.decode_error(obj["apiVersion"], obj["kind"], obj) is None


def test_the_field_types_are_those_of_the_definitions():
    defs = definitions("1.35", True)["$defs"]
    for name, fields in FIELD_TYPES.items():
        assert set(fields) <= set(defs[name]["properties"]), name
        for field, go_type in fields.items():
            assert go_type != go_type_of(defs[name]["properties"][field]), (name, field)
    assert NAMED_CONTAINERS["v1.ResourceList"] == "map[v1.ResourceName]resource.Quantity"
    pod_spec = defs["io.k8s.api.core.v1.PodSpec"]["properties"]
    assert [go_type_of(pod_spec[f]) for f in ("containers", "nodeSelector", "priority", "affinity")] == [
        "[]v1.Container", "map[string]string", "int32", "v1.Affinity"]


@pytest.mark.parametrize("value, text", [
    (3, "3"), (3.0, "3"), (1.5, "1.5"), (-0.25, "-0.25"), (1e21, "1e+21"), (1e20, "100000000000000000000"),
    (1e-7, "1e-7"), (1.5e-7, "1.5e-7"), (2.5e300, "2.5e+300"), (10 ** 25, "1e+25"),
])
def test_numbers_as_kubectls_json_writes_them(value, text):
    assert json_number(value) == text


@pytest.mark.parametrize("layout, value, error", [
    (RFC3339, "2024-01-01T00:00:00Z", None),
    (RFC3339, "2024-01-01T00:00:00.123+05:30", None),
    (RFC3339, "2024-01-01T1:02:03Z", None),                    # Go takes a one-digit hour
    (RFC3339, "2024-13-01T00:00:00Z", 'parsing time "2024-13-01T00:00:00Z": month out of range'),
    (RFC3339, "2023-02-29T00:00:00Z", 'parsing time "2023-02-29T00:00:00Z": day out of range'),
    (RFC3339, "2024-01-01T24:00:00Z", 'parsing time "2024-01-01T24:00:00Z": hour out of range'),
    (RFC3339, "2024-01-01T00:00:00", 'parsing time "2024-01-01T00:00:00" as "2006-01-02T15:04:05Z07:00": '
                                     'cannot parse "" as "Z07:00"'),
    (RFC3339, "2024-01-01 00:00:00Z", 'parsing time "2024-01-01 00:00:00Z" as "2006-01-02T15:04:05Z07:00": '
                                      'cannot parse " 00:00:00Z" as "T"'),
    (RFC3339, "2024-1-01T00:00:00Z", 'parsing time "2024-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": '
                                     'cannot parse "1-01T00:00:00Z" as "01"'),
    (RFC3339, "2024-01-01T00:00:00Zx", 'parsing time "2024-01-01T00:00:00Zx": extra text: "x"'),
    (RFC3339_MICRO, "2024-01-01T00:00:00.000001Z", None),
    (RFC3339_MICRO, "2024-01-01T00:00:00Z", 'parsing time "2024-01-01T00:00:00Z" as '
                                            '"2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'),
])
def test_time_parse_errors_are_gos(layout, value, error):
    assert go_time_parse_error(layout, value) == error


def test_the_plain_times_the_parse_passes_over_are_those_it_accepts():
    """`PLAIN_TIME` (the times API servers write, not parsed again) accepts only what the parse accepts,
    and the parse's answer on the days and hours around its edges is unchanged."""
    from kexplain.admission.openapi import PLAIN_TIME, _parse_error
    for day in ("00", "01", "28", "29", "30", "31", "32"):
        for month in ("00", "01", "02", "04", "12", "13"):
            for clock in ("00:00:00", "23:59:59", "24:00:00", "12:60:00", "12:00:60", "7:00:00"):
                for zone in ("Z", "+01:00", "", "z"):
                    value = f"2024-{month}-{day}T{clock}{zone}"
                    if PLAIN_TIME(value) is not None:
                        assert _parse_error(RFC3339, value) is None, value
                    assert go_time_parse_error(RFC3339, value) == _parse_error(RFC3339, value), value
    assert go_time_parse_error(RFC3339, "2024-02-29T00:00:00Z") is None
    assert go_time_parse_error(RFC3339, "2023-02-29T00:00:00Z") == 'parsing time "2023-02-29T00:00:00Z": day out of range'


@pytest.mark.parametrize("text, error", [
    ("aGVsbG8=", None), ("aGVs\nbG8=", None), ("aGVsbG8", "illegal base64 data at input byte 4"),
    ("a", "illegal base64 data at input byte 0"), ("aGVs*G8=", "illegal base64 data at input byte 4"),
    ("aGVsbA=", "illegal base64 data at input byte 7"), ("aGVsbA==x", "illegal base64 data at input byte 8"),
])
def test_base64_errors_are_gos(text, error):
    assert _base64_problem(text) == error


def test_secret_data_is_base64(tmp_path):
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "not base64!"}}
    report = lint(LintOptions((write(tmp_path, "s.yaml", secret),)))
    assert [(f.field, f.message) for f in report.findings] == [("data.k", "illegal base64 data at input byte 3")]


def test_a_datetime_is_its_text():
    index = builtin_index()
    obj = with_(pod(), "metadata.creationTimestamp", datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc))
    assert index.decode_error("v1", "Pod", obj) is None
    obj = with_(pod(), "metadata.creationTimestamp", datetime.date(2024, 1, 1))
    assert index.decode_error("v1", "Pod", obj).message.startswith('parsing time "2024-01-01"')

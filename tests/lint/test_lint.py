"""`kexplain lint`: findings, exit codes, field validation (--validate), unknown kinds, Helm streams on stdin,
replica counting, preemption, admission, and the reading of files."""
from __future__ import annotations

import json

import pytest

from kexplain.explain.batch import explain_batch, to_json
from kexplain.explain.inputs import load
from kexplain.explain.request import Request
from kexplain.lint.linter import LintOptions, Linter, lint, read_documents, replica_count
from tests.support.lint_helpers import WIDGET_CRD, deployment, node, pod, pool, run, write
from tests.support.copies import copy_names


def findings(report, rule: str | None = None) -> list:
    return [f for f in report.findings if rule is None or f.rule == rule]


# -- exit codes ------------------------------------------------------------------------------
def test_exit_0_when_clean(tmp_path, capsys, monkeypatch):
    path = write(tmp_path, "ok.yaml", deployment(replicas=2), pod())
    code, out, err = run(capsys, monkeypatch, path, "--nodes", pool(tmp_path))
    assert code == 0, out + err
    assert "2 objects in 1 file, 2 scheduled against the pool: 0 errors, 0 warnings" in out


def test_exit_1_on_errors_and_fail_on_levels(tmp_path, capsys, monkeypatch):
    path = write(tmp_path, "big.yaml", pod(cpu="8"))
    code, out, _ = run(capsys, monkeypatch, path, "--nodes", pool(tmp_path))
    assert code == 1
    assert "error [unschedulable] Pod default/p: 0/2 nodes are available: 2 Insufficient cpu." in out
    code, _, _ = run(capsys, monkeypatch, path, "--nodes", pool(tmp_path), "--fail-on", "never")
    assert code == 0


@pytest.mark.parametrize("fail_on, expected", [("error", 0), ("warning", 1), ("info", 1), ("never", 0)])
def test_fail_on_a_warning(tmp_path, capsys, monkeypatch, fail_on, expected):
    gated = pod(schedulingGates=[{"name": "example.com/wait"}])
    code, _, _ = run(capsys, monkeypatch, write(tmp_path, "g.yaml", gated), "--nodes", pool(tmp_path),
                     "--fail-on", fail_on)
    assert code == expected


@pytest.mark.parametrize("fail_on, expected", [("warning", 0), ("info", 1)])
def test_fail_on_info(tmp_path, capsys, monkeypatch, fail_on, expected):
    code, _, _ = run(capsys, monkeypatch, write(tmp_path, "p.yaml", pod()), "--nodes", pool(tmp_path),
                     "--fail-on", fail_on)
    assert code == expected


@pytest.mark.parametrize("setup, message", [
    (lambda t: [str(t / "missing.yaml")], "no such file or directory"),
    (lambda t: [write(t, "bad.yaml", pod()) + "x"], "no such file or directory"),
    (lambda t: [_text(t, "broken.yaml", "kind: Pod\nmetadata: {name: [\n")], "invalid YAML: line 3"),
    (lambda t: [_text(t, "bin.yaml", "\x00\x01")], "not a text file"),
])
def test_exit_2_for_unreadable_input(tmp_path, capsys, monkeypatch, setup, message):
    code, out, _ = run(capsys, monkeypatch, *setup(tmp_path))
    assert code == 2
    assert "[unreadable]" in out and message in out


def _text(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_unreadable_file_does_not_stop_the_others(tmp_path, capsys, monkeypatch):
    bad = _text(tmp_path, "a.yaml", "kind: Pod\n---\n: : :\n")
    good = write(tmp_path, "b.yaml", deployment(replicas="x"))
    code, out, _ = run(capsys, monkeypatch, bad, good, "-o", "json")
    report = json.loads(out)
    assert code == 2
    assert [f["rule"] for f in report["findings"]] == ["invalid-document", "unreadable", "schema"]
    assert report["findings"][1]["document"] == 2


@pytest.mark.parametrize("args, message", [
    (["--k8s-version", "1.99"], "no schemas for Kubernetes 1.99"),
    (["--k8s-version", "banana"], "is not a Kubernetes version"),
    (["--nodes", "/nonexistent/pool.yaml"], "no such file or directory"),
    (["--schemas", "/nonexistent"], "not a directory"),
    (["-o", "json", "--output-file", "a.json", "--output-file", "b.json"], "more --output-file files than -o"),
    (["-o", "json", "-o", "sarif"], "only one format can go to stdout"),
    (["-o", "yaml"], "Invalid value"),
    (["--fail-on", "sometimes"], "Invalid value"),
])
def test_exit_2_for_bad_usage(tmp_path, capsys, monkeypatch, args, message):
    code, out, err = run(capsys, monkeypatch, write(tmp_path, "p.yaml", pod()), *args)
    assert code == 2
    assert message in err


def test_stdin_cannot_be_read_twice(tmp_path, capsys, monkeypatch):
    code, _, err = run(capsys, monkeypatch, "-", "--nodes", "-", stdin="")
    assert code == 2 and "stdin ('-') can be read once" in err


def test_pool_rejected_by_admission_is_a_usage_error(tmp_path, capsys, monkeypatch):
    defaults = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                 "value": value, "globalDefault": True} for name, value in (("low", 10), ("lower", 5))]
    bad_pool = write(tmp_path, "pool.yaml", node("n1"), *defaults)
    code, _, err = run(capsys, monkeypatch, write(tmp_path, "p.yaml", pod()), "--nodes", bad_pool)
    assert code == 2 and "PriorityClass low is already marked as default" in err


def test_help_documents_the_exit_codes(capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, "--help")
    assert code == 0
    assert "Exit codes: 0 no finding at or above --fail-on; 1 findings at or above" in " ".join(out.split())
    assert "2 bad usage or unreadable input" in " ".join(out.split())


# -- schema, field validation (--validate), unknown kinds ------------------------------------------
UNKNOWN = "spec.template.spec.containers[0].imagePullPolicyy"


@pytest.mark.parametrize("args, code, severity, message", [
    ((), 1, "error", f'strict decoding error: unknown field "{UNKNOWN}"'),          # kubectl's default
    (("--validate", "strict"), 1, "error", f'strict decoding error: unknown field "{UNKNOWN}"'),
    (("--validate", "true"), 1, "error", f'strict decoding error: unknown field "{UNKNOWN}"'),
    (("--strict",), 1, "error", f'strict decoding error: unknown field "{UNKNOWN}"'),  # deprecated alias
    (("--validate", "warn"), 0, "warning", f'unknown field "{UNKNOWN}"'),           # the API server's warning
    (("--validate", "ignore"), 0, None, None),
    (("--validate", "false"), 0, None, None),
])
def test_unknown_fields_follow_kubectl_validate(tmp_path, capsys, monkeypatch, args, code, severity, message):
    obj = deployment()
    obj["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    path = write(tmp_path, "d.yaml", obj)
    got, out, err = run(capsys, monkeypatch, path, *args, "-o", "json")
    report = json.loads(out)
    assert got == code
    assert report["strict"] is (severity == "error")
    if severity is None:
        assert report["findings"] == []
        return
    (f,) = report["findings"]
    assert (f["rule"], f["severity"], f["field"], f["message"], f["line"]) == ("unknown-field", severity, UNKNOWN,
                                                                              message, 20)
    assert ("--strict is deprecated" in err) is ("--strict" in args)


def test_unknown_field_text_is_kubectls(tmp_path, capsys, monkeypatch):
    obj = pod("web")
    obj["spec"]["containers"][0]["livenessProbe"] = {"gRPC": {"port": 8080}}
    code, out, _ = run(capsys, monkeypatch, write(tmp_path, "p.yaml", obj))
    assert code == 1
    assert out.splitlines()[0].endswith(
        'error [unknown-field] Pod default/web: spec.containers[0].livenessProbe.gRPC: strict decoding error: unknown field '
        '"spec.containers[0].livenessProbe.gRPC"')


@pytest.mark.parametrize("args, message", [
    (("--validate", "foo"), 'invalid - validate option "foo"; must be one of: strict (or true), warn, ignore (or false)'),
    (("--validate", "warn", "--strict"), "--strict (deprecated: --validate=strict) contradicts --validate=warn"),
])
def test_bad_validate_values_are_usage_errors(tmp_path, capsys, monkeypatch, args, message):
    code, out, err = run(capsys, monkeypatch, write(tmp_path, "p.yaml", pod()), *args)
    assert code == 2
    assert message in " ".join((out + err).split())


def test_unknown_field_gets_scheduled_only_when_the_api_server_would_take_the_object(tmp_path):
    """--validate=warn: the API server drops the field and creates the pod, which is scheduled;
    strict (kubectl's default): it refuses the pod, which is then never created nor scheduled
    (as `kexplain POD` refuses it)."""
    obj = pod()
    obj["spec"]["containers"][0]["colour"] = "red"
    report = lint(LintOptions((write(tmp_path, "p.yaml", obj),), (pool(tmp_path),), validate="warn"))
    assert [(f.rule, f.level.label) for f in report.findings] == [("unknown-field", "warning"), ("fits", "info")]
    report = lint(LintOptions((write(tmp_path, "p.yaml", obj),), (pool(tmp_path),)))
    assert [(f.rule, f.level.label) for f in report.findings] == [("unknown-field", "error")]
    assert report.scheduled_objects == 0


def test_schema_errors_skip_scheduling(tmp_path):
    report = lint(LintOptions((write(tmp_path, "d.yaml", deployment(replicas="three")),), (pool(tmp_path),)))
    assert [(f.rule, f.field) for f in report.findings] == [("schema", "spec.replicas")]
    assert report.scheduled_objects == 0


def test_unknown_kinds_are_skipped_unless_schemas_are_given(tmp_path, capsys, monkeypatch):
    crd = WIDGET_CRD
    schemas = tmp_path / "schemas"
    write(schemas, "widget-crd.yaml", crd)
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": "big"}}
    path = write(tmp_path, "w.yaml", widget, deployment())
    code, out, _ = run(capsys, monkeypatch, path, "-o", "json")
    report = json.loads(out)
    assert code == 0
    assert [(f["rule"], f["severity"]) for f in report["findings"]] == [("unknown-kind", "info")]
    assert report["summary"]["skipped"] == 1
    code, out, _ = run(capsys, monkeypatch, path, "--schemas", str(schemas), "-o", "json")
    report = json.loads(out)
    assert code == 1
    assert [(f["rule"], f["field"], f["message"]) for f in report["findings"]] == [
        ("schema", "spec.size", 'Invalid value: "string": spec.size in body must be of type integer: "string"')]


def test_unknown_version_of_a_builtin_group_is_an_error(tmp_path):
    obj = deployment()
    obj["apiVersion"] = "extensions/v1beta1"
    report = lint(LintOptions((write(tmp_path, "d.yaml", obj),)))
    (f,) = report.findings
    assert (f.rule, f.message) == ("unknown-api-version",
                                   'no matches for kind "Deployment" in version "extensions/v1beta1": Kubernetes 1.36 '
                                   "does not serve it (use apps/v1)")


@pytest.mark.parametrize("version, findings_expected", [("1.25", 1), ("1.35", 0)])
def test_k8s_version_selects_the_schemas(tmp_path, version, findings_expected):
    """Pod resizePolicy appeared in Kubernetes 1.27: strict 1.25 schemas do not know it."""
    obj = pod()
    obj["spec"]["containers"][0]["resizePolicy"] = [{"resourceName": "cpu", "restartPolicy": "NotRequired"}]
    report = lint(LintOptions((write(tmp_path, "p.yaml", obj),), k8s_version=version))
    assert len(report.findings) == findings_expected
    assert report.k8s_version == version


def test_invalid_documents(tmp_path):
    text = "- a list\n---\nkind: Pod\nmetadata: {name: x}\n---\napiVersion: v1\nmetadata: {name: y}\n"
    report = lint(LintOptions((_text(tmp_path, "x.yaml", text),)))
    assert [(f.rule, f.location.doc, f.message) for f in report.findings] == [
        ("invalid-document", 1, "document is a list, not a Kubernetes object (a mapping)"),
        ("invalid-document", 2, "object has no apiVersion"),
        ("invalid-document", 3, "object has no kind")]


def test_timestamps_stay_strings(tmp_path):
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  creationTimestamp: 2024-01-01T00:00:00Z\n"
            "  annotations: {released: 2024-05-01}\ndata: {day: 2024-01-02}\n")
    assert lint(LintOptions((_text(tmp_path, "c.yaml", text),))).findings == []


def test_lists_are_unwrapped_with_item_numbers_and_lines(tmp_path):
    bad = deployment("b", replicas="x")
    path = write(tmp_path, "list.yaml", {"apiVersion": "v1", "kind": "List", "items": [deployment("a"), bad]})
    report = lint(LintOptions((path,)))
    assert report.objects == 2
    (f,) = report.findings
    assert (f.location.doc, f.location.item, f.obj.name, f.field) == (1, 1, "b", "spec.replicas")
    lines = (tmp_path / "list.yaml").read_text().splitlines()
    assert lines[f.location.line - 1].strip() == "replicas: x"


def test_directories_are_walked(tmp_path):
    write(tmp_path / "chart" / "templates", "a.yaml", deployment("a"))
    write(tmp_path / "chart" / "templates" / "sub", "b.yml", deployment("b", replicas="x"))
    (tmp_path / "chart" / "README.md").write_text("# not a manifest")
    report = lint(LintOptions((str(tmp_path / "chart"),)))
    assert (report.files, report.objects) == (2, 2)
    assert [f.location.path.endswith("b.yml") for f in report.findings] == [True]


def test_json_documents(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(pod()))
    report = lint(LintOptions((str(path),)))
    assert report.objects == 1 and report.findings == []


def test_yaml_merge_keys_and_anchors_are_read(tmp_path):
    text = ("base: &base {apiVersion: v1, kind: ConfigMap}\n---\n"
            "apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: a}\ndata: {x: '1'}\n---\n"
            "<<: {apiVersion: v1, kind: ConfigMap}\nmetadata: {name: b}\n")
    docs, error = read_documents(text, "x.yaml")
    assert error is None
    assert docs[2].obj == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}
    assert [d.location.line for d in docs] == [1, 3, 8]


# -- Helm streams on stdin -----------------------------------------------------------------------
HELM = """---
# Source: shop/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: shop
---
# Source: shop/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: shop
spec:
  ports:
    - port: 80
      targetPort: http
  selector:
    app: shop
---
# Source: shop/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 5
  selector:
    matchLabels:
      app: shop
  template:
    metadata:
      labels:
        app: shop
    spec:
      containers:
        - name: shop
          image: "shop:1.0"
          resources:
            requests:
              cpu: "1"
---
# Source: shop/templates/tests/test-connection.yaml
apiVersion: v1
kind: Pod
metadata:
  name: "shop-test-connection"
  annotations:
    "helm.sh/hook": test
spec:
  containers:
    - name: wget
      image: busybox
      args: ['shop:80']
  restartPolicy: Never
"""


def test_helm_stream_on_stdin(tmp_path, capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, "-", "--nodes", pool(tmp_path), "-o", "json", stdin=HELM)
    report = json.loads(out)
    assert code == 1
    assert report["summary"] == {"files": 1, "objects": 4, "scheduled": 2, "errors": 1, "warnings": 0,
                                 "info": 1, "skipped": 0}
    replicas, fits = report["findings"]
    assert (replicas["rule"], replicas["file"], replicas["document"], replicas["line"], replicas["template"]) == (
        "replicas", "-", 3, 21, "shop/templates/deployment.yaml")
    assert replicas["object"] == {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": "shop"}
    fifth = copy_names(HELM, 5, name="shop")[4]
    assert replicas["message"].startswith(f"fits only 4 of 5 replicas (n1 ×2, n2 ×2); replica {fifth}: 0/2 nodes "
                                          "are available: 2 Insufficient cpu.")
    assert fits["rule"] == "fits" and fits["template"] == "shop/templates/tests/test-connection.yaml"


def test_helm_stream_text_output_names_the_template(tmp_path, capsys, monkeypatch):
    code, out, _ = run(capsys, monkeypatch, "-", "--nodes", pool(tmp_path), stdin=HELM)
    assert code == 1
    fifth = copy_names(HELM, 5, name="shop")[4]
    assert out.splitlines()[:2] == [
        f"<stdin>:21: error [replicas] Deployment default/shop: fits only 4 of 5 replicas (n1 ×2, n2 ×2); replica {fifth}: "
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are "
        "available: 2 No preemption victims found for incoming pod.",
        "    document 3, template shop/templates/deployment.yaml"]


# -- replicas ------------------------------------------------------------------------------------
@pytest.mark.parametrize("obj, expected", [
    (deployment(replicas=4), 4),
    (deployment(replicas=None), 1),
    (deployment(replicas=0), 0),
    (deployment(replicas=3, kind="StatefulSet"), 3),
    (deployment(replicas=2, kind="ReplicaSet"), 2),
    ({"kind": "Job", "spec": {"parallelism": 5, "completions": 3}}, 3),
    ({"kind": "Job", "spec": {"parallelism": 2}}, 2),
    ({"kind": "Job", "spec": {}}, 1),
    ({"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"parallelism": 4}}}}, 4),
    ({"kind": "DaemonSet", "spec": {}}, 1),
    ({"kind": "Deployment", "spec": {"replicas": -1}}, 1),
])
def test_replica_count(obj, expected):
    assert replica_count(obj) == expected


@pytest.mark.parametrize("replicas, cpu, rule, fit, text", [
    (4, "1", "fits", 4, "all 4 replicas fit: n1 ×2, n2 ×2"),
    (5, "1", "replicas", 4, "fits only 4 of 5 replicas (n1 ×2, n2 ×2); replica {fifth}: 0/2 nodes are available: "
                            "2 Insufficient cpu."),
    (3, "3", "unschedulable", 0, "none of the 3 replicas fits: 0/2 nodes are available: 2 Insufficient cpu."),
    (1, "1", "fits", 1, "fits: n1"),
    (0, "1", "fits", 0, "0 replicas: nothing to place"),
])
def test_replica_counting(tmp_path, replicas, cpu, rule, fit, text):
    report = lint(LintOptions((write(tmp_path, "d.yaml", deployment(replicas=replicas, cpu=cpu)),), (pool(tmp_path),)))
    (f,) = report.findings
    assert f.rule == rule and f.details["fit"] == fit
    if "{fifth}" in text:       # the copy that does not fit, named as its controller names it
        text = text.replace("{fifth}", copy_names(deployment(replicas=replicas, cpu=cpu), 5)[4])
    assert f.message.startswith(text)


def test_statefulset_and_job_replicas(tmp_path):
    sts = deployment("db", replicas=3, cpu="1500m", kind="StatefulSet")
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "batch"},
           "spec": {"parallelism": 2, "template": {"spec": {**pod(cpu="1")["spec"], "restartPolicy": "Never"}}}}
    # linted apart: given together, they would be one apply (the Job would not find room after the StatefulSet)
    reports = [lint(LintOptions((write(tmp_path, name, obj),), (pool(tmp_path),)))
               for name, obj in (("w.yaml", sts), ("j.yaml", job))]
    by_kind = {f.obj.kind: f for report in reports for f in report.findings}
    assert by_kind["StatefulSet"].rule == "replicas"
    assert "replica db-2:" in by_kind["StatefulSet"].message
    assert by_kind["Job"].rule == "fits" and by_kind["Job"].details["replicas"] == 2


def test_bound_pods_of_the_pool_take_room(tmp_path):
    busy = pod("busy", cpu="1500m", nodeName="n1")
    report = lint(LintOptions((write(tmp_path, "d.yaml", deployment(replicas=3, cpu="1")),),
                              (pool(tmp_path, busy),)))
    (f,) = report.findings
    assert f.rule == "replicas" and f.details["nodes"] == ["n2", "n2"]


def test_the_objects_of_one_file_take_room_from_each_other_as_explain_places_them(tmp_path):
    """One file is one batch, as `kexplain POD` schedules it: each pod bound before the next."""
    path = write(tmp_path, "d.yaml", deployment("a", replicas=2, cpu="1500m"), deployment("b", replicas=2, cpu="1"))
    report = lint(LintOptions((path,), (pool(tmp_path),)))
    assert [(f.rule, f.details["fit"]) for f in report.findings] == [("fits", 2), ("unschedulable", 0)]
    assert report.findings[1].message.startswith("none of the 2 replicas fits: 0/2 nodes are available: "
                                                 "2 Insufficient cpu.")
    req = Request(path, (pool(tmp_path),))
    loaded = load(req)
    placements = to_json(explain_batch(loaded.batch, loaded.pool, req.run))["placements"]
    assert [(p["object"]["name"], p["fit"]) for p in placements] == [("a", 2), ("b", 0)]


def test_a_file_s_pods_are_scheduled_in_priority_order(tmp_path):
    """Listed last but of higher priority, `vip` is placed first and takes the room."""
    high = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
            "value": 1000}
    path = write(tmp_path, "p.yaml", pod("first", cpu="1500m"), pod("vip", cpu="1500m", priorityClassName="high"))
    report = lint(LintOptions((path,), (pool(tmp_path, high, cpus=("2",)),), preemption=False))
    assert [(f.obj.name, f.rule) for f in report.findings] == [("first", "unschedulable"), ("vip", "fits")]
    assert report.summary()["scheduled"] == 2


def test_the_files_given_together_are_one_apply_and_take_room_from_each_other(tmp_path):
    """`kubectl apply -f a.yaml -f b.yaml` (or -f DIR) creates both: so does lint place them."""
    paths = (write(tmp_path, "app/a.yaml", deployment("a", replicas=2, cpu="2")),
             write(tmp_path, "app/b.yaml", deployment("b", replicas=2, cpu="2")))
    nodes = pool(tmp_path)
    for given in (paths, (str(tmp_path / "app"),)):
        report = lint(LintOptions(given, (nodes,)))
        assert [(f.rule, f.location.path) for f in report.findings] == [("fits", paths[0]), ("unschedulable", paths[1])]
    apart = [lint(LintOptions((path,), (nodes,))) for path in paths]
    assert [f.rule for report in apart for f in report.findings] == ["fits", "fits"]


# -- preemption, admission, gates, bound pods ------------------------------------------------------
def test_schedulable_only_through_preemption(tmp_path):
    low = pod("low", cpu="1500m", nodeName="n1")
    high_class = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
                  "value": 1000}
    pool_path = pool(tmp_path, low, high_class, cpus=("2",))
    urgent = pod("urgent", cpu="1", priorityClassName="high")
    report = lint(LintOptions((write(tmp_path, "p.yaml", urgent),), (pool_path,)))
    (f,) = report.findings
    assert f.rule == "preemption" and f.level.label == "warning"
    assert f.details["nominatedNode"] == "n1" and f.details["victims"] == ["default/low"]
    assert f.message.startswith("the pod is schedulable only through preemption: on node n1, evicting default/low. "
                                "0/1 nodes are available: 1 Insufficient cpu.")
    report = lint(LintOptions((write(tmp_path, "p.yaml", urgent),), (pool_path,), preemption=False))
    assert [f.rule for f in report.findings] == ["unschedulable"]


def test_admission_rejections_are_findings(tmp_path):
    missing_class = pod("p1", priorityClassName="nope")
    report = lint(LintOptions((write(tmp_path, "p.yaml", missing_class),), (pool(tmp_path),)))
    (f,) = report.findings
    assert f.rule == "admission"
    assert "no PriorityClass with name nope was found" in f.message


def test_a_pod_named_like_a_pool_pod_already_exists(tmp_path):
    report = lint(LintOptions((write(tmp_path, "p.yaml", pod("busy")),),
                              (pool(tmp_path, pod("busy", nodeName="n1")),)))
    assert [(f.rule, f.message) for f in report.findings] == [("admission", 'pods "busy" already exists')]


def test_gated_and_bound_pods(tmp_path):
    gated = pod("g", schedulingGates=[{"name": "example.com/wait"}])
    bound = pod("b", nodeName="n2")
    report = lint(LintOptions((write(tmp_path, "p.yaml", gated, bound),), (pool(tmp_path),)))
    assert [(f.rule, f.message) for f in report.findings] == [
        ("gated", "waits for its scheduling gates (example.com/wait)"),
        ("not-scheduled", "spec.nodeName is n2: the scheduler does not place this pod; its kubelet admits it")]


def test_pods_in_a_new_namespace_get_its_labels(tmp_path):
    """The namespace is created on the fly (as the API server would) with its name label, so a
    namespaceSelector on kubernetes.io/metadata.name matches it."""
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname",
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "team"}}}]}}
    cache = {**pod("cache", nodeName="n2", namespace="team"), }
    cache["metadata"]["labels"] = {"app": "cache"}
    report = lint(LintOptions((write(tmp_path, "p.yaml", pod("web", namespace="team", affinity=affinity)),),
                              (pool(tmp_path, cache),)))
    (f,) = report.findings
    assert f.rule == "fits" and f.details["nodes"] == ["n2"]


def test_suggestion_hook_is_called_for_failures_only(tmp_path):
    calls = []

    def suggester(inputs, trace):
        calls.append((inputs.pod.name, trace.result.status))
        return ["lower the cpu request to 1"]

    path = write(tmp_path, "d.yaml", deployment(replicas=5, cpu="1"), pod("small"))
    # a third node with room for `small` only: the Deployment's copies take the room of the other two
    report = Linter(LintOptions((path,), (pool(tmp_path, cpus=("2", "2", "500m")),)), suggester=suggester).run()
    assert calls == [(copy_names(deployment(replicas=5, cpu="1"), 5)[4], "Unschedulable")]
    assert report.findings[0].suggestions == ("lower the cpu request to 1",)
    assert report.findings[1].suggestions == ()



def test_an_internal_error_is_a_finding_of_its_object(tmp_path, monkeypatch):
    def broken(fw, pod, options):
        raise RuntimeError("boom")

    monkeypatch.setattr("kexplain.explain.carryover.schedule_pod", broken)     # what the batch runs
    monkeypatch.delenv("KEXPLAIN_DEBUG", raising=False)
    path = write(tmp_path, "p.yaml", pod("a"), deployment(replicas="x"))
    report = lint(LintOptions((path,), (pool(tmp_path),)))
    assert [(f.rule, f.message.split(" (")[0]) for f in report.findings] == [
        ("scheduler-error", "kexplain internal error: RuntimeError: boom"),
        ("schema", "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32")]
    monkeypatch.setenv("KEXPLAIN_DEBUG", "1")
    with pytest.raises(RuntimeError):
        lint(LintOptions((path,), (pool(tmp_path),)))

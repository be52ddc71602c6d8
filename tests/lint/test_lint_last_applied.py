"""Rule last-applied-too-long: client-side `kubectl apply` puts the whole object, as JSON, in its
kubectl.kubernetes.io/last-applied-configuration annotation, and the API server refuses
annotations over 262144 bytes in all (apimachinery's TotalAnnotationSizeLimitB): lint warns, in
the API server's words, with the server-side way."""
from __future__ import annotations

import json

from kexplain.lint.linter import RULES, LintOptions, Severity, lint
from tests.support.lint_helpers import run, write

KEY = "kubectl.kubernetes.io/last-applied-configuration"
LIMIT = 262144


def big_crd(properties: int) -> dict:
    """A CustomResourceDefinition whose schema has `properties` described fields (as Argo CD's
    ApplicationSet and kube-prometheus's Prometheus CRDs, each several hundred KiB)."""
    props = {f"field{i:05d}": {"type": "string", "description": f"The field number {i} of the widget's spec, "
                                                                  "described at length as generated CRDs do."}
             for i in range(properties)}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                         "type": "object", "properties": {"spec": {"type": "object", "properties": props}}}}}]}}


def findings(tmp_path, *objs: dict, namespace: str | None = None) -> list:
    path = write(tmp_path, "objs.yaml", *objs)
    report = lint(LintOptions((path,), (), namespace=namespace))
    return [f for f in report.findings if f.rule == "last-applied-too-long"]


def test_a_big_crd_is_refused_client_side(tmp_path, capsys, monkeypatch):
    path = write(tmp_path, "crd.yaml", big_crd(3000))
    code, out, err = run(capsys, monkeypatch, path, "-o", "json", "--fail-on", "warning")
    assert code == 1, err
    [finding] = [f for f in json.loads(out)["findings"] if f["rule"] == "last-applied-too-long"]
    assert finding["severity"] == "warning" and finding["field"] == "metadata.annotations"
    assert finding["message"].startswith(
        "client-side `kubectl apply` is refused: CustomResourceDefinition.apiextensions.k8s.io "
        '"widgets.example.com" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes '
        "(its last-applied-configuration annotation makes them ")
    assert "kubectl apply --server-side -f FILE" in finding["suggestions"][0]
    assert RULES["last-applied-too-long"].severity == Severity.WARNING


def test_a_small_crd_is_not(tmp_path):
    assert findings(tmp_path, big_crd(100)) == []


def _config_map(size: int, **meta) -> tuple[dict, int]:
    """A ConfigMap, and the bytes its annotations total once client-side apply annotates it: the
    annotation's key and the object's JSON as kubectl encodes it (keys sorted, an empty
    annotations map, the namespace its builder sets, a trailing newline)."""
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big", **meta}, "data": {"x": "a" * size}}
    namespace = meta.get("namespace", "default")
    text = ('{"apiVersion":"v1","data":{"x":"' + "a" * size + '"},"kind":"ConfigMap","metadata":{"annotations":{},'
            f'"name":"big","namespace":"{namespace}"}}}}\n')
    return obj, len(KEY) + len(text)


def test_the_limit_is_the_api_servers_to_the_byte(tmp_path):
    _, base = _config_map(0)
    at_limit, total = _config_map(LIMIT - base)
    assert total == LIMIT
    assert findings(tmp_path, at_limit) == []
    over, total = _config_map(LIMIT - base + 1)
    [finding] = findings(tmp_path, over)
    assert finding.details == {"annotationsSize": LIMIT + 1, "limit": LIMIT}
    assert 'ConfigMap "big" is invalid: metadata.annotations: Too long' in finding.message


def test_the_namespace_kubectl_sets_counts(tmp_path):
    """-n payments-eu makes the JSON 7 bytes longer than `default` would."""
    _, base = _config_map(0)
    obj, _ = _config_map(LIMIT - base - 3)
    assert findings(tmp_path, obj) == []
    assert len(findings(tmp_path, obj, namespace="payments-eu")) == 1


def test_other_annotations_count_and_a_last_applied_one_is_replaced(tmp_path):
    _, base = _config_map(0)
    obj, _ = _config_map(LIMIT - base - 40)
    assert findings(tmp_path, obj) == []
    stale = {**obj, "metadata": {**obj["metadata"], "annotations": {KEY: "x" * 100000}}}
    assert findings(tmp_path, stale) == []       # replaced by the JSON, as GetModifiedConfiguration does
    noted = {**obj, "metadata": {**obj["metadata"], "annotations": {"team": "payments-platform-team"}}}
    assert len(findings(tmp_path, noted)) == 1

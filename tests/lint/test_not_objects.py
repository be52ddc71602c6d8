"""A document that names neither apiVersion nor kind is another tool's file (Helm values, a
Grafana dashboard, k9s plugins): explain's error and lint's invalid-document finding say so in
the same words, lint's without an `object: apiVersion:` prefix that named a field of an object
there is not. The directory is shaped after longhorn's deploy/upgrade_responder_server."""
from __future__ import annotations

from kexplain.apimachinery.unstructured import NOT_AN_OBJECT
from kexplain.cli.app import main
from kexplain.lint.linter import LintOptions, lint
from tests.support.paths import DATA

SET = DATA / "manifests" / "not-objects"
CLUSTER = str(DATA / "as-written" / "cluster.yaml")


def test_explain_and_lint_say_the_same(capsys):
    code = main([str(SET), "--nodes", CLUSTER, "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 2 and '"name": "web"' in out
    assert err == f"error: {SET / 'values.yaml'}: document 1: {NOT_AN_OBJECT}\n"

    report = lint(LintOptions((str(SET),), node_paths=(CLUSTER,)))
    (finding,) = [f for f in report.findings if f.rule == "invalid-document"]
    assert finding.location.path.endswith("values.yaml") and finding.location.doc == 1
    assert (finding.obj, finding.field, finding.headline()) == (None, None, NOT_AN_OBJECT)
    assert [f.rule for f in report.findings if f.location.path.endswith("web.yaml")] == ["fits"]


def test_an_object_without_its_apiversion_is_still_named_with_the_field():
    report = lint(LintOptions((str(DATA / "broken" / "pod--no-api-version.yaml"),), node_paths=(CLUSTER,)))
    (finding,) = [f for f in report.findings if f.rule == "invalid-document"]
    assert finding.headline() == "Pod default/web: apiVersion: object has no apiVersion"


def test_a_directory_of_errors_and_no_pods_says_what_else_it_held(capsys):
    """Shaped after cloudnative-pg's docs/src/samples: the errors alone left unsaid that the
    other objects hold nothing to explain (lint: 0 scheduled)."""
    no_pods = DATA / "manifests" / "no-pods"
    code = main([str(no_pods), "--nodes", CLUSTER])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.splitlines() == [f"error: {no_pods / 'dashboard.json'}: document 1: {NOT_AN_OBJECT}",
                                f"error: {no_pods}: no other Pod or workload to explain (found Cluster, Service)"]


def test_a_broken_file_alone_is_not_said_to_be_empty(capsys):
    broken = DATA / "broken" / "pod--bad-indentation.yaml"
    code = main([str(broken), "--nodes", CLUSTER])
    _, err = capsys.readouterr()
    assert code == 2 and len(err.splitlines()) == 1 and "no other Pod" not in err

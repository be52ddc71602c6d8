"""A Helm chart's templates are not manifests: a template that does not parse as YAML is said
to be one (the line of its first `{{`, and how to render it), in explain's error and lint's
unreadable finding alike, the chart's Chart.yaml is named as another tool's file (not `object:
kind: object has no kind`), and the rendered manifests beside it are still explained. The chart
in tests/data/manifests/helm-chart/ is shaped after local-path-provisioner's deploy/chart."""
from __future__ import annotations

import json

from kexplain.cli.app import main
from kexplain.lint.linter import LintOptions, lint
from kexplain.load.yaml_io import template_hint
from tests.support.paths import DATA

CHART = DATA / "manifests" / "helm-chart"
CLUSTER = str(DATA / "as-written" / "cluster.yaml")
RENDER = "a template, a Helm chart's or a placeholder to fill in, not a manifest; render it first"


def test_explain_names_each_template_and_explains_the_rendered_pod(capsys):
    code = main([str(CHART), "--nodes", CLUSTER, "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 2                                  # the worst of an unreadable file and a fit
    assert json.loads(out)["pod"]["name"] == "provisioner-helper"
    chart, *lines = err.splitlines()
    assert chart == (f"error: {CHART / 'Chart.yaml'}: document 1: not a Kubernetes object: no kind and no metadata "
                     "(a Helm Chart.yaml, another tool's file?)")
    assert len(lines) == 2
    assert lines[0] == (f"error: {CHART / 'templates' / 'configmap.yaml'}: invalid YAML: line 7, column 1: could "
                        f"not find expected ':' (line 6 holds `{{{{`: {RENDER}: `helm template CHART | kexplain -`)")
    assert lines[1].startswith(f"error: {CHART / 'templates' / 'deployment.yaml'}: invalid YAML: line 1, column 3: ")
    assert lines[1].endswith(f"(line 1 holds `{{{{`: {RENDER}: `helm template CHART | kexplain -`)")


def test_lint_says_the_same_of_the_chart_file():
    report = lint(LintOptions((str(CHART / "Chart.yaml"),), node_paths=(CLUSTER,)))
    (finding,) = report.findings
    assert (finding.rule, finding.obj, finding.headline()) == (
        "invalid-document", None, "not a Kubernetes object: no kind and no metadata (a Helm Chart.yaml, another "
        "tool's file?)")


def test_lint_says_the_same_at_the_line_that_does_not_parse():
    report = lint(LintOptions((str(CHART / "templates"),), node_paths=(CLUSTER,)))
    found = sorted((f.rule, f.location.path.rsplit("/", 1)[-1], f.location.line, f.message) for f in report.findings)
    assert [(rule, name, line) for rule, name, line, _ in found] == [
        ("unreadable", "configmap.yaml", 7), ("unreadable", "deployment.yaml", 1)]
    assert all(f"`{{{{`: {RENDER}" in message for *_, message in found)


def test_a_text_without_a_template_action_gets_no_hint():
    assert template_hint("a: b\n  c: [\n") == ""
    assert template_hint("kind: Pod\nmetadata:\n  name: {{ .Values.name }}\n").startswith(" (line 3 holds `{{`")

"""lint's unknown-kind note for a kustomization says what the files are checked as, and what
to run to check what it builds, as explain's warning does (kueue's config/components/manager:
the Deployment's missing selector is the kustomization's to add)."""
from __future__ import annotations

from kexplain.lint.linter import LintOptions, lint
from tests.support.paths import DATA

BASE = DATA / "manifests" / "kustomize-base"
CLUSTER = str(DATA / "as-written" / "cluster.yaml")


def test_the_kustomization_note_says_what_to_run():
    report = lint(LintOptions((str(BASE),), node_paths=(CLUSTER,)))
    by_rule = {f.rule: f for f in report.findings}
    assert by_rule["unknown-kind"].message == (
        "no schema for kustomize.config.k8s.io/v1beta1 Kustomization in Kubernetes 1.36 or --schemas: skipped; "
        f"{BASE} is a kustomization, which `kubectl apply -f` does not build: its files are checked as written; "
        f"`kubectl kustomize {BASE} | kexplain lint -` checks what it builds")
    assert by_rule["schema"].headline() == "Deployment system/controller-manager: spec.selector: Required value"


def test_another_custom_resource_gets_no_such_note():
    report = lint(LintOptions((str(DATA / "manifests" / "no-pods" / "cluster-example.yaml"),), node_paths=(CLUSTER,)))
    (finding,) = report.findings
    assert finding.rule == "unknown-kind" and "kustomiz" not in finding.message

"""`kexplain lint --kubernetes-version X.Y`: the schemas and the scheduling check both follow the
version a pipeline deploys to; `--k8s-version` is its deprecated alias; `--compare-versions A,B`
checks against B and flags each Pod or workload scheduled differently under A."""
from __future__ import annotations

import json
import shutil

import pytest

from kexplain.cli.app import main
from kexplain.features import KubeVersion, SUPPORTED
from kexplain.lint.linter import LintOptions, lint
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT

DATA = ROOT / "tests" / "data" / "versions"
BALANCED = DATA / "balanced-allocation"      # v1.35.4 picks node-3, v1.36.3 node-1 (real traces)
DECLARED = DATA / "declared-features"        # restartPolicyRules: a field since 1.34, a node feature in 1.36
DRA_AT_SCORE = ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
                "- plugins:\n    score:\n      enabled: [{name: DynamicResources, weight: 3}]\n")
PINNED = """apiVersion: apps/v1
kind: Deployment
metadata: {name: pinned, namespace: payments}
spec:
  replicas: 2
  selector: {matchLabels: {app: pinned}}
  template:
    metadata: {labels: {app: pinned}}
    spec:
      nodeSelector: {kubernetes.io/hostname: node-2}
      containers:
      - {name: c, image: registry.example/pinned:1, resources: {requests: {cpu: 100m, memory: 64Mi}}}
"""


@pytest.fixture(autouse=True)
def no_version_from_the_environment(monkeypatch):
    monkeypatch.delenv("KEXPLAIN_KUBERNETES_VERSION", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


def kexplain(*args: str, stdin: bytes = b"") -> tuple[int, str, str]:
    env = TestEnvironment(stdin=stdin)
    code = main(["lint", *args], env=env)
    return code, env.out, env.err


def lint_json(*args: str, stdin: bytes = b"") -> tuple[int, dict, str]:
    code, out, err = kexplain(*args, "-o", "json", stdin=stdin)
    return code, json.loads(out), err


def fits(report: dict) -> dict[str, list[str]]:
    return {f["object"]["name"]: f["details"]["nodes"] for f in report["findings"] if f["rule"] == "fits"}


# --- --kubernetes-version -----------------------------------------------------------------------

@pytest.mark.parametrize("minor, unknown_field", [("1.33", True), ("1.34", False), ("1.36", False)])
def test_the_schemas_follow_the_version(minor, unknown_field):
    code, report, _ = lint_json(str(DECLARED / "pod.yaml"), "--kubernetes-version", minor)
    assert report["kubernetesVersion"] == minor
    rules = [(f["rule"], f.get("field")) for f in report["findings"]]
    assert rules == ([("unknown-field", "spec.containers[0].restartPolicyRules")] if unknown_field else [])
    assert code == (1 if unknown_field else 0)


def test_the_scheduling_follows_the_version():
    args = (str(DECLARED / "pod.yaml"), "--nodes", str(DECLARED / "cluster.yaml"), "--kubernetes-version")
    code, report, _ = lint_json(*args, "1.36")
    assert code == 0 and fits(report) == {"trainer": ["new-kubelet"]}
    # 1.35's API server refuses the RestartAllContainers action (its gate is off there)
    code, report, _ = lint_json(*args, "1.35")
    assert code == 1 and [f["rule"] for f in report["findings"]] == ["admission"]
    assert 'Unsupported value: "RestartAllContainers": supported values: "Restart"' in report["findings"][0]["message"]


def test_the_pool_and_configuration_are_read_as_that_version_reads_them(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(DRA_AT_SCORE)
    args = (str(BALANCED / "pod.yaml"), "--nodes", str(BALANCED / "cluster.yaml"), "--config", str(config))
    code, out, err = kexplain(*args, "--kubernetes-version", "1.34")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert 'plugin "DynamicResources" does not extend ScorePlugin plugin' in err
    assert kexplain(*args, "--kubernetes-version", "1.35")[0] == 0


def test_lint_options_take_a_kube_version():
    report = lint(LintOptions((str(DECLARED / "pod.yaml"),), (str(DECLARED / "cluster.yaml"),),
                              kube=KubeVersion("1.36")))
    assert report.k8s_version == "1.36"
    assert [f.details["nodes"] for f in report.findings] == [["new-kubelet"]]


def test_the_summary_names_a_version_other_than_the_default():
    _, out, _ = kexplain(str(DECLARED / "pod.yaml"), "--kubernetes-version", "1.34")
    assert out.splitlines()[-1] == "1 object in 1 file (Kubernetes 1.34): 0 errors, 0 warnings"


# --- --k8s-version, deprecated ---------------------------------------------------------------------

def test_k8s_version_is_a_deprecated_alias():
    code, report, err = lint_json(str(DECLARED / "pod.yaml"), "--nodes", str(DECLARED / "cluster.yaml"),
                                  "--k8s-version", "1.36")
    assert err.splitlines() == ["warning: --k8s-version is deprecated: use --kubernetes-version (the schemas and the "
                                "scheduling check both follow it)"]
    assert report["kubernetesVersion"] == "1.36" and fits(report) == {"trainer": ["new-kubelet"]}


def test_k8s_version_of_a_minor_kexplain_does_not_schedule_chooses_the_schemas_only():
    code, report, err = lint_json(str(DECLARED / "pod.yaml"), "--nodes", str(DECLARED / "cluster.yaml"),
                                  "--k8s-version", "1.30")
    assert err.splitlines()[0] == ("warning: --k8s-version is deprecated: Kubernetes 1.30's schemas are used, and the "
                                   f"scheduling check follows 1.36 (--kubernetes-version takes {', '.join(SUPPORTED)})")
    assert report["kubernetesVersion"] == "1.30"
    assert [f["rule"] for f in report["findings"]] == ["unknown-field"]     # 1.30 has no restartPolicyRules


def test_k8s_version_and_kubernetes_version_must_agree():
    code, out, err = kexplain(str(DECLARED / "pod.yaml"), "--k8s-version", "1.34", "--kubernetes-version", "1.36")
    assert code == 2 and err.splitlines() == ["error: --k8s-version 1.34 (deprecated) contradicts the version given "
                                              "(1.36): give --kubernetes-version only"]


# --- bad values: one line, exit 2 --------------------------------------------------------------------

@pytest.mark.parametrize("flags, expected", [
    (["--kubernetes-version", "latest"], "error: Kubernetes version 'latest' is not a version"),
    (["--kubernetes-version", "1.31"], "error: Kubernetes 1.31 is not supported"),
    (["--feature-gates", "NoSuchGate=true"], 'error: invalid argument "NoSuchGate=true" for "--feature-gates" flag: '
                                             "unrecognized feature gate: NoSuchGate"),
    (["--feature-gates", "AnyVolumeDataSource=false"], 'error: invalid argument "AnyVolumeDataSource=false" for '
                                                       '"--feature-gates" flag: cannot set feature gate '
                                                       "AnyVolumeDataSource to false, feature is locked to true"),
    (["--compare-versions", "1.35,1.36"], "error: --compare-versions compares the scheduling: give the pool"),
    (["--nodes", "POOL", "--compare-versions", "1.34,1.35,1.36"], "error: --compare-versions '1.34,1.35,1.36': lint "
                                                                  "compares two versions, A,B"),
    (["--nodes", "POOL", "--compare-versions", "1.35,1.36", "--kubernetes-version", "1.36"],
     "error: --compare-versions chooses the versions: drop --kubernetes-version"),
    (["--nodes", "POOL", "--compare-versions", "1.36,1.36"], "error: --compare-versions '1.36,1.36': Kubernetes 1.36 "
                                                             "is given twice"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_bad_versions_and_gates(flags, expected):
    flags = [str(BALANCED / "cluster.yaml") if f == "POOL" else f for f in flags]
    code, out, err = kexplain(str(BALANCED / "pod.yaml"), *flags)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(expected), err


# --- --compare-versions A,B ----------------------------------------------------------------------------

def test_compare_versions_flags_what_is_scheduled_differently(tmp_path):
    shutil.copy(BALANCED / "pod.yaml", tmp_path / "moves.yaml")
    (tmp_path / "stays.yaml").write_text(PINNED)
    code, report, _ = lint_json(str(tmp_path), "--nodes", str(BALANCED / "cluster.yaml"),
                                "--compare-versions", "1.35,1.36")
    assert code == 0        # a warning: --fail-on warning makes it fail a pipeline
    assert (report["kubernetesVersion"], report["comparedWith"]) == ("1.36", "1.35")
    assert [(f["rule"], f["object"]["name"]) for f in report["findings"]] == [
        ("fits", "search-npz8khdknq-5grjm"), ("version-change", "search-npz8khdknq-5grjm"), ("fits", "pinned")]
    change = report["findings"][1]
    assert change["severity"] == "warning" and change["file"] == str(tmp_path / "moves.yaml")
    assert change["message"] == ('scheduled differently by Kubernetes 1.36 than by 1.35: 1.35 says "fits: node-3", '
                                 '1.36 says "fits: node-1"')
    assert change["details"]["1.35"] == [{"rule": "fits", "message": "fits: node-3", "replicas": 1, "fit": 1,
                                          "nodes": ["node-3"], "status": "Scheduled"}]
    assert change["details"]["1.36"][0]["nodes"] == ["node-1"]
    code, _, _ = kexplain(str(tmp_path), "--nodes", str(BALANCED / "cluster.yaml"), "--compare-versions", "1.35,1.36",
                          "--fail-on", "warning")
    assert code == 1


def test_compare_versions_with_nothing_changing(tmp_path):
    code, report, _ = lint_json(str(BALANCED / "pod.yaml"), "--nodes", str(BALANCED / "cluster.yaml"),
                                "--compare-versions", "1.33,1.35")
    assert [f["rule"] for f in report["findings"]] == ["fits"] and report["comparedWith"] == "1.33"


def test_compare_versions_a_filter_that_comes_with_the_new_version():
    code, out, _ = kexplain(str(DECLARED / "pod.yaml"), "--nodes", str(DECLARED / "cluster.yaml"),
                            "--compare-versions", "1.35,1.36")
    assert ('warning [version-change] Pod default/trainer: scheduled differently by Kubernetes 1.36 than by 1.35: '
            '1.35 says "Pod "trainer" is invalid: spec.containers[0].restartPolicyRules[0].action: Unsupported value: '
            '"RestartAllContainers": supported values: "Restart"", 1.36 says "fits: new-kubelet"') in out
    assert out.splitlines()[-1] == ("1 object in 1 file, 1 scheduled against the pool (Kubernetes 1.36, compared "
                                    "with 1.35): 0 errors, 1 warning")


def test_compare_versions_reads_stdin_once():
    code, report, _ = lint_json("-", "--nodes", str(BALANCED / "cluster.yaml"), "--compare-versions", "1.35,1.36",
                                stdin=(BALANCED / "pod.yaml").read_bytes())
    assert [f["rule"] for f in report["findings"]] == ["fits", "version-change"]


def test_compare_versions_names_the_version_that_refuses_the_configuration(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(DRA_AT_SCORE)
    code, out, err = kexplain(str(BALANCED / "pod.yaml"), "--nodes", str(BALANCED / "cluster.yaml"),
                              "--config", str(config), "--compare-versions", "1.34,1.35")
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith("error: Kubernetes 1.34 (--compare-versions): ")

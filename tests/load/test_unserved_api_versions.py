"""An object at an API version the API server does not serve is refused alone, as `kubectl apply`
refuses it (`no matches for kind ... in version ...`) and applies the rest of the file: a
warning, the rest explained; lint reports it at its line. A version served only when enabled
(`resource.k8s.io/v1beta1`) is read, with one warning per version. The version followed is the
default (1.36) unless a test names another."""
from __future__ import annotations

import copy
import json

import pytest

from kexplain.errors import InputError, Source
from kexplain.features import KubeVersion
from kexplain.lint.linter import LintOptions, lint
from kexplain.load.manifests import check_objects, objects_from_text
from tests.support.cli_helpers import explain_json
from tests.support.lint_helpers import deployment, node, pod, write
from tests.support.paths import DATA, FIXTURES

STATEFULSET_AND_PDB = str(DATA / "apiversions" / "statefulset-with-policy-v1beta1-pdb.yaml")
CLUSTER_WITH_PDB = str(DATA / "apiversions" / "cluster-with-policy-v1beta1-pdb.yaml")
CLUSTER = str(FIXTURES / "cluster.yaml")
PDB_WORDS = ('PodDisruptionBudget shop/web-pdb: apiVersion: no matches for kind "PodDisruptionBudget" in version '
             '"policy/v1beta1": Kubernetes 1.36 does not serve it (use policy/v1)')
SKIPPED = "; skipped (kubectl apply refuses it and applies the rest of the file)"


def test_a_removed_pdb_beside_a_statefulset_is_skipped_and_the_statefulset_explained(capsys):
    code, out, err = explain_json(capsys, STATEFULSET_AND_PDB, "--nodes", CLUSTER)
    assert code == 0
    assert err == f"warning: {STATEFULSET_AND_PDB}: document 2: {PDB_WORDS}{SKIPPED}\n"
    (placement,) = json.loads(out)["placements"]
    assert placement["object"] == {"kind": "StatefulSet", "namespace": "shop", "name": "web"}
    assert (placement["replicas"], placement["fit"]) == (2, 2)


def test_the_table_view_explains_the_statefulset_too(capsys):
    from kexplain.cli.app import main
    code = main([STATEFULSET_AND_PDB, "--nodes", CLUSTER])
    out, err = capsys.readouterr()
    assert code == 0 and "StatefulSet shop/web" in out and "2 of 2 replicas fit" in out
    assert err.count("warning: ") == 1 and 'version "policy/v1beta1"' in err


def test_lint_reports_it_at_its_line_and_schedules_the_rest():
    report = lint(LintOptions((STATEFULSET_AND_PDB,), node_paths=(CLUSTER,)))
    by_rule = {f.rule: f for f in report.findings}
    refused = by_rule["unknown-api-version"]
    assert (refused.level.label, refused.location.doc, refused.location.line, refused.field) == (
        "error", 2, 21, "apiVersion")
    assert refused.headline() == PDB_WORDS
    assert by_rule["fits"].obj is not None and by_rule["fits"].obj.kind == "StatefulSet"


def test_a_removed_version_in_the_cluster_is_skipped_with_a_warning(capsys):
    code, out, err = explain_json(capsys, str(FIXTURES / "pod-web.yaml"), "--nodes", CLUSTER_WITH_PDB)
    assert code == 0 and json.loads(out)["result"]["status"] == "Scheduled"
    assert err == (f'warning: {CLUSTER_WITH_PDB}: document 2: PodDisruptionBudget default/web: apiVersion: no matches '
                   'for kind "PodDisruptionBudget" in version "policy/v1beta1": Kubernetes 1.36 does not serve it '
                   f"(use policy/v1){SKIPPED}\n")


def test_a_dump_of_an_old_cluster_loses_only_its_removed_objects(capsys, tmp_path):
    pdb = {"apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget",
           "metadata": {"name": "web", "namespace": "default", "resourceVersion": "12"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}
    n1 = node("n1", "4")
    n1["metadata"]["resourceVersion"] = "3"
    n1["status"]["allocatable"] = n1["status"]["capacity"]       # as stored: the kubelet wrote both
    cluster = write(tmp_path, "dump.yaml", {"apiVersion": "v1", "kind": "List", "items": [n1, pdb]})
    code, out, err = explain_json(capsys, write(tmp_path, "p.yaml", pod("p")), "--nodes", cluster, "--stored")
    assert code == 0 and json.loads(out)["result"]["suggestedHost"] == "n1"
    assert 'version "policy/v1beta1"' in err and err.count("\n") == 1


def test_every_removed_object_of_a_file_gets_its_warning_and_the_pod_is_explained(capsys, tmp_path):
    old_deploy = {**deployment("old"), "apiVersion": "extensions/v1beta1"}
    cron = {"apiVersion": "batch/v1beta1", "kind": "CronJob", "metadata": {"name": "nightly"},
            "spec": {"schedule": "0 3 * * *", "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "OnFailure", "containers": [{"name": "j", "image": "busybox"}]}}}}}}
    path = write(tmp_path, "app.yaml", old_deploy, pod("web"), cron)
    code, out, err = explain_json(capsys, path, "--nodes", CLUSTER)
    assert code == 0 and json.loads(out)["pod"]["name"] == "web"
    assert err.splitlines() == [
        f'warning: {path}: document 1: Deployment default/old: apiVersion: no matches for kind "Deployment" in version '
        f'"extensions/v1beta1": Kubernetes 1.36 does not serve it (use apps/v1){SKIPPED}',
        f'warning: {path}: document 3: CronJob default/nightly: apiVersion: no matches for kind "CronJob" in version '
        f'"batch/v1beta1": Kubernetes 1.36 does not serve it (use batch/v1){SKIPPED}']


def test_a_file_of_removed_objects_only_is_the_error(capsys, tmp_path):
    path = write(tmp_path, "app.yaml", {**deployment("old"), "apiVersion": "apps/v1beta2"})
    code, out, err = explain_json(capsys, path, "--nodes", CLUSTER)
    assert (code, out) == (2, "")
    assert err == (f'error: {path}: document 1: Deployment default/old: apiVersion: no matches for kind "Deployment" '
                   'in version "apps/v1beta2": Kubernetes 1.36 does not serve it (use apps/v1)\n')


# -- check_objects, per minor -----------------------------------------------------------------------

CLAIM = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"},
         "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "x"}}]}}}
DRA = {"ResourceClaim", "DeviceClass"}


def _objs(*docs: dict) -> list:
    return [(copy.deepcopy(d), Source("c.yaml", i + 1)) for i, d in enumerate(docs)]


def test_what_is_served_depends_on_the_minor():
    assert check_objects(_objs(CLAIM), DRA).warnings == []
    checked = check_objects(_objs(CLAIM), DRA, kube=KubeVersion("1.33"))
    assert checked.objects == []
    assert checked.warnings == [
        'c.yaml: document 1: ResourceClaim default/c: apiVersion: no matches for kind "ResourceClaim" in version '
        '"resource.k8s.io/v1": Kubernetes 1.33 does not serve it (use resource.k8s.io/v1beta2 or '
        "resource.k8s.io/v1beta1, which kube-apiserver serves only when --runtime-config enables it)" + SKIPPED]


def test_an_off_by_default_version_is_read_with_one_warning_per_version_and_none_when_stored():
    beta = {**CLAIM, "apiVersion": "resource.k8s.io/v1beta1", "spec": {"devices": {"requests": [
        {"name": "gpu", "deviceClassName": "x"}]}}}
    second = copy.deepcopy(beta)
    second["metadata"]["name"] = "d"
    checked = check_objects(_objs(beta, second), DRA)
    assert len(checked.objects) == 2
    assert checked.warnings == [
        "c.yaml: document 1: ResourceClaim default/c: apiVersion: resource.k8s.io/v1beta1 is off by default in "
        "Kubernetes 1.36: kube-apiserver serves it only with --runtime-config=resource.k8s.io/v1beta1=true (use "
        "resource.k8s.io/v1); read as if enabled (and 1 other object of this version)"]
    assert check_objects(_objs(beta), DRA, stored=True).warnings == []


def test_an_off_by_default_version_kexplain_does_not_convert_is_skipped():
    alpha = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceClass", "metadata": {"name": "x"}, "spec": {}}
    checked = check_objects(_objs(alpha), DRA, kube=KubeVersion("1.33"))
    assert checked.objects == []
    assert checked.warnings == [
        "c.yaml: document 1: DeviceClass x: apiVersion: resource.k8s.io/v1alpha3 is off by default in Kubernetes "
        "1.33: kube-apiserver serves it only with --runtime-config=resource.k8s.io/v1alpha3=true; skipped: kexplain "
        "does not read this version"]
    assert check_objects(_objs(alpha), DRA).warnings[0].endswith(SKIPPED)      # the default, 1.36, has no such version


def test_an_object_without_api_version_is_still_an_error():
    objs = objects_from_text("kind: Pod\nmetadata: {name: p}\n", "p.yaml")
    with pytest.raises(InputError, match="object has no apiVersion"):
        check_objects(objs, {"Pod"})


def test_lint_warns_of_an_off_by_default_version_and_still_validates_the_object(tmp_path):
    beta = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim", "metadata": {"name": "c"},
            "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "x", "count": "two"}]}}}
    report = lint(LintOptions((write(tmp_path, "c.yaml", beta),)))
    assert [(f.rule, f.level.label, f.location.line, f.field) for f in report.findings] == [
        ("unknown-api-version", "warning", 1, "apiVersion"),
        ("schema", "error", 10, "spec.devices.requests[0].count")]
    assert "is off by default in Kubernetes 1.36" in report.findings[0].message
    assert "DeviceRequest.spec.devices.requests.count of type int64" in report.findings[1].message

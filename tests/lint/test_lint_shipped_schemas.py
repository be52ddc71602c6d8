"""lint checks the kinds kexplain reads itself with the schemas it ships (`kexplain.lint.shipped`):
Kueue's and Karpenter's, in the words `kexplain kueue` and `kexplain karpenter` refuse them with
(one answer); the job kinds Kueue's integrations read are decoded as the integration decodes them;
a refused Kueue object is one finding (its schema's), not also Kueue's pass's `admission`."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.lint import shipped
from tests.support.cli_helpers import run_cli
from tests.support.lint_helpers import write
from tests.support.paths import FIXTURES

FLAVOR = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "spot"},
          "spec": {"nodeTaints": [{"key": "spot", "value": "true", "effect": "Sometimes"}]}}
QUEUE = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"namespaceSelector": {}, "colour": "blue"}}
NODE_POOL = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "general"},
             "spec": {"weight": 500, "template": {"spec": {
                 "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                 "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}]}}}}
RAY_JOB = {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "tune", "namespace": "team"},
           "spec": {"rayClusterSpec": {
               "headGroupSpec": {"template": {"spec": {"containers": [{"name": "head", "image": "ray"}]}}},
               "workerGroupSpecs": [{"groupName": "w", "replicas": 2,
                                     "template": {"spec": {"containers": [{"name": "w", "image": "ray"}]}}}]}}}


def lint_json(*args: str) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    code, out, err = run_cli("lint", *args, "-o", "json")
    doc = json.loads(out)
    return code, doc["findings"], doc["summary"]


def by_rule(findings: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for f in findings:
        out.setdefault(f["rule"], []).append(f)
    return out


def loaders_error(command: list[str]) -> str:
    """What the command that loads the objects says of the refused one (its error line)."""
    code, _, err = run_cli(*command)
    assert code == 2, err
    return err


def test_the_bundled_kueue_and_karpenter_objects_are_validated_not_skipped() -> None:
    code, findings, summary = lint_json(str(FIXTURES / "kueue" / "cluster.yaml"),
                                        str(FIXTURES / "karpenter" / "nodepools.yaml"))
    assert code == 0 and summary["skipped"] == 0 and summary["errors"] == 0
    assert not [f for f in findings if f["rule"] == "unknown-kind"]


def test_a_refused_kueue_object_is_refused_in_kexplain_kueues_words(tmp_path: Path) -> None:
    path = write(tmp_path, "flavor.yaml", FLAVOR)
    code, findings, _ = lint_json(path)
    [found] = findings
    assert code == 1 and found["rule"] == "schema" and found["field"] == "spec.nodeTaints"
    assert found["message"] == ('ResourceFlavor.kueue.x-k8s.io "spot" is invalid: spec.nodeTaints: Invalid value: '
                                "\"array\": supported taint effect values: 'NoSchedule', 'PreferNoSchedule', "
                                "'NoExecute'")
    assert found["message"] in loaders_error(["kueue", "/dev/null", "--nodes", path])
    assert found["details"]["schema"] == shipped.KUEUE_ORIGIN


def test_a_refused_karpenter_object_is_refused_in_kexplain_karpenters_words(tmp_path: Path) -> None:
    path = write(tmp_path, "pools.yaml", NODE_POOL)
    code, findings, _ = lint_json(path)
    [found] = findings
    assert code == 1 and found["rule"] == "schema" and found["field"] == "spec.weight" and found["line"] == 6
    assert found["message"].endswith("spec.weight: Invalid value: 500: spec.weight in body should be less than or "
                                     "equal to 100")
    assert found["message"] in loaders_error(["karpenter", str(FIXTURES / "karpenter" / "pod.yaml"), "--nodes", path])


@pytest.mark.parametrize(("validate", "level", "message"), [
    ("strict", "error", 'ClusterQueue in version "v1beta2" cannot be handled as a ClusterQueue: strict decoding '
                        'error: unknown field "spec.colour"'),
    ("warn", "warning", 'unknown field "spec.colour"'),
])
def test_unknown_fields_follow_validate(tmp_path: Path, validate: str, level: str, message: str) -> None:
    code, findings, _ = lint_json(write(tmp_path, "cq.yaml", QUEUE), "--validate", validate)
    [found] = findings
    assert (found["rule"], found["severity"], found["message"]) == ("unknown-field", level, message)
    assert found["field"] == "spec.colour" and found["line"] == 7
    code, findings, _ = lint_json(write(tmp_path, "cq.yaml", QUEUE), "--validate", "ignore")
    assert findings == [] and code == 0


def test_a_v1beta1_kueue_object_is_read_as_the_conversion_webhook_hands_it(tmp_path: Path) -> None:
    old = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": "old"},
           "spec": {"namespaceSelector": {}, "cohort": "all"}}
    code, findings, summary = lint_json(write(tmp_path, "cq.yaml", old))
    assert (code, findings, summary["skipped"]) == (0, [], 0)
    unserved = {**old, "apiVersion": "kueue.x-k8s.io/v1alpha1"}
    _, findings, _ = lint_json(write(tmp_path, "cq.yaml", unserved), "-v")
    assert [f["rule"] for f in findings] == ["unknown-kind"]


def test_an_integrations_job_is_decoded_as_the_integration_decodes_it(tmp_path: Path) -> None:
    code, findings, summary = lint_json(write(tmp_path, "ray.yaml", RAY_JOB))
    [found] = findings
    assert code == 0 and found["rule"] == "unknown-kind" and found["severity"] == "info"
    assert "read as Kueue's RayJob integration reads it" in found["message"]
    bad = yaml.safe_load(json.dumps(RAY_JOB))
    bad["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["replicas"] = "two"
    code, findings, _ = lint_json(write(tmp_path, "ray.yaml", bad))
    [found] = findings
    assert code == 1 and found["rule"] == "unreadable-job" and found["severity"] == "error"
    assert found["message"] == "Kueue's RayJob integration cannot read it: must be a non-negative integer, not 'two'"
    assert found["field"] == "spec.rayClusterSpec.workerGroupSpecs[0].replicas"


def test_a_custom_kind_kexplain_does_not_read_is_still_skipped(tmp_path: Path) -> None:
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    code, findings, summary = lint_json(write(tmp_path, "w.yaml", widget))
    assert code == 0 and summary["skipped"] == 1 and findings[0]["message"].endswith("or --schemas: skipped")


def test_a_refused_kueue_object_is_one_finding_and_left_out_of_kueues_pass(tmp_path: Path) -> None:
    docs = [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
             "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
                 {"name": "default", "resources": [{"name": "cpu", "nominalQuota": 10}]}]}]}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
             "metadata": {"name": "lq", "namespace": "default"}, "spec": {"clusterQueue": "cq", "colour": "blue"}},
            {"apiVersion": "batch/v1", "kind": "Job",
             "metadata": {"name": "j", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
             "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                 {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}}}]
    code, findings, _ = lint_json(write(tmp_path, "set.yaml", *docs))
    rules = by_rule(findings)
    assert [f["object"]["kind"] for f in rules["unknown-field"]] == ["LocalQueue"]
    assert "admission" not in rules          # (Kueue's pass refused it a second time before)
    assert [f["object"]["name"] for f in rules["kueue-local-queue"]] == ["j"]     # the refused queue is not there


TRAIN_JOB = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "llm"},
             "spec": {"runtimeRef": {"apiGroup": "trainer.kubeflow.org", "kind": "ClusterTrainingRuntime",
                                     "name": "torch-distributed"}, "trainer": {"numNodes": 3}}}


def test_a_trainjob_is_read_by_itself_its_runtime_elsewhere(tmp_path: Path) -> None:
    # its runtime is the cluster's (not in the set): lint reads what the integration reads of the TrainJob alone
    write(tmp_path, "other.yaml", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    write(tmp_path, "train.yaml", TRAIN_JOB)
    code, findings, summary = lint_json(str(tmp_path))
    [found] = findings
    assert code == 0 and found["rule"] == "unknown-kind" and found["object"]["kind"] == "TrainJob"
    bad = {**TRAIN_JOB, "spec": {**TRAIN_JOB["spec"], "trainer": {"numNodes": "three"}}}
    code, findings, _ = lint_json(write(tmp_path, "train.yaml", bad))
    [found] = findings
    assert code == 1 and found["rule"] == "unreadable-job" and found["field"] == "spec.trainer.numNodes"
    other = {**TRAIN_JOB, "spec": {"runtimeRef": {"apiGroup": "example.com", "kind": "Runtime", "name": "r"}}}
    _, findings, _ = lint_json(write(tmp_path, "train.yaml", other))
    assert findings[0]["message"].endswith('denied the request: unsupported runtime: Runtime.example.com')

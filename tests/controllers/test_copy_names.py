"""A workload's pods are named as its controller names them (issue 39): the ReplicaSet controller
gives a Deployment's pods the generateName `<deployment>-<pod-template-hash>-` (its ReplicaSet's
name and a dash), a ReplicaSet's, ReplicationController's, DaemonSet's and Job's `<name>-`, an
Indexed Job's `<name>-<index>-`, and the API server adds five random characters (kexplain derives
them, so that a run repeats); a StatefulSet's pods are `<name>-<ordinal>`. Before, every copy
was `<name>-<i>`, although the hash was computed."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from kexplain.cli.app import main
from kexplain.errors import Source
from kexplain.features import DEFAULT
from kexplain.controllers.workloads import copies_of, pod_from_workload
from tests.support.cli_helpers import TestEnvironment

RANDOM = "[bcdfghjklmnpqrstvwxz2456789]{5}"      # apimachinery's rand.String alphabet


def workload(kind: str, name: str = "checkout", **spec: Any) -> dict[str, Any]:
    template = {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "registry.example.com/checkout:3.0",
                                         "resources": {"requests": {"cpu": "100m"}}}],
                         **({"restartPolicy": "Never"} if kind == "Job" else {})}}
    body: dict[str, Any] = {"template": template, **spec}
    if kind != "Job":
        body["selector"] = {"matchLabels": {"app": name}}
    if kind == "StatefulSet":
        body["serviceName"] = name
    api = {"Job": "batch/v1", "ReplicationController": "v1"}.get(kind, "apps/v1")
    if kind == "ReplicationController":
        body["selector"] = {"app": name}
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": "shop"}, "spec": body}


def names(obj: dict[str, Any], count: int) -> tuple[list[str], dict[str, str]]:
    pod = pod_from_workload(obj, Source("-"), 0, DEFAULT)
    naming = copies_of(obj, pod["metadata"]["labels"])
    return [naming.name(i) for i in range(count)], pod["metadata"]["labels"]


def test_a_deployments_pods_carry_its_replicasets_name() -> None:
    copies, labels = names(workload("Deployment", replicas=3), 3)
    template_hash = labels["pod-template-hash"]
    assert all(re.fullmatch(rf"checkout-{template_hash}-{RANDOM}", n) for n in copies), copies
    assert len(set(copies)) == 3 and copies == names(workload("Deployment", replicas=3), 3)[0]     # a run repeats


@pytest.mark.parametrize("kind", ["ReplicaSet", "ReplicationController", "DaemonSet", "Job"])
def test_other_controllers_name_them_after_the_workload(kind: str) -> None:
    copies, _ = names(workload(kind), 4)
    assert all(re.fullmatch(rf"checkout-{RANDOM}", n) for n in copies), copies
    assert len(set(copies)) == 4


def test_an_indexed_jobs_pods_carry_their_index() -> None:
    copies, _ = names(workload("Job", completionMode="Indexed", completions=3, parallelism=3), 3)
    assert [re.fullmatch(rf"checkout-{i}-{RANDOM}", n) is not None for i, n in enumerate(copies)] == [True] * 3


def test_a_long_indexed_job_keeps_the_index() -> None:
    """podGenerateNameWithIndex: the Job's name is cut so that `-<index>-` stays."""
    name = "nightly-backfill-of-the-orders-warehouse-for-every-region-x"      # 59 characters
    copies, _ = names(workload("Job", name=name, completionMode="Indexed", completions=12, parallelism=12), 12)
    assert copies[11][:-5] == f"{name[:54]}-11-" and copies[3][:-5] == f"{name[:55]}-3-"


def test_a_statefulsets_pods_keep_their_ordinals() -> None:
    assert names(workload("StatefulSet", replicas=2), 2)[0] == ["checkout-0", "checkout-1"]


def test_a_long_name_is_cut_as_the_name_generator_cuts_it() -> None:
    name = "payments-reconciliation-worker-for-the-eu-central-region-01"      # 59 characters
    copies, labels = names(workload("Deployment", name=name), 1)
    assert copies[0][:-5] == f"{name}-{labels['pod-template-hash']}-"[:58] and len(copies[0]) == 63


def test_explain_and_lint_use_them(tmp_path: Path) -> None:
    """The explanation's pods, its copies table and lint's replica are the controller's names."""
    import yaml

    (tmp_path / "app.yaml").write_text(yaml.safe_dump(workload("Deployment", replicas=3)))
    (tmp_path / "nodes.yaml").write_text(yaml.safe_dump(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
         "status": {"capacity": {"cpu": "250m", "memory": "1Gi", "pods": "10"}}}))
    env = TestEnvironment(width=200)
    main([str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), "-o", "json", "--no-suggestions"],
         env=env)
    doc = json.loads(env.out)
    copies = names(workload("Deployment", replicas=3), 3)[0]
    assert [i["pod"]["name"] for i in doc["items"]] == copies
    assert [p["name"] for p in doc["placements"][0]["pods"]] == copies
    env = TestEnvironment(width=200)
    main(["lint", str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), "-o", "json"], env=env)
    [finding] = json.loads(env.out)["findings"]
    assert f"replica {copies[2]}: " in finding["message"]


def test_a_cronjobs_pods_are_named_after_its_job_with_the_time_marked() -> None:
    """getJobName: the CronJob's Job is `<cronjob>-<scheduled time in minutes since the epoch>`,
    a time kexplain cannot know; its pods are `<job>-<5>`, the time written `scheduled`."""
    job_template = workload("Job")["spec"]
    cron = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly-report", "namespace": "shop"},
            "spec": {"schedule": "0 2 * * *", "jobTemplate": {"spec": job_template}}}
    copies, _ = names(cron, 2)
    assert all(re.fullmatch(rf"nightly-report-scheduled-{RANDOM}", n) for n in copies), copies
    job_template["completionMode"], job_template["completions"] = "Indexed", 2
    copies, _ = names(cron, 2)
    assert [n.rsplit("-", 1)[0] for n in copies] == ["nightly-report-scheduled-0", "nightly-report-scheduled-1"]

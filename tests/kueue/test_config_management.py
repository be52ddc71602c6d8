"""Which jobs Kueue manages under its Configuration (kexplain/kueue/config_frameworks.py and the
jobframework reconciler's `Management`): integrations.frameworks, manageJobsWithoutQueueName and
managedJobsNamespaceSelector, as v0.17.8's ReconcileGenericJob decides."""
from __future__ import annotations

from typing import Any

import pytest
import yaml

from kexplain.kueue.config import INSTALLED_FRAMEWORKS, parse_configuration
from kexplain.kueue.config_frameworks import disabled_framework
from kexplain.kueue.controller.jobframework.reconciler import NOT_MANAGED
from tests.kueue.builders import cluster_queue, flavor, local_queue, run

QUEUE = {"kueue.x-k8s.io/queue-name": "q"}
KUEUE = [flavor("default"), cluster_queue("cq", {"default": {"cpu": "8"}}), local_queue("q", "cq"),
         local_queue("q", "cq", namespace="kube-system"), local_queue("q", "cq", namespace="team-a")]


def config(**fields: Any) -> str:
    return yaml.safe_dump({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", **fields})


def namespace(name: str, **labels: str) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}})


def job(name: str, labels: dict[str, str] | None = None, ns: str = "default") -> str:
    return yaml.safe_dump({"apiVersion": "batch/v1", "kind": "Job", "metadata": {
        "name": name, "namespace": ns, "uid": f"uid-{ns}-{name}", "labels": labels or {},
        "creationTimestamp": "2025-12-31T19:00:00Z"}, "spec": {"suspend": True, "template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox",
                                                      "resources": {"requests": {"cpu": "1"}}}]}}}})


def pod(name: str, labels: dict[str, str] | None = None) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": name, "namespace": "default", "uid": f"uid-{name}", "labels": labels or {},
        "creationTimestamp": "2025-12-31T19:00:00Z"}, "spec": {"containers": [
            {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}})


def outcomes(*cluster: str, submitted: tuple[str, ...]) -> dict[str, Any]:
    done = run(*KUEUE, *cluster, submitted=submitted)
    return {f"{o.job.meta.namespace}/{o.job.meta.name}": (o, done) for o in done.outcomes}


def test_without_a_queue_name_a_job_is_left_alone_by_default() -> None:
    got = outcomes(submitted=(job("plain"),))
    outcome, _ = got["default/plain"]
    assert outcome.error == NOT_MANAGED and outcome.workload is None


def test_manage_jobs_without_queue_name_makes_a_workload_with_no_queue() -> None:
    """The job is suspended and its Workload made with an empty queue name: the workload controller
    then finds no LocalQueue "" (Kueue's words, its name empty)."""
    got = outcomes(config(manageJobsWithoutQueueName=True), submitted=(job("plain"),))
    outcome, done = got["default/plain"]
    assert outcome.created and outcome.workload.spec.queue_name == ""
    cond = done.workloads[outcome.workload.meta.key].find("QuotaReserved")
    assert (cond.status, cond.reason, cond.message) == ("False", "Inadmissible", "LocalQueue  doesn't exist")


def test_the_namespace_selector_limits_what_kueue_manages() -> None:
    """A selector of team namespaces: a job elsewhere is not managed, queue name or not; the Namespace
    objects give the labels (one not given has only its name label)."""
    cfg = config(manageJobsWithoutQueueName=True, managedJobsNamespaceSelector={"matchLabels": {"team": "a"}})
    got = outcomes(cfg, namespace("team-a", team="a"),
                   submitted=(job("x", QUEUE, ns="team-a"), job("why", ns="team-a"), job("z", QUEUE)))
    assert got["team-a/x"][0].created and got["team-a/why"][0].created
    assert got["default/z"][0].error == ("not managed by Kueue: namespace default is not selected by the "
                                         "Configuration's managedJobsNamespaceSelector")


def test_the_default_selector_leaves_out_kube_system_and_kueues_namespace() -> None:
    got = outcomes(submitted=(job("sys", QUEUE, ns="kube-system"), job("ok", QUEUE)))
    assert "namespace kube-system is not selected" in got["kube-system/sys"][0].error
    assert got["default/ok"][0].created
    cfg = parse_configuration(yaml.safe_load(config(namespace="kueue")))
    assert not cfg.namespace_managed({"kubernetes.io/metadata.name": "kueue"})
    assert cfg.namespace_managed({"kubernetes.io/metadata.name": "kueue-system"})


def test_a_kind_whose_framework_is_off_is_not_managed() -> None:
    got = outcomes(config(integrations={"frameworks": ["pod"]}), submitted=(job("j", QUEUE), pod("p", QUEUE)))
    assert got["default/j"][0].error.startswith("not managed by Kueue: its integration batch/job is not in the "
                                                "Configuration's integrations.frameworks")
    assert got["default/p"][0].created


def test_a_configuration_without_frameworks_keeps_the_installed_ones() -> None:
    got = outcomes(config(fairSharing={"preemptionStrategies": ["LessThanInitialShare"]}),
                   submitted=(pod("p", QUEUE),))
    assert got["default/p"][0].created
    assert parse_configuration(yaml.safe_load(config())).frameworks == INSTALLED_FRAMEWORKS


@pytest.mark.parametrize(("frameworks", "annotations", "off"), [
    (["deployment"], {"kueue.x-k8s.io/pod-suspending-parent": "deployment"}, ""),   # pod implicitly on for it
    (["deployment"], {}, "pod"),                                                      # a pod of its own
    (["pod"], {"kueue.x-k8s.io/pod-suspending-parent": "statefulset"}, "statefulset"),
    (["pod", "statefulset"], {"kueue.x-k8s.io/pod-suspending-parent": "statefulset"}, ""),
])
def test_a_pod_suspended_by_its_parent_needs_the_parents_framework(frameworks, annotations, off) -> None:
    cfg = parse_configuration(yaml.safe_load(config(integrations={"frameworks": frameworks})))
    assert disabled_framework(cfg, "", "Pod", annotations) == off


def test_a_kind_of_no_framework_is_not_decided_here() -> None:
    cfg = parse_configuration(yaml.safe_load(config(integrations={"frameworks": ["batch/job"]})))
    assert disabled_framework(cfg, "example.com", "Widget", {}) == ""
    assert disabled_framework(cfg, "ray.io", "RayJob", {}) == "ray.io/rayjob"

"""Kueue's ProvisioningRequest controller (pkg/controller/admissionchecks/provisioning, v0.17.8):
the request it creates for a Workload that reserved quota (names, PodTemplates with the flavor's
node labels, managedResources, parameters, podSetMergePolicy) and the check state it writes from
the request's conditions (controller.go syncCheckStates), the workload controller following.
The provisioner here answers with fixed conditions: what the Cluster Autoscaler writes is
tests/autoscaler/test_provisioningrequest.py's."""
from __future__ import annotations

import hashlib
from typing import Any

import yaml

from kexplain.kueue.controller.admissionchecks.provisioning import limit_object_name, pod_template_name, request_name
from kexplain.kueue.document import document
from kexplain.kueue.run import Settings, run_pass
from tests.kueue.builders import NOW, VERSIONS, cluster_queue, flavor, local_queue, read

GPU = "nvidia.com/gpu"


def config(name: str = "cfg", **spec: Any) -> str:
    return yaml.safe_dump({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ProvisioningRequestConfig",
                           "metadata": {"name": name},
                           "spec": {"provisioningClassName": "check-capacity.autoscaling.x-k8s.io", **spec}})


def check(name: str = "prov", cfg: str = "cfg") -> str:
    return yaml.safe_dump({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": name},
                           "spec": {"controllerName": "kueue.x-k8s.io/provisioning-request",
                                    "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig",
                                                   "name": cfg}},
                           "status": {"conditions": [{"type": "Active", "status": "True", "reason": "Active",
                                                      "message": "The admission check is active",
                                                      "lastTransitionTime": "2025-12-31T00:00:00Z"}]}})


def job(name: str = "train", count: int = 2, gpus: str = "2", annotations: dict[str, str] | None = None,
        containers: list[dict[str, Any]] | None = None) -> str:
    resources = {"requests": {"cpu": "1"}, **({"limits": {GPU: gpus}} if gpus else {})}
    return yaml.safe_dump({"apiVersion": "batch/v1", "kind": "Job",
                           "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                                        "labels": {"kueue.x-k8s.io/queue-name": "q"},
                                        **({"annotations": annotations} if annotations else {})},
                           "spec": {"parallelism": count, "completions": count, "suspend": True,
                                    "template": {"spec": {"restartPolicy": "Never", "containers": containers or [
                                        {"name": "c", "image": "train", "resources": resources}]}}}})


CLUSTER = (flavor("default"), flavor("a100", labels={"accelerator": "a100"}), local_queue("q", "cq"),
           cluster_queue("cq", {"default": {"cpu": "64"}}, admissionChecksStrategy={"admissionChecks": [{"name": "prov"}]},
                         resourceGroups=[{"coveredResources": ["cpu"], "flavors": [
                             {"name": "default", "resources": [{"name": "cpu", "nominalQuota": "64"}]}]},
                             {"coveredResources": [GPU], "flavors": [
                                 {"name": "a100", "resources": [{"name": GPU, "nominalQuota": "16"}]}]}]),
           check())

ACCEPTED = {"type": "Accepted", "status": "True", "reason": "Accepted",
            "message": "ProvisioningRequest is accepted by ClusterAutoscaler"}


def answering(*conditions: dict[str, str]):
    """A provisioner answering every request with `conditions`, recording what it was asked."""
    asked: list[Any] = []

    def capacity(created):
        asked.extend(created)
        return [{"conditions": list(conditions)} for _ in created]
    capacity.asked = asked          # type: ignore[attr-defined]
    return capacity


def run(*docs: str, submitted: tuple[str, ...], capacity=None):
    return run_pass(read(*docs, submitted=submitted), Settings(VERSIONS["0.17"], NOW, capacity))


def the_workload(done):
    [wl] = done.workloads.values()
    return wl


def test_names_are_kueues_and_long_ones_end_in_a_hash() -> None:
    assert request_name("job-train-1a2b3", "prov", 1) == "job-train-1a2b3-prov-1"
    assert pod_template_name("job-train-1a2b3-prov-1", "main") == "ppt-job-train-1a2b3-prov-1-main"
    long = "w" * 300
    assert limit_object_name(long) == "w" * 247 + "-" + hashlib.sha1(long.encode()).hexdigest()[:5]
    assert len(limit_object_name(long)) == 253


def test_the_request_kueue_creates_without_a_provisioner_and_the_check_left_pending() -> None:
    done = run(*CLUSTER, config(parameters={"a": "1"}, managedResources=[GPU]),
               submitted=(job(annotations={"provreq.kueue.x-k8s.io/maxRunDurationSeconds": "600", "other": "x"}),))
    wl = the_workload(done)
    assert [(s.name, s.state, s.message) for s in wl.admission_checks] == [("prov", "Pending", "")]
    [asked] = document(done)["workloads"][0]["provisioningRequests"]
    request = asked["provisioningRequest"]
    assert request["metadata"]["name"] == f"{wl.meta.name}-prov-1"
    assert request["spec"]["provisioningClassName"] == "check-capacity.autoscaling.x-k8s.io"
    assert request["spec"]["parameters"] == {"a": "1", "maxRunDurationSeconds": "600"}
    assert request["spec"]["podSets"] == [{"podTemplateRef": {"name": f"ppt-{wl.meta.name}-prov-1-main"}, "count": 2}]
    [template] = asked["podTemplates"]
    spec = template["template"]["spec"]
    assert spec["nodeSelector"] == {"accelerator": "a100"}                       # the flavor's node labels
    assert spec["containers"][0]["resources"]["requests"] == {"cpu": "1", GPU: "2"}   # limits as missing requests
    assert "provisioner" not in asked


def test_managed_resources_leave_out_pod_sets_that_use_none() -> None:
    cpu_only = job("notebook", gpus="")
    done = run(*CLUSTER, config(managedResources=[GPU]), submitted=(cpu_only,), capacity=answering())
    wl = the_workload(done)
    assert [(s.state, s.message) for s in wl.admission_checks] == [("Ready", "the provisioning request is not needed")]
    assert wl.is_true("Admitted")
    assert "provisioningRequests" not in document(done)["workloads"][0]


def test_provisioned_makes_the_check_ready_the_workload_admitted_and_its_pods_annotated() -> None:
    provisioned = {"type": "Provisioned", "status": "True", "reason": "CapacityIsFound",
                   "message": "Capacity is found in the cluster"}
    capacity = answering(ACCEPTED, provisioned)
    done = run(*CLUSTER, config(), submitted=(job(),), capacity=capacity)
    wl = the_workload(done)
    [state] = wl.admission_checks
    assert (state.state, state.message) == ("Ready", "Capacity is found in the cluster")
    [update] = state.pod_set_updates
    name = f"{wl.meta.name}-prov-1"
    assert (update.name, dict(update.annotations)) == ("main", {
        "autoscaling.x-k8s.io/consume-provisioning-request": name,
        "autoscaling.x-k8s.io/provisioning-class-name": "check-capacity.autoscaling.x-k8s.io"})
    assert wl.is_true("Admitted")
    assert [c.name for c in capacity.asked] == [name]


def test_not_provisioned_yet_keeps_the_check_pending_with_cas_message() -> None:
    later = {"type": "Provisioned", "status": "False", "reason": "CapacityIsNotFound",
             "message": "Capacity is not found, CA will try to find it later."}
    done = run(*CLUSTER, config(), submitted=(job(),), capacity=answering(ACCEPTED, later))
    wl = the_workload(done)
    assert [(s.state, s.message) for s in wl.admission_checks] == [
        ("Pending", "Capacity is not found, CA will try to find it later.")]
    assert wl.is_true("QuotaReserved") and wl.find("Admitted") is None


FAILED = {"type": "Failed", "status": "True", "reason": "CapacityIsNotFound",
          "message": "CA could not find requested capacity"}


def test_failed_retries_while_attempts_are_left_and_the_workload_is_evicted() -> None:
    done = run(*CLUSTER, config(), submitted=(job(),), capacity=answering(ACCEPTED, FAILED))
    wl = the_workload(done)
    evicted = wl.find("Evicted")
    assert evicted is not None and (evicted.reason, evicted.message) == (
        "AdmissionCheck", "At least one admission check is false")
    [asked] = document(done)["workloads"][0]["provisioningRequests"]
    assert (asked["checkState"], asked["checkMessage"]) == (
        "Retry", "Retrying after failure: CA could not find requested capacity")


def test_failed_with_no_attempt_left_is_rejected_and_the_workload_deactivated() -> None:
    done = run(*CLUSTER, config(retryStrategy={"backoffLimitCount": 0}), submitted=(job(),),
               capacity=answering(ACCEPTED, FAILED))
    wl = the_workload(done)
    assert not wl.spec.active
    [asked] = document(done)["workloads"][0]["provisioningRequests"]
    assert (asked["checkState"], asked["checkMessage"]) == ("Rejected", "CA could not find requested capacity")
    assert any(e.reason == "AdmissionCheckRejected" for e in done.events)


def test_identical_pod_templates_merge_into_one_pod_set_of_the_request() -> None:
    wl_doc = yaml.safe_load(job())
    template = wl_doc["spec"]["template"]
    workload = yaml.safe_dump({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                               "metadata": {"name": "two", "namespace": "default",
                                            "creationTimestamp": "2025-12-31T20:00:00Z"},
                               "spec": {"queueName": "q", "podSets": [{"name": "a", "count": 1, "template": template},
                                                                       {"name": "b", "count": 3, "template": template}]}})
    done = run(*CLUSTER, config(podSetMergePolicy="IdenticalPodTemplates"), submitted=(workload,))
    [asked] = document(done)["workloads"][0]["provisioningRequests"]
    assert asked["provisioningRequest"]["spec"]["podSets"] == [
        {"podTemplateRef": {"name": "ppt-two-prov-1-a"}, "count": 4}]
    done = run(*CLUSTER, config(), submitted=(workload,))
    [asked] = document(done)["workloads"][0]["provisioningRequests"]
    assert [ps["count"] for ps in asked["provisioningRequest"]["spec"]["podSets"]] == [1, 3]


def test_the_attempt_follows_the_checks_retry_count() -> None:
    """A Workload holding quota whose check was retried three times: Kueue names the next request
    attempt 4, and a failure then is past the default backoffLimitCount (3): Rejected."""
    obj = yaml.safe_load(job())
    template = obj["spec"]["template"]
    stored = yaml.safe_dump({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
        "metadata": {"name": "old", "namespace": "default", "creationTimestamp": "2025-12-31T20:00:00Z"},
        "spec": {"queueName": "q", "podSets": [{"name": "main", "count": 2, "template": template}]},
        "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [
            {"name": "main", "count": 2, "flavors": {"cpu": "default", GPU: "a100"},
             "resourceUsage": {"cpu": "2", GPU: "4"}}]},
            "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                            "message": "Quota reserved in ClusterQueue cq", "lastTransitionTime": "2025-12-31T23:00:00Z"}],
            "admissionChecks": [{"name": "prov", "state": "Pending", "message": "", "retryCount": 3,
                                 "lastTransitionTime": "2025-12-31T23:00:00Z"}]}})
    done = run(*CLUSTER, config(), stored, submitted=(), capacity=answering(ACCEPTED, FAILED))
    [asked] = document(done)["workloads"][0]["provisioningRequests"]
    assert asked["attempt"] == 4 and asked["provisioningRequest"]["metadata"]["name"] == "old-prov-4"
    assert (asked["checkState"], asked["checkMessage"]) == ("Rejected", "CA could not find requested capacity")

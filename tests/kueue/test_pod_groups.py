"""Pod groups (controller/jobs/podgroup, rolehash): one Workload per `kueue.x-k8s.io/pod-group-name`
group, named after it, one pod set per role (Kueue's role hash); an incomplete group, or pods
disagreeing on their queue or total count, make none, in Kueue's words. (Two pod-groups cases of
../shared/kueue are among the bundled cases of tests/kueue/cases: test_cases.py runs them.)"""
from __future__ import annotations

from typing import Any

import pytest
import yaml

from kexplain.errors import AdmissionRejected
from kexplain.kueue.controller.jobs.rolehash import ROLE_HASH_ANNOTATION, annotated, generate_role_hash, role_hash
from kexplain.kueue.document import document
from tests.kueue.builders import cluster_queue, flavor, local_queue, run

CLUSTER = (flavor("default-flavor"), cluster_queue("cq", {"default-flavor": {"cpu": "8"}}), local_queue("q", "cq"))


def pod(name: str, *, group: str = "g", total: Any = 3, queue: str = "q", cpu: str = "1",
        created: str = "2025-12-31T19:00:00Z", status: dict[str, Any] | None = None, **extra: Any) -> str:
    annotations = {} if total is None else {"kueue.x-k8s.io/pod-group-total-count": str(total)}
    labels = {"kueue.x-k8s.io/pod-group-name": group, **({"kueue.x-k8s.io/queue-name": queue} if queue else {})}
    obj = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "creationTimestamp": created,
                        "labels": labels, "annotations": annotations},
           "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}],
                    "schedulingGates": [{"name": "kueue.x-k8s.io/admission"}], **extra}}
    if status:
        obj["status"] = status
    return yaml.safe_dump(obj)


def doc(*pods: str) -> dict[str, Any]:
    return document(run(*CLUSTER, submitted=pods))


@pytest.mark.parametrize(("requests", "expected"), [
    ({"cpu": "1", "memory": "1Gi"}, "4ebdd4a6"),        # as the real Kueue named the pod sets (pod-groups-0135)
    ({"cpu": "2", "memory": "2Gi"}, "8930981a"),
    ({"memory": "2Gi", "cpu": "2000m"}, "8930981a"),
    ({"cpu": "1"}, "dc85db45"),                         # Kueue's own pod_controller_test.go    # keys sorted, quantities canonical: the same role
])
def test_role_hash_is_kueues(requests: dict[str, str], expected: str) -> None:
    assert generate_role_hash({"containers": [{"name": "x", "image": "y", "resources": {"requests": requests}}]}) \
        == expected


def test_role_hash_reads_what_admission_decides_and_the_annotation_first() -> None:
    base = {"containers": [{"name": "x", "resources": {"requests": {"cpu": "1"}}}]}
    other = [generate_role_hash({**base, "nodeSelector": {"a": "b"}}),
             generate_role_hash({**base, "tolerations": [{"key": "k", "operator": "Exists"}]}),
             generate_role_hash({**base, "priority": 5}),
             generate_role_hash({**base, "containers": [{**base["containers"][0], "ports": [{"containerPort": 80}]}]})]
    assert len({generate_role_hash(base), *other}) == 5
    assert generate_role_hash({**base, "restartPolicy": "Never", "schedulingGates": [{"name": "x"}]}) \
        == generate_role_hash(base)      # what admission does not read: the same role
    assert generate_role_hash({**base, "tolerations": [{"operator": "Exists", "key": "k"}]}) \
        == generate_role_hash({**base, "tolerations": [{"key": "k", "operator": "Exists"}]})  # Go's field order
    assert role_hash({ROLE_HASH_ANNOTATION: "abc"}, base) == "abc"
    stored = annotated({"metadata": {"name": "p"}, "spec": base})
    assert stored["metadata"]["annotations"][ROLE_HASH_ANNOTATION] == generate_role_hash(base)
    assert annotated(stored) is stored


def test_a_whole_group_is_one_workload_named_after_it_with_a_pod_set_per_role() -> None:
    got = doc(pod("g-b", cpu="2", created="2025-12-31T19:05:00Z"), pod("g-a"), pod("g-c", cpu="2"))
    assert [j.get("workload") for j in got["jobs"]] == ["g", "g", "g"]
    [wl] = got["workloads"]
    assert (wl["name"], wl["quotaReserved"], "owner" in wl) == ("g", True, False)
    assert sorted((p["name"], p["count"], p["resourceUsage"]["cpu"]) for p in wl["podSetAssignments"]) == sorted(
        [(generate_role_hash({"containers": [{"resources": {"requests": {"cpu": "1"}}}]}), 1, "1"),
         (generate_role_hash({"containers": [{"resources": {"requests": {"cpu": "2"}}}]}), 2, "4")])
    created = [e for e in got["events"] if e["reason"] == "CreatedWorkload"]
    assert created == [{"object": "default/g-a", "type": "Normal", "reason": "CreatedWorkload",
                        "message": "Created Workload: default/g"}]      # the group's first pod by name
    queued = next(e["message"] for e in got["events"] if e["reason"] == "QuotaReserved")
    assert queued.endswith("wait time since queued was 17700s")         # created with its newest pod (19:05)


def test_an_incomplete_group_waits_with_kueues_event() -> None:
    got = doc(pod("g-0"), pod("g-1"))
    message = "'g' group has fewer runnable pods than expected"
    assert [j.get("error") for j in got["jobs"]] == [message, message]
    assert got["workloads"] == []
    assert got["events"] == [{"object": "default/g-0", "type": "Warning", "reason": "ErrWorkloadCompose",
                              "message": message}]


def test_a_failed_pod_does_not_count() -> None:
    got = doc(pod("g-0"), pod("g-1"), pod("g-2", status={"phase": "Failed"}))
    assert got["jobs"][0]["error"] == "'g' group has fewer runnable pods than expected"


@pytest.mark.parametrize(("pods", "error"), [
    ((pod("g-0"), pod("g-1", queue="other"), pod("g-2")),
     "pods 'g-0' and 'g-1' has different queue names: q!=other"),
    ((pod("g-0"), pod("g-1"), pod("g-2", total=4)),
     "pods 'g-0' and 'g-2' has different 'kueue.x-k8s.io/pod-group-total-count' values: 3!=4"),
])
def test_pods_that_disagree_are_refused_in_kueues_words(pods: tuple[str, ...], error: str) -> None:
    got = doc(*pods)
    assert {j.get("error") for j in got["jobs"]} == {error}
    assert got["workloads"] == [] and got["events"] == []


@pytest.mark.parametrize(("change", "error"), [
    ({"total": None}, "metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Required value: both the "
                      "'kueue.x-k8s.io/pod-group-total-count' annotation and the 'kueue.x-k8s.io/pod-group-name' "
                      "label should be set"),
    ({"total": "three"}, 'metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Invalid value: "three": '
                         'strconv.Atoi: parsing "three": invalid syntax'),
    ({"total": 0}, "metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Invalid value: \"0\": incorrect "
                   "annotation value 'kueue.x-k8s.io/pod-group-total-count=0': group total count should be greater "
                   "than zero"),
    ({"group": "Not_A_Name"}, "metadata.labels[kueue.x-k8s.io/pod-group-name]: Invalid value: \"Not_A_Name\": a "
                              "lowercase RFC 1123 subdomain"),
])
def test_the_pod_webhook_refuses_a_group_pod_written_wrong(change: dict[str, Any], error: str) -> None:
    with pytest.raises(AdmissionRejected) as found:
        doc(pod("g-0", **change))
    assert f'admission webhook "vpod.kb.io" denied the request: {error}' in str(found.value)


def test_a_total_count_without_a_group_is_refused_too() -> None:
    obj = yaml.safe_load(pod("p"))
    del obj["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"]
    with pytest.raises(AdmissionRejected, match=r"metadata.labels\[kueue.x-k8s.io/pod-group-name\]: Required value"):
        doc(yaml.safe_dump(obj))


def test_more_pods_than_the_total_count_the_newest_deleted() -> None:
    got = doc(pod("g-0", total=2), pod("g-1", total=2), pod("g-2", total=2, created="2025-12-31T19:09:00Z"))
    assert [j.get("workload") for j in got["jobs"]] == ["g", "g", None]
    assert got["jobs"][2]["error"] == "Excess pod deleted"
    assert got["workloads"][0]["podSetAssignments"][0]["count"] == 2
    assert {"object": "default/g-2", "type": "Normal", "reason": "ExcessPodDeleted",
            "message": "Excess pod deleted"} in got["events"]


def test_groups_are_per_namespace_and_name_and_single_pods_stay_alone() -> None:
    alone = yaml.safe_load(pod("solo", total=None))
    del alone["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"]
    got = doc(pod("a-0", group="a", total=1), yaml.safe_dump(alone), pod("b-0", group="b", total=1))
    assert [j.get("workload") for j in got["jobs"]] == ["a", "pod-solo-" + got["jobs"][1]["workload"][-5:], "b"]


def test_the_most_roles_a_group_may_have_is_the_versions() -> None:
    pods = [pod(f"g-{i}", total=9, cpu=f"{100 + i}m") for i in range(9)]       # 9 roles
    old = document(run(*CLUSTER, submitted=tuple(pods)))
    assert {j.get("error") for j in old["jobs"]} == {"pod group can't include more than 8 roles"}
    new = document(run(*CLUSTER, submitted=tuple(pods), version="0.19"))
    assert {j.get("workload") for j in new["jobs"]} == {"g"} and len(new["workloads"][0]["podSetAssignments"]) == 9


def given_workload(annotations: dict[str, str]) -> str:
    return yaml.safe_dump({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                           "metadata": {"name": "g", "namespace": "default", "annotations": annotations},
                           "spec": {"queueName": "q", "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                               "containers": [{"name": "c", "image": "i",
                                               "resources": {"requests": {"cpu": "1"}}}]}}}]}})


def test_a_workload_named_as_the_group_is_adopted_only_when_the_group_made_it_since_0_19() -> None:
    pods = (pod("g-0", total=1),)
    foreign, own = given_workload({}), given_workload({"kueue.x-k8s.io/is-group-workload": "true"})
    assert document(run(*CLUSTER, foreign, submitted=pods))["jobs"][0]["workload"] == "g"      # v0.17: adopted
    refused = document(run(*CLUSTER, foreign, submitted=pods, version="0.19"))
    assert refused["jobs"][0]["error"] == ("a workload with the pod group name already exists but was not created "
                                           "by the pod group framework")
    assert {"object": "default/g-0", "type": "Warning", "reason": "WorkloadNameConflict",
            "message": 'A Workload named "g" already exists but is not a pod group workload; this pod group cannot '
                       "be admitted"} in refused["events"]
    assert document(run(*CLUSTER, own, submitted=pods, version="0.19"))["jobs"][0]["workload"] == "g"

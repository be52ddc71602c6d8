"""`kexplain.app.volcano_pod`: which pods Volcano answers for, the PodGroup its controller makes for a pod
without one (pgcontroller.buildPodGroupFromPod, helpers.GeneratePodgroupName), and which files keep the
cluster for its session."""
from __future__ import annotations

from kexplain.app.volcano_pod import is_volcano_pod, keeps_for_volcano, podgroup_name, with_pod_group, writable


def _pod(**meta) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns", "uid": "u1", **meta},
            "spec": {"schedulerName": "volcano", "priorityClassName": "high",
                     "containers": [{"name": "c", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]}}


def test_volcanos_pods_are_those_no_profile_claims_and_not_bound() -> None:
    pod = _pod()
    assert is_volcano_pod(pod, ["default-scheduler"])
    assert not is_volcano_pod(pod, ["default-scheduler", "volcano"])    # a profile named volcano: kube-scheduler's
    assert not is_volcano_pod({**pod, "spec": {**pod["spec"], "nodeName": "n1"}}, ["default-scheduler"])
    assert not is_volcano_pod({**pod, "spec": {}}, ["default-scheduler"])


def test_the_podgroup_is_named_after_the_controlling_owner_else_the_pod() -> None:
    assert podgroup_name(_pod()) == "podgroup-u1"
    owners = [{"uid": "o0", "controller": False}, {"uid": "rs1", "controller": True}]
    assert podgroup_name(_pod(ownerReferences=owners)) == "podgroup-rs1"


def test_a_pod_without_a_group_gets_the_controllers_podgroup_and_the_annotation() -> None:
    pod = _pod(annotations={"scheduling.volcano.sh/queue-name": "research"})
    annotated, volcano, made = with_pod_group(pod, [])
    assert made == "podgroup-u1"
    assert annotated["metadata"]["annotations"]["scheduling.k8s.io/group-name"] == "podgroup-u1"
    assert "scheduling.k8s.io/group-name" not in pod["metadata"]["annotations"]       # the input untouched
    (pg,) = volcano
    assert pg["metadata"] == {"name": "podgroup-u1", "namespace": "ns", "creationTimestamp": None}
    assert pg["spec"] == {"minMember": 1, "queue": "research", "priorityClassName": "high",
                          "minResources": {"cpu": "2", "memory": "1Gi", "pods": "1"}}
    assert pg["status"] == {"phase": "Pending"}


def test_a_podgroup_already_there_is_used_and_a_grouped_pod_left_as_it_is() -> None:
    existing = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                "metadata": {"name": "podgroup-u1", "namespace": "ns"}, "spec": {"minMember": 1}}
    _, volcano, made = with_pod_group(_pod(), [existing])
    assert made is None and volcano == [existing]
    grouped = _pod(annotations={"scheduling.k8s.io/group-name": "g"})
    assert with_pod_group(grouped, []) == (grouped, [], None)


def test_the_cluster_is_kept_for_volcanos_objects_only() -> None:
    assert keeps_for_volcano([(_pod(), None)])
    assert keeps_for_volcano([{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue"}])
    assert not keeps_for_volcano([{"apiVersion": "v1", "kind": "Pod", "spec": {}}])
    assert not keeps_for_volcano([{"apiVersion": "example.com/v1", "kind": "Queue"}])


def test_writable_copies_what_the_session_writes_and_shares_the_rest() -> None:
    """`writable` is public: `app.volcano` (a Job's session) uses it too. A pending pod is copied (the
    session writes its condition, the caller's object stays as read); other kinds are shared as read."""
    pod = _pod()
    copied = writable(pod)
    assert copied == pod and copied is not pod
    copied["spec"]["containers"][0]["name"] = "other"
    assert pod["spec"]["containers"][0]["name"] == "c"
    queue = {"kind": "Queue", "metadata": {"name": "q"}}
    assert writable(queue) is queue

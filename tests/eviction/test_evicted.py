"""Who removed a pod and why, from its status alone (`kexplain.eviction.evicted`): the kubelet's
Evicted status, each DisruptionTarget reason, the kubelet's message taken apart."""
from __future__ import annotations

import pytest

from kexplain.eviction.evicted import evicted

MEMORY = ("The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki. "
          "Container redis was using 300Mi, request is 100Mi, has larger consumption of memory. "
          "Container sidecar was using 20Mi, request is 0, has larger consumption of memory. ")


def pod(status: dict, node: str = "node-1") -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "cache-0", "namespace": "team-b"},
            "spec": {"nodeName": node, "containers": [{"name": "redis"}]}, "status": status}


def condition(reason: str, message: str = "", status: str = "True") -> dict:
    return {"type": "DisruptionTarget", "status": status, "reason": reason, "message": message}


def test_the_kubelets_message_taken_apart():
    doc = evicted(pod({"phase": "Failed", "reason": "Evicted", "message": MEMORY}))
    assert doc["by"] == "kubelet" and doc["cause"] == "Evicted" and doc["node"] == "node-1"
    part = doc["kubelet"]
    assert (part["kind"], part["resource"], part["nodeCondition"]) == ("nodePressure", "memory", "MemoryPressure")
    assert part["signals"] == ["memory.available", "allocatableMemory.available"]
    assert (part["threshold"], part["available"]) == ("100Mi", "51200Ki")
    assert part["usages"] == [
        {"kind": "Container", "name": "redis", "usage": "300Mi", "request": "100Mi", "overRequest": "200Mi"},
        {"kind": "Container", "name": "sidecar", "usage": "20Mi", "request": "0", "overRequest": "20Mi"}]


def test_disk_pressure_names_its_signals():
    message = ("The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 9Gi. ")
    part = evicted(pod({"phase": "Failed", "reason": "Evicted", "message": message}))["kubelet"]
    assert part["nodeCondition"] == "DiskPressure" and "nodefs.available" in part["signals"]
    assert "usages" not in part


def test_a_local_storage_limit():
    message = 'Usage of EmptyDir volume "scratch" exceeds the limit "1Gi". '
    part = evicted(pod({"phase": "Failed", "reason": "Evicted", "message": message}))["kubelet"]
    assert part["kind"] == "emptyDir" and part["volume"] == "scratch" and part["limit"] == "1Gi"


@pytest.mark.parametrize("reason, by", [
    ("TerminationByKubelet", "kubelet"), ("EvictionByEvictionAPI", "Eviction API"),
    ("DeletionByTaintManager", "taint eviction controller"), ("PreemptionByScheduler", "kube-scheduler"),
    ("DeletionByPodGC", "pod garbage collector")])
def test_each_disruption_target_reason_names_its_component(reason, by):
    doc = evicted(pod({"phase": "Running", "conditions": [condition(reason, "Eviction API: evicting")]}))
    assert doc["by"] == by and doc["cause"] == reason
    assert doc["condition"] == {"type": "DisruptionTarget", "reason": reason, "message": "Eviction API: evicting"}
    assert "kubelet" not in doc         # only the kubelet's message is taken apart


def test_the_kubelets_condition_message_is_taken_apart_without_the_status():
    doc = evicted(pod({"phase": "Running", "conditions": [condition("TerminationByKubelet", MEMORY)]}))
    assert doc["kubelet"]["usages"][0]["name"] == "redis"


def test_an_unknown_reason_is_said_unknown():
    doc = evicted(pod({"conditions": [condition("SomethingNew")]}))
    assert doc["by"] == "" and doc["cause"] == "SomethingNew"


@pytest.mark.parametrize("status", [
    {"phase": "Running"}, {"phase": "Failed", "reason": "OOMKilled"},
    {"phase": "Running", "conditions": [condition("EvictionByEvictionAPI", status="False")]}])
def test_a_pod_nothing_removed(status):
    assert evicted(pod(status)) is None


def test_the_node_given_when_the_pod_no_longer_names_it():
    unbound = pod({"phase": "Failed", "reason": "Evicted", "message": MEMORY})
    del unbound["spec"]["nodeName"]
    assert "node" not in evicted(unbound)
    assert evicted(unbound, node="node-9")["node"] == "node-9"


def test_a_message_not_the_kubelets():
    doc = evicted(pod({"phase": "Failed", "reason": "Evicted", "message": "evicted by hand"}))
    assert doc["message"] == "evicted by hand" and "kubelet" not in doc

"""Binding a pod with resource claims: its claims get the allocation DynamicResources' Filter
found on the chosen node and the pod in reservedFor, in a new snapshot; later copies and pods
find those devices in use."""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.explain.batch import explain_batch
from kexplain.explain.dra_binding import claim_bindings, with_claims_allocated
from kexplain.explain.inputs import load, load_inputs
from kexplain.explain.placement import Placement, iter_placements
from kexplain.explain.request import Request, RunOptions
from kexplain.features import DEFAULT, KubeVersion
from kexplain.plugins.dra.binding import FINALIZER
from kexplain.plugins.dra.inventory import inventory

Obj = dict[str, Any]
V1 = "resource.k8s.io/v1"
DRIVER = "gpu.example.com"
CANNOT = "cannot allocate all claims"


def node(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": {"cpu": "64", "memory": "256Gi", "pods": "110"}}}


def gpu_slice(node_name: str, models: list[str]) -> Obj:
    devices = [{"name": f"gpu-{i}", "attributes": {"model": {"string": m}},
                "capacity": {"memory": {"value": "80Gi" if m == "H100" else "40Gi"}}} for i, m in enumerate(models)]
    return {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": f"{node_name}-gpu"},
            "spec": {"driver": DRIVER, "nodeName": node_name, "devices": devices,
                     "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1}}}


def device_class(name: str, expression: str, config: list[Obj] | None = None) -> Obj:
    spec: Obj = {"selectors": [{"cel": {"expression": expression}}]}
    if config:
        spec["config"] = config
    return {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def template(name: str, cls: str, count: int) -> Obj:
    return {"apiVersion": V1, "kind": "ResourceClaimTemplate", "metadata": {"name": name, "namespace": "ml"},
            "spec": {"spec": {"devices": {"requests": [{"name": "gpus", "exactly": {"deviceClassName": cls,
                                                                                     "count": count}}]}}}}


def pod_spec(tpl: str) -> Obj:
    return {"containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "gpus"}]}}],
            "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": tpl}]}


def deployment(name: str, replicas: int, tpl: str) -> Obj:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "ml"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec(tpl)}}}


def daemonset(name: str, tpl: str) -> Obj:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "ml"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": pod_spec(tpl)}}}


def bare_pod(name: str, tpl: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ml"}, "spec": pod_spec(tpl)}


# Two nodes of 8 GPUs: 4 H100 and 4 A100 each; the class `h100` takes only the H100s.
MIXED = ["H100"] * 4 + ["A100"] * 4


def cluster(models: list[str] = MIXED, *extra: Obj) -> list[Obj]:
    return [node("node-a"), node("node-b"), gpu_slice("node-a", models), gpu_slice("node-b", models),
            device_class("h100", f"device.driver == '{DRIVER}' && device.attributes['{DRIVER}'].model == 'H100'"),
            device_class("any-gpu", f"device.driver == '{DRIVER}'"), *extra]


def loaded(tmp_path: Path, pods: list[Obj], nodes: list[Obj]):
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(pods))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(nodes))
    return load(Request(str(tmp_path / "pods.yaml"), (str(tmp_path / "cluster.yaml"),)))


def single(tmp_path: Path, pods: list[Obj], nodes: list[Obj], kube: KubeVersion = DEFAULT):
    """The inputs of a file's one pod (its template claims made), as `kube` reads them."""
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(pods))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(nodes))
    return load_inputs(Request(str(tmp_path / "pods.yaml"), (str(tmp_path / "cluster.yaml"),), kube=kube))


def batch(tmp_path: Path, pods: list[Obj], nodes: list[Obj]):
    got = loaded(tmp_path, pods, nodes)
    return list(explain_batch(got.batch, got.pool, RunOptions()))


def replicas(tmp_path: Path, pods: list[Obj], nodes: list[Obj], copies: int,
             kube: KubeVersion = DEFAULT) -> list[Placement]:
    """Every copy of the file's one workload, placed in turn as the batch places them."""
    return list(iter_placements(single(tmp_path, pods, nodes, kube), RunOptions(), copies))


def reasons(trace) -> list[str]:
    """Every Filter reason of the trace (node -> status)."""
    return [r for status in (trace.to_json()["filter"] or {}).values() for r in status.get("reasons", ())]


def claim_of(snapshot, pod) -> Obj:
    [entry] = pod.status["resourceClaimStatuses"]
    return next(c for c in snapshot.of_kind("ResourceClaim") if c["metadata"]["name"] == entry["resourceClaimName"])


def test_third_replica_finds_every_matching_gpu_taken(tmp_path):
    placed = replicas(tmp_path, [template("four-h100", "h100", 4), deployment("train", 3, "four-h100")], cluster(), 3)
    assert len(placed) == 3 and sorted(a.node for a in placed[:2]) == ["node-a", "node-b"]
    third = placed[2]
    assert third.node is None and third.trace.result.status == "Unschedulable"
    assert "0/2 nodes are available: 2 cannot allocate all claims." in third.trace.result.message
    # what the third copy saw: the first two copies' claims allocated, every H100 held by them
    snapshot = third.inputs.snapshot
    held = inventory(snapshot).holders
    h100 = {(DRIVER, n, f"gpu-{i}") for n in ("node-a", "node-b") for i in range(4)}
    assert h100 <= set(held) and len(held) == 8
    for a in placed[:2]:
        assert claim_of(snapshot, a.inputs.pod)["status"]["reservedFor"] == [
            {"resource": "pods", "name": a.inputs.pod.name, "uid": a.inputs.pod.uid}]


@pytest.mark.parametrize("minor", ["1.35", "1.36"])
def test_allocation_is_what_filter_chose_for_the_node(tmp_path, minor):
    first, second = replicas(tmp_path, [template("four-h100", "h100", 4), deployment("train", 2, "four-h100")],
                             cluster(), 2, KubeVersion(minor))
    claim = claim_of(second.inputs.snapshot, first.inputs.pod)
    allocation = dict(claim["status"]["allocation"])
    # PreBind stamps the allocation where binding conditions and device status are on (1.36's defaults)
    stamp = allocation.pop("allocationTimestamp", None)
    assert (stamp is not None) is (minor == "1.36")
    assert stamp is None or re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp), stamp
    assert allocation == {
        "devices": {"results": [{"request": "gpus", "driver": DRIVER, "pool": first.node, "device": f"gpu-{i}"}
                                for i in range(4)]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [first.node]}]}]}}
    assert claim["metadata"]["finalizers"] == [FINALIZER]
    # the second copy's own claim is still unallocated in its own inputs, and it went elsewhere
    assert "status" not in claim_of(second.inputs.snapshot, second.inputs.pod)
    assert second.node != first.node


def test_four_copies_fill_both_nodes_then_the_fifth_does_not_fit(tmp_path):
    placed = replicas(tmp_path, [template("four", "any-gpu", 4), deployment("train", 5, "four")], cluster(), 5)
    assert sorted(a.node for a in placed[:4]) == ["node-a", "node-a", "node-b", "node-b"]
    assert placed[4].node is None
    assert CANNOT in reasons(placed[4].trace)
    # in the batch: 4 of 5 fit
    [outcome] = batch(tmp_path, [template("four", "any-gpu", 4), deployment("train", 5, "four")], cluster())
    assert len(outcome.placed) == 4 and not outcome.fits


def test_pods_of_a_file_take_devices_from_each_other(tmp_path):
    pods = [template("four-h100", "h100", 4), bare_pod("a", "four-h100"), bare_pod("b", "four-h100"),
            bare_pod("c", "four-h100")]
    outcomes = batch(tmp_path, pods, cluster())
    assert [o.fits for o in outcomes] == [True, True, False]
    assert CANNOT in reasons(outcomes[2].attempts[0].trace)


def test_daemonset_copies_each_get_their_own_devices(tmp_path):
    # one node with 4 GPUs: the DaemonSet's copy pinned there takes all four; the file's next pod finds none
    nodes = [node("node-a"), gpu_slice("node-a", ["H100"] * 4),
             device_class("h100", f"device.driver == '{DRIVER}'")]
    outcomes = batch(tmp_path, [template("four", "h100", 4), daemonset("agent", "four"), bare_pod("late", "four")],
                     nodes)
    assert outcomes[0].placed == ["node-a"]
    assert not outcomes[1].fits and CANNOT in reasons(outcomes[1].attempts[0].trace)


def test_binding_leaves_the_snapshot_alone_and_skips_claims_reserved_already(tmp_path):
    inputs = single(tmp_path, [template("four", "any-gpu", 4), deployment("train", 1, "four")], cluster())
    before = [dict(c) for c in inputs.snapshot.of_kind("ResourceClaim")]
    after = with_claims_allocated(inputs.snapshot, inputs, RunOptions(), "node-b")
    assert inputs.snapshot.of_kind("ResourceClaim") == before and after is not inputs.snapshot
    claim = claim_of(after, inputs.pod)
    assert [r["pool"] for r in claim["status"]["allocation"]["devices"]["results"]] == ["node-b"] * 4
    # bound again (the claim now allocated and reserved for the pod): PreBind has nothing to write
    again = replace(inputs, snapshot=after)
    assert claim_bindings(after, again, RunOptions(), "node-b") == ()


def test_no_binding_on_a_node_the_plugin_rejects(tmp_path):
    inputs = single(tmp_path, [template("nine", "any-gpu", 9), bare_pod("big", "nine")], cluster())
    assert with_claims_allocated(inputs.snapshot, inputs, RunOptions(), "node-a") is inputs.snapshot


def test_class_and_claim_configuration_are_copied_into_the_allocation(tmp_path):
    opaque = {"opaque": {"driver": DRIVER, "parameters": {"sharing": "timeslice"}}}
    tpl = template("two", "cfg", 2)
    tpl["spec"]["spec"]["devices"]["config"] = [{"requests": ["gpus"], "opaque": {"driver": DRIVER,
                                                                                   "parameters": {"x": 1}}}]
    nodes = cluster(MIXED, device_class("cfg", f"device.driver == '{DRIVER}'", config=[opaque]))
    first, second = replicas(tmp_path, [tpl, deployment("train", 2, "two")], nodes, 2)
    config = claim_of(second.inputs.snapshot, first.inputs.pod)["status"]["allocation"]["devices"]["config"]
    assert config == [{"source": "FromClass", "requests": ["gpus"], **opaque},
                      {"source": "FromClaim", "requests": ["gpus"],
                       "opaque": {"driver": DRIVER, "parameters": {"x": 1}}}]

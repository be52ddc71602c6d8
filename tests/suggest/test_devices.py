"""Device fix suggestions: lower a count, relax or drop a request selector, use another
DeviceClass, free devices (naming the pods), add a node with copies of its ResourceSlices; each
verified by re-running the cycle, each naming the object and field to change."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from kexplain.explain.inputs import load_inputs
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import explain
from kexplain.framework.trace import SCHEDULED
from kexplain.suggest import suggestions
from kexplain.suggest.add_node import ADD_NODE
from kexplain.suggest.change import changed_inputs
from kexplain.suggest.device_claims import DROP_DEVICE_SELECTOR, LOWER_DEVICE_COUNT, RELAX_DEVICE_SELECTOR, \
    USE_DEVICE_CLASS
from kexplain.suggest.free_devices import FREE_DEVICES
from tests.support.paths import ROOT

DATA = ROOT / "tests" / "data" / "devices"


def _docs(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((DATA / name).read_text()) if d]


def _suggest(tmp_path: Path, pod: list[dict] | None = None, cluster: list[dict] | None = None):
    pod_path, cluster_path = tmp_path / "pod.yaml", tmp_path / "cluster.yaml"
    pod_path.write_text(yaml.safe_dump_all(pod if pod is not None else _docs("pod.yaml")))
    cluster_path.write_text(yaml.safe_dump_all(cluster if cluster is not None else _docs("cluster.yaml")))
    inputs = load_inputs(Request(pod_path=str(pod_path), node_paths=(str(cluster_path),)))
    trace = explain(inputs, RunOptions())
    return inputs, suggestions(inputs, trace)


def _by_kind(found) -> dict[str, list]:
    out: dict[str, list] = {}
    for s in found:
        out.setdefault(s.kind, []).append(s)
    return out


def _schedules(inputs, change) -> str:
    trace = explain(changed_inputs(inputs, change), RunOptions(filter_all=False, preemption=False))
    assert trace.result.status == SCHEDULED
    return trace.result.suggested_host


def test_selector_relaxed_or_dropped_in_the_template(tmp_path):
    inputs, found = _suggest(tmp_path)
    kinds = _by_kind(found)
    relax = kinds[RELAX_DEVICE_SELECTOR][0]
    assert relax.target == "ResourceClaimTemplate default/big-gpu"
    assert "spec.spec.devices.requests[0].exactly.selectors[0].cel.expression" in relax.description
    assert relax.change[0]["object"] == {"kind": "ResourceClaimTemplate", "namespace": "default", "name": "big-gpu"}
    assert relax.change[0]["value"] == "device.capacity['gpu.example.com'].memory.compareTo(quantity('16Gi')) >= 0"
    assert relax.opened == ("gpu-1",)
    drop = kinds[DROP_DEVICE_SELECTOR][0]
    assert drop.change[0] == {"op": "remove", "object": relax.change[0]["object"],
                              "path": "/spec/spec/devices/requests/0/exactly/selectors/0"}
    # applied by hand, the template's change reaches the pod's claim made from it
    assert _schedules(inputs, drop.change) == "gpu-1"


def test_free_devices_names_the_pods_holding_them(tmp_path):
    inputs, found = _suggest(tmp_path)
    free = _by_kind(found)[FREE_DEVICES][0]
    assert free.target == "node gpu-2"
    assert "claim team/train-gpus (pod team/train)" in free.description
    assert {"op": "delete", "object": {"kind": "Pod", "namespace": "team", "name": "train"}} in free.change
    assert {"op": "remove", "object": {"kind": "ResourceClaim", "namespace": "team", "name": "train-gpus"},
            "path": "/status/allocation"} in free.change
    assert free.opened == ("gpu-2",)


def test_new_node_comes_with_its_slices_renamed(tmp_path):
    inputs, found = _suggest(tmp_path)
    add = _by_kind(found)[ADD_NODE][0]
    assert "add a node like gpu-2" in add.description          # gpu-1's devices are too small
    node_op, slice_op = add.change
    assert node_op["object"] == {"kind": "Node", "name": "new-node-like-gpu-2"}
    s = slice_op["value"]
    assert s["metadata"]["name"] == "new-node-like-gpu-2-gpus"
    assert s["spec"]["nodeName"] == "new-node-like-gpu-2"
    assert s["spec"]["pool"]["name"] == "new-node-like-gpu-2"
    assert add.opened == ("new-node-like-gpu-2",)
    assert _schedules(inputs, add.change) == "new-node-like-gpu-2"


def test_lower_count_in_a_standalone_claim(tmp_path):
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "three", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {"deviceClassName": "gpu", "count": 3}}]}}}
    pod = _docs("pod.yaml")[1]
    pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "three"}]
    inputs, found = _suggest(tmp_path, pod=[claim, pod])
    lower = _by_kind(found)[LOWER_DEVICE_COUNT][0]
    assert lower.target == "ResourceClaim default/three"
    assert "from 3 to 2" in lower.description and "spec.devices.requests[0].exactly.count to 2" in lower.description
    assert lower.change == ({"op": "replace", "object": {"kind": "ResourceClaim", "namespace": "default",
                                                          "name": "three"},
                             "path": "/spec/devices/requests/0/exactly/count", "value": 2},)
    assert lower.opened == ("gpu-1",)


def test_another_device_class_of_the_same_kind(tmp_path):
    cluster = _docs("cluster.yaml")
    cluster.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "h100"},
                    "spec": {"selectors": [{"cel": {"expression": "device.attributes['gpu.example.com'].model == 'H100'"}}]}})
    cluster.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "t4"},
                    "spec": {"selectors": [{"cel": {"expression": "device.attributes['gpu.example.com'].model == 'T4'"}}]}})
    pod = _docs("pod.yaml")
    pod[0]["spec"]["spec"]["devices"]["requests"][0]["exactly"] = {"deviceClassName": "h100"}
    inputs, found = _suggest(tmp_path, pod=pod, cluster=cluster)
    use = _by_kind(found)[USE_DEVICE_CLASS]
    names = [s.change[0]["value"] for s in use]
    assert "t4" in names and "nic" not in names          # a GPU class for a GPU request, never the NICs'
    t4 = next(s for s in use if s.change[0]["value"] == "t4")
    assert "spec.spec.devices.requests[0].exactly.deviceClassName to t4" in t4.description
    assert t4.opened == ("gpu-1",)


def test_every_suggestion_is_verified(tmp_path):
    inputs, found = _suggest(tmp_path)
    assert found
    for s in found:
        assert s.verified.status == SCHEDULED
        _schedules(inputs, s.change)

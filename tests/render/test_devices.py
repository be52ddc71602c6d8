"""Devices in the human views: per node, claim and request, which devices could serve it and
why the others cannot (selector with the value it read, use by which claim), nodes with the
same story grouped, the device classes' totals; the PreEnqueue gate and v1.35.4's quirks named."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from kexplain.explain.inputs import load_inputs
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import explain
from kexplain.features import KubeVersion
from kexplain.render.devices import selector_words, signature
from kexplain.render.devices_view import class_groups, why_groups
from kexplain.render.dra_notes import dra_notes
from tests.support.paths import ROOT
from tests.support.render_helpers import squeeze, text_of

DATA = ROOT / "tests" / "data" / "devices"


def _trace(tmp_path: Path | None = None, pod: list[dict] | None = None, cluster: list[dict] | None = None,
           all_nodes: bool = True, node: str | None = None, kube: KubeVersion = KubeVersion("1.35")) -> dict[str, Any]:
    """The trace of the devices case (or a variant of it) with every node's plugin facts, under
    `kube` (1.35, whose quirks this module names, unless a test says another)."""
    pod_path, cluster_path = DATA / "pod.yaml", DATA / "cluster.yaml"
    if pod is not None:
        pod_path = tmp_path / "pod.yaml"
        pod_path.write_text(yaml.safe_dump_all(pod))
    if cluster is not None:
        cluster_path = tmp_path / "cluster.yaml"
        cluster_path.write_text(yaml.safe_dump_all(cluster))
    inputs = load_inputs(Request(pod_path=str(pod_path), node_paths=(str(cluster_path),), kube=kube))
    nodes = frozenset(ni.name for ni in inputs.snapshot.node_infos) if all_nodes else frozenset([node or ""])
    return explain(inputs, RunOptions(details=True, explain_nodes=nodes)).to_json()


def _docs(name: str) -> list[dict]:
    return [d for d in yaml.safe_load_all((DATA / name).read_text()) if d]


def test_node_view_names_each_device_and_the_selector_value_it_read():
    text = " ".join(squeeze(text_of(_trace(all_nodes=False, node="gpu-1"), node="gpu-1", width=200)))
    assert "pool gpu.example.com/gpu-1: 2 device(s) in 1 slice(s)" in text
    assert "request gpu (1 device of class gpu): 0 of 2 device(s) free for it" in text
    assert ("2 rejected by claim default/infer-gpu-5ng9q selectors[0]: capacity memory 16Gi, selector wants "
            ">= 40Gi: gpu-0, gpu-1") in text
    assert "class gpu: 2 device(s), 0 in use, 2 free" in text


def test_node_view_names_the_claim_holding_a_device():
    text = " ".join(squeeze(text_of(_trace(all_nodes=False, node="gpu-2"), node="gpu-2", width=200)))
    assert "2 in use: gpu-0 by claim team/train-gpus" in text
    assert "class gpu: 2 device(s), 2 in use, 0 free" in text


def test_overview_groups_nodes_by_what_their_devices_say():
    trace = _trace()
    groups = {tuple(nodes): sig for sig, nodes in why_groups(trace)}
    assert set(groups) == {("gpu-1",), ("gpu-2",)}
    assert any("capacity memory 16Gi, selector wants >= 40Gi" in line for line in groups[("gpu-1",)])
    assert any(line.strip() == "2 in use" for line in groups[("gpu-2",)])
    assert sorted(class_groups(trace)) == [(("gpu", 2, 0, 2), ["gpu-1"]), (("gpu", 2, 2, 0), ["gpu-2"])]
    text = text_of(trace, width=100)
    assert "Devices: why DynamicResources cannot allocate the claims" in text
    assert "Device classes the pod asks for, per node" in text
    # the scheduler's message stays its own, on one line
    assert ("0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes "
            "are available: 2 Preemption is not helpful for scheduling.") in text


def test_nodes_with_the_same_story_form_one_group(tmp_path):
    cluster = _docs("cluster.yaml")
    node = next(d for d in cluster if d["kind"] == "Node" and d["metadata"]["name"] == "gpu-1")
    slice_ = next(d for d in cluster if d["kind"] == "ResourceSlice" and d["metadata"]["name"] == "gpu-1-gpus")
    for i in range(3, 15):
        n, s = copy.deepcopy(node), copy.deepcopy(slice_)
        n["metadata"] = {"name": f"gpu-{i}", "labels": {"kubernetes.io/hostname": f"gpu-{i}"}}
        s["metadata"] = {"name": f"gpu-{i}-gpus"}
        s["spec"].update(nodeName=f"gpu-{i}", pool={"name": f"gpu-{i}", "generation": 1, "resourceSliceCount": 1})
        cluster += [n, s]
    trace = _trace(tmp_path, cluster=cluster)
    sizes = sorted(len(nodes) for _, nodes in why_groups(trace))
    assert sizes == [1, 13]
    text = " ".join(squeeze(text_of(trace, width=100)))
    assert "13 nodes: gpu-1, gpu-3, gpu-4, gpu-5, gpu-6, gpu-7, gpu-8, gpu-9 and 5 more" in text


def test_would_allocate_shown_for_the_chosen_node(tmp_path):
    pod = _docs("pod.yaml")
    pod[0]["spec"]["spec"]["devices"]["requests"][0]["exactly"].pop("selectors")
    trace = _trace(tmp_path, pod=pod)
    assert trace["result"]["suggestedHost"] == "gpu-1"
    text = " ".join(squeeze(text_of(trace, width=100)))
    assert "Devices on gpu-1 kexplain would allocate: gpu: gpu-0" in text


def test_selector_words_read_the_values():
    sel = {"owner": "class a100", "index": 1,
           "conjunct": "device.attributes['gpu.example.com'].model == 'A100'",
           "values": [{"expression": "device.attributes['gpu.example.com'].model", "value": '"T4"'},
                      {"expression": "device.attributes['gpu.example.com'].model == 'A100'", "value": "false"}]}
    assert selector_words(sel) == "attribute model T4, selector wants == A100"
    sel = {"conjunct": "device.driver == 'gpu.example.com'",
           "values": [{"expression": "device.driver", "value": '"nic.example.com"'}]}
    assert selector_words(sel) == "driver nic.example.com, selector wants == gpu.example.com"


# -- PreEnqueue and the quirks, from real runs ---------------------------------------------------------

def test_missing_claim_gates_the_pod_and_says_there_is_no_event(tmp_path):
    pod = _docs("pod.yaml")[1]
    pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "nowhere"}]
    trace = _trace(tmp_path, pod=[pod])
    assert trace["result"]["status"] == "Gated"
    notes = dra_notes(trace)
    assert len(notes) == 1
    assert "ResourceClaim default/nowhere it names does not exist" in notes[0]
    assert "emits no FailedScheduling event" in notes[0]
    assert "emits no FailedScheduling event" in " ".join(squeeze(text_of(trace, width=200)))


def test_missing_device_class_explains_no_new_claims_to_deallocate(tmp_path):
    pod = _docs("pod.yaml")
    pod[0]["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] = "h200"
    trace = _trace(tmp_path, pod=pod)
    assert "no new claims to deallocate" in trace["result"]["message"]
    notes = dra_notes(trace)
    assert len(notes) == 1 and "PreFilter stopped at the missing DeviceClass h200" in notes[0]


def test_cel_runtime_error_names_the_device_and_selector(tmp_path):
    cluster = _docs("cluster.yaml")
    cls = next(d for d in cluster if d["kind"] == "DeviceClass" and d["metadata"]["name"] == "gpu")
    cls["spec"]["selectors"].append({"cel": {"expression": "device.attributes['gpu.example.com'].driverVersion.major() >= 535"}})
    trace = _trace(tmp_path, cluster=cluster)
    assert trace["result"]["status"] == "Error"
    notes = dra_notes(trace)
    assert len(notes) == 1
    assert "DeviceClass gpu spec.selectors[1]" in notes[0]
    assert "on node gpu-1" in notes[0]      # the device too once `details` is recorded for an Error
    assert "ends the whole scheduling cycle" in notes[0]


def test_score_quirk_with_one_allocated_and_one_unallocated_claim(tmp_path):
    """Two free nodes, the pod's first claim already allocated (on no particular node), the
    second to allocate: v1.35.4's Score fails."""
    cluster = [d for d in _docs("cluster.yaml") if d["kind"] != "Pod" and d["kind"] != "ResourceClaim"]
    allocated = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                 "metadata": {"name": "shared", "namespace": "default", "uid": "claim-shared"},
                 "spec": {"devices": {"requests": [{"name": "nic", "exactly": {"deviceClassName": "nic"}}]}},
                 "status": {"allocation": {"devices": {"results": []}}}}
    cluster.append(allocated)
    pod = _docs("pod.yaml")
    pod[0]["spec"]["spec"]["devices"]["requests"][0]["exactly"].pop("selectors")
    pod[1]["spec"]["resourceClaims"].insert(0, {"name": "nic", "resourceClaimName": "shared"})
    trace = _trace(tmp_path, pod=pod, cluster=cluster)
    error = trace["result"].get("error", "")
    assert "is smaller than number of claims" in error, trace["result"]
    notes = dra_notes(trace)
    assert len(notes) == 1 and "quirk of v1.35.4" in notes[0] and "2 nodes (two or more) pass Filter" in notes[0]
    # 1.36 reads the allocated claim's allocation from its status: the pod is scheduled, nothing noted
    trace = _trace(tmp_path, pod=pod, cluster=cluster, kube=KubeVersion("1.36"))
    assert "error" not in trace["result"] and trace["result"]["status"] == "Scheduled", trace["result"]
    assert not any("quirk" in note for note in dra_notes(trace))


def test_all_mode_over_an_incomplete_pool_is_named(tmp_path):
    cluster = _docs("cluster.yaml")
    s = next(d for d in cluster if d["kind"] == "ResourceSlice" and d["metadata"]["name"] == "gpu-1-gpus")
    s["spec"]["pool"]["resourceSliceCount"] = 2          # the second slice is not published yet
    pod = _docs("pod.yaml")
    req = pod[0]["spec"]["spec"]["devices"]["requests"][0]["exactly"]
    req.pop("selectors")
    req["allocationMode"] = "All"
    trace = _trace(tmp_path, pod=pod, cluster=cluster)
    assert trace["result"]["status"] == "Error", trace["result"]
    notes = dra_notes(trace)
    assert len(notes) == 1 and "allocationMode All" in notes[0] and "gpu.example.com/gpu-1" in notes[0]


def test_no_notes_for_a_plain_rejection():
    assert dra_notes(_trace()) == []


def test_signature_leaves_device_names_out():
    trace = _trace()
    facts = trace["details"]["nodes"]["gpu-2"]["plugins"]["DynamicResources"]
    assert not any("gpu-0" in line for line in signature(facts))

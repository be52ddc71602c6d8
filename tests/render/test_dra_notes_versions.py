"""DRA notes per Kubernetes version: read from the trace alone (its `kubernetesVersion`, the
scheduler's keys and the plugin's `notes`)."""
from __future__ import annotations

from kexplain.render.devices import pool_lines, request_groups
from kexplain.render.dra_notes import dra_notes

ALL_ERROR = ('running "DynamicResources" filter plugin: claim default/c, request gpus: asks for all devices, '
             "but resource pool fpga.example.com/fabric is currently being updated")


def trace(minor: str | None = None, **keys) -> dict:
    out = {"preEnqueue": [], "preFilter": [], "filter": {}, "postFilter": None,
           "result": {"status": "Unschedulable", "selectedNodes": [], "message": ""}, **keys}
    if minor is not None:
        out["kubernetesVersion"] = {"minor": minor, "scheduler": {"1.34": "v1.34.7", "1.36": "v1.36.3"}[minor]}
    return out


def test_the_136_owner_text_is_explained():
    gated = trace("1.36", preEnqueue=[{"plugin": "DynamicResources", "code": "UnschedulableAndUnresolvable",
                                       "reasons": ["ResourceClaim default/p-gpu was not created for Pod default/p "
                                                   "(Pod is not owner)"]}],
                  result={"status": "Gated", "selectedNodes": [], "message": ""})
    (note,) = dra_notes(gated)
    assert "the claim default/p-gpu its status names is owned by another pod, not by default/p" in note


def test_a_quirk_is_named_with_the_release_followed():
    error = trace("1.34", result={"status": "Error", "selectedNodes": [], "message": "", "error": ALL_ERROR})
    (note,) = dra_notes(error)
    assert note.startswith("This Error is v1.34.7's handling of allocationMode All")
    assert "this release counts only the slices that target the node" in note
    (note,) = dra_notes(trace(result={"status": "Error", "selectedNodes": [], "message": "", "error": ALL_ERROR}))
    assert note.startswith("This Error is v1.35.4's") and "counts only the slices" not in note


def test_the_plugins_own_notes_come_last():
    notes = [{"plugin": "DynamicResources", "note": "kexplain does not reproduce X."},
             {"plugin": "Other", "note": "not ours"}]
    assert dra_notes(trace("1.36", notes=notes)) == ["kexplain does not reproduce X."]


def test_device_words_for_the_versions_features():
    pools = {"pools": [{"pool": "gpu.example.com/n1", "slices": 1, "devices": 2, "incomplete": True,
                        "allocatable": True},
                       {"pool": "gpu.example.com/fabric", "slices": 1, "devices": 1, "incomplete": True}]}
    lines = pool_lines(pools)
    assert "its devices are still allocated, a request for all devices fails" in lines[0]     # 1.34
    assert "its devices are not allocated" in lines[1]                                       # 1.35 on
    req = {"devices": [{"device": "gpu.example.com/n1/a", "reason": "tainted", "taint": "bad:NoExecute"},
                       {"device": "gpu.example.com/n1/b", "reason": "capacity"}]}
    assert request_groups(req, single_pool=True, named=True) == [
        "1 with a taint the request does not tolerate: bad:NoExecute: a",
        "1 without the capacity the request asks for left: b"]

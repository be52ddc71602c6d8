"""Redacting DRA objects: names of classes, slices, pools, devices, claims and templates become
tokens together with every reference to them, while what device selection reads stays, so the
redacted snapshot replays the same verdict."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.admission import admit
from kexplain.cli.app import main
from kexplain.errors import Source
from kexplain.load.redact import Redactor

Obj = dict[str, Any]
V1 = "resource.k8s.io/v1"
TRAIN_UID = "4f1d7a4e-6c55-4d0e-9b7a-1f2b3c4d5e6f"
OTHER_UID = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


def node(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": {"cpu": "8", "memory": "16Gi", "pods": "110"}}}


def slice_(node_name: str, model: str) -> Obj:
    return {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": f"{node_name}-gpu"},
            "spec": {"driver": "gpu.example.com", "nodeName": node_name,
                     "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-0", "attributes": {"model": {"string": model}},
                                  "capacity": {"memory": {"value": "80Gi"}}}]}}


def claim(name: str, owner: str, uid: str, selector: str, status: Obj | None = None) -> Obj:
    out: Obj = {"apiVersion": V1, "kind": "ResourceClaim",
                "metadata": {"name": name, "namespace": "ml",
                             "annotations": {"resource.kubernetes.io/pod-claim-name": "gpu"},
                             "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": owner, "uid": uid,
                                                  "controller": True}]},
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                    "deviceClassName": "gpu.example.com", "selectors": [{"cel": {"expression": selector}}]}}],
                    "config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"secret": "hunter2"}}}]}}}
    if status:
        out["status"] = status
    return out


def pod(name: str, uid: str, claim_name: str | None, node_name: str | None = None) -> Obj:
    spec: Obj = {"containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}],
                 "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]}
    if node_name:
        spec["nodeName"] = node_name
    status: Obj = {"phase": "Running" if node_name else "Pending"}
    if claim_name:
        status["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": claim_name}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ml", "uid": uid},
            "spec": spec, "status": status}


H100 = "device.attributes['gpu.example.com'].model == 'H100'"


def cluster(pending_claim: bool) -> tuple[list[Obj], Obj]:
    allocated = {"allocation": {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com",
                                                         "pool": "node-a", "device": "gpu-0"}]},
                                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                                    {"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]}},
                 "reservedFor": [{"resource": "pods", "name": "other", "uid": OTHER_UID}]}
    template = {"apiVersion": V1, "kind": "ResourceClaimTemplate", "metadata": {"name": "one-gpu", "namespace": "ml"},
                "spec": {"spec": {"devices": {"requests": [{"name": "gpu",
                                                            "exactly": {"deviceClassName": "gpu.example.com"}}]}}}}
    objs = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}},
        node("node-a"), node("node-b"),
        {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
         "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}},
        slice_("node-a", "H100"), slice_("node-b", "A100"), template,
        pod("other", OTHER_UID, "other-gpu-x7k2p", "node-a"),
        claim("other-gpu-x7k2p", "other", OTHER_UID, H100, allocated),
    ]
    if pending_claim:
        objs.append(claim("train-gpu-q9z4m", "train", TRAIN_UID, H100))
    return objs, pod("train", TRAIN_UID, "train-gpu-q9z4m")


def stored(tmp_path: Path, name: str, objs: list[Obj], pending: Obj) -> tuple[str, str]:
    (tmp_path / f"{name}-cluster.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    (tmp_path / f"{name}-pod.json").write_text(json.dumps(pending))
    return str(tmp_path / f"{name}-pod.json"), str(tmp_path / f"{name}-cluster.json")


def verdict(capsys, pod_path: str, cluster_path: str) -> dict:
    main([pod_path, "--nodes", cluster_path, "--stored", "-o", "json"])
    return json.loads(capsys.readouterr().out)


def back(text: str, mapping: dict[str, str]) -> str:
    return re.sub(r"\b[a-z]+-\d+\b", lambda m: mapping.get(m.group(0), m.group(0)), text)


@pytest.mark.parametrize("pending_claim", [True, False], ids=["claim-exists", "claim-missing"])
def test_redacted_snapshot_replays_the_same_verdict(capsys, tmp_path, pending_claim):
    objs, pending = cluster(pending_claim)
    admitted = admit([(o, Source("c.yaml", i)) for i, o in enumerate(objs)], (pending, Source("p.yaml")))
    plain = [o for o, _ in admitted.objects]
    redactor = Redactor()
    redactor.prepare(plain + [admitted.pending])
    red = [r for r in (redactor.redact(o) for o in plain) if r is not None]
    red_pod = redactor.redact(admitted.pending)
    text = json.dumps(red) + json.dumps(red_pod)
    for secret in ("hunter2", "other-gpu-x7k2p", "train-gpu-q9z4m", "one-gpu", "node-a"):
        assert secret not in text
    for kept in ("gpu.example.com", H100.replace("'", "\\u0027")[:10], "H100", "80Gi"):
        assert kept in text or kept in json.dumps(red, ensure_ascii=True)
    original = verdict(capsys, *stored(tmp_path, "plain", plain, admitted.pending))
    redacted = verdict(capsys, *stored(tmp_path, "red", red, red_pod))
    mapping = redactor.mapping
    assert redacted["result"]["status"] == original["result"]["status"]
    assert back(redacted["result"].get("message", ""), mapping) == original["result"].get("message", "")
    assert [back(json.dumps(e), mapping) for e in redacted["preEnqueue"]] == \
        [json.dumps(e) for e in original["preEnqueue"]]
    assert {mapping.get(n, n): v for n, v in (redacted.get("filter") or {}).items()} == (original.get("filter") or {})
    if not pending_claim:
        assert original["result"]["status"] == "Gated"


def test_references_are_renamed_together():
    objs, pending = cluster(True)
    redactor = Redactor()
    redactor.prepare(objs + [pending])
    red = {(o["kind"], o["metadata"]["name"]): o for o in (redactor.redact(x) for x in objs)}
    red_pod = redactor.redact(pending)
    claim_name = red_pod["status"]["resourceClaimStatuses"][0]["resourceClaimName"]
    claim_obj = red[("ResourceClaim", claim_name)]
    assert claim_obj["metadata"]["ownerReferences"][0]["name"] == red_pod["metadata"]["name"]
    assert claim_obj["metadata"]["annotations"] == {
        "resource.kubernetes.io/pod-claim-name": red_pod["spec"]["resourceClaims"][0]["name"]}
    class_name = claim_obj["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"]
    assert ("DeviceClass", class_name) in red and class_name != "gpu.example.com"
    assert claim_obj["spec"]["devices"]["requests"][0]["exactly"]["selectors"][0]["cel"]["expression"] == H100
    assert "config" not in claim_obj["spec"]["devices"]
    template_name = red_pod["spec"]["resourceClaims"][0]["resourceClaimTemplateName"]
    assert ("ResourceClaimTemplate", template_name) in red
    other = next(o for o in red.values() if o["kind"] == "ResourceClaim" and o.get("status"))
    result = other["status"]["allocation"]["devices"]["results"][0]
    node_token = next(o["metadata"]["name"] for o in red.values() if o["kind"] == "Node"
                      and o["metadata"]["name"] == other["status"]["allocation"]["nodeSelector"]
                      ["nodeSelectorTerms"][0]["matchFields"][0]["values"][0])
    slices = [o for o in red.values() if o["kind"] == "ResourceSlice"]
    [on_node] = [s for s in slices if s["spec"]["nodeName"] == node_token]
    assert result["pool"] == on_node["spec"]["pool"]["name"] == node_token     # the pool was named after its node
    assert result["device"] == on_node["spec"]["devices"][0]["name"] != "gpu-0"
    assert on_node["spec"]["driver"] == result["driver"] == "gpu.example.com"
    assert on_node["spec"]["devices"][0]["attributes"] == {"model": {"string": "H100"}}
    bound = next(o for o in red.values() if o["kind"] == "Pod")
    assert other["status"]["reservedFor"] == [{"resource": "pods", "uid": OTHER_UID, "name": bound["metadata"]["name"]}]
    assert yaml.safe_dump(red_pod)      # plain data

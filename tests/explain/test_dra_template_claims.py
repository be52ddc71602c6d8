"""Claims made from ResourceClaimTemplates, as the resourceclaim controller makes them: only for
pods as people write them (a workload's pods, a Pod manifest without status), one claim per
copy, a note for each, and none when the template is missing."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from kexplain.cli.app import main
from kexplain.explain.batch import explain_batch
from kexplain.explain.inputs import load, load_inputs
from kexplain.explain.request import Request, RunOptions
from kexplain.controllers.resourceclaim import POD_CLAIM_NAME_ANNOTATION, generate_name
from tests.support.copies import copy_names

Obj = dict[str, Any]
V1 = "resource.k8s.io/v1"
NOT_CREATED = "ResourceClaim not created yet"


def cluster() -> list[Obj]:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
            "status": {"capacity": {"cpu": "8", "memory": "16Gi", "pods": "110"}}}
    cls = {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
           "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}}
    devices = [{"name": f"gpu-{i}", "attributes": {"model": {"string": "H100"}}} for i in range(4)]
    slice_ = {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": "node-1-gpu"},
              "spec": {"driver": "gpu.example.com", "nodeName": "node-1", "devices": devices,
                       "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1}}}
    template = {"apiVersion": V1, "kind": "ResourceClaimTemplate", "metadata": {"name": "one-gpu", "namespace": "ml"},
                "spec": {"metadata": {"labels": {"team": "ml"}, "annotations": {"note": "x"}},
                         "spec": {"devices": {"requests": [{"name": "gpu",
                                                            "exactly": {"deviceClassName": "gpu.example.com"}}]}}}}
    return [node, cls, slice_, template]


def pod_spec(template: str = "one-gpu") -> Obj:
    return {"containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}]}


def pod(name: str = "train", template: str = "one-gpu", status: Obj | None = None) -> Obj:
    obj: Obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ml"},
                "spec": pod_spec(template)}
    if status is not None:
        obj["status"] = status
    return obj


def deployment(replicas: int) -> Obj:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "train", "namespace": "ml"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "train"}},
                     "template": {"metadata": {"labels": {"app": "train"}}, "spec": pod_spec()}}}


def write(tmp_path: Path, pods: list[Obj]) -> Request:
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump_all(pods))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(cluster()))
    return Request(str(tmp_path / "pod.yaml"), (str(tmp_path / "cluster.yaml"),))


def claims_of(snapshot) -> dict[str, Obj]:
    return {c["metadata"]["name"]: c for c in snapshot.of_kind("ResourceClaim")}


def test_bare_pod_gets_its_claim(tmp_path):
    inputs = load_inputs(write(tmp_path, [pod()]))
    [entry] = inputs.pod.status["resourceClaimStatuses"]
    assert entry["name"] == "gpu"
    name = entry["resourceClaimName"]
    assert name.startswith("train-gpu-") and len(name) == len("train-gpu-") + 5
    claim = claims_of(inputs.snapshot)[name]
    meta = claim["metadata"]
    assert meta["namespace"] == "ml" and meta["generateName"] == "train-gpu-"
    assert meta["annotations"] == {"note": "x", POD_CLAIM_NAME_ANNOTATION: "gpu"}
    assert meta["labels"] == {"team": "ml"}
    assert meta["ownerReferences"] == [{"apiVersion": "v1", "kind": "Pod", "name": "train", "uid": inputs.pod.uid,
                                        "controller": True, "blockOwnerDeletion": True}]
    assert claim["spec"]["devices"]["requests"][0]["exactly"] == {   # the template as admitted: defaulted
        "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}
    assert any(w.startswith(f"pod ml/train: created ResourceClaim ml/{name} from template one-gpu")
               and "as the resourceclaim controller would" for w in inputs.warnings)
    assert load_inputs(write(tmp_path, [pod()])).pod.status == inputs.pod.status      # the same name every run


def test_cli_schedules_the_bare_pod_and_says_so(tmp_path, capsys):
    req = write(tmp_path, [pod()])
    code = main([req.pod_path, "--nodes", req.node_paths[0], "-o", "json"])
    out, err = capsys.readouterr()
    trace = json.loads(out)
    assert trace["preEnqueue"][1] == {"plugin": "DynamicResources", "code": "Success"}
    assert "created ResourceClaim ml/train-gpu-" in err


def test_pod_with_a_status_is_taken_as_it_is(tmp_path, capsys):
    req = write(tmp_path, [pod(status={"phase": "Pending"})])
    inputs = load_inputs(req)
    assert inputs.pod.status == {"phase": "Pending"} and claims_of(inputs.snapshot) == {}
    main([req.pod_path, "--nodes", req.node_paths[0], "-o", "json"])
    trace = json.loads(capsys.readouterr().out)
    assert trace["result"]["status"] == "Gated"
    assert trace["preEnqueue"][1]["reasons"] == [f'pod "ml/train": {NOT_CREATED}']


def test_missing_template_creates_nothing(tmp_path, capsys):
    req = write(tmp_path, [pod(template="absent")])
    inputs = load_inputs(req)
    assert "resourceClaimStatuses" not in inputs.pod.status and claims_of(inputs.snapshot) == {}
    assert any("no ResourceClaimTemplate ml/absent for its claim 'gpu'" in w and NOT_CREATED in w
               for w in inputs.warnings)
    main([req.pod_path, "--nodes", req.node_paths[0], "-o", "json"])
    trace = json.loads(capsys.readouterr().out)
    assert trace["preEnqueue"][1]["reasons"] == [f'pod "ml/train": {NOT_CREATED}']


def test_workload_pod_gets_its_claim(tmp_path):
    inputs = load_inputs(write(tmp_path, [deployment(1)]))
    [entry] = inputs.pod.status["resourceClaimStatuses"]
    owner = claims_of(inputs.snapshot)[entry["resourceClaimName"]]["metadata"]["ownerReferences"][0]
    assert owner["name"] == inputs.pod.name == copy_names(deployment(1), 1)[0] and owner["uid"] == inputs.pod.uid


def test_each_replica_gets_its_own_claim(tmp_path):
    loaded = load(write(tmp_path, [deployment(3)]))
    attempts = []      # every copy's placement, as it is produced (an outcome keeps only the ones shown)
    [outcome] = explain_batch(loaded.batch, loaded.pool, RunOptions(), sink=attempts.append)
    assert len(attempts) == len(outcome.copies) == 3
    seen = set()
    for attempt in attempts:
        pod_ = attempt.inputs.pod
        [entry] = pod_.status["resourceClaimStatuses"]
        claim = claims_of(attempt.inputs.snapshot)[entry["resourceClaimName"]]
        assert claim["metadata"]["ownerReferences"][0]["uid"] == pod_.uid
        assert claim["metadata"]["generateName"] == f"{pod_.name}-gpu-"
        assert attempt.trace.to_json()["preEnqueue"][1] == {"plugin": "DynamicResources", "code": "Success"}
        seen.add(entry["resourceClaimName"])
    assert len(seen) == 3
    last = attempts[-1].inputs.snapshot
    assert seen <= set(claims_of(last))      # the earlier copies' claims stay in the cluster


def test_long_names_are_cut_in_proportion():
    # `<pod>-<claim>-` is 72 characters: each part keeps 57/72 of its length, and no trailing dash
    assert generate_name("p" * 60, "claim-name") == "p" * 47 + "-" + "claim-n"
    assert generate_name("web", "gpu") == "web-gpu-"

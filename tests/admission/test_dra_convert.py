"""resource.k8s.io/v1beta1 and v1beta2 objects read as kube-apiserver decodes them: defaulted in
their version, converted to the internal (v1) form field by field, validated with the internal
form's field paths; and end to end, DRA cases rewritten at those versions schedule as their v1
originals."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from kexplain.admission import admit
from kexplain.admission.dra_convert import BASIC_DEVICE_FIELDS, REQUEST_BODY_FIELDS, decode
from kexplain.errors import AdmissionRejected, Source
from kexplain.features import DEFAULT, KubeVersion
from tests.support.cli_helpers import explain_json
from tests.support.dra_versions import DRA_KINDS, count_at, objects, rewrite, to_v1beta1, to_v1beta2
from tests.support.paths import DATA

B1 = "resource.k8s.io/v1beta1"
B2 = "resource.k8s.io/v1beta2"
V1 = "resource.k8s.io/v1"
CASES = sorted(p for p in (DATA / "dra-cases").iterdir() if p.is_dir())
SELECTOR = [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]
TOLERATION = {"key": "k", "operator": "Exists", "effect": "NoSchedule"}
NODE_SELECTOR = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}


def claim(*requests: dict, version: str = B1, **extra) -> dict:
    return {"apiVersion": version, "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "default"},
            "spec": {"devices": {"requests": list(requests)}}, **extra}


def resource_slice(*devices: dict, version: str = B1, **spec) -> dict:
    spec = {"driver": "gpu.example.com", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, **spec}
    return {"apiVersion": version, "kind": "ResourceSlice", "metadata": {"name": "s"},
            "spec": {**spec, "devices": list(devices)}}


def converted(obj: dict) -> dict:
    return decode(copy.deepcopy(obj), defaults=False)


def admitted(obj: dict, kube: KubeVersion = DEFAULT) -> dict:
    (out, _), = [(o, s) for o, s in admit([(obj, Source("c.yaml", 1))], None, kube=kube).objects
                 if o["kind"] == obj["kind"]]
    return out


def refusal(obj: dict) -> str:
    with pytest.raises(AdmissionRejected) as info:
        admit([(obj, Source("c.yaml", 1))], None)
    return info.value.message


# -- field by field -------------------------------------------------------------------------------

def test_every_basic_device_field_moves_up():
    basic = {"attributes": {"model": {"string": "H100"}, "cores": {"int": 132}, "ok": {"bool": True},
                            "fw": {"version": "1.2.3"}},
             "capacity": {"memory": {"value": "80Gi", "requestPolicy": {"default": "1Gi"}}},
             "consumesCounters": [{"counterSet": "gpu", "counters": {"memory": {"value": "80Gi"}}}],
             "nodeName": "node-1", "nodeSelector": NODE_SELECTOR, "allNodes": True,
             "taints": [{"key": "k", "value": "v", "effect": "NoSchedule", "timeAdded": "2025-01-01T00:00:00Z"}],
             "bindsToNode": True, "bindingConditions": ["ready"], "bindingFailureConditions": ["failed"],
             "allowMultipleAllocations": True}
    assert set(basic) == set(BASIC_DEVICE_FIELDS)
    got = converted(resource_slice({"name": "gpu-0", "basic": basic}, perDeviceNodeSelection=True))
    assert got["apiVersion"] == V1
    assert got["spec"]["devices"] == [{"name": "gpu-0", **basic}]
    assert got["spec"]["perDeviceNodeSelection"] is True


def test_empty_basic_maps_and_lists_are_unset_and_fields_of_no_basic_device_dropped():
    basic = {"attributes": {}, "capacity": {}, "consumesCounters": [], "taints": [], "bindingConditions": [],
             "name": "not-a-basic-field"}
    got = converted(resource_slice({"name": "gpu-0", "basic": basic}, nodeName="node-1"))
    assert got["spec"]["devices"] == [{"name": "gpu-0", "bindingConditions": []}]
    assert converted(resource_slice({"name": "gpu-0"}, nodeName="node-1"))["spec"]["devices"] == [{"name": "gpu-0"}]


@pytest.mark.parametrize("written, internal", [
    ({"nodeName": "node-1", "allNodes": False}, {"nodeName": "node-1"}),
    ({"nodeName": "", "allNodes": True}, {"allNodes": True}),
    ({"nodeName": "", "nodeSelector": NODE_SELECTOR}, {"nodeSelector": NODE_SELECTOR}),
    ({"perDeviceNodeSelection": False, "sharedCounters": [{"name": "gpu", "counters": {"m": {"value": "1"}}}]},
     {"perDeviceNodeSelection": False, "sharedCounters": [{"name": "gpu", "counters": {"m": {"value": "1"}}}]}),
])
def test_slice_node_name_and_all_nodes_at_their_zero_value_are_unset(written, internal):
    spec = converted(resource_slice(**written))["spec"]
    assert {k: v for k, v in spec.items() if k not in ("driver", "pool", "devices")} == internal
    assert spec["driver"] == "gpu.example.com" and spec["pool"]["name"] == "p"


def test_every_request_body_field_moves_under_exactly():
    body = {"deviceClassName": "gpu.example.com", "selectors": SELECTOR, "allocationMode": "ExactCount", "count": 2,
            "adminAccess": True, "tolerations": [TOLERATION], "capacity": {"requests": {"memory": "10Gi"}}}
    assert set(body) == set(REQUEST_BODY_FIELDS)
    sub = {"name": "small", "deviceClassName": "gpu.example.com", "selectors": SELECTOR, "allocationMode": "All",
           "tolerations": [TOLERATION], "capacity": {"requests": {"memory": "1Gi"}}}
    got = converted(claim({"name": "gpu", **body}, {"name": "any", "firstAvailable": [sub]}))
    assert got["apiVersion"] == V1
    assert got["spec"]["devices"]["requests"] == [{"name": "gpu", "exactly": body},
                                                  {"name": "any", "firstAvailable": [sub]}]


@pytest.mark.parametrize("written, exactly", [
    ({"deviceClassName": "x"}, {"deviceClassName": "x"}),
    ({"selectors": []}, {"selectors": []}),                  # a list, even empty: set
    ({"adminAccess": False}, {"adminAccess": False}),        # a pointer: false is set
    ({"capacity": {}}, {"capacity": {}}),
    ({"tolerations": []}, {}),                               # set, converted to none
    ({"allocationMode": "All"}, {"allocationMode": "All"}),
    ({"count": 3}, {"count": 3}),
    ({"deviceClassName": "", "count": 0, "allocationMode": ""}, None),     # Go's zero values: not set
    ({"selectors": None, "adminAccess": None}, None),
    ({"exactly": {"deviceClassName": "x"}}, None),           # not a v1beta1 field: decoding drops it
])
def test_which_request_fields_make_an_exactly_request(written, exactly):
    (request,) = converted(claim({"name": "r", **written}))["spec"]["devices"]["requests"]
    assert request == ({"name": "r"} if exactly is None else {"name": "r", "exactly": exactly})


def test_status_constraints_config_and_classes_have_the_same_fields():
    status = {"allocation": {"devices": {
        "results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "p", "device": "gpu-0", "adminAccess": True,
                     "tolerations": [TOLERATION], "bindingConditions": ["ready"],
                     "bindingFailureConditions": ["failed"], "shareID": "abc", "consumedCapacity": {"m": "1Gi"}}],
        "config": [{"source": "FromClaim", "requests": ["gpu"], "opaque": {"driver": "gpu.example.com",
                                                                           "parameters": {"a": 1}}}]},
        "nodeSelector": NODE_SELECTOR, "allocationTimestamp": "2025-01-01T00:00:00Z"},
        "reservedFor": [{"resource": "pods", "name": "p", "uid": "u"}],
        "devices": [{"driver": "gpu.example.com", "pool": "p", "device": "gpu-0", "conditions": [],
                     "networkData": {"interfaceName": "eth0", "ips": ["10.0.0.1/24"]}}]}
    devices = {"constraints": [{"requests": ["gpu"], "matchAttribute": "gpu.example.com/model"},
                               {"distinctAttribute": "gpu.example.com/uuid"}],
               "config": [{"requests": ["gpu"], "opaque": {"driver": "gpu.example.com", "parameters": {"b": 2}}}]}
    written = claim({"name": "gpu", "deviceClassName": "gpu.example.com"}, status=copy.deepcopy(status))
    written["spec"]["devices"].update(copy.deepcopy(devices))
    got = converted(written)
    assert got["status"] == status
    assert {k: v for k, v in got["spec"]["devices"].items() if k != "requests"} == devices
    device_class = {"apiVersion": B1, "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
                    "spec": {"selectors": SELECTOR, "config": [{"opaque": {"driver": "d", "parameters": {}}}],
                             "extendedResourceName": "example.com/gpu"}}
    assert converted(device_class) == {**device_class, "apiVersion": V1}


def test_a_template_keeps_its_metadata_and_converts_its_claim_spec():
    template = {"apiVersion": B1, "kind": "ResourceClaimTemplate", "metadata": {"name": "t", "namespace": "ml"},
                "spec": {"metadata": {"labels": {"app": "train"}},
                         "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "x", "count": 2}]}}}}
    got = converted(template)
    assert got["spec"] == {"metadata": {"labels": {"app": "train"}},
                           "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "x",
                                                                                          "count": 2}}]}}}
    assert template["spec"]["spec"]["devices"]["requests"][0]["count"] == 2      # the written object as it was


def test_v1beta2_has_v1_s_fields():
    written = claim({"name": "gpu", "exactly": {"deviceClassName": "x"}}, version=B2)
    assert converted(written) == {**written, "apiVersion": V1}


# -- defaulting in the written version ----------------------------------------------------------------

# The toleration is defaulted (operator Equal), then dropped on create where DRADeviceTaints is off (1.35)
@pytest.mark.parametrize(("minor", "tolerations"), [
    ("1.35", {}), ("1.36", {"tolerations": [{"key": "k", "effect": "NoSchedule", "operator": "Equal"}]})])
def test_v1beta1_defaults_a_request_only_when_it_names_a_class(minor, tolerations):
    got = admitted(claim({"name": "a", "deviceClassName": "x", "tolerations": [{"key": "k", "effect": "NoSchedule"}]},
                         {"name": "b", "deviceClassName": "x", "allocationMode": "All"},
                         {"name": "c", "firstAvailable": [{"name": "s", "deviceClassName": "x"},
                                                          {"name": "t", "deviceClassName": "x", "count": 4}]}),
                   KubeVersion(minor))
    a, b, c = got["spec"]["devices"]["requests"]
    assert a == {"name": "a", "exactly": {"deviceClassName": "x", "allocationMode": "ExactCount", "count": 1,
                                          **tolerations}}
    assert b == {"name": "b", "exactly": {"deviceClassName": "x", "allocationMode": "All"}}
    assert [(s["allocationMode"], s["count"]) for s in c["firstAvailable"]] == [("ExactCount", 1), ("ExactCount", 4)]


def test_a_v1beta1_request_without_class_is_not_defaulted_and_validation_says_so_at_internal_paths():
    assert refusal(claim({"name": "a", "count": 2})) == (
        'ResourceClaim.resource.k8s.io "c" is invalid: [spec.devices.requests[0].exactly.deviceClassName: Required '
        'value, spec.devices.requests[0].exactly.allocationMode: Unsupported value: "": supported values: "All", '
        '"ExactCount"]')
    v1 = claim({"name": "a", "exactly": {"count": 2}}, version=V1)         # v1 defaults it: one error
    assert refusal(v1) == ('ResourceClaim.resource.k8s.io "c" is invalid: '
                           "spec.devices.requests[0].exactly.deviceClassName: Required value")


def test_validation_names_internal_fields():
    assert refusal(claim({"name": "a", "deviceClassName": "x", "count": -1})).endswith(
        "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero")
    assert refusal(claim({"name": "a"})).endswith(
        "spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required")
    bad = resource_slice({"name": "gpu-0", "basic": {"attributes": {"bad name": {"string": "x"}}}}, nodeName="n")
    assert 'spec.devices[0].attributes: Invalid value: "bad name"' in refusal(bad)


def test_a_slice_valid_in_v1beta1_is_not_refused_for_its_zero_values():
    written = resource_slice({"name": "gpu-0", "basic": {}}, nodeName="node-1", allNodes=False)
    assert admitted(written)["spec"]["nodeName"] == "node-1"
    v1 = resource_slice({"name": "gpu-0"}, version=V1, nodeName="node-1", allNodes=False)
    assert "spec.allNodes: Invalid value: false: must be either unset or set to true" in refusal(v1)


def test_a_stored_v1beta1_object_is_converted_not_defaulted_nor_changed():
    written = claim({"name": "gpu", "deviceClassName": "x"})
    written["metadata"]["resourceVersion"] = "7"
    before = copy.deepcopy(written)
    got = admitted(written)
    assert got["spec"]["devices"]["requests"] == [{"name": "gpu", "exactly": {"deviceClassName": "x"}}]
    assert written == before


# -- the cases, at every version ------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_each_dra_object_of_the_cases_converts_back_to_itself(case: Path):
    written = [o for f in ("pod.yaml", "cluster.yaml") for o in objects((case / f).read_text())
               if o.get("kind") in DRA_KINDS]
    assert written
    for obj in written:
        want = decode(copy.deepcopy(obj), defaults=True)
        assert decode(to_v1beta1(obj), defaults=True) == want
        assert decode(to_v1beta2(obj), defaults=True) == want


def _case_args(case: Path) -> list[str]:
    args = [str(case / "pod.yaml"), "--nodes", str(case / "cluster.yaml")]
    if (case / "scheduler-config.yaml").exists():
        args += ["--config", str(case / "scheduler-config.yaml")]
    if (case / "params.yaml").exists():
        args += ["--start-index", (case / "params.yaml").read_text().split(":", 1)[1].strip()]
    return args


@pytest.mark.parametrize("version, convert", [(B1, to_v1beta1), (B2, to_v1beta2)], ids=["v1beta1", "v1beta2"])
@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_a_case_rewritten_at_a_beta_version_schedules_as_its_v1_original(capsys, tmp_path, case, version, convert):
    code, original, err = explain_json(capsys, *_case_args(case))
    assert err == ""
    for f in case.iterdir():
        text = f.read_text()
        (tmp_path / f.name).write_text(rewrite(text, convert) if f.name in ("pod.yaml", "cluster.yaml") else text)
    objects_at = count_at((tmp_path / "cluster.yaml").read_text(), version)
    assert objects_at > 0
    got_code, got, got_err = explain_json(capsys, *_case_args(tmp_path))
    assert (got_code, json.loads(got)) == (code, json.loads(original))
    (warning,) = got_err.splitlines()
    assert warning.startswith(f"warning: {tmp_path / 'cluster.yaml'}: document ")
    # the default version's words (the beta versions are off by default in every minor)
    assert warning.endswith(f"apiVersion: {version} is off by default in Kubernetes {DEFAULT.minor}: kube-apiserver serves it "
                            f"only with --runtime-config={version}=true (use {V1}); read as if enabled (and "
                            f"{objects_at - 1} other objects of this version)")

"""DRA objects through kube-apiserver's create path: defaulting, dropped fields of disabled gates,
validation with its messages, and the admin-access namespace rule."""
from __future__ import annotations

import copy

import pytest

from kexplain.admission import admit
from kexplain.admission.pipeline import Admitted
from kexplain.errors import AdmissionRejected, InputError, Source
from kexplain.features import DEFAULT, KubeVersion

V1 = "resource.k8s.io/v1"


def device_class(name: str = "gpu.example.com", *selectors: str, **spec) -> dict:
    if selectors:
        spec["selectors"] = [{"cel": {"expression": e}} for e in selectors]
    return {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def claim(name: str = "gpu", *requests: dict, namespace: str | None = "default", **devices) -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    reqs = list(requests) or [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]
    return {"apiVersion": V1, "kind": "ResourceClaim", "metadata": meta,
            "spec": {"devices": {"requests": reqs, **devices}}}


def template(name: str = "gpu", *requests: dict, namespace: str = "default") -> dict:
    body = claim(name, *requests)
    return {"apiVersion": V1, "kind": "ResourceClaimTemplate", "metadata": {"name": name, "namespace": namespace},
            "spec": {"spec": body["spec"]}}


def device(name: str = "gpu-0", **fields) -> dict:
    return {"name": name, "attributes": {"model": {"string": "H100"}}, "capacity": {"memory": {"value": "80Gi"}},
            **fields}


def resource_slice(name: str = "node-1-gpu", *devices: dict, **spec) -> dict:
    spec.setdefault("driver", "gpu.example.com")
    spec.setdefault("pool", {"name": "node-1", "generation": 1, "resourceSliceCount": 1})
    if "allNodes" not in spec and "nodeSelector" not in spec:
        spec.setdefault("nodeName", "node-1")
    spec["devices"] = list(devices) or [device()]
    return {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def namespace(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def run(*objs: dict, kube: KubeVersion = DEFAULT) -> Admitted:
    return admit([(o, Source("cluster.yaml", i + 1)) for i, o in enumerate(objs)], None, kube=kube)


def admitted(obj: dict, *context: dict, kube: KubeVersion = DEFAULT) -> dict:
    out = run(*context, obj, kube=kube)
    return next(o for o, _ in out.objects if o.get("kind") == obj["kind"]
                and o["metadata"]["name"] == obj["metadata"]["name"])


def rejection(*objs: dict) -> str:
    with pytest.raises(AdmissionRejected) as info:
        run(*objs)
    return info.value.message


# -- defaulting and dropped fields ----------------------------------------------------------------

def test_requests_default_to_one_device_exact_count():
    c = admitted(claim("c", {"name": "a", "exactly": {"deviceClassName": "x"}},
                       {"name": "b", "exactly": {"deviceClassName": "x", "allocationMode": "All"}},
                       {"name": "c", "exactly": {"deviceClassName": "x", "count": 0}},
                       {"name": "d", "firstAvailable": [{"name": "s", "deviceClassName": "x"},
                                                        {"name": "t", "deviceClassName": "x", "count": 3}]}))
    a, b, cc, d = c["spec"]["devices"]["requests"]
    assert a["exactly"] == {"deviceClassName": "x", "allocationMode": "ExactCount", "count": 1}
    assert b["exactly"] == {"deviceClassName": "x", "allocationMode": "All"}
    assert cc["exactly"]["count"] == 1
    assert [(s["allocationMode"], s["count"]) for s in d["firstAvailable"]] == [("ExactCount", 1), ("ExactCount", 3)]
    assert c["metadata"]["namespace"] == "default"


def test_template_spec_is_defaulted():
    t = admitted(template("t"))
    assert t["spec"]["spec"]["devices"]["requests"][0]["exactly"] == {
        "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}


GATED_REQUEST = {"name": "gpu", "exactly": {"deviceClassName": "x", "tolerations": [{"key": "k", "operator": "Exists"}],
                                            "capacity": {"requests": {"memory": "1Gi"}}, "adminAccess": False}}
GATED_CONSTRAINTS = [{"matchAttribute": "x.io/numa", "distinctAttribute": "x.io/a"}]
GATED_DEVICE = {"taints": [{"key": "k", "effect": "NoSchedule"}], "consumesCounters": [{"counterSet": "a", "counters": {}}],
                "bindingConditions": ["ready"], "allowMultipleAllocations": True}


def test_fields_of_disabled_gates_are_dropped():
    """1.35, where device taints, consumable capacity, partitionable devices, binding conditions
    and extended resources are off by default."""
    v1_35 = KubeVersion("1.35")
    c = admitted(claim("c", GATED_REQUEST, constraints=GATED_CONSTRAINTS), kube=v1_35)
    assert c["spec"]["devices"]["requests"][0]["exactly"] == {
        "deviceClassName": "x", "adminAccess": False, "allocationMode": "ExactCount", "count": 1}
    assert c["spec"]["devices"]["constraints"] == [{"matchAttribute": "x.io/numa"}]
    s = admitted(resource_slice("s", device(**GATED_DEVICE)), kube=v1_35)
    assert set(s["spec"]["devices"][0]) == {"name", "attributes", "capacity"}
    dc = admitted(device_class("dc", extendedResourceName="example.com/gpu"), kube=v1_35)
    assert "extendedResourceName" not in dc["spec"]


def test_fields_of_gates_on_by_default_in_136_are_kept():
    """1.36 turns those gates on: nothing is dropped (and a constraint may hold both attributes:
    the validation reads matchAttribute first)."""
    kube = KubeVersion("1.36")
    c = admitted(claim("c", GATED_REQUEST, constraints=GATED_CONSTRAINTS), kube=kube)
    assert c["spec"]["devices"]["requests"][0]["exactly"] == {
        **GATED_REQUEST["exactly"], "allocationMode": "ExactCount", "count": 1}
    assert c["spec"]["devices"]["constraints"] == GATED_CONSTRAINTS
    s = admitted(resource_slice("s", device(**GATED_DEVICE)), kube=kube)
    assert set(s["spec"]["devices"][0]) == {"name", "attributes", "capacity", *GATED_DEVICE}
    dc = admitted(device_class("dc", extendedResourceName="example.com/gpu"), kube=kube)
    assert dc["spec"]["extendedResourceName"] == "example.com/gpu"


def test_cluster_scoped_kinds_lose_their_namespace():
    dc = device_class("dc")
    dc["metadata"]["namespace"] = "team"
    assert "namespace" not in admitted(dc)["metadata"]


def test_inputs_are_not_changed():
    c = claim("c")
    before = copy.deepcopy(c)
    run(c)
    assert c == before


def test_stored_objects_are_not_admitted():
    c = claim("c", {"name": "gpu", "exactly": {"deviceClassName": "x", "count": 0}})
    c["metadata"]["resourceVersion"] = "42"
    assert admitted(c)["spec"]["devices"]["requests"][0]["exactly"] == {"deviceClassName": "x", "count": 0}


def test_claim_namespace_is_created():
    out = run(claim("c", namespace="team"))
    assert any(o["kind"] == "Namespace" and o["metadata"]["name"] == "team" for o, _ in out.objects)


def test_beta_versions_are_read_as_v1_and_alpha_ones_refused():
    beta2 = claim("c")
    beta2["apiVersion"] = "resource.k8s.io/v1beta2"
    got = admitted(beta2)
    assert got["apiVersion"] == V1 and got["spec"]["devices"]["requests"][0]["exactly"]["count"] == 1
    beta1 = claim("c", {"name": "gpu", "deviceClassName": "gpu.example.com"})
    beta1["apiVersion"] = "resource.k8s.io/v1beta1"
    assert admitted(beta1)["spec"]["devices"]["requests"] == [
        {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}}]
    alpha = claim("c")
    alpha["apiVersion"] = "resource.k8s.io/v1alpha3"
    with pytest.raises(InputError) as info:
        run(alpha)
    assert "resource.k8s.io/v1alpha3 ResourceClaim is not read: write it as resource.k8s.io/v1" in info.value.message


def test_duplicate_names_are_refused():
    assert rejection(claim("c"), claim("c")) == 'resourceclaims "c" already exists'
    assert rejection(device_class("d"), device_class("d")) == 'deviceclasses "d" already exists'
    run(claim("c", namespace="a"), claim("c", namespace="b"))


# -- validation -----------------------------------------------------------------------------------
CLAIM = 'ResourceClaim.resource.k8s.io "c" is invalid: '


@pytest.mark.parametrize("request_, message", [
    ({"name": "gpu"}, "spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` "
                      "is required"),
    ({"name": "gpu", "exactly": {"deviceClassName": "x"}, "firstAvailable": [{"name": "a", "deviceClassName": "x"}]},
     "spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, "
     "but multiple fields are set"),
    ({"name": "gpu", "exactly": {}}, "spec.devices.requests[0].exactly.deviceClassName: Required value"),
    ({"name": "gpu", "exactly": {"deviceClassName": "x", "count": -1}},
     "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"),
    ({"name": "gpu", "exactly": {"deviceClassName": "x", "allocationMode": "All", "count": 2}},
     "spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'"),
    ({"name": "gpu", "exactly": {"deviceClassName": "x", "allocationMode": "Some"}},
     'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some": supported values: "All", '
     '"ExactCount"'),
    ({"name": "GPU", "exactly": {"deviceClassName": "x"}},
     'spec.devices.requests[0].name: Invalid value: "GPU": a lowercase RFC 1123 label must consist of lower case '
     "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
     "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
    ({"name": "gpu", "exactly": {"deviceClassName": "x", "selectors": [{}]}},
     "spec.devices.requests[0].exactly.selectors[0].cel: Required value"),
    ({"name": "gpu", "exactly": {"deviceClassName": "x", "selectors": [{"cel": {"expression": "device.driver"}}]}},
     'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "device.driver": must evaluate '
     "to bool or the unknown type, not string"),
])
def test_request_messages(request_, message):
    assert rejection(claim("c", request_)) == CLAIM + message


def test_selector_that_does_not_compile():
    expr = "device.driverr == 'x'"
    message = rejection(claim("c", {"name": "gpu", "exactly": {"deviceClassName": "x",
                                                               "selectors": [{"cel": {"expression": expr}}]}}))
    assert message.startswith(CLAIM + "spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "
                              "\"device.driverr == 'x'\": compilation failed: ERROR: <input>:1:7: ")
    long_expr = "true && " * 1300 + "true"
    assert rejection(device_class("d", long_expr)) == (
        'DeviceClass.resource.k8s.io "d" is invalid: spec.selectors[0].cel.expression: Too long: may not be more '
        "than 10240 bytes")


def test_first_available_rules():
    subs = [{"name": f"s{i}", "deviceClassName": "x"} for i in range(9)]
    assert rejection(claim("c", {"name": "gpu", "firstAvailable": subs})) == (
        CLAIM + "spec.devices.requests[0].firstAvailable: Too many: 9: must have at most 8 items")
    dup = [{"name": "s", "deviceClassName": "x"}, {"name": "s", "deviceClassName": "x"}]
    assert rejection(claim("c", {"name": "gpu", "firstAvailable": dup})) == (
        CLAIM + 'spec.devices.requests[0].firstAvailable[1]: Duplicate value: "s"')


def test_request_limits_and_duplicates():
    many = [{"name": f"r{i}", "exactly": {"deviceClassName": "x"}} for i in range(33)]
    assert rejection(claim("c", *many)) == CLAIM + "spec.devices.requests: Too many: 33: must have at most 32 items"
    two = [{"name": "r", "exactly": {"deviceClassName": "x"}}] * 2
    assert rejection(claim("c", *two)) == CLAIM + 'spec.devices.requests[1]: Duplicate value: "r"'


def test_constraints_and_config_name_requests():
    ref = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
    assert rejection(claim("c", constraints=[{"requests": ["nope"], "matchAttribute": "gpu.example.com/numa"}])) == (
        CLAIM + f'spec.devices.constraints[0].requests[0]: Invalid value: "nope": {ref}')
    assert rejection(claim("c", constraints=[{}])) == CLAIM + "spec.devices.constraints[0].matchAttribute: Required value"
    assert rejection(claim("c", constraints=[{"matchAttribute": "numa"}])) == (
        CLAIM + 'spec.devices.constraints[0].matchAttribute: Invalid value: "numa": a fully qualified name must be a '
        "domain and a name separated by a slash")
    sub = {"name": "gpu", "firstAvailable": [{"name": "big", "deviceClassName": "x"}]}
    run(claim("c", sub, constraints=[{"requests": ["gpu/big"], "matchAttribute": "gpu.example.com/numa"}]))
    assert rejection(claim("c", config=[{"requests": ["gpu"]}])) == CLAIM + "spec.devices.config[0].opaque: Required value"
    assert rejection(claim("c", config=[{"opaque": {"driver": "gpu.example.com"}}])) == (
        CLAIM + "spec.devices.config[0].opaque.parameters: Required value")


def test_claim_status_is_checked_as_a_status_update():
    c = claim("c")
    c["status"] = {"reservedFor": [{"resource": "pods", "name": "p", "uid": "1"}]}
    assert rejection(c) == CLAIM + "status.reservedFor: Forbidden: may not be specified when `allocated` is not set"
    c["status"]["allocation"] = {"devices": {"results": [{"request": "other", "driver": "gpu.example.com",
                                                          "pool": "node-1", "device": "gpu-0"}]}}
    assert rejection(c) == CLAIM + ('status.allocation.devices.results[0].request: Invalid value: "other": must be the '
                                    "name of a request in the claim or the name of a request and a subrequest "
                                    "separated by '/'")
    c["status"]["allocation"]["devices"]["results"][0]["request"] = "gpu"
    c["status"]["reservedFor"].append({"resource": "pods", "name": "q", "uid": "1"})
    assert rejection(c) == CLAIM + 'status.reservedFor[1]: Duplicate value: "1"'
    c["status"]["reservedFor"].pop()
    run(c)


SLICE = 'ResourceSlice.resource.k8s.io "s" is invalid: '


def test_slice_messages():
    assert rejection(resource_slice("s", nodeName="node-1", allNodes=True)) == SLICE + (
        'spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, '
        "`perDeviceNodeSelection` is required, but multiple fields are set")
    only_per_device = resource_slice("s", perDeviceNodeSelection=True, allNodes=True)
    del only_per_device["spec"]["allNodes"]      # perDeviceNodeSelection is dropped: nothing is left
    assert rejection(only_per_device) == SLICE + (
        "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` "
        "is required")
    assert rejection(resource_slice("s", pool={"name": "p", "resourceSliceCount": 0})) == SLICE + (
        "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero")
    assert rejection(resource_slice("s", device(attributes={"v": {"version": "1.2"}}))) == SLICE + (
        'spec.devices[0].attributes[v].version: Invalid value: "1.2": must be a string compatible with semver.org '
        "spec 2.0.0")
    assert rejection(resource_slice("s", device(attributes={"a": {"int": 1, "bool": True}}))) == SLICE + (
        'spec.devices[0].attributes[a]: Invalid value: {"int":1,"bool":true}: exactly one value must be specified')
    assert rejection(resource_slice("s", device(attributes={"a": {"string": "x" * 65}}))) == SLICE + (
        "spec.devices[0].attributes[a].string: Too long: may not be more than 64 bytes")
    many = device(attributes={f"a{i}": {"int": i} for i in range(30)}, capacity={f"c{i}": {"value": "1"} for i in range(3)})
    assert rejection(resource_slice("s", many)) == SLICE + (
        "spec.devices[0]: Invalid value: 33: the total number of attributes and capacities must not exceed 32")
    assert rejection(resource_slice("s", *[device(f"d{i}") for i in range(129)])) == SLICE + (
        "spec.devices: Too many: 129: must have at most 128 items")
    assert rejection(resource_slice("s", device("d"), device("d"))) == SLICE + (
        'spec.devices[1]: Duplicate value: "d"')
    assert rejection(resource_slice("s", driver="")) == SLICE + (
        'spec.driver: Required value, spec.driver: Invalid value: "": a lowercase RFC 1123 subdomain must consist of '
        "lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')").replace(
        "spec.driver: Required value, ", "[spec.driver: Required value, ") + "]"


def test_slice_with_node_selector_or_all_nodes():
    term = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}
    run(resource_slice("a", allNodes=True), resource_slice("b", nodeSelector=term))
    two = {"nodeSelectorTerms": term["nodeSelectorTerms"] * 2}
    assert rejection(resource_slice("s", nodeSelector=two)).startswith(
        SLICE + "spec.nodeSelector.nodeSelectorTerms: Invalid value: [{")


def test_template_and_class_names():
    assert rejection(template("Bad")).startswith('ResourceClaimTemplate.resource.k8s.io "Bad" is invalid: '
                                                 'metadata.name: Invalid value: "Bad"')
    assert rejection(device_class("d", "device.driver == 1")).startswith(
        'DeviceClass.resource.k8s.io "d" is invalid: spec.selectors[0].cel.expression: Invalid value: '
        '"device.driver == 1": compilation failed: ERROR: <input>:1:15: found no matching overload for '
        "'_==_' applied to '(string, int)'")


# -- admin access ---------------------------------------------------------------------------------
ADMIN = {"name": "gpu", "exactly": {"deviceClassName": "x", "adminAccess": True, "allocationMode": "All"}}
FORBIDDEN = ("spec.devices.requests[0].adminAccess: Forbidden: admin access to devices requires the "
             "`resource.kubernetes.io/admin-access: true` label on the containing namespace")


def test_admin_access_needs_the_namespace_label():
    assert rejection(namespace("ops"), claim("c", ADMIN, namespace="ops")) == (
        f'ResourceClaim.resource.k8s.io "c" is invalid: {FORBIDDEN}')
    assert rejection(template("t", ADMIN, namespace="ops")) == (
        f'ResourceClaimTemplate.resource.k8s.io "t" is invalid: {FORBIDDEN}')
    labelled = namespace("ops", **{"resource.kubernetes.io/admin-access": "true"})
    run(labelled, claim("c", ADMIN, namespace="ops"), template("t", ADMIN, namespace="ops"))


def test_admin_access_comes_before_the_other_errors():
    bad = {"name": "gpu", "exactly": {"deviceClassName": "x", "adminAccess": True, "count": -2}}
    assert rejection(claim("c", bad)) == (
        f"{CLAIM}[{FORBIDDEN}, spec.devices.requests[0].exactly.count: Invalid value: -2: must be greater than zero]")

"""Live reading of the DRA kinds against the recorded API server stand-in: resource.k8s.io/v1,
v1beta2 when v1 is not served, nothing (and no error) when neither is; RBAC grants them."""
from __future__ import annotations

import copy

import pytest
import yaml

from kexplain.load.live import RESOURCES, ClusterReader, connect
from tests.support.live_server import RecordedApiServer, write_kubeconfig
from tests.support.paths import ROOT

TOKEN = "t0ken-DO-NOT-PRINT"
DRA = [r for r in RESOURCES if r.group == "resource.k8s.io"]
CLASS = {"metadata": {"name": "gpu.example.com", "resourceVersion": "7", "uid": "u1",
                      "managedFields": [{"manager": "kubectl"}]},
         "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}}
CLAIM = {"metadata": {"name": "train-gpu-abcde", "namespace": "ml", "resourceVersion": "8", "uid": "u2"},
         "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
             "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}}]}}}


@pytest.fixture(autouse=True)
def isolated(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)


def collection(kind: str, version: str, *items: dict) -> dict:
    return {"kind": f"{kind}List", "apiVersion": f"resource.k8s.io/{version}",
            "metadata": {"resourceVersion": "9"}, "items": [copy.deepcopy(i) for i in items]}


def read(api: RecordedApiServer, tmp_path) -> list[dict]:
    conn = connect(str(write_kubeconfig(tmp_path / "kubeconfig", api.url, token=TOKEN)))
    return [o for o, _ in ClusterReader(conn).read_cluster()]


def test_the_four_kinds_are_listed_at_v1(tmp_path):
    with RecordedApiServer(token=TOKEN) as api:
        api.collections["/apis/resource.k8s.io/v1/deviceclasses"] = collection("DeviceClass", "v1", CLASS)
        api.collections["/apis/resource.k8s.io/v1/resourceclaims"] = collection("ResourceClaim", "v1", CLAIM)
        objs = read(api, tmp_path)
        asked = api.paths()
    got = [o for o in objs if o["apiVersion"].startswith("resource.k8s.io/")]
    assert [(o["kind"], o["apiVersion"], o["metadata"]["name"]) for o in got] == [
        ("DeviceClass", "resource.k8s.io/v1", "gpu.example.com"),
        ("ResourceClaim", "resource.k8s.io/v1", "train-gpu-abcde")]
    assert "managedFields" not in got[0]["metadata"] and got[0]["metadata"]["resourceVersion"] == "7"
    assert {r.path for r in DRA} <= set(asked)
    assert not any("v1beta2" in p for p in asked)


def test_v1beta2_is_read_when_v1_is_not_served(tmp_path):
    with RecordedApiServer(token=TOKEN) as api:
        for res in DRA:
            del api.collections[res.path]
        api.collections["/apis/resource.k8s.io/v1beta2/resourceclaims"] = collection("ResourceClaim", "v1beta2", CLAIM)
        objs = read(api, tmp_path)
        asked = api.paths()
    got = [o for o in objs if o["apiVersion"].startswith("resource.k8s.io/")]
    assert [(o["kind"], o["apiVersion"]) for o in got] == [("ResourceClaim", "resource.k8s.io/v1beta2")]
    assert "/apis/resource.k8s.io/v1beta2/deviceclasses" in asked
    assert any(o["kind"] == "Node" for o in objs)         # the rest is read as before


def test_a_cluster_without_dra_has_no_such_objects(tmp_path):
    with RecordedApiServer(token=TOKEN) as api:
        for res in DRA:
            del api.collections[res.path]
        objs = read(api, tmp_path)
        assert api.methods == {"GET"}
    assert not any(o["kind"] in {r.kind for r in DRA} for o in objs)
    assert any(o["kind"] == "Pod" for o in objs)


def test_forbidden_dra_list_names_the_permission(tmp_path):
    from kexplain.load.live import LiveError
    with RecordedApiServer(token=TOKEN) as api:
        api.faults.forbidden["/apis/resource.k8s.io/v1/resourceslices"] = "forbidden-list-csinodes.json"
        with pytest.raises(LiveError) as info:
            read(api, tmp_path)
    assert 'needs "list" on resource "resourceslices" in API group "resource.k8s.io"' in info.value.message


def test_rbac_grants_get_and_list_on_the_dra_kinds():
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "rbac.yaml").read_text()))
    role = next(d for d in docs if d and d["kind"] == "ClusterRole")
    rule = next(r for r in role["rules"] if r["apiGroups"] == ["resource.k8s.io"])
    assert sorted(rule["resources"]) == sorted(r.plural for r in DRA) and sorted(rule["verbs"]) == ["get", "list"]


def test_v1beta1_is_read_when_neither_v1_nor_v1beta2_is_served_and_converted_as_stored(tmp_path):
    from kexplain.admission import admit
    from kexplain.errors import Source
    beta = copy.deepcopy(CLAIM)
    beta["spec"]["devices"]["requests"] = [{"name": "gpu", "deviceClassName": "gpu.example.com",
                                            "allocationMode": "ExactCount", "count": 1}]
    with RecordedApiServer(token=TOKEN) as api:
        for res in DRA:
            del api.collections[res.path]
        api.collections["/apis/resource.k8s.io/v1beta1/resourceclaims"] = collection("ResourceClaim", "v1beta1", beta)
        objs = read(api, tmp_path)
        asked = api.paths()
    [got] = [o for o in objs if o["apiVersion"].startswith("resource.k8s.io/")]
    assert (got["kind"], got["apiVersion"]) == ("ResourceClaim", "resource.k8s.io/v1beta1")
    assert asked.index("/apis/resource.k8s.io/v1beta2/resourceclaims") < \
        asked.index("/apis/resource.k8s.io/v1beta1/resourceclaims")
    [(claim, _)] = admit([(got, Source("live"))], None, stored=True).objects
    assert claim["apiVersion"] == "resource.k8s.io/v1"
    assert claim["spec"]["devices"]["requests"] == CLAIM["spec"]["devices"]["requests"]

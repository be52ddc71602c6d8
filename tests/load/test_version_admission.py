"""`Request.kube` reaches admission through loading: the POD file and the cluster are checked and
admitted by that minor's API server (what it serves, drops and refuses), for one pod (`load`) and
for a pool (`load_pool`, `inputs_for`, `Pool.extended`)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kexplain.errors import AdmissionRejected, Source
from kexplain.explain.inputs import inputs_for, load, load_pool
from kexplain.explain.request import Request
from kexplain.features import KubeVersion

NODE = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1", "topology.kubernetes.io/zone": "za"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": {}}
TEMPLATE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "gpu", "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu"}}]}}}}
WITH_CLAIM = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train"},
              "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu"}],
                       "containers": [{"name": "c", "image": "trainer", "resources": {"claims": [{"name": "gpu"}]}}]}}
BOUND = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "cache", "labels": {"topology.kubernetes.io/zone": "old"}},
         "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "redis"}]}}


def _write(tmp_path: Path, name: str, *docs: dict) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def test_1_33_skips_the_dra_objects_it_does_not_serve_and_drops_the_pods_claims(tmp_path):
    pod = _write(tmp_path, "pod.yaml", WITH_CLAIM)
    cluster = _write(tmp_path, "cluster.yaml", NODE, CLASS, TEMPLATE)
    old = load(Request(pod_path=pod, node_paths=(cluster,), kube=KubeVersion("1.33"))).single
    assert old is not None
    assert "resourceClaims" not in old.pod.spec
    assert old.snapshot.of_kind("DeviceClass") == [] and old.snapshot.of_kind("ResourceClaimTemplate") == []
    assert sum("Kubernetes 1.33 does not serve it" in w for w in old.warnings) == 2
    new = load(Request(pod_path=pod, node_paths=(cluster,), kube=KubeVersion("1.34"))).single
    assert new is not None and new.pod.spec["resourceClaims"] == WITH_CLAIM["spec"]["resourceClaims"]
    assert [c["metadata"]["name"] for c in new.snapshot.of_kind("DeviceClass")] == ["gpu"]


@pytest.mark.parametrize("minor,zone", [("1.34", "old"), ("1.35", "za")])
def test_a_pool_admits_its_bound_pods_as_its_version_does(tmp_path, minor, zone):
    pool = load_pool((_write(tmp_path, "cluster.yaml", NODE, BOUND),), kube=KubeVersion(minor))
    assert pool.kube.minor == minor
    (cache,) = [p for p in pool.snapshot.get("n1").pods if p.name == "cache"]
    assert cache.labels["topology.kubernetes.io/zone"] == zone
    extended = pool.extended([({**BOUND, "metadata": {**BOUND["metadata"], "name": "cache-2"}}, Source("f.yaml"))])
    (added,) = [p for p in extended.snapshot.get("n1").pods if p.name == "cache-2"]
    assert added.labels["topology.kubernetes.io/zone"] == zone


def test_a_pending_pod_against_a_pool_is_admitted_by_the_pools_version(tmp_path):
    pending = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
               "spec": {"hostNetwork": True, "hostUsers": False, "containers": [{"name": "c", "image": "x"}]}}
    for minor, text in (("1.33", "`pod.Spec.HostUsers`"), ("1.36", "`hostUsers`")):
        pool = load_pool((_write(tmp_path, "cluster.yaml", NODE),), kube=KubeVersion(minor))
        with pytest.raises(AdmissionRejected) as info:
            inputs_for(pending, Source("p.yaml"), pool)
        assert info.value.message == f'Pod "p" is invalid: spec.hostNetwork: Forbidden: when {text} is false'

"""A pending pod named as a pod of the cluster is refused, whatever form the cluster's pods
take (YAML manifests, a stored JSON List whose bound pods are read as views), and only such a
pod: the refusal names the first repeat, in the pods' order."""
from __future__ import annotations

import json

import pytest

from kexplain.autoscaler.cloudprovider import Discovery
from tests.support.ca_loop import ca_loop
from kexplain.errors import AdmissionRejected
from kexplain.features import KubeVersion

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "resourceVersion": "1", "labels": {
    "kubernetes.io/hostname": "n1"}}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                                                 "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def bound(name: str, namespace: str | None) -> dict:
    meta = {"name": name, "resourceVersion": "2"}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x"}]},
            "status": {"phase": "Running"}}


def pending(name: str, namespace: str | None = None) -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}


def run(tmp_path, pods: list[dict], cluster: list[dict]):
    (tmp_path / "cluster.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": cluster}))
    (tmp_path / "pods.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": pods}))
    (tmp_path / "groups.yaml").write_text("nodeGroups: []\n")
    return ca_loop(str(tmp_path / "pods.json"), (str(tmp_path / "cluster.json"),),
                     Discovery.from_file(str(tmp_path / "groups.yaml")), None, KubeVersion(),
                     max_bytes=1 << 20, max_objects=1000)


@pytest.mark.parametrize("namespace", [None, "default"])
def test_a_pending_pod_named_as_a_bound_one_is_refused(tmp_path, namespace):
    with pytest.raises(AdmissionRejected, match='pods "web" already exists'):
        run(tmp_path, [pending("ok"), pending("web", namespace)], [NODE, bound("api", None), bound("web", namespace)])


def test_the_first_repeat_in_the_pods_order_is_named(tmp_path):
    with pytest.raises(AdmissionRejected, match='pods "b" already exists'):
        run(tmp_path, [pending("b"), pending("a")], [NODE, bound("a", None), bound("b", None)])


def test_a_name_in_another_namespace_is_no_repeat(tmp_path):
    loop = run(tmp_path, [pending("web", "team-a")], [NODE, bound("web", "team-b"), bound("web", None)])
    assert [p.name for p in loop.pending] == ["web"]

"""ClearTPURequests (utils/tpu, CA's first pod list processor): CA's loop takes each listed pod whose
containers request a cloud-tpus.google.com/* resource without those requests (its init containers'
and its limits stay), so a TPU pod fits the free room of a node that has no TPU at all, while the
scheduler's own verdict keeps the request."""
from __future__ import annotations

import json

import yaml

from kexplain.autoscaler.tpu import clear_tpu_request, clear_tpu_requests, has_tpu_request
from kexplain.cli.app import main
from kexplain.model.pod import PodInfo
from tests.support.cli_helpers import TestEnvironment

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"pool": "small"}},
        "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
GROUPS = {"nodeGroups": [{"name": "small", "minSize": 0, "maxSize": 5, "nodeSelector": {"pool": "small"}}]}
TPU = "cloud-tpus.google.com/v3"


def _pod(name: str = "trainer", init: bool = False) -> dict:
    tpu = {"requests": {"cpu": "1", TPU: "8"}, "limits": {TPU: "8"}}
    spec: dict = {"containers": [{"name": "c", "image": "jax", "resources": tpu if not init else {
        "requests": {"cpu": "1"}}}]}
    if init:
        spec["initContainers"] = [{"name": "warm", "image": "jax", "resources": tpu}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def _autoscale(tmp_path, *pods: dict) -> dict:
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(pods))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump(NODE))
    (tmp_path / "groups.yaml").write_text(yaml.safe_dump(GROUPS))
    env = TestEnvironment()
    code = main(["autoscale", str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "cluster.yaml"),
                 "--node-groups", str(tmp_path / "groups.yaml"), "-o", "json"], env)
    assert code in (0, 1), env.err
    return json.loads(env.out)


def test_a_tpu_pod_fits_the_free_room_once_its_requests_are_cleared(tmp_path) -> None:
    doc = _autoscale(tmp_path, _pod())
    [record] = doc["pods"]
    assert (record["name"], record["outcome"], record["filteredBy"], record["node"]) == (
        "trainer", "FilteredOut", "FilterOutSchedulable", "n1")
    assert record["clearedRequests"] == [TPU]       # said: the scheduler's own verdict keeps the request


def test_the_text_says_what_ca_took_from_it(tmp_path) -> None:
    _autoscale(tmp_path, _pod())
    env = TestEnvironment(width=200)
    main(["autoscale", str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "cluster.yaml"),
          "--node-groups", str(tmp_path / "groups.yaml")], env)
    assert "CA's loop takes it without its cloud-tpus.google.com/v3 request (ClearTPURequests)" in env.out


def test_an_init_containers_tpu_request_is_not_cleared(tmp_path) -> None:
    doc = _autoscale(tmp_path, _pod("warm", init=True))
    [record] = doc["pods"]
    assert record["outcome"] == "NotTriggerScaleUp"
    assert "Insufficient cloud-tpus.google.com/v3" in record["events"][0]["message"]


def test_each_pod_keeps_its_own_record_beside_the_cleared_ones(tmp_path) -> None:
    plain = _pod("plain")
    plain["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1"}}
    doc = _autoscale(tmp_path, _pod("a"), plain, _pod("b"))
    assert [(r["name"], r["outcome"]) for r in doc["pods"]] == [("a", "FilteredOut"), ("plain", "FilteredOut"),
                                                                 ("b", "FilteredOut")]
    assert [r.get("clearedRequests") for r in doc["pods"]] == [[TPU], None, [TPU]]


def test_the_scheduler_still_sees_the_request(tmp_path) -> None:
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(_pod()))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump(NODE))
    (tmp_path / "groups.yaml").write_text(yaml.safe_dump(GROUPS))
    env = TestEnvironment()
    code = main([str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), "--node-groups",
                 str(tmp_path / "groups.yaml"), "-o", "json", "--no-suggestions"], env)
    out = json.loads(env.out)
    assert code == 1
    assert "Insufficient cloud-tpus.google.com/v3" in json.dumps(out)
    assert out["autoscaler"]["pods"][0]["filteredBy"] == "FilterOutSchedulable"
    assert out["autoscaler"]["pods"][0]["clearedRequests"] == [TPU]


def test_only_the_containers_requests_go() -> None:
    pod = PodInfo(_pod())
    cleared = clear_tpu_request(pod)
    assert has_tpu_request(pod) and not has_tpu_request(cleared)
    assert cleared.spec["containers"][0]["resources"] == {"requests": {"cpu": "1"}, "limits": {TPU: "8"}}
    assert pod.spec["containers"][0]["resources"]["requests"] == {"cpu": "1", TPU: "8"}     # (a copy)
    plain = PodInfo(_pod("warm", init=True))
    assert clear_tpu_requests([plain]) == [plain]


def test_the_explained_template_verdict_reads_the_cleared_pod(tmp_path) -> None:
    """A 6-cpu TPU pod: no room on n1, CA scales up `big` (16 cpu, no TPU), and the template verdict the
    answer shows for it is CA's, on the pod without its TPU request."""
    pod = _pod()
    pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "6"
    groups = {"nodeGroups": [*GROUPS["nodeGroups"], {
        "name": "big", "minSize": 0, "maxSize": 2, "nodeSelector": {"pool": "big"},
        "template": {"metadata": {"labels": {"pool": "big"}}, "status": {"capacity": {
            "cpu": "16", "memory": "8Gi", "pods": "110"}}}}]}
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(pod))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump(NODE))
    (tmp_path / "groups.yaml").write_text(yaml.safe_dump(groups))
    env = TestEnvironment()
    main([str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), "--node-groups",
          str(tmp_path / "groups.yaml"), "-o", "json", "--no-suggestions"], env)
    doc = json.loads(env.out)["autoscaler"]
    assert doc["pods"][0]["outcome"] == "TriggeredScaleUp"
    assert "Insufficient cloud-tpus.google.com/v3" not in json.dumps(doc["explained"]["nodeGroups"]["big"])

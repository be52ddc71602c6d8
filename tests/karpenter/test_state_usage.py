"""The cluster state's NodePool usage (`state.cluster._merged`) is `resources.merge` of its nodes'
capacities, value and format, summed without a `Fraction` per node."""
from __future__ import annotations

import itertools
import json

import pytest

from kexplain.apimachinery.quantity import parse
from kexplain.karpenter.state.cluster import _merged
from kexplain.karpenter.utils import resources

TEXTS = ["0", "2", "1930m", "7577Mi", "0.5", "1e3", "18Gi", "100k", "0Mi", "3", "250m"]


def _lists(texts: tuple[str, ...]) -> list[dict]:
    names = ("cpu", "memory", "pods")
    return [{names[i % 3]: parse(t), "nodes": parse(t)} for i, t in enumerate(texts)]


@pytest.mark.parametrize("texts", [combo for n in (1, 2, 3, 5) for combo in itertools.combinations(TEXTS, n)][::7]
                         + [("0", "0Mi", "0m"), ("0m", "2", "0Mi"), ("-1", "1", "5Mi"), ("1", "-1", "0Mi", "2Gi"),
                            ("1930m", "-2", "7Mi", "-1930m")])
def test_merged_is_resources_merge(texts: tuple[str, ...]) -> None:
    lists = _lists(texts)
    want, got = resources.merge(*lists), _merged(lists)
    assert list(got) == list(want)
    assert [(q.value, q.fmt, str(q)) for q in got.values()] == [(q.value, q.fmt, str(q)) for q in want.values()]


def test_bound_pods_that_share_containers_but_not_the_rest_are_read_each_as_written() -> None:
    """Decoded pods of one dump share their spec's lists (`stored_pods`): a shape is the identities of
    all that `_bound_pods` reads, so pods that share only their containers are told apart."""
    from kexplain.karpenter.scheduling.hostportusage import HostPortUsage
    from kexplain.karpenter.scheduling.volumeusage import VolumeUsage
    from kexplain.karpenter.state.cluster import _bound_pods
    from kexplain.karpenter.state.statenode import StateNode
    from kexplain.model.pod import PodInfo
    from kexplain.plugins.volumes import VolumeIndex

    containers = [{"name": "app", "image": "x", "resources": {"requests": {"cpu": "1"}}}]
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    specs = [{"containers": containers}, {"containers": containers, "affinity": anti},
             {"containers": containers, "overhead": {"cpu": "250m"}},
             {"containers": containers, "initContainers": [{"name": "i", "image": "x",
                                                            "resources": {"requests": {"cpu": "3"}}}]},
             {"containers": containers, "resources": {"requests": {"cpu": "2"}}}]
    specs += [json.loads(json.dumps(spec)) for spec in specs]       # (the same, written alike in lists of their own)
    node = {"metadata": {"name": "n1"}}
    state = StateNode(node, None)
    state.host_port_usage, state.volume_usage = HostPortUsage(), VolumeUsage()
    pods = [PodInfo({"metadata": {"name": f"p{i}", "namespace": "ns"}, "spec": {**spec, "nodeName": "n1"}})
            for i, spec in enumerate(specs)]
    anti_pods, _ = _bound_pods(pods, {"n1": state}, VolumeIndex(), set(), {})
    assert [p.name for p, _ in anti_pods] == ["p1", "p6"]
    assert [str(reqs["cpu"]) for reqs in state.pod_requests] == \
        [str(resources.requests_for_pod(p.spec)["cpu"]) for p in pods] == ["1", "1", "1250m", "3", "2"] * 2


def test_without_claims_in_the_cluster_no_bound_pods_volumes_are_read():
    """GetVolumes finds volumes through their claims: with none indexed, every pod's answer is no
    volumes (a claim named, an ephemeral volume's, a token's), so `_bound_pods` does not ask; with the
    claim indexed, the pod's volume counts on its node."""
    from kexplain.karpenter.scheduling.hostportusage import HostPortUsage
    from kexplain.karpenter.scheduling.volumeusage import VolumeUsage, get_volumes
    from kexplain.karpenter.state.cluster import _bound_pods, _volume_index
    from kexplain.karpenter.state.statenode import StateNode
    from kexplain.model.pod import PodInfo

    volumes = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
               {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
               {"name": "kube-api-access-x7k2p", "projected": {"sources": []}}]
    pods = [PodInfo({"metadata": {"name": f"p{i}", "namespace": "ns"},
                     "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "x"}], "volumes": [v]}})
            for i, v in enumerate(volumes)]
    empty = _volume_index({})
    assert all(get_volumes(empty, p) == ({}, None) for p in pods)
    claim = {"kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "ns"},
             "spec": {"storageClassName": "gp3"}}
    sc = {"kind": "StorageClass", "metadata": {"name": "gp3"}, "provisioner": "ebs.csi.aws.com"}
    for objects, want in (({}, {}), ({"PersistentVolumeClaim": [claim], "StorageClass": [sc]},
                                     {"ebs.csi.aws.com": {"ns/data"}})):
        state = StateNode({"metadata": {"name": "n1"}}, None)
        state.host_port_usage, state.volume_usage = HostPortUsage(), VolumeUsage()
        index = _volume_index(objects)
        _bound_pods(pods, {"n1": state}, index, set(), {})
        assert {d: set(c) for d, c in state.volume_usage.volumes.items()} == want


def test_dump_pods_written_alike_but_their_statuses_share_one_shape() -> None:
    """`_bound_pods` keys a dump's pod by its spec's texts alone (`stored_spec_facts_key`): Karpenter's
    requests, host ports and required anti-affinity read no status, so pods whose containers report
    resized resources (a served cluster's) share their spec's answer, and it is each pod's fresh one;
    pods whose specs differ in what is read are told apart, in any namespace."""
    import msgspec

    from kexplain.apimachinery.stored_pods import StoredPod, decode_view
    from kexplain.karpenter.scheduling.hostportusage import HostPortUsage
    from kexplain.karpenter.scheduling.volumeusage import VolumeUsage
    from kexplain.karpenter.state import cluster
    from kexplain.karpenter.state.statenode import StateNode
    from kexplain.model.pod import StoredPodInfo
    from kexplain.plugins.volumes import VolumeIndex

    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"a": "b"}}, "topologyKey": "kubernetes.io/hostname"}]}}

    def pod(i: int, cpu: str, mount: str, ns: str = "ns", status: dict | None = None, **spec) -> StoredPodInfo:
        obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": ns, "uid": f"u{i}"},
               "spec": {"nodeName": "n1", **spec,
                        "containers": [{"name": "app", "image": "x", "resources": {"requests": {"cpu": cpu}},
                                        "volumeMounts": [{"name": mount, "mountPath": "/t"}]}]},
               "status": {"phase": "Running", **(status or {})}}
        raw = msgspec.json.encode(obj)
        return StoredPodInfo(StoredPod(msgspec.Raw(raw), decode_view(raw)))

    resized = {"containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "3"}},
                                      "allocatedResources": {"cpu": "3"}}]}
    plain = {"containerStatuses": [{"name": "app", "ready": True}]}
    pods = [pod(0, "1", "tok-a"), pod(1, "1", "tok-b", status=resized), pod(2, "1", "tok-c", status=plain),
            pod(3, "2", "tok-d", status=resized), pod(4, "1", "tok-e", "other", resized, affinity=anti),
            pod(5, "1", "tok-f", "ns", plain, affinity=anti),
            pod(6, "1", "tok-g", status=resized, overhead={"cpu": "250m"})]
    state = StateNode({"metadata": {"name": "n1"}}, None)
    state.host_port_usage, state.volume_usage = HostPortUsage(), VolumeUsage()
    calls = []
    shaped = cluster._shaped

    def counting(p, view, of_text):
        calls.append(p.name)
        return shaped(p, view, of_text)

    cluster._shaped = counting
    try:
        anti_pods, _ = cluster._bound_pods(pods, {"n1": state}, VolumeIndex(), set(), {})
    finally:
        cluster._shaped = shaped
    assert calls == ["p0", "p3", "p4", "p6"]
    assert [p.name for p, _ in anti_pods] == ["p4", "p5"]
    assert [str(reqs["cpu"]) for reqs in state.pod_requests] == \
        [str(resources.requests_for_pod(p.spec)["cpu"]) for p in pods] == ["1", "1", "1", "2", "1", "1", "1250m"]

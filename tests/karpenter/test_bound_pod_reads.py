"""The cluster state reads a dump's bound pods off their views (`state.cluster._bound_pods`), what their
owner references decide once per text of them and what their spec decides once per text of it
(`_ViewReads`): a workload's 150,000 pods are not each read alike. The answer is the one of the same
pods decoded (each read as its object)."""
from __future__ import annotations

import msgspec
import pytest

from kexplain.apimachinery.stored_pods import StoredPod, decode_view
from kexplain.karpenter.scheduling.hostportusage import HostPortUsage
from kexplain.karpenter.scheduling.volumeusage import VolumeUsage
from kexplain.karpenter.state import cluster as state_cluster
from kexplain.karpenter.state.statenode import StateNode
from kexplain.model.pod import PodInfo, StoredPodInfo
from kexplain.plugins.volumes import VolumeIndex

NODES = ("n1", "n2")
OWNERS = {
    "rs": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "rs-1", "controller": True}],
    "ds": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "uid": "ds-1", "controller": True}],
    "sts": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "sts-1", "controller": True}],
    "mirror": [{"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": "n1-uid", "controller": True}],
    "none": None,
}


def _pod(i: int, owner: str, *, image: str = "app", cpu: str = "500m", phase: str = "Running",
         deleting: bool = False) -> dict:
    meta: dict = {"name": f"{owner}-{i}", "namespace": "default", "uid": f"u-{owner}-{i}"}
    if OWNERS[owner] is not None:
        meta["ownerReferences"] = OWNERS[owner]
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T11:00:00Z"
    container = {"name": "c", "image": image, "resources": {"requests": {"cpu": cpu}}}
    if owner == "ds":
        container["ports"] = [{"containerPort": 9100, "hostPort": 9100, "protocol": "TCP"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": NODES[i % 2], "containers": [container]}, "status": {"phase": phase}}


PODS = ([_pod(i, "rs", image=f"app:{i % 3}") for i in range(12)] + [_pod(i, "ds") for i in range(2)]
        + [_pod(0, "sts", deleting=True), _pod(1, "sts", phase="Succeeded"), _pod(2, "sts")]
        + [_pod(0, "mirror"), _pod(1, "none", cpu="2"), _pod(2, "none", deleting=True),
           _pod(3, "none", phase="Failed"), _pod(4, "rs", deleting=True)])


def _stored(obj: dict) -> StoredPodInfo:
    raw = msgspec.json.encode(obj)
    info = PodInfo(StoredPod(msgspec.Raw(raw), decode_view(raw)))
    assert type(info) is StoredPodInfo
    return info


def _read(pods: list[PodInfo]) -> tuple[list, dict]:
    states = {}
    for name in NODES:
        state = states[name] = StateNode({"metadata": {"name": name}}, None)
        state.reschedulable_pods, state.host_port_usage, state.volume_usage = 0, HostPortUsage(), VolumeUsage()
    controlled: dict = {}
    anti, daemonset_owned = state_cluster._bound_pods(pods, states, VolumeIndex(), {"ds-1"}, controlled)
    return [(name, s.reschedulable_pods, [{k: str(q) for k, q in r.items()} for r in s.pod_requests],
             sorted(s.daemonset_requests), s.host_port_usage.reserved) for name, s in states.items()], \
        {"anti": [p.name for p, _ in anti], "daemonset_owned": daemonset_owned,
         "controlled": {k: [p.name for p in v] for k, v in controlled.items()}}


def test_views_read_as_the_decoded_pods():
    assert _read([_stored(p) for p in PODS]) == _read([PodInfo(p) for p in PODS])


def test_owner_references_and_specs_are_worked_out_once_per_text(monkeypatch):
    owners, specs = [], []
    real_owners, real_key = state_cluster._owners, state_cluster.stored_spec_facts_key
    monkeypatch.setattr(state_cluster, "_owners", lambda refs: owners.append(1) or real_owners(refs))
    monkeypatch.setattr(state_cluster, "stored_spec_facts_key", lambda spec: specs.append(1) or real_key(spec))
    pods = [_stored(p) for p in PODS]
    state_cluster._bound_pods(pods, {}, VolumeIndex(), set(), {})      # (no state node: owners only)
    assert len(owners) == 4             # rs, ds, sts, mirror (a pod without any reads none)
    states = {}
    for name in NODES:
        state = states[name] = StateNode({"metadata": {"name": name}}, None)
        state.reschedulable_pods, state.host_port_usage, state.volume_usage = 0, HostPortUsage(), VolumeUsage()
    owners.clear()
    state_cluster._bound_pods(pods, states, VolumeIndex(), set(), {})
    assert len(owners) == 4
    # the ReplicaSet's three images, the DaemonSet's pod, the 500m and 2-cpu pods of no image variant
    # (the StatefulSet's, the mirror's, the bare pods' are written alike): each spec text once
    assert len(specs) == len({bytes(p.view.spec.containers) for p in pods if p.view.status.phase not in
                              ("Failed", "Succeeded")})


@pytest.mark.parametrize("owner", ["rs", "sts", "mirror", "none"])
def test_terminating_pods_count_as_reschedulable_as_decoded(owner):
    pods = [_pod(0, owner, deleting=True), _pod(2, owner)]
    assert _read([_stored(p) for p in pods]) == _read([PodInfo(p) for p in pods])


def test_available_is_allocatable_less_every_bound_pods_requests():
    """`StateNode.available_nanos` sums each name over the pods (pods of one shape share their list)."""
    from kexplain.apimachinery.quantity import parse
    from kexplain.karpenter.utils import resources

    state = StateNode({"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi",
                                                                             "pods": "110"}}}, None)
    shared = {"cpu": parse("500m"), "memory": parse("1Gi")}
    state.pod_requests = [shared, {"cpu": parse("250m")}, shared, {"nvidia.com/gpu": parse("1")},
                          {"memory": parse("100Mi"), "pods": parse("1")}]
    assert state.available_nanos() == resources.to_nanos(
        {name: q for name, q in resources.subtract(state.allocatable(), resources.merge(*state.pod_requests)).items()
         if name in state.allocatable()})

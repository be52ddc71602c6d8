"""Karpenter's cluster state is read once for the passes over the same objects (`kexplain cluster`'s
pending and Karpenter sections each read the cluster's one state again: their own copies of the
Nodes, their own `PodInfo`s of the same bound pods): `state.cluster._kept_for`. Disruption's
nomination, the one change a pass makes to a state node, is made on copies (`Cluster.with_nominated`)."""
from __future__ import annotations

import copy
from dataclasses import replace

import pytest
import yaml

from kexplain.features.kube_version import resolve
from kexplain.karpenter.inputs import load_pass
from kexplain.karpenter.pending import load_world
from kexplain.karpenter.run import disruption
from kexplain.karpenter.state import cluster as state_cluster
from kexplain.model.pod import PodInfo
from tests.karpenter.test_disruption import NODEPOOLS, node, pod

KUBE = resolve("1.35", None)[0]
PENDING = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pending-0", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "app", "resources": {"requests": {"cpu": "500m"}}}]}}


def _bound(name: str, i: int) -> dict:
    """A bound pod as an API server stores it (uid, creation time, phase): the pass keeps its object."""
    out = pod(name, i)
    out["metadata"].update(uid=f"uid-{name}", creationTimestamp="2026-01-01T10:00:00Z")
    return out


@pytest.fixture
def inputs(tmp_path, monkeypatch):
    monkeypatch.setattr(state_cluster, "_kept", [])
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump(PENDING))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all([*node(1), *node(2), _bound("web-0", 1),
                                                                _bound("web-1", 2)]))
    (tmp_path / "nodepools.yaml").write_text(NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large"))
    return load_pass(str(tmp_path / "pods.yaml"), (str(tmp_path / "cluster.yaml"), str(tmp_path / "nodepools.yaml")),
                     None, KUBE, max_bytes=10 ** 8, max_objects=1000)


def _again(inputs):
    """The inputs as another pass reads them from the same state: copies of the Nodes and NodeClaims,
    its own `PodInfo`s of the same bound pods."""
    return replace(inputs, nodes=copy.deepcopy(inputs.nodes), node_claims=copy.deepcopy(inputs.node_claims),
                   bound_pods=[PodInfo(p.obj) for p in inputs.bound_pods], objects=dict(inputs.objects))


def _counting(monkeypatch) -> list[int]:
    runs = []
    read = state_cluster._bound_pods

    def counted(*args):
        runs.append(1)
        return read(*args)
    monkeypatch.setattr(state_cluster, "_bound_pods", counted)
    return runs


def _usage(cluster) -> list:
    return [(n.name(), n.pod_requests, n.daemonset_requests, n.nominated) for n in cluster.nodes]


def test_a_pass_over_the_same_objects_reads_the_state_once(inputs, monkeypatch):
    runs = _counting(monkeypatch)
    first = state_cluster.new_cluster(inputs)
    again = _again(inputs)
    second = state_cluster.new_cluster(again)
    assert len(runs) == 1
    assert _usage(second) == _usage(first)
    assert second.pods == [*again.pending, *again.bound_pods] and second.bound_pods is again.bound_pods
    monkeypatch.setattr(state_cluster, "_kept", [])
    assert _usage(state_cluster.new_cluster(_again(inputs))) == _usage(first)      # (read afresh: the same)


def test_other_objects_are_read_again(inputs, monkeypatch):
    runs = _counting(monkeypatch)
    state_cluster.new_cluster(inputs)
    moved = _again(inputs)
    moved.nodes[0]["metadata"]["labels"] = {**moved.nodes[0]["metadata"]["labels"], "team": "a"}
    state_cluster.new_cluster(moved)
    other_pods = replace(_again(inputs), bound_pods=[PodInfo(copy.deepcopy(p.obj)) for p in inputs.bound_pods])
    state_cluster.new_cluster(other_pods)
    assert len(runs) == 3


def test_nomination_leaves_the_kept_state_as_read(inputs):
    world = load_world(None)
    result = disruption(inputs, world)
    assert result.nominated == ["ip-10-0-1-1.ec2.internal"]
    assert [n.nominated for n in result.ctx.cluster.nodes] == [True, False]
    assert result.ctx.cluster.by_node_name["ip-10-0-1-1.ec2.internal"].nominated
    kept = state_cluster.new_cluster(_again(inputs))
    assert [n.nominated for n in kept.nodes] == [False, False]
    again = disruption(_again(inputs), world)
    assert again.nominated == result.nominated
    assert [(v.state.name(), v.error) for v in again.nodes] == [(v.state.name(), v.error) for v in result.nodes]


def test_the_passes_over_one_state_make_each_nodes_base_once(inputs, monkeypatch):
    """The pending pass's scheduler and disruption's (its nomination, its simulations) start their
    existing nodes from the state's `NodeBases`: a node's base is made again only for the copy its
    nomination makes."""
    from kexplain.karpenter.provisioning.scheduling import existingnode
    from kexplain.karpenter.run import schedule

    made = []

    class Counted(existingnode.NodeBase):
        __slots__ = ()

        def __init__(self, state):
            made.append(state.name())
            super().__init__(state)
    monkeypatch.setattr(existingnode, "NodeBase", Counted)
    world = load_world(None)
    schedule(inputs, world)
    assert sorted(made) == ["ip-10-0-1-1.ec2.internal", "ip-10-0-2-1.ec2.internal"]
    result = disruption(_again(inputs), world)
    assert made[2:] == result.nominated


def test_the_disruption_pass_over_a_kept_state_says_what_it_says_alone(inputs, monkeypatch):
    import json

    from kexplain.karpenter.run import disruption_document, schedule

    world = load_world(None)
    alone = json.dumps(disruption_document(disruption(_again(inputs), world)), sort_keys=True)
    monkeypatch.setattr(state_cluster, "_kept", [])
    schedule(inputs, world)
    kept = json.dumps(disruption_document(disruption(_again(inputs), world)), sort_keys=True)
    assert kept == alone


def _owned(p: dict, kind: str, api: str = "apps/v1", **meta) -> dict:
    p["metadata"].update(ownerReferences=[{"apiVersion": api, "kind": kind, "name": "owner", "uid": f"uid-{kind}",
                                           "controller": True}], **meta)
    return p


def _various() -> list[dict]:
    """Pods IsReschedulable tells apart: running, finished, terminating, a StatefulSet's (running,
    terminating, finished and terminating), a mirror pod, a DaemonSet's."""
    gone = {"deletionTimestamp": "2026-01-01T11:59:00Z"}
    failed = _bound("failed", 1)
    failed["status"]["phase"] = "Failed"
    done_stateful = _owned(_bound("ss-done", 1), "StatefulSet", **gone)
    done_stateful["status"]["phase"] = "Succeeded"
    return [_bound("web-0", 1), failed, _bound("leaving", 1), _owned(_bound("ss-0", 1), "StatefulSet"),
            _owned(_bound("ss-1", 1), "StatefulSet", **gone), done_stateful, _owned(_bound("mirror", 1), "Node", "v1"),
            _owned(_bound("ds", 1), "DaemonSet"), _owned(_bound("other", 2), "ReplicaSet")]


def test_the_state_counts_each_nodes_reschedulable_pods_as_isreschedulable_reads_them(tmp_path, monkeypatch):
    from kexplain.karpenter.disruption.pods import Limits

    monkeypatch.setattr(state_cluster, "_kept", [])
    pods = _various()
    pods[2]["metadata"]["deletionTimestamp"] = "2026-01-01T11:59:00Z"
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all([*node(1), *node(2), *pods]))
    (tmp_path / "nodepools.yaml").write_text(NODEPOOLS.replace("BUDGET", "10").replace("TYPES", "m5.large"))
    inputs = load_pass(None, (str(tmp_path / "cluster.yaml"), str(tmp_path / "nodepools.yaml")), None, KUBE,
                       max_bytes=10 ** 8, max_objects=1000)
    cluster = state_cluster.new_cluster(inputs)
    limits = Limits([])
    on = {}
    for p in inputs.bound_pods:
        on.setdefault(p.node_name, []).append(p)
    assert [n.reschedulable_pods for n in cluster.nodes] == \
        [sum(map(limits.reschedulable, on[n.name()])) for n in cluster.nodes] == [4, 1]


def test_a_node_refused_before_its_pods_are_read_counts_them_off_the_state(inputs, monkeypatch):
    from kexplain.karpenter.disruption.pods import Limits

    asked = []
    monkeypatch.setattr(Limits, "reschedulable", lambda self, pod: asked.append(pod) or True)
    result = disruption(inputs, load_world(None))
    refused = [v for v in result.nodes if v.error == "node is nominated for a pending pod"]
    assert refused and [v.reschedulable for v in refused] == [1] and not asked

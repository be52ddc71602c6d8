"""Karpenter's adapter to the pending pass (`kexplain.karpenter.pending`): one provisioning pass
over the set's pending pods and the cluster's own, the set's bound copies and objects in the
cluster, each pod's answer; the options' world and settings. On fixtures/karpenter."""
from __future__ import annotations

import pytest

from kexplain.errors import InputError
from kexplain.explain.pending_pass import PassBuilder
from kexplain.features.kube_version import resolve
from kexplain.karpenter.pending import (KARPENTER, NodePoolsRequest, load_node_pools, placed_words,
                                        run_pass)
from kexplain.karpenter.request import has_node_pools
from kexplain.load.manifests import load_objects
from kexplain.model.pod import PodInfo
from tests.support.paths import FIXTURES

CASE = FIXTURES / "karpenter"
KUBE, _ = resolve(None, None, None, "1.35")


def read(*names: str) -> list:
    return load_objects([str(CASE / n) for n in names], 10**8, None, max_objects=10**6)


def pod(name: str, cpu: str = "1", memory: str = "1Gi", **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu,
                                                                                          "memory": memory}}}],
                     **spec}}


def answers(cluster: list, builder: PassBuilder, **kw):
    pp = builder.build()
    inputs, world = load_node_pools(NodePoolsRequest(cluster, **kw), KUBE, applied=pp)
    return run_pass(inputs, world, pp)


def test_has_node_pools_needs_karpenters_kind():
    assert has_node_pools(read("nodepools.yaml"))
    assert not has_node_pools(read("cluster.yaml"))
    other = [({"apiVersion": "example.com/v1", "kind": "NodePool", "metadata": {"name": "x"}}, None)]
    assert not has_node_pools(other)


def test_one_pass_the_clusters_pending_pods_with_the_sets():
    cluster = read("cluster.yaml", "nodepools.yaml") + [(pod("theirs", cpu="2"), None)]
    b = PassBuilder()
    b.add_pod(PodInfo(pod("mine")), None)
    _, merged, got = answers(cluster, b)
    assert got.autoscaler == KARPENTER and got.key == "karpenter"
    assert set(got.answers) == {"default/theirs", "default/mine"}
    assert [p.stands_for for p in merged.pending] == ["", "Pod default/mine"]
    # one pass: both pods on one new NodeClaim
    claims = {a.detail.get("nodeClaim") for a in got.answers.values()}
    assert len(claims) == 1 and got.document["summary"]["newNodeClaims"] == 1
    mine = got.answer("default/mine")
    assert mine.outcome == "NewNodeClaim" and mine.reasons[0].startswith("new NodeClaim general-00001 from NodePool")


def test_a_bound_copy_takes_its_room_on_the_node():
    cluster = read("cluster.yaml", "nodepools.yaml")
    free = PassBuilder()
    free.add_pod(PodInfo(pod("small", cpu="200m", memory="256Mi")), None)
    _, _, got = answers(cluster, free)
    assert got.answer("default/small").outcome == "ExistingNode"
    full = PassBuilder()
    full.add_pod(PodInfo(pod("copy-0", cpu="200m", memory="256Mi")), None, node="ip-10-0-1-17.ec2.internal")
    full.add_pod(PodInfo(pod("small", cpu="200m", memory="256Mi")), None)
    _, _, got = answers(cluster, full)
    assert "default/copy-0" not in got.answers
    assert got.answer("default/small").outcome == "NewNodeClaim"


def test_a_failed_pod_carries_every_nodepools_verdict():
    b = PassBuilder()
    b.add_pod(PodInfo(pod("batch", nodeSelector={"workload": "batch"})), None)
    _, _, got = answers(read("cluster.yaml", "nodepools.yaml"), b)
    a = got.answer("default/batch")
    assert a.outcome == "Failed"
    assert a.reasons[-1] == 'NodePool general: incompatible requirements, label "workload" does not have known values'
    assert [p["nodePool"] for p in a.detail["explained"]["nodePools"]] == ["gpu", "general"]
    assert a.to_json()["autoscaler"] == "Karpenter"


def test_settings_are_checked_against_the_world(tmp_path):
    config = tmp_path / "karpenter.yaml"
    config.write_text("instanceTypes: [m5.nonesuch]\n")
    with pytest.raises(InputError, match="m5.nonesuch"):
        answers(read("cluster.yaml", "nodepools.yaml"), PassBuilder(), config=str(config))


def test_placed_words():
    claim = {"instanceTypes": [f"t{i}" for i in range(7)], "prices": [str(i) for i in range(7)]}
    words = placed_words({"result": "NewNodeClaim", "nodeClaim": "c-1", "nodePool": "p"}, claim)
    assert words == "new NodeClaim c-1 from NodePool p: t0 $0, t1 $1, t2 $2, t3 $3, t4 $4 and 2 more"
    assert placed_words({"result": "ExistingNode", "node": "n1"}, None) == "existing node n1"
    assert placed_words({"result": "ExistingNode", "nodeClaim": "c-2"}, None) == "in-flight NodeClaim c-2"


def _with_uid(obj: dict, uid: str) -> dict:
    return {**obj, "metadata": {**obj["metadata"], "uid": uid}}


@pytest.mark.parametrize("same_uid", [False, True])
def test_a_pod_the_set_holds_twice_is_one_pod(same_uid):
    """A StatefulSet's ordinal and the pod itself (`kubectl get statefulset,pods`): one pod
    pending, the one given; with one uid for both (the pass took them for one pod and stopped
    its queue before the other pods were tried) as with two."""
    big = pod("db-0", cpu="400")        # no instance type holds it: it fails, and goes back in the queue
    given = _with_uid(big, "uid-db-0")
    copy = _with_uid(big, "uid-db-0" if same_uid else "uid-copy")
    b = PassBuilder()
    b.add_pod(PodInfo(copy), None, stands_for="StatefulSet default/db", copy=0)
    b.add_pod(PodInfo(given), None)
    b.add_pod(PodInfo(pod("web-1")), None)
    b.add_pod(PodInfo(pod("web-2")), None)
    inputs, merged, got = answers(read("cluster.yaml", "nodepools.yaml"), b)
    assert [p["pod"] for p in got.document["pods"]] == ["default/db-0", "default/web-1", "default/web-2"]
    assert [p.uid for p in inputs.pending] == ["uid-db-0", *[p.uid for p in inputs.pending[1:]]]
    assert got.answer("default/db-0").outcome == "Failed"
    assert {got.answer(k).outcome for k in ("default/web-1", "default/web-2")} == {"NewNodeClaim"}
    # both the StatefulSet and the Pod find the pod's answer
    assert [p.stands_for for p in merged.standing_for("StatefulSet default/db")] == ["StatefulSet default/db"]


def test_two_pods_of_one_uid_are_bad_input():
    b = PassBuilder()
    b.add_pod(PodInfo(_with_uid(pod("a"), "uid-1")), None)
    b.add_pod(PodInfo(_with_uid(pod("b"), "uid-1")), None)
    with pytest.raises(InputError, match='metadata.uid: Invalid value: "uid-1": the uid of Pod default/a too'):
        answers(read("cluster.yaml", "nodepools.yaml"), b)

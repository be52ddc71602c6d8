"""The scheduler's queue over pods explained each alone (kexplain.explain.queue_order): PrioritySort
(priority, then creation time), each pod that fits (or preempts) scheduled again once the pods
ahead of it changed the cluster; its answer where its verdict there differs from its verdict
alone. On fixtures/autoscaler: two busy nodes with 1920m cpu free each."""
from __future__ import annotations

import pytest

from kexplain.errors import Source
from kexplain.explain.inputs import inputs_from_objects, read_config
from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.queue_order import Alone, may_preempt, needed, queue_key, walk
from kexplain.explain.request import RunOptions
from kexplain.explain.run import explain
from kexplain.features import KubeVersion
from kexplain.load.manifests import load_objects
from kexplain.model.pod import PodInfo
from tests.support.paths import FIXTURES

KUBE = KubeVersion("1.35")
CLUSTER = load_objects([str(FIXTURES / "autoscaler" / "cluster.yaml")])


def pod(name: str, minute: int, cpu: str = "1500m", priority: int = 0) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                         "creationTimestamp": f"2025-11-03T10:{minute:02d}:00Z"},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}],
                     "priority": priority, "schedulerName": "default-scheduler"}}


def alone(objs: list[dict]) -> list[Alone]:
    config = read_config(None, kube=KUBE)
    first = inputs_from_objects(objs[0], Source("pods.yaml"), CLUSTER, config, stored=True, kube=KUBE)
    out = []
    for obj in objs:
        inputs = Inputs(PodInfo(obj), Source("pods.yaml"), first.snapshot, config, first.nominated)
        out.append(Alone.of(inputs, explain(inputs, RunOptions())))
    return out


def test_the_pods_ahead_take_the_room_each_fits_alone():
    # listed out of queue order: vip (priority 1000) is created last but goes first
    pods = alone([pod("a", 1), pod("b", 2), pod("c", 3), pod("vip", 4, priority=1000)])
    assert [(p.status, p.node is not None) for p in pods] == [("Scheduled", True)] * 4
    assert {p.node for p in pods} == {"general-1"}
    answers = walk(pods, RunOptions()).answers
    a, b = answers["default/a"], answers["default/b"]
    # vip takes general-1's room: a goes to general-2, and b and c fit nowhere once a is there
    assert (a.ahead, a.moved, a.status, a.node) == (1, 1, "Scheduled", "general-2")
    assert a.to_json()["takenBy"] == [{"pod": "default/vip", "node": "general-1"}]
    assert (b.ahead, b.moved, b.alone_status, b.alone_node, b.status) == (2, 2, "Scheduled", "general-1",
                                                                          "Unschedulable")
    # the scheduler's own words: its PostFilter runs (no victim: every pod on a node is b's priority)
    assert b.message == ("0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: "
                         "0/2 nodes are available: 2 No preemption victims found for incoming pod.")
    assert b.to_json()["result"] == {"status": "Unschedulable", "message": b.message}
    assert (answers["default/c"].ahead, set(answers)) == (3, {"default/a", "default/b", "default/c"})
    # walked to one pod only: the same answer
    assert walk(pods, RunOptions(), only="default/b").get("default/b") == b
    # a budget of one pod scheduled again: a's answer, and b and c keep their verdict alone
    cut = walk(pods, RunOptions(), budget=1)
    assert (set(cut.answers), cut.left) == ({"default/a"}, ("default/b", "default/c"))


def test_a_pod_that_fits_nowhere_alone_is_not_tried_again_and_the_first_keeps_its_verdict():
    pods = alone([pod("a", 1), pod("big", 0, cpu="3")])
    assert pods[1].status == "Unschedulable" and not pods[1].moves
    assert walk(pods, RunOptions()).answers == {}


def test_the_queue_is_priority_then_creation_time_then_the_listing():
    pods = [PodInfo(pod("a", 1)), PodInfo(pod("b", 1)), PodInfo(pod("late-vip", 9, priority=10)), PodInfo(pod("c", 0))]
    ordered = sorted(enumerate(pods), key=lambda ip: queue_key(ip[1], ip[0]))
    assert [p.name for _, p in ordered] == ["late-vip", "c", "a", "b"]


def test_a_nomination_ahead_moves_the_next_preemptor_and_takes_the_room():
    """Two pods of priority 1000 whose preemption alone nominates general-2 (evicting
    default/api-2), then two 1500m pods that fit alone (general-1). In the queue the second
    preemptor meets the first one's nomination on general-2 (counted there in its preemption's
    check of the node, as SelectVictimsOnNode's filter with the nominated pods counts it): the
    room of one victim is all there is, so it nominates general-1, evicting default/api-1; the
    nominations count for pods of at most their priority, so neither 1500m pod fits."""
    pods = alone([pod("vip-1", 1, cpu="3", priority=1000), pod("vip-2", 2, cpu="3", priority=1000),
                  pod("a", 3), pod("b", 4)])
    assert [(p.status, p.nominated) for p in pods[:2]] == [("Unschedulable", "general-2")] * 2
    walked = walk(pods, RunOptions())
    assert set(walked.answers) == {"default/vip-2", "default/a", "default/b"} and walked.left == ()
    vip = walked.answers["default/vip-2"]
    assert (vip.alone_status, vip.alone_node, vip.status, vip.nominated) == \
        ("Unschedulable", "general-2", "Unschedulable", "general-1")
    assert vip.to_json()["postFilter"] == {"nominatedNodeName": "general-1", "victims": ["default/api-1"]}
    assert vip.to_json()["takenBy"] == [{"pod": "default/vip-1", "node": "general-2", "nominated": True}]
    a = walked.answers["default/a"]
    assert (a.alone_node, a.status, a.moved) == ("general-1", "Unschedulable", 2)
    assert a.to_json()["takenBy"] == [{"pod": "default/vip-2", "node": "general-1", "nominated": True}]
    assert walked.post_filter(pods[1]) == vip.post_filter and walked.post_filter(pods[0]) == pods[0].post_filter


def inputs_of(objs: list[dict]) -> list[Inputs]:
    return [a.inputs for a in alone(objs)]


# (the pods explained already, nominations read, the pods `needed` has explained besides them)
NEEDED = [
    # b fits alone: the pods ahead of it in the queue (vip first, then a) decide its verdict there
    (["b"], False, ["vip", "a"]),
    # a fits alone: only vip is ahead of it; c (fits nowhere) and b come after it
    (["a"], False, ["vip"]),
    # big fits nowhere alone: nothing it meets in the queue changes that
    (["big"], False, []),
    # where an autoscaler reads every nomination: vip may preempt, and moves alone, so the pods
    # ahead of it are needed too (none: it comes first)
    (["big"], True, ["vip"]),
]


@pytest.mark.parametrize("explained, nominations, more", NEEDED)
def test_needed_explains_the_pods_the_walk_must_hear_of(explained, nominations, more):
    objs = [pod("a", 1), pod("b", 2, cpu="1400m"), pod("big", 3, cpu="3"), pod("vip", 4, cpu="3", priority=1000)]
    pending = inputs_of(objs)
    by_name = {i.pod.name: i for i in pending}
    asked: list[str] = []

    def explain_alone(pods: list[Inputs]) -> list[Alone]:
        asked.extend(p.pod.name for p in pods)
        return [Alone.of(p, explain(p, RunOptions())) for p in pods]

    mine = [Alone.of(by_name[n], explain(by_name[n], RunOptions())) for n in explained]
    pods = needed(mine, pending, explain_alone, nominations=nominations)
    assert sorted(asked) == sorted(more)
    assert [a.inputs.pod.name for a in pods] == [n for n in ("a", "b", "big", "vip") if n in {*explained, *more}]


def test_may_preempt_needs_a_lower_priority_and_a_policy_that_lets_it():
    low, high, obj = PodInfo(pod("low", 1)), PodInfo(pod("high", 1, priority=10)), pod("never", 1, priority=10)
    never = PodInfo({**obj, "spec": {**obj["spec"], "preemptionPolicy": "Never"}})
    assert [may_preempt(p, 0) for p in (low, high, never)] == [False, True, False]


def test_a_preemptor_is_scheduled_again_only_where_the_pods_ahead_took_its_node():
    """A preemptor whose node the pods ahead left as it was keeps its nomination alone (the other
    nodes only lose room); one whose node they took is scheduled again, at most
    `preemptions` of them (the others named in `left`)."""
    ahead = pod("first", 0, cpu="500m", priority=2000)      # goes to general-1, alone as in the queue
    pods = alone([ahead, pod("vip-1", 1, cpu="3", priority=1000), pod("vip-2", 2, cpu="3", priority=1000)])
    assert (pods[0].node, pods[1].nominated, pods[2].nominated) == ("general-1", "general-2", "general-2")
    cut = walk(pods, RunOptions(), preemptions=0)
    assert (cut.answers, cut.left) == ({}, ("default/vip-2",))      # vip-1's node untouched: not even left
    assert walk(pods, RunOptions(), preemptions=1).get("default/vip-2").nominated == "general-1"


def test_needed_gives_a_pod_of_an_explained_shape_its_verdict_alone():
    """a and b differ only in their names (and creation times): b, explained, is a's verdict alone."""
    pending = inputs_of([pod("a", 1), pod("b", 2)])
    b = Alone.of(pending[1], explain(pending[1], RunOptions()))

    def explain_alone(pods: list[Inputs]) -> list[Alone]:
        raise AssertionError(f"explained again: {[p.pod.name for p in pods]}")

    a, again = needed([b], pending, explain_alone, nominations=False)
    assert again is b and (a.inputs, a.status, a.node) == (pending[0], b.status, b.node)


def test_the_walk_binds_the_pods_ahead_only_when_a_pod_scheduled_again_reads_the_cluster(monkeypatch):
    # four pods that fit alone: the first goes first, the others are stale behind it
    import kexplain.explain.queue_order as queue_order
    pods = alone([pod("vip", 4, priority=1000), pod("a", 1), pod("b", 2), pod("c", 3)])
    bound: list[str] = []
    real = queue_order.bind

    def counted(snapshot, inputs, options, obj, node):
        bound.append(obj["metadata"]["name"])
        return real(snapshot, inputs, options, obj, node)
    monkeypatch.setattr(queue_order, "bind", counted)
    # nobody scheduled again (no budget): the cluster is never read, nothing is bound
    assert walk(pods, RunOptions(), budget=0, preemptions=0).left == ("default/a", "default/b", "default/c")
    assert bound == []
    # one pod scheduled again (a, behind vip): vip bound before it, a's own binding never read
    cut = walk(pods, RunOptions(), budget=1)
    assert (set(cut.answers), bound) == ({"default/a"}, ["vip"])
    # the whole walk: the pods ahead bound in queue order (b and c fit nowhere once a is there)
    bound.clear()
    assert set(walk(pods, RunOptions()).answers) == {"default/a", "default/b", "default/c"}
    assert bound == ["vip", "a"]


@pytest.mark.parametrize("nodes,lowest", [([[5, 3], [], [7]], 3), ([[], []], 2 ** 31), ([[2 ** 32], []], 2 ** 32),
                                          ([], 2 ** 31)])
def test_the_lowest_priority_is_read_node_by_node_over_the_pods_there(nodes, lowest):
    from types import SimpleNamespace
    from kexplain.explain.queue_order import lowest_priority
    snapshot = SimpleNamespace(node_infos=[SimpleNamespace(pods=[SimpleNamespace(priority=p) for p in pods])
                                           for pods in nodes])
    assert lowest_priority(snapshot) == lowest

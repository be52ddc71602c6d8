"""The scheduler's queue over pods explained each alone (kexplain.explain.queue_order): PrioritySort
(priority, then creation time), each pod that fits (or preempts) scheduled again once the pods
ahead of it changed the cluster; its answer where its verdict there differs from its verdict
alone. On fixtures/autoscaler: two busy nodes with 1920m cpu free each."""
from __future__ import annotations

from kexplain.errors import Source
from kexplain.explain.inputs import Inputs, inputs_from_objects, read_config
from kexplain.explain.queue_order import Alone, ahead_of, walk
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
    assert b.message.startswith("0/2 nodes are available: 2 Insufficient cpu.")
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


def test_ahead_of_is_priority_then_creation_time_then_the_listing():
    pods = [PodInfo(pod("a", 1)), PodInfo(pod("b", 1)), PodInfo(pod("late-vip", 9, priority=10)), PodInfo(pod("c", 0))]
    assert [p.name for p in ahead_of("default/b", pods)] == ["late-vip", "c", "a"]
    assert ahead_of("default/late-vip", pods) == [] and ahead_of("default/none", pods) == []


def test_a_nomination_ahead_takes_the_room_and_is_not_run_again():
    """A pod of priority 1000 whose preemption nominates general-2 (evicting default/api-2), then
    two 1500m pods that fit alone (general-1): the nomination counts on general-2 for pods of at
    most its priority, so the first goes to general-1 and the second fits nowhere. A second
    preemptor keeps the nomination its explanation alone found (preemption is not run again)."""
    pods = alone([pod("vip-1", 1, cpu="3", priority=1000), pod("vip-2", 2, cpu="3", priority=1000),
                  pod("a", 3), pod("b", 4)])
    assert [(p.status, p.nominated) for p in pods[:2]] == [("Unschedulable", "general-2")] * 2
    walked = walk(pods, RunOptions())
    assert set(walked.answers) == {"default/b"} and walked.left == ()
    b = walked.answers["default/b"]
    assert (b.alone_node, b.status, b.moved) == ("general-1", "Unschedulable", 3)
    assert b.to_json()["takenBy"] == [{"pod": "default/a", "node": "general-1"}]

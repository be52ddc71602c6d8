"""The disruption controller's status of a PodDisruptionBudget written without one
(`controllers.disruption`, pkg/controller/disruption/disruption.go trySync): cases worked out
by hand from getExpectedPodCount, getExpectedScale, countHealthyPods and updatePdbStatus; then
preemption and the Cluster Autoscaler's scale-down, which read the computed status through the
object as they read a stored one."""
from __future__ import annotations

import json

import pytest

from kexplain.cli.app import main
from kexplain.controllers.disruption import _Controllers, computed, notes, scaled, with_status
from kexplain.model.pod import PodInfo
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import DATA

DISRUPTION = DATA / "disruption"
READY = {"conditions": [{"type": "Ready", "status": "True"}]}
NOT_READY = {"conditions": [{"type": "Ready", "status": "False"}]}


def pod(name: str, owner: tuple[str, str, str] | None = ("apps/v1", "ReplicaSet", "web"), node: str = "n1",
        status: dict | None = None, labels: dict | None = None, **meta) -> PodInfo:
    m = {"name": name, "namespace": "default", "labels": labels or {"app": "web"}, **meta}
    if owner is not None:
        api, kind, owner_name = owner
        m["ownerReferences"] = [{"apiVersion": api, "kind": kind, "name": owner_name, "uid": f"uid-{owner_name}",
                                 "controller": True}]
    spec = {"nodeName": node} if node else {}
    return PodInfo({"apiVersion": "v1", "kind": "Pod", "metadata": m, "spec": spec, "status": status or {}})


def workload(kind: str, name: str, replicas: int | None, owner: str | None = None, api: str = "apps/v1") -> dict:
    meta = {"name": name, "namespace": "default", "uid": f"uid-{name}"}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": owner,
                                    "uid": f"uid-{owner}", "controller": True}]
    return {"apiVersion": api, "kind": kind, "metadata": meta,
            "spec": {} if replicas is None else {"replicas": replicas}}


def pdb(**spec) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec}}


THREE = [pod("w1"), pod("w2"), pod("w3")]
RS3 = [workload("ReplicaSet", "web", 3)]
# case -> (spec, pods, controllers, (currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed), failed)
CASES = {
    "min int": ({"minAvailable": 2}, THREE, RS3, (3, 2, 3, 1), None),
    "min int all needed": ({"minAvailable": 3}, THREE, RS3, (3, 3, 3, 0), None),
    "min int above healthy": ({"minAvailable": 5}, THREE, RS3, (3, 5, 3, 0), None),
    "min int counts unmanaged pods": ({"minAvailable": 1}, [pod("a", owner=None), pod("b", owner=None)], [],
                                      (2, 1, 2, 1), None),
    "min percent of the scale": ({"minAvailable": "50%"}, THREE, RS3, (3, 2, 3, 1), None),    # ceil(1.5)
    "min percent of a larger scale": ({"minAvailable": "50%"}, THREE, [workload("ReplicaSet", "web", 5)],
                                      (3, 3, 5, 0), None),
    "max int": ({"maxUnavailable": 1}, THREE, RS3, (3, 2, 3, 1), None),
    "max percent rounds up": ({"maxUnavailable": "30%"}, THREE, RS3, (3, 2, 3, 1), None),     # ceil(0.9) = 1
    "max above scale": ({"maxUnavailable": 5}, THREE, RS3, (3, 0, 3, 3), None),
    "neither": ({}, THREE, RS3, (3, 0, 0, 0), None),
    # not ready, being deleted, without a node: not healthy
    "health": ({"minAvailable": 1}, [pod("r", status=READY), pod("n", status=NOT_READY),
                                     pod("d", deletionTimestamp="2026-01-01T00:00:00Z"), pod("p", node="")], RS3,
               (1, 1, 4, 0), None),
    "failed pod": ({"minAvailable": 0}, [pod("f", status={"phase": "Failed"}), pod("ok")], RS3, (1, 0, 2, 1), None),
    # the controllers' scale: a Deployment's replicas through its ReplicaSet; a ReplicaSet whose
    # Deployment is not in the input: its own (the scale subresource); each controller once
    "deployment": ({"maxUnavailable": 1}, THREE, [workload("ReplicaSet", "web", 3, owner="d"),
                                                  workload("Deployment", "d", 4)], (3, 3, 4, 0), None),
    "deployment missing": ({"maxUnavailable": 1}, THREE, [workload("ReplicaSet", "web", 3, owner="d")],
                           (3, 2, 3, 1), None),
    "statefulset": ({"maxUnavailable": "50%"}, [pod("db-0", ("apps/v1", "StatefulSet", "db")),
                                                pod("db-1", ("apps/v1", "StatefulSet", "db"))],
                    [workload("StatefulSet", "db", 2)], (2, 1, 2, 1), None),
    "two controllers": ({"maxUnavailable": 1}, [pod("a", ("apps/v1", "StatefulSet", "x")),
                                                pod("b", ("apps/v1", "StatefulSet", "y"))],
                        [workload("StatefulSet", "x", 1), workload("StatefulSet", "y", 2)], (2, 2, 3, 0), None),
    "replication controller": ({"minAvailable": "100%"}, [pod("a", ("v1", "ReplicationController", "rc"))],
                               [workload("ReplicationController", "rc", 1, api="v1")], (1, 1, 1, 0), None),
    # unmanaged pods are left out of the scale (UnmanagedPods); with none managed, nothing is expected
    "unmanaged percent": ({"minAvailable": "50%"}, [pod("a", owner=None), pod("b", owner=None)], [],
                          (2, 0, 0, 0), None),
    # the sync fails: the fail-safe allows none
    "no controller": ({"maxUnavailable": 1}, THREE, [], (0, 0, 0, 0), 'found no controllers for pod "w1"'),
    "daemonset": ({"maxUnavailable": 1}, [pod("agent-x", ("apps/v1", "DaemonSet", "agent"))], [],
                  (0, 0, 0, 0), "daemonsets.apps does not implement the scale subresource"),
    "job": ({"minAvailable": "50%"}, [pod("j", ("batch/v1", "Job", "train"))], [],
            (0, 0, 0, 0), "jobs.batch does not implement the scale subresource"),
    # a mirror pod: its Node has no scale subresource either (the mapper finds `nodes`)
    "mirror pod": ({"maxUnavailable": 1}, [pod("kube-apiserver-n1", ("v1", "Node", "n1"))], [],
                   (0, 0, 0, 0), "nodes does not implement the scale subresource"),
    # selectors: null selects nothing, another label nothing, empty everything
    "null selector": ({"minAvailable": 1, "selector": None}, THREE, RS3, (0, 1, 0, 0), None),
    "other label": ({"minAvailable": 1, "selector": {"matchLabels": {"app": "api"}}}, THREE, RS3, (0, 1, 0, 0), None),
    "empty selector": ({"minAvailable": 1, "selector": {}}, THREE + [pod("x", labels={"app": "x"})], RS3,
                       (4, 1, 4, 3), None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_status(case):
    spec, pods, controllers, (healthy, desired, expected, allowed), failed = CASES[case]
    status = computed(pdb(**spec), pods, _Controllers(controllers))
    assert status.failed == failed
    if failed is None:
        assert (status.current_healthy, status.desired_healthy, status.expected_pods, status.disruptions_allowed) == \
            (healthy, desired, expected, allowed)
    written = status.to_status()
    assert written["disruptionsAllowed"] == allowed
    assert written["conditions"][0]["reason"] == (
        "SyncFailed" if failed else "SufficientPods" if allowed > 0 else "InsufficientPods")


@pytest.mark.parametrize("value, total, want", [(1, 10, 1), ("50%", 3, 2), ("10%", 5, 1), ("0%", 5, 0),
                                                ("100%", 7, 7)])
def test_scaled_rounds_up(value, total, want):
    assert scaled(value, total) == want


def test_a_budget_with_a_status_is_read_as_it_is():
    stored = {**pdb(minAvailable=1), "status": {"disruptionsAllowed": 0, "currentHealthy": 3}}
    others = [stored]
    assert with_status(others, [p.obj for p in THREE]) is others
    assert notes([(stored, None), *((p.obj, None) for p in THREE)]) == []


def test_the_note_says_what_the_controller_computed():
    budget = pdb(minAvailable="50%")
    objs = [(budget, None), (pod("a", owner=None).obj, None), (pod("b", owner=None).obj, None)]
    (note,) = notes(objs)
    assert note == ("PodDisruptionBudget default/b has no status (as a manifest writes it): the disruption "
                    "controller's is disruptionsAllowed 0 (currentHealthy 2, desiredHealthy 0, expectedPods 0), which "
                    "preemption and the Cluster Autoscaler's scale-down read; UnmanagedPods: a, b have no controller, "
                    'so they count for no expected pod (set ".spec.minAvailable" to an integer to count them)')
    assert notes([(pdb(minAvailable=1, selector={"matchLabels": {"app": "none"}}), None)]) == []   # selects no pod


def run(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(args), env=env)
    return code, env.out, env.err


def test_preemption_reads_the_computed_status():
    """The web budget allows 1 (2 healthy, minAvailable 1): evicting one web pod of node a
    violates nothing, and a's victims have the lower priority, so preemption picks a. Read as
    disruptionsAllowed 0, the web pod's eviction was a violation, and b was picked."""
    code, out, err = run(str(DISRUPTION / "preemption-pod.yaml"), "--nodes", str(DISRUPTION / "preemption-cluster.yaml"),
                         "-o", "json", "--no-suggestions")
    post = json.loads(out)["postFilter"]
    assert (post["nominatedNodeName"], len(post["victims"])) == ("a", 1)
    assert post["victims"][0] in ("default/a-1", "default/a-2")
    assert err == ("warning: PodDisruptionBudget default/web has no status (as a manifest writes it): the disruption "
                   "controller's is disruptionsAllowed 1 (currentHealthy 2, desiredHealthy 1, expectedPods 2), which "
                   "preemption and the Cluster Autoscaler's scale-down read\n")


def test_scale_down_reads_the_computed_status():
    """n1's only pod is web-1, which the budget lets go (allowed 1): n1 is unneeded; n2's web-2
    then finds the budget spent (NotEnoughPdb). Read as disruptionsAllowed 0, n1 was blocked."""
    code, out, err = run("autoscale", "--nodes", str(DISRUPTION / "scaledown-cluster.yaml"), "--node-groups",
                         str(DISRUPTION / "scaledown-groups.yaml"), "--autoscaler-config",
                         str(DISRUPTION / "scaledown-settings.yaml"), "-o", "json")
    nodes = {n["name"]: n for n in json.loads(out)["scaleDown"]["nodes"]}
    assert nodes["n1"]["unneeded"] is True
    assert nodes["n2"]["blockingPod"] == {"pod": "default/web-2", "reason": "NotEnoughPdb"}
    assert "disruptionsAllowed 1 (currentHealthy 2, desiredHealthy 1, expectedPods 2)" in err


def test_pods_read_as_stored_count_as_healthy_only_when_ready():
    """The drain reads pods as the API server stores them: IsPodReady, no Ready condition is not ready
    (the default test takes a bound manifest's pod as ready)."""
    from kexplain.controllers.disruption import controllers_of, generation, healthy_as_stored, is_ready
    pods = [pod("a", status=READY), pod("b", status={}), pod("c", status=READY, deletionTimestamp="2026-01-01T00:00:00Z")]
    budget = {"kind": "PodDisruptionBudget", "metadata": {"name": "p", "namespace": "default"},
              "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}
    controllers = controllers_of([workload("ReplicaSet", "web", 3)])
    assert computed(budget, pods, controllers).current_healthy == 2
    stored = computed(budget, pods, controllers, healthy_as_stored)
    assert (stored.current_healthy, stored.disruptions_allowed) == (1, 0)
    assert [is_ready(p) for p in pods] == [True, False, True]
    assert generation(budget) == 1 and generation({"metadata": {"generation": 4}}) == 4

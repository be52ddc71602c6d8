"""The Cluster Autoscaler's events taken apart (kexplain.autoscaler.events): every event of the
real CA in ../shared/autoscaler parses, each reason with the plugin of CA's embedded scheduler or
CA itself; a message of another shape is not guessed at."""
from __future__ import annotations

import json

import pytest

from kexplain.autoscaler.events import AUTOSCALER, not_triggered, triggered
from kexplain.explain.event_facts import Namespace
from kexplain.features import KubeVersion
from kexplain.model.pod import PodInfo
from tests.support.paths import ROOT

CASES = ROOT.parent / "shared" / "autoscaler"
POD = PodInfo({"metadata": {"name": "p", "namespace": "shop"},
               "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}})
EMPTY = Namespace({}, {})
CA_MINOR = "1.36"      # the cases' CA embeds Kubernetes v1.36.2's scheduler


def real_events() -> list[dict]:
    return [e for path in sorted(CASES.glob("*/expected-ca.json"))
            for pod in json.loads(path.read_text()).get("pods", []) for e in pod.get("events", [])]


@pytest.mark.skipif(not CASES.is_dir(), reason=f"{CASES} is not there")
def test_every_real_autoscaler_event_parses():
    events = real_events()
    assert len(events) > 100
    for event in events:
        if event["reason"] == "NotTriggerScaleUp":
            got = not_triggered(event["message"], POD, EMPTY, KubeVersion(CA_MINOR))
            assert got["parsed"], event
            assert all(g["plugin"] for g in got["groups"]), event
        else:
            got = triggered(event["message"])
            assert got["parsed"] and got["scaleUps"], event


def test_not_triggered_rows():
    got = not_triggered("pod didn't trigger scale-up: 2 Insufficient cpu, 1 max node group size reached, "
                        '1 exceeded quota: "cluster-wide", resources: cpu, memory', POD, EMPTY, KubeVersion("1.35"))
    assert [(g["count"], g["reason"], g["plugin"]) for g in got["groups"]] == [
        (2, "Insufficient cpu", "NodeResourcesFit"), (1, "max node group size reached", AUTOSCALER),
        (1, 'exceeded quota: "cluster-wide", resources: cpu, memory', AUTOSCALER)]
    assert got["groups"][0]["podSide"].startswith("the pod requests cpu 2")
    assert got["groups"][1]["podSide"] == "the node group is at its maximum size"
    assert (got["groups"][2]["quota"], got["groups"][2]["resources"]) == ("cluster-wide", "cpu, memory")


def test_max_total_nodes_and_scale_ups():
    assert not_triggered("pod didn't trigger scale-up: max total nodes in cluster reached", POD, EMPTY,
                         KubeVersion("1.35")) == {"parsed": True, "maxTotalNodes": True, "groups": []}
    assert triggered("pod triggered scale-up: [{pool-a 1->4 (max: 5)} {pool-b 2->3 (max: 7)}]")["scaleUps"] == [
        {"group": "pool-a", "from": 1, "to": 4, "max": 5}, {"group": "pool-b", "from": 2, "to": 3, "max": 7}]


@pytest.mark.parametrize("message", ["pod didn't trigger scale-up (it wouldn't fit if a new node is added)",
                                     "pod didn't trigger scale-up: lots", "scale-up: ok"])
def test_other_shapes_are_not_parsed(message):
    assert not_triggered(message, POD, EMPTY, KubeVersion("1.35")) == {"parsed": False}


def test_every_reason_the_loop_writes_is_read_back_as_cas_own():
    """The producer's words (kexplain.autoscaler.status) are the parser's: a message made of
    every skip and reject reason parses, each row CA's own with its meaning."""
    from kexplain.autoscaler import status
    reasons = [status.MAX_LIMIT_REACHED, status.BACKOFF, status.NOT_READY, status.ATOMIC_LIMIT,
               status.exceeded_quota("cluster-wide", ["cpu", "memory"]), status.ALL_OR_NOTHING,
               status.OPTIONS_FILTERED_OUT, status.EXECUTION_FAILED]
    message = status.NOT_TRIGGERED_PREFIX + ", ".join(f"{i + 1} {r}" for i, r in enumerate(reasons))
    got = not_triggered(message, POD, EMPTY, KubeVersion("1.35"))
    assert [(g["count"], g["reason"], g["plugin"]) for g in got["groups"]] == [
        (i + 1, r, AUTOSCALER) for i, r in enumerate(reasons)]
    assert all(g["podSide"] for g in got["groups"])
    assert not_triggered(status.NOT_TRIGGERED_PREFIX + status.MAX_TOTAL_NODES, POD, EMPTY,
                         KubeVersion("1.35"))["maxTotalNodes"] is True

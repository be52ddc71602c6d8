"""The taint eviction controller's rules, as upstream's tables test them: the minimum toleration
time, the matching, each decision, the timed queue, and a pass over a node."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from kexplain.eviction.tainteviction import evaluate
from kexplain.eviction.tainteviction.helper import matching_tolerations
from kexplain.eviction.tainteviction.taint_eviction import (EVICT_AFTER, EVICT_NOW, KEEP, Controller,
                                                            min_toleration_seconds, no_execute_taints)
from kexplain.eviction.tainteviction.timed_workers import TimedWorkerQueue
from kexplain.features import KubeVersion

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
GPU = {"key": "dedicated", "value": "gpu", "effect": "NoExecute"}
DOWN = {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}


def _tol(key: str = "", seconds: int | None = None, op: str = "Exists", value: str = "",
         effect: str = "NoExecute") -> dict:
    t = {"key": key, "operator": op, "effect": effect}
    if value:
        t["value"] = value
    if seconds is not None:
        t["tolerationSeconds"] = seconds
    return t


@pytest.mark.parametrize(("seconds", "least"), [
    ([], 0),                        # no tolerations used: now
    ([None], None),                 # none with seconds: forever
    ([None, 1000], 1000),           # the ones without seconds do not count
    ([300, 60, 120], 60),
    ([300, 0], 0), ([300, -5], 0),  # zero or less: now
])
def test_min_toleration_seconds(seconds: list[int | None], least: int | None) -> None:
    assert min_toleration_seconds([_tol("k", s) for s in seconds]) == least


@pytest.mark.parametrize(("seconds", "decision", "after"), [
    (9223372036, EVICT_AFTER, 9223372036),      # the largest that time.Duration holds
    (9223372037, KEEP, None),                   # wraps negative: tolerated forever, as an infinite one
    (18446744074, EVICT_AFTER, 1),              # wraps to 0.29 s
])
def test_a_toleration_past_int64_nanoseconds_wraps_as_time_duration(seconds, decision, after) -> None:
    got = Controller().process_pod_on_node("default/p", [_tol("dedicated", seconds)], [GPU], NOW)
    assert (got.decision, got.after_seconds) == (decision, after)


def test_only_no_execute_taints_count() -> None:
    taints = [{"key": "a", "effect": "NoSchedule"}, GPU, {"key": "b", "effect": "PreferNoSchedule"}, DOWN]
    assert no_execute_taints(taints) == [GPU, DOWN]
    assert no_execute_taints(None) == []


def test_matching_takes_each_taints_first_toleration_and_is_all_or_nothing() -> None:
    first, second = _tol("dedicated", 60), _tol("", 10)
    assert matching_tolerations([GPU, DOWN], [first, second], False) == (True, [first, second])
    assert matching_tolerations([GPU, DOWN], [first], False) == (False, [])
    assert matching_tolerations([], [], False) == (True, [])
    wrong_value = _tol("dedicated", op="Equal", value="cpu")
    assert matching_tolerations([GPU], [wrong_value], False) == (False, [])


def test_comparison_operators_follow_their_gate() -> None:
    taint = {"key": "gen", "value": "5", "effect": "NoExecute"}
    lt = _tol("gen", op="Lt", value="7")
    assert matching_tolerations([taint], [lt], False)[0] is False
    assert matching_tolerations([taint], [lt], True)[0] is True
    on = KubeVersion("1.36").with_feature_gates("TaintTolerationComparisonOperators=true")
    pod = {"metadata": {"name": "p", "namespace": "ns"}, "spec": {"tolerations": [lt, _tol()]}}
    node = {"spec": {"taints": [taint]}}
    assert evaluate(node, [pod], KubeVersion("1.36"), NOW).pods[0].decision.decision == KEEP
    assert evaluate(node, [pod], on, NOW).pods[0].decision.decision == KEEP
    alone = {"metadata": {"name": "p"}, "spec": {"tolerations": [lt]}}
    assert evaluate(node, [alone], KubeVersion("1.36"), NOW).pods[0].decision.decision == EVICT_NOW
    assert evaluate(node, [alone], on, NOW).pods[0].decision.decision == KEEP


@pytest.mark.parametrize(("tolerations", "decision", "after"), [
    ([], EVICT_NOW, None),
    ([_tol("dedicated")], KEEP, None),
    ([_tol("dedicated", 600)], EVICT_AFTER, 600),
    ([_tol("dedicated", 0)], EVICT_NOW, None),
    ([_tol("other", 5)], EVICT_NOW, None),
])
def test_process_pod_on_node(tolerations: list[dict], decision: str, after: int | None) -> None:
    controller = Controller()
    got = controller.process_pod_on_node("ns/p", tolerations, [GPU], NOW)
    assert (got.decision, got.after_seconds) == (decision, after)
    assert (controller.queue.get_worker("ns/p") is None) == (decision == KEEP)


def test_an_earlier_scheduled_deletion_stands_and_a_later_one_is_moved() -> None:
    controller = Controller()
    controller.queue.add_work("ns/p", NOW - timedelta(seconds=100), NOW + timedelta(seconds=200))
    assert controller.process_pod_on_node("ns/p", [_tol("dedicated", 300)], [GPU], NOW).after_seconds == 200
    controller = Controller()
    controller.queue.add_work("ns/p", NOW, NOW + timedelta(seconds=50))
    assert controller.process_pod_on_node("ns/p", [_tol("dedicated", 300)], [GPU], NOW).after_seconds == 300


def test_the_queue_keeps_the_first_work_per_key_and_fires_in_time_order() -> None:
    queue = TimedWorkerQueue()
    queue.add_work("a", NOW, NOW + timedelta(seconds=30))
    queue.add_work("a", NOW, NOW)                        # already there: skipped
    queue.add_work("b", NOW, NOW)
    queue.add_work("c", NOW, NOW + timedelta(seconds=30))
    assert [w.key for w in queue.fire_all()] == ["b", "a", "c"]
    assert queue.workers == {} and queue.cancel_work("a") is False


def test_a_pass_over_a_node() -> None:
    node = {"spec": {"taints": [GPU, {"key": "x", "effect": "NoSchedule"}, DOWN]}}
    pods = [
        {"metadata": {"name": "b", "namespace": "web"}, "spec": {"tolerations": [_tol("dedicated", 100)]}},
        {"metadata": {"name": "a", "namespace": "web", "generation": 3}, "spec": {}},
        {"metadata": {"name": "c", "namespace": "ops"}, "spec": {"tolerations": [_tol()]}},
    ]
    result = evaluate(node, pods, KubeVersion("1.36"), NOW)
    assert result.taints == (GPU, DOWN)
    assert [(p.key, p.decision.decision, p.decision.after_seconds) for p in result.pods] == [
        ("ops/c", KEEP, None), ("web/a", EVICT_NOW, None), ("web/b", EVICT_AFTER, 100)]
    assert [len(p.added) for p in result.pods] == [0, 2, 2]
    assert [d.key for d in result.deletions] == ["web/a", "web/b"]          # in the order they fire
    assert result.deletions[0].condition["observedGeneration"] == 3         # PodObservedGenerationTracking
    old = evaluate(node, pods, KubeVersion("1.33"), NOW)
    assert "observedGeneration" not in old.deletions[0].condition
    assert result.deletions[1].fire_at == NOW + timedelta(seconds=100)
    assert result.deletions[1].event == {"object": "web/b", "type": "Normal", "reason": "TaintManagerEviction",
                                         "message": "Marking for deletion Pod web/b"}
    untainted = evaluate({"spec": {}}, pods, KubeVersion("1.36"), NOW)
    assert {p.decision.decision for p in untainted.pods} == {KEEP} and untainted.deletions == ()

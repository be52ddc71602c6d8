"""The Eviction subresource (`eviction.api`): EvictionREST.Create's branches and checkAndDecrement's
refusals and words, by minor (eviction_test.go's cases, worked by hand)."""
from __future__ import annotations

import pytest

from kexplain.eviction.api import (MORE_THAN_ONE, NO_BUDGET, NO_BUDGET_NEEDED, SPENT, UNHEALTHY_ALWAYS,
                                   UNHEALTHY_BUDGET_HEALTHY, VIOLATES, Budget, budget_of, check_and_decrement,
                                   evict)
from kexplain.eviction.drain.drain import evict_pods, kubectl_line
from kexplain.eviction.versions import drain_rules
from kexplain.model.labels import parse_selector
from kexplain.model.pod import PodInfo

NEW, OLD = drain_rules("1.36"), drain_rules("1.34")


def budget(name: str = "web-pdb", healthy: int = 3, desired: int = 2, allowed: int = 1, policy: str = "",
           observed: int = 1, conditions: tuple = ()) -> Budget:
    return Budget("default", name, parse_selector({"matchLabels": {"app": "web"}}), 1, policy, observed, healthy,
                  desired, 3, allowed, conditions)


def pod(name: str = "web-1", ready: bool = True, phase: str = "Running", labels: dict | None = None) -> PodInfo:
    status = {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}
    return PodInfo({"apiVersion": "v1", "kind": "Pod", "spec": {"nodeName": "n1"}, "status": status,
                    "metadata": {"name": name, "namespace": "default", "labels": labels or {"app": "web"}}})


def test_a_spent_budget_refuses_with_429_and_its_cause_as_the_minor_words_it():
    spent = budget(healthy=3, desired=2, allowed=0)
    new, old = check_and_decrement("web-1", spent, NEW), check_and_decrement("web-1", spent, OLD)
    assert (new.code, new.reason, new.message, new.retry_after) == (429, "TooManyRequests", VIOLATES, 0)
    assert new.causes[0]["message"] == "The disruption budget web-pdb does not allow evicting pods currently"
    assert old.causes[0]["message"] == "The disruption budget web-pdb needs 2 healthy pods and has 3 currently"
    short = check_and_decrement("web-1", budget(healthy=2, desired=2, allowed=0), NEW)
    assert short.causes[0]["message"] == "The disruption budget web-pdb needs 2 healthy pods and has 2 currently"


@pytest.mark.parametrize("condition, cause", [
    ({"type": "DisruptionAllowed", "status": "False", "reason": "SyncFailed", "message": "boom"},
     "The disruption budget web-pdb does not allow evicting pods currently because it failed sync: boom"),
    ({"type": "DisruptionAllowed", "status": "False", "reason": "Paused", "message": "held"},
     "The disruption budget web-pdb does not allow evicting pods currently (Paused): held"),
])
def test_the_condition_words_a_refusal_from_1_35(condition, cause):
    answer = check_and_decrement("web-1", budget(healthy=3, desired=2, allowed=0, conditions=(condition,)), NEW)
    assert answer.causes[0]["message"] == cause


def test_stale_negative_and_spending():
    stale = check_and_decrement("web-1", budget(observed=0), NEW)
    assert (stale.code, stale.retry_after) == (429, 10)
    assert stale.causes[0]["message"] == "The disruption budget web-pdb is still being processed by the server."
    negative = check_and_decrement("web-1", budget(allowed=-1), NEW)
    assert (negative.code, negative.message) == (403, 'poddisruptionbudget.policy "web-pdb" is forbidden: pdb '
                                                      'disruptions allowed is negative')
    spent = check_and_decrement("web-1", budget(allowed=1), NEW)
    assert (spent.evicted, spent.rule, spent.budget.disruptions_allowed) == (True, SPENT, 0)
    assert spent.budget.disrupted_pods == ("web-1",)
    assert spent.budget.conditions == ({"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods",
                                        "observedGeneration": 1},)


def test_create_branches():
    one = [budget()]
    assert evict(pod(phase="Pending"), one, NEW).rule == NO_BUDGET_NEEDED
    assert evict(pod(labels={"app": "other"}), one, NEW).rule == NO_BUDGET
    two = evict(pod(), [budget(), budget("extra")], NEW)
    assert (two.code, two.reason, two.message) == (500, "", MORE_THAN_ONE)
    assert evict(pod(ready=False), [budget(allowed=0, policy="AlwaysAllow")], NEW).rule == UNHEALTHY_ALWAYS
    assert evict(pod(ready=False), [budget(allowed=0)], NEW).rule == UNHEALTHY_BUDGET_HEALTHY
    assert evict(pod(ready=False), [budget(healthy=1, allowed=0)], NEW).code == 429


def test_the_loop_spends_what_the_previous_eviction_left():
    evictions, after = evict_pods([pod("web-1"), pod("web-2")], [budget(allowed=1)], NEW)
    assert [e.answer.evicted for e in evictions] == [True, False]
    assert evictions[1].before.disruptions_allowed == 0 and after["default/web-pdb"].disrupted_pods == ("web-1",)
    assert kubectl_line(evictions[1].pod, evictions[1].answer) == (
        'error when evicting pods/"web-2" -n "default" (will retry after 5s): ' + VIOLATES)
    assert kubectl_line(evictions[0].pod, evictions[0].answer) == "evicting pod default/web-1"


def test_budget_of_reads_a_given_status_and_refuses_no_selector():
    pdb = {"metadata": {"name": "p", "namespace": "ns"}, "spec": {"selector": {"matchExpressions": [
        {"key": "a", "operator": "Bogus"}]}}}
    read = budget_of(pdb, {"disruptionsAllowed": 2, "disruptedPods": {"b": "t", "a": "t"}}, 1)
    assert (read.selector, read.disruptions_allowed, read.disrupted_pods, read.observed_generation) == \
        (None, 2, ("a", "b"), 0)
    assert not read.selects(PodInfo({"metadata": {"namespace": "ns", "labels": {}}}))

"""Classical preemption (scheduler/preemption): the policies, the order candidates are tried in,
who is chosen within the ClusterQueue and when reclaiming from the cohort, and the conditions
and events a preemption writes."""
from __future__ import annotations

import functools
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest

from kexplain.kueue.apis.meta import ObjectMeta
from kexplain.kueue.apis.constants import EVICTED, QUOTA_RESERVED
from kexplain.kueue.apis.workload import Condition, WorkloadSpec
from kexplain.kueue.scheduler.preemption import classical
from kexplain.kueue.scheduler.preemption.common import quota_reservation_time, satisfies_policy
from kexplain.kueue.workload.info import Info
from kexplain.kueue.workload.ordering import priority
from kexplain.kueue.workload.workload import TRUE, Workload, is_evicted, set_evicted
from tests.kueue.builders import cluster_queue, flavor, local_queue, run, workload

T0 = datetime(2025, 12, 31, 20, tzinfo=timezone.utc)
T1 = datetime(2025, 12, 31, 21, tzinfo=timezone.utc)


def _wl(prio: int, created: datetime, uid: str = "") -> Workload:
    return Workload(ObjectMeta("w", "default", uid=uid, created=created), WorkloadSpec("q", (), priority=prio))


def candidates_order(a: Info, b: Info, cq: str, now: datetime) -> int:
    """Kueue's CandidatesOrdering comparator, the reference the per-cycle index is held to: evicted
    first, then those of other ClusterQueues, then lower priority, then the most recently
    admitted, then by uid."""
    ea, eb = is_evicted(a.obj), is_evicted(b.obj)
    if ea != eb:
        return -1 if ea else 1
    oa, ob = a.cluster_queue == cq, b.cluster_queue == cq
    if oa != ob:
        return -1 if ob else 1
    pa, pb = priority(a.obj), priority(b.obj)
    if pa != pb:
        return -1 if pa < pb else 1
    ta, tb = quota_reservation_time(a.obj, now), quota_reservation_time(b.obj, now)
    if ta != tb:
        return -1 if tb < ta else 1
    ua, ub = a.obj.meta.uid, b.obj.meta.uid
    return (ua > ub) - (ua < ub)


@pytest.mark.parametrize(("preemptor", "candidate", "policy", "ok"), [
    (_wl(10, T0), _wl(5, T0), "LowerPriority", True),
    (_wl(10, T0), _wl(10, T0), "LowerPriority", False),
    (_wl(10, T0), _wl(10, T1), "LowerOrNewerEqualPriority", True),       # the candidate is newer
    (_wl(10, T1), _wl(10, T0), "LowerOrNewerEqualPriority", False),
    (_wl(10, T0), _wl(10, T0), "LowerOrNewerEqualPriority", False),
    (_wl(1, T0), _wl(10, T0), "Any", True),
    (_wl(10, T0), _wl(1, T0), "Never", False),
])
def test_satisfies_policy(preemptor, candidate, policy, ok) -> None:
    assert satisfies_policy(preemptor, candidate, policy) is ok


def test_candidates_order_other_queues_then_lower_priority_then_uid() -> None:
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    own_low = Info(_wl(1, T0, "b"), [], "cq")
    own_high = Info(_wl(5, T0, "a"), [], "cq")
    other = Info(_wl(9, T0, "c"), [], "other")
    ordered = sorted([own_high, own_low, other], key=functools.cmp_to_key(lambda a, b: candidates_order(a, b, "cq", now)))
    assert [i.obj.meta.uid for i in ordered] == ["c", "b", "a"]


def _reserved(wl: Workload, at: datetime | None, evicted: bool) -> Workload:
    if at is not None:
        wl.conditions.append(Condition(QUOTA_RESERVED, TRUE, "QuotaReserved", "", at))
    if evicted:
        wl.conditions.append(Condition(EVICTED, TRUE, "Preempted", "", at))
    return wl


@pytest.mark.parametrize("cq", ["cq", "other"])
def test_held_order_is_candidates_ordering_within_a_group(cq) -> None:
    """The per-cycle index (`classical.held`) orders one ClusterQueue's Workloads as the
    CandidatesOrdering comparator does (evicted, priority, newest reservation, uid, the time
    of reservation defaulting to now), for the preemptor's ClusterQueue and another's."""
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    infos = [Info(_reserved(_wl(prio, T0, uid), at, evicted), [], "cq")
             for prio, uid, at, evicted in [(5, "a", T0, False), (5, "b", T1, False), (1, "c", T1, False),
                                            (9, "d", None, False), (5, "e", T0, True), (1, "f", T0, False),
                                            (5, "g", T0, False), (9, "h", T1, True)]]
    by_cmp = sorted(infos, key=functools.cmp_to_key(lambda a, b: candidates_order(a, b, cq, now)))
    snap = SimpleNamespace(held={})
    ctx = classical.Context(_wl(10, T0), SimpleNamespace(name=cq), frozenset(), {}, snap, now)
    held = classical.held(ctx, SimpleNamespace(name="cq", workloads={i.obj.meta.uid: i for i in infos}))
    assert [h.info.obj.meta.uid for h in held] == [i.obj.meta.uid for i in by_cmp] == list("ehcfbagd")
    assert classical.held(ctx, SimpleNamespace(name="cq", workloads={})) is held      # once per snapshot
    set_evicted(infos[0].obj, "Preempted", "m", now)        # a later cycle sees the eviction
    ctx.snapshot = SimpleNamespace(held={})
    again = classical.held(ctx, SimpleNamespace(name="cq", workloads={i.obj.meta.uid: i for i in infos}))
    by_cmp = sorted(infos, key=functools.cmp_to_key(lambda a, b: candidates_order(a, b, cq, now)))
    assert [h.info.obj.meta.uid for h in again] == [i.obj.meta.uid for i in by_cmp] == list("aehcfbgd")


CQ = [flavor("default"), local_queue("q", "cq")]


@pytest.mark.parametrize(("policy", "running", "preempted", "message"), [
    # a lower priority one, the fewest needed (equal priorities and admission times: by uid)
    ("LowerPriority", [("low-1", 0, "2"), ("low-2", 0, "2"), ("mid", 50, "2")], ["default/low-1"],
     "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed. "
     "Pending the preemption of 1 workload(s)"),
    ("Never", [("low-1", 0, "2"), ("low-2", 0, "2"), ("mid", 50, "2")], [],
     "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed"),
    ("LowerPriority", [("same-1", 100, "3"), ("same-2", 100, "3")], [],
     "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed"),
])
def test_within_cluster_queue(policy, running, preempted, message) -> None:
    admitted = [workload(name, "q", {"cpu": cpu}, priority=p, admitted_in="cq", uid=f"uid-{name}",
                         created=f"2025-12-31T1{i}:00:00Z") for i, (name, p, cpu) in enumerate(running)]
    done = run(*CQ, cluster_queue("cq", {"default": {"cpu": "6"}}, preemption={"withinClusterQueue": policy}),
               *admitted, submitted=(workload("high", "q", {"cpu": "2"}, priority=100),))
    high = done.workloads["default/high"]
    assert high.find("QuotaReserved").message == message
    assert sorted(k for k, w in done.workloads.items() if w.is_true("Evicted")) == preempted
    for key in preempted:
        events = {(e.object, e.reason) for e in done.events}
        assert {(key, "EvictedDueToPreempted"), (key, "Preempted"), ("default/high", "PreemptedWorkload")} <= events


def test_reclaim_within_cohort_takes_a_borrowing_queues_workload() -> None:
    docs = [flavor("default"), local_queue("a", "team-a"), local_queue("b", "team-b"),
            cluster_queue("team-a", {"default": {"cpu": "4"}}, cohort="shared",
                          preemption={"reclaimWithinCohort": "Any"}),
            cluster_queue("team-b", {"default": {"cpu": "4"}}, cohort="shared"),
            workload("b-own", "b", {"cpu": "4"}, admitted_in="team-b", uid="u1", created="2025-12-31T10:00:00Z",
                     priority=10),
            workload("b-borrowed", "b", {"cpu": "3"}, admitted_in="team-b", uid="u2", created="2025-12-31T11:00:00Z")]
    done = run(*docs, submitted=(workload("a-train", "a", {"cpu": "3"}),))
    victim = done.workloads["default/b-borrowed"]
    assert victim.find("Preempted").reason == "InCohortReclamation"
    assert victim.find("Evicted").message.endswith("preemptor path: /shared/team-a; preemptee path: /shared/team-b")
    assert not done.workloads["default/b-own"].is_true("Evicted")

"""Fair sharing (pkg/cache/scheduler/fair_sharing.go, preemption/fairsharing, the scheduler's
fair-sharing iterator and Kueue's Configuration): the dominant resource share, the strategies,
which Workload a fair-sharing preemption takes, and the Configuration read as Kueue's loader
reads it."""
from __future__ import annotations

import math

import pytest
import yaml

from kexplain.errors import InputError
from kexplain.kueue.cache import fair_sharing as fs
from kexplain.kueue.config import parse_configuration
from tests.kueue.builders import cluster_queue, flavor, local_queue, run, snapshot, workload

POLICY = {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}


def config(enable: bool = True, strategies: list[str] | None = None) -> str:
    fair: dict = {"enable": enable}
    if strategies is not None:
        fair["preemptionStrategies"] = strategies
    return yaml.safe_dump({"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration",
                           "fairSharing": fair})


def queues(weights: dict[str, float] | None = None) -> list[str]:
    """Three ClusterQueues of 8 cpus in cohort `shared`, each with its LocalQueue."""
    weights = weights or {}
    out = [flavor("default")]
    for team in ("a", "b", "c"):
        extra = {"fairSharing": {"weight": str(weights[team])}} if team in weights else {}
        out.append(cluster_queue(f"{team}-cq", {"default": {"cpu": "8"}}, cohort="shared", preemption=POLICY, **extra))
        out.append(local_queue(f"{team}-q", f"{team}-cq", namespace=team))
    return out


def admitted(name: str, team: str, cpu: str, created: str = "2025-12-31T20:00:00Z") -> str:
    return workload(name, f"{team}-q", {"cpu": cpu}, namespace=team, admitted_in=f"{team}-cq", created=created,
                    uid=f"uid-{name}")


@pytest.mark.parametrize(("weight", "share"), [(None, 8000 / 24), (2, 4000 / 24), (0, math.inf)])
def test_the_dominant_resource_share(weight, share) -> None:
    """b borrows 8 cpus above its quota, per mille of what its cohort could lend (the cohort's
    24), divided by its weight."""
    snap = snapshot(*queues({"b": weight} if weight is not None else None), admitted("big", "b", "16"))
    drs = fs.dominant_resource_share(snap.cluster_queue("b-cq"))
    assert drs.borrowing and drs.dominant_resource == "cpu"
    assert drs.weighted_share() == share
    idle = fs.dominant_resource_share(snap.cluster_queue("a-cq"))
    assert not idle.borrowing and idle.weighted_share() == 0


def test_a_zero_weight_that_borrows_ranks_above_everything() -> None:
    zero = fs.DRS(0.0, 10.0, "cpu", True)
    assert fs.compare(zero, fs.DRS(1.0, 5000.0, "cpu", True)) == 1
    assert fs.compare(fs.DRS(1.0, 10.0, "cpu", True), zero) == -1
    assert fs.compare(fs.DRS(2.0, 10.0), fs.DRS(1.0, 5.0)) == 0


def test_within_its_nominal_quota_a_queue_reclaims_from_the_one_borrowing() -> None:
    """a's job stays within a's nominal quota: b's Workloads are taken without asking a strategy
    (FairSharingPreemptWithinNominal), the first in candidate order (same reservation time: uid)."""
    docs = [*queues(), config(), admitted("b-1", "b", "8"), admitted("b-2", "b", "8"), admitted("c-1", "c", "8")]
    done = run(*docs, submitted=(workload("a-job", "a-q", {"cpu": "4"}, namespace="a"),))
    assert [k for k, wl in done.workloads.items() if wl.is_true("Preempted")] == ["b/b-1"]
    assert done.workloads["b/b-1"].find("Preempted").reason == "InCohortReclamation"
    pending = done.workloads["a/a-job"].find("QuotaReserved")
    assert pending.message.endswith("4 more needed. Pending the preemption of 1 workload(s)")


@pytest.mark.parametrize(("strategies", "victim"), [
    (["LessThanOrEqualToFinalShare"], "b/b-2"),     # b-1 gone would leave b below a's 4000/24: refused
    (["LessThanInitialShare"], "b/b-1"),            # a's 4000/24 with its job is below b's 8000/24 now
    (None, "b/b-2"),                                # the default pair: the first decides here
])
def test_past_its_nominal_quota_the_strategy_decides(strategies, victim) -> None:
    """a borrows 4 with its job (share 4000/24), b borrows 8 (8000/24) with b-1 (12) and b-2 (4)."""
    docs = [*queues(), config(strategies=strategies), admitted("a-1", "a", "8"), admitted("b-1", "b", "12"),
            admitted("b-2", "b", "4")]
    done = run(*docs, submitted=(workload("a-job", "a-q", {"cpu": "4"}, namespace="a"),))
    assert [k for k, wl in done.workloads.items() if wl.is_true("Preempted")] == [victim]
    assert done.workloads[victim].find("Preempted").reason == "InCohortFairSharing"


def test_no_strategy_allows_it() -> None:
    """a would borrow 6 (6000/24) and b borrows 6: losing either Workload leaves b below a."""
    docs = [*queues(), config(), admitted("a-1", "a", "10"), admitted("b-1", "b", "9"), admitted("b-2", "b", "5")]
    done = run(*docs, submitted=(workload("a-job", "a-q", {"cpu": "4"}, namespace="a"),))
    assert not any(wl.is_true("Preempted") for wl in done.workloads.values())
    assert done.workloads["a/a-job"].find("QuotaReserved").message.endswith("4 more needed")


def test_without_the_configuration_preemption_is_classical() -> None:
    docs = [*queues(), admitted("a-1", "a", "8"), admitted("b-1", "b", "12")]
    done = run(*docs, submitted=(workload("a-job", "a-q", {"cpu": "2"}, namespace="a"),))
    assert not any(wl.is_true("Preempted") for wl in done.workloads.values())


@pytest.mark.parametrize(("doc", "enabled", "strategies"), [
    ({"fairSharing": {"enable": True}}, True, ("LessThanOrEqualToFinalShare", "LessThanInitialShare")),
    ({"fairSharing": {"enable": False, "preemptionStrategies": ["LessThanInitialShare"]}}, False, None),
    ({}, False, None),
    ({"fairSharing": {"enable": True, "preemptionStrategies": ["LessThanInitialShare"]}}, True,
     ("LessThanInitialShare",)),
])
def test_the_configuration(doc, enabled, strategies) -> None:
    got = parse_configuration({"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration", **doc})
    assert (got.fair_sharing is not None) is enabled
    if enabled:
        assert got.fair_sharing.preemption_strategies == strategies


def test_strategies_kueue_refuses() -> None:
    with pytest.raises(InputError, match="fairSharing.preemptionStrategies: Unsupported value"):
        parse_configuration({"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration",
                             "fairSharing": {"enable": True,
                                             "preemptionStrategies": ["LessThanInitialShare",
                                                                      "LessThanOrEqualToFinalShare"]}})


@pytest.mark.parametrize(("fair", "admitted_job"), [(True, "c/c-job"), (False, "b/b-job")])
def test_the_iterator_serves_the_lower_share_first(fair, admitted_job) -> None:
    """One cpu free in the cohort, two heads that would both borrow: fair sharing's tournament
    gives it to c (its share with the job 2000/24, b's 5000/24) though b's is older; without
    fair sharing the classical order (same borrowing, same priority) takes the older."""
    docs = [*queues(), *([config()] if fair else []), admitted("a-1", "a", "2"), admitted("b-1", "b", "12"),
            admitted("c-1", "c", "9")]
    subs = (workload("b-job", "b-q", {"cpu": "1"}, namespace="b", created="2025-12-31T20:00:00Z"),
            workload("c-job", "c-q", {"cpu": "1"}, namespace="c", created="2025-12-31T21:00:00Z"))
    done = run(*docs, submitted=subs)
    assert [k for k in ("b/b-job", "c/c-job") if done.workloads[k].is_true("QuotaReserved")] == [admitted_job]


def test_a_fair_sharing_refusal_is_explained() -> None:
    """Weights 1 (a) and 2 (b): a asking 8 more would borrow 4 (share 250); b borrows 4 (250 / 2 =
    125) and losing a Workload of 6 leaves it at 0: LessThanOrEqualToFinalShare (250 <= 0) and
    LessThanInitialShare (250 < 125) both refuse, and the explanation says so, with the shares."""
    from kexplain.kueue.explain import explanation
    from kexplain.render.kueue import _preemption_lines
    docs = [flavor("default"), config()]
    for team, weight in (("a", 1), ("b", 2)):
        docs.append(cluster_queue(f"{team}-cq", {"default": {"cpu": "8"}}, cohort="shared", preemption=POLICY,
                                  fairSharing={"weight": str(weight)}))
        docs.append(local_queue(f"{team}-q", f"{team}-cq", namespace=team))
    done = run(*docs, admitted("a-old", "a", "4"), admitted("b-1", "b", "6"),
               admitted("b-2", "b", "6", created="2025-12-31T21:00:00Z"),
               submitted=(workload("a-new", "a-q", {"cpu": "8"}, namespace="a", priority=0),))
    assert not done.workloads["a/a-new"].is_true("QuotaReserved")
    item = next(w for w in explanation(done)["workloads"] if w["workload"] == "a/a-new")
    section = item["preemption"]
    b_candidates = [c for c in section["candidates"] if c["clusterQueue"] == "b-cq"]
    assert b_candidates and all(c["verdict"] == "fair-sharing-refused" for c in b_candidates)
    fair = section["fairSharing"]
    assert fair["strategies"] == ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
    shares = {q["name"]: q for q in fair["clusterQueues"]}
    assert shares["a-cq"]["before"]["share"] == "0" and shares["a-cq"]["after"]["share"] == "250"
    assert (shares["b-cq"]["before"]["share"], shares["b-cq"]["before"]["weight"]) == ("125", "2")
    refusals = {(d["workload"], d["strategy"]): d for d in fair["decisions"]}
    first = refusals[("b/b-2", "LessThanOrEqualToFinalShare")]
    assert not first["allowed"] and first["targetAfter"]["share"] == "0"
    assert not refusals[("b/b-1", "LessThanInitialShare")]["allowed"]     # S2-b: the first refused of b-cq
    text = " ".join(t for _, t in _preemption_lines(section))
    assert "fair sharing refuses it (LessThanOrEqualToFinalShare, LessThanInitialShare)" in text
    assert "b-cq: 125 (cpu, weight 2)" in text and "250 with this Workload admitted" in text
    assert "LessThanInitialShare refuses it: a-cq's share with this Workload (250) >= b-cq's now (125)" in text

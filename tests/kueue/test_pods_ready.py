"""waitForPodsReady (kexplain/kueue/controller/core/pods_ready.py, the scheduler's blockAdmission): an
admitted Workload not PodsReady past its timeout is evicted and requeued with a backoff, or deactivated
past the backoff limit; with blockAdmission the scheduler admits nothing while one is not ready."""
from __future__ import annotations

from typing import Any

import pytest
import yaml

from kexplain.kueue.apis.constants import EVICTED
from kexplain.kueue.explain import explanation
from kexplain.kueue.scheduler.scheduler import Entry
from kexplain.kueue.workload.info import new_info
from kexplain.kueue.workload.workload import Workload
from tests.kueue.builders import NOW, cluster_queue, flavor, local_queue, read, run, workload

KUEUE = [flavor("default"), cluster_queue("cq", {"default": {"cpu": "8"}}), local_queue("q", "cq"),
         cluster_queue("cq2", {"default": {"cpu": "8"}}), local_queue("q2", "cq2")]
WAITING = ("False", "Waiting", "waiting for all admitted workloads to be in PodsReady condition")


def config(**ready: Any) -> str:
    return yaml.safe_dump({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                           "waitForPodsReady": ready})


def admitted(name: str, pods_ready: tuple[str, str, str] | None = None, **status: Any) -> str:
    """A Workload admitted in cq at 23:00 (an hour before the pass), with a PodsReady condition
    (status, reason, lastTransitionTime) when given."""
    obj = yaml.safe_load(workload(name, "q", {"cpu": "2"}, admitted_in="cq"))
    if pods_ready is not None:
        obj["status"]["conditions"].append({"type": "PodsReady", "status": pods_ready[0], "reason": pods_ready[1],
                                            "message": "", "lastTransitionTime": pods_ready[2]})
    obj["status"].update(status)
    return yaml.safe_dump(obj)


def quota_reserved(done, key: str) -> tuple[str, str, str]:
    cond = done.workloads[key].find("QuotaReserved")
    return cond.status, cond.reason, cond.message


READY = ("True", "PodsReady", "2025-12-31T23:10:00Z")


def test_block_admission_waits_while_an_admitted_workload_is_not_ready() -> None:
    done = run(*KUEUE, admitted("a"), config(timeout="2h", blockAdmission=True),
               submitted=(workload("w", "q2", {"cpu": "1"}),))
    assert quota_reserved(done, "default/w") == WAITING
    assert done.workloads["default/w"].admission is None


def test_without_block_admission_or_with_every_workload_ready_it_admits() -> None:
    for docs in ([admitted("a"), config(timeout="2h")], [admitted("a", READY), config(timeout="2h", blockAdmission=True)]):
        done = run(*KUEUE, *docs, submitted=(workload("w", "q2", {"cpu": "1"}),))
        assert quota_reserved(done, "default/w")[0] == "True"


def test_a_workload_the_pass_admits_blocks_the_next() -> None:
    """Admitted in the pass, the first Workload is not ready yet: the second waits (in the same cycle)."""
    done = run(*KUEUE, admitted("a", READY), config(timeout="2h", blockAdmission=True),
               submitted=(workload("w1", "q", {"cpu": "1"}, created="2025-12-31T20:00:00Z"),
                          workload("w2", "q2", {"cpu": "1"}, created="2025-12-31T20:01:00Z")))
    assert quota_reserved(done, "default/w1")[0] == "True"
    assert quota_reserved(done, "default/w2") == WAITING


def test_past_the_timeout_it_is_evicted_and_requeued_with_a_backoff() -> None:
    done = run(*KUEUE, admitted("a"), config(timeout="30m"))
    wl = done.workloads["default/a"]
    cond = wl.find(EVICTED)
    assert (cond.status, cond.reason, cond.message) == ("True", "PodsReadyTimeout",
                                                         "Exceeded the PodsReady timeout default/a")
    assert [(e.reason, e.message) for e in done.events if e.object == "default/a"] == [
        ("EvictedDueToPodsReadyTimeout", "Exceeded the PodsReady timeout default/a")]
    assert wl.requeue_state.count == 1 and (wl.requeue_state.requeue_at - NOW).total_seconds() == 60


def test_within_the_timeout_nothing_happens() -> None:
    done = run(*KUEUE, admitted("a"), config(timeout="2h"))
    assert done.workloads["default/a"].find(EVICTED) is None and done.workloads["default/a"].requeue_state is None


@pytest.mark.parametrize(("ready", "evicted"), [
    ({"timeout": "2h", "recoveryTimeout": "10m"}, True),     # waiting for recovery for 20 minutes
    ({"timeout": "2h", "recoveryTimeout": "30m"}, False),
    ({"timeout": "15m"}, True),                              # the recovery timeout defaults to the timeout
])
def test_the_recovery_timeout_counts_from_the_pods_ready_condition(ready, evicted) -> None:
    done = run(*KUEUE, admitted("a", ("False", "WaitForRecovery", "2025-12-31T23:40:00Z")), config(**ready))
    cond = done.workloads["default/a"].find(EVICTED)
    assert (cond is not None and cond.reason == "PodsReadyTimeout") is evicted


def test_the_backoff_doubles_with_the_requeues_up_to_its_cap() -> None:
    state = {"requeueState": {"count": 3}}
    done = run(*KUEUE, admitted("a", **state), config(timeout="30m", requeuingStrategy={"backoffMaxSeconds": 300}))
    wl = done.workloads["default/a"]
    assert wl.requeue_state.count == 4 and (wl.requeue_state.requeue_at - NOW).total_seconds() == 300
    done = run(*KUEUE, admitted("a", **state), config(timeout="30m"))
    assert (done.workloads["default/a"].requeue_state.requeue_at - NOW).total_seconds() == 480     # 60·2^3


def test_past_the_backoff_limit_it_is_deactivated() -> None:
    done = run(*KUEUE, admitted("a", requeueState={"count": 2}),
               config(timeout="30m", requeuingStrategy={"backoffLimitCount": 2}))
    wl = done.workloads["default/a"]
    cond = wl.find(EVICTED)
    assert not wl.spec.active
    assert (cond.reason, cond.message) == ("DeactivatedDueToRequeuingLimitExceeded", "The workload is deactivated "
                                           "due to exceeding the maximum number of re-queuing retries")
    assert wl.requeue_state.count == 2


@pytest.mark.parametrize(("version", "skips"), [("0.17", False), ("0.19", True)])
def test_v0_19_does_not_block_a_workload_holding_its_quota(version, skips) -> None:
    """waitForPodsReadyIfNeeded (v0.19): a head that holds its quota already (a second pass) is not held."""
    done = run(*KUEUE, admitted("a"), config(timeout="2h", blockAdmission=True), version=version)
    held = Entry(new_info(done.workloads["default/a"]))
    assert done.scheduler._second_pass(held) is skips
    pending = Entry(new_info(Workload.of(read(workload("w", "q", {"cpu": "1"})).workloads[0])))
    assert done.scheduler._second_pass(pending) is False


def pending(name: str, queue: str = "q", **status: Any) -> str:
    obj = yaml.safe_load(workload(name, queue, {"cpu": "1"}))
    obj["status"] = status
    return yaml.safe_dump(obj)


REQUEUED_FALSE = {"type": "Requeued", "status": "False", "reason": "PodsReadyTimeout", "message": "m",
                  "lastTransitionTime": "2025-12-31T23:00:00Z"}


@pytest.mark.parametrize(("status", "waits"), [
    ({"requeueState": {"count": 1, "requeueAt": "2026-01-01T00:05:00Z"}}, True),    # after the pass's clock
    ({"requeueState": {"count": 1, "requeueAt": "2026-01-01T00:00:00Z"}}, False),   # reached
    ({"requeueState": {"count": 1}}, False),
    ({"conditions": [REQUEUED_FALSE], "requeueState": {"count": 1, "requeueAt": "2026-01-01T00:05:00Z"}}, True),
    ({"conditions": [{**REQUEUED_FALSE, "reason": "Preempted"}]}, True),    # no backoff of the controller's
])
def test_a_workload_in_its_backoff_is_kept_aside(status, waits) -> None:
    """backoffWaitingTimeExpired: the queue keeps it in its inadmissible list, never a head."""
    done = run(*KUEUE, submitted=(pending("w", **status),))
    cq = done.queues.cluster_queues["cq"]
    assert ("default/w" in cq.inadmissible) is waits
    assert (done.workloads["default/w"].admission is None) is waits
    verdicts = {w["workload"]: w["verdict"] for w in explanation(done)["workloads"]}
    assert (verdicts.get("default/w") == "Backoff") is waits


@pytest.mark.parametrize(("reason", "requeued"), [
    ("PodsReadyTimeout", ("BackoffFinished", "The workload backoff was finished")),
    ("Deactivated", ("Reactivated", "The workload was reactivated")),
])
def test_past_its_backoff_the_workload_controller_requeues_it(reason, requeued) -> None:
    status = {"conditions": [{**REQUEUED_FALSE, "reason": reason}],
              "requeueState": {"count": 1, "requeueAt": "2025-12-31T23:59:00Z"}}
    done = run(*KUEUE, submitted=(pending("w", **status),))
    wl = done.workloads["default/w"]
    cond = wl.find("Requeued")
    assert (cond.status, cond.reason, cond.message) == ("True", *requeued)
    assert wl.requeue_state.count == 1 and wl.requeue_state.requeue_at is None
    assert wl.admission is not None

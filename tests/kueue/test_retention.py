"""objectRetentionPolicies (kexplain/kueue/workload/retention.py): what Kueue has deleted by the pass's
clock: a Workload finished longer ago than `afterFinished`, the job of a Workload Kueue deactivated
longer ago than `afterDeactivatedByKueue` (with its Workload)."""
from __future__ import annotations

from typing import Any

import pytest
import yaml

from kexplain.errors import InputError
from kexplain.kueue.config import parse_configuration
from tests.kueue.builders import cluster_queue, flavor, local_queue, run, workload

KUEUE = (flavor("default"), cluster_queue("cq", {"default": {"cpu": "8"}}), local_queue("q", "cq"))


def config(**workloads: str) -> str:
    return yaml.safe_dump({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                           "objectRetentionPolicies": {"workloads": workloads}})


def stored(name: str, condition: dict[str, Any], active: bool = True, owner: bool = False) -> str:
    doc = yaml.safe_load(workload(name, "q", {"cpu": "1"}))
    doc["status"] = {"conditions": [{"status": "True", "message": "m", "lastTransitionTime": "2025-12-31T23:00:00Z",
                                     **condition}]}
    doc["spec"]["active"] = active
    if owner:
        doc["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": f"{name}-job",
                                               "uid": f"uid-{name}", "controller": True}]
    return yaml.safe_dump(doc)


FINISHED = {"type": "Finished", "reason": "Succeeded"}
DEACTIVATED = {"type": "Evicted", "reason": "DeactivatedDueToRequeuingLimitExceeded"}


def events(*docs: str) -> tuple[set[str], list[tuple[str, str, str]]]:
    done = run(*KUEUE, *docs)
    return set(done.workloads), [(e.object, e.reason, e.message) for e in done.events if e.reason == "Deleted"]


def test_a_workload_finished_past_its_retention_is_deleted() -> None:
    """Finished an hour before the pass's clock: deleted with 30m, kept with 2h or no policy."""
    kept, said = events(config(afterFinished="30m"), stored("done", FINISHED))
    assert "default/done" not in kept
    assert said == [("default/done", "Deleted", "Deleted finished workload due to elapsed retention")]
    for cfg in (config(afterFinished="2h"), config()):
        kept, said = events(cfg, stored("done", FINISHED))
        assert "default/done" in kept and said == []


def test_the_job_of_a_workload_kueue_deactivated_is_deleted_with_it() -> None:
    kept, said = events(config(afterDeactivatedByKueue="10m"), stored("off", DEACTIVATED, active=False, owner=True))
    assert "default/off" not in kept
    assert said == [("default/off-job", "Deleted", "Deleted job: deactivation retention period expired")]


@pytest.mark.parametrize("doc", [
    stored("off", DEACTIVATED, active=True, owner=True),                           # active again
    stored("off", {**DEACTIVATED, "reason": "Preempted"}, active=False, owner=True),   # not Kueue's deactivation
    stored("off", DEACTIVATED, active=False),                                      # no job to delete
])
def test_what_the_deactivation_policy_leaves(doc: str) -> None:
    kept, said = events(config(afterDeactivatedByKueue="10m"), doc)
    assert "default/off" in kept and said == []


def test_a_negative_retention_is_refused_in_kueues_words() -> None:
    with pytest.raises(InputError) as info:
        parse_configuration(yaml.safe_load(config(afterFinished="-5m")))
    assert info.value.message == ('objectRetentionPolicies.workloads.afterFinished: Invalid value: "-5m0s": '
                                  "must be greater than or equal to 0")
    got = parse_configuration(yaml.safe_load(config(afterFinished="1h", afterDeactivatedByKueue="0s")))
    assert (got.retention.after_finished, got.retention.after_deactivated) == (3600, 0) and got.note() is None

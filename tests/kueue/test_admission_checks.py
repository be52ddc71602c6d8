"""Admission checks (pkg/workload/admissionchecks.go, the workload controller's check steps, the
cache's ClusterQueue status): a ClusterQueue naming a missing or inactive check is inactive; a
Workload reserves quota and is Admitted only when every check it needs is Ready; a check in Retry
evicts it, one Rejected deactivates it, in each Kueue version's words."""
from __future__ import annotations

from typing import Any

import pytest
import yaml

from kexplain.kueue.document import document
from tests.kueue.builders import cluster_queue, flavor, local_queue, run, workload

PROVISIONING = "kueue.x-k8s.io/provisioning-request"


def check(name: str, active: bool = True, controller: str = PROVISIONING) -> str:
    return yaml.safe_dump({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck",
                           "metadata": {"name": name}, "spec": {"controllerName": controller},
                           "status": {"conditions": [{"type": "Active", "status": "True" if active else "False",
                                                      "reason": "Active" if active else "BadParametersRef",
                                                      "message": "x", "lastTransitionTime":
                                                          "2025-12-31T00:00:00Z"}]}})


def with_checks(rules: list[dict[str, Any]]) -> str:
    return cluster_queue("cq", {"on-demand": {"cpu": "8"}, "spot": {"cpu": "8"}},
                         admissionChecksStrategy={"admissionChecks": rules})


BASE = (flavor("on-demand"), flavor("spot"), local_queue("q", "cq"))


def states(wl: Any) -> list[tuple[str, str, str]]:
    return [(c.name, c.state, c.message) for c in wl.admission_checks]


def reserved_with(checks: list[dict[str, Any]], active: bool = True, **kw: Any) -> str:
    """An admitted Workload of `cq` (QuotaReserved only) carrying check states."""
    obj = yaml.safe_load(workload("old", "q", {"cpu": "2"}, admitted_in="cq", flavors={"cpu": "on-demand"}, **kw))
    obj["status"]["conditions"] = [c for c in obj["status"]["conditions"] if c["type"] == "QuotaReserved"]
    obj["status"]["admissionChecks"] = [{"lastTransitionTime": "2025-12-31T23:30:00Z", **c} for c in checks]
    obj["spec"]["active"] = active
    return yaml.safe_dump(obj)


@pytest.mark.parametrize(("checks", "rules", "active"), [
    ([], [{"name": "prov"}], False),                                    # missing
    ([check("prov", active=False)], [{"name": "prov"}], False),        # not Active
    ([check("prov")], [{"name": "prov"}], True),
    ([check("mk1", controller="kueue.x-k8s.io/multikueue"), check("mk2", controller="kueue.x-k8s.io/multikueue")],
     [{"name": "mk1"}, {"name": "mk2"}], False),                       # two MultiKueue checks
    ([check("mk", controller="kueue.x-k8s.io/multikueue")], [{"name": "mk", "onFlavors": ["spot"]}], False),
])
def test_a_cluster_queue_is_active_only_with_its_checks_there_and_active(checks, rules, active) -> None:
    done = run(*BASE, *checks, with_checks(rules), submitted=(workload("w", "q", {"cpu": "1"}),))
    assert done.cache.active("cq") is active
    cond = done.workloads["default/w"].find("QuotaReserved")
    assert (cond.status == "True") is active
    if not active:
        assert (cond.reason, cond.message) == ("Inadmissible", "ClusterQueue cq is inactive")


def test_a_fitting_workload_reserves_quota_and_waits_for_its_checks() -> None:
    done = run(*BASE, check("prov"), with_checks([{"name": "prov"}]), submitted=(workload("w", "q", {"cpu": "1"}),))
    wl = done.workloads["default/w"]
    assert wl.is_true("QuotaReserved") and wl.find("Admitted") is None
    assert states(wl) == [("prov", "Pending", "")]
    assert not any(e.reason == "Admitted" for e in done.events)
    assert document(done)["workloads"][0]["admissionChecks"] == [{"name": "prov", "state": "Pending",
                                                                   "controller": "kueue.x-k8s.io/provisioning-request"}]


def test_checks_on_flavors_apply_only_to_admissions_on_them() -> None:
    rules = [{"name": "prov", "onFlavors": ["spot"]}]
    done = run(*BASE, check("prov"), with_checks(rules), submitted=(workload("w", "q", {"cpu": "1"}),))
    wl = done.workloads["default/w"]              # on-demand: no check applies, admitted at once
    assert wl.is_true("Admitted") and wl.admission_checks == []
    full = workload("big", "q", {"cpu": "12"})    # only spot... neither flavor fits 12: pending, no check yet
    done = run(*BASE, check("prov"), with_checks(rules), submitted=(full,))
    assert done.workloads["default/big"].admission_checks == []


def test_every_check_ready_admits_with_the_wait_since_the_reservation() -> None:
    done = run(*BASE, check("prov"), with_checks([{"name": "prov"}]),
               reserved_with([{"name": "prov", "state": "Ready", "message": "capacity found"}]))
    wl = done.workloads["default/old"]
    admitted = wl.find("Admitted")
    assert (admitted.status, admitted.reason, admitted.message) == ("True", "Admitted", "The workload is admitted")
    assert [(e.reason, e.message) for e in done.events] == [
        ("Admitted", "Admitted by ClusterQueue cq, wait time since reservation was 3600s")]


@pytest.mark.parametrize(("version", "condition", "event"), [
    ("0.17", "At least one admission check is false", "At least one admission check is false"),
    ("0.19", 'Evicted due to AdmissionCheck in Retry state: "prov" (no capacity)',
     'Evicted due to AdmissionCheck in Retry state: "prov" (no capacity)'),
])
def test_a_check_in_retry_evicts(version, condition, event) -> None:
    done = run(*BASE, check("prov"), with_checks([{"name": "prov"}]),
               reserved_with([{"name": "prov", "state": "Retry", "message": "no capacity"}]), version=version)
    wl = done.workloads["default/old"]
    evicted = wl.find("Evicted")
    assert (evicted.reason, evicted.message) == ("AdmissionCheck", condition)
    assert states(wl) == [("prov", "Pending", "Reset to Pending after eviction. Previously: Retry")]
    assert wl.admission_checks[0].retry_count == 1
    assert wl.spec.active and wl.is_true("QuotaReserved")
    assert [(e.reason, e.message) for e in done.events] == [("EvictedDueToAdmissionCheck", event)]


@pytest.mark.parametrize(("version", "condition", "warning"), [
    ("0.17", "The workload is deactivated due to Admission check(s): a,b, were rejected",
     "Deactivating workload because AdmissionCheck for a was Rejected: expired"),
    ("0.19", 'The workload is deactivated due to AdmissionChecks in Rejected state: "a" (expired); "b"',
     'Deactivated due to AdmissionChecks in Rejected state: "a" (expired); "b"'),
])
def test_a_rejected_check_deactivates(version, condition, warning) -> None:
    rules = [{"name": "a"}, {"name": "b"}]
    done = run(*BASE, check("a"), check("b"), with_checks(rules),
               reserved_with([{"name": "a", "state": "Rejected", "message": "expired"},
                              {"name": "b", "state": "Rejected"}]), version=version)
    wl = done.workloads["default/old"]
    evicted = wl.find("Evicted")
    assert (evicted.reason, evicted.message) == ("DeactivatedDueToAdmissionCheck", condition)
    assert wl.find("DeactivationTarget") is None and not wl.spec.active
    assert {(e.type, e.reason, e.message) for e in done.events} == {
        ("Warning", "AdmissionCheckRejected", warning),
        ("Normal", "EvictedDueToDeactivatedDueToAdmissionCheck", condition)}
    doc = document(done)["workloads"][0]
    assert doc["active"] is False
    assert [c["message"] for c in doc["admissionChecks"]] == ["Reset to Pending after eviction. Previously: Rejected"] * 2


def test_check_states_follow_the_cluster_queue() -> None:
    """A state for a check the ClusterQueue no longer names goes; one it names is added Pending,
    sorted by name."""
    done = run(*BASE, check("a"), check("z"), with_checks([{"name": "z"}, {"name": "a"}]),
               reserved_with([{"name": "gone", "state": "Ready"}, {"name": "z", "state": "Ready"}]))
    assert [(n, s) for n, s, _ in states(done.workloads["default/old"])] == [("a", "Pending"), ("z", "Ready")]


def test_a_malformed_admission_check_is_refused_in_the_crds_words() -> None:
    bad = yaml.safe_dump({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck",
                          "metadata": {"name": "prov"}, "spec": {}})
    with pytest.raises(Exception) as err:
        run(*BASE, bad, with_checks([{"name": "prov"}]))
    assert "spec.controllerName: Required value" in str(err.value)


def test_a_job_holding_quota_stays_suspended_until_its_checks_are_ready(tmp_path) -> None:
    """The chain: Kueue starts a Job when its Workload is Admitted, not when it reserves quota;
    `kexplain JOB` says the Workload waits for its checks, and the Job creates no pod."""
    from kexplain.cli.app import main
    from tests.support.cli_helpers import TestEnvironment

    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "train", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "q"}},
           "spec": {"parallelism": 1, "completions": 1, "template": {"spec": {
               "restartPolicy": "Never",
               "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}}}}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
            "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}}}
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    (tmp_path / "cluster.yaml").write_text("---\n".join(
        [*BASE, check("prov"), with_checks([{"name": "prov"}]), yaml.safe_dump(node)]))
    env = TestEnvironment()
    code = main([str(tmp_path / "job.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), "--no-suggestions"], env)
    text = " ".join(env.out.split())
    assert "holds quota in ClusterQueue cq and waits for its admission checks (prov Pending)" in text
    assert "the Job stays suspended" in text and code == 1


@pytest.mark.parametrize("version", ["0.17", "0.19"])
def test_a_preempted_workload_has_its_checks_reset_to_pending(version) -> None:
    """workload.Evict's prepareForEviction (the preemptor's too): every check not Pending goes back
    to Pending, saying what it was; a Retry one counts a retry."""
    victim = yaml.safe_load(workload("old", "q", {"cpu": "6"}, admitted_in="cq", flavors={"cpu": "on-demand"}))
    victim["status"]["admissionChecks"] = [
        {"name": "prov", "state": "Ready", "message": "provisioned", "lastTransitionTime": "2025-12-31T23:30:00Z"}]
    cq = cluster_queue("cq", {"on-demand": {"cpu": "8"}}, preemption={"withinClusterQueue": "LowerPriority"},
                       admissionChecksStrategy={"admissionChecks": [{"name": "prov"}]})
    done = run(flavor("on-demand"), local_queue("q", "cq"), check("prov", controller="example.com/other"), cq,
               yaml.safe_dump(victim), submitted=(workload("new", "q", {"cpu": "6"}, priority=100),), version=version)
    wl = done.workloads["default/old"]
    assert wl.is_true("Evicted") and wl.is_true("Preempted")
    assert states(wl) == [("prov", "Pending", "Reset to Pending after eviction. Previously: Ready")]
    doc = next(w for w in document(done)["workloads"] if w["name"] == "old")
    assert doc["admissionChecks"][0]["state"] == "Pending"


@pytest.mark.parametrize("version", ["0.17", "0.19"])
@pytest.mark.parametrize("state", ["Retry", "Rejected"])
def test_a_pending_head_with_a_failed_check_is_not_tried(version, state) -> None:
    """nominate: a head with a check in Retry or Rejected is inadmissible before any other test,
    however much room its ClusterQueue has."""
    obj = yaml.safe_load(workload("w", "q", {"cpu": "1"}))
    obj["status"] = {"admissionChecks": [{"name": "prov", "state": state, "message": "x",
                                          "lastTransitionTime": "2025-12-31T23:00:00Z"}]}
    done = run(*BASE, check("prov"), with_checks([{"name": "prov"}]), yaml.safe_dump(obj), version=version)
    cond = done.workloads["default/w"].find("QuotaReserved")
    assert (cond.status, cond.reason, cond.message) == ("False", "Pending", "The workload has failed admission checks")
    assert [(e.type, e.reason, e.message) for e in done.events] == [
        ("Warning", "Pending", "The workload has failed admission checks")]

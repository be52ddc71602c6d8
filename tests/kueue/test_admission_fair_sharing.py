"""Admission fair sharing (kexplain/kueue/queue/afs.py, config_afs.py): a ClusterQueue in
UsageBasedAdmissionFairSharing orders the heads of its LocalQueues by their stored usage, weighted,
before priority and age, as Kueue's queueOrderingFunc does; each admission adds its entry penalty."""
from __future__ import annotations

import json
import math

import pytest
import yaml

from kexplain.errors import InputError
from kexplain.kueue.apis.localqueue import parse_local_queue
from kexplain.kueue.config import parse_configuration
from kexplain.kueue.config_afs import AdmissionFairSharing
from kexplain.kueue.queue.afs import FairSharingState, go_compare
from kexplain.kueue.workload.workload import has_quota_reservation
from tests.kueue.builders import cluster_queue, flavor, run, workload
from tests.support.cli_helpers import run_cli

AFS = {"admissionScope": {"admissionMode": "UsageBasedAdmissionFairSharing"}}


def config(**afs) -> str:
    return yaml.safe_dump({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                           "admissionFairSharing": {"usageHalfLifeTime": "10m", **afs}})


def lq(name: str, namespace: str, consumed: dict[str, str] | None = None, weight: str | None = None) -> dict:
    obj: dict = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                 "metadata": {"name": name, "namespace": namespace},
                 "spec": {"clusterQueue": "cq", **({"fairSharing": {"weight": weight}} if weight else {})}}
    if consumed is not None:
        obj["status"] = {"fairSharing": {"weightedShare": 0, "admissionFairSharingStatus": {
            "consumedResources": consumed, "lastUpdate": "2025-12-31T22:00:00Z"}}}
    return obj


def docs(mode: dict, busy_weight: str | None = None) -> list[str]:
    """One cpu in `cq`; team-a's queue has used 10 cpus, team-b's 1."""
    return [flavor("default"), cluster_queue("cq", {"default": {"cpu": "1"}}, **mode),
            yaml.safe_dump(lq("busy", "team-a", {"cpu": "10"}, busy_weight)),
            yaml.safe_dump(lq("idle", "team-b", {"cpu": "1"}))]


JOBS = (workload("old-high", "busy", {"cpu": "1"}, namespace="team-a", priority=100, created="2025-12-31T20:00:00Z"),
        workload("young-low", "idle", {"cpu": "1"}, namespace="team-b", created="2025-12-31T21:00:00Z"))


def admitted(done) -> list[str]:
    return sorted(k for k, wl in done.workloads.items() if has_quota_reservation(wl))


def test_the_queue_that_used_less_goes_first_under_afs() -> None:
    """Kueue compares the LocalQueues' usage before priority and creation time."""
    done = run(*docs(AFS), config(), submitted=JOBS)
    assert admitted(done) == ["team-b/young-low"]


@pytest.mark.parametrize("setup", [
    pytest.param((AFS, False), id="no admissionFairSharing in the Configuration"),
    pytest.param(({}, True), id="the ClusterQueue without UsageBasedAdmissionFairSharing"),
    pytest.param(({"admissionScope": {"admissionMode": "NoAdmissionFairSharing"}}, True), id="NoAdmissionFairSharing"),
])
def test_without_afs_priority_decides(setup) -> None:
    mode, with_config = setup
    done = run(*docs(mode), *([config()] if with_config else []), submitted=JOBS)
    assert admitted(done) == ["team-a/old-high"]


def test_the_weights_divide_the_usage() -> None:
    """busy's 10 cpus over a weight of 20 is 0.5, below idle's 1."""
    done = run(*docs(AFS, busy_weight="20"), config(), submitted=JOBS)
    assert admitted(done) == ["team-a/old-high"]


def test_resource_weights_weigh_the_usage() -> None:
    """A cpu weight of 0 leaves both queues at 0: priority decides again."""
    done = run(*docs(AFS), config(resourceWeights={"cpu": 0}), submitted=JOBS)
    assert admitted(done) == ["team-a/old-high"]


def test_an_admission_adds_its_entry_penalty_within_the_pass() -> None:
    """Five cpus: idle (1 used) goes first with b-1 (4 cpus); its penalty, 4 x alpha (5m of a 10m
    half-life: 0.29) = 1.17 cpus, puts idle at 2.17, above busy's 1.5, so a-1 takes the last cpu
    (without the penalty b-2 would)."""
    quotas = [flavor("default"), cluster_queue("cq", {"default": {"cpu": "5"}}, **AFS),
              yaml.safe_dump(lq("busy", "team-a", {"cpu": "1500m"})), yaml.safe_dump(lq("idle", "team-b", {"cpu": "1"}))]
    jobs = (workload("a-1", "busy", {"cpu": "1"}, namespace="team-a", created="2025-12-31T19:00:00Z"),
            workload("b-1", "idle", {"cpu": "4"}, namespace="team-b", created="2025-12-31T20:00:00Z"),
            workload("b-2", "idle", {"cpu": "1"}, namespace="team-b", created="2025-12-31T20:30:00Z"))
    done = run(*quotas, config(), submitted=jobs)
    assert admitted(done) == ["team-a/a-1", "team-b/b-1"]    # b-1 first, then busy (1.5 < 1 + 1.17)
    penalty = done.queues.afs.share("team-b/idle").penalty
    assert penalty == {"cpu": pytest.approx(int(4000 * (1 - 0.5 ** 0.5)) / 1000)}


def test_the_share_and_its_parts() -> None:
    state = FairSharingState.build(AdmissionFairSharing(600, 300, (("memory", 0.0),)), [
        parse_local_queue(lq("busy", "team-a", {"cpu": "10", "memory": "1Gi"}, "2"))])
    share = state.share("team-a/busy")
    assert (share.weight, share.consumed, share.usage) == (2.0, {"cpu": 10.0, "memory": 2.0 ** 30}, 5.0)
    assert state.share("team-a/missing").usage == 0.0       # a LocalQueue not found weighs 1
    zero = [parse_local_queue(lq("zero", "x", {}, "0"))]
    assert math.isnan(FairSharingState.build(AdmissionFairSharing(600), zero).usage("x/zero"))     # v0.17.8
    assert FairSharingState.build(AdmissionFairSharing(600), zero, True).usage("x/zero") == math.inf   # v0.19


@pytest.mark.parametrize(("version", "first"), [("0.17", "team-a/old-high"), ("0.19", "team-b/young-low")])
def test_a_queue_of_weight_zero_goes_first_in_v0_17_last_in_v0_19(version: str, first: str) -> None:
    """busy, weight 0 and nothing used: v0.17.8's 0/0 is NaN, which Kueue's ordering puts first;
    v0.19.2 ranks a weight of 0 last (the release's `afs_nonpositive_weight_last`)."""
    quotas = [flavor("default"), cluster_queue("cq", {"default": {"cpu": "1"}}, **AFS),
              yaml.safe_dump(lq("busy", "team-a", {}, "0")), yaml.safe_dump(lq("idle", "team-b", {"cpu": "1"}))]
    done = run(*quotas, config(), submitted=JOBS, version=version)
    assert admitted(done) == [first]


def test_go_float_ordering() -> None:
    assert go_compare(math.nan, 0.0) == -1 and go_compare(0.0, math.nan) == 1 and go_compare(math.nan, math.nan) == 0
    assert go_compare(1.0, 2.0) == -1 and go_compare(math.inf, 2.0) == 1


def test_the_configuration_read_and_defaulted() -> None:
    got = parse_configuration(yaml.safe_load(config(resourceWeights={"cpu": 2, "memory": 0.5})))
    assert got.admission_fair_sharing == AdmissionFairSharing(600.0, 300.0, (("cpu", 2.0), ("memory", 0.5)))
    assert got.admission_fair_sharing.alpha() == pytest.approx(1 - 0.5 ** 0.5)
    assert AdmissionFairSharing(0.0).alpha() == 0.0
    assert "admissionFairSharing" not in (got.note() or "")
    assert got.enabled("AdmissionFairSharing") and got.enabled("MultiKueue") and not got.enabled("Unknown")


@pytest.mark.parametrize(("afs", "said"), [
    ({"usageHalfLifeTime": "-1h"},
     'admissionFairSharing.usageHalfLifeTime: Invalid value: "-1h0m0s": must be greater than or equal to 0'),
    ({"usageHalfLifeTime": "1h", "usageSamplingInterval": "-5m"},     # Kueue shows the half-life
     'admissionFairSharing.usageSamplingInterval: Invalid value: "1h0m0s": must be greater than 0'),
    ({"resourceWeights": {"cpu": -1, "memory": 0.5}},
     'admissionFairSharing.resourceWeights[cpu]: Invalid value: {"cpu":-1,"memory":0.5}: must be greater than or '
     'equal to 0'),
])
def test_what_kueue_refuses(afs, said) -> None:
    with pytest.raises(InputError) as err:
        parse_configuration({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                             "admissionFairSharing": afs})
    assert said in str(err.value)


def test_the_explanation_shows_each_local_queues_usage(tmp_path) -> None:
    """The pending Workload's queue part lists the LocalQueues by usage, its own marked; in text
    and in the document."""
    (tmp_path / "cluster.yaml").write_text("---\n".join([*docs(AFS), config()]))
    (tmp_path / "jobs.yaml").write_text("---\n".join(JOBS))
    args = ("kueue", str(tmp_path / "jobs.yaml"), "--nodes", str(tmp_path / "cluster.yaml"),
            "--now", "2026-01-01T00:00:00Z")
    code, out, _ = run_cli(*args)
    said = " ".join(out.split())
    assert code == 1
    assert "admission fair sharing: heads go by their LocalQueue's usage first" in said
    assert ("- team-b/idle: usage 1.292 (consumed cpu 1, plus this pass's admissions: cpu 0.292; weight 1) "
            "- team-a/busy: usage 10 (consumed cpu 10; weight 1) <- this Workload's") in said
    code, out, _ = run_cli(*args, "-o", "json")
    item, = [w for w in json.loads(out)["explanation"]["workloads"] if w["workload"] == "team-a/old-high"]
    afs = item["queue"]["admissionFairSharing"]
    assert afs["localQueue"] == "team-a/busy"
    assert [(q["localQueue"], q["usage"]) for q in afs["localQueues"]] == [("team-b/idle", 1.292), ("team-a/busy", 10.0)]

"""The sla plugin: sla_test.go's TestSlaPlugin (its three cases: the plugin's waiting time "3m", one of
the wrong type (1), none; job2 with its own 1h, both created at Go's zero time: the session's JobOrderFn
and JobEnqueueable), the annotation's precedence, and the plugin in a whole session: a job that has waited
its time is enqueued though overcommit, in a later tier, would refuse it."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.volcano.api.job import JobInfo, PodGroup
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.conf import parse
from kexplain.volcano.framework.session import Session
from kexplain.volcano.plugins.sla import Sla, job_waiting_time
from tests.support.cli_helpers import TestEnvironment
from tests.volcano.capacity_inputs import node, pod_group, queue, rl


def job(name: str, annotations: dict[str, str], creation: str = "") -> JobInfo:
    obj = {"metadata": {"name": name, "namespace": "default", "annotations": annotations}}
    j = JobInfo(f"default/{name}", name=name, namespace="default", creation=creation)
    j.pod_group = PodGroup("default", name, obj, 0, "default", None, "", {}, "Pending")
    return j


def session(arguments: dict[str, Any]) -> Session:
    """A session whose one tier is sla with EnabledJobOrder and EnabledJobEnqueued, as the Go test's."""
    conf = parse(yaml.safe_dump({"actions": "enqueue", "tiers": [{"plugins": [
        {"name": "sla", "enableJobOrder": True, "enableJobEnqueued": True, "arguments": arguments}]}]}), "test")
    ssn = Session(conf, {}, {}, [], {}, Resource(), None)
    Sla(arguments).on_session_open(ssn)
    return ssn


@pytest.mark.parametrize("arguments,order,enqueueable", [
    ({"sla-waiting-time": "3m"}, True, True),        # sla normal placement
    ({"sla-waiting-time": 1}, False, True),          # sla error type placement
    ({}, False, True),                               # none placement
], ids=["sla normal placement", "sla error type placement", "none placement"])
def test_sla_plugin(arguments: dict[str, Any], order: bool, enqueueable: bool) -> None:
    ssn = session(arguments)
    job1, job2 = job("job1", {}), job("job2", {"sla-waiting-time": "1h"})
    assert ssn.job_order_less(job1, job2) is order
    assert ssn.job_enqueueable(job1) is enqueueable


def test_the_api_annotation_first_and_only_a_positive_duration() -> None:
    assert job_waiting_time(job("a", {"volcano.sh/sla-waiting-time": "2m", "sla-waiting-time": "1h"})) == 120 * 10**9
    assert job_waiting_time(job("b", {"volcano.sh/sla-waiting-time": "-2m", "sla-waiting-time": "1h"})) == 3600 * 10**9
    assert job_waiting_time(job("c", {"sla-waiting-time": "soon"})) is None


def test_a_job_not_yet_waited_its_time_is_not_permitted() -> None:
    """At 2026-01-01T00:10:00Z a job created at 00:00 with 5m has waited its time (Permit), with 1h not
    (Abstain); the one whose time runs out first goes first."""
    ssn = session({})
    ssn.now = 1_767_225_600 * 10**9 + 10 * 60 * 10**9  # type: ignore[attr-defined]
    Sla({}).on_session_open(ssn)
    fresh = job("fresh", {"sla-waiting-time": "1h"}, "2026-01-01T00:00:00Z")
    old = job("old", {"sla-waiting-time": "5m"}, "2026-01-01T00:00:00Z")
    permitable = ssn.fns["jobEnqueueable"]["sla"]
    assert (permitable(fresh), permitable(old)) == (0, 1)
    assert ssn.job_order_less(old, fresh) and not ssn.job_order_less(fresh, old)


@pytest.mark.parametrize("created,phase", [("2020-01-01T00:00:00Z", "Inqueue"), ("2999-01-01T00:00:00Z", "Pending")])
def test_enqueue_after_the_waiting_time_overrides_a_later_tier(tmp_path: Path, created: str, phase: str) -> None:
    """100 cpu on a node of 4: overcommit (second tier) refuses, unless sla (first tier) permits first."""
    pg = pod_group("big", "default", "q", 1, "Pending", rl("100"))
    pg["metadata"].update(creationTimestamp=created, annotations={"volcano.sh/sla-waiting-time": "10m"})
    cluster, conf = tmp_path / "cluster.yaml", tmp_path / "scheduler-conf.yaml"
    cluster.write_text(yaml.safe_dump_all([node("n1", rl("4", "8Gi", pods="10")), queue("q", None, None), pg]))
    conf.write_text("actions: enqueue\ntiers:\n- plugins: [{name: sla}]\n- plugins: [{name: overcommit}]\n")
    env = TestEnvironment()
    main(["volcano", "--nodes", str(cluster), "--scheduler-conf", str(conf), "-o", "json"], env)
    assert json.loads(env.out)["podGroups"][0]["phase"] == phase


def _waiting_ten_minutes(tmp_path: Path, *options: str) -> dict[str, Any]:
    """`kexplain volcano`'s document for a job created at 00:00 with a 10m waiting time, 100 cpu on a node
    of 4: sla (first tier) permits it once its time has run out, else overcommit (second) refuses it."""
    pg = pod_group("big", "default", "q", 1, "Pending", rl("100"))
    pg["metadata"].update(creationTimestamp="2026-01-01T00:00:00Z", annotations={"volcano.sh/sla-waiting-time": "10m"})
    cluster, conf = tmp_path / "cluster.yaml", tmp_path / "scheduler-conf.yaml"
    cluster.write_text(yaml.safe_dump_all([node("n1", rl("4", "8Gi", pods="10")), queue("q", None, None), pg]))
    conf.write_text("actions: enqueue\ntiers:\n- plugins: [{name: sla}]\n- plugins: [{name: overcommit}]\n")
    env = TestEnvironment()
    main(["volcano", "--nodes", str(cluster), "--scheduler-conf", str(conf), *options, "-o", "json"], env)
    return json.loads(env.out)


@pytest.mark.parametrize("now,phase", [("2026-01-01T00:05:00Z", "Pending"), ("2026-01-01T00:20:00Z", "Inqueue")])
def test_the_session_runs_at_now(tmp_path: Path, now: str, phase: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`kexplain volcano --now`: a job created at 00:00 with a 10m waiting time has not waited it at 00:05
    (overcommit refuses it), has at 00:20; no session of the answer (the fixes' neither) reads the wall clock."""
    def wall_clock() -> int:
        raise AssertionError("a session read the wall clock")
    monkeypatch.setattr("kexplain.volcano.framework.session.time.time_ns", wall_clock)
    monkeypatch.setattr("kexplain.volcano.run.time.time_ns", wall_clock)
    doc = _waiting_ten_minutes(tmp_path, "--now", now)
    assert doc["podGroups"][0]["phase"] == phase
    assert phase == "Inqueue" or doc["fixes"][0]["podGroup"] == "default/big"      # (its fixes' sessions ran too)


def test_without_now_the_wall_clock_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every session of one answer (the first, each fix's) judges by one time, read once."""
    reads: list[int] = []

    def wall_clock() -> int:
        reads.append(1)
        return 1_767_225_600 * 10**9
    monkeypatch.setattr("kexplain.volcano.run.time.time_ns", wall_clock)
    doc = _waiting_ten_minutes(tmp_path)
    assert doc["podGroups"][0]["phase"] == "Pending" and doc["fixes"][0]["podGroup"] == "default/big"
    assert len(reads) == 1

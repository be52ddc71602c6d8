"""`kexplain kueue` as text (render/kueue.py): the summary, each pending Workload's reasons worded
from the explanation's codes, the verified fixes and the events; on fixtures/kueue."""
from __future__ import annotations

import pytest

from kexplain.cli.app import main
from kexplain.render.kueue import CANDIDATE_WORDS, SKIPS, SUGGESTIONS
from kexplain.suggest import kueue_queues, kueue_quota, kueue_topology, kueue_workload
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "kueue"


def text(job: str, *extra: str) -> str:
    env = TestEnvironment(width=100)
    main(["kueue", str(CASE / job), "--nodes", str(CASE / "cluster.yaml"), "--now", "2026-01-01T00:00:00Z", *extra],
         env)
    return " ".join(env.out.split())


@pytest.mark.parametrize(("job", "said"), [
    ("train.yaml", ["Why team-a/job-train-101b2 is pending: Kueue's scheduler tried it and it does not fit",
                    "cpu: wants 8; nominal 8, used 6, available 4, at most 10; borrowingLimit 2 4 more needed",
                    "in the cohort: ClusterQueue team-b-cq (4 unused, 2 lendable)",
                    "flavor spot: skipped, its pods do not tolerate the flavor's taint "
                    "cloud.example.com/spot=true:NoSchedule",
                    "team-a/job-nightly-3f2c1 (team-a-cq, priority 100): its priority is not lower",
                    "Raise ClusterQueue team-a-cq's nominalQuota of cpu in flavor on-demand from 8 to 12"]),
    ("urgent.yaml", ["Kueue is preempting Workloads to make room for it",
                     "team-a/job-nightly-3f2c1 (team-a-cq, priority 100): preempted for it"]),
    ("typo.yaml", ["Kueue: LocalQueue b-queu doesn't exist", "Use the LocalQueue b-queue of namespace team-b"]),
])
def test_text(job: str, said: list[str]) -> None:
    out = text(job)
    for phrase in said:
        assert phrase in out


def test_the_same_change_is_suggested_once() -> None:
    out = text("typo.yaml")
    assert "Submit Job team-b/report to LocalQueue b-queue" not in out      # the same change as "Use the LocalQueue"


def test_every_code_is_worded() -> None:
    assert set(kueue_quota.KINDS) | set(kueue_workload.KINDS) | set(kueue_queues.KINDS) | set(kueue_topology.KINDS) \
        <= set(SUGGESTIONS)
    assert {"taint", "affinity", "missing", "uncovered"} <= set(SKIPS)
    from kexplain.kueue import explain
    codes = {getattr(explain, n) for n in ("TARGET", "CANDIDATE", "POLICY_NEVER", "NOT_LOWER", "NOT_LOWER_OR_NEWER_EQUAL",
                                           "RECLAIM_NEVER", "LENDER_WITHIN_NOMINAL", "RESOURCE_NOT_USED", "EVICTED",
                                           "FAIR_SHARING_REFUSED")}
    assert codes <= set(CANDIDATE_WORDS)


def test_candidates_left_out_are_counted() -> None:
    from kexplain.render.kueue import _preemption_lines
    lines = _preemption_lines({"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Never",
                               "borrowWithinCohort": "Never",
                               "candidates": [{"workload": "ns/a", "clusterQueue": "cq", "priority": 5,
                                               "verdict": "not-lower-priority"}],
                               "leftOut": {"not-lower-priority": 3}})
    said = [line for _, line in lines]
    assert "- and 3 more: its priority is not lower" in said


@pytest.mark.parametrize(("long_name", "columns"), [("sweep-lr-0001", 4), ("job-sweep-lr-0001-hyperparameter", 2)])
def test_workload_names_never_wrap_at_80_columns(tmp_path, long_name: str, columns: int) -> None:
    """The Workloads table keeps each name on one line; the other columns wrap (or, beside a name
    too long for four columns, are said in STATE's cell)."""
    job = (CASE / "train.yaml").read_text()
    (tmp_path / "job.yaml").write_text(job.replace("name: train\n", f"name: {long_name}\n", 1))
    env = TestEnvironment(width=80)
    main(["kueue", str(tmp_path / "job.yaml"), "--nodes", str(CASE / "cluster.yaml"), "--now",
          "2026-01-01T00:00:00Z"], env)
    table = env.out.split("Workloads\n", 1)[1].split("\n\n", 1)[0]
    names = [line.split()[0] for line in table.splitlines()[2:] if line and not line.startswith(" ")]
    assert any(long_name in n for n in names)
    assert all("/" in n and n.split("/", 1)[1].startswith("job-") for n in names)   # each name whole on its line
    assert max(len(line) for line in table.splitlines()) <= 80
    assert len(table.splitlines()[0].split()) == columns

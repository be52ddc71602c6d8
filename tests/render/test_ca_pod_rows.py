"""The pending pods' table of the Cluster autoscaler section (issue 37, item 4): pods of one object
share a row only when they follow one another with the same answer, and a row's pods are named
so that nothing reads as a range that is not one (a copy with another answer, or one that is
not pending, is never inside `a ... c`)."""
from __future__ import annotations

import re

from kexplain.cli.app import main
from kexplain.render.cluster_autoscaler import pod_rows, pods_label
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

AWS = FIXTURES / "autoscaler"
PARALLEL = AWS / "statefulset-parallel.yaml"


def run(*args: str) -> str:
    env = TestEnvironment()
    assert main(list(args), env=env) in (0, 1), env.err
    return env.out


def test_a_copy_with_another_answer_between_two_is_a_row_of_its_own():
    out = run(str(PARALLEL), "--nodes", str(AWS / "cluster.yaml"), "--node-groups", str(AWS / "nodegroups.yaml"),
              "--no-suggestions")
    table = out[out.index("Pending pods, each CA's answer"):out.index("\nPod default/db-0: ")]
    rows = re.findall(r"^(default/db-\d.*)$", table, re.M)
    assert [r.split()[0] for r in rows] == ["default/db-0", "default/db-1", "default/db-2"]
    assert "..." not in table and "pods of" not in table
    outcomes = [r.split()[-1] for r in rows]       # the outcome beside each row's first line
    assert outcomes == ["TriggeredScaleUp", "RemainsUnschedulableNoEvent", "TriggeredScaleUp"]


def doc(*pods: tuple[str, int, str]) -> dict:
    """A document of pods of one Deployment: (name, copy, outcome)."""
    return {"pods": [{"namespace": "ns", "name": n, "outcome": o, "events": []} for n, _, o in pods],
            "pendingPass": {"pods": {f"ns/{n}": {"standsFor": "Deployment ns/w", "copy": c} for n, c, _ in pods}}}


def test_only_pods_that_follow_one_another_share_a_row():
    rows = pod_rows(doc(("w-0", 0, "NoEvent"), ("w-1", 1, "NoEvent"), ("w-2", 2, "AwaitingEvaluation"),
                        ("w-3", 3, "NoEvent")))
    assert [(who, outcome) for who, outcome, _ in rows] == [
        ("ns/w-0 ... w-1 (2 pods of Deployment ns/w)", "NoEvent"), ("ns/w-2 (of Deployment ns/w)", "AwaitingEvaluation"),
        ("ns/w-3 (of Deployment ns/w)", "NoEvent")]


def test_a_range_only_where_the_copies_follow_one_another():
    keys = [f"ns/w-{i}" for i in (0, 1, 2, 4, 6, 7, 8, 9, 11)]
    assert pods_label(keys, "Deployment ns/w", [0, 1, 2, 4, 6, 7, 8, 9, 11]) == \
        "ns/w-0 ... w-2, w-4, w-6 ... w-9, w-11 (9 pods of Deployment ns/w)"
    assert pods_label(["ns/w-0", "ns/w-2"], "Deployment ns/w", [0, 2]) == "ns/w-0, w-2 (2 pods of Deployment ns/w)"
    assert pods_label(keys[:3], "Deployment ns/w", [0, 1, 2]) == "ns/w-0 ... w-2 (3 pods of Deployment ns/w)"
    assert pods_label(["ns/a", "ns/b"], "Job ns/j", [None, None]) == "ns/a, b (2 pods of Job ns/j)"
    assert pods_label(["ns/w-5", "ns/w-6", "ns/w-7"], "StatefulSet ns/w") == \
        "ns/w-5 ... w-7 (3 pods of StatefulSet ns/w)"      # not created yet: ordinals in a row

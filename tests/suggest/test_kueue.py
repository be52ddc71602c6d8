"""Kueue's verified fixes (suggest/kueue*.py): each family's idea for a cause, verified by
running Kueue's pass again; an idea the pass does not bear out is left out."""
from __future__ import annotations

import pytest

from kexplain.suggest import kueue as fixes
from tests.kueue.builders import cluster_queue, flavor, local_queue, run, workload

SPOT = [{"key": "spot", "value": "true", "effect": "NoSchedule"}]


def _kinds(*docs, submitted=()) -> dict[str, dict]:
    found = fixes.suggestions(run(*docs, submitted=submitted))
    return {s["kind"]: s for s in found}


def test_quota_short() -> None:
    got = _kinds(flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}), local_queue("q", "cq"),
                 workload("old", "q", {"cpu": "3"}, admitted_in="cq", uid="u"),
                 submitted=(workload("w", "q", {"cpu": "2"}),))
    assert got["raise-nominal-quota"]["values"] == {"clusterQueue": "cq", "flavor": "default", "resource": "cpu",
                                                    "from": "4", "to": "5", "by": "1"}
    assert got["raise-nominal-quota"]["verified"]["admits"] == ["default/w"]
    assert got["lower-request"]["values"]["to"] == "1"


def test_a_flavors_taint_is_tolerated() -> None:
    got = _kinds(flavor("spot", {"capacity": "spot"}, SPOT), cluster_queue("cq", {"spot": {"cpu": "4"}}),
                 local_queue("q", "cq"), submitted=(workload("w", "q", {"cpu": "1"}),))
    assert got["tolerate-flavor-taint"]["change"][0]["value"] == {"key": "spot", "operator": "Equal",
                                                                 "effect": "NoSchedule", "value": "true"}


@pytest.mark.parametrize(("docs", "kind"), [
    ([flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}), local_queue("queue", "cq")],
     "use-local-queue"),                                    # the closest existing LocalQueue
    ([flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}, stopPolicy="Hold"), local_queue("q", "cq")],
     "start-queue"),
    ([cluster_queue("cq", {"gone": {"cpu": "4"}}), local_queue("q", "cq")], "create-resource-flavor"),
    ([flavor("default"), local_queue("q", "cq")], "create-cluster-queue"),
    ([flavor("default"), local_queue("q", "cq"),
      cluster_queue("cq", {"default": {"cpu": "4"}}, namespaceSelector={"matchLabels": {"team": "a"}})],
     "label-namespace"),
])
def test_queue_fixes(docs, kind) -> None:
    got = _kinds(*docs, submitted=(workload("w", "q", {"cpu": "1"}),))
    assert kind in got and got[kind]["verified"]["admits"] == ["default/w"]


def _quota_op(value: str) -> dict:
    return {"op": "replace", "object": {"kind": "ClusterQueue", "name": "cq"},
            "path": "/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota", "value": value}


@pytest.mark.parametrize(("value", "admits"), [
    ("5", ["default/w"]),       # enough
    ("4", None),                # no change: still pending
    ("-1", None),               # a quota Kueue's webhook refuses: not a fix
    ("2", None),                # takes quota from the Workload admitted before: not a fix
])
def test_verification(value: str, admits) -> None:
    first = run(flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}), local_queue("q", "cq"),
                workload("old", "q", {"cpu": "3"}, admitted_in="cq", uid="u"),
                workload("new", "q", {"cpu": "1"}, priority=10, created="2025-12-31T10:00:00Z"),
                submitted=(workload("w", "q", {"cpu": "1"}),))
    assert first.workloads["default/new"].is_true("QuotaReserved")
    verdict = fixes.Verifier(first, 5).verify((_quota_op(value),), "default/w")
    assert (verdict.admitted if verdict else None) == admits

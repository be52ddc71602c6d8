"""The workload controller's inadmissible checks (controller/core), in their order, with their
texts; and the scheduler's own for a namespace its ClusterQueue does not select."""
from __future__ import annotations

import pytest

from tests.kueue.builders import cluster_queue, flavor, local_queue, run, workload

FLAVOR = flavor("default")
CQ = cluster_queue("cq", {"default": {"cpu": "4"}})


@pytest.mark.parametrize(("docs", "reason", "message"), [
    ([FLAVOR, CQ], "Inadmissible", "LocalQueue q doesn't exist"),
    ([FLAVOR, CQ, local_queue("q", "cq", stopPolicy="Hold")], "Inadmissible", "LocalQueue q is inactive"),
    ([FLAVOR, local_queue("q", "cq")], "Inadmissible", "ClusterQueue cq doesn't exist"),
    ([FLAVOR, cluster_queue("cq", {"default": {"cpu": "4"}}, stopPolicy="HoldAndDrain"), local_queue("q", "cq")],
     "Inadmissible", "ClusterQueue cq is inactive"),
    ([cluster_queue("cq", {"missing": {"cpu": "4"}}), local_queue("q", "cq")], "Inadmissible",
     "ClusterQueue cq is inactive"),                                   # a flavor it names does not exist
    ([FLAVOR, local_queue("q", "cq"), cluster_queue("cq", {"default": {"cpu": "4"}},
                                                    namespaceSelector={"matchLabels": {"team": "a"}})],
     "Pending", "Workload namespace doesn't match ClusterQueue selector"),
])
def test_checks(docs, reason, message) -> None:
    done = run(*docs, submitted=(workload("w", "q", {"cpu": "1"}),))
    cond = done.workloads["default/w"].find("QuotaReserved")
    assert (cond.status, cond.reason, cond.message) == ("False", reason, message)
    assert not any(e.reason == "Pending" and reason == "Inadmissible" for e in done.events)

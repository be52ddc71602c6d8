"""Quota and usage over the cohort tree (cache/resource_node.py): what a ClusterQueue can use now
and at most, with borrowing and lending limits, nested cohorts and a cohort's own quota, and how
usage climbs to the parent."""
from __future__ import annotations

import json

import pytest

from kexplain.kueue.cache import resource_node as rn
from kexplain.kueue.resources import FlavorResource
from tests.kueue.builders import cluster_queue, flavor, snapshot

CPU = FlavorResource("default", "cpu")
COHORT_OBJ = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: %s}
spec: %s
"""


def _cohort(name: str, parent: str = "", quota: str = "") -> str:
    spec = {}
    if parent:
        spec["parentName"] = parent
    if quota:
        spec["resourceGroups"] = [{"coveredResources": ["cpu"],
                                   "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": quota}]}]}]
    return COHORT_OBJ % (name, json.dumps(spec))


@pytest.mark.parametrize(("docs", "used", "available", "capacity"), [
    ([cluster_queue("a", {"default": {"cpu": "4"}})], 0, 4000, 4000),
    ([cluster_queue("a", {"default": {"cpu": "4"}})], 3000, 1000, 4000),
    # an idle ClusterQueue of the cohort lends all of its nominal quota
    ([cluster_queue("a", {"default": {"cpu": "4"}}, cohort="c"), cluster_queue("b", {"default": {"cpu": "4"}}, cohort="c")],
     0, 8000, 8000),
    # a borrowingLimit caps what it takes from the cohort
    ([cluster_queue("a", {"default": {"cpu": {"nominalQuota": "4", "borrowingLimit": "2"}}}, cohort="c"),
      cluster_queue("b", {"default": {"cpu": "4"}}, cohort="c")], 0, 6000, 6000),
    # a lendingLimit caps what the lender gives
    ([cluster_queue("a", {"default": {"cpu": "4"}}, cohort="c"),
      cluster_queue("b", {"default": {"cpu": {"nominalQuota": "4", "lendingLimit": "1"}}}, cohort="c")],
     0, 5000, 5000),
    # using its own quota first: borrowing only beyond it
    ([cluster_queue("a", {"default": {"cpu": "4"}}, cohort="c"), cluster_queue("b", {"default": {"cpu": "4"}}, cohort="c")],
     6000, 2000, 8000),
    # a cohort with quota of its own, and a nested cohort
    ([cluster_queue("a", {"default": {"cpu": "4"}}, cohort="child"), _cohort("child", parent="root"),
      _cohort("root", quota="10")], 0, 14000, 14000),
])
def test_available_and_capacity(docs: list[str], used: int, available: int, capacity: int) -> None:
    snap = snapshot(flavor("default"), *docs)
    cq = snap.cluster_queue("a")
    cq.add_usage({CPU: used})
    assert cq.available(CPU) == available
    assert cq.potential_available(CPU) == capacity


def test_usage_climbs_to_the_parent_only_beyond_what_the_queue_keeps() -> None:
    snap = snapshot(flavor("default"),
                    cluster_queue("a", {"default": {"cpu": {"nominalQuota": "4", "lendingLimit": "1"}}}, cohort="c"),
                    cluster_queue("b", {"default": {"cpu": "4"}}, cohort="c"))
    cq, cohort = snap.cluster_queue("a"), snap.cohorts["c"]
    assert cq.resource_node.local_quota(CPU) == 3000          # 4 nominal, 1 lent
    assert cohort.resource_node.subtree_quota[CPU] == 5000     # a's 1 lent + b's 4
    cq.add_usage({CPU: 2000})
    assert cohort.resource_node.usage.get(CPU, 0) == 0         # within what a keeps
    cq.add_usage({CPU: 2000})
    assert cohort.resource_node.usage[CPU] == 1000             # 4 used, 3 kept: 1 in the cohort
    cq.remove_usage({CPU: 2000})
    assert cohort.resource_node.usage[CPU] == 0
    assert rn.within_nominal(cq, [CPU])


@pytest.mark.parametrize(("remaining", "fits"), [(1000, True), (9000, False)])
def test_fits_in_quota(remaining: int, fits: bool) -> None:
    snap = snapshot(flavor("default"), cluster_queue("a", {"default": {"cpu": "4"}}, cohort="c"),
                    cluster_queue("b", {"default": {"cpu": "4"}}, cohort="c"))
    ok, left = rn.fits_in_quota(snap.cohorts["c"], {CPU: remaining})
    assert ok is fits and left == {CPU: remaining}

"""Kueue versions as data (versions.py): the releases followed and the differences the code asks."""
from __future__ import annotations

import pytest

from kexplain.errors import KexplainError
from kexplain.kueue.versions import VERSIONS, resolve
from tests.kueue.builders import cluster_queue, flavor, local_queue, run, workload


@pytest.mark.parametrize(("text", "release"), [(None, "v0.17.8"), ("0.17", "v0.17.8"), ("v0.19.2", "v0.19.2"),
                                               ("0.19", "v0.19.2")])
def test_resolve(text, release) -> None:
    assert resolve(text).release == release


def test_an_unknown_version_is_one_line() -> None:
    with pytest.raises(KexplainError, match="supported: 0.17 .v0.17.8., 0.19 .v0.19.2."):
        resolve("0.18")


def test_the_differences_are_data() -> None:
    base, later = VERSIONS["0.17"], VERSIONS["0.19"]
    fields = ["equivalence_hashing", "preserve_scan_progress", "no_candidates_rank_lowest", "pods_request_copied",
              "check_states_named", "every_short_resource"]
    assert [f for f in fields if getattr(base, f) != getattr(later, f)] == fields


@pytest.mark.parametrize(("version", "message"), [
    ("0.17", "Workload namespace doesn't match ClusterQueue selector"),
    ("0.19", "workload namespace doesn't match ClusterQueue selector"),
])
def test_namespace_mismatch_message(version: str, message: str) -> None:
    done = run(flavor("default"), local_queue("q", "cq"),
               cluster_queue("cq", {"default": {"cpu": "4"}}, namespaceSelector={"matchLabels": {"team": "a"}}),
               submitted=(workload("w", "q", {"cpu": "1"}),), version=version)
    cond = done.workloads["default/w"].find("QuotaReserved")
    assert (cond.reason, cond.message) == ("Pending", message)


def test_v0_19_lists_every_short_resource() -> None:
    """v0.19.0 (kueue #12378): a flavor short of cpu is still checked for memory, and the NoFit
    message names both; v0.17 stops at the first short resource."""
    docs = (flavor("default"), cluster_queue("cq", {"default": {"cpu": "2", "memory": "1Gi"}}), local_queue("q", "cq"))
    job = workload("w", "q", {"cpu": "4", "memory": "2Gi"})
    messages = {v: run(*docs, submitted=(job,), version=v).workloads["default/w"].find("QuotaReserved").message
                for v in ("0.17", "0.19")}
    assert messages["0.17"].count("insufficient quota for") == 1
    assert messages["0.19"] == ("couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, "
                                "previously considered podsets requests (0) + current podset request (4) > maximum "
                                "capacity (2), insufficient quota for memory in flavor default, previously considered "
                                "podsets requests (0) + current podset request (2Gi) > maximum capacity (1Gi)")

"""The Cluster Autoscaler's answer for a ProvisioningRequest Kueue creates (cluster-autoscaler/
provisioningrequest at 70920d3c6f5f): check-capacity (checkcapacity/provisioningclass.go: the pods
fit the nodes there are, or not; nothing is scaled) and best-effort atomic scale-up
(besteffortatomic/provisioning_class.go: one scale-up for all the pods that do not fit, or none),
with the conditions and texts CA writes (conditions/conditions.go, the classes' inline texts), the
injector's Accepted condition first, a provisioned request's pods booked in the next loops. Run
through `kexplain kueue --node-groups` on fixtures/kueue/provisioning (one A100 node with 4 of
its 8 GPUs free; the group `a100` at 1 node of at most 3), CA run with --enable-provisioning-requests
(`ENABLED`); without it (CA's default) CA leaves every request as it is."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kexplain.autoscaler.provisioningrequest.conditions import supported
from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

HERE = FIXTURES / "kueue" / "provisioning"
ENABLED = ("--autoscaler-config", str(HERE / "autoscaler-config.yaml"))    # --enable-provisioning-requests
# The texts, as CA's Go code spells them
ACCEPTED = {"type": "Accepted", "status": "True", "reason": "Accepted",
            "message": "ProvisioningRequest is accepted by ClusterAutoscaler"}
FOUND = {"type": "Provisioned", "status": "True", "reason": "CapacityIsFound",
         "message": "Capacity is found in the cluster"}
PROVISIONED = {"type": "Provisioned", "status": "True", "reason": "CapacityIsProvisioned",
               "message": "Capacity is found in the cluster"}
NOT_FOUND = {"type": "Provisioned", "status": "False", "reason": "CapacityIsNotFound",
             "message": "Capacity is not found, CA will try to find it later."}
NO_RETRY = {"type": "Failed", "status": "True", "reason": "CapacityIsNotFound",
            "message": "CA could not find requested capacity"}


def kueue(*files: Path, config: tuple[str, ...] = ENABLED) -> tuple[int, dict[str, Any]]:
    env = TestEnvironment()
    code = main(["kueue", *map(str, files), "--nodes", str(HERE / "cluster.yaml"), "--node-groups",
                 str(HERE / "nodegroups.yaml"), *config, "--now", "2026-01-01T01:00:00Z", "-o", "json",
                 "--no-suggestions"], env=env)
    return code, json.loads(env.out)


def answers(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each Workload's (by its job's name) one request: CA's answer and the check state after."""
    by_job = {j["workload"]: j["name"] for j in doc["jobs"]}
    out = {}
    for w in doc["workloads"]:
        [asked] = w["provisioningRequests"]
        out[by_job[w["name"]]] = {**asked["provisioner"], "check": (asked["checkState"], asked.get("checkMessage")),
                                  "admitted": any(c["type"] == "Admitted" for c in w["conditions"])}
    return out


def test_check_capacity_that_fits_is_provisioned_and_the_workload_admitted() -> None:
    code, doc = kueue(HERE / "check-fits.yaml")
    got = answers(doc)["fits"]
    assert got["conditions"] == [ACCEPTED, FOUND]
    assert set(got["fitsOnNodes"].values()) == {"a100-1"} and "scaleUps" not in got
    assert got["check"] == ("Ready", "Capacity is found in the cluster") and got["admitted"]
    assert code == 0


def test_check_capacity_that_does_not_fit_scales_nothing_and_the_check_waits() -> None:
    code, doc = kueue(HERE / "check-short.yaml")
    got = answers(doc)["too-big"]
    assert got["conditions"] == [ACCEPTED, NOT_FOUND]
    assert len(got["fitsOnNodes"]) == 2 and len(got["fitsNoNode"]) == 1      # 3 pods of 2 GPUs, 4 free
    assert "scaleUps" not in got
    assert got["check"] == ("Pending", "Capacity is not found, CA will try to find it later.")
    assert not got["admitted"]
    assert code == 0            # quota is reserved: the Workload waits for its check


def test_no_retry_fails_the_request_and_kueue_retries(tmp_path: Path) -> None:
    text = (HERE / "check-short.yaml").read_text().replace(
        "  labels: {kueue.x-k8s.io/queue-name: check-first}",
        "  labels: {kueue.x-k8s.io/queue-name: check-first}\n"
        "  annotations: {provreq.kueue.x-k8s.io/noRetry: \"true\"}")
    (tmp_path / "job.yaml").write_text(text)
    _, doc = kueue(tmp_path / "job.yaml")
    got = answers(doc)["too-big"]
    assert got["conditions"] == [ACCEPTED, NO_RETRY]
    assert got["check"] == ("Retry", "Retrying after failure: CA could not find requested capacity")


def test_a_provisioned_request_books_its_capacity_for_the_next() -> None:
    _, doc = kueue(HERE / "check-fits.yaml", HERE / "check-short.yaml")
    got = answers(doc)
    assert got["fits"]["conditions"] == [ACCEPTED, FOUND]
    assert got["too-big"]["conditions"] == [ACCEPTED, NOT_FOUND]
    assert not got["too-big"].get("fitsOnNodes")        # the 4 free GPUs are booked by fits' request


def test_best_effort_atomic_scale_up_of_every_pod_is_provisioned() -> None:
    code, doc = kueue(HERE / "atomic-fits.yaml")
    got = answers(doc)["burst"]
    assert got["conditions"] == [ACCEPTED, PROVISIONED]
    assert got["scaleUps"] == [{"nodeGroup": "a100", "from": 1, "to": 3}]
    assert got["scaleUpResult"] == "ScaleUpSuccessful"
    assert got["check"] == ("Ready", "Capacity is found in the cluster") and got["admitted"]
    assert code == 0


def test_best_effort_atomic_scale_up_that_cannot_place_every_pod_asks_for_nothing() -> None:
    _, doc = kueue(HERE / "atomic-short.yaml")
    got = answers(doc)["huge"]
    assert got["conditions"] == [ACCEPTED, NOT_FOUND]
    assert "scaleUps" not in got and got["scaleUpResult"] == "ScaleUpNoOptionsAvailable"
    assert got["partialOptions"] == [{"nodeGroup": "a100", "nodes": 2, "pods": 2, "of": 4}]
    assert got["check"] == ("Pending", "Capacity is not found, CA will try to find it later.")
    assert not got["admitted"]


@pytest.mark.parametrize(("cls", "params", "instance", "taken"), [
    ("check-capacity.autoscaling.x-k8s.io", {}, "", True),
    ("best-effort-atomic-scale-up.autoscaling.x-k8s.io", {}, "", True),
    ("best-effort-atomic-scale-up.autoscaling.x-k8s.io", {}, "a", False),
    ("check-capacity.autoscaling.x-k8s.io", {"processorInstance": "a"}, "", False),
    ("check-capacity.autoscaling.x-k8s.io", {"processorInstance": "a"}, "a", True),
    ("acheck-capacity.autoscaling.x-k8s.io", {}, "a", True),      # the deprecated prefixed class
    ("queued-provisioning.gke.io", {}, "", False),
])
def test_the_classes_ca_takes(cls: str, params: dict[str, str], instance: str, taken: bool) -> None:
    assert supported(cls, params, instance) is taken


def test_a_class_ca_does_not_take_is_left_to_another_provisioner(tmp_path: Path) -> None:
    cluster = (HERE / "cluster.yaml").read_text().replace("check-capacity.autoscaling.x-k8s.io",
                                                          "queued-provisioning.gke.io")
    (tmp_path / "cluster.yaml").write_text(cluster)
    env = TestEnvironment()
    main(["kueue", str(HERE / "check-fits.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), "--node-groups",
          str(HERE / "nodegroups.yaml"), *ENABLED, "--now", "2026-01-01T01:00:00Z", "-o", "json"], env=env)
    got = answers(json.loads(env.out))["fits"]
    assert got["processed"] is False and got["conditions"] == []
    assert got["check"] == ("Pending", None)


def test_without_enable_provisioning_requests_ca_leaves_every_request_as_it_is(tmp_path: Path) -> None:
    """CA's flag defaults to false (config/flags/flags.go), and CA then builds no injector: the request
    gets no condition, nothing is scaled, and Kueue's check stays Pending; the same with it set false."""
    off = tmp_path / "off.yaml"
    off.write_text("flags:\n  enable-provisioning-requests: false\n")
    for config in ((), ("--autoscaler-config", str(off))):
        code, doc = kueue(HERE / "check-fits.yaml", HERE / "atomic-short.yaml", config=config)
        for name, got in answers(doc).items():
            assert got["processed"] is False and got["conditions"] == [], name
            assert "--enable-provisioning-requests=false" in got["note"] and "scaleUps" not in got
            assert got["check"] == ("Pending", None) and not got["admitted"]
    assert answers(kueue(HERE / "check-fits.yaml")[1])["fits"]["conditions"] == [ACCEPTED, FOUND]

"""The chain with a ProvisioningRequest check: `kexplain JOB --nodes CLUSTER --node-groups GROUPS`
runs Kueue, whose provisioning controller's request the Cluster Autoscaler answers, then the
scheduler for the pods Kueue starts (fixtures/kueue/provisioning); and `kexplain kueue`'s text."""
from __future__ import annotations

import json
from typing import Any

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

HERE = FIXTURES / "kueue" / "provisioning"
# the node groups, CA run with --enable-provisioning-requests (its default is false)
GROUPS = ("--node-groups", str(HERE / "nodegroups.yaml"), "--autoscaler-config", str(HERE / "autoscaler-config.yaml"))


def explain(job: str, *extra: str) -> tuple[int, str]:
    env = TestEnvironment()
    code = main([str(HERE / job), "--nodes", str(HERE / "cluster.yaml"), "--no-suggestions", *extra], env=env)
    return code, env.out


def placement(job: str, *extra: str) -> tuple[int, dict[str, Any]]:
    code, out = explain(job, "-o", "json", *extra)
    [found] = json.loads(out)["placements"]
    return code, found


def test_a_check_capacity_ready_starts_the_job_and_its_pods_are_scheduled() -> None:
    code, found = placement("check-fits.yaml", *GROUPS)
    answer = found["kueue"]
    assert answer["verdict"] == "Admitted"
    [asked] = answer["provisioningRequests"]
    assert asked["checkState"] == "Ready"
    [pod_set] = answer["podSets"]
    assert pod_set["nodeSelector"] == {"cloud.example.com/accelerator": "nvidia-a100"}
    assert pod_set["annotations"]["autoscaling.x-k8s.io/consume-provisioning-request"] == \
        asked["provisioningRequest"]["metadata"]["name"]
    assert found["nodes"] == {"a100-1": 2}
    assert code == 0


def test_without_node_groups_the_request_is_shown_and_the_job_held() -> None:
    code, found = placement("check-fits.yaml")
    answer = found["kueue"]
    assert answer["verdict"] == "QuotaReserved"
    assert answer["admissionChecks"] == [{"name": "capacity", "state": "Pending"}]
    [asked] = answer["provisioningRequests"]
    assert "provisioner" not in asked


def test_the_chain_in_words() -> None:
    _, out = explain("check-short.yaml", *GROUPS)
    assert "waits for its admission checks (capacity Pending (Capacity is not found, CA will try to find it later.))" \
        in " ".join(out.split())
    words = " ".join(out.split())
    assert "Cluster Autoscaler: Provisioned=False CapacityIsNotFound: Capacity is not found, CA will try to find it " \
           "later." in words
    assert "2 of 3 pods fit the nodes there are" in words


def test_kueue_text_names_the_request_cas_answer_and_the_check() -> None:
    env = TestEnvironment()
    main(["kueue", str(HERE / "atomic-short.yaml"), "--nodes", str(HERE / "cluster.yaml"), *GROUPS, "--now", "2026-01-01T01:00:00Z", "--no-suggestions"], env=env)
    words = " ".join(env.out.split())
    assert "ProvisioningRequests" in words
    assert "class best-effort-atomic-scale-up.autoscaling.x-k8s.io" in words
    assert ("node group a100 would take only 2 of the 4 pods (2 nodes): all or nothing, so none is asked"
            in words)
    assert "Kueue: check scale-up Pending → Pending: Capacity is not found, CA will try to find it later." in words


def test_autoscaler_config_without_node_groups_is_refused() -> None:
    env = TestEnvironment()
    code = main(["kueue", str(HERE / "check-fits.yaml"), "--nodes", str(HERE / "cluster.yaml"),
                 "--autoscaler-config", str(HERE / "nodegroups.yaml")], env=env)
    assert code == 2
    assert "--autoscaler-config needs node groups" in env.err


def test_a_template_annotation_the_check_would_change_keeps_the_job_held(tmp_path) -> None:
    """podset.Merge refuses a PodSetUpdate that sets a key the template has to another value: Kueue
    cannot start the job (RunWithPodSetsInfo's BadPodSetsUpdateError), the Job stays suspended."""
    text = (HERE / "check-fits.yaml").read_text().replace(
        "  template:\n    spec:",
        "  template:\n    metadata:\n      annotations: {autoscaling.x-k8s.io/consume-provisioning-request: another}\n"
        "    spec:")
    (tmp_path / "job.yaml").write_text(text)
    env = TestEnvironment()
    main([str(tmp_path / "job.yaml"), "--nodes", str(HERE / "cluster.yaml"), *GROUPS, "--no-suggestions", "-o", "json"], env=env)
    [found] = json.loads(env.out)["placements"]
    request = found["kueue"]["provisioningRequests"][0]["provisioningRequest"]["metadata"]["name"]
    assert found["kueue"]["startError"] == (
        "invalid admission check PodSetUpdate: conflict for annotations: conflict for "
        f"key=autoscaling.x-k8s.io/consume-provisioning-request, value1=another, value2={request}")

"""`kexplain kueue` under a Configuration's decision-changing fields (issue 72): which jobs Kueue
manages, waitForPodsReady and resources, said in the text and in the JSON document."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.kueue.builders import cluster_queue, flavor, local_queue, workload
from tests.kueue.test_config_management import job
from tests.kueue.test_pods_ready import admitted
from tests.support.cli_helpers import run_cli

NOW = ["--now", "2026-01-01T00:00:00Z"]
QUEUES = [flavor("default"), cluster_queue("cq", {"default": {"cpu": "8", "example.com/mem": "20Gi"}}),
          local_queue("q", "cq"), cluster_queue("cq2", {"default": {"cpu": "8"}}), local_queue("q2", "cq2")]


def _config(**fields) -> str:
    return yaml.safe_dump({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", **fields})


def _kueue(tmp_path: Path, cluster: list[str], submitted: list[str]) -> tuple[str, dict]:
    (tmp_path / "cluster.yaml").write_text("---\n".join(cluster))
    (tmp_path / "jobs.yaml").write_text("---\n".join(submitted))
    args = ["kueue", str(tmp_path / "jobs.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), *NOW]
    _, text, err = run_cli(*args)
    _, out, _ = run_cli(*args, "-o", "json")
    assert not err.startswith("error"), err
    return " ".join(text.split()), json.loads(out)


def test_which_jobs_kueue_manages(tmp_path: Path) -> None:
    cfg = _config(manageJobsWithoutQueueName=True, integrations={"frameworks": ["batch/job"]})
    pod = yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {
        "kueue.x-k8s.io/queue-name": "q"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    text, doc = _kueue(tmp_path, [*QUEUES, cfg], [job("plain"), pod])
    jobs = {j["name"]: j for j in doc["jobs"]}
    assert jobs["plain"]["workload"] and "queueName" not in jobs["plain"]
    assert jobs["p"]["error"].startswith("not managed by Kueue: its integration pod is not in the Configuration's "
                                         "integrations.frameworks")
    assert "Kueue: LocalQueue doesn't exist" in text       # (its name empty)
    assert "Pod default/p: no Workload: not managed by Kueue: its integration pod is not in" in text
    assert "configurationNote" not in doc


def test_pods_ready_timeout_and_block_admission(tmp_path: Path) -> None:
    cfg = _config(waitForPodsReady={"timeout": "30m", "blockAdmission": True})
    text, doc = _kueue(tmp_path, [*QUEUES, admitted("a"), cfg], [workload("w", "q2", {"cpu": "1"})])
    a = next(w for w in doc["workloads"] if w["name"] == "a")
    assert a["requeueState"] == {"count": 1, "requeueAt": "2026-01-01T00:01:00Z"}
    assert {"type": "Evicted", "status": "True", "reason": "PodsReadyTimeout",
            "message": "Exceeded the PodsReady timeout default/a"} in a["conditions"]
    item, = doc["explanation"]["workloads"]
    assert (item["verdict"], item["message"]) == ("WaitingForPodsReady", "waiting for all admitted workloads to be "
                                                                         "in PodsReady condition")
    assert "default/a q 0 evicted (PodsReadyTimeout)" in text
    assert ("Why default/w is pending: it fits, but Kueue's scheduler admits nothing until every admitted Workload "
            "is PodsReady") in text
    assert "EvictedDueToPodsReadyTimeout: Exceeded the PodsReady timeout default/a" in text


def test_resources_change_what_is_counted(tmp_path: Path) -> None:
    cfg = _config(resources={"excludeResourcePrefixes": ["example.com/nic"], "transformations": [
        {"input": "nvidia.com/mig-1g", "strategy": "Replace", "outputs": {"example.com/mem": "5Gi"}}]})
    w = workload("w", "q", {"cpu": "1", "nvidia.com/mig-1g": "1", "example.com/nic": "1"}, count=2)
    text, doc = _kueue(tmp_path, [*QUEUES, cfg], [w])
    got = next(x for x in doc["workloads"] if x["name"] == "w")
    assert got["podSetAssignments"][0]["resourceUsage"] == {"cpu": "2", "example.com/mem": "10737418240"}
    assert "admitted in cq" in text


def test_a_job_whose_framework_is_off_runs_as_written_in_the_chain(tmp_path: Path) -> None:
    """Plain kexplain: with batch/job off no webhook of Kueue's suspends the Job: its pods are scheduled
    as written (no flavor's node selector), and Kueue's answer says why."""
    from tests.support.paths import FIXTURES
    written = yaml.safe_load((FIXTURES / "kueue" / "eval.yaml").read_text())
    written["spec"].pop("suspend")
    (tmp_path / "eval.yaml").write_text(yaml.safe_dump(written))
    (tmp_path / "off.yaml").write_text(_config(integrations={"frameworks": ["pod"]}))
    args = [str(tmp_path / "eval.yaml"), "--nodes", str(FIXTURES / "kueue" / "cluster.yaml"), "--nodes",
            str(FIXTURES / "kueue" / "nodes.yaml"), "--kueue-config", str(tmp_path / "off.yaml")]
    _, out, err = run_cli(*args, "-o", "json")
    answer = json.loads(out)["placements"][0]["kueue"]
    assert answer["unmanaged"] is True and answer["verdict"] == "NotCreated", err
    assert answer["error"].startswith("not managed by Kueue: its integration batch/job is not in")
    _, text, _ = run_cli(*args)
    flat = " ".join(text.split())
    assert "2 of 2 replicas fit" in flat and "stays suspended" not in flat


def test_explain_and_lint_hold_a_job_without_a_queue_name_kueue_manages(tmp_path: Path) -> None:
    """Under manageJobsWithoutQueueName the chain and lint take the unlabelled Job to Kueue too: held
    (its Workload's LocalQueue, named "", does not exist), as `kexplain kueue` says; without it, the
    Job goes to the scheduler as written."""
    node = yaml.safe_dump({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {
        "allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"},
        "conditions": [{"type": "Ready", "status": "True"}]}})
    for manages, held in ((True, True), (False, False)):
        (tmp_path / "cluster.yaml").write_text("---\n".join([*QUEUES, node, _config(
            manageJobsWithoutQueueName=manages)]))
        (tmp_path / "job.yaml").write_text(job("plain"))
        _, out, err = run_cli(str(tmp_path / "job.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), "-o", "json")
        [found] = json.loads(out)["placements"]
        assert ("kueue" in found) is held, err
        if held:
            assert found["kueue"]["verdict"] != "Admitted" and found["idle"].startswith("spec.suspend is true")
            _, text, _ = run_cli(str(tmp_path / "job.yaml"), "--nodes", str(tmp_path / "cluster.yaml"))
            assert "Kueue v0.17.8, no queue name: Workload default/job-plain-" in " ".join(text.split())
        _, out, _ = run_cli("lint", str(tmp_path / "job.yaml"), "--nodes", str(tmp_path / "cluster.yaml"),
                            "-o", "json")
        rules = {f["rule"] for f in json.loads(out)["findings"]}
        assert ("kueue-held" in rules) is held, rules

"""The Jobs the JobSet controller makes of a JobSet (kueue/jobset_jobs.py): its labels
(job-key, indexes, groups), DNS subdomain and webhook defaults, both strategies of exclusive
placement, and, through the chain, the exclusive placement's anti-affinity keeping the leader
out of a zone another Job holds."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import yaml

from kexplain.cli.app import main
from kexplain.kueue.apis.priorityclass import PriorityClass
from kexplain.kueue.jobset_jobs import (
    EXCLUSIVE, JOB_KEY, NAMESPACED_JOB, NO_SCHEDULE_TAINT, NODE_SELECTOR_STRATEGY, PRIORITY, jobset_jobs, pod_priority,
)
from kexplain.kueue.podset import PodSetInfo
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "kueue"
ZONE = "topology.kubernetes.io/zone"


def _jobset(annotations: dict | None = None, network: dict | None = None, **rj_extra) -> dict:
    def rj(name: str, replicas: int, group: str | None = None) -> dict:
        out = {"name": name, "replicas": replicas, "template": {"spec": {"parallelism": 2, "completions": 2,
               "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}, **rj_extra}
        if group:
            out["groupName"] = group
        return out
    spec = {"suspend": True, "replicatedJobs": [rj("driver", 1), rj("workers", 3, "pool"), rj("ps", 2, "pool")]}
    if network is not None:
        spec["network"] = network
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "sim", "namespace": "team-b", "uid": "u-1", "annotations": annotations or {}},
            "spec": spec}


def _by_name(jobs: list[dict]) -> dict[str, dict]:
    return {j["metadata"]["name"]: j for j in jobs}


def test_labels_indexes_and_defaults() -> None:
    jobs = _by_name(jobset_jobs(_jobset(), None))
    assert list(jobs) == ["sim-driver-0", "sim-workers-0", "sim-workers-1", "sim-workers-2", "sim-ps-0", "sim-ps-1"]
    ps1 = jobs["sim-ps-1"]
    pod = ps1["spec"]["template"]
    labels = pod["metadata"]["labels"]
    assert labels[JOB_KEY] == hashlib.sha1(b"team-b/sim-ps-1").hexdigest()
    assert ps1["metadata"]["labels"][JOB_KEY] == labels[JOB_KEY] == pod["metadata"]["annotations"][JOB_KEY]
    assert (labels["jobset.sigs.k8s.io/job-index"], labels["jobset.sigs.k8s.io/job-global-index"],
            labels["jobset.sigs.k8s.io/global-replicas"]) == ("1", "5", "6")
    assert (labels["jobset.sigs.k8s.io/group-name"], labels["jobset.sigs.k8s.io/group-replicas"],
            labels["jobset.sigs.k8s.io/job-group-index"]) == ("pool", "5", "4")
    assert jobs["sim-driver-0"]["spec"]["template"]["metadata"]["labels"]["jobset.sigs.k8s.io/group-name"] == "default"
    assert labels["jobset.sigs.k8s.io/jobset-uid"] == "u-1" and ps1["metadata"]["ownerReferences"][0]["uid"] == "u-1"
    assert ps1["spec"]["completionMode"] == "Indexed" and ps1["spec"]["suspend"] is True
    assert pod["spec"]["subdomain"] == "sim" and pod["spec"]["restartPolicy"] == "OnFailure"
    assert labels[PRIORITY] == "0"              # the pod webhook: the pod's priority, no class: 0
    assert "affinity" not in pod["spec"]


def test_dns_hostnames_off_or_another_subdomain() -> None:
    off = jobset_jobs(_jobset(network={"enableDNSHostnames": False}), None)
    assert all("subdomain" not in j["spec"]["template"]["spec"] for j in off)
    named = jobset_jobs(_jobset(network={"subdomain": "net"}), None)
    assert {j["spec"]["template"]["spec"]["subdomain"] for j in named} == {"net"}


def test_exclusive_placement_gives_the_leader_its_terms() -> None:
    classes = {"high": PriorityClass("high", 1000, global_default=True)}
    jobs = jobset_jobs(_jobset({EXCLUSIVE: ZONE}), None, classes)
    for job in jobs:
        pod = job["spec"]["template"]
        key = pod["metadata"]["labels"][JOB_KEY]
        assert pod["metadata"]["labels"][PRIORITY] == "1000" and pod["metadata"]["annotations"][EXCLUSIVE] == ZONE
        (same,) = pod["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        (others,) = pod["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert same["topologyKey"] == others["topologyKey"] == ZONE and same["namespaceSelector"] == {}
        assert same["labelSelector"]["matchExpressions"] == [{"key": JOB_KEY, "operator": "In", "values": [key]}]
        assert {"key": JOB_KEY, "operator": "NotIn", "values": [key]} in others["labelSelector"]["matchExpressions"]
        assert {"key": PRIORITY, "operator": "In", "values": ["1000"]} in others["labelSelector"]["matchExpressions"]


def test_exclusive_placement_per_replicated_job_and_node_selector_strategy() -> None:
    js = _jobset()
    js["spec"]["replicatedJobs"][1]["template"]["metadata"] = {
        "annotations": {EXCLUSIVE: ZONE, NODE_SELECTOR_STRATEGY: "true"}}
    jobs = _by_name(jobset_jobs(js, None))
    workers = jobs["sim-workers-2"]["spec"]["template"]
    assert workers["spec"]["nodeSelector"] == {NAMESPACED_JOB: "team-b_sim-workers-2"}
    assert workers["spec"]["tolerations"] == [{"key": NO_SCHEDULE_TAINT, "operator": "Exists", "effect": "NoSchedule"}]
    assert "affinity" not in workers["spec"] and PRIORITY not in workers["metadata"]["labels"]
    driver = jobs["sim-driver-0"]["spec"]["template"]
    assert EXCLUSIVE not in driver["metadata"]["annotations"] and "nodeSelector" not in driver["spec"]


def test_started_jobs_carry_the_pod_sets_info() -> None:
    info = PodSetInfo("workers", 2, ("od",), {"kueue.x-k8s.io/podset": "workers"}, {}, {"pool": "general"})
    jobs = _by_name(jobset_jobs(_jobset(), [PodSetInfo("driver", 1), info, PodSetInfo("ps", 2)]))
    pod = jobs["sim-workers-0"]["spec"]["template"]
    assert jobs["sim-workers-0"]["spec"]["suspend"] is False and pod["spec"]["nodeSelector"] == {"pool": "general"}
    assert pod["metadata"]["labels"]["kueue.x-k8s.io/podset"] == "workers" and JOB_KEY in pod["metadata"]["labels"]


def test_pod_priority() -> None:
    classes = {"low": PriorityClass("low", 10), "def": PriorityClass("def", 5, global_default=True)}
    assert pod_priority({"priorityClassName": "low"}, classes) == 10
    assert pod_priority({}, classes) == 5 and pod_priority({}, {}) == 0
    assert pod_priority({"priorityClassName": "gone"}, classes) is None
    assert pod_priority({"priority": 7, "priorityClassName": "low"}, classes) == 7


def test_exclusive_leader_avoids_a_zone_another_job_holds(tmp_path: Path) -> None:
    """od-1 (zone-a) runs a pod of another JobSet's Job at priority 0: the leader's
    anti-affinity keeps it out of zone-a, so it goes to od-2 (zone-b)."""
    js = yaml.safe_load((CASE / "sim.yaml").read_text())
    js["metadata"]["annotations"] = {EXCLUSIVE: ZONE}
    js["spec"]["replicatedJobs"] = js["spec"]["replicatedJobs"][:1]
    other = {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": "other-0", "namespace": "team-a",
                          "labels": {JOB_KEY: "0" * 40, PRIORITY: "0"}},
             "spec": {"nodeName": "od-1", "containers": [{"name": "c", "image": "busybox"}]}}
    (tmp_path / "js.yaml").write_text(yaml.safe_dump(js))
    (tmp_path / "other.yaml").write_text(yaml.safe_dump(other))
    env = TestEnvironment(width=100)
    code = main([str(tmp_path / "js.yaml"), "--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodes.yaml"),
                 "--nodes", str(tmp_path / "other.yaml"), "-o", "json"], env)
    assert code == 0, env.err
    doc = json.loads(env.out)
    trace = doc if "result" in doc else doc["items"][0]
    assert trace["result"]["status"] == "Scheduled" and trace["result"]["selectedNodes"] == ["od-2"]
    assert trace["filterAll"]["od-1"]["InterPodAffinity"]["code"] == "Unschedulable"

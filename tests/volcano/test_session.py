"""Volcano's session on small clusters built by hand, the expected answers read off the Go code
(volcano v1.15.1: actions/allocate, plugins/gang and proportion, api/job_info.go's FitError,
cache.go's RecordJobStatusEvent and the binder's event)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment


def node(name: str, cpu: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"}}}


def pod(name: str, group: str, cpu: str, at: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": f"2026-01-01T00:00:{at:02d}Z",
                         "annotations": {"scheduling.k8s.io/group-name": group}},
            "spec": {"schedulerName": "volcano",
                     "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}}


def group(name: str, min_member: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"minMember": min_member}}


def session(tmp_path: Path, objects: list[dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    env = TestEnvironment()
    code = main(["volcano", "--nodes", str(path), "-o", "json"], env)
    assert env.out, env.err
    return code, json.loads(env.out)


def events(doc: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(e["object"], e["reason"], e["message"]) for e in doc["events"]}


def test_an_elastic_gang_binds_its_minimum_and_the_rest_waits_on_the_queue(tmp_path: Path) -> None:
    # One node of 4 cpu, two tasks of 3, minMember 1: the first is bound (the gang is ready and the
    # statement committed); the second is over the queue's deserved (4 cpu), so allocate skips it
    # without a fit error: its condition carries the job's histogram alone.
    code, doc = session(tmp_path, [node("n1", "4"), group("g", 1), pod("g-0", "g", "3", 1), pod("g-1", "g", "3", 2)])
    pods = {p["name"]: p for p in doc["pods"]}
    assert pods["default/g-0"]["boundTo"] == "n1"
    hist = "pod group is ready, 1 Binding, 1 Pending, 1 minAvailable; Pending: 1 Unschedulable"
    assert pods["default/g-1"]["podScheduled"]["message"] == hist
    assert events(doc) >= {("Pod default/g-0", "Scheduled", "Successfully assigned default/g-0 to n1"),
                           ("PodGroup default/g", "Unschedulable", f"1/2 tasks in gang unschedulable: {hist}")}
    pg = doc["podGroups"][0]
    assert (pg["phaseBefore"], pg["phase"]) == ("Pending", "Inqueue")
    assert pg["conditions"][0]["type"] == "Scheduled"
    assert {q["name"]: q["allocated"] for q in doc["queues"]}["default"] == {"cpu": "3", "memory": "0", "pods": "1"}
    assert code == 0


def test_a_gang_short_of_its_minimum_is_rolled_back(tmp_path: Path) -> None:
    # Two nodes of 4 cpu, three tasks of 3, minMember 3: two placed, the third is over the queue's
    # deserved (the cluster's 8 cpu: proportion's allocatable refuses it, no fit error); the statement
    # is discarded and the placed ones say where they could go.
    code, doc = session(tmp_path, [node("a", "4"), node("b", "4"), group("g", 3),
                                   pod("g-0", "g", "3", 1), pod("g-1", "g", "3", 2), pod("g-2", "g", "3", 3)])
    pods = {p["name"]: p for p in doc["pods"]}
    assert not any(p.get("boundTo") for p in pods.values())
    assert pods["default/g-0"]["podScheduled"]["reason"] == "Schedulable"
    assert pods["default/g-0"]["nodeOneOf"] == ["a", "b"]      # equal nodes: Volcano names one at random
    hist = "pod group is not ready, 3 Pending, 3 minAvailable; Pending: 1 Unschedulable, 2 Schedulable"
    assert pods["default/g-2"]["podScheduled"]["message"] == hist
    assert doc["podGroups"][0]["conditions"][0]["message"] == f"1/3 tasks in gang unschedulable: {hist}"
    assert code == 1


def test_a_task_goes_to_its_nominated_node_first(tmp_path: Path) -> None:
    # allocateResourcesForTasks predicates the nominated node alone when the task fits its future idle:
    # of two equal nodes (a tie Go breaks at random) the nominated one is taken.
    nominated = pod("g-0", "g", "1", 1)
    nominated["status"] = {"phase": "Pending", "nominatedNodeName": "b"}
    _, doc = session(tmp_path, [node("a", "4"), node("b", "4"), group("g", 1), nominated])
    assert {p["name"]: p for p in doc["pods"]}["default/g-0"]["boundTo"] == "b"


def test_equal_nodes_are_said_as_one_of(tmp_path: Path) -> None:
    _, doc = session(tmp_path, [node("a", "4"), node("b", "4"), group("g", 1), pod("g-0", "g", "1", 1)])
    bound = {p["name"]: p for p in doc["pods"]}["default/g-0"]
    assert bound["boundToOneOf"] == ["a", "b"] and bound["boundTo"] in ("a", "b")


def test_a_queue_counts_what_running_jobs_hold_beyond_their_minimum_as_elastic(tmp_path: Path) -> None:
    # proportion's enqueue check: minResources + allocated + inqueue - elastic within the real
    # capability. The running job holds 4 cpu for a minimum of 2: 2 are elastic, so the new job's
    # 3 cpu fit the queue's 6 (3 + 4 - 2 = 5); without the elastic part it would not (7).
    queue = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"},
             "spec": {"capability": {"cpu": "6"}}}
    running = group("old", 1)
    running["spec"].update(queue="q", minResources={"cpu": "2"})
    running["status"] = {"phase": "Running"}
    old_pod = pod("old-0", "old", "4", 1)
    old_pod["spec"]["nodeName"] = "n1"
    old_pod["status"] = {"phase": "Running"}
    new = group("new", 1)
    new["spec"].update(queue="q", minResources={"cpu": "3"})
    _, doc = session(tmp_path, [node("n1", "8"), queue, running, old_pod, new, pod("new-0", "new", "1", 2)])
    phases = {pg["name"]: pg["phase"] for pg in doc["podGroups"]}
    assert phases["default/new"] == "Inqueue"
    assert not any("quota insufficient" in e["message"] for e in doc["events"])


def _running_gang(stored_running: int) -> list[dict[str, Any]]:
    pg = group("g", 1)
    pg["status"] = {"phase": "Running", "running": stored_running,
                    "conditions": [{"type": "Scheduled", "status": "True",
                                    "reason": "tasks in gang are ready to be scheduled", "message": ""}]}
    running = pod("g-0", "g", "1", 1)
    running["spec"]["nodeName"] = "n1"
    running["status"] = {"phase": "Running"}
    return [node("n1", "4"), pg, running]


def test_a_podgroup_status_unchanged_makes_no_scheduled_event(tmp_path: Path) -> None:
    # isPodGroupStatusUpdated compares the phase, the counts and the conditions (times aside): the
    # stored status already says Running with one pod running, so no "pod group is ready" event.
    _, doc = session(tmp_path, _running_gang(1))
    assert not any(e["reason"] == "Scheduled" for e in doc["events"])


def test_a_podgroup_whose_running_count_changes_gets_the_scheduled_event(tmp_path: Path) -> None:
    _, doc = session(tmp_path, _running_gang(0))
    assert ("PodGroup default/g", "Scheduled", "pod group is ready") in events(doc)


def test_a_volcano_job_among_the_cluster_is_made_into_its_podgroup_and_pods(tmp_path: Path) -> None:
    # Before, a Job among --nodes was only warned of ("kexplain does not make a Volcano Job's PodGroup
    # and pods yet"): now its PodGroup `<job>-<uid>` and its pod `<job>-<task>-<index>` are scheduled.
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
           "metadata": {"name": "tf", "namespace": "default", "uid": "u1"},
           "spec": {"minAvailable": 1, "tasks": [{"replicas": 1, "name": "w", "template": {"spec": {
               "containers": [{"name": "c", "image": "x"}]}}}]}}
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([node("n1", "4"), job]))
    env = TestEnvironment()
    assert main(["volcano", "--nodes", str(path), "-o", "json"], env) == 0, env.err
    doc = json.loads(env.out)
    assert env.err == ""
    assert [p["name"] for p in doc["podGroups"]] == ["default/tf-u1"]
    assert [(p["name"], p.get("boundTo")) for p in doc["pods"]] == [("default/tf-w-0", "n1")]
    assert doc["jobs"][0]["tasks"][0]["pods"][0]["boundTo"] == "n1"


def test_a_queue_allocated_adds_up_its_parents_to_root(tmp_path: Path) -> None:
    # updateQueueStatus: each allocated task counts in its queue and every ancestor up to root; a
    # parent that does not exist ends the walk (Go would dereference it).
    def queue(name: str, parent: str) -> dict[str, Any]:
        return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
                "spec": {"parent": parent}}
    g, h = group("g", 1), group("h", 1)
    g["spec"]["queue"], h["spec"]["queue"] = "leaf", "orphan"
    _, doc = session(tmp_path, [node("n1", "8"), queue("mid", "root"), queue("leaf", "mid"), queue("orphan", "gone"),
                                g, pod("g-0", "g", "1", 1), h, pod("h-0", "h", "2", 2)])
    cpu = {q["name"]: q["allocated"]["cpu"] for q in doc["queues"]}
    assert cpu == {"default": "0", "leaf": "1", "mid": "1", "orphan": "2", "root": "1"}


def test_a_bad_quantity_of_a_podgroup_is_an_input_error(tmp_path: Path) -> None:
    bad = group("g", 1)
    bad["spec"]["minResources"] = {"cpu": "two"}
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([node("n1", "4"), bad]))
    env = TestEnvironment()
    assert main(["volcano", "--nodes", str(path)], env) == 2
    assert "PodGroup default/g: spec.minResources.cpu: quantities must match the regular expression" in env.err

def test_a_json_list_with_bound_pods_reads_as_its_yaml(tmp_path: Path) -> None:
    # A compact JSON List's bound pods after the first of a shape are read as read-only views
    # (apimachinery/stored_pods.py): the cache must not write into them (it crashed on `setdefault`);
    # the document is the YAML file's.
    bound = []
    for i in range(3):
        p = pod(f"r-{i}", "r", "1", 3 + i)
        p["spec"]["nodeName"] = "n1"
        p["status"] = {"phase": "Running"}
        bound.append(p)
    running = group("r", 3)
    running["status"] = {"phase": "Running", "running": 3}
    objects = [node("n1", "8"), running, *bound, group("g", 1), pod("g-0", "g", "2", 9)]
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}, separators=(",", ":")))
    env = TestEnvironment()
    code = main(["volcano", "--nodes", str(path), "-o", "json"], env)
    assert env.out, env.err
    assert (code, json.loads(env.out)) == session(tmp_path, objects)
    assert json.loads(env.out)["pods"][0] == {"name": "default/g-0", "podGroup": "g", "boundTo": "n1"}

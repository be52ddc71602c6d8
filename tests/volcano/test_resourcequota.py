"""The resourcequota plugin: resourcequota_test.go's TestResourceQuotaPlugin (its four cases, the session
built as the Go test builds it: util.BuildResourceQuota sets status.hard = spec.hard, no used), then the
event's words (Go's `%v` of the ResourceLists), the namespace's jobs enqueued before one, and a quota
without a status (as the quota controller writes it)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.volcano.api.namespace import go_quantity
from tests.support.cli_helpers import TestEnvironment
from tests.volcano.capacity_inputs import node, plugin, pod, pod_group, queue, rl, run

NORMAL, HUGE = rl("2000m", "2G"), rl("20000m", "20G")
TIER = [plugin("resourcequota", "enableJobEnqueued")]


def quota(name: str, ns: str, hard: dict[str, str], status: bool = True, used: dict[str, str] | None = None) -> dict[str, Any]:
    """util.BuildResourceQuota (status.hard = spec.hard); `status=False`: only the spec, as a user writes it."""
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": ns},
                           "spec": {"hard": hard}}
    if status:
        obj["status"] = {"hard": hard, **({"used": used} if used else {})}
    return obj


def enqueued(doc: dict[str, Any]) -> dict[str, bool]:
    return {pg["name"]: pg["phase"] != "Pending" for pg in doc["podGroups"]}


def events(doc: dict[str, Any]) -> list[str]:
    return [e["message"] for e in doc["events"] if e["type"] == "Normal" and e["reason"] == "Unschedulable"]


CASES = [
    ("ResourceQuota capacity can match the needs of this pg", NORMAL, True, True),
    ("ResourceQuota capacity can't match the needs of this pg", HUGE, True, False),
    ("No ResourceQuota resource object", HUGE, False, True),
    ("MinResources field of pg is not set", None, True, True),
]


@pytest.mark.parametrize("name,min_resources,with_quota,expected", CASES, ids=[c[0] for c in CASES])
def test_resource_quota_plugin(tmp_path: Path, name: str, min_resources: dict[str, str] | None, with_quota: bool,
                               expected: bool) -> None:
    objects = [node("n1", rl("40", "100Gi", pods="110")), queue("c1", None, None),
               pod_group("pg", "default", "c1", 2, "Pending", min_resources)]
    if with_quota:
        objects.append(quota("test", "default", NORMAL))
    assert enqueued(run(tmp_path, objects, "enqueue", TIER)) == {"default/pg": expected}


def test_the_refusal_is_an_event_in_volcanos_words(tmp_path: Path) -> None:
    """fmt's %v of v1.ResourceList: the Quantity structs (int64Amount, no inf.Dec, the text kept only when
    ParseQuantity found it canonical, the format), only the exceeded resources, used empty."""
    objects = [node("n1", rl("40", "100Gi", pods="110")), queue("c1", None, None),
               pod_group("pg", "default", "c1", 2, "Pending", rl("20000m", "1G")),
               quota("test", "default", NORMAL)]
    doc = run(tmp_path, objects, "enqueue", TIER)
    assert events(doc) == ["resource quota insufficient, requested: map[cpu:{{20000 -3} {<nil>}  DecimalSI}], "
                           "used: map[], limited: map[cpu:{{2000 -3} {<nil>}  DecimalSI}]"]
    waiting = doc["queues"][0]["waiting"]
    assert waiting == [{"podGroup": "default/pg", "plugin": "resourcequota",
                        "reason": "resource quota insufficient: ResourceQuota test of the job's namespace "
                                  "(cpu 20 requested, 0 used, hard 2)"}]


def test_jobs_enqueued_before_count_against_the_quota(tmp_path: Path) -> None:
    """pendingResources: the first job's minResources is added to the namespace's use; the second one's
    then exceeds the quota; the event's `used` is still the status's."""
    objects = [node("n1", rl("40", "100Gi", pods="110")), queue("c1", None, None),
               {**pod_group("a", "default", "c1", 1, "Pending", rl("1500m")),
                "metadata": {"name": "a", "namespace": "default", "creationTimestamp": "2024-01-01T00:00:00Z"}},
               {**pod_group("b", "default", "c1", 1, "Pending", rl("1")),
                "metadata": {"name": "b", "namespace": "default", "creationTimestamp": "2024-01-01T00:00:01Z"}},
               quota("test", "default", rl("3"), used=rl("1"))]
    doc = run(tmp_path, objects, "enqueue", TIER)
    assert enqueued(doc) == {"default/a": True, "default/b": False}
    assert events(doc) == ["resource quota insufficient, requested: map[cpu:{{1 0} {<nil>} 1 DecimalSI}], "
                           "used: map[cpu:{{1 0} {<nil>} 1 DecimalSI}], limited: map[cpu:{{3 0} {<nil>} 3 DecimalSI}]"]


def test_a_quota_without_status_is_as_the_quota_controller_writes_it(tmp_path: Path) -> None:
    """hard from the spec, used what the namespace's pods request, both read back from canonical text."""
    objects = [node("n1", rl("40", "100Gi", pods="110")), queue("c1", None, None),
               pod("default", "running", "n1", "Running", rl("2", "1Gi"), ""),
               pod_group("pg", "default", "c1", 1, "Pending", rl("1500m")),
               quota("test", "default", rl("3000m"), status=False)]
    doc = run(tmp_path, objects, "enqueue", TIER)
    assert enqueued(doc) == {"default/pg": False}
    assert events(doc) == ["resource quota insufficient, requested: map[cpu:{{1500 -3} {<nil>} 1500m DecimalSI}], "
                           "used: map[cpu:{{2 0} {<nil>} 2 DecimalSI}], limited: map[cpu:{{3 0} {<nil>} 3 DecimalSI}]"]


def test_another_namespaces_quota_does_not_hold_the_job(tmp_path: Path) -> None:
    objects = [node("n1", rl("40", "100Gi", pods="110")), queue("c1", None, None),
               pod_group("pg", "default", "c1", 2, "Pending", HUGE), quota("test", "other", NORMAL)]
    assert enqueued(run(tmp_path, objects, "enqueue", TIER)) == {"default/pg": True}


@pytest.mark.parametrize("raw,shown", [
    ("0", "{{0 0} {<nil>} 0 DecimalSI}"), (2, "{{2 0} {<nil>} 2 DecimalSI}"),
    ("2G", "{{2 9} {<nil>} 2G DecimalSI}"), ("100m", "{{100 -3} {<nil>} 100m DecimalSI}"),
    ("0.5", "{{5 -1} {<nil>}  DecimalSI}"), ("1Gi", "{{1073741824 0} {<nil>} 1Gi BinarySI}"),
    ("1024Mi", "{{1073741824 0} {<nil>}  BinarySI}"), ("-3", "{{-3 0} {<nil>} -3 DecimalSI}"),
    ("1e3", "{{1 3} {<nil>} 1e3 DecimalExponent}"), (None, "{{0 0} {<nil>}  }"),
])
def test_go_prints_a_quantity_struct(raw: Any, shown: str) -> None:
    assert go_quantity(raw).shown == shown


def test_a_smaller_gang_keeps_the_quota_names_of_its_min_resources(tmp_path: Path) -> None:
    """The fix that lowers an enqueue-refused gang writes minResources as Volcano's job controller does,
    the quota evaluator's `requests.cpu` too: the one the quota limits (the job's own pending pods are
    in the quota's used already: 1 + 2, and 2 more would pass 4; one more does not)."""
    objects = [node("n1", rl("16", "64Gi", pods="110")), quota("compute", "ns", {"requests.cpu": "4"}, status=False),
               pod("ns", "etl", "n1", "Running", rl("1", "1Gi"), ""),
               pod_group("train", "ns", "default", 2, "Pending", {"requests.cpu": "2", "cpu": "2", "memory": "2Gi"}),
               pod("ns", "train-0", "", "Pending", rl("1", "1Gi"), "train"),
               pod("ns", "train-1", "", "Pending", rl("1", "1Gi"), "train")]
    doc = run(tmp_path, objects, "enqueue, allocate", [plugin("resourcequota", "enableJobEnqueued")])
    fix = doc["fixes"][0]["suggestions"][0]
    assert fix["change"][1]["value"] == {"cpu": "1", "memory": "1Gi", "requests.cpu": "1"}
    assert fix["verified"]["phase"] == "Inqueue"


def test_a_volcano_jobs_pods_are_not_in_the_quota_before_enqueue(tmp_path: Path) -> None:
    """The job controller creates a Job's pods only once enqueue has moved its PodGroup on: the quota's
    used (written without a status) does not hold them at enqueue, so the Job's 5 cpu fit the quota's 6."""
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
           "metadata": {"name": "train", "namespace": "default", "uid": "4d1c5f0e-0000-4000-8000-000000000001",
                        "creationTimestamp": "2026-01-01T00:00:01Z"},
           "spec": {"minAvailable": 2, "schedulerName": "volcano", "queue": "default",
                    "tasks": [{"name": "worker", "replicas": 2, "template": {"spec": {
                        "restartPolicy": "Never", "containers": [{"name": "w", "image": "i", "resources": {
                            "requests": {"cpu": "2500m", "memory": "1Gi"}}}]}}}]}}
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(job))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all([node("n1", rl("16", "64Gi", pods="110")),
                                                               quota("compute", "default", {"requests.cpu": "6"},
                                                                     status=False)]))
    (tmp_path / "conf.yaml").write_text("actions: enqueue, allocate\ntiers:\n- plugins:\n  - name: gang\n"
                                        "  - name: resourcequota\n  - name: predicates\n")
    env = TestEnvironment()
    main(["volcano", str(tmp_path / "job.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), "--scheduler-conf",
          str(tmp_path / "conf.yaml"), "-o", "json"], env)
    doc = json.loads(env.out)
    assert [pg["phase"] for pg in doc["podGroups"]] == ["Inqueue"] and events(doc) == []
    assert sorted(p["boundTo"] for p in doc["pods"]) == ["n1", "n1"]


@pytest.mark.parametrize("status,field", [(True, "status.hard.cpu"), (False, "spec.hard.cpu")])
def test_a_quantity_that_does_not_decode_is_a_clear_error(tmp_path: Path, status: bool, field: str) -> None:
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all([
        node("n1", rl("4", "8Gi", pods="10")), pod_group("pg", "default", "default", 1, "Pending", rl("1")),
        quota("test", "default", {"cpu": "2000x"}, status=status)]))
    (tmp_path / "conf.yaml").write_text("actions: enqueue\ntiers:\n- plugins:\n  - name: resourcequota\n")
    env = TestEnvironment()
    code = main(["volcano", "--nodes", str(tmp_path / "cluster.yaml"), "--scheduler-conf", str(tmp_path / "conf.yaml")],
                env)
    assert code == 2 and f"ResourceQuota default/test: {field}: quantities must match" in env.err

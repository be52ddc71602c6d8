"""kueue.x-k8s.io/v1beta1 objects read as Kueue v0.17.8's conversion webhook hands them to v1beta2
(apis/kueue/v1beta1/*_conversion.go): the renamed fields, the deprecated values, the fields only
v1beta2 has refused under v1beta1, and v1beta1's own rule."""
from __future__ import annotations

import pytest

from kexplain.errors import AdmissionRejected, InputError
from kexplain.kueue.apis.conversion import cohort_field, cohort_of, to_v1beta2, topology_slices
from tests.kueue.builders import read

CQ = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  cohort: research
  admissionChecks: [prov, other]
  flavorFungibility: {whenCanBorrow: Borrow, whenCanPreempt: Preempt}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f
      resources: [{name: cpu, nominalQuota: "4", borrowingLimit: "1"}]
"""


def test_a_v1beta1_cluster_queue_is_converted() -> None:
    cq = read(CQ).cluster_queues[0]
    assert cq.cohort == "research"
    assert [rule.name for rule in cq.admission_checks] == ["prov", "other"]
    assert (cq.flavor_fungibility.when_can_borrow, cq.flavor_fungibility.when_can_preempt) == \
        ("MayStopSearch", "MayStopSearch")


def test_the_same_queue_under_v1beta2_is_the_same() -> None:
    v2 = CQ.replace("v1beta1", "v1beta2").replace("cohort:", "cohortName:").replace(
        "admissionChecks: [prov, other]", "admissionChecksStrategy: {admissionChecks: [{name: prov}, {name: other}]}"
    ).replace("{whenCanBorrow: Borrow, whenCanPreempt: Preempt}", "{whenCanBorrow: MayStopSearch, "
              "whenCanPreempt: MayStopSearch}")
    assert read(v2).cluster_queues[0] == read(CQ).cluster_queues[0]


def test_borrowing_limit_without_cohort_is_refused_under_v1beta1_too() -> None:
    with pytest.raises(AdmissionRejected, match="borrowingLimit must be nil when cohort is empty"):
        read(CQ.replace("  cohort: research\n", ""))


def test_a_v1beta2_field_under_v1beta1_is_unknown_in_v1beta1() -> None:
    with pytest.raises(InputError, match='ClusterQueue in version "v1beta1" cannot be handled as a ClusterQueue: '
                                         'strict decoding error: unknown field "spec.cohortName"'):
        read(CQ.replace("cohort:", "cohortName:"))


def test_v1beta2_refuses_v1beta1_names() -> None:
    with pytest.raises(InputError, match='in version "v1beta2" .* unknown field "spec.cohort"'):
        read(CQ.replace("v1beta1", "v1beta2"))


WL = """apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: w, namespace: default}
spec:
  queueName: q
  %s
  podSets: [{name: main, count: 1, template: {spec: {containers: []}}}]
"""


@pytest.mark.parametrize(("source", "ref"), [
    ("kueue.x-k8s.io/workloadpriorityclass", ("WorkloadPriorityClass", "batch")),
    ("scheduling.k8s.io/priorityclass", ("PriorityClass", "batch")),
    ('""', None),
])
def test_a_v1beta1_workloads_priority_class_becomes_a_reference(source, ref) -> None:
    wl = read(submitted=(WL % f"priority: 100\n  priorityClassName: batch\n  priorityClassSource: {source}",)
              ).workloads[0]
    got = wl.spec.priority_class
    assert (None if got is None else (got.kind, got.name)) == ref
    assert wl.spec.priority == 100


def test_v1beta1s_priority_rule() -> None:
    with pytest.raises(AdmissionRejected, match="priority should not be nil when priorityClassName is set"):
        read(submitted=(WL % "priorityClassName: batch",))


def test_status_fields_renamed() -> None:
    obj = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
           "status": {"flavorUsage": [{"name": "f"}], "flavors": [{"name": "f"}]}}
    out, unknown, errors = to_v1beta2("LocalQueue", obj)
    assert out["status"] == {"flavorsUsage": [{"name": "f"}]} and not unknown and not errors
    assert obj["status"]["flavorUsage"] == [{"name": "f"}]          # the object read is not changed
    wl = {"kind": "Workload", "status": {"accumulatedPastExexcutionTimeSeconds": 5}}
    assert to_v1beta2("Workload", wl)[0]["status"] == {"accumulatedPastExecutionTimeSeconds": 5}


def test_topology_domains_become_one_slice() -> None:
    got = topology_slices({"levels": ["zone", "host"], "domains": [
        {"values": ["a", "h1"], "count": 2}, {"values": ["a", "h2"], "count": 2}]})
    assert got == {"levels": ["zone", "host"], "slices": [{
        "domainCount": 2, "valuesPerLevel": [{"universal": "a"}, {"individual": {"roots": ["h1", "h2"]}}],
        "podCounts": {"universal": 2}}]}


def test_the_cohort_field_follows_the_objects_version() -> None:
    v1 = {"apiVersion": "kueue.x-k8s.io/v1beta1", "spec": {"cohort": "c"}}
    v2 = {"apiVersion": "kueue.x-k8s.io/v1beta2", "spec": {"cohortName": "c"}}
    assert (cohort_field(v1), cohort_of(v1), cohort_field(v2), cohort_of(v2)) == ("cohort", "c", "cohortName", "c")

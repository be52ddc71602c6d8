"""The Kueue kinds as the API server stores them (apis/): the CRDs' defaults, what their schemas,
rules and Kueue's webhooks refuse (in the API server's words), and the inputs made of the
objects read."""
from __future__ import annotations

import copy
import json

import pytest

from kexplain.apimachinery.pod_lists import dump_list
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.errors import AdmissionRejected, InputError, Source
from kexplain.kueue.apis.workload import parse_workload
from kexplain.kueue.inputs import inputs_of
from kexplain.load.manifests import objects_from_text
from tests.kueue.builders import cluster_queue, flavor, local_queue, read

CQ = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
%s"""


def _cq(spec: str):
    return read(CQ % spec).cluster_queues[0]


def test_cluster_queue_defaults() -> None:
    cq = read(cluster_queue("cq", {"default": {"cpu": "4"}})).cluster_queues[0]
    assert (cq.queueing_strategy, cq.stop_policy) == ("BestEffortFIFO", "None")
    assert (cq.flavor_fungibility.when_can_borrow, cq.flavor_fungibility.when_can_preempt) == \
        ("MayStopSearch", "TryNextFlavor")
    assert (cq.preemption.within_cluster_queue, cq.preemption.reclaim_within_cohort,
            cq.preemption.borrow_within_cohort) == ("Never", "Never", "Never")


@pytest.mark.parametrize(("selector", "labels", "selects"), [
    ("", {"kubernetes.io/metadata.name": "a"}, False),                 # not defaulted: selects nothing
    ("  namespaceSelector: {}\n", {"kubernetes.io/metadata.name": "a"}, True),
    ("  namespaceSelector: {matchLabels: {team: a}}\n", {"team": "b"}, False),
])
def test_namespace_selector(selector, labels, selects) -> None:
    assert _cq(selector).namespace_selector.matches(labels) is selects


@pytest.mark.parametrize(("spec", "error"), [
    ("  queueingStrategy: LIFO\n", 'spec.queueingStrategy: Unsupported value: "LIFO"'),
    ("  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n      resources:\n"
     "      - {name: cpu, nominalQuota: \"4\", borrowingLimit: \"1\"}\n",
     "borrowingLimit must be nil when cohort is empty"),
    ("  cohortName: c\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n      resources:\n"
     "      - {name: cpu, nominalQuota: \"4\", lendingLimit: \"5\"}\n",
     'spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: Invalid value: "5": must be less than or equal '
     'to the nominalQuota'),
    ("  resourceGroups:\n  - coveredResources: [cpu, memory]\n    flavors:\n    - name: f\n      resources:\n"
     "      - {name: cpu, nominalQuota: \"4\"}\n",
     "flavors must have the same number of resources as the coveredResources"),
    ("  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n      resources: [{name: cpu, "
     "nominalQuota: \"1\"}]\n  - coveredResources: [memory]\n    flavors:\n    - name: f\n      resources: "
     "[{name: memory, nominalQuota: \"1\"}]\n",
     'spec.resourceGroups[1].flavors[0].name: Duplicate value: "f"'),
    ("  preemption: {reclaimWithinCohort: Never, borrowWithinCohort: {policy: LowerPriority}}\n",
     "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"),
])
def test_cluster_queue_refused(spec: str, error: str) -> None:
    with pytest.raises(AdmissionRejected) as caught:
        _cq(spec)
    assert 'ClusterQueue.kueue.x-k8s.io "cq" is invalid' in str(caught.value) and error in str(caught.value)


def test_unknown_fields_are_refused_under_strict_validation() -> None:
    with pytest.raises(InputError, match='unknown field "spec.bogus"'):
        _cq("  bogus: 1\n")


def test_workload_rules() -> None:
    wl = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: default}
spec:
  queueName: q
  podSets: [{name: main, count: 2, minCount: 3, template: {spec: {containers: []}}}]
"""
    with pytest.raises(AdmissionRejected, match="minCount should be positive and less or equal to count"):
        read(submitted=(wl,))


def test_inputs_sort_kinds_and_name_the_ignored() -> None:
    inputs = read(flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}), local_queue("q", "cq"),
                  "apiVersion: v1\nkind: Namespace\nmetadata: {name: ml, labels: {team: ml}}\n",
                  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
                  "apiVersion: batch/v1\nkind: Job\nmetadata: {name: old}\nspec: {template: {spec: "
                  "{restartPolicy: Never, containers: [{name: c, image: x}]}}}\n")
    assert list(inputs.flavors) == ["default"] and [q.key for q in inputs.local_queues] == ["default/q"]
    assert inputs.namespace_labels("ml") == {"team": "ml", "kubernetes.io/metadata.name": "ml"}
    assert inputs.namespace_labels("other") == {"kubernetes.io/metadata.name": "other"}
    assert [i.split(":")[0] for i in inputs.ignored] == ["ConfigMap default/cm", "Job default/old"]


@pytest.mark.parametrize("namespace", ["team", None])
def test_a_dumps_bound_pods_in_the_cluster_files_are_ignored_by_name(namespace) -> None:
    """A cluster dump's bound pods are read as views (`StoredPod`), not dicts: they are objects
    Kueue's admission does not read, named without being decoded whole."""
    meta = {"name": "web-0", "uid": "u-web-0", "resourceVersion": "7", **({"namespace": namespace} if namespace else {})}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
           "spec": {"containers": [{"name": "app", "image": "x"}], "nodeName": "n1"}}
    items = dump_list(json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod]}).encode())
    assert items is not None and type(items["items"][0]) is StoredPod
    inputs = inputs_of([], [(items["items"][0], Source("cluster.json", 1))])
    assert inputs.ignored == [f"Pod {namespace or 'default'}/web-0: a job of the cluster files (the submitted ones "
                              "are WORKLOADS')"]


def test_a_job_without_a_uid_gets_a_stable_one() -> None:
    text = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, labels: {kueue.x-k8s.io/queue-name: q}}\n"
            "spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}}\n")
    first = inputs_of(objects_from_text(text, "a.yaml"), []).jobs[0].meta.uid
    assert first and first == inputs_of(objects_from_text(text, "b.yaml"), []).jobs[0].meta.uid


WORKLOAD_OBJ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                "metadata": {"name": "w", "namespace": "ml", "uid": "u-w"},
                "spec": {"queueName": "q", "extra": 1, "podSets": [
                    {"name": "main", "count": 2, "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}]}}


@pytest.mark.parametrize(("change", "count"), [(None, 2), ({"count": 3}, 3)])
def test_a_workload_read_again_is_parsed_once_with_its_warnings(change, count) -> None:
    """The suggestions' passes read every object again: the same object (never changed in place)
    gives the same Workload and the same warnings; a changed copy is parsed anew."""
    obj = copy.deepcopy(WORKLOAD_OBJ)
    first_warnings: list[str] = []
    first = parse_workload(obj, Source("c.yaml", 1), validate="warn", warnings=first_warnings)
    again = obj if change is None else {**obj, "spec": {**obj["spec"], "podSets": [{**obj["spec"]["podSets"][0],
                                                                                     **change}]}}
    warnings: list[str] = []
    second = parse_workload(again, Source("c.yaml", 1), validate="warn", warnings=warnings)
    assert warnings == first_warnings and len(warnings) == 1 and "extra" in warnings[0]
    assert (second is first) is (change is None) and second.spec.pod_sets[0].count == count
    with pytest.raises(InputError):
        parse_workload(obj, Source("c.yaml", 1), validate="strict")


def test_an_ignored_object_without_a_namespace_is_named_as_written_unless_its_kind_is_namespaced() -> None:
    inputs = read("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\n",
                  "apiVersion: v1\nkind: Service\nmetadata: {name: svc}\n",
                  "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    assert inputs.ignored == ["NodePool np: not a kind Kueue's admission reads",
                              "Service default/svc: not a kind Kueue's admission reads",
                              "Node n1: not a kind Kueue's admission reads"]

"""TAS for the operators' pod sets: the index labels each integration gives NewPodSetTopologyRequest
(Kueue v0.17.8: a Job's completion index, a JobSet's and a TrainJob's with the Job index over the
replicas, the training operators' replica index, a LeaderWorkerSet worker's index, a StatefulSet's
pod index, none for Ray), the pod set group name, and the topology ungater
(pkg/controller/tas/topology_ungater.go) giving each pod its domain by rank, greedily when ranks
cannot be read, pod sets of one group ranked on together."""
from __future__ import annotations

from datetime import datetime, timezone

from kexplain.kueue.apis.topology import DomainAssignment, IndexLabels, TopologyAssignment, request_from_spec
from kexplain.kueue.controller.jobframework.reconciler import reconcile
from kexplain.kueue.controller.tas.ungater import Ranks, domains_of, rank_offsets, read_ranks, ungated
from kexplain.kueue.inputs import inputs_of

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
QUEUE = {"kueue.x-k8s.io/queue-name": "q"}
HOST = "kubernetes.io/hostname"
REQUIRED = {"kueue.x-k8s.io/podset-required-topology": "cloud.example.com/topology-rack"}
COMPLETION, JOB_INDEX = "batch.kubernetes.io/job-completion-index", "jobset.sigs.k8s.io/job-index"


def _template(annotations: dict | None = None) -> dict:
    return {"metadata": {"annotations": annotations or {}},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i",
                                                               "resources": {"requests": {"cpu": "1"}}}]}}


def _requests(obj: dict) -> list:
    [job] = inputs_of([(obj, None)], []).jobs
    return [ps.topology_request for ps in reconcile(job, {}, NOW, {}, {}).workload.spec.pod_sets]


def _meta(name: str) -> dict:
    return {"name": name, "namespace": "default", "labels": dict(QUEUE)}


def test_a_job_and_a_jobset_rank_by_completion_index_and_job_index() -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": _meta("j"),
           "spec": {"parallelism": 2, "template": _template()}}
    [request] = _requests(job)      # no annotation: not explicit, but the index label is there (Build)
    assert request is not None and not request.explicit() and request.index == IndexLabels(COMPLETION)
    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": _meta("js"),
              "spec": {"replicatedJobs": [{"name": "w", "replicas": 3, "template": {"spec": {
                  "parallelism": 2, "template": _template(REQUIRED)}}}]}}
    [request] = _requests(jobset)
    assert request.required == "cloud.example.com/topology-rack"
    assert request.index == IndexLabels(COMPLETION, JOB_INDEX, 3)


def test_the_operators_index_labels_and_the_group_name() -> None:
    grouped = {**REQUIRED, "kueue.x-k8s.io/podset-group-name": "g"}
    pytorch = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": _meta("p"),
               "spec": {"pytorchReplicaSpecs": {"Master": {"template": _template(grouped)},
                                                "Worker": {"replicas": 2, "template": _template(
                                                    {"kueue.x-k8s.io/podset-group-name": "g"})}}}}
    master, worker = _requests(pytorch)
    assert master.index == worker.index == IndexLabels("training.kubeflow.org/replica-index")
    assert master.pod_set_group == "g" and worker.pod_set_group is None     # (only with required or preferred)
    lws = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "metadata": _meta("l"),
           "spec": {"replicas": 1, "leaderWorkerTemplate": {"size": 3, "leaderTemplate": _template(),
                                                            "workerTemplate": _template()}}}
    leader, workers = _requests(lws)
    assert leader is None and workers.index == IndexLabels("leaderworkerset.sigs.k8s.io/worker-index")
    ray = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": _meta("r"),
           "spec": {"headGroupSpec": {"template": _template()}, "workerGroupSpecs": []}}
    assert _requests(ray) == [None]


def test_a_workloads_written_request_keeps_its_index_labels_and_group() -> None:
    request = request_from_spec({"required": "rack", "podIndexLabel": COMPLETION, "subGroupIndexLabel": JOB_INDEX,
                                 "subGroupCount": 2, "podSetGroupName": "g"})
    assert request.index == IndexLabels(COMPLETION, JOB_INDEX, 2) and request.pod_set_group == "g"


def _pod(**labels: str) -> dict:
    return {"metadata": {"labels": labels}, "spec": {"schedulingGates": [{"name": "kueue.x-k8s.io/topology"}]}}


ASSIGNMENT = TopologyAssignment((HOST,), (DomainAssignment(("n1",), 2), DomainAssignment(("n2",), 1),
                                          DomainAssignment(("n3",), 1)))


def test_pods_go_to_the_domain_of_their_rank_whatever_their_order() -> None:
    # a JobSet's pod set of 2 Jobs x 2 pods: rank = completion index + job index x 2
    pods = [_pod(**{COMPLETION: "1", JOB_INDEX: "1"}), _pod(**{COMPLETION: "0", JOB_INDEX: "0"}),
            _pod(**{COMPLETION: "0", JOB_INDEX: "1"}), _pod(**{COMPLETION: "1", JOB_INDEX: "0"})]
    index = IndexLabels(COMPLETION, JOB_INDEX, 2)
    assert read_ranks(pods, 4, index, Ranks(0, 4)) == [3, 0, 2, 1]
    assert [d[HOST] for d in domains_of(pods, ASSIGNMENT, 4, index, Ranks(0, 4))] == ["n3", "n1", "n2", "n1"]
    made = ungated(pods, ASSIGNMENT, 4, index, Ranks(0, 4))
    assert made[0]["spec"] == {"nodeSelector": {HOST: "n3"}}       # the topology gate removed


def test_without_ranks_the_pods_fill_the_domains_in_order() -> None:
    index = IndexLabels(COMPLETION)
    missing = [_pod(**{COMPLETION: "3"}), _pod(), _pod(**{COMPLETION: "0"}), _pod(**{COMPLETION: "1"})]
    twice = [_pod(**{COMPLETION: "2"}), _pod(**{COMPLETION: "2"}), _pod(**{COMPLETION: "0"}), _pod(**{COMPLETION: "1"})]
    beyond = [_pod(**{COMPLETION: "4"})] + [_pod(**{COMPLETION: str(i)}) for i in range(3)]
    for pods in (missing, twice, beyond):
        assert read_ranks(pods, 4, index, Ranks(0, 4)) is None
        assert [d[HOST] for d in domains_of(pods, ASSIGNMENT, 4, index, Ranks(0, 4))] == ["n1", "n1", "n2", "n3"]
    assert [d[HOST] for d in domains_of(missing, ASSIGNMENT, 4, None, Ranks(0, 4))] == ["n1", "n1", "n2", "n3"]


def test_a_groups_smaller_pod_set_ranks_first_and_the_offset_annotation_counts() -> None:
    assert rank_offsets([("leader", 1, "g"), ("worker", 3, "g"), ("other", 2, None)]) == {
        "leader": Ranks(0, 1), "worker": Ranks(1, 4), "other": Ranks(0, 2)}
    assert rank_offsets([("big", 3, "g"), ("small", 1, "g")]) == {"small": Ranks(0, 1), "big": Ranks(1, 4)}
    # a LeaderWorkerSet's workers: indexes 1..3, the offset annotation 1 makes them ranks 0..2
    index = IndexLabels("leaderworkerset.sigs.k8s.io/worker-index")
    workers = [{"metadata": {"labels": {index.pod_index: str(i)},
                             "annotations": {"kueue.x-k8s.io/pod-index-offset": "1"}}} for i in (3, 1, 2)]
    three = TopologyAssignment((HOST,), (DomainAssignment(("n1",), 1), DomainAssignment(("n2",), 2)))
    assert [d[HOST] for d in domains_of(workers, three, 3, index, Ranks(0, 3))] == ["n2", "n1", "n2"]
    workers[0]["metadata"]["annotations"]["kueue.x-k8s.io/pod-index-offset"] = "one"
    assert domains_of(workers, three, 3, index, Ranks(0, 3)) == [{}, {}, {}]     # the ungater stops: gated

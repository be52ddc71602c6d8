"""The Workload each operator's kind becomes, as Kueue v0.17.8's integrations build it
(pkg/controller/jobs/{rayjob,raycluster,leaderworkerset,kubeflow/jobs/*,mpijob}): pod sets (names,
counts, templates), the Workload's name (kind-name-hash: sha1 over kind, group, name and uid),
priority; what Kueue's webhooks refuse; a RayJob on an existing cluster skipped."""
from __future__ import annotations

import copy
import hashlib
from datetime import datetime, timezone

import pytest

from kexplain.errors import AdmissionRejected, InputError
from kexplain.kueue import versions
from kexplain.kueue.apis.priorityclass import PriorityClass
from kexplain.kueue.inputs import inputs_of
from kexplain.kueue.controller.jobframework.reconciler import reconcile
from kexplain.kueue.controller.jobs import integration_for
from kexplain.kueue.controller.jobs.parents import kueue_objects

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
QUEUE = {"kueue.x-k8s.io/queue-name": "a-queue"}
UID = "7f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"


def _spec(cpu: str = "1", image: str = "rayproject/ray:2.9.0", priority: str = "") -> dict:
    spec = {"containers": [{"name": "c", "image": image, "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}
    if priority:
        spec["priorityClassName"] = priority
    return spec


def _rayjob(**spec) -> dict:
    cluster = {"headGroupSpec": {"rayStartParams": {}, "template": {"spec": _spec()}},
               "workerGroupSpecs": [{"groupName": "Small-Group", "replicas": 3, "numOfHosts": 2,
                                     "rayStartParams": {}, "template": {"spec": _spec("2")}},
                                    {"groupName": "big", "rayStartParams": {}, "template": {"spec": _spec("4")}}]}
    return {"apiVersion": "ray.io/v1", "kind": "RayJob",
            "metadata": {"name": "rj", "namespace": "team-a", "uid": UID, "labels": dict(QUEUE)},
            "spec": {"entrypoint": "python x.py", "shutdownAfterJobFinishes": True, "rayClusterSpec": cluster, **spec}}


def _workload(obj: dict, classes: dict | None = None, version: str = "0.17"):
    """The Workload the reconciler makes of `obj`, read as Kueue's inputs read it (its webhook's checks)."""
    [job] = inputs_of([(obj, None)], [], version=versions.resolve(version)).jobs
    return reconcile(job, {}, NOW, classes or {}, {})


def _expected_name(kind: str, group: str, name: str) -> str:
    digest = hashlib.sha1(f"{kind}\n{group}\n{name}\n{UID}".encode()).hexdigest()
    return f"{kind.lower()}-{name}-{digest[:5]}"


def _sets(outcome) -> list[tuple[str, int]]:
    return [(ps.name, ps.count) for ps in outcome.workload.spec.pod_sets]


# -- RayJob and RayCluster ------------------------------------------------------------------------
def test_a_rayjob_becomes_head_worker_groups_and_submitter() -> None:
    outcome = _workload(_rayjob())
    assert outcome.workload.meta.name == _expected_name("RayJob", "ray.io", "rj")
    assert outcome.workload.meta.owner_kind == "RayJob" and outcome.workload.meta.owner_name == "rj"
    # head 1; a worker group: replicas x numOfHosts, named lowercased; replicas 1 when not set; submitter 1
    assert _sets(outcome) == [("head", 1), ("small-group", 6), ("big", 1), ("submitter", 1)]
    submitter = outcome.workload.spec.pod_sets[-1].spec
    assert submitter["restartPolicy"] == "Never"
    [container] = submitter["containers"]
    assert container["name"] == "ray-job-submitter" and container["image"] == "rayproject/ray:2.9.0"
    assert container["resources"]["requests"] == {"cpu": "500m", "memory": "200Mi"}


def test_a_given_submitter_template_and_the_other_modes() -> None:
    given = {"spec": {"restartPolicy": "Never", "containers": [{"name": "s", "image": "x",
                                                                "resources": {"requests": {"cpu": "2"}}}]}}
    outcome = _workload(_rayjob(submitterPodTemplate=given))
    assert outcome.workload.spec.pod_sets[-1].template == given
    assert [n for n, _ in _sets(_workload(_rayjob(submissionMode="HTTPMode")))] == ["head", "small-group", "big"]
    sidecar = _workload(_rayjob(submissionMode="SidecarMode"))
    assert [n for n, _ in _sets(sidecar)] == ["head", "small-group", "big"]
    head = sidecar.workload.spec.pod_sets[0].spec["containers"]
    assert [c["name"] for c in head] == ["c", "ray-job-submitter"]
    assert head[1]["resources"]["requests"] == {"cpu": "500m", "memory": "200Mi"}


def test_gcs_fault_tolerance_counts_the_redis_cleanup_in_the_head() -> None:
    obj = _rayjob()
    obj["metadata"]["annotations"] = {"ray.io/ft-enabled": "True"}
    head = _workload(obj).workload.spec.pod_sets[0].spec["containers"][0]["resources"]["requests"]
    assert head == {"cpu": "1", "memory": "1Gi"}        # each the larger: 1 > 200m, 1Gi > 256Mi
    obj = copy.deepcopy(obj)        # (a new object: what is read of one is remembered)
    obj["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"] = _spec("100m")
    head = _workload(obj).workload.spec.pod_sets[0].spec["containers"][0]["resources"]["requests"]
    assert head == {"cpu": "200m", "memory": "1Gi"}
    assert _workload(_rayjob()).workload.spec.pod_sets[0].spec["containers"][0]["resources"]["requests"]["cpu"] == "1"


def test_a_raycluster_is_its_head_and_worker_groups() -> None:
    obj = _rayjob()
    cluster = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": dict(obj["metadata"], name="rc"),
               "spec": obj["spec"]["rayClusterSpec"]}
    outcome = _workload(cluster)
    assert outcome.workload.meta.name == _expected_name("RayCluster", "ray.io", "rc")
    assert _sets(outcome) == [("head", 1), ("small-group", 6), ("big", 1)]


@pytest.mark.parametrize(("change", "said"), [
    (lambda s: s.update(shutdownAfterJobFinishes=False),
     'admission webhook "vrayjob.kb.io" denied the request: spec.shutdownAfterJobFinishes: Invalid value: false: '
     "a kueue managed job should delete the cluster after finishing"),
    (lambda s: s["rayClusterSpec"].update(enableInTreeAutoscaling=True),
     "spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value: true: a kueue managed job should only use "
     "autoscaling when workload slicing is enabled"),
    (lambda s: s["rayClusterSpec"]["workerGroupSpecs"][1].update(groupName="head"),
     'spec.rayClusterSpec.workerGroupSpecs[1].groupName: Forbidden: "head" is reserved for the head group'),
    (lambda s: s.pop("rayClusterSpec"),
     "spec.rayClusterSpec: Required value: rayClusterSpec is required for Kueue-managed jobs"),
    (lambda s: s.update(clusterSelector={"ray.io/cluster": "shared"}),
     "spec.clusterSelector: Invalid value: "),
])
def test_kueues_rayjob_webhook_refuses(change, said) -> None:
    obj = _rayjob()
    change(obj["spec"])
    with pytest.raises(AdmissionRejected) as err:
        _workload(obj)
    assert said in str(err.value)


def test_kueues_raycluster_webhook_refuses_in_its_words() -> None:
    obj = _rayjob()
    obj["spec"]["rayClusterSpec"]["enableInTreeAutoscaling"] = True
    cluster = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": dict(obj["metadata"], name="rc"),
               "spec": obj["spec"]["rayClusterSpec"]}
    with pytest.raises(AdmissionRejected, match="set the \"kueue.x-k8s.io/elastic-job\": \"true\" annotation"):
        _workload(cluster, version="0.19")      # v0.19's words
    with pytest.raises(AdmissionRejected) as err:
        _workload(cluster)
    assert str(err.value) == "RayCluster team-a/rc: " + (
        'admission webhook "vraycluster.kb.io" denied the request: spec.enableInTreeAutoscaling: Invalid value: true: '
        "a kueue managed job can use autoscaling only when the ElasticJobsViaWorkloadSlices feature gate is on and "
        "the job is an elastic job")
    unmanaged = copy.deepcopy(cluster)
    unmanaged["metadata"]["labels"] = {}
    assert _workload(unmanaged).workload is None        # not Kueue's: no webhook check, no Workload


def test_a_rayjob_on_an_existing_cluster_is_skipped() -> None:
    obj = _rayjob(clusterSelector={"ray.io/cluster": "shared"})
    del obj["spec"]["rayClusterSpec"]
    outcome = _workload(obj)
    assert outcome.workload is None and "clusterSelector" in outcome.error


def test_too_many_worker_groups_as_each_version_counts() -> None:
    obj = _rayjob()
    groups = obj["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    groups[:] = [dict(groups[1], groupName=f"g{i}") for i in range(8)]
    with pytest.raises(AdmissionRejected, match=r"workerGroupSpecs: Too many: 8: must have at most 7 items"):
        _workload(obj)
    assert len(_workload(obj, version="0.19").workload.spec.pod_sets) == 10     # v0.19: 9 of at most 18
    groups[:] = [dict(groups[1], groupName=f"g{i}") for i in range(18)]
    with pytest.raises(AdmissionRejected, match=r"workerGroupSpecs: Too many: 19: must have at most 18 items"):
        _workload(obj, version="0.19")


# -- LeaderWorkerSet --------------------------------------------------------------------------------
def _lws(leader: bool = True, replicas: int | None = 2) -> dict:
    lwt = {"size": 4, "workerTemplate": {"metadata": {"labels": {"app": "w", "leaderworkerset.sigs.k8s.io/x": "1"}},
                                         "spec": _spec("2")}}
    if leader:
        lwt["leaderTemplate"] = {"spec": _spec("1")}
    spec = {"leaderWorkerTemplate": lwt, **({"replicas": replicas} if replicas is not None else {})}
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
            "metadata": {"name": "serve", "namespace": "team-a", "uid": UID,
                         "labels": {**QUEUE, "kueue.x-k8s.io/priority-class": "high"}}, "spec": spec}


def test_a_leaderworkerset_is_one_workload_per_group() -> None:
    wpc = {"high": PriorityClass("high", 1000)}
    parts = kueue_objects(_lws(), None)
    assert len(parts) == 2
    outcomes = [reconcile(integration_for(p["kind"], p["apiVersion"]).from_object(p, None), {}, NOW, {}, wpc)
                for p in parts]
    # GetWorkloadName: GetWorkloadNameForOwnerWithGVK over NAME-INDEX and the LeaderWorkerSet's uid
    digests = [hashlib.sha1(f"LeaderWorkerSet\nleaderworkerset.x-k8s.io\nserve-{i}\n{UID}".encode()).hexdigest()
               for i in range(2)]
    assert [o.workload.meta.name for o in outcomes] == [f"leaderworkerset-serve-{i}-{d[:5]}"
                                                        for i, d in enumerate(digests)]
    assert all(o.workload.meta.owner_name == "serve" and o.workload.spec.priority == 1000 for o in outcomes)
    assert _sets(outcomes[0]) == [("leader", 1), ("worker", 3)]
    worker = outcomes[0].workload.spec.pod_sets[1].template["metadata"]
    assert worker["labels"] == {"app": "w", "kueue.x-k8s.io/priority-class": "high"}    # the LWS keys dropped
    assert worker["annotations"] == {"kueue.x-k8s.io/pod-suspending-parent": "leaderworkerset.x-k8s.io/leaderworkerset",
                                     "kueue.x-k8s.io/pod-group-serving": "true", "kueue.x-k8s.io/pod-index-offset": "1"}


def test_without_a_leader_template_one_pod_set_main() -> None:
    [part] = kueue_objects(_lws(leader=False, replicas=None), None)        # replicas 1 when not set
    outcome = reconcile(integration_for(part["kind"], part["apiVersion"]).from_object(part, None), {}, NOW, {},
                        {"high": PriorityClass("high", 1)})
    assert _sets(outcome) == [("main", 4)]
    assert "kueue.x-k8s.io/pod-index-offset" not in outcome.workload.spec.pod_sets[0].template["metadata"]["annotations"]


# -- the Kubeflow jobs: one mechanism over their replica specs ------------------------------------------------------
def _kubeflow(kind: str, field: str, specs: dict, api: str = "kubeflow.org/v1", **spec) -> dict:
    return {"apiVersion": api, "kind": kind,
            "metadata": {"name": "train", "namespace": "team-a", "uid": UID, "labels": dict(QUEUE)},
            "spec": {field: {t: {"replicas": n, "template": {"spec": _spec(priority=p)}} if n is not None else
                             {"template": {"spec": _spec(priority=p)}} for t, (n, p) in specs.items()}, **spec}}


@pytest.mark.parametrize(("kind", "field", "specs", "sets"), [
    ("PyTorchJob", "pytorchReplicaSpecs", {"Worker": (3, ""), "Master": (None, "")}, [("master", 1), ("worker", 3)]),
    ("TFJob", "tfReplicaSpecs", {"Worker": (4, ""), "PS": (2, ""), "Chief": (1, ""), "Evaluator": (1, "")},
     [("chief", 1), ("ps", 2), ("worker", 4), ("evaluator", 1)]),
    ("XGBoostJob", "xgbReplicaSpecs", {"Master": (1, ""), "Worker": (2, "")}, [("master", 1), ("worker", 2)]),
    ("PaddleJob", "paddleReplicaSpecs", {"Worker": (2, "")}, [("worker", 2)]),
    ("JAXJob", "jaxReplicaSpecs", {"Worker": (8, "")}, [("worker", 8)]),
])
def test_a_training_operator_job_is_a_pod_set_per_replica_type(kind, field, specs, sets) -> None:
    outcome = _workload(_kubeflow(kind, field, specs))
    assert _sets(outcome) == sets
    assert outcome.workload.meta.name == _expected_name(kind, "kubeflow.org", "train")


def test_an_mpijob_is_launcher_then_worker() -> None:
    obj = _kubeflow("MPIJob", "mpiReplicaSpecs", {"Worker": (4, ""), "Launcher": (1, "")}, api="kubeflow.org/v2beta1")
    outcome = _workload(obj)
    assert _sets(outcome) == [("launcher", 1), ("worker", 4)]
    assert outcome.workload.meta.name == _expected_name("MPIJob", "kubeflow.org", "train")


def test_the_priority_class_of_run_policy_first_then_the_ordered_templates() -> None:
    classes = {"low": PriorityClass("low", 10), "high": PriorityClass("high", 100), "mid": PriorityClass("mid", 50)}
    obj = _kubeflow("PyTorchJob", "pytorchReplicaSpecs", {"Worker": (2, "low"), "Master": (1, "high")})
    assert _workload(obj, classes).workload.spec.priority == 100       # Master before Worker, not the map's order
    obj = copy.deepcopy(obj)
    obj["spec"]["runPolicy"] = {"schedulingPolicy": {"priorityClass": "mid"}}
    assert _workload(obj, classes).workload.spec.priority == 50


def test_a_kubeflow_job_without_replica_specs_is_refused() -> None:
    obj = _kubeflow("PyTorchJob", "pytorchReplicaSpecs", {})
    with pytest.raises(Exception, match="spec.pytorchReplicaSpecs"):
        _workload(obj)


def test_the_kinds_modelled_through_kueue_are_the_registrys() -> None:
    from kexplain.controllers.queued import THROUGH_KUEUE, UNMODELLED
    from kexplain.kueue.controller.jobs import INTEGRATIONS
    from kexplain.kueue.operator_pods import KINDS
    registered = {(m.GROUP, k) for k, m in INTEGRATIONS.items()}
    # (a TrainJob's objects are the JobSet its trainer makes: the JobSet path, not an operator's pods)
    assert THROUGH_KUEUE == registered & set(UNMODELLED) and {k for _, k in THROUGH_KUEUE} == KINDS | {"TrainJob"}


# -- AppWrapper -------------------------------------------------------------------------------------
def _appwrapper() -> dict:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "inner"},
           "spec": {"parallelism": 4, "completions": 3, "template": {"spec": dict(_spec("1"), restartPolicy="Never")}}}
    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
              "spec": {"replicatedJobs": [{"name": "w", "replicas": 2, "template": {"spec": {
                  "parallelism": 2, "template": {"spec": _spec("1")}}}}]}}
    declared = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "svc"},
                "spec": {"replicas": 3, "template": {"metadata": {"labels": {"app": "svc", "n": 1}},
                                                     "spec": dict(_spec("1"), hostname="x")}}}
    return {"apiVersion": "workload.codeflare.dev/v1beta2", "kind": "AppWrapper",
            "metadata": {"name": "wrapped", "namespace": "team-a", "uid": UID, "labels": dict(QUEUE)},
            "spec": {"components": [{"template": job}, {"template": jobset},
                                    {"template": declared, "podSets": [{"path": "template.spec.template",
                                                                        "replicas": 2},
                                                                       {"path": "template.spec.nothing"}]}]}}


def test_an_appwrapper_is_its_components_pod_sets() -> None:
    outcome = _workload(_appwrapper())
    assert outcome.workload.meta.name == _expected_name("AppWrapper", "workload.codeflare.dev", "wrapped")
    # inferred: the Job min(parallelism, completions), the JobSet replicas x pods; declared: its replicas,
    # a path that holds no pod template left out; named NAME-INDEX
    assert _sets(outcome) == [("wrapped-0", 3), ("wrapped-1", 4), ("wrapped-2", 2)]
    template = outcome.workload.spec.pod_sets[2].template
    assert template["metadata"] == {"labels": {"app": "svc"}} and "hostname" not in template["spec"]


def test_an_appwrappers_pod_sets_carry_the_index_labels_its_pod_sets_name() -> None:
    """PodSets(): each topology request's PodIndexLabel and SubGroup from the pod set's annotations,
    inferred for a Job (its completion index) and a JobSet (its Job index over its 2 replicas),
    declared for the Deployment's (a malformed count ignored, as Kueue logs and ignores it)."""
    from kexplain.kueue.apis.topology import IndexLabels
    from kexplain.kueue.controller.jobs.appwrapper import (TAS_POD_INDEX_LABEL, TAS_SUB_GROUP_COUNT,
                                                           TAS_SUB_GROUP_INDEX_LABEL)
    obj = _appwrapper()
    obj["spec"]["components"][2]["podSets"][0]["annotations"] = {
        TAS_POD_INDEX_LABEL: "example.com/rank", TAS_SUB_GROUP_INDEX_LABEL: "example.com/group",
        TAS_SUB_GROUP_COUNT: "two"}
    requests = [ps.topology_request for ps in _workload(obj).workload.spec.pod_sets]
    assert [r.index if r is not None else None for r in requests] == [
        IndexLabels("batch.kubernetes.io/job-completion-index"),
        IndexLabels("batch.kubernetes.io/job-completion-index", "jobset.sigs.k8s.io/job-index", 2),
        IndexLabels("example.com/rank", "example.com/group", None)]
    assert all(r.required is None and r.preferred is None for r in requests)
    obj = copy.deepcopy(obj)       # (a new object: the integration reads each object once)
    obj["spec"]["components"][2]["podSets"][0]["annotations"][TAS_SUB_GROUP_COUNT] = "+3"
    assert _workload(obj).workload.spec.pod_sets[2].topology_request.index.sub_group_count == 3


def test_an_appwrapper_pod_set_without_index_annotations_has_no_topology_request() -> None:
    obj = _appwrapper()
    assert _workload(obj).workload.spec.pod_sets[2].topology_request is None


@pytest.mark.parametrize("components", ["x", [{"template": {"apiVersion": "v1", "kind": "ConfigMap"}}]])
def test_an_appwrapper_without_a_pod_set_is_refused(components) -> None:
    obj = _appwrapper()
    obj["spec"]["components"] = components
    with pytest.raises(InputError, match="spec.components"):
        _workload(obj)


def test_worker_groups_that_are_no_list_are_refused() -> None:
    obj = _rayjob()
    obj["spec"]["rayClusterSpec"]["workerGroupSpecs"] = "x"
    with pytest.raises(InputError, match="spec.rayClusterSpec.workerGroupSpecs"):
        _workload(obj)


def test_a_stored_group_workload_is_its_groups_only() -> None:
    wpc = {"high": PriorityClass("high", 1000)}
    parts = kueue_objects(_lws(), None)
    jobs = [integration_for(p["kind"], p["apiVersion"]).from_object(p, None) for p in parts]
    first = reconcile(jobs[0], {}, NOW, {}, wpc).workload
    existing = {UID: first}             # the cluster's Workloads by owner uid: group 0's
    assert reconcile(jobs[0], existing, NOW, {}, wpc).workload is first
    second = reconcile(jobs[1], existing, NOW, {}, wpc)
    assert second.created and second.workload.meta.name != first.meta.name


# -- RayService -------------------------------------------------------------------------------------
def _rayservice() -> dict:
    obj = _rayjob()
    return {"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": dict(obj["metadata"], name="serve"),
            "spec": {"serveConfigV2": "applications: []", "rayClusterSpec": obj["spec"]["rayClusterSpec"]}}


def test_a_rayservice_is_its_clusters_head_and_worker_groups() -> None:
    outcome = _workload(_rayservice())
    assert outcome.workload.meta.name == _expected_name("RayService", "ray.io", "serve")
    assert outcome.workload.meta.owner_kind == "RayService"
    assert _sets(outcome) == [("head", 1), ("small-group", 6), ("big", 1)]      # no submitter


def test_kueues_rayservice_webhook_refuses_in_common_gos_words() -> None:
    obj = _rayservice()
    obj["spec"]["rayClusterSpec"]["enableInTreeAutoscaling"] = True
    obj["spec"]["rayClusterSpec"]["workerGroupSpecs"][1]["groupName"] = "head"
    with pytest.raises(AdmissionRejected) as err:
        _workload(obj)
    assert str(err.value) == "RayService team-a/serve: " + (
        'admission webhook "vrayservice.kb.io" denied the request: [spec.rayClusterSpec.enableInTreeAutoscaling: '
        "Invalid value: true: a kueue managed job should only use autoscaling when workload slicing is enabled, "
        'spec.rayClusterSpec.workerGroupSpecs[1].groupName: Forbidden: "head" is reserved for the head group]')
    obj = copy.deepcopy(obj)        # (a new object: what is read of one is remembered)
    del obj["metadata"]["labels"]       # not managed: the webhook lets it be
    assert _workload(obj).error.startswith("no kueue.x-k8s.io/queue-name label")


def test_a_rayservice_without_a_head_template_is_a_one_line_error() -> None:
    obj = _rayservice()
    del obj["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]
    with pytest.raises(InputError) as err:
        _workload(obj)
    assert err.value.field == "spec.rayClusterSpec.headGroupSpec.template"

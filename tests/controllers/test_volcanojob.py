"""Volcano's job controller and job webhooks (v1.15.1) over a Volcano Job: the webhook's defaults and
refusals in its words, the PodGroup `<job>-<uid>` with minMember, minTaskMember and minResources
(calcPGMinResources: the cases of Volcano's own TestCalcPGMinResources and TestTaskPriority_CalcPGMin),
and the pods createJobPod names and marks, with the env, svc and ssh plugins' changes."""
from __future__ import annotations

import copy

import pytest

from kexplain.controllers import volcanojob
from kexplain.controllers.volcanojob import min_resources, volcano_jobs


def _task(name: str, cpu: str, replicas: int = 2, min_available: int | None = None, pc: str = "") -> dict:
    spec: dict = {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}]}
    if pc:
        spec["priorityClassName"] = pc
    task: dict = {"name": name, "replicas": replicas, "template": {"spec": spec}}
    if min_available is not None:
        task["minAvailable"] = min_available
    return task


def _job(*tasks: dict, name: str = "tf", **spec) -> dict:
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": name, "namespace": "ns"},
            "spec": {"tasks": [copy.deepcopy(t) for t in tasks], **spec}}


def _queue(name: str, state: str = "Open", **spec) -> dict:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
            "spec": spec, "status": {"state": state}}


def _cpu(job_min: int, master_min: int | None, worker_min: int | None) -> dict[str, str]:
    """TestCalcPGMinResources's job: master (2 x 50m) and worker (2 x 100m), each task's minAvailable
    its replicas unless given (the webhook's patch)."""
    tasks = [_task("master", "50m", 2, master_min if master_min is not None else 2),
             _task("worker", "100m", 2, worker_min if worker_min is not None else 2)]
    return volcanojob.resource_text(min_resources(_job(*tasks, minAvailable=job_min), {}))


@pytest.mark.parametrize("job_min,master,worker,cpu,pods", [
    (2, 1, None, "100m", "2"), (2, None, 1, "100m", "2"), (3, None, None, "200m", "3"),
    (3, 1, 1, "200m", "3"), (3, 1, None, "250m", "3"), (2, 1, 1, "150m", "2")])
def test_min_resources_as_volcanos_own_calc_pg_min_resources_cases(job_min, master, worker, cpu, pods) -> None:
    assert _cpu(job_min, master, worker) == {"count/pods": pods, "cpu": cpu, "pods": pods, "requests.cpu": cpu}


@pytest.mark.parametrize("job_min,master_pc,worker_pc,mins,cpu", [
    (3, "p2", "", (1, 1), "200m"),       # 1*master+1*worker+1*master(high-priority)
    (3, "", "p2", (1, 1), "250m"),       # 1*worker+1*master+1*worker(high-priority)
    (3, "", "p2", (0, 1), "250m"),       # 1*worker+1*worker(high-priority)+1*master
    (4, "", "p2", (None, 1), "300m"),    # 1*worker+2*master+1*worker
    (2, "", "p2", (None, 1), "150m")])   # below the tasks' sum, CalcPGMinResources alone: 1*worker+1*master
def test_the_tasks_priority_orders_the_pods_counted(job_min, master_pc, worker_pc, mins, cpu) -> None:
    """TestTaskPriority_CalcPGMin: CalcPGMinResources with the tasks sorted by their PriorityClass."""
    tasks = [_task("master", "50m", 2, mins[0] if mins[0] is not None else 2, master_pc),
             _task("worker", "100m", 2, mins[1], worker_pc)]
    ordered = volcanojob._by_priority(tasks, {"p2": 2})
    assert str(volcanojob._pg_min(ordered, job_min)["cpu"]) == cpu


def test_below_the_tasks_minimum_the_first_pods_of_the_highest_priority_task_count() -> None:
    """calcPGMinResources: minAvailable 2 under the tasks' 3 counts the first two pods in priority order
    (the workers' PriorityClass first), an extended resource under its name and its quota name."""
    worker = _task("worker", "2", 2, pc="high")
    worker["template"]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "1"
    objs = [_job(_task("ps", "1", 1), worker, minAvailable=2),
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 9}]
    (made,) = volcano_jobs(objs)
    assert made.pod_group is not None
    assert made.pod_group["spec"]["minResources"] == {
        "count/pods": "2", "cpu": "4", "nvidia.com/gpu": "2", "pods": "2", "requests.cpu": "4",
        "requests.nvidia.com/gpu": "2"}


def test_the_webhooks_defaults_and_the_pod_group() -> None:
    job = _job(_task("", "1", 2), _task("worker", "1", 3, 1), priorityClassName="high")
    (made,) = volcano_jobs([job])
    assert made.refused == ""
    spec = made.job["spec"]
    assert (spec["queue"], spec["schedulerName"], spec["maxRetry"], spec["minAvailable"]) == ("default", "volcano", 3, 3)
    assert [t["name"] for t in spec["tasks"]] == ["default0", "worker"]
    pg = made.pod_group
    uid = volcanojob.job_uid(job)
    assert pg["metadata"]["name"] == f"tf-{uid}" and pg["metadata"]["namespace"] == "ns"
    assert pg["metadata"]["ownerReferences"] == [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                                                  "name": "tf", "uid": uid, "controller": True,
                                                  "blockOwnerDeletion": True}]
    assert pg["spec"]["minMember"] == 3 and pg["spec"]["minTaskMember"] == {"default0": 2, "worker": 1}
    assert pg["spec"]["queue"] == "default" and pg["spec"]["priorityClassName"] == "high"
    assert volcano_jobs([job])[0].pod_group == pg             # the derived uid repeats
    job["metadata"]["uid"] = "1234"
    assert volcano_jobs([job])[0].pod_group["metadata"]["name"] == "tf-1234"


def test_the_pods_as_create_job_pod_makes_them() -> None:
    job = _job(_task("ps", "1", 1), _task("worker", "1", 2), queue="research", priorityClassName="high",
               plugins={"env": [], "svc": [], "ssh": ["--ssh-key-file-path=/home/u/.ssh"]})
    job["metadata"]["uid"] = "u1"
    (made,) = volcano_jobs([job, _queue("research")])
    assert [p["metadata"]["name"] for p in made.pods] == ["tf-ps-0", "tf-worker-0", "tf-worker-1"]
    pod = made.pods[2]
    assert pod["metadata"]["annotations"] == {
        "scheduling.k8s.io/group-name": "tf-u1", "volcano.sh/job-name": "tf", "volcano.sh/task-spec": "worker",
        "volcano.sh/task-index": "1", "volcano.sh/queue-name": "research", "volcano.sh/job-version": "0",
        "volcano.sh/template-uid": "tf-worker", "volcano.sh/job-retry-count": "0"}
    assert pod["metadata"]["labels"] == {"volcano.sh/task-index": "1", "volcano.sh/job-name": "tf",
                                         "volcano.sh/task-spec": "worker", "volcano.sh/job-namespace": "ns",
                                         "volcano.sh/queue-name": "research"}
    assert pod["spec"]["schedulerName"] == "volcano" and pod["spec"]["priorityClassName"] == "high"
    env = pod["spec"]["containers"][0]["env"]
    assert {"name": "VC_TASK_INDEX", "value": "1"} in env and {"name": "VK_TASK_INDEX", "value": "1"} in env
    assert [e["name"] for e in env if "valueFrom" in e] == ["VC_PS_HOSTS", "VC_PS_NUM", "VC_WORKER_HOSTS",
                                                           "VC_WORKER_NUM"]
    assert (pod["spec"]["hostname"], pod["spec"]["subdomain"]) == ("tf-worker-1", "tf")
    ssh = next(v for v in pod["spec"]["volumes"] if v["name"] == "tf-ssh")
    assert ssh["secret"]["defaultMode"] == 0o644                # not /root/.ssh
    assert {"mountPath": "/home/u/.ssh", "subPath": ".ssh", "name": "tf-ssh"} in \
        pod["spec"]["containers"][0]["volumeMounts"]


def test_a_framework_plugin_is_said_unmodelled_and_brings_svc() -> None:
    (made,) = volcano_jobs([_job(_task("master", "1", 1), _task("worker", "1", 1), plugins={"mpi": []})])
    assert set(made.job["spec"]["plugins"]) == {"mpi", "svc", "ssh"}
    assert made.unmodelled == ("the mpi job plugin's changes to the pods (environment, ports) are not modelled",)


@pytest.mark.parametrize("job,objects,said", [
    (_job(_task("a", "1", 2), minAvailable=3), [],
     "job 'minAvailable' should not be greater than total replicas in tasks;"),
    (_job(_task("a", "1", 2, 3)), [],
     "'minAvailable' is greater than 'replicas' in task: a, job: tf; job 'minAvailable' should not be greater "
     "than total replicas in tasks;"),     # (the Job's minAvailable defaulted to the tasks' 3)
    (_job(_task("a", "1", 1), _task("a", "1", 1)), [], "duplicated task name a;"),
    (_job(queue="q"), [], "No task specified in job spec"),
    (_job(_task("a", "1"), queue="q"), [],
     'unable to find job queue: queue.scheduling.volcano.sh "q" not found;'),
    (_job(_task("a", "1"), queue="q"), [_queue("q", "Closed")],
     "can only submit job to queue with state `Open`, queue `q` status is `Closed`;"),
    (_job(_task("a", "1"), queue="root"), [], "can not submit job to root queue;"),
    (_job(_task("a", "1"), queue="q"), [_queue("q"), _queue("c1", parent="q"), _queue("c2", parent="q")],
     "can only submit job to leaf queue, queue `q` has 2 child queues;"),
    (_job(_task("a", "1"), plugins={"nccl": []}), [], "unable to find job plugin: nccl;"),
    (_job(_task("a", "1"), plugins={"mpi": []}), [], "The specified mpi master task was not found"),
    (_job(_task("a", "1"), name="j" * 61), [],
     f"create pod with name {'j' * 61}-a-0 validate failed [name part must be no more than 63 bytes];"),
])
def test_the_webhooks_refusals_in_volcanos_words(job, objects, said) -> None:
    (made,) = volcano_jobs([job, *objects])
    assert made.refused == said and made.pod_group is None and made.pods == ()


def test_a_dependency_cycle_and_the_default_queue_that_always_exists() -> None:
    a, b = _task("a", "1", 1), _task("b", "1", 1)
    a["dependsOn"], b["dependsOn"] = {"name": ["b"]}, {"name": ["a"]}
    (made,) = volcano_jobs([_job(a, b)])
    assert made.refused == "job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG);"
    del b["dependsOn"]
    (made,) = volcano_jobs([_job(a, b)])
    assert made.refused == "" and made.pod_group["spec"]["queue"] == "default"
    assert made.unmodelled == ("task a's pods wait for the tasks it depends on (b): not modelled, they are made "
                               "with the others",)


def test_a_job_that_would_not_decode_is_bad_input_at_its_field() -> None:
    from kexplain.errors import InputError, Source
    bad = _job(_task("a", "1"), _task("b", "lots"))
    with pytest.raises(InputError) as err:
        volcano_jobs([bad], lambda o: Source("job.yaml", 1))
    assert str(err.value).startswith("job.yaml: document 1: Job ns/tf: spec.tasks[1].template.spec.containers[0]")
    bad = _job(_task("a", "1"), minAvailable="two")
    with pytest.raises(InputError) as err:
        volcano_jobs([bad])
    assert err.value.field == "spec.minAvailable"


def test_a_pod_groups_queue_as_its_webhooks_leave_it() -> None:
    from kexplain.controllers.volcanojob_admission import pod_group_queue, pod_group_queue_refusal
    group = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "spec": {"minMember": 1}}
    assert pod_group_queue(group, {}) == "default"
    assert pod_group_queue(group, {"scheduling.volcano.sh/queue-name": "team"}) == "team"
    assert pod_group_queue_refusal("default", {}) == ""
    assert pod_group_queue_refusal("team", {"team": _queue("team", "Closed")}) == \
        "can only submit PodGroup to queue with state `Open`, queue `team` status is `Closed`. "


def test_the_volumes_claims_made_mounted_or_waited_for() -> None:
    """createJobIOIfNotExist: a volumeClaim becomes the PVC `<job>-pvc-<random>` the controller makes;
    a named claim that does not exist stops the controller before the PodGroup (its event's message)."""
    job = _job(_task("a", "1", 1), volumes=[{"mountPath": "/data", "volumeClaim": {"resources": {
        "requests": {"storage": "1Gi"}}, "accessModes": ["ReadWriteOnce"]}}])
    (made,) = volcano_jobs([job])
    (claim,) = made.claims
    assert claim["metadata"]["name"].startswith("tf-pvc-") and len(claim["metadata"]["name"]) == len("tf-pvc-") + 12
    assert claim["spec"]["resources"] == {"requests": {"storage": "1Gi"}}
    (pod,) = made.pods
    volume = pod["spec"]["volumes"][0]
    assert volume["persistentVolumeClaim"] == {"claimName": claim["metadata"]["name"]}
    assert {"mountPath": "/data", "name": volume["name"]} in pod["spec"]["containers"][0]["volumeMounts"]
    assert volcano_jobs([job])[0].claims == made.claims          # derived, not random
    named = _job(_task("a", "1", 1), volumes=[{"mountPath": "/data", "volumeClaimName": "shared"}])
    (made,) = volcano_jobs([named])
    assert made.pod_group is None and made.pods == () and made.waiting == (
        "Failed to create PVC, err: pvc shared is not found, the job will be in the Pending state until the PVC "
        "is created")
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "shared", "namespace": "ns"}}
    (made,) = volcano_jobs([named, pvc])
    assert made.waiting == "" and made.pods[0]["spec"]["volumes"][0]["persistentVolumeClaim"] == {"claimName": "shared"}


@pytest.mark.parametrize("args,refused", [
    (["--master=lead"], ""), (["--master", "lead", "--port=2222"], ""),
    (["--bogus", "--master=lead"], "The specified mpi master task was not found"),   # Go's flag parse stops there
    (["-master=other"], "The specified mpi master task was not found")])
def test_the_mpi_plugins_master_read_as_gos_flag_package_reads_it(args, refused) -> None:
    (made,) = volcano_jobs([_job(_task("lead", "1", 1), _task("worker", "1", 1), plugins={"mpi": args})])
    assert made.refused == refused

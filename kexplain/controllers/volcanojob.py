"""What Volcano's job controller (v1.15.1, `pkg/controllers/job`) makes of a Volcano Job
(`batch.volcano.sh/v1alpha1` Job), as the webhooks leave it (`controllers.volcanojob_admission`):
`volcano_jobs(objects)` is the entry point, pure: for each Job of the objects, the Job admitted (or
the webhook's refusal), its PodGroup and its pods.

The PodGroup (createOrUpdatePodGroup) is `<job>-<job uid>` in the Job's namespace, the Job its
controller, with the Job's labels and annotations; minMember the Job's minAvailable, minTaskMember
each task's minAvailable, the queue and priorityClassName, and minResources the quota usage of the
first minAvailable pods with the tasks in priority order (`min_resources`). The controller creates the
pods (syncJob, createJobPod: `<job>-<task>-<index>`) only once the scheduler has moved the PodGroup
past Pending (its enqueue action): `Made.pods` are the pods it will create then. The job plugins'
effect on a pod (`env`: VK_TASK_INDEX and VC_TASK_INDEX; `svc`: hostname, subdomain, the hosts
ConfigMap's env and volume; `ssh`: the key Secret's volume) is applied, in name order (upstream a Go
map's). Not modelled, said in `Made.unmodelled`: the framework plugins' changes (mpi, pytorch,
tensorflow, ray, hcclrank: environment and ports) and a task's dependsOn (its pods wait for the tasks
it depends on). A volume's claim named must exist among the objects (else the controller stops
before the PodGroup, `Made.waiting`); one to be made is made (`Made.claims`). A Job without a uid has
one derived from its namespace and name (`identity.object_uid`), and the random names Volcano gives
its volumes are derived from it too, so a run repeats."""
from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from kexplain.admission.resourcequota import pod_usage
from kexplain.apimachinery import quantity
from kexplain.apimachinery.gosort import go_sort
from kexplain.apimachinery.identity import object_uid
from kexplain.apimachinery.quantity import Quantity
from kexplain.controllers.templates import count_at, mapping, template_at
from kexplain.errors import InputError, Source
from kexplain.controllers.volcanojob_admission import as_int, defaulted, go_flags, refusal, tasks_of

API_VERSION = "batch.volcano.sh/v1alpha1"
KIND = "Job"
PODGROUP_API_VERSION = "scheduling.volcano.sh/v1beta1"
QUEUE_API_VERSION = "scheduling.volcano.sh/v1beta1"
GROUP_NAME = "scheduling.k8s.io/group-name"
TASK_SPEC = "volcano.sh/task-spec"
TASK_INDEX = "volcano.sh/task-index"
JOB_NAME = "volcano.sh/job-name"
JOB_NAMESPACE = "volcano.sh/job-namespace"
QUEUE_NAME = "volcano.sh/queue-name"
JOB_VERSION = "volcano.sh/job-version"
TEMPLATE_UID = "volcano.sh/template-uid"
RETRY_COUNT = "volcano.sh/job-retry-count"
NUMA_POLICY = "volcano.sh/numa-topology-policy"
PARTITION_ID = "volcano.sh/partition-id"
# the Job's annotations (and the first two of its labels) its pods carry over
_CARRIED_ANNOTATIONS = ("volcano.sh/preemptable", "volcano.sh/cooldown-time", "volcano.sh/revocable-zone")
_JDB = ("volcano.sh/jdb-min-available", "volcano.sh/jdb-max-unavailable")
FRAMEWORK_PLUGINS = ("hcclrank", "mpi", "pytorch", "ray", "tensorflow")
_RANDOM_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class Made:
    """One Volcano Job as Volcano leaves it: `job` admitted and defaulted (the object as given when
    refused), `refused` the webhook's message ("" when admitted), `pod_group` and `pods` (none when
    refused or waiting), the PersistentVolumeClaims the controller creates for its volumes, `waiting`
    the controller's warning event when it stops before the PodGroup (a volume's claim missing), and
    what of it kexplain does not model."""

    job: dict[str, Any]
    refused: str
    pod_group: dict[str, Any] | None
    pods: tuple[dict[str, Any], ...]
    unmodelled: tuple[str, ...] = ()
    claims: tuple[dict[str, Any], ...] = ()
    waiting: str = ""


def is_volcano_job(obj: Any) -> bool:
    return isinstance(obj, Mapping) and obj.get("kind") == KIND and obj.get("apiVersion") == API_VERSION


def _meta(job: Mapping[str, Any]) -> tuple[str, str]:
    meta = mapping(job.get("metadata"))
    return str(meta.get("name") or ""), str(meta.get("namespace") or "default")


def job_uid(job: Mapping[str, Any]) -> str:
    name, namespace = _meta(job)
    return str(mapping(job.get("metadata")).get("uid") or object_uid(
        {"kind": KIND, "metadata": {"name": name, "namespace": namespace}}))


def controller_ref(job: Mapping[str, Any]) -> dict[str, Any]:
    """metav1.NewControllerRef(job, JobKind)."""
    return {"apiVersion": API_VERSION, "kind": KIND, "name": _meta(job)[0], "uid": job_uid(job),
            "controller": True, "blockOwnerDeletion": True}


def pod_group_name(job: Mapping[str, Any]) -> str:
    """generateRelatedPodGroupName: `<job>-<job uid>`."""
    return f"{_meta(job)[0]}-{job_uid(job)}"


# -- minResources -----------------------------------------------------------------------------
ResourceList = dict[str, Quantity]


def _add(a: ResourceList, b: ResourceList) -> ResourceList:
    """quotav1.Add: the sum, each value in the left one's format."""
    out = dict(a)
    for name, value in b.items():
        out[name] = quantity.add(out[name], value) if name in out else value
    return out


def task_requests(task: Mapping[str, Any], count: int) -> ResourceList:
    """CalTaskRequests: `count` times GetPodQuotaUsage of a pod of the task's template (the quota
    evaluator's usage, each `requests.` name of an extended resource also under its own name)."""
    usage = pod_usage({"spec": copy.deepcopy(dict(mapping(mapping(task.get("template")).get("spec"))))})
    for name, value in list(usage.items()):
        if name.startswith("requests.") and "/" in name and "kubernetes.io/" not in name:
            usage[name[len("requests."):]] = value
    out: ResourceList = {}
    for _ in range(max(count, 0)):
        out = _add(out, usage)
    return out


def _by_priority(tasks: list[dict[str, Any]], priorities: Mapping[str, int]) -> list[tuple[int, dict[str, Any]]]:
    """The tasks as TasksPriority after sort.Sort: higher priority first (Go's pdqsort, not stable past
    twelve); a task's priority its template's PriorityClass's value, 0 without one or when it is missing."""
    out = [(priorities.get(str(mapping(mapping(t.get("template")).get("spec")).get("priorityClassName") or ""), 0), t)
           for t in tasks]
    go_sort(out, lambda a, b: a[0] > b[0])
    return out


def _first_count(ordered: list[tuple[int, dict[str, Any]]], count: int) -> ResourceList:
    """CalcFirstCountResources."""
    total: ResourceList = {}
    for _, task in ordered:
        replicas = as_int(task.get("replicas"))
        if count <= replicas:
            return _add(total, task_requests(task, count))
        total = _add(total, task_requests(task, replicas))
        count -= replicas
    return total


def _pg_min(ordered: list[tuple[int, dict[str, Any]]], job_min: int) -> ResourceList:
    """CalcPGMinResources: each task's minAvailable first (up to the Job's), then the tasks' other
    replicas, higher priority first, up to the Job's minAvailable."""
    total: ResourceList = {}
    pods = 0
    for _, task in ordered:
        if task.get("minAvailable") is None:
            continue
        valid = min(as_int(task["minAvailable"]), job_min - pods)
        total = _add(total, task_requests(task, valid))
        pods += valid
        if pods >= job_min:
            return total
    left = job_min - pods
    for _, task in ordered:
        free = as_int(task.get("replicas"))
        if task.get("minAvailable") is not None:
            if as_int(task["minAvailable"]) == free:
                continue
            free -= as_int(task["minAvailable"])
        take = free if left >= free else left
        total = _add(total, task_requests(task, take))
        left -= take
        if left <= 0:
            break
    return total


def min_resources(job: Mapping[str, Any], priorities: Mapping[str, int]) -> ResourceList:
    """calcPGMinResources: below the sum of the tasks' minAvailable, the first minAvailable pods in
    priority order; else each task's minAvailable filled up to the Job's."""
    tasks = tasks_of(job)
    ordered = _by_priority(tasks, priorities)
    job_min = as_int(mapping(job.get("spec")).get("minAvailable"))
    task_min = sum(as_int(t["minAvailable"]) if t.get("minAvailable") is not None else as_int(t.get("replicas"))
                   for t in tasks)
    return _first_count(ordered, job_min) if job_min < task_min else _pg_min(ordered, job_min)


def resource_text(resources: ResourceList) -> dict[str, str]:
    return {name: str(resources[name]) for name in sorted(resources)}


# -- the PodGroup -----------------------------------------------------------------------------
def min_task_member(task: Mapping[str, Any]) -> int:
    """getMinTaskMember: its minAvailable, else minPartitions x partitionSize, else its replicas."""
    if task.get("minAvailable") is not None:
        return as_int(task["minAvailable"])
    policy = mapping(task.get("partitionPolicy"))
    if as_int(policy.get("minPartitions")) and as_int(policy.get("partitionSize")):
        return as_int(policy["minPartitions"]) * as_int(policy["partitionSize"])
    return as_int(task.get("replicas"))


def _network_topology(value: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"mode": value["mode"]} if value.get("mode") else {}
    if value.get("highestTierAllowed") is not None:
        out["highestTierAllowed"] = value["highestTierAllowed"]
    elif value.get("highestTierName"):
        out["highestTierName"] = value["highestTierName"]
    return out


def _sub_group_policy(task: Mapping[str, Any]) -> dict[str, Any]:
    """getSubGroupPolicy: a task's partition policy as a sub-group of the PodGroup."""
    policy = mapping(task.get("partitionPolicy"))
    out: dict[str, Any] = {"name": task.get("name"), "subGroupSize": as_int(policy.get("partitionSize")),
                           "minSubGroups": as_int(policy.get("minPartitions")),
                           "labelSelector": {"matchLabels": {TASK_SPEC: task.get("name")}},
                           "matchLabelKeys": [PARTITION_ID]}
    if isinstance(policy.get("networkTopology"), Mapping):
        nt = policy["networkTopology"]
        out["networkTopology"] = {k: nt[k] for k in ("mode", "highestTierAllowed", "highestTierName")
                                  if nt.get(k) not in (None, "")}
    return out


def pod_group(job: Mapping[str, Any], priorities: Mapping[str, int]) -> dict[str, Any]:
    """createOrUpdatePodGroup's new PodGroup for the admitted Job."""
    name, namespace = _meta(job)
    meta, spec = mapping(job.get("metadata")), mapping(job.get("spec"))
    tasks = tasks_of(job)
    pg_meta: dict[str, Any] = {"name": pod_group_name(job), "namespace": namespace,
                               "ownerReferences": [controller_ref(job)]}
    for key in ("annotations", "labels"):
        if mapping(meta.get(key)):
            pg_meta[key] = dict(meta[key])
    pg_spec: dict[str, Any] = {}
    if as_int(spec.get("minAvailable")):
        pg_spec["minMember"] = as_int(spec["minAvailable"])
    if tasks:
        pg_spec["minTaskMember"] = {str(t.get("name")): min_task_member(t) for t in tasks}
    pg_spec["queue"] = spec.get("queue")
    if spec.get("priorityClassName"):
        pg_spec["priorityClassName"] = spec["priorityClassName"]
    pg_spec["minResources"] = resource_text(min_resources(job, priorities))
    if isinstance(spec.get("networkTopology"), Mapping):
        pg_spec["networkTopology"] = _network_topology(spec["networkTopology"])
    groups = [_sub_group_policy(t) for t in tasks if t.get("partitionPolicy") is not None]
    if groups:
        pg_spec["subGroupPolicy"] = groups
    return {"apiVersion": PODGROUP_API_VERSION, "kind": "PodGroup", "metadata": pg_meta, "spec": pg_spec}


# -- the pods ---------------------------------------------------------------------------------
def _random_str(job: Mapping[str, Any], what: str) -> str:
    """GenRandomStr(12), derived from the Job's uid and `what` in place of Volcano's random one."""
    digest = hashlib.sha256(f"{job_uid(job)}/{what}".encode()).digest()
    return "".join(_RANDOM_ALPHABET[b % len(_RANDOM_ALPHABET)] for b in digest[:12])


def with_claims(job: dict[str, Any], existing: frozenset[tuple[str, str]]) -> tuple[list[dict[str, Any]], str]:
    """createJobIOIfNotExist: a volume with no claim name gets `<job>-pvc-<random>` and, with a
    volumeClaim, the PVC createPVC makes; a named claim must exist (`existing`: namespace and name),
    else the controller stops there, its event's message returned. The volumes' names set on `job`."""
    name, namespace = _meta(job)
    volumes = mapping(job.get("spec")).get("volumes")
    made: list[dict[str, Any]] = []
    for index, volume in enumerate(volumes if isinstance(volumes, list) else ()):
        if not isinstance(volume, dict):
            continue
        claim = volume.get("volumeClaimName")
        if claim and (namespace, str(claim)) not in existing:
            return made, (f"Failed to create PVC, err: pvc {claim} is not found, the job will be in the Pending "
                          "state until the PVC is created")
        if not claim:
            volume["volumeClaimName"] = f"{name}-pvc-{_random_str(job, f'pvc/{index}')}"
            if isinstance(volume.get("volumeClaim"), Mapping):
                made.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                             "metadata": {"name": volume["volumeClaimName"], "namespace": namespace,
                                          "ownerReferences": [controller_ref(job)]},
                             "spec": copy.deepcopy(dict(volume["volumeClaim"]))})
    return made, ""


def _mount_volumes(job: Mapping[str, Any], spec: dict[str, Any]) -> None:
    """The Job's volumes on the pod and every container (not the init containers), each claim once."""
    seen: set[str] = set()
    volumes = mapping(job.get("spec")).get("volumes")
    for index, volume in enumerate(volumes if isinstance(volumes, list) else ()):
        claim = str(mapping(volume).get("volumeClaimName") or "")
        if claim in seen:
            continue
        seen.add(claim)
        name = f"{_meta(job)[0]}-{_random_str(job, f'volume/{index}')}"
        spec["volumes"] = [*(spec.get("volumes") or ()), {"name": name, "persistentVolumeClaim": {"claimName": claim}}]
        for c in spec.get("containers") or ():
            c["volumeMounts"] = [*(c.get("volumeMounts") or ()), {"mountPath": mapping(volume).get("mountPath"),
                                                                    "name": name}]


def _carried(job: Mapping[str, Any], annotations: dict[str, str], labels: dict[str, str]) -> None:
    """The Job's annotations and labels a pod carries over (preemptable, cooldown, revocable zone, the
    disruption budget's)."""
    job_ann, job_labels = mapping(mapping(job.get("metadata")).get("annotations")), \
        mapping(mapping(job.get("metadata")).get("labels"))
    for key in _CARRIED_ANNOTATIONS:
        if key in job_ann:
            annotations[key] = job_ann[key]
    for key in _JDB:
        if key in job_ann:
            annotations[key] = job_ann[key]
            break
    for key in _CARRIED_ANNOTATIONS[:2]:
        if key in job_labels:
            labels[key] = job_labels[key]


def _pod_metadata(job: Mapping[str, Any], task: Mapping[str, Any], index: int, forwarding: bool,
                  template: Mapping[str, Any]) -> dict[str, Any]:
    """createJobPod's metadata: the template's labels and annotations with Volcano's."""
    name, namespace = _meta(job)
    spec, status = mapping(job.get("spec")), mapping(job.get("status"))
    task_name = str(task.get("name") or "")
    key = task_name or "default"
    tmeta = mapping(template.get("metadata"))
    annotations, labels = dict(mapping(tmeta.get("annotations"))), dict(mapping(tmeta.get("labels")))
    annotations.update({TASK_INDEX: str(index), TASK_SPEC: key, GROUP_NAME: pod_group_name(job), JOB_NAME: name,
                        QUEUE_NAME: str(spec.get("queue") or ""), JOB_VERSION: str(as_int(status.get("version"))),
                        TEMPLATE_UID: f"{name}-{task_name}", RETRY_COUNT: str(as_int(status.get("retryCount")))})
    if task.get("topologyPolicy"):
        annotations[NUMA_POLICY] = str(task["topologyPolicy"])
    labels.update({TASK_INDEX: str(index), JOB_NAME: name, TASK_SPEC: key, JOB_NAMESPACE: namespace,
                   QUEUE_NAME: str(spec.get("queue") or "")})
    _carried(job, annotations, labels)
    if forwarding:
        annotations["volcano.sh/job-forwarding"] = labels["volcano.sh/job-forwarding"] = "true"
    policy = task.get("partitionPolicy")
    if policy is not None:
        size = as_int(mapping(policy).get("partitionSize"))
        labels[PARTITION_ID] = str(index // size if size > 0 else 0)
    return {"name": f"{name}-{task_name}-{index}", "namespace": namespace, "ownerReferences": [controller_ref(job)],
            "labels": labels, "annotations": annotations}


def job_pod(job: Mapping[str, Any], task: Mapping[str, Any], index: int, forwarding: bool = False) -> dict[str, Any]:
    """createJobPod, then the job plugins' OnPodCreate: the task's `index`th pod."""
    template = copy.deepcopy(dict(mapping(task.get("template"))))
    spec = dict(mapping(template.get("spec")))
    spec["containers"] = [dict(c) for c in spec.get("containers") or () if isinstance(c, Mapping)]
    spec["initContainers"] = [dict(c) for c in spec.get("initContainers") or () if isinstance(c, Mapping)]
    job_spec = mapping(job.get("spec"))
    if not spec.get("schedulerName"):
        spec["schedulerName"] = job_spec.get("schedulerName")
    if not spec.get("priorityClassName") and job_spec.get("priorityClassName"):
        spec["priorityClassName"] = job_spec["priorityClassName"]
    _mount_volumes(job, spec)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": _pod_metadata(job, task, index, forwarding, template),
           "spec": spec}
    for plugin in sorted(mapping(job_spec.get("plugins"))):
        on_pod_create = _ON_POD_CREATE.get(plugin)
        if on_pod_create is not None:
            on_pod_create(pod, job, job_spec["plugins"][plugin])
    if not spec["initContainers"]:
        del spec["initContainers"]
    return pod


# -- the job plugins (OnPodCreate) ------------------------------------------------------------
def _env_plugin(pod: dict[str, Any], job: Mapping[str, Any], args: Any) -> None:
    """env: VK_TASK_INDEX and VC_TASK_INDEX, the pod's index in its task, on every container."""
    index = pod["metadata"]["name"].split("-")[-1]
    for c in [*pod["spec"]["containers"], *pod["spec"]["initContainers"]]:
        c["env"] = [*(c.get("env") or ()), {"name": "VK_TASK_INDEX", "value": index},
                    {"name": "VC_TASK_INDEX", "value": index}]


def _svc_plugin(pod: dict[str, Any], job: Mapping[str, Any], args: Any) -> None:
    """svc: hostname and subdomain (the Job's headless Service), each task's hosts and count from the
    `<job>-svc` ConfigMap as env, and the ConfigMap mounted at /etc/volcano."""
    spec, name = pod["spec"], _meta(job)[0]
    spec["hostname"] = spec.get("hostname") or pod["metadata"]["name"]
    spec["subdomain"] = spec.get("subdomain") or name
    cm = f"{name}-svc"
    keys = [k for t in tasks_of(job) for k in (f"VC_{str(t.get('name')).replace('-', '_').upper()}_HOSTS",
                                               f"VC_{str(t.get('name')).replace('-', '_').upper()}_NUM")]
    env = [{"name": k, "valueFrom": {"configMapKeyRef": {"name": cm, "key": k}}} for k in keys]
    spec["volumes"] = [*(spec.get("volumes") or ()), {"name": cm, "configMap": {"name": cm}}]
    for c in [*spec["containers"], *spec["initContainers"]]:
        c["env"] = [*(c.get("env") or ()), *copy.deepcopy(env)]
        c["volumeMounts"] = [*(c.get("volumeMounts") or ()), {"mountPath": "/etc/volcano", "name": cm}]


def _ssh_plugin(pod: dict[str, Any], job: Mapping[str, Any], args: Any) -> None:
    """ssh: the `<job>-ssh` Secret's keys mounted at --ssh-key-file-path (default /root/.ssh)."""
    flags = go_flags(args if isinstance(args, list) else [], ("ssh-key-file-path", "ssh-private-key",
                                                             "ssh-public-key", "ssh-port"))
    path = flags.get("ssh-key-file-path", "/root/.ssh")
    secret = f"{_meta(job)[0]}-ssh"
    items = [{"key": k, "path": f".ssh/{k}"} for k in ("id_rsa", "id_rsa.pub", "authorized_keys", "config")]
    source = {"secretName": secret, "items": items, "defaultMode": 0o600 if path == "/root/.ssh" else 0o644}
    spec = pod["spec"]
    spec["volumes"] = [*(spec.get("volumes") or ()), {"name": secret, "secret": source}]
    for c in [*spec["containers"], *spec["initContainers"]]:
        c["volumeMounts"] = [*(c.get("volumeMounts") or ()), {"mountPath": path, "subPath": ".ssh", "name": secret}]


_ON_POD_CREATE = {"env": _env_plugin, "svc": _svc_plugin, "ssh": _ssh_plugin}


# -- the entry point --------------------------------------------------------------------------
def _unmodelled(job: Mapping[str, Any]) -> tuple[str, ...]:
    spec = mapping(job.get("spec"))
    out = [f"the {p} job plugin's changes to the pods (environment, ports) are not modelled"
           for p in sorted(mapping(spec.get("plugins"))) if p in FRAMEWORK_PLUGINS]
    out += [f"task {t.get('name')}'s pods wait for the tasks it depends on ({', '.join(map(str, deps))}): "
            "not modelled, they are made with the others"
            for t in tasks_of(job) for deps in [mapping(t.get("dependsOn")).get("name") or ()] if deps]
    return tuple(out)


def check_decodes(job: Mapping[str, Any], source: Source | None = None) -> None:
    """InputError (the file, the Job, the field) where the Job would not decode: its counts no
    non-negative integers, a task's template missing or its pod spec not a PodSpec (a quantity that
    does not parse)."""
    spec = job.get("spec")
    if not isinstance(spec, Mapping):
        raise InputError("must be an object", source=source, obj=job, field="spec")
    for key in ("minAvailable", "maxRetry"):
        count_at(job, spec.get(key), 0, f"spec.{key}", source)
    tasks = spec.get("tasks")
    if tasks is not None and not isinstance(tasks, list):
        raise InputError("must be a list", source=source, obj=job, field="spec.tasks")
    for i, task in enumerate(tasks or ()):
        if not isinstance(task, Mapping):
            raise InputError("must be an object", source=source, obj=job, field=f"spec.tasks[{i}]")
        for key in ("replicas", "minAvailable", "maxRetry"):
            count_at(job, task.get(key), 0, f"spec.tasks[{i}].{key}", source)
        template_at(job, task.get("template"), f"spec.tasks[{i}].template", source)


def made(job: Mapping[str, Any], queues: Mapping[str, Mapping[str, Any]], priorities: Mapping[str, int],
         source: Source | None = None, existing: frozenset[tuple[str, str]] = frozenset()) -> Made:
    """One Job through the webhooks and the job controller: refused (the webhook's message), waiting
    for a volume's claim (`existing`: the PVCs there are), or its PodGroup and the pods it creates once
    the PodGroup is enqueued. InputError where it would not decode (`check_decodes`)."""
    check_decodes(job, source)
    admitted = defaulted(job)
    said = refusal(admitted, queues)
    if said:
        return Made(dict(job), said, None, ())
    claims, waiting = with_claims(admitted, existing)
    if waiting:
        return Made(admitted, "", None, (), _unmodelled(admitted), tuple(claims), waiting)
    queue = queues.get(str(mapping(admitted.get("spec")).get("queue")), {})
    forwarding = bool(mapping(queue.get("spec")).get("extendClusters"))
    if forwarding:
        meta = admitted["metadata"] = dict(mapping(admitted.get("metadata")))
        meta["annotations"] = {**mapping(meta.get("annotations")), "volcano.sh/job-forwarding": "true"}
    pods = tuple(job_pod(admitted, task, i, forwarding)
                 for task in tasks_of(admitted) for i in range(as_int(task.get("replicas"))))
    return Made(admitted, "", pod_group(admitted, priorities), pods, _unmodelled(admitted), tuple(claims))


def priority_values(objects: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The PriorityClasses' values by name (the job controller's pcLister)."""
    return {str(mapping(o.get("metadata")).get("name")): as_int(o.get("value")) for o in objects
            if o.get("kind") == "PriorityClass"}


def queues_of(objects: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Volcano's Queues by name (the webhook's and the controller's queueLister)."""
    return {str(mapping(o.get("metadata")).get("name")): o for o in objects
            if o.get("kind") == "Queue" and o.get("apiVersion") == QUEUE_API_VERSION}


def volcano_jobs(objects: Iterable[Mapping[str, Any]],
                 source_of: Callable[[Mapping[str, Any]], Source | None] | None = None) -> list[Made]:
    """Every Volcano Job of `objects` as Volcano leaves it, in order, read with the Queues and the
    PriorityClasses among them (the scheduler's `root` and `default` queues always exist).
    `source_of`: where an object came from, for the InputError of a Job that would not decode."""
    objs = [o for o in objects if isinstance(o, Mapping)]
    queues, priorities = queues_of(objs), priority_values(objs)
    existing = frozenset((str(mapping(o.get("metadata")).get("namespace") or "default"),
                          str(mapping(o.get("metadata")).get("name"))) for o in objs
                         if o.get("kind") == "PersistentVolumeClaim")
    return [made(o, queues, priorities, source_of(o) if source_of is not None else None, existing)
            for o in objs if is_volcano_job(o)]

"""What Volcano's admission webhooks (v1.15.1, `pkg/webhooks/admission/jobs`) do to a Volcano Job
(`batch.volcano.sh/v1alpha1` Job) on create, before its job controller sees it: `defaulted` is the
mutating webhook's patch (createPatch), `refusal` the validating webhook's message (validateJobCreate),
in Volcano's words: the job controller (`controllers.volcanojob`) only ever meets a Job both let through.

Not modelled, said here: the pod template's own validation (ValidatePodTemplate, what a created pod
meets anyway) and a task's topology policy's whole-cpu check, the lifecycle policies' events and
actions, a claim name's own validation, the CRD's schema (beyond the counts and templates
`volcanojob.check_decodes` reads) and the optional ValidatingAdmissionPolicy (`vap_enable`, off by
default; its messages say the same words)."""
from __future__ import annotations

import copy
from typing import Any, Iterable, Mapping

from kexplain.apimachinery.names import is_label_key
from kexplain.controllers.templates import mapping

DEFAULT_QUEUE = "default"
ROOT_QUEUE = "root"
DEFAULT_SCHEDULER = "volcano"
DEFAULT_MAX_RETRY = 3
DEFAULT_TASK_SPEC = "default"
QUEUE_OPEN = "Open"
# the job plugins the controller has (plugins/factory.go)
KNOWN_PLUGINS = frozenset({"ssh", "env", "svc", "tensorflow", "mpi", "pytorch", "hcclrank", "ray"})
_NEEDS_SVC = ("tensorflow", "mpi", "pytorch", "ray")
MPI_DEFAULT_MASTER = "master"


def as_int(value: Any) -> int:
    """An int32 field as the decoder leaves it (anything else: zero, the CRD's schema refuses it)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def tasks_of(job: Mapping[str, Any]) -> list[dict[str, Any]]:
    tasks = mapping(job.get("spec")).get("tasks")
    return [t for t in tasks if isinstance(t, dict)] if isinstance(tasks, list) else []


def go_flags(args: Iterable[Any], strings: Iterable[str], bools: Iterable[str] = ()) -> dict[str, str]:
    """Go's flag.FlagSet.Parse (ContinueOnError) over a plugin's arguments: the values set before the
    first argument that is no flag or an unknown flag (an error ends the parse, what was set stays)."""
    known, switch = set(strings), set(bools)
    out: dict[str, str] = {}
    items = [str(a) for a in args]
    i = 0
    while i < len(items):
        arg = items[i]
        if len(arg) < 2 or not arg.startswith("-") or arg == "--":
            break
        name = arg[2:] if arg.startswith("--") else arg[1:]
        name, eq, value = name.partition("=")
        if name in switch:
            out[name] = value if eq else "true"
        elif name in known and (eq or i + 1 < len(items)):
            if not eq:
                i += 1
                value = items[i]
            out[name] = value
        else:
            break
        i += 1
    return out


# -- mutate -----------------------------------------------------------------------------------
def _mutate_tasks(tasks: list[dict[str, Any]]) -> None:
    """mutateSpec: a task's default name, dnsPolicy with hostNetwork, minAvailable and maxRetry."""
    for index, task in enumerate(tasks):
        if not task.get("name"):
            task["name"] = f"{DEFAULT_TASK_SPEC}{index}"
        template = task["template"] = dict(mapping(task.get("template")))
        spec = template["spec"] = dict(mapping(template.get("spec")))
        if spec.get("hostNetwork") is True and not spec.get("dnsPolicy"):
            spec["dnsPolicy"] = "ClusterFirstWithHostNet"
        if task.get("minAvailable") is None:
            policy = mapping(task.get("partitionPolicy"))
            if task.get("partitionPolicy") is not None and as_int(policy.get("minPartitions")) > 0:
                task["minAvailable"] = as_int(policy.get("minPartitions")) * as_int(policy.get("partitionSize"))
            else:
                task["minAvailable"] = as_int(task.get("replicas"))
        if not as_int(task.get("maxRetry")):
            task["maxRetry"] = DEFAULT_MAX_RETRY


def defaulted(job: Mapping[str, Any]) -> dict[str, Any]:
    """The mutating webhook's createPatch, on a copy: the queue `default`, the scheduler `volcano`,
    maxRetry 3, each task's defaults, minAvailable the sum of the tasks' minAvailable (each its
    replicas unless set), and the svc (and for mpi the ssh) plugin the framework plugins need."""
    out = copy.deepcopy(dict(job))
    spec = out["spec"] = dict(mapping(out.get("spec")))
    if not spec.get("queue"):
        spec["queue"] = DEFAULT_QUEUE
    if not spec.get("schedulerName"):
        spec["schedulerName"] = DEFAULT_SCHEDULER
    if not as_int(spec.get("maxRetry")):
        spec["maxRetry"] = DEFAULT_MAX_RETRY
    tasks = [dict(t) for t in tasks_of(out)]
    if tasks:
        spec["tasks"] = tasks
    _mutate_tasks(tasks)
    if not as_int(spec.get("minAvailable")):
        spec["minAvailable"] = sum(as_int(t.get("minAvailable")) for t in tasks)
    if isinstance(spec.get("plugins"), Mapping):
        plugins = {str(k): v for k, v in spec["plugins"].items()}
        if any(name in plugins for name in _NEEDS_SVC):
            plugins.setdefault("svc", [])
        if "mpi" in plugins:
            plugins.setdefault("ssh", [])
        spec["plugins"] = plugins
    return out


# -- validate ---------------------------------------------------------------------------------
def _network_topology(value: Any) -> str:
    """validateNetworkTopology."""
    nt = mapping(value)
    if nt.get("highestTierAllowed") is not None and nt.get("highestTierName"):
        return "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"
    return ""


def _partition_policy(task: Mapping[str, Any], job_name: str) -> str:
    """validatePartitionPolicy."""
    if task.get("partitionPolicy") is None:
        return ""
    policy, name = mapping(task.get("partitionPolicy")), task.get("name")
    total, size = as_int(policy.get("totalPartitions")), as_int(policy.get("partitionSize"))
    minimum = as_int(policy.get("minPartitions"))
    msg = ""
    if total <= 0:
        msg = f"'TotalPartitions' must be greater than 0 in task: {name}, job: {job_name}"
    elif size <= 0:
        msg = f"'PartitionSize' must be greater than 0 in task: {name}, job: {job_name}"
    elif as_int(task.get("replicas")) != total * size:
        msg = f"'Replicas' are not equal to TotalPartitions*PartitionSize in task: {name}, job: {job_name}"
    elif task.get("minAvailable") is not None and minimum > 0 and minimum * size != as_int(task["minAvailable"]):
        msg = f"'MinAvailable' is not equal to MinPartitions*PartitionSize in task: {name}, job: {job_name}"
    return msg + _network_topology(policy.get("networkTopology"))


def _qualified(name: str, what: str, end: str) -> str:
    """validateK8sPodNameLength / validateJobName: IsQualifiedName's errors as Go's %v prints a slice."""
    errs = is_label_key(name)
    return f"create {what} with name {name} validate failed [{' '.join(errs)}]{end}" if errs else ""


def _tasks_message(job: Mapping[str, Any], name: str) -> tuple[str, int]:
    """The per-task checks of validateJobCreate (to the first duplicated name), and the replicas counted."""
    msg, total, seen = "", 0, set()
    for index, task in enumerate(tasks_of(job)):
        replicas = as_int(task.get("replicas"))
        if task.get("minAvailable") is not None and as_int(task["minAvailable"]) > replicas:
            msg += f" 'minAvailable' is greater than 'replicas' in task: {task.get('name')}, job: {name};"
        total += replicas
        if task.get("name") in seen:
            msg += f" duplicated task name {task.get('name')};"
            break
        seen.add(task.get("name"))
        msg += _qualified(f"{name}-{task.get('name')}-{index}", "pod", ";")
        msg += _partition_policy(task, name)
    return msg, total


def _volumes(volumes: Any) -> str:
    """validateIO (the claim name's own validation aside)."""
    paths: set[str] = set()
    for volume in volumes if isinstance(volumes, list) else ():
        volume = mapping(volume)
        path = str(volume.get("mountPath") or "")
        if not path:
            return " mountPath is required;"
        if path in paths:
            return f" duplicated mountPath: {path};"
        if volume.get("volumeClaim") is None and not volume.get("volumeClaimName"):
            return " either VolumeClaim or VolumeClaimName must be specified;"
        if volume.get("volumeClaimName") and volume.get("volumeClaim") is not None:
            return ("conflict: If you want to use an existing PVC, just specify VolumeClaimName."
                    "If you want to create a new PVC, you do not need to specify VolumeClaimName")
        paths.add(path)
    return ""


def queue_state(queue: Mapping[str, Any]) -> str:
    """A Queue's state as the queue controller keeps it: Open until it is closed."""
    return str(mapping(queue.get("status")).get("state") or QUEUE_OPEN)


def queue_message(name: str, queues: Mapping[str, Mapping[str, Any]]) -> str:
    """validateJobCreate's queue checks: the queue exists (the scheduler's `root` and `default` always
    do), is Open, is not `root` and has no child queue."""
    queue = queues.get(name)
    if queue is None:
        if name in (ROOT_QUEUE, DEFAULT_QUEUE):
            queue = {"metadata": {"name": name}}
        else:
            return f' unable to find job queue: queue.scheduling.volcano.sh "{name}" not found;'
    msg = ""
    state = queue_state(queue)
    if state != QUEUE_OPEN:
        msg += f" can only submit job to queue with state `Open`, queue `{name}` status is `{state}`;"
    if name == ROOT_QUEUE:
        return msg + " can not submit job to root queue;"
    children = sum(1 for q in queues.values() if mapping(q.get("spec")).get("parent") == name)
    if children:
        msg += f" can only submit job to leaf queue, queue `{name}` has {children} child queues;"
    return msg


def _is_dag(tasks: list[dict[str, Any]]) -> bool:
    """topoSort over makeGraph: every task is sorted (a dependency on a task the job lacks, or named
    twice, counts in a task's in-degree and never comes off: not a DAG)."""
    graph: dict[Any, dict[Any, bool]] = {}
    degree: dict[Any, int] = {}
    for task in tasks:
        degree[task.get("name")] = 0
    for task in tasks:
        for dep in mapping(task.get("dependsOn")).get("name") or ():
            graph.setdefault(dep, {})[task.get("name")] = True
            degree[task.get("name")] = degree.get(task.get("name"), 0) + 1
    stack = [t for t, d in degree.items() if d == 0]
    done = 0
    while stack:
        out = stack.pop()
        done += 1
        for nxt, connected in graph.get(out, {}).items():
            if connected:
                graph[out][nxt] = False
                degree[nxt] -= 1
                if degree[nxt] == 0:
                    stack.append(nxt)
    return done == len(tasks)


def refusal(job: Mapping[str, Any], queues: Mapping[str, Mapping[str, Any]] | None) -> str:
    """validateJobCreate over the defaulted Job: the webhook's message (trimmed, as AdmitJobs sends
    it), or "" when it admits the Job. `queues`: the Queues by name (None: the queue checks left out,
    what lint says apart when it knows the queues)."""
    spec = mapping(job.get("spec"))
    tasks = tasks_of(job)
    if not tasks:
        return "No task specified in job spec"
    plugins = mapping(spec.get("plugins"))
    if "mpi" in plugins:
        args = plugins["mpi"] if isinstance(plugins["mpi"], list) else []
        master = go_flags(args, ("master", "worker", "port")).get("master", MPI_DEFAULT_MASTER)
        if all(t.get("name") != master for t in tasks):
            return "The specified mpi master task was not found"
    name = str(mapping(job.get("metadata")).get("name") or "")
    msg = _network_topology(spec.get("networkTopology"))
    said, total = _tasks_message(job, name)
    msg += said + _qualified(name, "job", "")
    if total < as_int(spec.get("minAvailable")):
        msg += " job 'minAvailable' should not be greater than total replicas in tasks;"
    msg += "".join(f" unable to find job plugin: {p};" for p in sorted(plugins) if p not in KNOWN_PLUGINS)
    msg += _volumes(spec.get("volumes"))
    if queues is not None:
        msg += queue_message(str(spec.get("queue") or ""), queues)
    if any(t.get("dependsOn") is not None for t in tasks) and not _is_dag(tasks):
        msg += " job has dependencies between tasks, but doesn't form a directed acyclic graph(DAG);"
    return msg.strip()


# -- a PodGroup (pkg/webhooks/admission/podgroups) --------------------------------------------
QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"


def pod_group_queue(pod_group: Mapping[str, Any], namespace_annotations: Mapping[str, str]) -> str:
    """The PodGroup's queue as its mutating webhook leaves it: `default` (the CRD's default) becomes
    its namespace's `scheduling.volcano.sh/queue-name` annotation when it has one."""
    queue = str(mapping(pod_group.get("spec")).get("queue") or DEFAULT_QUEUE)
    if queue == DEFAULT_QUEUE and QUEUE_ANNOTATION in namespace_annotations:
        return str(namespace_annotations[QUEUE_ANNOTATION])
    return queue


def pod_group_queue_refusal(queue: str, queues: Mapping[str, Mapping[str, Any]]) -> str:
    """checkQueueState (validatePodGroup): the queue exists and is Open, in the PodGroup webhook's words."""
    found = queues.get(queue)
    if found is None and queue not in (ROOT_QUEUE, DEFAULT_QUEUE):
        return f'unable to find queue: queue.scheduling.volcano.sh "{queue}" not found'
    state = queue_state(found or {})
    if state != QUEUE_OPEN:
        return f"can only submit PodGroup to queue with state `Open`, queue `{queue}` status is `{state}`. "
    return ""

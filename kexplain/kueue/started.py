"""Kueue's pass for the chain (`kexplain.kueue.chain`): the POD file's managed jobs run through
Kueue, then held or started, each object made with Kueue's answer."""
from __future__ import annotations

import copy
from datetime import datetime
from typing import Any, Callable, Mapping

from kexplain.kueue import versions
from kexplain.kueue.apis import constants as c
from kexplain.kueue.objects import ADMITTED, QUOTA_RESERVED, Objects, kind_of, meta_of, object_key
from kexplain.kueue.controller.jobframework.reconciler import JobOutcome
from kexplain.kueue.explain import explained_pass
from kexplain.kueue.inputs import inputs_of
from kexplain.kueue.jobset_jobs import REPLICATED_JOB_NAME, jobset_jobs, volume_claims
from kexplain.kueue.operator_pods import KINDS as OPERATOR_KINDS, held_reason, operator_objects
from kexplain.kueue.controller.jobs.leaderworkerset import group_index
from kexplain.kueue.objects import LEADER_WORKER_SET
from kexplain.kueue.pinned import pin
from kexplain.kueue.podset import Conflict, PodSetInfo, infos, merged
from kexplain.kueue.run import Pass, Settings, run_pass
from kexplain.kueue.controller.jobs import integration_for, podgroup
from kexplain.kueue.controller.jobs.parents import kueue_objects
from kexplain.kueue.workload.workload import Workload, has_quota_reservation, is_admitted
from kexplain.kueue.workload.stored import stored_status  # noqa: F401 (the live chain's)

MANAGED_LABEL = "kueue.x-k8s.io/managed"        # the pod webhook's (pkg/controller/constants)
TOPOLOGY_GATE = "kueue.x-k8s.io/topology"       # TopologySchedulingGate
COMPLETIONS_EQUAL_PARALLELISM = "kueue.x-k8s.io/job-completions-equal-parallelism"
NOT_CREATED = "NotCreated"      # the job reconciler made no Workload (`error` says why)
GO_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})      # strconv.ParseBool's true
Answers = dict[tuple[str, str, str], dict[str, Any]]
JOBSET_KINDS = frozenset({"JobSet", "TrainJob"})   # whose Jobs are a JobSet's (a TrainJob's, its trainer's)
POD_SET_OF = "_podSetOf"        # an operator's made objects' pod sets, while the answers are made


def explained_run(submitted: Objects, context: Objects, *, validate: str, now: datetime,
                  version: str | None = None, stored: bool = False, capacity: Any = None) -> tuple[Pass, dict[str, Any]]:
    """One pass of Kueue over `submitted` and `context` (`stored`: read from an API server), explained;
    `capacity`: who answers its ProvisioningRequests (`Settings.capacity`)."""
    release = versions.resolve(version)
    done = run_pass(inputs_of(submitted, context, validate=validate, stored=stored, version=release),
                    Settings(release, now, capacity))
    return done, explained_pass(done)


Fixes = Callable[[Pass, Mapping[str, Any]], Mapping[str, list[dict[str, Any]]]]


def held_or_started(objs: Objects, submitted: list[int], context: Objects, *, validate: str, now: datetime,
                    version: str | None, fixes: Fixes | None = None, capacity: Any = None) -> tuple[Objects, Answers]:
    """The POD file's objects with its managed ones as Kueue leaves them after one pass, and Kueue's
    answer for each object made; `fixes` (from above: `kexplain.suggest.kueue_held.kueue_fixes`)
    gives a held job's answer Kueue's verified fixes (`suggestions`)."""
    chosen = set(submitted)
    done, doc = explained_run([objs[i] for i in submitted], context, validate=validate, now=now, version=version,
                              capacity=capacity)
    found = fixes(done, doc) if fixes is not None else {}
    outcomes = iter(done.outcomes)
    out: list[tuple[Any, Any]] = []
    answers: Answers = {}
    told: set[tuple[str, str]] = set()
    for i, (obj, src) in enumerate(objs):
        if i not in chosen:
            out.append((obj, src))
            continue
        for part in kueue_objects(obj, src):        # (a CronJob's Job, a Deployment's pods: `jobs.parents`)
            if integration_for(kind_of(part), str(part.get("apiVersion") or "")) is None:
                out.append((part, src))
                continue
            outcome = next(outcomes)
            made, answer = started(part, outcome, done, doc)
            if fixes is not None and answer.get("verdict") not in (ADMITTED, NOT_CREATED):
                answer["suggestions"] = list(found.get(str(answer.get("workload")), ()))
            if _told(answer, told):     # a group's later pods: Kueue's message, not the whole answer again
                answer.pop("explanation", None)
                answer.pop("suggestions", None)
            # a JobSet's (a TrainJob's, its trainer's): the claims its controller creates join the cluster
            jobset = getattr(outcome.job, "child", None) or (part if kind_of(part) == "JobSet" else None)
            if jobset is not None:
                out.extend((claim, src) for claim in volume_claims(jobset))
            for n, m in enumerate(made):
                out.append((m, src))
                answers[object_key(m)] = _for_made(answer, m, n)
    return out, answers


def _told(answer: Mapping[str, Any], told: set[tuple[str, str]]) -> bool:
    """Whether `answer`'s pod group was answered in full already (remembered in `told`)."""
    group = answer.get("podGroup")
    if not group:
        return False
    key = (str(group["namespace"]), str(group["name"]))
    seen = key in told
    told.add(key)
    return seen


def parts(objs: Objects, submitted: list[int], outcomes: list[JobOutcome]
          ) -> list[tuple[int, dict[str, Any], JobOutcome]]:
    """(index, part, outcome) for what Kueue met of each submitted object (`jobs.parents`: the
    object itself, a CronJob's Job, a Deployment's pods, a StatefulSet as its webhook stores it),
    in the order of the pass's outcomes."""
    out = []
    left = iter(outcomes)
    for index in submitted:
        obj, src = objs[index]
        for part in kueue_objects(obj, src):
            if integration_for(kind_of(part), str(part.get("apiVersion") or "")) is not None:
                out.append((index, part, next(left)))
    return out


def started(obj: dict[str, Any], outcome: JobOutcome, done: Pass, doc: Mapping[str, Any]
            ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The objects a managed job leaves after Kueue's pass, and Kueue's answer for them."""
    answer = _answer(obj, outcome, done, doc)
    if outcome.unmanaged:       # (no webhook of Kueue's touched it: as written)
        answer["unmanaged"] = True
        return [obj], answer
    wl = done.workloads.get(outcome.workload.meta.key) if outcome.workload is not None else None
    pod_sets: list[PodSetInfo] | None = None
    reserved = reserved_infos(wl, done, answer)
    if wl is not None and starts(wl):
        try:        # (a check's PodSetUpdate conflicting with the template: Kueue cannot start it)
            pod_sets = infos(wl, done.inputs.flavors)
            answer["podSets"] = [p.to_json() for p in pod_sets]
        except Conflict as err:
            answer["startError"] = str(err)
    kind = kind_of(obj)
    child = getattr(outcome.job, "child", None)
    if child is not None:       # a TrainJob: the JobSet its trainer makes, then that JobSet's path
        obj, kind = dict(child), "JobSet"
    if kind in OPERATOR_KINDS:      # (an operator's kind: its pods, `operator_pods`)
        made, answer = _operator(obj, outcome, pod_sets, answer)
        return on_reserved(made, answer, reserved), answer
    if pod_sets is not None and outcome.pod_set:       # a pod of a group: its role's pod set
        pod_sets = [p for p in pod_sets if p.name == outcome.pod_set]
    try:
        if kind == "Pod":
            made = [_pod(obj, pod_sets)]
        elif kind == "StatefulSet":
            made = [_statefulset(obj, pod_sets)]
        elif kind == "JobSet":
            made = jobset_jobs(obj, pod_sets, done.inputs.priority_classes)
        else:
            made = [_job(obj, outcome, pod_sets)]
    except Conflict as err:         # Kueue cannot start it: it stays held
        answer["startError"] = str(err)
        if kind == "JobSet":
            made = jobset_jobs(obj, None, done.inputs.priority_classes)
        elif kind == "StatefulSet":
            made = [_statefulset(obj, None)]
        else:
            made = [_pod(obj, None) if kind == "Pod" else _job(obj, outcome, None)]
    return (made if kind == "Pod" else on_reserved(made, answer, reserved)), answer


def reserved_answer(wl: Workload) -> dict[str, Any]:
    """Kueue's answer for a Workload holding quota while its admission checks wait: the ClusterQueue,
    each check's state, and the flavors its quota is reserved on (files and live alike)."""
    assert wl.admission is not None
    return {"verdict": QUOTA_RESERVED, "clusterQueue": wl.admission.cluster_queue,
            "admissionChecks": [{"name": c.name, "state": c.state, **({"message": c.message} if c.message else {})}
                                for c in wl.admission_checks],
            "reservedFlavors": {a.name: dict(a.flavors) for a in wl.admission.pod_set_assignments}}


def reserved_infos(wl: Workload | None, done: Pass, answer: dict[str, Any]) -> list[PodSetInfo] | None:
    """A Workload holding quota while its admission checks wait: what Kueue sets in its pod sets
    once they are Ready (its reserved flavors' node labels and tolerations, its topology's domains,
    the checks' updates: `podset.infos`), said in the answer (`reservedPodSets`); None for any other
    Workload, or when those cannot be merged (`reservedError`: Kueue could not start it then)."""
    if wl is None or wl.admission is None or not has_quota_reservation(wl) or starts(wl):
        return None
    try:
        out = infos(wl, done.inputs.flavors)
    except Conflict as err:
        answer["reservedError"] = str(err)
        return None
    answer["reservedPodSets"] = [p.to_json() for p in out]
    return out


def on_reserved(made: list[dict[str, Any]], answer: dict[str, Any], reserved: list[PodSetInfo] | None
                ) -> list[dict[str, Any]]:
    """The objects of a held job whose quota is reserved, each pod template merged with its pod
    set's reserved info (podset.Merge, as when Kueue starts it), so the scheduler explains it on the
    reserved flavors' nodes; still suspended or gated: Kueue has not started it. A template that does
    not merge leaves them all as they are (`reservedError`)."""
    if not reserved:
        return made
    by_name = {p.name: p for p in reserved}
    only = reserved[0] if len(reserved) == 1 else None
    own = answer.get(POD_SET_OF) or {}
    try:
        out = [_merged_object(m, by_name.get(_pod_set_of(m, own), only)) for m in made]
    except Conflict as err:
        answer.pop("reservedPodSets", None)
        answer["reservedError"] = str(err)
        return made
    return out


def _pod_set_of(made: Mapping[str, Any], own: Mapping[Any, str]) -> str:
    """The pod set an object made of a job stands for: an operator's (`own`), a JobSet's Job's
    replicated job; "" when the job has one pod set."""
    labels = meta_of(made).get("labels") or {}
    return str(own.get(object_key(made)) or labels.get(REPLICATED_JOB_NAME) or "")


def _merged_object(made: dict[str, Any], info: PodSetInfo | None) -> dict[str, Any]:
    """`made` with `info` merged into its pod template (a Pod's own metadata and spec)."""
    if info is None:
        return made
    out = _copy(made)
    if kind_of(made) == "Pod":
        template = merged({"metadata": out["metadata"], "spec": out["spec"]}, info)
        out["metadata"], out["spec"] = template["metadata"], template["spec"]
        return out
    template = out["spec"].get("template")
    out["spec"]["template"] = merged(template if isinstance(template, Mapping) else {}, info)
    return out


def _operator(obj: dict[str, Any], outcome: JobOutcome, pod_sets: list[PodSetInfo] | None, answer: dict[str, Any]
              ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The pods (or Jobs) an operator makes of a job Kueue started, or its pod sets' templates while
    held (`idle`: why no pod exists, said in the explained pods); a merge Kueue cannot make keeps it held."""
    index = group_index(obj) if kind_of(obj) == LEADER_WORKER_SET else 0
    sets = outcome.job.pod_sets()
    try:
        made = operator_objects(obj, sets, pod_sets, index)
    except Conflict as err:
        answer["startError"] = str(err)
        pod_sets = None
        made = operator_objects(obj, sets, None, index)
    if pod_sets is None and kind_of(obj) != LEADER_WORKER_SET:
        answer["idle"] = held_reason(obj)
    answer[POD_SET_OF] = {object_key(m): name for m, name in made}
    return [m for m, _ in made], answer


def _answer(obj: Mapping[str, Any], outcome: JobOutcome, done: Pass, doc: Mapping[str, Any]) -> dict[str, Any]:
    kind, namespace, name = object_key(obj)
    out: dict[str, Any] = {"kueueVersion": done.settings.version.label,
                           "object": {"kind": kind, "namespace": namespace, "name": name},
                           "queueName": outcome.queue_name}
    group = pod_group(outcome, done)
    if group:
        out["podGroup"] = group
    if outcome.workload is None:
        out.update(verdict=NOT_CREATED, error=outcome.error)
        return out
    key = outcome.workload.meta.key
    out["workload"] = key
    if outcome.pod_set:
        out["podSet"] = outcome.pod_set
    wl = done.workloads.get(key)
    item = next((w for w in (doc.get("explanation") or {}).get("workloads") or () if w.get("workload") == key), None)
    shown = next((w for w in doc.get("workloads") or () if f"{w.get('namespace')}/{w.get('name')}" == key), None)
    if wl is not None and starts(wl):
        out.update(verdict=ADMITTED, clusterQueue=wl.admission.cluster_queue)
    elif wl is not None and has_quota_reservation(wl) and wl.admission is not None:    # its admission checks wait
        out.update(reserved_answer(wl))
    elif item is not None:
        out["verdict"] = item.get("verdict")
        for k in ("clusterQueue", "message"):
            if item.get(k):
                out[k] = item[k]
        out["explanation"] = item
    if shown is not None:
        out["conditions"] = shown.get("conditions") or []
        if shown.get("provisioningRequests"):
            out["provisioningRequests"] = shown["provisioningRequests"]
    if doc.get("configurationNote"):
        out["configurationNote"] = doc["configurationNote"]
    return out


def pod_group(outcome: JobOutcome, done: Pass) -> dict[str, Any]:
    """A pod of a group: the group (its name, the total count its first pod announces, its pods by
    name as the pass met them); {} for any other job."""
    name = podgroup.group_name(outcome.job)
    if not name:
        return {}
    namespace = outcome.job.meta.namespace
    pods = done.group_pods(namespace, name)
    total = outcome.job.meta.annotations.get(podgroup.GROUP_TOTAL_COUNT_ANNOTATION, "")
    return {"name": name, "namespace": namespace, "totalCount": total, "pods": pods}


def starts(wl: Workload) -> bool:
    """Whether Kueue starts the Workload's job: once Admitted, which a Workload holding quota is
    (or becomes, the workload controller syncing it) unless it waits for admission checks."""
    if wl.admission is None or not has_quota_reservation(wl):
        return False
    return is_admitted(wl) or not wl.admission_checks


def _copy(obj: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(obj))
    for key in ("metadata", "spec"):
        if not isinstance(out.get(key), dict):
            out[key] = {}
    return out


def _job(obj: Mapping[str, Any], outcome: JobOutcome, pod_sets: list[PodSetInfo] | None) -> dict[str, Any]:
    """A Job held (suspended) or started (RunWithPodSetsInfo: unsuspended, parallelism per partial
    admission, template merged)."""
    job = _copy(obj)
    spec = job["spec"]
    spec["suspend"] = pod_sets is None
    if pod_sets is None:
        return job
    info = pod_sets[0]
    min_count = getattr(outcome.job, "min_pods_count", lambda: None)()
    if min_count is not None:
        spec["parallelism"] = info.count
        if (meta_of(job).get("annotations") or {}).get(COMPLETIONS_EQUAL_PARALLELISM) in GO_TRUE:
            spec["completions"] = info.count
    spec["template"] = merged(spec.get("template") if isinstance(spec.get("template"), Mapping) else {}, info)
    pin([job], info)        # (by TAS: its pods pinned as Kueue's topology ungater pins them)
    return job


def _gates(spec: dict[str, Any]) -> list[Any]:
    gates = spec.get("schedulingGates")
    return list(gates) if isinstance(gates, list) else []


def _pod(obj: Mapping[str, Any], pod_sets: list[PodSetInfo] | None) -> dict[str, Any]:
    """A Pod held (the pod webhook's managed label and gates) or started (prepare: merged,
    then its admission gate and, Kueue's topology unused, the topology gate removed)."""
    pod = _copy(obj)
    spec = pod["spec"]
    gates = _gates(spec)
    names = [g.get("name") for g in gates if isinstance(g, Mapping)]
    if pod_sets is None:
        pod["metadata"]["labels"] = {**(pod["metadata"].get("labels") or {}), MANAGED_LABEL: "true"}
        spec["schedulingGates"] = gates + [{"name": n} for n in (c.ADMISSION_GATE, TOPOLOGY_GATE) if n not in names]
        return pod
    template = merged({"metadata": pod["metadata"], "spec": spec}, pod_sets[0])
    pod["metadata"], pod["spec"] = template["metadata"], template["spec"]
    kept = [g for g in _gates(pod["spec"])
            if not (isinstance(g, Mapping) and g.get("name") in (c.ADMISSION_GATE, TOPOLOGY_GATE))]
    if kept:
        pod["spec"]["schedulingGates"] = kept
    else:
        pod["spec"].pop("schedulingGates", None)
    return pod


def _statefulset(obj: Mapping[str, Any], pod_sets: list[PodSetInfo] | None) -> dict[str, Any]:
    """A StatefulSet whose pods Kueue holds (each gated by the pod webhook: the template as `_pod`
    holds a Pod) or starts (ungated together, the pod set's info merged into the template)."""
    sts = _copy(obj)
    spec = sts["spec"]
    template = spec.get("template") if isinstance(spec.get("template"), Mapping) else {}
    pod = _pod({"metadata": template.get("metadata") or {}, "spec": template.get("spec") or {}}, pod_sets)
    labels = pod["metadata"].get("labels") or {}
    if pod_sets is None:    # (suspended by its parent: the pod webhook gates it, sets no managed label)
        labels = {k: v for k, v in labels.items() if k != MANAGED_LABEL}
        own = (template.get("metadata") or {}).get("labels") or {}
        labels.update({MANAGED_LABEL: own[MANAGED_LABEL]} if MANAGED_LABEL in own else {})
    pod["metadata"]["labels"] = labels
    spec["template"] = {**template, "metadata": pod["metadata"], "spec": pod["spec"]}
    return sts


def _for_made(answer: dict[str, Any], made: Mapping[str, Any], index: int) -> dict[str, Any]:
    """The answer for one object made of a job: a JobSet's Job names its pod set (its replicated
    job), and only its first Job carries the explanation and the fixes (the others, Kueue's message)."""
    labels = meta_of(made).get("labels") or {}
    if answer["object"]["kind"] in OPERATOR_KINDS:      # its own pod set; only its first object explained
        dropped = (POD_SET_OF, "explanation", "suggestions") if index else (POD_SET_OF,)
        own = (answer.get(POD_SET_OF) or {}).get(object_key(made))
        return {**{k: v for k, v in answer.items() if k not in dropped}, **({"podSet": own} if own else {})}
    if kind_of(made) != "Job" or answer["object"]["kind"] not in JOBSET_KINDS:
        return answer
    out = {**answer, "podSet": str(labels.get(REPLICATED_JOB_NAME))}
    if index:
        out.pop("explanation", None)
        out.pop("suggestions", None)
    return out



def live_started_all(pods: list[dict[str, Any]], context: Objects, now: datetime, *,
                     version: str | None = None) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Pods read from a cluster (not admitted again) as Kueue leaves them after ONE pass with the
    cluster's Kueue objects, and Kueue's answer beside the cluster's status (`live`)."""
    return live_run(pods, context, now, version=version)[0]


def live_run(pods: list[dict[str, Any]], context: Objects, now: datetime, *, version: str | None = None,
             capacity: Any = None) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], Pass, dict[str, Any]]:
    """`live_started_all`, with the pass and its document (every Workload it leaves pending);
    `capacity` answers its ProvisioningRequests (`Settings.capacity`)."""
    done, doc = explained_run([(pod, None) for pod in pods], context, validate="ignore", now=now, version=version,
                              stored=True, capacity=capacity)
    owned: dict[str, Mapping[str, Any]] = {}        # each stored Workload by the uid of its owner
    for obj, _ in context:
        if kind_of(obj) == c.WORKLOAD:
            for ref in meta_of(obj).get("ownerReferences") or ():
                if isinstance(ref, Mapping) and ref.get("uid"):
                    owned.setdefault(str(ref["uid"]), obj)
    out = []
    for pod, outcome in zip(pods, done.outcomes):
        made, answer = started(pod, outcome, done, doc)
        obj = owned.get(str(meta_of(pod).get("uid") or ""))
        if obj is not None:
            answer["live"] = stored_status(obj)
        out.append((made[0], answer))
    return out, done, doc

"""`kexplain POD` for a pod Volcano schedules (`spec.schedulerName: volcano`, no kube-scheduler profile of
that name): one session of Volcano's scheduler over the cluster with the pod, as `kexplain volcano` runs
it, answered for that pod: its PodGroup's verdict, its PodScheduled condition, the events of both and,
per node, the predicates that refused it. The document keeps `kexplain volcano`'s entries as they are
(one answer everywhere) and a `result` in the SchedulingTrace's words, which the exit code reads."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Optional

from kexplain.admission import admit
from kexplain.apimachinery.stored_pods import plain
from kexplain.suggest import volcano as fixes
from kexplain.volcano import cache
from kexplain.volcano.api.task import GROUP_NAME_ANNOTATION, pod_request
from kexplain.volcano.conf import SchedulerConf, default as default_conf
from kexplain.volcano.framework.session import Session
from kexplain.volcano.run import run_kept, session_clock
from kexplain.volcano.versions import DEFAULT, VolcanoVersion

API_VERSION, KIND = "kexplain/v1", "SchedulingTrace"
PODGROUP_PREFIX = "podgroup-"                           # batch/v1alpha1 PodgroupNamePrefix
QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"   # scheduling/v1beta1 QueueNameAnnotationKey
Pairs = list[tuple[dict[str, Any], Any]]                # (object, Source) as the files were read


def is_volcano_pod(pod: dict[str, Any], profiles: Iterable[str]) -> bool:
    """Whether Volcano, not kube-scheduler, schedules `pod`: its schedulerName is Volcano's, no profile
    of the scheduler configuration (`profiles`' names) claims it, and it names no node (a bound pod is
    its kubelet's, whoever bound it)."""
    spec = pod.get("spec")
    return (isinstance(spec, dict) and spec.get("schedulerName") == cache.SCHEDULER_NAME and cache.SCHEDULER_NAME not in set(profiles)
            and not spec.get("nodeName"))


def line(version: VolcanoVersion, actions: Iterable[str]) -> str:
    """The line that says who answers."""
    return (f"Scheduled by Volcano ({version.release}), not kube-scheduler: the pod's spec.schedulerName is "
            f"\"volcano\"; one session of Volcano's scheduler (actions {', '.join(actions)}) over the cluster, "
            f"as `kexplain volcano` runs it")


def podgroup_name(pod: dict[str, Any]) -> str:
    """helpers.GeneratePodgroupName: `podgroup-` and the controlling owner's UID, else the pod's (its
    name when the file gives no UID)."""
    meta = pod.get("metadata") or {}
    for ref in meta.get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller") is True and ref.get("uid"):
            return PODGROUP_PREFIX + str(ref["uid"])
    return PODGROUP_PREFIX + str(meta.get("uid") or meta.get("name") or "")


def shadow_pod_group(pod: dict[str, Any], name: str) -> dict[str, Any]:
    """pgcontroller.buildPodGroupFromPod (inheritOwnerAnnotations off, its default): minMember 1, the
    pod's priority class, minResources its requests (util.CalTaskRequests), the queue of its queue-name
    annotation, else `default` (the CRD's default)."""
    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    pg_spec: dict[str, Any] = {"minMember": 1,
                               "queue": (meta.get("annotations") or {}).get(QUEUE_ANNOTATION) or cache.DEFAULT_QUEUE,
                               "minResources": pod_request(pod).as_list()}
    if spec.get("priorityClassName"):
        pg_spec["priorityClassName"] = spec["priorityClassName"]
    return {"apiVersion": f"{cache.VOLCANO_GROUP}/v1beta1", "kind": cache.PODGROUP_KIND,
            "metadata": {"name": name, "namespace": meta.get("namespace") or "default",
                         "creationTimestamp": meta.get("creationTimestamp")},
            "spec": pg_spec, "status": {"phase": "Pending"}}


def with_pod_group(pod: dict[str, Any], volcano: list[dict[str, Any]]
                   ) -> tuple[dict[str, Any], list[dict[str, Any]], Optional[str]]:
    """The pod as Volcano's PodGroup controller leaves it: one without the group-name annotation gets
    its normal PodGroup (`createNormalPodPGIfNotExist`, made here when the files hold none) and the
    annotation. Returns the pod, the Volcano objects and the PodGroup made (None: none made)."""
    ann = (pod.get("metadata") or {}).get("annotations") or {}
    if ann.get(GROUP_NAME_ANNOTATION):
        return pod, volcano, None
    name = podgroup_name(pod)
    pod = copy.deepcopy(pod)
    meta = pod.setdefault("metadata", {})
    meta["annotations"] = dict(meta.get("annotations") or {}, **{GROUP_NAME_ANNOTATION: name})
    ns = meta.get("namespace") or "default"
    if any(o.get("kind") == cache.PODGROUP_KIND and _key(o) == (ns, name) for o in volcano):
        return pod, volcano, None
    return pod, [*volcano, shadow_pod_group(pod, name)], name


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return meta.get("namespace") or "default", meta.get("name") or ""


def session(objects: list[dict[str, Any]], volcano: list[dict[str, Any]], conf: SchedulerConf,
            version: VolcanoVersion = DEFAULT, now: Optional[int] = None
            ) -> tuple[dict[str, Any], Session, cache.ClusterInfo]:
    """One session over the cluster with the pod, the session and its snapshot kept (`run_kept`)."""
    return run_kept(objects, volcano, conf, version, now)


@dataclass(frozen=True)
class Answered:
    """The pod's answer and what the autoscalers read of its session (`app.volcano_chain`): the session's
    document and every pod it read, as it left them (its PodScheduled conditions written)."""

    trace: dict[str, Any]
    doc: dict[str, Any] = field(default_factory=dict)
    pods: list[dict[str, Any]] = field(default_factory=list)


def answer(pod: dict[str, Any], cluster: Pairs, file_objects: Pairs, **kw: Any) -> dict[str, Any]:
    """The pod's answer (`answered`'s trace)."""
    return answered(pod, cluster, file_objects, **kw).trace


def answered(pod: dict[str, Any], cluster: Pairs, file_objects: Pairs, *, stored: bool = False,
             conf: Optional[SchedulerConf] = None, version: VolcanoVersion = DEFAULT,
             unread: Iterable[str] = (), suggestions: bool = True, now: Optional[datetime] = None) -> Answered:
    """The pod's answer: the session over the cluster's objects (admitted unless `stored`; a pod of the
    same name replaced by `pod`, already admitted) and the Volcano objects of both files. `unread`: the
    kinds (plurals) RBAC refused: without PodGroups no session can answer (the pod's own condition
    does); without Queues each queue named is taken as open, said. With `suggestions`, the verified
    fixes of its PodGroup when the session leaves it waiting (`suggest.volcano`, key `volcano.fixes`).
    `now`: the clock of its session and of each fix's (else the wall clock, read once)."""
    conf = conf or default_conf()
    unread = frozenset(unread)
    if "podgroups" in unread:
        return Answered(unread_document(pod, version, conf.actions))
    pod_key = _key(pod)
    every = [*cluster, *file_objects]
    volcano = [copy.deepcopy(o) for o, _ in every if cache.is_volcano_object(o)]
    core = [(o, s) for o, s in cluster if not cache.is_volcano_object(o)
            and not (o.get("kind") == "Pod" and _key(o) == pod_key)]
    objects = [writable(o) for o, _ in admit(core, None, stored=stored).objects]
    pod, volcano, made = with_pod_group(copy.deepcopy(pod), volcano)
    notes = []
    if "queues" in unread:
        volcano, notes = stand_in_queues(volcano)
    clock = session_clock(now)
    base = fixes.pristine([*objects, pod], volcano, conf, version, clock) if suggestions else None
    doc, ssn, snap = session([*objects, pod], volcano, conf, version, clock)
    if notes:
        doc["notes"] = [*notes, *doc.get("notes", [])]
    trace = pod_document(pod, doc, ssn, snap, made, version)
    pg = trace["volcano"].get("podGroup")
    if base is not None and pg is not None and trace["result"]["status"] != "Scheduled" and fixes.waiting(pg):
        trace["volcano"]["fixes"] = fixes.fixes(base, doc, ssn, snap, only=pg["name"])[0]
    return Answered(trace, doc, [o for o in [*objects, pod] if o.get("kind") == "Pod"])


def stand_in_queues(volcano: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The Queues RBAC did not let be read: each one a PodGroup names, open with the defaults of its
    webhook (weight 1, no capability), so that its jobs are not taken for jobs of a missing queue."""
    named = sorted({(o.get("spec") or {}).get("queue") or cache.DEFAULT_QUEUE for o in volcano
                    if o.get("kind") == cache.PODGROUP_KIND})
    stand_ins = [{"apiVersion": f"{cache.VOLCANO_GROUP}/v1beta1", "kind": cache.QUEUE_KIND,
                  "metadata": {"name": q}, "spec": {"weight": 1, "reclaimable": True}, "status": {"state": "Open"}}
                 for q in named]
    note = (f"Volcano's Queues could not be read (RBAC): {', '.join(named)} taken as open, weight 1, without "
            "capability, deserved or guarantee; a queue's quota is not checked")
    return [*volcano, *stand_ins], [note]


def unread_document(pod: dict[str, Any], version: VolcanoVersion, actions: Iterable[str]) -> dict[str, Any]:
    """The answer when Volcano's PodGroups could not be read (RBAC): no session (Volcano schedules a pod
    only with its PodGroup); Volcano's own word instead, the pod's PodScheduled condition as stored."""
    ns, name = _key(pod)
    cond = next((c for c in (pod.get("status") or {}).get("conditions") or ()
                 if isinstance(c, dict) and c.get("type") == "PodScheduled"), None)
    said = (f"Volcano's own word, its PodScheduled condition ({cond.get('reason') or 'no reason'}): "
            f"{cond.get('message') or ''}" if cond else "Volcano has not reported on it (no PodScheduled condition)")
    entry: dict[str, Any] = {"name": f"{ns}/{name}"}
    group = ((pod.get("metadata") or {}).get("annotations") or {}).get(GROUP_NAME_ANNOTATION)
    if group:
        entry["podGroup"] = group
    answer = {"scheduler": line(version, actions), "version": str(version), "pod": entry, "events": [],
              "unread": "podgroups"}
    message = f"Volcano's PodGroups could not be read (RBAC): no session was run; {said}"
    return {"apiVersion": API_VERSION, "kind": KIND, "pod": {"namespace": ns, "name": name},
            "profile": cache.SCHEDULER_NAME, "volcano": answer,
            "result": {"status": "Unschedulable", "selectedNodes": [], "message": message}}


def writable(obj: Any) -> Any:
    """An object the session may write to: a pod Volcano may place or condition copied (the session
    writes its PodScheduled condition; the caller's object, a live pod compared after, stays as read), a
    stored bound pod as plain data; the rest as it is (read only)."""
    if obj.get("kind") != "Pod":
        return obj
    if (obj.get("spec") or {}).get("nodeName"):
        return dict(plain(obj))
    return copy.deepcopy(plain(obj))


def pod_document(pod: dict[str, Any], doc: dict[str, Any], ssn: Session, snap: cache.ClusterInfo,
                 made: Optional[str], version: VolcanoVersion) -> dict[str, Any]:
    """The SchedulingTrace of the Volcano pod: `volcano` holds the session's entries for it (its pod and
    PodGroup entries, its queue's, the events of both) and the predicates per node; `result` the verdict."""
    ns, name = _key(pod)
    group = (pod.get("metadata") or {}).get("annotations", {}).get(GROUP_NAME_ANNOTATION, "")
    entry = next(p for p in doc["pods"] if p["name"] == f"{ns}/{name}")
    pg = next((g for g in doc["podGroups"] if g["name"] == f"{ns}/{group}"), None)
    objects = {f"Pod {ns}/{name}", f"PodGroup {ns}/{group}"}
    answer: dict[str, Any] = {
        "scheduler": line(version, doc["config"]["actions"]), "version": doc["volcano"], "config": doc["config"],
        "pod": entry, "events": [e for e in doc["events"] if e["object"] in objects]}
    if made is not None:
        answer["podGroupMade"] = (f"the pod has no {GROUP_NAME_ANNOTATION} annotation: Volcano's PodGroup "
                                  f"controller makes PodGroup {ns}/{made} for it (minMember 1, queue "
                                  f"{pg['queue'] if pg else cache.DEFAULT_QUEUE}, minResources its requests)")
    if pg is not None:
        answer["podGroup"] = pg
        answer["queue"] = next((q for q in doc["queues"] if q["name"] == pg["queue"]), None)
    skipped = [s["reason"] for s in doc.get("skippedJobs") or () if s["podGroup"] == f"{ns}/{group}"]
    if skipped:
        answer["skipped"] = skipped[0]
    for key in ("notes", "readWarnings"):
        if doc.get(key):
            answer[key] = doc[key]
    nodes = _fit_errors(ssn, snap, f"{ns}/{name}")
    if nodes:
        answer["nodes"] = nodes
    return {"apiVersion": API_VERSION, "kind": KIND, "pod": {"namespace": ns, "name": name},
            "profile": cache.SCHEDULER_NAME, "volcano": answer, "result": _result(answer)}


def _fit_errors(ssn: Session, snap: cache.ClusterInfo, key: str) -> list[dict[str, Any]]:
    """Per node, every reason the predicates gave the task (not only the first), in the nodes' order."""
    task = next((t for t in snap.tasks if t.key == key), None)
    job = ssn.jobs.get(task.job) if task is not None else None
    fe = job.nodes_fit_errors.get(task.uid) if job is not None and task is not None else None
    if fe is None:
        return []
    order = {n.name: i for i, n in enumerate(snap.node_list)}
    return [{"node": n, "reasons": e.reasons()}
            for n, e in sorted(fe.nodes.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))]


def _result(answer: dict[str, Any]) -> dict[str, Any]:
    """The verdict in the SchedulingTrace's words: Scheduled on the node it was bound to (one of several
    when Volcano picks among equals), else Unschedulable with Volcano's own words for why."""
    entry = answer["pod"]
    if entry.get("boundTo"):
        nodes = entry.get("boundToOneOf") or [entry["boundTo"]]
        return {"status": "Scheduled", "selectedNodes": nodes, "message": "", "suggestedHost": entry["boundTo"]}
    return {"status": "Unschedulable", "selectedNodes": [], "message": _why(answer)}


def _why(answer: dict[str, Any]) -> str:
    """Why the pod was not bound, in Volcano's words: its PodScheduled condition, else its PodGroup's
    condition or events (enqueue refused it), else why the session left its job out."""
    entry, pg = answer["pod"], answer.get("podGroup")
    if entry.get("podScheduled", {}).get("message"):
        return entry["podScheduled"]["message"]
    for cond in (pg or {}).get("conditions") or ():
        if cond.get("type") == "Unschedulable" and cond.get("message"):
            return cond["message"]
    pg_events = [e["message"] for e in answer["events"] if e["object"].startswith("PodGroup ")]
    if pg_events:
        return "; ".join(pg_events)
    if answer.get("skipped"):
        return f"Volcano leaves its PodGroup out of the session: {answer['skipped']}"
    if pg is None:
        ns = entry["name"].split("/", 1)[0]
        return (f"PodGroup {ns}/{entry.get('podGroup') or ''} does not exist: Volcano's scheduler cache holds no job for the pod "
                "and does not schedule it")
    return f"PodGroup {pg['name']} is {pg['phase']}: the session did not bind the pod"


def keeps_for_volcano(objects: Iterable[Any]) -> bool:
    """Whether the files call for Volcano's session (the cluster kept for it): a pod of Volcano's, or its
    PodGroups and Queues, among `objects` (objects or (object, Source) pairs)."""
    for item in objects:
        obj = item[0] if isinstance(item, tuple) else item
        if not isinstance(obj, dict):
            continue
        spec = obj.get("spec")
        if cache.is_volcano_object(obj) or (obj.get("kind") == "Pod" and isinstance(spec, dict)
                                            and spec.get("schedulerName") == cache.SCHEDULER_NAME):
            return True
    return False

"""The candidate changes for a job a Volcano session leaves waiting (`suggest.volcano` verifies them): only
those its refusals call for. A smaller gang where some of its tasks found a node (gang.go's
minAvailable, minTaskMember), a larger queue where proportion's capability holds it (or capacity's
deserved), smaller requests where nodes refused it for resources only, a toleration of the taints of a
node, no node selector where nodes did not match it, another open queue where its own is missing,
closed or full. Ideas only, until a session run again starts the job."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Optional

from kexplain.admission.resourcequota import pod_usage
from kexplain.apimachinery import quantity
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskInfo
from kexplain.volcano.cache import ClusterInfo
from kexplain.volcano.framework.session import Session

MAX_QUEUES = 2          # other open queues tried
QUOTA_WORDS = ("queue resource quota insufficient",)      # proportion's enqueue refusal
INSUFFICIENT = "Insufficient "
TAINT_WORDS = "untolerated taint"
SELECTOR_WORDS = "didn't match Pod's node affinity/selector"
REQUIRED_AFFINITY = "requiredDuringSchedulingIgnoredDuringExecution"
Edit = tuple[str, dict[str, Any]]      # (the object it changes, `Kind ns/name`; a JSON-pointer operation)


@dataclass(frozen=True)
class Candidate:
    kind: str
    target: str
    description: str
    edits: tuple[Edit, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "description": self.description,
                "change": [{"object": o, **op} for o, op in self.edits]}


@dataclass(frozen=True)
class JobView:
    """What the session left of one waiting job: its PodGroup, queue, pods and refusals."""

    name: str
    pod_group: dict[str, Any]                # the document's entry
    spec: dict[str, Any]                     # the PodGroup's spec as given
    queue: Any                               # QueueInfo, None when missing
    queue_allocated: Resource
    skipped: str
    pending: list[TaskInfo]                  # its tasks neither bound nor running, in task order
    placeable: dict[str, int]                # per role, tasks bound, running or found a node ("Schedulable")
    on_node: int                             # its tasks bound or running
    reasons: dict[str, dict[str, list[str]]]     # task key -> node -> the predicates' reasons
    events: list[str]
    idle: dict[str, Resource]                # per node, its idle after the session
    node_objs: dict[str, dict[str, Any]]
    queues: dict[str, Any]
    tiers: list[str] = field(default_factory=list)
    ahead: tuple[int, Resource] = (0, Resource())     # the waiting jobs of its queue Volcano orders first, their needs

    @classmethod
    def of(cls, doc: dict[str, Any], ssn: Session, cluster: ClusterInfo, pg: dict[str, Any]) -> "JobView":
        name = pg["name"]
        group = next((g for g in cluster.pod_groups if f"{g.namespace}/{g.name}" == name), None)
        entries = {p["name"]: p for p in doc["pods"]}
        tasks = [t for t in cluster.tasks if t.job == name]
        pending, placeable, on_nodes = [], {}, 0
        for t in tasks:
            e = entries.get(t.key, {})
            on_node = e.get("boundTo") or (e.get("nodeBefore") and not e.get("evicted"))
            if on_node or (e.get("podScheduled") or {}).get("reason") == "Schedulable":
                placeable[t.role] = placeable.get(t.role, 0) + 1
            if on_node:
                on_nodes += 1
            else:
                pending.append(t)
        job = ssn.jobs.get(name)
        reasons = {}
        for t in pending:
            fe = job.nodes_fit_errors.get(t.uid) if job is not None else None
            if fe is not None:
                reasons[t.key] = {n: e.reasons() for n, e in fe.nodes.items()}
        allocated = next((q["allocated"] for q in doc["queues"] if q["name"] == pg["queue"]), {})
        skipped = next((s["reason"] for s in doc.get("skippedJobs") or () if s["podGroup"] == name), "")
        return cls(name, pg, dict((group.obj.get("spec") or {}) if group is not None else {}),
                   cluster.queues.get(pg["queue"]), Resource.of(allocated), skipped, pending, placeable, on_nodes,
                   reasons,
                   [e["message"] for e in doc["events"] if e["object"] == f"PodGroup {name}"],
                   {n.name: n.idle.clone() for n in ssn.node_list},
                   {n.name: n.node for n in cluster.node_list if n.node is not None},
                   cluster.queues, [p.name for tier in ssn.conf.tiers for p in tier], _ahead(doc, ssn, pg))

    @property
    def pod_group_ref(self) -> str:
        return f"PodGroup {self.name}"

    def all_reasons(self) -> list[str]:
        return [r for nodes in self.reasons.values() for rs in nodes.values() for r in rs]


def _ahead(doc: dict[str, Any], ssn: Session, pg: dict[str, Any]) -> tuple[int, Resource]:
    """The other waiting jobs of the job's queue that Volcano's job order puts first, and what they ask
    (their minResources, else their pending tasks' requests): a queue raised for this job alone lets
    them start, not it."""
    job = ssn.jobs.get(pg["name"])
    if job is None:
        return 0, Resource()
    count, need = 0, Resource()
    for other in doc["podGroups"]:
        waits = other["phase"] == "Pending" or any(c["type"] == "Unschedulable" for c in other.get("conditions") or ())
        j = ssn.jobs.get(other["name"])
        if other["name"] == pg["name"] or other["queue"] != pg["queue"] or not waits or j is None \
                or not ssn.job_order_less(j, job):
            continue
        count += 1
        mr = j.pod_group.min_resources if j.pod_group is not None else None
        if mr:
            need.add(Resource.of(mr))
        else:
            for t in j.tasks.values():
                if not t.node_name:
                    need.add(t.resreq)
    return count, need


def candidates(view: JobView) -> list[Candidate]:
    """The changes to try, smallest first: the gang, the queue, the requests, the pods' placement, the queue moved."""
    out: list[Candidate] = []
    for make in (lower_min_member, raise_queue, lower_requests, add_tolerations, drop_node_selector, other_queues):
        out += make(view)
    return out


def lower_min_member(view: JobView) -> list[Candidate]:
    """minMember (and each role's minTaskMember) down to the tasks that found a node this session; for a
    job enqueue refused (no task tried), to the tasks the nodes' free room holds, its minResources theirs."""
    fits = sum(view.placeable.values())
    min_member = view.pod_group["minMember"]
    if fits < 1 and view.pod_group["phase"] == "Pending" and view.spec.get("minResources"):
        return _smaller_enqueued(view)
    if fits < 1 or fits >= min_member:
        return []
    edits: list[Edit] = [(view.pod_group_ref, {"op": "replace", "path": "/spec/minMember", "value": fits})]
    lowered = [f"minMember {min_member} -> {fits}"]
    for role, n in sorted((view.spec.get("minTaskMember") or {}).items()):
        if isinstance(n, int) and n > view.placeable.get(role, 0):
            edits.append((view.pod_group_ref, {"op": "replace", "path": f"/spec/minTaskMember/{_escape(role)}",
                                               "value": view.placeable.get(role, 0)}))
            lowered.append(f"minTaskMember[{role}] {n} -> {view.placeable.get(role, 0)}")
    return [Candidate("lower-min-member", view.pod_group_ref,
                      f"lower the gang to the {fits} task(s) that found a node: {', '.join(lowered)}", tuple(edits))]


def _smaller_enqueued(view: JobView) -> list[Candidate]:
    """The most of its tasks (the largest first) whose requests the nodes' free room adds up to, as the
    gang and its minResources (what enqueue's overcommit and proportion weigh)."""
    room = Resource()
    for idle in view.idle.values():
        room.add(idle)
    tasks = sorted(view.pending, key=lambda t: -t.resreq.milli_cpu)
    need, n = Resource(), 0
    for t in tasks[:view.pod_group["minMember"] - 1]:
        if not need.clone().add(t.resreq).less_equal(room):
            break
        need.add(t.resreq)
        n += 1
    return [_gang_of(view, tasks[:m]) for m in sorted({n, 3 * n // 4, n // 2, n // 4} - {0}, reverse=True)]


def _gang_of(view: JobView, tasks: list[TaskInfo]) -> Candidate:
    """The gang of `tasks`: minMember their count, minResources their requests; a name of the quota
    evaluator's the PodGroup's minResources holds (`requests.cpu`, `count/pods`: what Volcano's job
    controller writes, and what the resourcequota plugin weighs) summed from the tasks' quota usage."""
    need = Resource()
    usage: dict[str, Any] = {}
    for t in tasks:
        need.add(t.resreq)
        for name, q in pod_usage(t.pod).items():
            usage[name] = usage.get(name, 0) + q.value
    names = sorted(set(view.spec["minResources"]) | {"cpu", "memory"})
    resources = {r: _format(r, need.get(r)) for r in names if need.get(r) > 0}
    resources.update({r: quantity.canonical(quantity.Quantity(usage[r])) for r in names
                      if r not in resources and r not in ("cpu", "memory") and usage.get(r)})
    resources = {r: resources[r] for r in names if r in resources}
    n = len(tasks)
    edits: tuple[Edit, ...] = ((view.pod_group_ref, {"op": "replace", "path": "/spec/minMember", "value": n}),
                               (view.pod_group_ref, {"op": "replace", "path": "/spec/minResources", "value": resources}))
    words = ", ".join(f"{r} {v}" for r, v in resources.items())
    return Candidate("lower-min-member", view.pod_group_ref,
                     f"lower the gang to {n} task(s), what enqueue weighs as its minResources: minMember "
                     f"{view.pod_group['minMember']} -> {n}, minResources {words}", edits)


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _need(view: JobView) -> Resource:
    """What the job needs to start: its pending tasks' requests up to its minMember (the largest first),
    at least its minResources."""
    count = _count(view)
    need = Resource()
    for t in sorted(view.pending, key=lambda t: -t.resreq.milli_cpu)[:count]:
        need.add(t.resreq)
    need.set_max(Resource.of(view.spec.get("minResources")))
    return need


def _count(view: JobView) -> int:
    """The tasks the job still has to place to start: its minMember less those on a node (at least one)."""
    return max(view.pod_group["minMember"] - view.on_node, 1)


def raise_queue(view: JobView) -> list[Candidate]:
    """The queue's capability (proportion, capacity) or deserved (capacity) raised to its allocated plus
    what the job needs, in the dimensions where that is more."""
    q = view.queue
    if q is None or not ({"proportion", "capacity"} & set(view.tiers)):
        return []
    own = view.queue_allocated.clone().add(_need(view))
    targets = [(own, "what it holds and the job needs")]
    if view.ahead[0]:
        targets.append((own.clone().add(view.ahead[1]), f"what it holds, the {view.ahead[0]} waiting job(s) "
                                                        "Volcano orders before this one and the job need"))
    out = []
    for key, kind in (("capability", "raise-queue-capability"), ("deserved", "raise-queue-deserved")):
        limits = getattr(q, key)
        if not limits or (key == "deserved" and "capacity" not in view.tiers):     # (proportion computes its own)
            continue
        have = Resource.of(limits)
        for target, what in targets:
            raised = {r: _format(r, target.get(r)) for r in limits if target.get(r) > have.get(r)}
            if not raised:
                continue
            edits = tuple((f"Queue {q.name}", {"op": "replace", "path": f"/spec/{key}/{_escape(r)}", "value": v})
                          for r, v in sorted(raised.items()))
            words = ", ".join(f"{r} {limits[r]} -> {v}" for r, v in sorted(raised.items()))
            out.append(Candidate(kind, f"Queue {q.name}", f"raise queue {q.name}'s {key} to {what}: {words}", edits))
    return out


def _format(resource: str, value: float) -> str:
    """A Volcano quantity (cpu and scalars in milli, memory in bytes, pods a count) as a manifest writes it."""
    if resource == "memory":
        whole = math.ceil(value)
        for unit, size in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
            if whole % size == 0:
                return f"{whole // size}{unit}"
        return str(whole)
    if resource == "pods":
        return str(math.ceil(value))
    milli = math.ceil(value)
    return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"


def _only_resources(reasons: list[str]) -> bool:
    return all(r.startswith(INSUFFICIENT) for r in reasons)


def lower_requests(view: JobView) -> list[Candidate]:
    """Each pending task's request of a resource nodes lack, down to what the nodes refusing it for
    resources alone (or not at all) can hold, enough of them for the gang."""
    if not view.pending:
        return []
    short = sorted({r[len(INSUFFICIENT):] for r in view.all_reasons() if r.startswith(INSUFFICIENT)}
                   | _larger_than_any_node(view))
    refused = {n for nodes in view.reasons.values() for n, rs in nodes.items() if not _only_resources(rs)}
    open_nodes = [n for n in view.idle if n not in refused]
    count = _count(view)
    out = []
    for resource in short:
        want = max(t.resreq.get(resource) for t in view.pending)
        fit = _largest_fitting([view.idle[n].get(resource) for n in open_nodes], count)
        if fit is None or fit <= 0 or fit >= want:
            continue
        edits = tuple(e for t in view.pending for e in _request_edits(t, resource, fit))
        if not edits:
            continue
        out.append(Candidate("lower-request", f"pods of PodGroup {view.name}",
                             f"lower each pending task's {resource} request to {_format(resource, fit)} (from "
                             f"{_format(resource, want)}): {count} task(s) then fit the nodes' free room", edits))
    return out


def _larger_than_any_node(view: JobView) -> set[str]:
    """The resources of which a pending task asks more than any node has free (proportion's allocatable
    refuses such a task before any predicate runs: no reason of a node says it)."""
    names = {r for t in view.pending for r in ("cpu", "memory", *(t.resreq.scalars or {})) if r != "pods"}
    return {r for r in names
            if max(t.resreq.get(r) for t in view.pending) > max((i.get(r) for i in view.idle.values()), default=0)}


def _largest_fitting(idle: list[float], count: int) -> Optional[float]:
    """The largest per-task amount such that `count` tasks fit the nodes' `idle` (each node taking
    floor(idle / amount) of them)."""
    best = None
    for free in idle:
        for m in range(1, count + 1):
            amount = math.floor(free / m)
            if amount > 0 and sum(math.floor(i / amount) for i in idle) >= count and (best is None or amount > best):
                best = amount
    return best


def _request_edits(task: TaskInfo, resource: str, amount: float) -> list[Edit]:
    """The task's containers' requests of `resource` scaled so that they add up to `amount`."""
    containers = (task.pod.get("spec") or {}).get("containers") or []
    total = task.resreq.get(resource)
    if total <= amount:
        return []
    out = []
    for i, c in enumerate(containers):
        raw = ((c.get("resources") or {}).get("requests") or {}).get(resource)
        if raw is None:
            continue
        share = Resource.of({resource: raw}).get(resource)
        value = _format(resource, math.floor(share * amount / total))
        out.append((f"Pod {task.key}", {"op": "replace", "path": f"/spec/containers/{i}/resources/requests/"
                                        f"{_escape(resource)}", "value": value}))
    return out


def add_tolerations(view: JobView) -> list[Candidate]:
    """Tolerations of the taints of the node that refused the job for taints with the fewest of them."""
    tainted = sorted({n for nodes in view.reasons.values() for n, rs in nodes.items()
                      if any(TAINT_WORDS in r for r in rs)})
    best: Optional[tuple[str, list[dict[str, Any]]]] = None
    for n in tainted:
        taints = [t for t in ((view.node_objs.get(n) or {}).get("spec") or {}).get("taints") or ()
                  if t.get("effect") in ("NoSchedule", "NoExecute") and not _tolerated(view, t)]
        if taints and (best is None or len(taints) < len(best[1])):
            best = (n, taints)
    if best is None:
        return []
    node, taints = best
    tolerations = [{k: v for k, v in (("key", t.get("key")), ("operator", "Equal" if t.get("value") else "Exists"),
                                      ("value", t.get("value")), ("effect", t.get("effect"))) if v}
                   for t in taints]
    edits = tuple((f"Pod {task.key}", {"op": "add", "path": "/spec/tolerations/-", "value": tol})
                  for task in view.pending for tol in tolerations)
    words = ", ".join(f"{t.get('key')}{'=' + t['value'] if t.get('value') else ''}:{t.get('effect')}" for t in taints)
    return [Candidate("add-toleration", f"pods of PodGroup {view.name}",
                      f"tolerate node {node}'s taints on each pending task: {words}", edits)]


def _tolerated(view: JobView, taint: dict[str, Any]) -> bool:
    """Whether every pending task tolerates the taint already (key, value, effect; Exists)."""
    for task in view.pending:
        tols = (task.pod.get("spec") or {}).get("tolerations") or ()
        if not any(_tolerates(t, taint) for t in tols):
            return False
    return True


def _tolerates(tol: dict[str, Any], taint: dict[str, Any]) -> bool:
    if tol.get("effect") and tol.get("effect") != taint.get("effect"):
        return False
    if not tol.get("key"):
        return tol.get("operator") == "Exists"
    if tol.get("key") != taint.get("key"):
        return False
    return tol.get("operator") == "Exists" or (tol.get("value") or "") == (taint.get("value") or "")


def drop_node_selector(view: JobView) -> list[Candidate]:
    """The pending tasks' nodeSelector and required node affinity removed, where nodes did not match them."""
    if not any(SELECTOR_WORDS in r for r in view.all_reasons()):
        return []
    edits: list[Edit] = []
    words: set[str] = set()
    for task in view.pending:
        spec = task.pod.get("spec") or {}
        if spec.get("nodeSelector"):
            edits.append((f"Pod {task.key}", {"op": "remove", "path": "/spec/nodeSelector"}))
            words.add("nodeSelector " + ", ".join(f"{k}={v}" for k, v in sorted(spec["nodeSelector"].items())))
        if ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(REQUIRED_AFFINITY):
            edits.append((f"Pod {task.key}", {"op": "remove",
                                              "path": f"/spec/affinity/nodeAffinity/{REQUIRED_AFFINITY}"}))
            words.add("its required node affinity")
    if not edits:
        return []
    return [Candidate("drop-node-selector", f"pods of PodGroup {view.name}",
                      f"drop each pending task's {' and '.join(sorted(words))}", tuple(edits))]


def other_queues(view: JobView) -> list[Candidate]:
    """The PodGroup moved to another open queue, where its own is missing, not open or holds it back."""
    own = view.pod_group["queue"]
    queue_bound = (view.skipped or view.queue is None or view.queue.state != "Open"
                   or any(w in e for e in view.events for w in QUOTA_WORDS))
    if not queue_bound:
        return []
    open_queues = sorted(q.name for q in view.queues.values() if q.state == "Open" and q.name not in (own, "root"))
    return [Candidate("another-queue", view.pod_group_ref,
                      f"move the PodGroup from queue {own} to the open queue {q}",
                      ((view.pod_group_ref, {"op": "replace", "path": "/spec/queue", "value": q}),))
            for q in open_queues[:MAX_QUEUES]]

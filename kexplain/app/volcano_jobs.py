"""The Volcano Jobs (`batch.volcano.sh/v1alpha1`) among `kexplain volcano`'s inputs, made into what
Volcano's job controller makes of them (`controllers.volcanojob`): their PodGroups and, once Volcano's
enqueue moves a PodGroup past Pending, their pods; then each Job's answer read back from the session's
document, grouped as the user wrote it (the Job, its tasks, their pods, the PodGroup's verdict: users
touch the Job, not its PodGroup, volcano-sh/volcano#3834).

The controller creates a Job's pods only once its PodGroup is Inqueue (syncJob); the session's enqueue
decides that. `pods_for` gives the pods of the Jobs not known to wait; the caller runs the session
again without the pods of the Jobs whose PodGroup stayed Pending (enqueue reads a PodGroup's
minResources, not its pods, so that run decides the same), so that a waiting Job's PodGroup is
answered as Volcano answers it: without pods. A Job enqueued has its pods allocated in the same
session here; Volcano allocates them in its next one, over the same cluster."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from kexplain.controllers.templates import mapping
from kexplain.controllers.volcanojob import Made, is_volcano_job, volcano_jobs
from kexplain.controllers.volcanojob_admission import as_int, tasks_of
from kexplain.errors import Source

Pairs = list[tuple[dict[str, Any], Any]]        # (object, Source) as the files were read
PENDING = "Pending"


def key_of(obj: Mapping[str, Any]) -> str:
    meta = mapping(obj.get("metadata"))
    return f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"


@dataclass(frozen=True)
class JobMade:
    """One Job of the inputs as Volcano leaves it, with where it was read and whether the user
    submitted it (a positional FILE) or it was among the cluster's objects."""

    made: Made
    source: Any
    submitted: bool

    @property
    def key(self) -> str:
        return key_of(self.made.job)

    @property
    def pod_group(self) -> str:
        pg = self.made.pod_group
        return key_of(pg) if pg is not None else ""


@dataclass(frozen=True)
class Jobs:
    """Every Job made (`each`), the PodGroups to add to Volcano's objects, those among them the
    controller updates (`updated`, by namespace/name: createOrUpdatePodGroup finds one) and the claims
    the controller creates."""

    each: tuple[JobMade, ...] = ()
    pod_groups: tuple[dict[str, Any], ...] = ()
    claims: Pairs = field(default_factory=list)
    updated: Mapping[str, dict[str, Any]] = field(default_factory=dict)

    def pods_for(self, waiting: frozenset[str], existing: frozenset[str]) -> Pairs:
        """The pods the controller has created: those of every Job made but the ones whose PodGroup
        `waiting` names (Pending), a pod already among the inputs (`existing`) kept as it is."""
        return [(pod, jm.source) for jm in self.each if jm.made.pod_group is not None and jm.pod_group not in waiting
                for pod in jm.made.pods if key_of(pod) not in existing]

    def volcano(self, objects: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Volcano's objects with the Jobs' PodGroups: the ones found updated, the others added."""
        return [*(self.updated.get(key_of(o), o) if o.get("kind") == "PodGroup" else o for o in objects),
                *self.pod_groups]


def make(submitted: Pairs, cluster: Pairs, volcano: Iterable[dict[str, Any]]) -> Jobs:
    """The Jobs of `submitted` (the FILE arguments) and `cluster` (`--nodes`) through the webhooks and
    the job controller, read with the Queues, PriorityClasses and claims of both. InputError (its file
    and field) for a Job that would not decode."""
    every = [*submitted, *cluster]
    sources = {id(o): s for o, s in every}
    ids = {id(o) for o, _ in submitted}
    made = volcano_jobs([o for o, _ in every], lambda o: sources.get(id(o)))
    jobs = [o for o, _ in every if is_volcano_job(o)]
    each = tuple(JobMade(m, sources[id(o)], id(o) in ids) for m, o in zip(made, jobs))
    have = {key_of(o): o for o in volcano if o.get("kind") == "PodGroup"}
    groups, updated = [], {}
    for jm in each:
        pg = jm.made.pod_group
        if pg is None:
            continue
        if jm.pod_group in have:
            updated[jm.pod_group] = updated_pod_group(have[jm.pod_group], pg)
            continue
        created = mapping(jm.made.job.get("metadata")).get("creationTimestamp")
        if created:     # made as the Job is seen: its creation time (the API server's clock) is the Job's
            pg = {**pg, "metadata": {**pg["metadata"], "creationTimestamp": created}}
        groups.append(pg)
    claims = [(c, jm.source) for jm in each for c in jm.made.claims]
    return Jobs(each, tuple(groups), claims, updated)


def updated_pod_group(found: Mapping[str, Any], made: Mapping[str, Any]) -> dict[str, Any]:
    """shouldUpdateExistingPodGroup: the PodGroup found with the Job's priority class, minMember,
    minResources, each task's minTaskMember and sub-group policies; its queue and status kept."""
    spec, new = dict(mapping(found.get("spec"))), mapping(made.get("spec"))
    for key in ("priorityClassName", "minMember", "minResources", "subGroupPolicy"):
        if key in new:
            spec[key] = new[key]
        else:
            spec.pop(key, None)
    spec["minTaskMember"] = {**mapping(spec.get("minTaskMember")), **mapping(new.get("minTaskMember"))}
    return {**found, "spec": spec}


def waiting_pod_groups(doc: Mapping[str, Any], jobs: Jobs) -> frozenset[str]:
    """The Jobs' PodGroups Pending before the session and after it (enqueue did not admit them): the
    controller has not created their pods. (One past Pending before has its pods: the controller made
    them when it was enqueued, whatever phase this session leaves it in.)"""
    mine = {jm.pod_group for jm in jobs.each if jm.pod_group}
    return frozenset(pg["name"] for pg in doc.get("podGroups") or ()
                     if pg["name"] in mine and _waits_for_enqueue(pg))


def _waits_for_enqueue(pg: Mapping[str, Any]) -> bool:
    return pg["phaseBefore"] == PENDING and pg["phase"] == PENDING


# -- each Job's answer ------------------------------------------------------------------------
def _task(task: Mapping[str, Any], pods: Mapping[str, Mapping[str, Any]], namespace: str, job: str,
          created: bool, refused: Mapping[str, str]) -> dict[str, Any]:
    name = str(task.get("name") or "")
    out: dict[str, Any] = {"name": name, "replicas": as_int(task.get("replicas"))}
    if task.get("minAvailable") is not None:
        out["minAvailable"] = as_int(task["minAvailable"])
    names = [f"{namespace}/{job}-{name}-{i}" for i in range(as_int(task.get("replicas")))]
    if created:
        out["pods"] = [dict(pods.get(n) or {"name": n, **({"notCreated": refused[n]} if n in refused else {})})
                       for n in names]
    else:
        out["podNames"] = names
    return out


def _verdict(pg: Mapping[str, Any] | None) -> str:
    """The PodGroup's word: its Unschedulable condition, else its phase."""
    if pg is None:
        return ""
    for cond in pg.get("conditions") or ():
        if cond.get("type") == "Unschedulable" and cond.get("status") == "True":
            return str(cond.get("message") or cond.get("reason") or "")
    return ""


def answer(jm: JobMade, doc: Mapping[str, Any], refused: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One Job's entry: its tasks and pods (a pod the API server refused, `refused` by namespace/name:
    not created, its message), its PodGroup's phase and verdict, the webhook's refusal or why the
    controller stopped, what is not modelled."""
    made, job = jm.made, jm.made.job
    namespace, name = jm.key.split("/", 1)
    spec = mapping(job.get("spec"))
    out: dict[str, Any] = {"name": jm.key, "source": str(jm.source) if isinstance(jm.source, Source) else "",
                           "submitted": jm.submitted, "queue": spec.get("queue") or "",
                           "minAvailable": as_int(spec.get("minAvailable"))}
    if made.refused:
        out["refused"] = made.refused
        return out
    if made.waiting:
        out["waiting"] = made.waiting
    pg = next((g for g in doc.get("podGroups") or () if g["name"] == jm.pod_group), None)
    created = pg is not None and not _waits_for_enqueue(pg)
    if jm.pod_group:
        out["podGroup"] = jm.pod_group
    if pg is not None:
        out["phaseBefore"], out["phase"] = pg["phaseBefore"], pg["phase"]
        out["podsCreated"] = created
        if _verdict(pg):
            out["verdict"] = _verdict(pg)
        said = [f"{e['type']} {e['reason']}: {e['message']}" for e in doc.get("events") or ()
                if e["object"] == f"PodGroup {jm.pod_group}"]
        if said:
            out["events"] = said
        skipped = [s["reason"] for s in doc.get("skippedJobs") or () if s["podGroup"] == jm.pod_group]
        if skipped:
            out["skipped"] = skipped[0]
    pods = {p["name"]: p for p in doc.get("pods") or ()}
    out["tasks"] = [_task(t, pods, namespace, name, created, refused or {}) for t in tasks_of(job)]
    if made.claims:
        out["claimsMade"] = [key_of(c) for c in made.claims]
    if made.unmodelled:
        out["unmodelled"] = list(made.unmodelled)
    return out


def answers(jobs: Jobs, doc: Mapping[str, Any], refused: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    return [answer(jm, doc, refused) for jm in jobs.each]


def waits(entry: Mapping[str, Any]) -> bool:
    """Whether the Job waits: refused, its controller stopped, its PodGroup left out or not enqueued, or
    a pod of it not bound (its PodGroup's phase aside: getPodGroupPhase counts Binding tasks as not
    scheduled yet, so a PodGroup whose pods this session binds may say Pending until the next one)."""
    if entry.get("refused") or entry.get("waiting") or entry.get("skipped") or entry.get("podsCreated") is False:
        return True
    return any(not (p.get("boundTo") or p.get("nodeBefore")) for t in entry.get("tasks") or () for p in t.get("pods") or ())

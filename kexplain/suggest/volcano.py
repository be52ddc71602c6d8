"""Verified fixes for the PodGroups a Volcano session leaves waiting (issue 93, item 4): per job, the few
changes its refusals call for (a smaller gang, a larger queue, smaller requests, a toleration, no node
selector, another open queue), each run through the session again (`volcano.run.run_session`) and kept
only when the job then starts; and what the session's preempt and reclaim evicted for it. Bounded: the
first `MAX_JOBS` waiting jobs, at most `MAX_RERUNS` sessions each and `MAX_SESSIONS` in all (a session
over a thousand nodes takes seconds: the answer must not take many minutes). The document's key `fixes`, which no
Volcano document of Volcano's own has (the yardstick does not compare it)."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Iterable, Optional

from kexplain.suggest.change import apply_ops
from kexplain.suggest.volcano_candidates import Candidate, JobView, candidates
from kexplain.volcano.api.task import TaskStatus
from kexplain.volcano.cache import ClusterInfo, PODGROUP_KIND, QUEUE_KIND
from kexplain.volcano.conf import SchedulerConf
from kexplain.volcano.framework.session import Session
from kexplain.volcano.run import run_session
from kexplain.volcano.versions import DEFAULT, VolcanoVersion

MAX_JOBS = 10       # waiting jobs given fixes in one document (the rest said)
MAX_RERUNS = 8      # sessions run again per job
MAX_SESSIONS = 16   # sessions run again for the whole document
EVICTING = ("preempt", "reclaim", "gangpreempt", "gangreclaim")
EVICTED_BECAUSE = "Pod is evicted, because of "
ALTERNATIVES = frozenset({"another-queue"})     # kinds whose candidates are each a fix of its own


@dataclass(frozen=True)
class Pristine:
    """The session's inputs as they were before it ran (it writes its conditions into the pods): what
    each candidate is applied to."""

    objects: list[dict[str, Any]]
    volcano: list[dict[str, Any]]
    conf: SchedulerConf
    version: VolcanoVersion = DEFAULT
    now: int | None = None      # the session's clock, the same for every rerun (None: the wall clock)


def pristine(objects: list[dict[str, Any]], volcano: list[dict[str, Any]], conf: SchedulerConf,
             version: VolcanoVersion = DEFAULT, now: int | None = None) -> Pristine:
    """Copies of what a session writes to (pods, PodGroups, Queues); the rest shared, read only."""
    return Pristine([copy.deepcopy(o) if o.get("kind") == "Pod" else o for o in objects],
                    [copy.deepcopy(o) for o in volcano], conf, version, now)


def waiting(pg: dict[str, Any]) -> bool:
    """A PodGroup the session leaves waiting (`kexplain volcano`'s exit 1): Pending, or with an
    Unschedulable condition."""
    return pg["phase"] == "Pending" or (pg["phase"] == "Inqueue" and any(
        c["type"] == "Unschedulable" for c in pg.get("conditions") or ()))


def fixes(base: Pristine, doc: dict[str, Any], ssn: Session, cluster: ClusterInfo,
          only: Optional[str] = None) -> list[dict[str, Any]]:
    """The `fixes` entries of the document: one per waiting PodGroup (`only`: that one alone)."""
    groups = [pg for pg in doc["podGroups"] if waiting(pg) and (only is None or pg["name"] == only)]
    out = []
    left = MAX_SESSIONS
    for i, pg in enumerate(groups):
        if i >= MAX_JOBS or left <= 0:
            why = (f"only the first {MAX_JOBS} waiting PodGroups are given fixes" if i >= MAX_JOBS
                   else f"kexplain runs the session again at most {MAX_SESSIONS} times for one answer, used up")
            out.append({"podGroup": pg["name"], "notTried": f"{why} (each fix runs the session again)"})
            continue
        entry, used = job_fixes(base, doc, ssn, cluster, pg, min(MAX_RERUNS, left))
        left -= used
        out.append(entry)
    return out


def job_fixes(base: Pristine, doc: dict[str, Any], ssn: Session, cluster: ClusterInfo,
              pg: dict[str, Any], reruns: int = MAX_RERUNS) -> tuple[dict[str, Any], int]:
    """One job's entry (its verified fixes, the candidates that did not start it, its evictions) and
    how many sessions it ran again (at most `reruns`)."""
    view = JobView.of(doc, ssn, cluster, pg)
    found: list[dict[str, Any]] = []
    tried: list[str] = []
    done: set[str] = set()
    used = 0
    for cand in candidates(view)[:reruns]:
        if cand.kind in done and cand.kind not in ALTERNATIVES:     # (a larger step of a change that works)
            continue
        used += 1
        rerun = run_session(*_applied(base, cand), base.conf, base.version, base.now)
        verdict = started(rerun, pg["name"])
        if verdict is None:
            tried.append(cand.description)
            continue
        done.add(cand.kind)
        found.append({**cand.to_json(), "verified": {**verdict, "displaces": displaced(doc, rerun, pg["name"])}})
    evicted = evictions(base.conf, ssn, pg)
    entry: dict[str, Any] = {"podGroup": pg["name"], "suggestions": found, "evictions": evicted}
    if tried:
        entry["triedNotEnough"] = tried
    if not found:
        entry["none"] = ("its tasks are pipelined: they start once the pods evicted for them are gone"
                         if evicted.get("pipelined") and evicted.get("evicted")
                         else "no change kexplain tries starts the job in one session" if tried
                         else "kexplain has no change to try for its refusals")
    return entry, used


def _applied(base: Pristine, cand: Candidate) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Fresh copies of the inputs with the candidate's operations applied to the objects they name."""
    edits: dict[str, list[dict[str, Any]]] = {}
    for obj_ref, op in cand.edits:
        edits.setdefault(obj_ref, []).append(op)

    def one(obj: dict[str, Any]) -> dict[str, Any]:
        ops = edits.get(ref(obj))
        if ops:
            return apply_ops(obj, ops)
        return copy.deepcopy(obj) if obj.get("kind") in ("Pod", PODGROUP_KIND, QUEUE_KIND) else obj
    return [one(o) for o in base.objects], [one(o) for o in base.volcano]


def ref(obj: dict[str, Any]) -> str:
    """`Kind namespace/name` (a Queue: `Queue name`), as a candidate names the object it changes."""
    meta = obj.get("metadata") or {}
    if obj.get("kind") == QUEUE_KIND:
        return f"Queue {meta.get('name', '')}"
    return f"{obj.get('kind')} {meta.get('namespace') or 'default'}/{meta.get('name', '')}"


def _job_pods(doc: dict[str, Any], name: str) -> list[dict[str, Any]]:
    ns, _, group = name.partition("/")
    return [p for p in doc["pods"] if p.get("podGroup") == group and p["name"].split("/", 1)[0] == ns]


def started(rerun: dict[str, Any], name: str) -> Optional[dict[str, Any]]:
    """Whether the job starts in the session run again: some pod of it bound, and its bound and running
    pods at least its minMember; the pods bound (None: it does not start)."""
    pg = next((g for g in rerun["podGroups"] if g["name"] == name), None)
    if pg is None:
        return None
    pods = _job_pods(rerun, name)
    bound = [p["name"] for p in pods if p.get("boundTo")]
    running = [p for p in pods if p.get("nodeBefore") and not p.get("evicted")]
    if not bound or len(bound) + len(running) < max(pg["minMember"], 1):
        return None
    return {"phase": pg["phase"], "podsBound": {p["name"]: p.get("boundToOneOf") or p["boundTo"]
                                                for p in pods if p.get("boundTo")}}


def displaced(before: dict[str, Any], rerun: dict[str, Any], name: str) -> list[str]:
    """The other PodGroups that had pods bound this session and have none with the change."""
    out = []
    for pg in before["podGroups"]:
        if pg["name"] == name or not any(p.get("boundTo") for p in _job_pods(before, pg["name"])):
            continue
        if not any(p.get("boundTo") for p in _job_pods(rerun, pg["name"])):
            out.append(pg["name"])
    return out


def evictions(conf: SchedulerConf, ssn: Session, pg: dict[str, Any]) -> dict[str, Any]:
    """What the evicting actions (preempt, reclaim, gangpreempt, gangreclaim) evicted for the job this
    session, each named by its eviction's reason (and where its tasks wait for the room), or that the
    configuration runs none of them."""
    configured = [a for a in conf.actions if a in EVICTING]
    if not configured:
        return {"configured": [], "says": (f"preempt, reclaim, gangpreempt and gangreclaim are not in the configuration's actions "
                                           f"({', '.join(conf.actions)}): Volcano evicts nothing for it")}
    job = ssn.jobs.get(pg["name"])
    victims = sorted(_task_key(ssn, uid) for uid, j in ssn.evicted_for.items() if j == pg["name"])
    pipelined = {t.key: t.node_name for t in (job.tasks.values() if job is not None else ())
                 if t.status == TaskStatus.PIPELINED}
    if victims:
        by = _evicted_by(ssn, victims)
        says = (f"{' and '.join(a for a in configured if a in by)} evicted {', '.join(victims)} for it; pipelined, "
                "waiting for the room they free: " + ", ".join(f"{k} on {n}" for k, n in sorted(pipelined.items())))
    else:
        says = f"{' and '.join(configured)} ran and evicted nothing for it this session"
    spared = _spared(ssn, pg["name"])
    if spared:
        says += "; " + "; ".join(f"{plugin} kept {task}: {why}" for task, (plugin, why) in sorted(spared.items()))
    out: dict[str, Any] = {"configured": configured, "evicted": victims, "says": says}
    if spared:
        out["spared"] = [{"pod": task, "plugin": plugin, "reason": why} for task, (plugin, why) in sorted(spared.items())]
    if pipelined:
        out["pipelined"] = dict(sorted(pipelined.items()))
    return out


def _evicted_by(ssn: Session, victims: list[str]) -> set[str]:
    """The actions that evicted the victims: the reason of each one's Evict event (cache.Evict's)."""
    objects = {f"Pod {k}" for k in victims}
    return {e.message.removeprefix(EVICTED_BECAUSE) for e in ssn.events
            if e.reason == "Evict" and e.obj in objects and e.message.startswith(EVICTED_BECAUSE)}


def _spared(ssn: Session, job: str) -> dict[str, tuple[str, str]]:
    """The tasks a plugin kept out of preempt's and reclaim's victims for the job (pdb, cdp: their record),
    but those evicted after all."""
    evicted = {_task_key(ssn, uid) for uid in ssn.evicted}
    out: dict[str, tuple[str, str]] = {}
    for name, plugin in ssn.plugins.items():
        for task, why in (getattr(plugin, "spared", None) or {}).get(job, {}).items():
            if task not in evicted:
                out.setdefault(task, (name, why))
    return out


def _task_key(ssn: Session, uid: str) -> str:
    for job in ssn.jobs.values():
        t = job.tasks.get(uid)
        if t is not None:
            return t.key
    return uid


def for_pod_group(entries: Iterable[dict[str, Any]], name: str) -> Optional[dict[str, Any]]:
    return next((e for e in entries if e["podGroup"] == name), None)

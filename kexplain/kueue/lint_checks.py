"""What lint asks of Kueue (rules `kueue-local-queue` and `kueue-never-fits`), and the Jobs, Pods and
JobSets Kueue admits as Kueue starts them (`Checked.started`), which lint schedules."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from kexplain.apimachinery.quantity import parse_quantity
from kexplain.kueue.objects import ADMITTED, READ_KINDS, Objects, is_kueue, kind_of, managed, meta_of, of_kinds

LOCAL_QUEUE = "kueue-local-queue"
NEVER_FITS = "kueue-never-fits"
SAID = ("kueueVersion", "workload", "verdict", "clusterQueue", "podSets")     # the answer a verdict carries
Problem = tuple[int, str, str, dict[str, Any]]


@dataclass(frozen=True)
class Started:
    """A Job or Pod of the set as Kueue starts it once admitted, or a JobSet as the Jobs it makes; and
    Kueue's answer for it."""

    made: tuple[dict[str, Any], ...]
    answer: dict[str, Any]
    # Kueue's answer as the verdict on each of `made` carries it: a JobSet's Job also names
    # itself and its pod set (its replicated job), the JobSet's verdict being one per Job
    said: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Checked:
    """Kueue's one pass over a set: its problems, and what it admits as started (by object index)."""

    problems: list[Problem] = field(default_factory=list)
    started: dict[int, Started] = field(default_factory=dict)


def problems(objs: Objects, cluster: Objects, *, validate: str = "strict") -> list[Problem]:
    """The problems of the managed objects of `objs` (`checked`)."""
    return checked(objs, cluster, validate=validate).problems


def checked(objs: Objects, cluster: Objects, *, validate: str = "strict", version: str | None = None) -> Checked:
    """Kueue's pass over the managed objects of `objs` (`version` None: v0.17.8): their problems and
    those it starts; nothing when no Kueue object is given."""
    submitted = [i for i, (o, _) in enumerate(objs) if managed(o)]
    if not submitted:
        return Checked()
    chosen = set(submitted)
    context = [*of_kinds(cluster, READ_KINDS),
               *((o, s) for i, (o, s) in enumerate(objs) if i not in chosen and kind_of(o) in READ_KINDS)]
    if not any(is_kueue(o) for o, _ in context):
        return Checked()
    # Kueue's pass, imported only now: a lint without Kueue's objects never pays its 0.15 s
    from kexplain.kueue.started import REPLICATED_JOB_NAME, explained_run, parts, started
    done, doc = explained_run([objs[i] for i in submitted], context, validate=validate,
                              now=datetime.now(timezone.utc).replace(microsecond=0), version=version)
    items = {w["workload"]: w for w in doc["explanation"]["workloads"]}
    queues = {lq.key for lq in done.inputs.local_queues}
    out: list[Problem] = []
    begun: dict[int, Started] = {}
    # (a CronJob's Job, a Deployment's pods, a StatefulSet: what Kueue meets of them, `parts`; only
    # what Kueue admits of them is scheduled, none when it admits nothing)
    for index, obj, outcome in parts(objs, submitted, done.outcomes):
        if kind_of(obj) in ("Job", "Pod", "JobSet", "StatefulSet"):
            made, answer = started(obj, outcome, done, doc)
            if answer.get("verdict") == ADMITTED and "startError" not in answer:
                said = {k: answer[k] for k in SAID if k in answer}
                begun[index] = _joined(begun.get(index), Started(tuple(made), answer, tuple(
                    {**said, "job": str(meta_of(m).get("name")),
                     "podSet": str((meta_of(m).get("labels") or {}).get(REPLICATED_JOB_NAME))}
                    if kind_of(obj) == "JobSet" else said for m in made)))
            elif objs[index][0] is not obj:
                begun.setdefault(index, Started((), answer, ()))
        wl = outcome.workload
        if wl is None or any(p[0] == index and p[3].get("localQueue") == wl.spec.queue_name for p in out):
            continue
        queue = f"{wl.meta.namespace}/{wl.spec.queue_name}"
        if queue not in queues:
            out.append((index, LOCAL_QUEUE, f"LocalQueue {wl.spec.queue_name} does not exist in namespace "
                        f"{wl.meta.namespace}: Kueue never admits its Workload",
                        {"localQueue": wl.spec.queue_name, "workload": wl.meta.key}))
            continue
        item = items.get(wl.meta.key)
        short = _never_fits(item) if item is not None else None
        if short:
            out.append((index, NEVER_FITS, f"its Workload can never fit ClusterQueue {item.get('clusterQueue')}, even "
                        f"with all it may borrow: {short}", {"workload": wl.meta.key,
                                                             "clusterQueue": item.get("clusterQueue")}))
    return Checked(out, begun)


def _joined(before: Started | None, more: Started) -> Started:
    """What Kueue starts of one object made of several parts (a Deployment's pods)."""
    if before is None or not before.made:
        return more
    return Started(before.made + more.made, before.answer, before.said + more.said)


def _never_fits(item: dict[str, Any]) -> str:
    """`pod set P: R wants X, at most Y in flavor F; ...` when every flavor tried for some pod
    set asks more than its maximum capacity; "" otherwise."""
    for ps in item.get("podSets") or ():
        trials = [t for t in ps.get("trials") or () if not t.get("skipped")]
        if not trials:
            continue
        over = []
        for t in trials:
            beyond = [q for q in t.get("quotas") or ()
                      if q.get("maxCapacity") is not None and q.get("request") is not None
                      and parse_quantity(q["request"]) > parse_quantity(q["maxCapacity"])]
            if not beyond:
                return ""
            q = beyond[0]
            over.append(f"{q['resource']} wants {q['request']}, at most {q['maxCapacity']} in flavor {q['flavor']}")
        return f"pod set {ps.get('name')}: " + "; ".join(dict.fromkeys(over))
    return ""

"""What lint asks of Kueue (`kexplain.lint.linter`, rules `kueue-local-queue` and
`kueue-never-fits`): for each Job, Pod or JobSet Kueue manages among a set of objects, run
against the Kueue objects given with them, whether its LocalQueue does not exist, or whether
its Workload can never fit its ClusterQueue: in every flavor Kueue could try for a pod set
(not skipped for a taint or the node selection), some resource asks for more than the most the
ClusterQueue could ever have there, its nominal quota and all it may borrow (`maxCapacity` of
the explanation). Problems as values: (index of the object, rule, message, details)."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from kexplain.apimachinery.quantity import parse_quantity
from kexplain.kueue.objects import READ_KINDS, Objects, is_kueue, kind_of, managed, of_kinds

LOCAL_QUEUE = "kueue-local-queue"
NEVER_FITS = "kueue-never-fits"
Problem = tuple[int, str, str, dict[str, Any]]


def problems(objs: Objects, cluster: Objects, *, validate: str = "strict") -> list[Problem]:
    """The problems of the managed objects of `objs` (Kueue's objects from `objs` and `cluster`);
    none when no Kueue object is given."""
    submitted = [i for i, (o, _) in enumerate(objs) if managed(o)]
    if not submitted:
        return []
    chosen = set(submitted)
    context = [*of_kinds(cluster, READ_KINDS),
               *((o, s) for i, (o, s) in enumerate(objs) if i not in chosen and kind_of(o) in READ_KINDS)]
    if not any(is_kueue(o) for o, _ in context):
        return []
    # Kueue's pass, imported only now: a lint without Kueue's objects never pays its 0.15 s
    from kexplain.kueue.started import explained_run
    done, doc = explained_run([objs[i] for i in submitted], context, validate=validate,
                              now=datetime.now(timezone.utc).replace(microsecond=0))
    items = {w["workload"]: w for w in doc["explanation"]["workloads"]}
    queues = {lq.key for lq in done.inputs.local_queues}
    out: list[Problem] = []
    for index, outcome in zip(submitted, done.outcomes):
        wl = outcome.workload
        if wl is None:
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
    return out


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

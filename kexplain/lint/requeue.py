"""The scheduling queue's retry after the set's pass (`explain.retry`): an object whose pods a later
pod's binding may help is scheduled again, and judged where its pods end up, its first attempt's
verdict kept (`details.firstAttempt`)."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kexplain.apimachinery.labels import zone_of
from kexplain.explain.batch import queue_order
from kexplain.explain.retry import retry
from kexplain.lint.findings import VERDICT_RULES, Finding, guarded
from kexplain.lint.rules.scheduling import Suggest, name_list, verdict
from kexplain.lint.set_state import Queued, RetryLog

if TYPE_CHECKING:  # pragma: no cover
    from kexplain.explain.batch import Queue
    from kexplain.model.snapshot import Snapshot


def retried(queue: "Queue", log: RetryLog, found: dict[int, list[Finding]], snapshot: "Snapshot | None",
            suggest: Suggest) -> list[Any]:
    """The queue's retry after the set's pass (`explain.retry`): an object scheduled again is
    judged where its pods end up (`_after_retry`; `found` updated). Returns what the retries did."""
    waiting = [w for _, w in log.waiting]
    if not waiting:
        return []
    retried = retry(queue, waiting, log.events, log.next, lambda w: queue_order(w.entry, w.inputs),
                    on_unfit=lambda w, placement: log.unfit.__setitem__(id(w), placement))
    for q, w in log.waiting:
        mine = [r for r in retried if r.entry is w.entry]
        if mine and id(q) in found:
            found[id(q)] = guarded(q.ref, q.loc, lambda: _after_retry(log, q, w, mine, found[id(q)], snapshot,
                                                                   suggest))
    return retried


def _after_retry(log: RetryLog, q: "Queued", w: Any, mine: list[Any], first: list[Finding],
                 nodes_of: "Snapshot | None", suggest: Suggest) -> list[Finding]:
    """An object's findings where the queue's retry leaves its pods, judged with its last try that
    did not fit; the first attempt's verdict kept in `details.firstAttempt`."""
    landed = [r for r in mine if r.node is not None]
    placed = log.placed.get(id(w), []) + [
        (r.node, zone_of(info.node.labels) if (info := nodes_of and nodes_of.get(r.node)) else "") for r in landed]
    zones = Counter(zone for _, zone in placed if zone)
    nodes = [n for n, _ in placed]
    unfit = log.unfit.get(id(w))
    found = verdict(q.ref, q.loc, q.ref.kind != "Pod", w.entry.copies, nodes,
                    unfit.inputs if unfit is not None else w.inputs,
                    unfit.trace if unfit is not None else None, suggest, zones, asked=w.entry.asked)
    where = name_list(f"{r.pod} on {r.node}" for r in landed)
    before = next((f for f in first if f.rule in VERDICT_RULES), None)
    details = {**found.details, "retried": [r.to_json() for r in mine]}
    if before is not None:
        details["firstAttempt"] = {"rule": before.rule, "message": before.message,
                                   **{k: before.details[k] for k in ("fit", "nodes") if k in before.details}}
    if found.rule == "fits":
        copies, asked = w.entry.copies, w.entry.asked
        what = (f"the {copies:,} pods created (of {asked:,} replicas) fit" if asked
                else "fits" if copies == 1 else f"all {copies:,} replicas fit")
        message = f"{what}: {where} once the scheduling queue retried (requeued when {landed[0].trigger})"
    else:       # (the verdict ends with the scheduler's message, a sentence)
        went = name_list(f"{r.pod} went to {r.node}" for r in landed)
        message = (f"{found.message} The scheduling queue retried it when {mine[0].trigger}: "
                   f"{went if landed else 'still unschedulable'}.")
    return [f for f in first if f.rule not in VERDICT_RULES] + [replace(found, message=message,
                                                                         details=details)]

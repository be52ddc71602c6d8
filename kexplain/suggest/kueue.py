"""Verified fixes for the Workloads Kueue leaves pending: the `kexplain kueue` document's
`suggestions` key.

For each pending Workload (those submitted first, in the document's order), each fix family
(`kueue_quota`: quota, borrowing and lending; `kueue_workload`: the Workload's own requests,
partial admission, tolerations, LocalQueue; `kueue_queues`: the queues and namespaces the
workload controller's checks and the namespace selector stop it at) proposes changes as
operations on the objects read. An idea is only an idea until Kueue's whole pass, run again on
the changed objects (read again, so the API server's and Kueue's checks apply to the change),
gives the Workload QuotaReserved and takes quota from no Workload the first pass admitted. At
most `MAX_RERUNS` passes are run per call and `MAX_PER_WORKLOAD` suggestions kept per Workload;
families take turns, so every family gets its first ideas tried before any gets its last.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Iterator, Mapping, Sequence

from kexplain.errors import KexplainError, Source
from kexplain.kueue.explain import last_entries
from kexplain.kueue.inputs import KueueInputs, Objects, inputs_of
from kexplain.kueue.run import Pass, run_pass
from kexplain.kueue.workload.workload import has_quota_reservation
from kexplain.suggest import kueue_queues, kueue_quota, kueue_workload
from kexplain.suggest.change import Op, apply_ops
from kexplain.suggest.kueue_context import Idea, KueueContext, ref

ID = "kueue"
BY = "kueue"
MAX_RERUNS = 30             # passes run to verify ideas, per call
MAX_PER_WORKLOAD = 3        # suggestions kept per pending Workload
MAX_WORKLOADS = 10          # pending Workloads suggestions are sought for
FAMILIES: dict[str, ModuleType] = {f.ID: f for f in (kueue_queues, kueue_quota, kueue_workload)}
SUGGESTED = Source("suggested")


def needed(doc: Mapping[str, Any]) -> bool:
    """Whether the document has a pending Workload to suggest for."""
    return bool((doc.get("explanation") or {}).get("workloads"))


@dataclass
class Verdict:
    admitted: list[str]            # the pending Workloads the change admits, the one sought first
    cluster_queue: str
    flavors: dict[str, dict[str, str]]


def contexts(done: Pass) -> Iterator[KueueContext]:
    """Each pending Workload's context, the submitted ones first (the jobs' order)."""
    entries = last_entries(done)
    owners: dict[str, tuple[dict[str, Any], str]] = {}
    for outcome in done.outcomes:
        if outcome.workload is not None:
            obj = _object_of(done.inputs, outcome.job.kind, outcome.job.meta.name, outcome.job.meta.namespace)
            if obj is not None:
                owners[outcome.workload.meta.key] = (obj, outcome.job.kind)
    for wl in done.inputs.workloads:
        obj = _object_of(done.inputs, "Workload", wl.meta.name, wl.meta.namespace)
        if obj is not None:
            owners.setdefault(wl.meta.key, (obj, "Workload"))
    order = [o.workload.meta.key for o in done.outcomes if o.workload is not None] + sorted(done.workloads)
    for key in dict.fromkeys(order):
        wl = done.workloads.get(key)
        if wl is None or has_quota_reservation(wl) or not wl.spec.active:
            continue
        owner, kind = owners.get(key, (None, ""))
        yield KueueContext(done, done.inputs, wl, entries.get(key), owner, kind)


def _object_of(inputs: KueueInputs, kind: str, name: str, namespace: str) -> dict[str, Any] | None:
    for obj, _ in inputs.submitted:
        meta = obj.get("metadata") if isinstance(obj, dict) and isinstance(obj.get("metadata"), dict) else {}
        if obj.get("kind") == kind and meta.get("name") == name and (meta.get("namespace") or "default") == namespace:
            return obj
    return None


def changed_objects(objects: Objects, change: Sequence[Op], create: bool) -> list[tuple[dict[str, Any], Source]]:
    """The objects with the change's path operations applied (and, with `create`, the objects it
    creates appended)."""
    out = []
    for obj, src in objects:
        ops = [op for op in change if op["op"] not in ("create",) and isinstance(obj, dict)
               and ref(obj) == op["object"]]
        out.append((apply_ops(obj, ops) if ops else obj, src))
    if create:
        out += [(copy.deepcopy(op["value"]), SUGGESTED) for op in change if op["op"] == "create"]
    return out


class Verifier:
    def __init__(self, first: Pass, budget: int) -> None:
        self.first = first
        self.budget = budget
        self.admitted_first = {k for k, wl in first.workloads.items() if has_quota_reservation(wl)}

    def verify(self, change: Sequence[Op], key: str) -> Verdict | None:
        """Kueue's pass on the changed objects: the Workload `key` holds quota, and every Workload
        the first pass had admitted still does."""
        if self.budget <= 0:
            return None
        self.budget -= 1
        inputs = self.first.inputs
        try:
            changed = inputs_of(changed_objects(inputs.submitted, change, False),
                                changed_objects(inputs.cluster, change, True), validate=inputs.validate)
            after = run_pass(changed, self.first.settings)
        except KexplainError:
            return None             # the change makes an object the API server or Kueue refuses
        wl = after.workloads.get(key)
        if wl is None or not has_quota_reservation(wl) or wl.admission is None:
            return None
        if any(k not in after.workloads or not has_quota_reservation(after.workloads[k]) for k in self.admitted_first):
            return None
        newly = [k for k, w in sorted(after.workloads.items())
                 if has_quota_reservation(w) and k not in self.admitted_first]
        flavors = {psa.name: dict(psa.flavors) for psa in wl.admission.pod_set_assignments}
        return Verdict([key, *(k for k in newly if k != key)], wl.admission.cluster_queue, flavors)


def _turns(ctx: KueueContext) -> Iterator[Idea]:
    """Ideas of the families in turn: each family's first, then each one's second, ..."""
    lists = [list(f.ideas(ctx)) for f in FAMILIES.values()]
    for i in range(max((len(x) for x in lists), default=0)):
        for ideas in lists:
            if i < len(ideas):
                yield ideas[i]


def suggestions(first: Pass, budget: int = MAX_RERUNS) -> list[dict[str, Any]]:
    """The verified suggestions for the pending Workloads of `first`."""
    verifier = Verifier(first, budget)
    out: list[dict[str, Any]] = []
    tried: dict[str, Verdict | None] = {}
    for n, ctx in enumerate(contexts(first)):
        if n >= MAX_WORKLOADS or verifier.budget <= 0:
            break
        kept = 0
        shown: set[str] = set()
        for idea in _turns(ctx):
            if kept >= MAX_PER_WORKLOAD or verifier.budget <= 0:
                break
            key = repr(idea.change) + ctx.workload.key
            if key in shown:            # the same change proposed by two families: once
                continue
            if key not in tried:
                tried[key] = verifier.verify(idea.change, ctx.workload.key)
            verdict = tried[key]
            if verdict is None:
                continue
            kept += 1
            shown.add(key)
            out.append(suggestion(ctx, idea, verdict))
    return out


def suggestion(ctx: KueueContext, idea: Idea, verdict: Verdict) -> dict[str, Any]:
    return {"workload": ctx.workload.key, "kind": idea.kind, "values": dict(idea.values),
            "change": [dict(op) for op in idea.change],
            "verified": {"by": BY, "admits": verdict.admitted, "clusterQueue": verdict.cluster_queue,
                         "flavors": verdict.flavors}}


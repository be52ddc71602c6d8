"""Verified fixes for the Workloads Kueue leaves pending (`kexplain kueue`'s `suggestions`).

Families (`kueue_quota`, `kueue_workload`, `kueue_queues`, `kueue_topology`) propose operations on the objects
read; an idea is kept only when Kueue's pass run again on the changed objects (the reachable
cohort trees only: `kueue_scope`) reserves quota for the Workload and takes none from an admitted
one. At most `MAX_RERUNS` runs, `MAX_PER_WORKLOAD` kept, families taking turns."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Iterator, Mapping, Sequence

from kexplain.errors import KexplainError, Source
from kexplain.kueue.explain import last_entries
from kexplain.kueue.inputs import KueueInputs, inputs_of
from kexplain.kueue.run import CYCLES_PER_WORKLOAD, Pass, run_pass
from kexplain.kueue.workload.workload import has_quota_reservation
from kexplain.suggest import kueue_queues, kueue_quota, kueue_topology, kueue_workload
from kexplain.suggest.change import Op, apply_ops
from kexplain.suggest.kueue_context import Idea, KueueContext
from kexplain.suggest.kueue_scope import World, ref_key

ID = "kueue"
BY = "kueue"
MAX_RERUNS = 30             # passes run to verify ideas, per call
MAX_PER_WORKLOAD = 3        # suggestions kept per pending Workload
MAX_WORKLOADS = 10          # pending Workloads suggestions are sought for
FAMILIES: dict[str, ModuleType] = {f.ID: f for f in (kueue_queues, kueue_quota, kueue_workload, kueue_topology)}
SUGGESTED = Source("suggested")
Changed = dict[tuple[int, int], dict[str, Any]]         # (list, position) -> the object as changed
Created = list[tuple[dict[str, Any], Source]]


def needed(doc: Mapping[str, Any]) -> bool:
    """Whether the document has a pending Workload to suggest for."""
    return bool((doc.get("explanation") or {}).get("workloads"))


@dataclass
class Verdict:
    admitted: list[str]            # the pending Workloads the change admits, the one sought first
    cluster_queue: str
    flavors: dict[str, dict[str, str]]
    waits_behind: list[str] = field(default_factory=list)   # not admitted: those admitted before it


def contexts(done: Pass) -> Iterator[KueueContext]:
    """Each pending Workload's context, the submitted ones first (the jobs' order)."""
    entries = last_entries(done)
    submitted = _submitted_index(done.inputs)
    owners: dict[str, tuple[dict[str, Any], str]] = {}
    for outcome in done.outcomes:
        if outcome.workload is not None:
            obj = submitted.get((outcome.job.kind, outcome.job.meta.namespace, outcome.job.meta.name))
            if obj is not None:
                owners[outcome.workload.meta.key] = (obj, outcome.job.kind)
    for wl in done.inputs.workloads:
        obj = submitted.get(("Workload", wl.meta.namespace, wl.meta.name))
        if obj is not None:
            owners.setdefault(wl.meta.key, (obj, "Workload"))
    order = [o.workload.meta.key for o in done.outcomes if o.workload is not None] + sorted(done.workloads)
    for key in dict.fromkeys(order):
        wl = done.workloads.get(key)
        if wl is None or has_quota_reservation(wl) or not wl.spec.active:
            continue
        owner, kind = owners.get(key, (None, ""))
        yield KueueContext(done, done.inputs, wl, entries.get(key), owner, kind)


def _submitted_index(inputs: KueueInputs) -> dict[tuple[str, str, str], dict[str, Any]]:
    """The submitted objects by (kind, namespace, name), the first of each."""
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for obj, _ in inputs.submitted:
        meta = obj.get("metadata") if isinstance(obj, dict) and isinstance(obj.get("metadata"), dict) else {}
        out.setdefault((obj.get("kind"), meta.get("namespace") or "default", meta.get("name")), obj)
    return out


class Verifier:
    """Runs Kueue's pass on changed objects; `scoped`: on the cohort trees a change can reach
    (`kueue_scope`), else on everything the pass reads."""

    def __init__(self, first: Pass, budget: int, scoped: bool = True) -> None:
        self.first = first
        self.budget = budget
        self.admitted_first = {k for k, wl in first.workloads.items() if has_quota_reservation(wl)}
        self.world = World(first.inputs.submitted, first.inputs.cluster)
        # every Workload of the first pass placed in a part, or no pass is scoped
        self.scoped = scoped and all(self.world.part_of(f"wl:{k}") is not None for k in first.workloads)
        self.admitted_parts = {k: self.world.part_of(f"wl:{k}") for k in self.admitted_first} if self.scoped else {}

    def verify(self, change: Sequence[Op], key: str) -> Verdict | None:
        """Kueue's pass on the changed objects: the Workload `key` holds quota, and every Workload
        the first pass had admitted still does."""
        if self.budget <= 0:
            return None
        self.budget -= 1
        try:
            changed, created, pairs = self._changed(change)
            parts = self.world.parts(pairs) if self.scoped else None
            after = self._run(parts, changed, created)
            if parts is not None and len(after.scheduler.cycles) >= CYCLES_PER_WORKLOAD * len(after.workloads) + 2:
                parts = None            # the cycles' bound cut the pass short: the whole pass decides
                after = self._run(None, changed, created)
        except KexplainError:
            return None             # the change makes an object the API server or Kueue refuses
        wl = after.workloads.get(key)
        if wl is None:
            return None
        kept = self.admitted_first if parts is None else \
            {k for k, part in self.admitted_parts.items() if part in parts}
        if any(k not in after.workloads or not has_quota_reservation(after.workloads[k]) for k in kept):
            return None
        newly = [k for k, w in sorted(after.workloads.items())
                 if has_quota_reservation(w) and k not in self.admitted_first]
        if not has_quota_reservation(wl) or wl.admission is None:
            # the room made went to Workloads admitted before it: it would wait behind them
            return Verdict([], "", {}, newly) if newly else None
        flavors = {psa.name: dict(psa.flavors) for psa in wl.admission.pod_set_assignments}
        return Verdict([key, *(k for k in newly if k != key)], wl.admission.cluster_queue, flavors)

    def _changed(self, change: Sequence[Op]) -> tuple[Changed, Created, list[tuple[int, Any, Any]]]:
        """The objects the change's path operations change (by list and position, operations in order),
        those it creates, and each (list, as read, as changed) for `World.parts`."""
        changed: Changed = {}
        pairs: list[tuple[int, Any, Any]] = []
        path_ops = [op for op in change if op["op"] != "create"]
        for target in dict.fromkeys(ref_key(op["object"]) for op in path_ops):
            ops = [op for op in path_ops if ref_key(op["object"]) == target]
            for which, position in self.world.by_ref.get(target, ()):
                obj = self.world.lists[which][position][0]
                changed[(which, position)] = apply_ops(obj, ops)
                pairs.append((which, obj, changed[(which, position)]))
        created = [(copy.deepcopy(op["value"]), SUGGESTED) for op in change if op["op"] == "create"]
        pairs += [(1, None, obj) for obj, _ in created]
        return changed, created, pairs

    def _run(self, parts: set[str] | None, changed: Changed, created: Created) -> Pass:
        submitted, cluster = self.world.objects(parts, changed, created)
        return run_pass(inputs_of(submitted, cluster, validate=self.first.inputs.validate,
                                  version=self.first.settings.version), self.first.settings)


def _turns(ctx: KueueContext) -> Iterator[Idea]:
    """Ideas of the families in turn: each family's first, then each one's second, ..."""
    lists = [list(f.ideas(ctx)) for f in FAMILIES.values()]
    for i in range(max((len(x) for x in lists), default=0)):
        for ideas in lists:
            if i < len(ideas):
                yield ideas[i]


def suggestions(first: Pass, budget: int = MAX_RERUNS, waiting: list[dict[str, Any]] | None = None
                ) -> list[dict[str, Any]]:
    """The verified suggestions for the pending Workloads of `first`; `waiting` gets the changes
    that make room a Workload would not get, others being admitted before it (`waitsBehind`)."""
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
            if not verdict.admitted:
                if waiting is not None:
                    waiting.append(waits(ctx, idea, verdict))
                shown.add(key)
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


def waits(ctx: KueueContext, idea: Idea, verdict: Verdict) -> dict[str, Any]:
    """A change verified to make room that other Workloads take first (they are ahead of it)."""
    return {"workload": ctx.workload.key, "kind": idea.kind, "values": dict(idea.values),
            "change": [dict(op) for op in idea.change],
            "verified": {"by": BY, "admits": [], "waitsBehind": verdict.waits_behind}}

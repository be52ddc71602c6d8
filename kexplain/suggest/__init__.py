"""Fix suggestions: the smallest changes that would let an unschedulable pod schedule, each proven.

Each fix family (a module with `ID`, `KINDS` and `candidates(ctx)`) proposes changes to the pod
or the cluster; a change is kept only when the whole cycle run again with it (`verify.py`)
schedules the pod, at most `MAX_VERIFIED` per explanation (docs/internals/suggest.md: the order)."""
from __future__ import annotations

from dataclasses import replace
from types import ModuleType
from typing import Callable, Iterable, Iterator, Sequence

from kexplain.explain.pod_inputs import Inputs
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import explain
from kexplain.framework.trace import UNSCHEDULABLE, Trace
from kexplain.suggest import add_node, combined, conflicting_pods, device_claims, free_devices, free_room, \
    node_selection, pod_affinity, ports, resources, spread, storage_classes, tolerations, uncordon, verify
from kexplain.suggest.change import Candidate
from kexplain.suggest.context import Context, blocked_nodes
from kexplain.suggest.verify import Suggestion, Verification

__all__ = ["FAMILIES", "MAX_VERIFIED", "Suggestion", "Verification", "get", "suggestions", "verified_suggestions"]

MAX_VERIFIED = 10          # candidates verified (pipeline re-runs) per explanation, at most

# The fix families by ID.
FAMILIES: dict[str, ModuleType] = {family.ID: family for family in (
    resources, tolerations, node_selection, spread, ports, pod_affinity, device_claims, combined,
    uncordon, free_room, free_devices, conflicting_pods, add_node, storage_classes)}

# The order they are tried in: changes to the pod, interleaved; all of one node's pod changes at
# once, only when no single one was verified; changes to the cluster, interleaved.
POD_CHANGES = (resources.ID, tolerations.ID, node_selection.ID, spread.ID, ports.ID, pod_affinity.ID,
               device_claims.ID)
WHEN_NONE = (combined.ID,)
CLUSTER_CHANGES = (uncordon.ID, free_room.ID, free_devices.ID, conflicting_pods.ID, add_node.ID, storage_classes.ID)


def get(family_id: str) -> ModuleType:
    """The fix family with this ID (KeyError when there is none)."""
    return FAMILIES[family_id]


def suggestions(inputs: Inputs, trace: Trace, request: Request | RunOptions | None = None,
                budget: int = MAX_VERIFIED) -> list[Suggestion]:
    """Verified fix suggestions for a pod the trace says is Unschedulable ([] otherwise): pod changes first,
    then cluster changes, each proven by re-running the scheduling cycle as `request` (its run options) says,
    without extra trace keys; by default from where the trace's search started."""
    # PreFilter turned the pod away for every node: only the facts of its rejection say why
    rejected = trace.search is None and bool(trace.extra.get("rejection"))
    if trace.result.status != UNSCHEDULABLE or (trace.search is None and not rejected):
        return []
    if request is None:
        options = RunOptions(start_index=trace.search.start_index if trace.search is not None else 0)
    else:
        options = (request.run if isinstance(request, Request) else request).plain()
    filter_all = trace.filter_all
    if filter_all is None and not rejected:
        filter_all = explain(inputs, replace(options, filter_all=True, preemption=False)).filter_all or {}
    ctx = Context(inputs, options, trace, blocked_nodes(filter_all or {}))
    if not ctx.blocked and not rejected:
        return []
    before = verify.feasible(trace)
    out: list[Suggestion] = []
    seen: set[str] = set()
    attempts = 0

    def attempt(candidates: Iterable[Candidate]) -> None:
        nonlocal attempts
        for cand in candidates:
            key = repr(cand.change)
            if attempts >= budget:
                return
            if key in seen or not cand.change:
                continue
            seen.add(key)
            attempts += 1
            try:
                proven = verify.verify(inputs, options, cand.change, before)
            except Exception:       # noqa: BLE001 - a change that cannot be run is not verified
                proven = None
            if proven is not None:
                verification, opened = proven
                out.append(Suggestion(cand.kind, cand.target, cand.description, tuple(cand.change),
                                      len(opened), opened, verification))

    attempt(_round_robin([_ideas(get(f).candidates, ctx) for f in POD_CHANGES]))
    if not out:
        attempt(_round_robin([_ideas(get(f).candidates, ctx) for f in WHEN_NONE]))
    attempt(_round_robin([_ideas(get(f).candidates, ctx) for f in CLUSTER_CHANGES]))
    return out


def verified_suggestions(inputs: Inputs, trace: Trace,
                         request: Request | RunOptions | None = None) -> list[Suggestion]:
    """`suggestions` under the name lint looks for (each item has `.text`)."""
    return suggestions(inputs, trace, request)


def _round_robin(lists: Sequence[list[Candidate]]) -> Iterator[Candidate]:
    depth = max((len(xs) for xs in lists), default=0)
    for i in range(depth):
        for xs in lists:
            if i < len(xs):
                yield xs[i]


def _ideas(family: Callable[[Context], list[Candidate]], ctx: Context) -> list[Candidate]:
    """A family's candidates; one that fails on an input it did not foresee offers none
    (suggestions never stop an explanation)."""
    try:
        return family(ctx)
    except Exception:           # noqa: BLE001
        return []

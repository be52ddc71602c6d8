"""The few hundred bytes of a copy's trace its explanation says first, kept for every copy of a many-pods run."""
from __future__ import annotations

from collections import Counter
from functools import partial
from itertools import compress, repeat
from operator import ge, ne, neg
from typing import Any, Mapping

from kexplain.framework.status import Status
from kexplain.framework.trace import SCHEDULED, NodeScores, NodeVerdicts, Trace

TOP_NODES = 3
_REJECTED = frozenset({"Unschedulable", "UnschedulableAndUnresolvable", "Error"})
# Shared traces' rejections counted, by the identity of the `filter` and `pre_filter` read (held,
# so that their ids name them); at least the shapes a batch holds on a large cluster (`shared_cycles.shapes_kept`).
SHARED_KEPT = 64
_COUNTED: dict[tuple[int, int], tuple[Any, Any, list[dict[str, Any]]]] = {}


def summarize(trace: Trace, top: int = TOP_NODES, shared: bool = False) -> dict[str, Any]:
    """The compact record of one attempt: search, top nodes, rejections by plugin and reason, and the event
    (`shared`: a trace that shares its cycle with others, whose rejections are counted once)."""
    out: dict[str, Any] = {}
    result = trace.result
    kubelet = trace.extra.get("kubelet") or {}
    if kubelet.get("event"):        # bound by spec.nodeName: its kubelet's event, no FailedScheduling
        out["kubelet"] = kubelet["event"]
    elif result.status != SCHEDULED:
        out["message"] = result.message
        nominated = (trace.post_filter or {}).get("nominatedNodeName")
        if nominated:
            out["nominatedNodeName"] = nominated
    s = trace.search
    if s is not None:
        out["search"] = {"numAllNodes": s.num_all_nodes, "startIndex": s.start_index,
                         "numNodesSearched": s.num_nodes_searched, "numFilterSuccess": s.num_filter_success}
    if trace.score:
        out["top"] = _top(trace.score, result.suggested_host, top)
    if trace.extra.get("tieBreak") == "random":     # before 1.35: one of these, picked at random
        out["randomPickAmong"] = len(result.selected_nodes)
    rejected = _rejected(trace) if shared else _counted(trace)
    if rejected:
        out["rejected"] = rejected
    return out


def _top(score: Mapping[str, dict[str, Any]], chosen: str | None, n: int) -> list[dict[str, Any]]:
    nodes, totals = score.totals() if isinstance(score, NodeScores) else \
        (list(score), [entry.get("total", 0) for entry in score.values()])
    # highest total first, then the chosen node, then by name: keys as tuples made and compared in C,
    # for the nodes whose total is at least the n-th highest (no other can be among the first n)
    if len(totals) > n:
        least = sorted(totals, reverse=True)[n - 1]
        kept = list(map(ge, totals, repeat(least)))
        totals, nodes = list(compress(totals, kept)), list(compress(nodes, kept))
    best = sorted(zip(map(neg, totals), map(partial(ne, chosen), nodes), nodes))[:n]
    return [{"node": node, "total": -total,
             "plugins": {p: v.get("weighted", 0) for p, v in (score[node].get("plugins") or {}).items()}}
            for total, _, node in best]


def _rejected(trace: Trace) -> list[dict[str, Any]]:
    """Per (plugin, reason), the nodes Filter rejected for it; PreFilter's rejection as one entry.
    The pods of a shape that share a cycle share its `filter` and `pre_filter`
    (`kexplain.explain.shared_cycles`): counted once for them (`_COUNTED`), each given its own copy."""
    key = (id(trace.filter), id(trace.pre_filter))
    found = _COUNTED.get(key)
    if found is None or found[0] is not trace.filter or found[1] is not trace.pre_filter:
        if len(_COUNTED) >= SHARED_KEPT:
            _COUNTED.clear()
        found = _COUNTED[key] = (trace.filter, trace.pre_filter, _counted(trace))
    return [dict(entry) for entry in found[2]]


def _json(verdict: Status | dict[str, Any]) -> dict[str, Any]:
    return verdict.json_view(with_plugin=True) if isinstance(verdict, Status) else verdict


def _counted(trace: Trace) -> list[dict[str, Any]]:
    counts: dict[tuple[str, tuple[str, ...]], int] = {}
    # A trace's verdicts are shared objects, one per status (`Status.json_view`): counted by identity in C,
    # a search's statuses before their JSON is made.
    found = trace.filter or {}
    pairs = found.counts() if isinstance(found, NodeVerdicts) else None
    if pairs is None:
        verdicts = found.statuses() if isinstance(found, NodeVerdicts) else list(found.values())
        distinct = dict(zip(map(id, verdicts), verdicts))
        pairs = [(distinct[ident], n) for ident, n in Counter(map(id, verdicts)).items()]
    for status, n in pairs:
        verdict = _json(status)
        plugin = verdict.get("plugin")
        if plugin is None or verdict.get("code") not in _REJECTED:
            continue
        key = (plugin, tuple(verdict.get("reasons") or (verdict.get("code", ""),)))
        counts[key] = counts.get(key, 0) + n
    per_reason: dict[tuple[str, str], int] = {}
    for (plugin, reasons), n in counts.items():
        for reason in reasons:
            per_reason[(plugin, reason)] = per_reason.get((plugin, reason), 0) + n
    out = [{"plugin": p, "reason": r, "nodes": n}
           for (p, r), n in sorted(per_reason.items(), key=lambda kv: (-kv[1], kv[0]))]
    for call in trace.pre_filter or ():
        if call.get("code") in _REJECTED:
            out += [{"plugin": call.get("plugin", ""), "reason": r, "stage": "PreFilter"}
                    for r in (call.get("reasons") or (call.get("message") or call.get("code", ""),))]
    return out

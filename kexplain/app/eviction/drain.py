"""`kexplain evict drain NODE`: kubectl drain as kubectl and the API server decide it, as a dry run.
The cluster read once; every PodDisruptionBudget with its status (given, or the disruption
controller's); the node's pods through kubectl's filters; the eviction loop against the Eviction
subresource; then where the evicted pods' replacements go (`replacements`) and, for a blocked
drain, the fixes that drain it (`fixes`), each checked by draining again."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from kexplain.app.eviction.request import EvictRequest, node_named, pods_on, read_cluster, read_warnings, settled
from kexplain.app.eviction.drain_budgets import budget_json, budgets_of, numbers
from kexplain.app.eviction.drain_fixes import SYNC_FAILED, Cordoned, fixes, owner_text, owners_missing
from kexplain.app.eviction.drain_index import DrainIndex
from kexplain.app.eviction.autoscaled import KEY as AUTOSCALERS, live_reads
from kexplain.app.eviction.drain_where import where_they_go
from kexplain.app.eviction.replacements import cordoned, left
from kexplain.controllers.disruption import Statuses
from kexplain.eviction.api import DISRUPTION_TARGET, Budget, Matches
from kexplain.eviction.drain.drain import Eviction, PodDeleteList, evict_pods, pods_for_deletion
from kexplain.eviction.drain.filters import Helper
from kexplain.eviction.versions import drain_rules
from kexplain.model.pod import PodInfo
from kexplain.state.cluster import ClusterState

FLAGS = (("ignore_daemonsets", "--ignore-daemonsets"), ("delete_emptydir_data", "--delete-emptydir-data"),
         ("force", "--force"))


@dataclass(frozen=True)
class Repeats:
    """What a node's drain and its fixes' drains (the same pods, a few budgets and workloads changed)
    work out once: the pods through kubectl's filters per flags (the filters read neither budgets nor
    workloads), and which budget selectors match which pods."""

    lists: dict[Helper, PodDeleteList] = field(default_factory=dict)
    matches: Matches = field(default_factory=Matches)


@dataclass(frozen=True)
class Drained:
    """One drain's decision: the filters' list, the evictions, and the budgets before and after."""

    listed: PodDeleteList
    evictions: tuple[Eviction, ...]
    budgets: tuple[tuple[Budget, str], ...]         # (budget, where its status came from), sorted
    after: Mapping[str, Budget]
    by_object: Mapping[int, tuple[Budget, str]] = field(default_factory=dict)   # budgets by their object's id

    @property
    def blocked(self) -> bool:
        """Refused (an error) or blocked (an eviction refused)."""
        return bool(self.listed.errors()) or any(not e.answer.evicted for e in self.evictions)


def document(req: EvictRequest) -> dict:
    """The drain's document (../shared/eviction/README.md's keys, and the explanation's own)."""
    state, live_said = read_cluster(req, live_reads)
    return document_of(state, settled(req, state), live_said)   # (the control plane's version, unless given)


def document_of(state: ClusterState, req: EvictRequest, live_said: Optional[dict] = None,
                index: Optional[DrainIndex] = None, cordoned_already: Optional[Cordoned] = None) -> dict:
    """The drain's document over a cluster state read already (`document`'s, and `kexplain cluster`'s,
    which reads the cluster once for every node it drains, and hands each drain the one `index`, and
    to each node cordoned already the one `cordoned_already`: `shared_cordoned`)."""
    live_said = live_said or {}
    node_named(state, req.node, req.nodes)
    index = index if index is not None else drain_index(state)
    pods = [PodInfo(p) for p in pods_on(state, req.node, req.kube)]
    repeats = Repeats()         # (what the node's drain and its fixes' drains ask again of the same pods)
    drained = drain(index, pods, req.kube.minor, req.options, statuses=state.budgets, repeats=repeats)
    doc = {**drain_document(drained, req), **read_warnings(state), **live_said}
    failures = sync_failures(drained, index)
    if failures:
        doc["syncFailures"] = failures
    evicted = [e.pod for e in drained.evictions if e.answer.evicted]
    if evicted:
        doc["replacements"], added = where_they_go(state, req.node, evicted, req)
        if added is not None:       # what the autoscalers would add for the replacements left pending
            doc[AUTOSCALERS] = added
    if drained.blocked:
        here = cordoned_already if cordoned_already is not None and is_cordoned(state, req.node) else \
            Cordoned(cordoned(state, req.node, []))
        doc["fixes"] = fixes(drained, here, index, req.options,
                             lambda changed, options: drain(changed, pods, req.kube.minor, options, drained.by_object,
                                                            repeats=repeats))
    return doc


def is_cordoned(state: ClusterState, node: str) -> bool:
    """Whether the node is unschedulable already: then the cluster with it cordoned is the same for
    every such node (`replacements.cordoned` changes none), and so are the scale fixes' answers."""
    info = state.snapshot.get(node)
    return info is not None and info.node.unschedulable


def shared_cordoned(state: ClusterState) -> Cordoned:
    """The cordoned cluster every drain of a node cordoned already shares (see `is_cordoned`)."""
    return Cordoned(left(state, {}, []))


def drain_index(state: ClusterState) -> DrainIndex:
    """The objects a drain reads of the state, split once (its budgets by id, and its pods)."""
    return DrainIndex.of((o for o, _ in (*state.objects, *state.other_kinds)), state.budget_pods or None)


def drain(index: DrainIndex, pods: list[PodInfo], minor: str, options: Mapping[str, Any],
          known: Optional[Mapping[int, tuple[Budget, str]]] = None, statuses: Optional[Statuses] = None,
          repeats: Optional["Repeats"] = None) -> Drained:
    """kubectl drain over the cluster's objects (`index`) for the node's `pods` (`known`: budgets
    already worked out, by their object's identity: a fix's drain recomputes only what it changed;
    `statuses`: the disruption controller's computed already, the cluster state's; `repeats`: what the
    drains of these `pods` worked out already)."""
    rules = drain_rules(minor)
    known, statuses = known or {}, statuses or {}
    budgets = budgets_of(index, known, statuses)
    helper = Helper(rules, index.daemonset_keys, bool(options.get("ignore_daemonsets")),
                    bool(options.get("delete_emptydir_data")), bool(options.get("force")))
    listed = repeats.lists.get(helper) if repeats is not None else None
    if listed is None:
        listed = pods_for_deletion(pods, helper)
        if repeats is not None:
            repeats.lists[helper] = listed
    plain = tuple((b, source) for _, (b, source) in budgets)
    by_object = {i: pair for i, pair in budgets}
    if listed.errors():
        return Drained(listed, (), plain, {b.key: b for b, _ in plain}, by_object)
    evictions, after = evict_pods(listed.pods(), [b for b, _ in plain], rules,
                                  repeats.matches if repeats is not None else None)
    return Drained(listed, tuple(evictions), plain, after, by_object)


def sync_failures(drained: Drained, index: DrainIndex) -> list[dict]:
    """Each budget the disruption controller cannot sync (its DisruptionAllowed condition's reason
    SyncFailed): its error, and the owners of its pods its finders found no scale for (not among
    the objects); the Eviction API meanwhile answers "still being processed"."""
    out = []
    for budget, _ in drained.budgets:
        failed = next((c for c in budget.conditions if c.get("reason") == SYNC_FAILED), None)
        if failed is None:
            continue
        owners = [owner_text(r, budget.namespace) for r in owners_missing(budget, index)]
        out.append({"pdb": budget.key, "message": str(failed.get("message") or ""),
                    **({"ownersNotFound": owners} if owners else {})})
    return out


def eviction_json(eviction: Eviction) -> dict:
    """One eviction as the document writes it."""
    answer = eviction.answer
    out: dict[str, Any] = {"pod": f"{eviction.pod.namespace}/{eviction.pod.name}", "evicted": answer.evicted}
    if answer.evicted:
        return {**out, "kubectl": eviction.kubectl, "conditions": [dict(DISRUPTION_TARGET)]}
    out["code"] = answer.code
    if answer.reason:
        out["reason"] = answer.reason
    out["message"] = answer.message
    if answer.causes:
        out["causes"] = [dict(c) for c in answer.causes]
    if answer.retry_after:
        out["retryAfterSeconds"] = answer.retry_after
    return {**out, "kubectl": eviction.kubectl}


def drain_document(drained: Drained, req: EvictRequest) -> dict:
    """The document: the cases' keys, then the explanation's (`verdicts`, `spending`)."""
    sources = {b.key: source for b, source in drained.budgets}
    listed = drained.listed
    return {
        "family": "drain", "kubernetesVersion": drain_rules(req.kube.minor).release, "node": req.node,
        "flags": [flag for key, flag in FLAGS if req.options.get(key)],
        "pdbs": [budget_json(b, s) for b, s in drained.budgets],
        "pods": [{"pod": i.key, "delete": i.status.delete, "reason": i.status.reason,
                  **({"message": i.status.message} if i.status.message else {})} for i in listed.items],
        "warnings": listed.warnings(), "errors": listed.errors(),
        "evictions": [eviction_json(e) for e in drained.evictions],
        "pdbsAfter": [budget_json(drained.after[key], sources[key]) for key in sorted(drained.after)],
        "verdicts": [{"pod": i.key, "filter": i.status.filter, "flag": i.status.flag} for i in listed.items],
        "spending": [{"pod": f"{e.pod.namespace}/{e.pod.name}", "rule": e.answer.rule, "before": numbers(e.before),
                      "after": numbers(e.answer.budget)} for e in drained.evictions],
        "blocked": drained.blocked,
    }


def evicts(doc: dict) -> bool:
    """Exit 1: the drain is refused (kubectl's errors) or blocked (an eviction refused)."""
    return bool(doc.get("errors")) or any(not e.get("evicted") for e in doc.get("evictions") or ())

"""`kexplain evict drain NODE`: kubectl drain as kubectl and the API server decide it, as a dry run.
The cluster read once; every PodDisruptionBudget with its status (given, or the disruption
controller's); the node's pods through kubectl's filters; the eviction loop against the Eviction
subresource; then where the evicted pods' replacements go (`replacements`) and, for a blocked
drain, the fixes that drain it (`fixes`), each checked by draining again."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kexplain.app.eviction import EvictRequest, node_named, pods_on, read_state
from kexplain.app.eviction.drain_fixes import fixes
from kexplain.app.eviction.drain_where import where_they_go
from kexplain.controllers.disruption import (KIND, computed, controllers_of, generation, healthy_as_stored,
                                             needs_status)
from kexplain.eviction.api import DISRUPTION_TARGET, Budget, budget_of
from kexplain.eviction.drain.drain import Eviction, PodDeleteList, evict_pods, pods_for_deletion
from kexplain.eviction.drain.filters import Helper
from kexplain.eviction.versions import drain_rules
from kexplain.model.pod import PodInfo

GIVEN, CONTROLLER = "given", "disruption-controller"
FLAGS = (("ignore_daemonsets", "--ignore-daemonsets"), ("delete_emptydir_data", "--delete-emptydir-data"),
         ("force", "--force"))


@dataclass(frozen=True)
class Drained:
    """One drain's decision: the filters' list, the evictions, and the budgets before and after."""

    listed: PodDeleteList
    evictions: tuple[Eviction, ...]
    budgets: tuple[tuple[Budget, str], ...]         # (budget, where its status came from), sorted
    after: Mapping[str, Budget]

    @property
    def blocked(self) -> bool:
        """Refused (an error) or blocked (an eviction refused)."""
        return bool(self.listed.errors()) or any(not e.answer.evicted for e in self.evictions)


def document(req: EvictRequest) -> dict:
    """The drain's document (../shared/eviction/README.md's keys, and the explanation's own)."""
    state = read_state(req)
    node_named(state, req.node, req.nodes)
    objects = [o for o, _ in (state.read if state.read is not None else [*state.objects, *state.other_kinds])]
    pods = [PodInfo(p) for p in pods_on(state, req.node, req.kube)]
    drained = drain(objects, pods, req.kube.minor, req.options)
    doc = drain_document(drained, req)
    evicted = [e.pod for e in drained.evictions if e.answer.evicted]
    if evicted:
        doc["replacements"] = where_they_go(state, req.node, evicted)
    if drained.blocked:
        doc["fixes"] = fixes(drained, state, req.node, objects, req.options,
                             lambda objs, options: drain(objs, pods, req.kube.minor, options))
    return doc


def drain(objects: list[dict], pods: list[PodInfo], minor: str, options: Mapping[str, Any]) -> Drained:
    """kubectl drain over the cluster's `objects` for the node's `pods`."""
    rules = drain_rules(minor)
    budgets = budgets_of(objects)
    daemonsets = frozenset(((o.get("metadata") or {}).get("namespace") or "default",
                            str((o.get("metadata") or {}).get("name") or ""))
                           for o in objects if o.get("kind") == "DaemonSet")
    helper = Helper(rules, daemonsets, bool(options.get("ignore_daemonsets")),
                    bool(options.get("delete_emptydir_data")), bool(options.get("force")))
    listed = pods_for_deletion(pods, helper)
    if listed.errors():
        return Drained(listed, (), budgets, {b.key: b for b, _ in budgets})
    evictions, after = evict_pods(listed.pods(), [b for b, _ in budgets], rules)
    return Drained(listed, tuple(evictions), budgets, after)


def budgets_of(objects: list[dict]) -> tuple[tuple[Budget, str], ...]:
    """Every PodDisruptionBudget, by namespace/name, with its status: as given, or as the disruption
    controller's sync computes it from every pod and controller (a failed sync: its fail-safe)."""
    pdbs = [o for o in objects if o.get("kind") == KIND]
    if not pdbs:
        return ()
    pods_by_namespace: dict[str, list[PodInfo]] = {}
    for obj in objects:
        if obj.get("kind") == "Pod":
            info = PodInfo(obj)
            pods_by_namespace.setdefault(info.namespace, []).append(info)
    controllers = controllers_of(objects)
    out = []
    for pdb in pdbs:
        gen = generation(pdb)
        if not needs_status(pdb):
            out.append((budget_of(pdb, pdb["status"], gen), GIVEN))
            continue
        namespace = (pdb.get("metadata") or {}).get("namespace") or "default"
        status = computed(pdb, pods_by_namespace.get(namespace, ()), controllers, healthy_as_stored)
        written = {**status.to_status(), "observedGeneration": 0 if status.failed is not None else gen}
        out.append((budget_of(pdb, written, gen), CONTROLLER))
    return tuple(sorted(out, key=lambda pair: pair[0].key))


def budget_json(budget: Budget, source: str) -> dict:
    """A budget as the document writes it (the conditions' type, status, reason and message)."""
    status: dict[str, Any] = {
        "observedGeneration": budget.observed_generation, "currentHealthy": budget.current_healthy,
        "desiredHealthy": budget.desired_healthy, "expectedPods": budget.expected_pods,
        "disruptionsAllowed": budget.disruptions_allowed,
        "conditions": [{k: c[k] for k in ("type", "status", "reason", "message") if c.get(k)}
                       for c in budget.conditions]}
    if budget.disrupted_pods:
        status["disruptedPods"] = list(budget.disrupted_pods)
    return {"name": budget.key, "statusFrom": source, "status": status}


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


def numbers(budget: Budget | None) -> dict | None:
    """A budget's four numbers (healthy, desired, expected, allowed), for the explanation."""
    if budget is None:
        return None
    return {"name": budget.key, "currentHealthy": budget.current_healthy, "desiredHealthy": budget.desired_healthy,
            "expectedPods": budget.expected_pods, "disruptionsAllowed": budget.disruptions_allowed}


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

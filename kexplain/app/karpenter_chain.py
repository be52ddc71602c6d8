"""The chain of Karpenter's decision (`decision.chain`): for each node the acting method would
disrupt, what its termination asks of each pod (`karpenter.disruption.termination`: the drain's
groups and order), the Eviction API's answer against the PodDisruptionBudgets exactly as
`kexplain evict drain` answers it (the same budgets with their status, given or the disruption
controller's, the same `evict` spending one disruption per eviction, across the nodes in name
order), Karpenter's events for it, and where the pod lands: the node or the replacement NodeClaim
the method's own simulation put it on. A pod refused by its budget is retried by Karpenter; the
node waits for it, and so do the pods of the groups after it: with no end, or, for a NodeClaim with
a `terminationGracePeriod`, until Karpenter deletes each pod past its budget so that its own grace
ends by the node's termination time (`termination.deadline`, `termination.forced_delete`)."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.app.eviction.drain_budgets import budget_json, budgets_of, numbers
from kexplain.app.eviction.drain_index import WORKLOADS, DrainIndex
from kexplain.controllers.disruption import KIND as PDB_KIND, NamespacePods
from kexplain.eviction.api import Budget
from kexplain.eviction.drain.drain import evict_pods
from kexplain.eviction.versions import drain_rules
from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption import termination as term
from kexplain.karpenter.disruption.pods import DO_NOT_DISRUPT, ignored_do_not_disrupt, is_reschedulable
from kexplain.karpenter.state.cluster import is_owned_by_daemonset, is_owned_by_node
from kexplain.karpenter.utils.objects import name_of
from kexplain.model.pod import PodInfo

EVICTED, REFUSED, WAITS, LEFT = "evicted", "refused", "waits", "not-evicted"
NOT_SIMULATED = ("not simulated: {method} replaces the node from its NodePool's template, the provisioner places "
                 "its pods later")


def budget_index(inputs: Any, namespaces: set[str]) -> DrainIndex:
    """The objects the Eviction API and the disruption controller read, of the namespaces of the
    pods evicted (a budget selects only its own namespace's): the budgets, the workload
    controllers, the bound pods by namespace."""
    pods: dict[str, list[PodInfo]] = {}
    for pod in inputs.bound_pods:
        if pod.namespace in namespaces:
            pods.setdefault(pod.namespace, []).append(pod)
    objects = [o for kind in (PDB_KIND, *WORKLOADS) for o in inputs.objects.get(kind, ())
               if ((o.get("metadata") or {}).get("namespace") or "default") in namespaces]
    return DrainIndex.of(objects, {ns: NamespacePods(p) for ns, p in pods.items()})


def landings(cmd: Any, method: str) -> tuple[dict[str, dict], str]:
    """Where the command's simulation put each pod (by namespace/name), and what to say of a pod it
    did not place (a command without a simulation: StaticDrift's)."""
    if cmd.results is None:
        return {}, NOT_SIMULATED.format(method=method)
    out: dict[str, dict] = {}
    for node in cmd.results.results.existing_nodes:
        for pod in node.pods:
            out[pod.key] = {"node": node.name()}
    for i, claim in enumerate(cmd.replacements, 1):
        for pod in claim.pods:
            out[pod.key] = {"replacement": i, "nodePool": claim.node_pool_name}
    return out, "not in the simulation: Karpenter does not count on it rescheduling"


def _not_moved(pod: PodInfo) -> str:
    if is_owned_by_daemonset(pod):
        return "a DaemonSet's pod: not rescheduled, it goes with the node"
    if is_owned_by_node(pod):
        return "a mirror pod: it goes with the node"
    return "not rescheduled (terminal or terminating)"


def _lands(pod: PodInfo, placed: Mapping[str, dict], otherwise: str) -> dict:
    key = f"{pod.namespace}/{pod.name}"
    if key in placed:
        return placed[key]
    return {"nowhere": otherwise if is_reschedulable(pod) else _not_moved(pod)}


def _answer(eviction: Any) -> dict:
    """The API's answer and the budget it read, as `evict drain`'s `evictions` and `spending` say them."""
    a = eviction.answer
    out: dict[str, Any] = {"evicted": a.evicted, "rule": a.rule}
    if not a.evicted:
        out["code"] = a.code
        if a.reason:
            out["reason"] = a.reason
        out["message"] = a.message
        if a.causes:
            out["causes"] = [dict(c) for c in a.causes]
    before, after = numbers(eviction.before), numbers(a.budget)
    if before is not None:
        out["pdb"], out["before"] = before["name"], before
    if after is not None:
        out["after"] = after
    return out


WHEN_DELETED = {"delete": "the command deletes the NodeClaim now",
                "replace": "the command deletes the NodeClaim once its replacements are initialized: from now here, "
                           "later by that wait"}


def _deadline(candidate: Any, end: term.Deadline, decision: str, recorder: ev.Recorder) -> dict:
    """The node's termination time as JSON, with the events its NodeClaim's deletion brings."""
    out: dict[str, Any] = {"terminationTime": end.text(), "annotation": term.TERMINATION_TIMESTAMP}
    if end.period:
        out["period"] = end.period
    if end.deleted is None:
        out["from"] = "the NodeClaim's annotation"
    else:
        out["nodeClaimDeleted"] = term.go_rfc3339(end.deleted)
        out["from"] = WHEN_DELETED.get(decision, WHEN_DELETED["delete"])
        recorder.publish(term.grace_period_expiring("NodeClaim", name_of(candidate.node_claim), end))
    recorder.publish(term.grace_period_expiring("Node", candidate.name(), end))
    return out


def _forced(order: list[term.DrainPod], end: term.Deadline | None, now: Any, recorder: ev.Recorder) -> dict[str, dict]:
    """DeleteExpiringPods for the pods the drain waits for, by namespace/name: when Karpenter deletes
    each past its budget and do-not-disrupt, and the grace it grants."""
    out: dict[str, dict] = {}
    for d in order if end is not None else ():
        forced = term.forced_delete(d.pod, end, now) if d.group is not None else None
        if forced is None:
            continue
        out[f"{d.pod.namespace}/{d.pod.name}"] = entry = {"at": term.go_rfc3339(forced.at), "by": end.text(),
                                                           "terminationGracePeriodSeconds": forced.pod_grace}
        if forced.event is not None:
            entry["gracePeriodSeconds"] = forced.granted
            recorder.publish(forced.event)
    return out


def node_chain(candidate: Any, pods: list[PodInfo], budgets: dict[str, Budget], placed: Mapping[str, dict],
               otherwise: str, reason: str, ctx: Any, rules: Any, decision: str = "delete") -> dict:
    """One node's drain: every pod in the terminator's order with its answer and where it lands;
    `budgets` (by namespace/name) spent in place."""
    recorder = ev.Recorder()
    order = term.drain_order(pods, ctx.now, ev.NopRecorder())
    end = term.deadline(candidate.node_claim, ctx.now)
    grace = _deadline(candidate, end, decision, recorder) if end is not None else None
    forced = _forced(order, end, ctx.now, recorder)
    entries, held = [], None         # held: the first group a pod still holds
    for d in order:
        entry: dict[str, Any] = {"pod": f"{d.pod.namespace}/{d.pod.name}"}
        if d.group is not None:
            entry["group"] = term.GROUPS[d.group]
        if d.skip:
            entry.update(outcome=LEFT, why=d.skip)
            if d.group is not None and held is None:
                held = d.group
        elif held is not None and d.group is not None and d.group > held:
            entry.update(outcome=WAITS, why=f"waits until the {term.GROUPS[held]} pods are gone")
        else:
            (eviction,), after = evict_pods([d.pod], budgets.values(), rules)
            budgets.clear()
            budgets.update(after)
            entry.update(outcome=EVICTED if eviction.answer.evicted else REFUSED, **_answer(eviction))
            if eviction.answer.evicted:
                recorder.publish(term.evicted(d.pod, reason))
            else:
                held = d.group if held is None else held
                if term.asks_again(eviction.answer.code, eviction.answer.message):
                    recorder.publish(term.failed_to_drain(candidate.name(), d.pod, eviction.answer.message))
        if entry["pod"] in forced and (entry["outcome"] != EVICTED or "gracePeriodSeconds" in forced[entry["pod"]]):
            entry["deleted"] = forced[entry["pod"]]
        entry["lands"] = _lands(d.pod, placed, otherwise)
        ignored = ignored_do_not_disrupt(d.pod)
        if ignored is not None:         # a do-not-disrupt Karpenter cannot read protects nothing
            entry["doNotDisruptIgnored"] = {"value": str(d.pod.annotation(DO_NOT_DISRUPT)), "reason": ignored.reason,
                                            "message": ignored.message}
        entries.append(entry)
    out: dict[str, Any] = {"node": candidate.name()}
    if candidate.node_claim is not None:
        out["nodeClaim"] = name_of(candidate.node_claim)
    out["drained"] = held is None
    if grace is not None:
        out["terminationGracePeriod"] = grace
    out["pods"] = entries
    out["events"] = [e.as_dict() for e in recorder.emitted]
    return out


def chain(result: Any, inputs: Any, minor: str) -> dict:
    """The chain of the acting method's commands (empty when no method acts): `nodes`, each command's
    in name order; `pdbs`, the budgets the evictions read, before them, as `evict drain` writes them."""
    acting = result.acting
    if acting is None:
        return {}
    namespaces = {p.namespace for cmd in acting.commands for c in cmd.candidates for p in result.ctx.pods_on(c.state)}
    read = [pair for _, pair in budgets_of(budget_index(inputs, namespaces), {}, result.ctx.budget_statuses)]
    budgets = {b.key: b for b, _ in read}
    rules = drain_rules(minor)
    nodes = []
    for cmd in acting.commands:
        placed, otherwise = landings(cmd, acting.method.name)
        for candidate in sorted(cmd.candidates, key=lambda c: c.name()):
            nodes.append(node_chain(candidate, result.ctx.pods_on(candidate.state), budgets, placed, otherwise,
                                    acting.method.reason, result.ctx, rules, cmd.decision()))
    used = {p["pdb"] for n in nodes for p in n["pods"] if p.get("pdb")}
    return {"nodes": nodes, "pdbs": [budget_json(b, source) for b, source in read if b.key in used]}

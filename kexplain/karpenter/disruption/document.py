"""The disruption pass's document (the shape of ../shared/karpenter-disruption/README.md), built
from the result alone; renderers read only this. Keys the README leaves out when empty are left
out; lists are sorted where the README says so."""
from __future__ import annotations

from typing import Any

from kexplain.karpenter.cloudprovider.types import format_price
from kexplain.karpenter.disruption.budgets import LOG, REASONS, invalid_log, schedule_fixes
from kexplain.karpenter.disruption.candidate import (CAPACITY_TYPE_LABEL, INSTANCE_TYPE_LABEL, NODEPOOL_LABEL,
                                                    ZONE_LABEL, Command)
from kexplain.karpenter.disruption.balanced import estimated_savings
from kexplain.karpenter.disruption.controller import DisruptionResult, MethodRun, NodeVerdict
from kexplain.karpenter.disruption.versions import DEFAULT, DisruptionRules
from kexplain.karpenter.utils.objects import name_of

def _put(doc: dict[str, Any], key: str, value: Any) -> None:
    if value not in ("", None, [], {}):
        doc[key] = value


def _node_fields(state: Any) -> dict[str, Any]:
    labels = state.labels()
    out: dict[str, Any] = {"node": state.name()}
    _put(out, "nodeClaim", name_of(state.node_claim) if state.node_claim is not None else "")
    _put(out, "nodePool", labels.get(NODEPOOL_LABEL, ""))
    _put(out, "instanceType", labels.get(INSTANCE_TYPE_LABEL, ""))
    _put(out, "capacityType", labels.get(CAPACITY_TYPE_LABEL, ""))
    _put(out, "zone", labels.get(ZONE_LABEL, ""))
    return out


def node_entry(v: NodeVerdict, eligible: list[str]) -> dict[str, Any]:
    doc = _node_fields(v.state)
    doc.update({"pods": v.pods, "reschedulablePods": v.reschedulable, "candidate": v.candidate is not None})
    _put(doc, "error", v.error)
    _put(doc, "blocked", v.blocked)
    if (v.candidate_eventual is not None) != (v.candidate is not None):
        doc["candidateEventual"] = v.candidate_eventual is not None
        _put(doc, "errorEventual", v.error_eventual)
        _put(doc, "blockedEventual", v.blocked_eventual)
    if v.candidate is not None:
        doc["disruptionCost"] = round(v.candidate.disruption_cost, 6)
    _put(doc, "eligible", eligible)
    return doc


def budget_entry(v: Any) -> dict[str, Any]:
    """One budget's verdict for a reason (not in Karpenter's document: the arithmetic behind `allowed`)."""
    doc: dict[str, Any] = {"nodes": v.nodes, "applies": v.applies, "active": v.active, "allowed": v.allowed}
    _put(doc, "schedule", v.schedule)
    _put(doc, "duration", v.duration)
    _put(doc, "reasons", list(v.reasons or ()))
    _put(doc, "error", v.error)
    if v.change == "always":
        doc["alwaysActive"] = True          # each window reaches the next firing: it never closes
    elif v.change == "never":
        doc["neverActive"] = True
    elif v.change_at is not None:
        doc[v.change] = v.change_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    return doc


def invalid_entry(node_pool: Any, now: Any, num_nodes: int) -> dict[str, Any]:
    """A NodePool whose budgets Karpenter cannot read: the budgets at fault (each with its error and
    the corrected schedule, with what the budgets then allow) and Karpenter's log line."""
    log = invalid_log(node_pool, now)
    if not log:
        return {}
    bad = schedule_fixes(node_pool, now, num_nodes)
    return {**({"invalidBudgets": bad} if bad else {}), "log": {"message": LOG, "error": log}}


def _requirement_values(reqs: Any, key: str) -> list[str]:
    r = reqs.get(key)
    return [] if r.complement else sorted(r.values())


def _pods(pods: Any) -> list[str]:
    return sorted(p.key for p in pods)


def command_entry(cmd: Command, rules: DisruptionRules = DEFAULT) -> dict[str, Any]:
    candidates = sorted(cmd.candidates, key=lambda c: c.name())
    text_cmd = Command(candidates, cmd.replacements, cmd.results)
    doc: dict[str, Any] = {"decision": cmd.decision(), "text": text_cmd.text(),
                           "candidates": [_node_fields(c.state) for c in candidates]}
    replacements = []
    for claim in cmd.replacements:
        reqs = claim.requirements
        r: dict[str, Any] = {"nodePool": claim.node_pool_name,
                             "instanceTypes": [it.name for it in claim.instance_type_options],
                             "prices": [format_price(it.cheapest_price(reqs)) for it in claim.instance_type_options]}
        _put(r, "capacityTypes", _requirement_values(reqs, CAPACITY_TYPE_LABEL))
        _put(r, "zones", _requirement_values(reqs, ZONE_LABEL))
        _put(r, "pods", _pods(claim.pods))
        replacements.append(r)
    _put(doc, "replacements", replacements)
    existing = []
    if cmd.results is not None:
        for node in sorted(cmd.results.results.existing_nodes, key=lambda n: n.name()):
            if not node.pods:
                continue
            e: dict[str, Any] = {"node": node.name()}
            _put(e, "nodeClaim", name_of(node.state.node_claim) if node.state.node_claim is not None else "")
            e["pods"] = _pods(node.pods)
            existing.append(e)
    _put(doc, "existingNodes", existing)
    doc["estimatedSavings"] = f"{estimated_savings(rules, cmd):.4f}"
    return doc


def tie_entry(tie: Any) -> dict[str, Any]:
    """The ties that change a command (`ties.Tie`): the tied candidates with the value they share,
    the commands Karpenter may give (the pass's first) and the range of their savings."""
    savings = [f"{s:.4f}" for _, s in tie.commands]
    values = sorted(s for _, s in tie.commands)
    out: dict[str, Any] = {"orderedBy": tie.key}
    _put(out, "tied", [{"candidates": list(names), tie.key: value} for names, value in tie.groups])
    _put(out, "nodePools", list(tie.pools))
    return {**out,
            "commands": [{"text": Command(sorted(c.candidates, key=lambda x: x.name()), c.replacements).text(),
                          "estimatedSavings": s} for (c, _), s in zip(tie.commands, savings)],
            "savings": {"min": f"{values[0]:.4f}", "max": f"{values[-1]:.4f}"}}


def method_entry(run: MethodRun) -> dict[str, Any]:
    m = run.method
    doc: dict[str, Any] = {"method": m.name, "reason": m.reason}
    _put(doc, "consolidationType", m.consolidation_type)
    doc["reached"] = run.reached
    doc["candidates"] = [c.name() for c in run.candidates]
    if run.budgets is not None:
        doc["budgets"] = dict(sorted(run.budgets.items()))
    doc["outcome"] = run.outcome
    _put(doc, "error", run.error)
    _put(doc, "commands", [command_entry(c, m.ctx.rules) for c in run.commands])
    _put(doc, "events", [e.as_dict() for e in run.events])
    _put(doc, "published", run.published)
    if run.tie is not None:
        doc["ties"] = tie_entry(run.tie)
    return doc


def build_document(result: DisruptionResult) -> dict[str, Any]:
    ctx = result.ctx
    eligible: dict[str, list[str]] = {}
    for run in result.methods:
        for c in run.candidates:
            eligible.setdefault(c.name(), []).append(run.method.name)
    doc: dict[str, Any] = {"karpenter": ctx.rules.build, "pass": "disruption"}
    _put(doc, "provisioningScheduleError", result.schedule_error)
    _put(doc, "nominatedNodes", result.nominated)
    per_pool: dict[str, dict[str, Any]] = {}
    for reason in REASONS:
        for b in result.budgets[reason]:
            entry = per_pool.setdefault(b.node_pool, {"nodePool": b.node_pool, "nodes": b.nodes, "allowed": {}})
            entry["allowed"][reason] = b.remaining
            entry.setdefault("reasons", {})[reason] = {
                "budgetsAllow": b.allowed, "disrupting": b.disrupting,
                "budgets": [budget_entry(v) for v in result.budget_details.get(b.node_pool, {}).get(reason, ())]}
    pools = {np.name: np for np in ctx.inputs.node_pools}
    for entry in per_pool.values():
        pool = pools.get(entry["nodePool"])
        if pool is not None:
            entry.update(invalid_entry(pool, ctx.now, entry["nodes"]))
    doc["budgets"] = list(per_pool.values())
    doc["nodes"] = [node_entry(v, eligible.get(v.state.name(), [])) for v in result.nodes]
    doc["methods"] = [method_entry(r) for r in result.methods]
    acting = result.acting
    doc["decision"] = ({"method": acting.method.name, "reason": acting.method.reason,
                        "commands": [command_entry(c, ctx.rules) for c in acting.commands]} if acting is not None else None)
    if acting is not None and acting.tie is not None:
        doc["decision"]["ties"] = tie_entry(acting.tie)
    doc["events"] = [e.as_dict() for r in result.methods if r.reached for e in r.events]
    summary: dict[str, Any] = {"decision": acting.commands[0].decision() if acting is not None else "none"}
    if acting is not None:
        summary["method"] = acting.method.name
    summary["candidates"] = sum(1 for v in result.nodes if v.candidate is not None)
    summary["blocked"] = sum(1 for v in result.nodes if v.blocked)
    summary["disrupted"] = sum(len(c.candidates) for c in acting.commands) if acting is not None else 0
    doc["summary"] = summary
    return doc


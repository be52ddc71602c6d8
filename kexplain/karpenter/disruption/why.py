"""Why Karpenter does not remove one node (`kexplain karpenter --disruption --node NAME`): every
check that stops it, in the order Karpenter makes them, read from the pass's own result and its
engine: NewCandidate's checks (each one, not only the first that fails), then per method its
filter (ShouldDisrupt), the budget for its reason, and what its command computation decided; for
consolidation, what the simulation of the node alone found (the pods that would not schedule and
why, the new NodeClaims it would need, the cheapest type that would hold its pods against the
node's price). Karpenter's words where Karpenter has words (`karpenter: True`)."""
from __future__ import annotations

import difflib
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

from kexplain.karpenter.cloudprovider.types import InstanceTypes, format_price
from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption.budgets import schedule_fixes
from kexplain.karpenter.disruption.candidate import (EVENTUAL, NODEPOOL_LABEL, ZONE_LABEL, Candidate, Command, _annotations,
                                                    candidate_price, condition, sentence)
from kexplain.karpenter.disruption.consolidation import Consolidation, worst_launch_price
from kexplain.karpenter.disruption.controller import DisruptionResult, MethodRun, NodeVerdict
from kexplain.karpenter.disruption.helpers import CandidateDeleting, SimulationError, simulate_scheduling
from kexplain.karpenter.disruption.pods import DO_NOT_DISRUPT, ignored_do_not_disrupt, is_disruptable, is_terminating

CLOSEST = 3                     # node names an unknown --node NAME suggests
DISRUPTED, NOT_REACHED, STAYS = "disrupted", "command-not-reached", "stays"


class UnknownNode(ValueError):
    """--node names no node of the pass (its text: the closest names)."""


@dataclass(frozen=True)
class Check:
    """One check that stops the node: the step (NewCandidate or a method), what is checked, the
    words (Karpenter's when `karpenter`), and the facts behind them (pods, PDBs, prices, ...)."""

    step: str
    check: str
    message: str
    karpenter: bool = True
    detail: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "check": self.check, "message": self.message,
                               "karpenter": self.karpenter}
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True)
class NodeWhy:
    """The answer for one node: its verdict (DISRUPTED by the acting method, in a command of a method
    not reached, or STAYS) and the checks that stop it."""

    name: str
    verdict: str
    method: str
    checks: tuple[Check, ...]
    verdict_of: NodeVerdict


def find_node(result: DisruptionResult, name: str) -> NodeVerdict:
    """The node's verdict; UnknownNode with the closest names when the pass has none of that name."""
    names = [v.state.name() for v in result.nodes]
    for v in result.nodes:
        if v.state.name() == name:
            return v
    for v in result.nodes:      # its Node's or NodeClaim's own name (Karpenter names a node not yet
        #                         registered after its NodeClaim, one registered after its Node)
        if name in (_object_name(v.state.node), _object_name(v.state.node_claim)):
            return v
    if not names:
        raise UnknownNode(f"--node {name}: no node in the inputs")
    close = difflib.get_close_matches(name, names, n=CLOSEST)
    among = f"among the {len(names)} node{'s' if len(names) != 1 else ''} of the inputs"
    raise UnknownNode(f"--node {name}: no node of that name {among}"
                      + (f"; the closest: {', '.join(close)}" if close else f" ({', '.join(names[:10])})"))


def _object_name(obj: Any) -> Any:
    return ((obj.get("metadata") or {}).get("name")) if isinstance(obj, dict) else None


@contextmanager
def own_recorder(ctx: Any) -> Iterator[ev.Recorder]:
    """The pass's context with a fresh recorder for a question asked again (the pass's stays as it was)."""
    kept, ctx.recorder = ctx.recorder, ev.Recorder()
    try:
        yield ctx.recorder
    finally:
        ctx.recorder = kept


def explain(result: DisruptionResult, name: str) -> NodeWhy:
    v = find_node(result, name)
    name = v.state.name()           # (the name the pass knows it by)
    checks = candidate_checks(result, v)
    verdict, method = STAYS, ""
    for run in result.methods:
        cand = v.candidate_eventual if run.method.disruption_class == EVENTUAL else v.candidate
        if cand is None:
            continue
        found, stop = method_checks(result, run, cand)
        if found:
            verdict = DISRUPTED if run.reached else NOT_REACHED
            method = method or run.method.name
            if run.reached:             # what earlier methods passed over does not stop it
                return NodeWhy(name, verdict, method, (), v)
        checks.extend(stop)
    return NodeWhy(name, verdict, method, tuple(checks), v)


# -- NewCandidate -----------------------------------------------------------------------------------
def candidate_checks(result: DisruptionResult, v: NodeVerdict) -> list[Check]:
    """NewCandidate's checks, each one (Karpenter stops at the first)."""
    state, ctx = v.state, result.ctx
    step = "NewCandidate"
    if state.node_claim is None:
        return [Check(step, "managed", "node isn't managed by karpenter")]
    if state.node is None:
        return [Check(step, "node", "nodeclaim does not have an associated node")]
    out = []
    if not state.initialized():
        out.append(Check(step, "initialized", "Node isn't initialized"))
    if state.marked_for_deletion():
        out.append(Check(step, "deleting", "Node is deleting or marked for deletion"))
    if state.nominated:
        out.append(Check(step, "nominated", "Node is nominated for a pending pod"))
    if _annotations(state).get(DO_NOT_DISRUPT) == "true":
        out.append(Check(step, "node-do-not-disrupt",
                         'Disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation',
                         detail={"object": "NodeClaim" if state._reads_claim() else "Node"}))
    pool = state.labels().get(NODEPOOL_LABEL)
    if pool is None:
        out.append(Check(step, "nodepool-label", f"Node doesn't have required label (label={NODEPOOL_LABEL})"))
    elif pool not in ctx.node_pools or pool not in ctx.instance_types:
        out.append(Check(step, "nodepool", f"NodePool not found (NodePool={pool})"))
    pods = ctx.pods_on(state)
    out.extend(pod_checks(ctx, pods, v))
    return out


def pod_checks(ctx: Any, pods: list, v: NodeVerdict) -> list[Check]:
    """ValidatePodsDisruptable for every pod: each pod whose do-not-disrupt is active, each PDB that
    allows no eviction (or a pod under several)."""
    step, out = "NewCandidate", []
    recorder = ev.Recorder()
    eventual = v.candidate_eventual is not None and v.candidate is None
    note = {"drift": "ignored by Drift: the NodeClaim's terminationGracePeriod bounds the drain"} if eventual else {}
    for pod in pods:
        if not is_disruptable(pod, ctx.now, recorder):
            out.append(Check(step, "pod-do-not-disrupt", sentence(f'pod has "karpenter.sh/do-not-disrupt" annotation '
                                                                   f'(Pod={pod.key})'),
                             detail={"pod": pod.key, "value": str(pod.metadata.get("annotations", {})
                                                                  .get(DO_NOT_DISRUPT)), **note}))
    blocking: dict[tuple[str, ...], list[str]] = {}
    for pod in pods:
        keys, ok = ctx.pdbs.can_evict_pods([pod], ctx.now, recorder)
        if not ok:
            blocking.setdefault(tuple(keys), []).append(pod.key)
    for keys, blocked in blocking.items():
        text = (f"eviction does not support multiple PDBs (PodDisruptionBudget(s)=[{' '.join(keys)}])" if len(keys) > 1
                else f"pdb prevents pod evictions (PodDisruptionBudget=[{' '.join(keys)}])")
        out.append(Check(step, "pdb", sentence(text), detail={"pdbs": list(keys), "pods": blocked, **note}))
    return out


def ignored(result: DisruptionResult, name: str) -> list[dict[str, Any]]:
    """The node's do-not-disrupt annotations Karpenter ignores, so they protect nothing: a pod's
    value it cannot read (its InvalidDoNotDisruptAnnotation event, as its candidate check publishes
    it), the node's (or NodeClaim's) value other than exactly "true" (ValidateNodeDisruptable
    compares it, silently; "false" says nothing to protect and is left alone)."""
    v = find_node(result, name)
    out = []
    value = _annotations(v.state).get(DO_NOT_DISRUPT)
    if value is not None and value != "true" and value.lower() != "false":
        kind = "NodeClaim" if v.state._reads_claim() else "Node"
        out.append({"object": f"{kind} {v.state.name()}", "value": value,
                    "message": f'Karpenter blocks a node\'s disruption only for the value "true" exactly: '
                               f'"{value}" protects nothing, silently'})
    for pod in result.ctx.pods_on(v.state):
        event = ignored_do_not_disrupt(pod)
        if event is not None:
            out.append({"object": f"Pod {pod.key}", "value": str(pod.annotation(DO_NOT_DISRUPT)),
                        "message": 'Karpenter ignores it: "true" or a positive duration ("4h") protects the pod',
                        "event": {"reason": event.reason, "message": event.message}})
    return out


# -- the methods --------------------------------------------------------------------------------------
def in_commands(run: MethodRun, name: str) -> bool:
    return any(c.name() == name for cmd in run.commands for c in cmd.candidates)


def method_checks(result: DisruptionResult, run: MethodRun, cand: Candidate) -> tuple[bool, list[Check]]:
    """(in one of the method's commands, the checks that stop it in this method)."""
    step, m, name = run.method.name, run.method, cand.name()
    if in_commands(run, name):
        if run.reached:
            return True, []
        acting = result.acting.method.name if result.acting is not None else "an earlier method"
        return True, [Check(step, "not-reached", f"{step} would disrupt it, but {acting} acts first (Karpenter "
                            "runs one method a pass)", karpenter=False)]
    stop = filter_check(result, m, cand)
    if stop is not None:
        return False, [stop] if stop.message else []
    budget = (run.budgets or {}).get(cand.node_pool.name)
    if budget == 0:
        return False, [budget_check(result, step, m.reason, cand)]
    return False, command_checks(result, run, cand)


def filter_check(result: DisruptionResult, m: Any, cand: Candidate) -> Check | None:
    """ShouldDisrupt's answer when it says no: Karpenter's event when it publishes one, else why (an
    empty message: the method does not concern the node, e.g. StaticDrift of a dynamic NodePool)."""
    with own_recorder(result.ctx) as recorder:
        if m.should_disrupt(cand):
            return None
    said = [e.message for e in recorder.emitted if e.object.startswith("Node ")]
    if said:
        return Check(m.name, "filter", said[0])
    static = cand.owned_by_static_node_pool()
    if m.name == "StaticDrift" and not static or m.name != "StaticDrift" and static:
        return Check(m.name, "filter", "")
    if m.name in ("StaticDrift", "Drift"):
        return Check(m.name, "drifted", "NodeClaim is not Drifted (its Drifted condition is not True)",
                     karpenter=False, detail=_condition_detail(cand, "Drifted"))
    if m.name == "Emptiness" and cand.reschedulable_pods:
        return Check(m.name, "empty", f"not empty: {len(cand.reschedulable_pods)} pod(s) would have to move",
                     karpenter=False, detail={"moving": [_moving(p) for p in cand.reschedulable_pods]})
    return Check(m.name, "consolidatable", "NodeClaim is not Consolidatable (its Consolidatable condition is not "
                 "True)", karpenter=False, detail=_condition_detail(cand, "Consolidatable"))


def _moving(pod: Any) -> str:
    """A pod that keeps the node from being empty; a terminating one (a StatefulSet's: IsReschedulable
    counts it, its successor needs the room) says so."""
    return f"{pod.key} (terminating, but a StatefulSet's: Karpenter still moves it)" if is_terminating(pod) else pod.key


def _condition_detail(cand: Candidate, kind: str) -> dict[str, Any]:
    c = condition(cand.node_claim, kind)
    if c is None:
        return {"condition": "absent"}
    return {k: v for k, v in (("condition", c.get("status")), ("reason", c.get("reason")),
                               ("lastTransitionTime", c.get("lastTransitionTime"))) if v}


def budget_check(result: DisruptionResult, step: str, reason: str, cand: Candidate) -> Check:
    pool = cand.node_pool.name
    b = next((b for b in result.budgets[reason] if b.node_pool == pool), None)
    detail: dict[str, Any] = {"nodePool": pool, "reason": reason}
    if b is not None:
        detail.update({"nodes": b.nodes, "disrupting": b.disrupting, "budgetsAllow": b.allowed})
        bad = schedule_fixes(cand.node_pool, result.ctx.now, b.nodes)
        if bad:                         # (a schedule Karpenter cannot parse: 0 for every reason)
            detail["invalidBudgets"] = bad
    return Check(step, "budget", ev.node_pool_blocked_for_reason(cand.node_pool, reason).message, detail=detail)


def command_checks(result: DisruptionResult, run: MethodRun, cand: Candidate) -> list[Check]:
    """Why the method's command leaves the node out."""
    step, m, name = run.method.name, run.method, cand.name()
    if run.outcome == "Error":
        return [Check(step, "error", run.error)]
    if isinstance(m, Consolidation) and m.name != "Emptiness":
        if not cand.reschedulable_pods:
            return [Check(step, "empty", "empty: its deletion is Emptiness's", karpenter=False)]
        if m.name == "MultiNodeConsolidation":
            return [multi_check(run, name)]
        return simulation_checks(result, m, cand, run)
    if m.name == "Drift":
        return drift_checks(result, m, cand, run)
    if m.name == "StaticDrift":
        check, message, detail = m.left_out(dict(run.budgets or {}), run.candidates, cand)
        return [Check(step, check, message, karpenter=False, detail=detail)]
    if m.name == "Emptiness":
        return [Check(step, "budget-spent", "the budget's disruptions went to candidates cheaper to disrupt",
                      karpenter=False, detail={"command": [c.text() for c in run.commands]})]
    return [Check(step, "command", "not in the method's commands", karpenter=False)]


def multi_check(run: MethodRun, name: str) -> Check:
    if run.commands:
        return Check(run.method.name, "command", f"its command leaves it out: {run.commands[0].text()}",
                     karpenter=False)
    if len(run.candidates) < 2:
        return Check(run.method.name, "command", "the only candidate: multi-node consolidation takes two or more",
                     karpenter=False)
    return Check(run.method.name, "command", "no prefix of the candidates (cheapest to disrupt first) consolidates "
                 "together", karpenter=False)


def drift_checks(result: DisruptionResult, m: Any, cand: Candidate, run: MethodRun) -> list[Check]:
    with own_recorder(result.ctx) as recorder:
        try:
            cmds = type(m)(result.ctx).compute_commands({cand.node_pool.name: 1}, [cand])
        except SimulationError as err:
            return [simulation_error(m, err)]
    if cmds:
        alone = cmds[0].text()
        chosen = run.commands[0].text() if run.commands else ""
        return [Check(m.name, "order", f"it drifts alone ({alone}), but Drift takes one node a pass"
                      + (f": {chosen}" if chosen else ""), karpenter=False, detail={"command": alone})]
    said = [e.message for e in recorder.emitted if e.object == f"Node {cand.name()}"]
    return [Check(m.name, "simulation", said[0] if said else "its pods would not schedule")]


# -- consolidation's simulation --------------------------------------------------------------------
def simulation_checks(result: DisruptionResult, m: Any, cand: Candidate, run: MethodRun) -> list[Check]:
    """SingleNodeConsolidation: computeConsolidation of the node alone (Karpenter's event), with what
    its simulation found."""
    ctx = result.ctx
    with own_recorder(ctx) as recorder:
        try:
            cmd = type(m)(ctx).compute_consolidation([cand])
        except SimulationError as err:      # Karpenter logs it and tries the next candidate
            return [simulation_error(m, err)]
    if cmd.decision() != "no-op":
        chosen = run.commands[0].text() if run.commands else ""
        alone = Command([cand], cmd.replacements).text()
        types = [it.name for r in cmd.replacements[:1] for it in list(r.instance_type_options)[:1]]
        return [Check(m.name, "order", f"it consolidates alone ({alone}), but "
                      f"{'the command chosen first is ' + chosen if chosen else 'another candidate comes first'}",
                      karpenter=False, detail={"command": alone, **({"replacementType": types[0]} if types else {})})]
    said = [e.message for e in recorder.emitted if e.object == f"Node {cand.name()}"]
    detail = simulation_detail(ctx, cand)
    return [Check(m.name, "simulation", said[0] if said else "no command", bool(said), detail)]


def simulation_error(m: Any, err: SimulationError) -> Check:
    """The node's simulation fails (no ready NodePool, ...): Karpenter's log line, no event."""
    return Check(m.name, "error", f"failed computing consolidation: {err}", karpenter=False)


def simulation_detail(ctx: Any, cand: Candidate) -> dict[str, Any]:
    """What SimulateScheduling of the node alone found: pods that do not schedule (their errors),
    the new NodeClaims with their pods, or the one NodeClaim's cheapest type against the node's price."""
    try:
        with own_recorder(ctx):
            sim = simulate_scheduling(ctx, [cand])
    except (CandidateDeleting, SimulationError):
        return {}
    errs = sim.non_pending_errors()
    if errs:
        by_uid = {p.uid: p.key for p in sim.pods}
        return {"unschedulable": [{"pod": by_uid[u], "error": str(e)} for u, e in sorted(errs.items(),
                                                                                      key=lambda i: by_uid[i[0]])]}
    claims = sim.results.new_node_claims
    if len(claims) > 1:
        return {"newNodeClaims": [{"nodePool": c.node_pool_name, "pods": sorted(p.key for p in c.pods),
                                   "instanceTypes": [it.name for it in list(c.instance_type_options)[:5]],
                                   "zones": sorted(_values(c.requirements, ZONE_LABEL))}
                                  for c in claims]}
    if len(claims) == 1:
        claim = claims[0]
        ordered = InstanceTypes(claim.instance_type_options).order_by_price(claim.requirements)
        price = candidate_price(cand)
        out: dict[str, Any] = {"nodeType": cand.instance_type.name if cand.instance_type else "",
                               "nodePrice": format_price(price if price is not None else 0.0),
                               "pods": sorted(p.key for p in claim.pods)}
        if price is None:
            out["nodePriceNote"] = ("no offering of its type matches the node's labels (zone, capacity type): "
                                    "Karpenter prices it 0, so no replacement is cheaper")
        if ordered:
            cheapest = min(ordered, key=lambda it: worst_launch_price(it, claim.requirements))
            out.update({"cheapestType": cheapest.name,
                        "cheapestPrice": format_price(worst_launch_price(cheapest, claim.requirements)),
                        "capacityTypes": sorted(_values(claim.requirements, "karpenter.sh/capacity-type"))})
        return out
    return {}


def _values(reqs: Any, key: str) -> list[str]:
    r = reqs.get(key)
    return [] if r.complement else list(r.values())


"""The disruption controller's pass (controllers/disruption/controller.go): Reconcile's methods in
order over one unchanged cluster, each method as `disrupt` runs it (GetCandidates, the budget
mapping, ComputeCommands, the no-op commands dropped). Every method is evaluated; `reached` says
which ones Reconcile gets to (it stops at the first that returns a command)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption.budgets import REASONS, verdicts
from kexplain.karpenter.disruption.candidate import EVENTUAL, GRACEFUL, NO_OP, Candidate, CandidateError, Command
from kexplain.karpenter.disruption.drift import Drift
from kexplain.karpenter.disruption.emptiness import Emptiness
from kexplain.karpenter.disruption.helpers import (Context, PoolBudget, SimulationError, build_disruption_budget_mapping,
                                                  get_candidates, nominate, pool_budgets)
from kexplain.karpenter.disruption.multinode import MultiNodeConsolidation
from kexplain.karpenter.disruption.singlenode import SingleNodeConsolidation
from kexplain.karpenter.disruption.staticdrift import StaticDrift
from kexplain.karpenter.disruption.ties import Tie, find_tie
from kexplain.karpenter.disruption.versions import DEFAULT, DisruptionRules

METHODS = {m.name: m for m in (Emptiness, StaticDrift, Drift, MultiNodeConsolidation, SingleNodeConsolidation)}
NO_CANDIDATES, NO_COMMAND, COMMAND, ERROR = "NoCandidates", "NoCommand", "Command", "Error"


@dataclass
class MethodRun:
    """One method's turn: its candidates, the budget mapping it was given, its commands and events."""

    method: Any
    candidates: list[Candidate]
    budgets: dict[str, int] | None
    outcome: str
    commands: list[Command] = field(default_factory=list)
    error: str = ""
    events: list[ev.Event] = field(default_factory=list)
    published: dict[str, int] = field(default_factory=dict)
    reached: bool = False
    tie: Tie | None = None          # the ties that change its command (`ties`)


@dataclass
class NodeVerdict:
    """NewCandidate's answer for one state node, in each disruption class."""

    state: Any
    pods: int
    reschedulable: int
    candidate: Candidate | None
    error: str
    blocked: str
    candidate_eventual: Candidate | None
    error_eventual: str
    blocked_eventual: str


@dataclass
class DisruptionResult:
    """What the pass decided, for the document and the renderers."""

    ctx: Context
    nominated: list[str]
    schedule_error: str
    nodes: list[NodeVerdict]
    budgets: dict[str, list[PoolBudget]]        # reason -> per NodePool
    budget_details: dict[str, dict[str, Any]]   # NodePool -> reason -> the budgets' verdicts
    methods: list[MethodRun]

    @property
    def acting(self) -> MethodRun | None:
        return next((m for m in self.methods if m.reached and m.commands), None)


def verdict(ctx: Context, state: Any) -> NodeVerdict:
    pods = ctx.pods_on(state)
    out: dict[str, tuple[Candidate | None, str, str]] = {}
    for cls in (GRACEFUL, EVENTUAL):
        recorder = ev.Recorder()
        try:
            out[cls] = (ctx.candidate(state, cls, recorder), "", "")
        except CandidateError as err:
            blocked = next((e.message for e in recorder.emitted if e.reason == ev.DISRUPTION_BLOCKED), "")
            out[cls] = (None, str(err), blocked)
    made = out[GRACEFUL][0] or out[EVENTUAL][0]
    reschedulable = len(made.reschedulable_pods) if made is not None else ctx.reschedulable_on(state)
    return NodeVerdict(state, len(pods), reschedulable, *out[GRACEFUL], *out[EVENTUAL])


def run_method(ctx: Context, method: Any) -> MethodRun:
    ctx.recorder.begin()
    candidates = get_candidates(ctx, method.should_disrupt, method.disruption_class)
    run = MethodRun(method, sorted(candidates, key=lambda c: c.name()), None, NO_CANDIDATES)
    if candidates:
        mapping = build_disruption_budget_mapping(ctx, method.reason)
        run.budgets = dict(mapping)
        try:
            cmds = [c for c in method.compute_commands(mapping, list(candidates)) if c.decision() != NO_OP]
            run.commands, run.outcome = cmds, COMMAND if cmds else NO_COMMAND
        except SimulationError as err:
            run.outcome, run.error = ERROR, f"computing disruption decision, {err}"
    run.events = sorted(ctx.recorder.emitted, key=lambda e: e.object)
    run.published = dict(sorted(ctx.recorder.published.items()))
    return run


def disrupt(inputs: Any, cloud: Any, cluster: Any, now: datetime, rules: DisruptionRules = DEFAULT,
            options: Any = None) -> DisruptionResult:
    """The pass: the provisioning schedule's nominations (when pods are pending), each node's
    verdict, the budgets, then every method in Karpenter's order."""
    ctx = Context(inputs, cloud, cluster, now, rules)
    nominated, schedule_error = nominate(ctx, options) if inputs.pending else ([], "")
    nodes = [verdict(ctx, state) for state in ctx.cluster.nodes]      # (the nominated ones copies: `nominate`)
    budgets = {reason: pool_budgets(ctx, reason) for reason in REASONS}
    counts = {b.node_pool: b.nodes for b in budgets[REASONS[0]]}
    details = {np.name: {reason: verdicts(np, now, counts.get(np.name, 0), reason, windows=True)
                          for reason in REASONS}
               for np in inputs.node_pools if np.name in counts}
    methods = []
    acted = False
    for name in rules.methods:
        run = run_method(ctx, METHODS[name](ctx))
        run.reached = not acted
        acted = acted or bool(run.commands) or run.outcome == ERROR
        methods.append(run)
    acting = next((m for m in methods if m.reached and m.commands), None)
    if acting is not None:          # (after every method: the runs it makes take no hostname of theirs)
        acting.tie = find_tie(acting.method, acting.budgets, acting.candidates, acting.commands[0])
    return DisruptionResult(ctx, nominated, schedule_error, nodes, budgets, details, methods)

"""Ties Karpenter breaks at random. GetCandidates lists the state nodes from a Go map
(`Cluster.DeepCopyNodes`: `lo.Values(c.nodes)`), and the consolidation methods order them with
`sort.Slice` by disruption cost (v1.14: by savings ratio): candidates with the same value come out
in the map's order, which changes from run to run. Where such a tie straddles what the command
takes (a budget or a multi-node batch cuts it, or single-node consolidation takes the first that
works), Karpenter itself gives different commands from run to run. kexplain orders a tie by name
(`balanced.sort_candidates` is stable over the name order); this module finds the ties that change
the command and the commands Karpenter may give instead: the method run again with each tied
candidate left out of the command put first of its tie, and with the tie dearest and cheapest first
(the runs' events and hostnames are not the pass's). Single-node consolidation also interleaves the NodePools in a Go map's order (`lo.Keys`):
the method is run again with each other NodePool first. Drift sorts the same list by the Drifted
condition's time (empty nodes first): a tie there is the same."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kexplain.karpenter.disruption import events as ev
from kexplain.karpenter.disruption.balanced import estimated_savings, node_price, reschedule_disruption_cost
from kexplain.karpenter.disruption.candidate import NO_OP, Candidate, Command
from kexplain.karpenter.disruption.drift import drifted_at
from kexplain.karpenter.disruption.termination import go_rfc3339
from kexplain.karpenter.disruption.helpers import SimulationError

MAX_RUNS = 8            # alternative runs per decision: each is a whole method's simulations
DISRUPTION_COST, SAVINGS_RATIO, DRIFTED_AT = "disruptionCost", "savingsRatio", "driftedAt"


@dataclass(frozen=True)
class Tie:
    """The tied candidates (by name, per tie, with the value they share), and the commands
    Karpenter may give (the pass's first), each with its estimated savings."""

    key: str                        # what the order compares (DISRUPTION_COST, SAVINGS_RATIO, DRIFTED_AT)
    groups: tuple[tuple[tuple[str, ...], Any], ...]
    commands: tuple[tuple[Command, float], ...]
    pools: tuple[str, ...] = ()     # single-node consolidation's NodePools, when their order changes it


def order_value(rules: Any, c: Candidate) -> float:
    """What sortCandidates compares: the disruption cost, or (v1.14) the savings ratio."""
    if not rules.order_by_savings_ratio:
        return c.disruption_cost
    return node_price(c) / reschedule_disruption_cost(c)


def _order(method: Any, c: Candidate) -> tuple[Any, Any]:
    """What places `c` in the method's order, and how the document says it: Drift's Drifted time
    (empty nodes first), the consolidation methods' `order_value`."""
    if method.name == "Drift":
        at = drifted_at(c)
        return (bool(c.reschedulable_pods), at), (go_rfc3339(at) if at is not None else "")
    value = order_value(method.ctx.rules, c)
    return value, round(value, 6)


def _groups(method: Any, candidates: list[Candidate]) -> list[list[Candidate]]:
    """Candidates sharing the order's value (single-node consolidation: within a NodePool, as it
    interleaves the NodePools after the sort), two or more, in name order."""
    by: dict[tuple, list[Candidate]] = {}
    per_pool = method.name == "SingleNodeConsolidation"
    for c in sorted(candidates, key=lambda c: c.name()):
        by.setdefault((c.node_pool.name if per_pool else "", _order(method, c)[0]), []).append(c)
    return [g for g in by.values() if len(g) > 1]


def _run(method: Any, budgets: dict[str, int], candidates: list[Candidate], first_pool: str = "") -> Command | None:
    """The method again over `candidates` in this order (single-node consolidation: `first_pool`
    interleaved first), on a scratch recorder; the hostname counter put back after."""
    ctx = method.ctx
    recorder, count = ctx.recorder, ctx.placeholders.count
    ctx.recorder = ev.Recorder()
    if first_pool:
        method.first_pool = first_pool
    try:
        cmds = [c for c in method.compute_commands(dict(budgets), list(candidates)) if c.decision() != NO_OP]
    except SimulationError:
        cmds = []
    finally:
        ctx.recorder, ctx.placeholders.count = recorder, count
        if first_pool:
            method.first_pool = ""
    return cmds[0] if cmds else None


def _pool_orders(method: Any, budgets: dict[str, int], ordered: list[Candidate], shown: Command,
                 found: dict[str, tuple[Command, float]]) -> tuple[str, ...]:
    """Single-node consolidation with each other NodePool (of a budget left) first: the NodePools
    when one of them changes the command, else none."""
    if method.name != "SingleNodeConsolidation":
        return ()
    pools = sorted({c.node_pool.name for c in ordered if budgets.get(c.node_pool.name, 0) != 0})
    changed = False
    for pool in pools[1:MAX_RUNS + 1]:
        cmd = _run(method, budgets, ordered, pool)
        if cmd is not None and _text(cmd) != _text(shown):
            changed = True
            found.setdefault(_text(cmd), (cmd, estimated_savings(method.ctx.rules, cmd)))
    return tuple(pools) if changed else ()


def _in_order(candidates: list[Candidate], group: list[Candidate], order: list[Candidate]) -> list[Candidate]:
    """`candidates` with the tie's members in `order` (the sort is stable: their order in the input
    is their order after it)."""
    members = {id(c) for c in group}
    upcoming = iter(order)
    return [next(upcoming) if id(c) in members else c for c in candidates]


def _orders(group: list[Candidate], taken: set[int]) -> list[list[Candidate]]:
    """The tie's orders to try: each member left out of the command first; for three or more, the
    dearest first and the cheapest first too (a budget or a batch that takes some of them takes the
    most or the least then)."""
    out = [[first, *(c for c in group if c is not first)] for first in group if id(first) not in taken]
    if len(group) > 2:
        by_price = sorted(group, key=node_price)
        out += [by_price[::-1], by_price]
    return out


def _text(cmd: Command) -> str:
    return Command(sorted(cmd.candidates, key=lambda c: c.name()), cmd.replacements, cmd.results).text()


def find_tie(method: Any, budgets: dict[str, int] | None, candidates: list[Candidate], shown: Command) -> Tie | None:
    """The ties that change the command of `method` (which gave `shown` over `candidates` in name
    order with `budgets`), and the commands each gives when another of its candidates goes first;
    None when no tie changes it."""
    if budgets is None or not (method.consolidation_type or method.name == "Drift"):
        return None
    ordered = sorted(candidates, key=lambda c: c.name())
    taken = {id(c) for c in shown.candidates}
    found: dict[str, tuple[Command, float]] = {_text(shown): (shown, estimated_savings(method.ctx.rules, shown))}
    groups, runs = [], 0
    for group in _groups(method, ordered):
        if not any(id(c) in taken for c in group) or all(id(c) in taken for c in group):
            continue
        changed = False
        for order in _orders(group, taken):
            if runs == MAX_RUNS:
                break
            runs += 1
            cmd = _run(method, budgets, _in_order(ordered, group, order))
            if cmd is not None and _text(cmd) not in found:
                found[_text(cmd)] = (cmd, estimated_savings(method.ctx.rules, cmd))
            changed = changed or (cmd is not None and _text(cmd) != _text(shown))
        if changed:
            groups.append((tuple(c.name() for c in group), _order(method, group[0])[1]))
    pools = _pool_orders(method, budgets, ordered, shown, found)
    if not groups and not pools:
        return None
    key = (DRIFTED_AT if method.name == "Drift" else SAVINGS_RATIO if method.ctx.rules.order_by_savings_ratio
           else DISRUPTION_COST)
    return Tie(key, tuple(groups), tuple(found.values()), pools)

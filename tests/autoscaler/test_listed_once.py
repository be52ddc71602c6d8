"""The report's Cluster Autoscaler loops (its pending section's, its scale-down section's) read one
stored state at two clocks: what CA's listers make of it (the budgets' notes, the groups' members) is
made once for both (`autoscaler.inputs._AdmittedOnce.listed`), and each loop is the one made alone."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from kexplain.app.cluster import pending, scaledown
from kexplain.autoscaler import inputs as ca_inputs
from kexplain.autoscaler.cloudprovider import Discovery
from kexplain.autoscaler.inputs import LoopInputs, loop_of_state
from tests.app.cluster.helpers import inputs_of

CASE = Path(__file__).parent / "cases" / "scaledown-0011"
GROUPS = str(CASE / "nodegroups.yaml")
NOW = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)


def _built(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    original = ca_inputs.budget_notes

    def counted(objs, *args, **kw):
        calls.append(1)
        return original(objs, *args, **kw)

    monkeypatch.setattr(ca_inputs, "budget_notes", counted)
    return calls


def _loop(state, now: datetime) -> LoopInputs:
    return loop_of_state(state, Discovery.from_file(GROUPS, None), None, max_bytes=10 ** 8, now=now)


def _seen(loop: LoopInputs) -> tuple:
    """What a loop reads, by value."""
    return (loop.now, loop.nodes, loop.group_members, [(ni.name, sorted(p.key for p in ni.pods))
                                                        for ni in loop.snapshot.node_infos],
            [p.key for p in loop.pending], loop.pending_created, loop.warnings, loop.daemonsets, loop.jobs,
            loop.provider)


def test_the_report_lists_its_state_once_for_both_loops(monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = inputs_of(CASE / "cluster.yaml", node_groups=GROUPS)
    built = _built(monkeypatch)
    pending.section(inputs)
    scaledown.section(inputs)
    assert len(built) == 1


def test_a_loop_at_another_clock_is_the_one_made_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    state = inputs_of(CASE / "cluster.yaml", node_groups=GROUPS).state
    later = NOW + timedelta(days=3)
    first = _loop(state, NOW)
    built = _built(monkeypatch)
    shared = _loop(state, later)
    assert built == []
    monkeypatch.setattr(ca_inputs, "_ADMITTED", ca_inputs._AdmittedOnce())
    alone = _loop(state, later)
    assert built == [1]
    assert _seen(shared) == _seen(alone)
    assert shared.nodes != first.nodes          # the nodes' facts are the loop's clock's
    assert shared.group_members is not first.group_members and shared.daemonsets is not first.daemonsets

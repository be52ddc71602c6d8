"""The report's Cluster Autoscaler loops (its pending section's, its scale-down section's) read one
stored state: CA's snapshot of it is built once for both (`autoscaler.inputs._AdmittedOnce.listed`: a
snapshot is never edited in place), each loop reading what the loop made alone reads."""
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


def _builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    original = ca_inputs.build_cluster

    def counted(*args, **kw):
        calls.append(1)
        return original(*args, **kw)

    monkeypatch.setattr(ca_inputs, "build_cluster", counted)
    return calls


def _loop(state, now: datetime) -> LoopInputs:
    return loop_of_state(state, Discovery.from_file(GROUPS, None), None, max_bytes=10 ** 8, now=now)


def _read(loop: LoopInputs) -> list:
    """What a loop reads of its snapshot, by value: each node, its pods, the other objects."""
    snap = loop.snapshot
    return [[(ni.name, ni.node.obj, sorted(p.key for p in ni.pods)) for ni in snap.node_infos],
            snap.namespaces, {k: list(v) for k, v in snap.objects.items()}]


def test_the_report_builds_the_snapshot_once_for_both_loops(monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = inputs_of(CASE / "cluster.yaml", node_groups=GROUPS)
    built = _builds(monkeypatch)
    pending.section(inputs)
    scaledown.section(inputs)
    assert len(built) == 1


def test_the_shared_snapshot_is_the_one_built_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    state = inputs_of(CASE / "cluster.yaml", node_groups=GROUPS).state
    first = _loop(state, NOW)
    built = _builds(monkeypatch)
    shared = _loop(state, NOW + timedelta(days=1))
    assert built == [] and shared.base is first.base
    monkeypatch.setattr(ca_inputs, "_ADMITTED", ca_inputs._AdmittedOnce())
    alone = _loop(state, NOW + timedelta(days=1))
    assert built == [1] and alone.base is not first.base
    assert _read(shared) == _read(alone)

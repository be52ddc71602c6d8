"""The report's Cluster Autoscaler loops (its pending section's, its scale-down section's) run over one
listing of one stored state, with the same pending pods: the second loop's FilterOutSchedulable replays
the first's searches (`autoscaler.inputs._Listed.shared`: one `SimMemo` for the listing's loops, a pod
known by its object), and answers as the loop run alone does."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.app.cluster import pending, scaledown
from kexplain.autoscaler import inputs as ca_inputs
from kexplain.autoscaler.simulator import ClusterSim
from tests.app.cluster.helpers import inputs_of

CASE = Path(__file__).parent / "cases" / "fits-existing-0167"
GROUPS = str(CASE / "nodegroups.yaml")


def _searches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The searches over every node that ran (not replayed), by pod (FilterOutSchedulable's; those
    among some nodes are never replayed)."""
    calls: list[str] = []
    original = ClusterSim._schedule_anywhere

    def counted(self, pod, among):
        if among is None:
            calls.append(pod.key)
        return original(self, pod, among)

    monkeypatch.setattr(ClusterSim, "_schedule_anywhere", counted)
    return calls


def test_the_scale_down_loop_replays_the_pending_loops_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = inputs_of(CASE / "cluster.yaml", CASE / "pods.yaml", node_groups=GROUPS)
    searched = _searches(monkeypatch)
    pending.section(inputs)
    assert searched
    searched.clear()
    shared = scaledown.section(inputs)
    assert searched == []
    monkeypatch.setattr(ca_inputs, "_ADMITTED", ca_inputs._AdmittedOnce())
    alone = scaledown.section(inputs)
    assert searched                     # (alone, the loop searches)
    assert shared == alone

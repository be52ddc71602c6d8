"""A CA loop's listing computes the disruption controller's status of each budget written without one
once, for the budgets' notes and for the snapshot (`autoscaler.inputs._Listed.budgets`): the snapshot's
budgets are those it computes alone. The note on ProvisioningRequests is said once for the report's
loops (`_AdmittedOnce.once`), and looks for them in a dump's rows, saying what it says of the objects."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.apimachinery import columns
from kexplain.app.cluster import pending, scaledown
from kexplain.autoscaler import inputs as ca_inputs
from kexplain.autoscaler.cloudprovider import Discovery
from kexplain.autoscaler.inputs import loop_of_state
from kexplain.autoscaler.provisioningrequest.pods import requests_note
from kexplain.controllers import disruption
from kexplain.errors import Source
from kexplain.state.build import build_cluster
from tests.app.cluster.helpers import inputs_of

CASE = Path(__file__).parent / "cases" / "scaledown-0011"
GROUPS = str(CASE / "nodegroups.yaml")
STATUS = """status:
  disruptionsAllowed: 0
  currentHealthy: 1
  desiredHealthy: 1
  expectedPods: 1
"""


def _without_status(tmp_path: Path) -> Path:
    """The case's cluster, its budget written without a status (the controller's to compute)."""
    text = (CASE / "cluster.yaml").read_text()
    at = text.index("kind: PodDisruptionBudget")
    head, tail = text[:at], text[at:]
    assert STATUS in tail
    path = tmp_path / "cluster.yaml"
    path.write_text(head + tail.replace(STATUS, "", 1))
    return path


def _computed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    original = disruption.computed

    def counted(pdb, *args, **kw):
        calls.append(pdb["metadata"]["name"])
        return original(pdb, *args, **kw)

    monkeypatch.setattr(disruption, "computed", counted)
    return calls


def test_a_budget_status_is_computed_once_for_both_loops(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    inputs = inputs_of(_without_status(tmp_path), node_groups=GROUPS)
    monkeypatch.setattr(ca_inputs, "_ADMITTED", ca_inputs._AdmittedOnce())
    calls = _computed(monkeypatch)
    pending.section(inputs)
    scaledown.section(inputs)
    assert calls == ["guarded"]


def test_the_snapshot_budgets_are_those_built_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    state = inputs_of(_without_status(tmp_path), node_groups=GROUPS).state
    monkeypatch.setattr(ca_inputs, "_ADMITTED", ca_inputs._AdmittedOnce())
    loop = loop_of_state(state, Discovery.from_file(GROUPS, None), None, max_bytes=10 ** 8)
    listed = ca_inputs._ADMITTED.entries[("listed", "strict", state.kube)][0][2]
    alone, _ = build_cluster(listed.scheduler_objects)
    budgets = loop.snapshot.of_kind("PodDisruptionBudget")
    assert [b["status"] for b in budgets] == [b["status"] for b in alone.of_kind("PodDisruptionBudget")]
    assert budgets[0]["status"]["currentHealthy"] == 1 and any("guarded" in w for w in loop.warnings)


def test_the_requests_note_is_said_once_for_both_loops(monkeypatch: pytest.MonkeyPatch) -> None:
    """(The pending section's loop reads a copy of the objects' list, without a dump's rows.)"""
    inputs = inputs_of(CASE / "cluster.yaml", node_groups=GROUPS)
    monkeypatch.setattr(ca_inputs, "_ADMITTED", ca_inputs._AdmittedOnce())
    calls: list[int] = []

    def counted(enabled, objects):
        calls.append(1)
        return requests_note(enabled, objects)

    monkeypatch.setattr(ca_inputs, "requests_note", counted)
    pending.section(inputs)
    scaledown.section(inputs)
    assert len(calls) == 1


@pytest.mark.parametrize("enabled", [False, True])
def test_the_requests_note_of_a_dump_is_that_of_its_objects(enabled: bool) -> None:
    src = Source("cluster.yaml")

    def request(name: str, namespace: str = "team", group: str = "autoscaling.x-k8s.io") -> tuple[dict, Source]:
        return {"apiVersion": f"{group}/v1", "kind": "ProvisioningRequest",
                "metadata": {"name": name, "namespace": namespace}}, src

    objs = [({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}"}}, src) for i in range(3)]
    objs[1:1] = [request("a"), request("b", "other")]
    objs += [request("c", group="other"), request("d"), request("e")]
    dump = columns.Dump(objs)
    assert columns.rows_of(dump) is not None
    said = requests_note(enabled, dump)
    assert said == requests_note(enabled, list(objs)) and "team/a, other/b, team/d and 1 more" in said[0]

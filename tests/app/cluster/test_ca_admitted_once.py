"""The report's Cluster Autoscaler loops (its pending section's, its scale-down section's) read one
stored state: its objects are checked and admitted once for both (`autoscaler.inputs._AdmittedOnce`),
and a loop over another state, or with another validation, admits its own again."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.admission import pipeline
from kexplain.app.cluster import pending, scaledown
from kexplain.autoscaler import inputs as ca_inputs
from kexplain.autoscaler.cloudprovider import Discovery
from kexplain.autoscaler.inputs import loop_of_state
from kexplain.load import manifests
from tests.app.cluster.helpers import inputs_of
from tests.support.admissions import counting

CASE = Path(__file__).parents[2] / "autoscaler" / "cases" / "scaledown-0011"
GROUPS = str(CASE / "nodegroups.yaml")
OLD, NEW = "ip-10-0-32-10.ec2.internal", "ip-10-0-32-99.ec2.internal"


def _loop(state, validate: str = "strict"):
    return loop_of_state(state, Discovery.from_file(GROUPS, None), None, max_bytes=10 ** 8, validate=validate)


@pytest.mark.parametrize("module,name", [(pipeline, "admit"), (manifests, "check_objects")])
def test_the_report_admits_its_state_once_for_both_loops(monkeypatch: pytest.MonkeyPatch, module, name) -> None:
    inputs = inputs_of(CASE / "cluster.yaml", node_groups=GROUPS)
    calls = counting(monkeypatch, getattr(module, name), name)
    pending.section(inputs)
    scaledown.section(inputs)
    assert len(calls) == 1


def test_another_state_is_admitted_again_with_its_own_objects(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    """A second state, read from a file with a node renamed: its loop admits it and has that node,
    never the first state's kept admission."""
    first = inputs_of(CASE / "cluster.yaml", node_groups=GROUPS).state
    other = tmp_path / "renamed.yaml"
    other.write_text((CASE / "cluster.yaml").read_text().replace(OLD, NEW))
    second = inputs_of(other, node_groups=GROUPS).state
    before = [n.name for n in _loop(first).nodes]
    calls = counting(monkeypatch, pipeline.admit, "admit")
    after = [n.name for n in _loop(second).nodes]
    assert len(calls) == 1
    assert OLD in before and NEW not in before
    assert after == [NEW if n == OLD else n for n in before]


def test_another_validation_is_admitted_again(monkeypatch: pytest.MonkeyPatch) -> None:
    state = inputs_of(CASE / "cluster.yaml", node_groups=GROUPS).state
    _loop(state)
    calls = counting(monkeypatch, pipeline.admit, "admit")
    _loop(state, validate="ignore")
    _loop(state)
    assert len(calls) == 1
    assert ca_inputs._ADMITTED.read is state.read

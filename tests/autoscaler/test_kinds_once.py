"""CA's loop over a stored state asks the kinds of its 150,000 objects in as few passes as it can: a plain
copy of a dump's objects gets their rows again (`inputs._listed`), and its listers take the DaemonSets,
ConfigMaps and Jobs off the checked objects in one pass (`inputs.LISTED_KINDS`)."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from kexplain.apimachinery import columns
from kexplain.autoscaler import inputs as ca_inputs
from kexplain.autoscaler.cloudprovider import Discovery
from kexplain.autoscaler.inputs import loop_of_state
from tests.app.cluster.helpers import inputs_of

CASE = Path(__file__).parent / "cases" / "scaledown-0011"
GROUPS = str(CASE / "nodegroups.yaml")
NOW = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)


def test_a_plain_list_of_objects_gets_their_rows() -> None:
    read = list(inputs_of(CASE / "cluster.yaml", node_groups=GROUPS).state.read)
    assert columns.rows_of(read) is None
    listed = ca_inputs._listed(read)
    assert columns.rows_of(listed) is not None
    assert len(listed) == len(read) and all(a is b for (a, _), (b, _) in zip(listed, read))
    assert listed.rows.kinds == [o.get("kind") for o, _ in read]


def test_the_listers_kinds_are_taken_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    state = inputs_of(CASE / "cluster.yaml", node_groups=GROUPS).state
    monkeypatch.setattr(ca_inputs, "_ADMITTED", ca_inputs._AdmittedOnce())
    asked: list[frozenset] = []
    original = ca_inputs._of_kinds

    def counted(objs, kinds):
        if len(objs) >= len(state.read):
            asked.append(frozenset(kinds))
        return original(objs, kinds)

    monkeypatch.setattr(ca_inputs, "_of_kinds", counted)
    loop = loop_of_state(state, Discovery.from_file(GROUPS, None), None, max_bytes=10 ** 8, now=NOW)
    assert loop.daemonsets
    assert asked.count(ca_inputs.LISTED_KINDS) == 1
    assert not any(k <= ca_inputs.LISTED_KINDS and k != ca_inputs.LISTED_KINDS for k in asked)

"""CA's listing of a dump (`autoscaler.inputs._listed_of`) asks each stored pod its kind once, in its
one pass over the objects: the nodes the provider is chosen by are found without asking a stored pod
(a Pod), and the listed nodes are kept as that pass lists them, not looked for again."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
import yaml

from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.autoscaler import inputs as ca_inputs
from kexplain.autoscaler.cloudprovider import Discovery
from kexplain.autoscaler.inputs import loop_of_state
from tests.app.cluster.helpers import inputs_of

CASE = Path(__file__).parent / "cases" / "scaledown-0011"
GROUPS = str(CASE / "nodegroups.yaml")
NOW = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)


def _dump(tmp_path: Path) -> Path:
    """The case's cluster as a List (its bound pods read as a dump's `StoredPod`s)."""
    items = [d for d in yaml.safe_load_all((CASE / "cluster.yaml").read_text()) if d]
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def test_the_listing_asks_each_stored_pod_its_kind_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = inputs_of(_dump(tmp_path), node_groups=GROUPS).state
    monkeypatch.setattr(ca_inputs, "_ADMITTED", ca_inputs._AdmittedOnce())
    asked: dict[int, int] = {}
    counting = [False]
    get = StoredPod.get

    def counted(self, key, default=None):
        if counting[0] and key == "kind":
            asked[id(self)] = asked.get(id(self), 0) + 1
        return get(self, key, default)

    def paused(fn):
        def run(*args, **kw):
            was, counting[0] = counting[0], False
            try:
                return fn(*args, **kw)
            finally:
                counting[0] = was
        return run

    listed_of = ca_inputs._listed_of

    def listing(*args, **kw):
        counting[0] = True
        try:
            return listed_of(*args, **kw)
        finally:
            counting[0] = False

    monkeypatch.setattr(StoredPod, "get", counted)
    monkeypatch.setattr(ca_inputs, "_listed_of", listing)
    for name in ("budget_notes", "_listed_snapshot", "_of_kinds"):
        monkeypatch.setattr(ca_inputs, name, paused(getattr(ca_inputs, name)))
    loop = loop_of_state(state, Discovery.from_file(GROUPS, None), None, max_bytes=10 ** 8, now=NOW)
    assert loop.nodes and asked
    assert set(asked.values()) == {1}

"""`kexplain cluster` reads a dump once into a state whose objects keep their rows (`columns.Dump`)
through admission (a budget written without a status among them), and every section's objects are
that dump's with its rows (`ClusterInputs.objects`): their passes over 150,000 objects ask the rows."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.apimachinery import columns
from kexplain.load import manifests
from tests.app.cluster.helpers import inputs_of


def _dump(tmp_path: Path) -> Path:
    items: list[dict] = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "resourceVersion": "1"},
                          "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}]
    items += [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default",
                                                               "labels": {"app": "web"}, "resourceVersion": "7"},
               "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "nginx"}]},
               "status": {"phase": "Running"}} for i in range(3)]
    items.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                  "metadata": {"name": "web", "namespace": "default"},
                  "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}})
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def test_the_state_and_every_sections_objects_keep_the_dumps_rows(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manifests, "DUMP_OBJECTS", 2)      # (a dump: the cluster's many objects)
    inputs = inputs_of(_dump(tmp_path))
    assert columns.rows_of(inputs.state.read) is not None
    assert columns.rows_of(inputs.state.objects) is not None       # (admitted: the budget a copy)
    objects = inputs.objects
    assert columns.rows_of(objects) is not None and objects is not inputs.state.read
    assert list(objects) == list(inputs.state.read)


class _Unasked(dict):
    """An object that must not be asked its kind (the rows answer it)."""

    def get(self, key, default=None):  # type: ignore[override]
        assert key != "kind", "asked of the object, not of the rows"
        return super().get(key, default)


def test_the_sections_checks_and_the_drains_pods_by_node_ask_the_rows(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from kexplain.app.cluster import report
    from kexplain.app.eviction.request import _by_node
    monkeypatch.setattr(manifests, "DUMP_OBJECTS", 2)
    inputs = inputs_of(_dump(tmp_path))
    state = inputs.state
    rows = state.objects.rows
    unasked = columns.Dump([(_Unasked(o) if o.get("kind") != "Pod" else o, s) for o, s in state.objects], rows)
    inputs = replace(inputs, state=replace(state, objects=unasked, read=unasked))
    assert report._no_pods(inputs) is None and report._no_budgets(inputs) is None
    assert report._no_kueue(inputs) == "no Kueue ClusterQueue (kueue.x-k8s.io) among the inputs"
    assert [o["metadata"]["name"] for o, _ in _by_node(unasked)["n1"]] == ["p0", "p1", "p2"]

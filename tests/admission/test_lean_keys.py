"""Lean pods keyed a chunk at a time (`kexplain.admission.shapes.lean_keys`, `ShapeIndex.prepare`) against
`canonical` and the per-pod `written_key`: equal lean keys are equal shapes, a pod with a lean key has a
written key, and a prepared index answers each pod as the per-pod one does. Inputs: issue 55's lean pods
(`benchmarks/plain_list.py`) and twins of them changed in the ways that tell shapes apart.
"""
from __future__ import annotations

import copy
import itertools
import json
import random
from typing import Any

import pytest

from kexplain.admission.shapes import ShapeIndex, _all_valid_at_once, _valid_label_value, lean_keys, written_key
from kexplain.apimachinery.pod_lists import dump_list
from kexplain.apimachinery.stored_pods import StoredPod
from tests.admission.test_written_views import _NOT_LABEL_VALUES


def lean(i: int, app: str = "app-001", node: str = "node-1", image: str | None = None, **labels: str) -> dict:
    """A pod as `plain_list.py` writes one: name, namespace, four labels, a node, one container, a status."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{app}-{i:06d}", "namespace": "ns-0",
                         "labels": {"app": app, "team": "team-1", "tier": "web", "pod-template-hash": f"{i:08x}",
                                    **labels}},
            "spec": {"nodeName": node, "containers": [{"name": "app", "image": image or f"registry.example/{app}:1",
                                                       "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
            "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"}}


def _reorder(obj: dict, path: str, first: str) -> None:
    target = obj
    for key in path.split(".") if path else ():
        target = target[key]
    value = target.pop(first)
    rest = dict(target)
    target.clear()
    target.update({first: value, **rest})


def _texts(objs: list[dict], spaced: bool) -> bytes:
    """A List of `objs`: compact, or as `json.dump` writes it (", " and ": ")."""
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": objs},
                      separators=(", ", ": ") if spaced else (",", ":")).encode()


def views(objs: list[dict], spaced: bool = False) -> list[StoredPod]:
    dump = dump_list(_texts(objs, spaced))
    assert dump is not None
    items = list(dump["items"])
    assert all(type(o) is StoredPod for o in items)
    return items


CHANGES: dict[str, Any] = {
    "plain": lambda p, i: None,
    "label-values": lambda p, i: p["metadata"]["labels"].update(team=f"team-{i}"),
    "image-values": lambda p, i: p["spec"]["containers"][0].update(image=f"other.example/x-{i}:2"),
    "image-latest": lambda p, i: p["spec"]["containers"][0].update(image=["nginx", "nginx:1.0"][i % 2]),
    "image-spaced": lambda p, i: p["spec"]["containers"][0].update(image=" nginx"),
    "requests": lambda p, i: p["spec"]["containers"][0]["resources"]["requests"].update(cpu=f"{i + 1}"),
    "name-as-label": lambda p, i: p["metadata"]["labels"].update(pod=p["metadata"]["name"]),
    "suffix-as-label": lambda p, i: p["metadata"]["labels"].update(index=p["metadata"]["name"].rsplit("-")[-1]),
    "status-label": lambda p, i: p["metadata"]["labels"].update(status="on"),
    "status-label-no-status": lambda p, i: p["metadata"]["labels"].update(status="on") or p.pop("status"),
    "status-value": lambda p, i: p["metadata"]["labels"].update(tier="status"),
    "invalid-label": lambda p, i: p["metadata"]["labels"].update(tier=f"bad value {i}"),
    "zone-label": lambda p, i: p["metadata"]["labels"].update({"topology.kubernetes.io/zone": f"z-{i}"}),
    "no-labels": lambda p, i: p["metadata"].pop("labels"),
    "null-labels": lambda p, i: p["metadata"].update(labels=None),
    "empty-labels": lambda p, i: p["metadata"].update(labels={}),
    "no-namespace": lambda p, i: p["metadata"].pop("namespace"),
    "other-namespace": lambda p, i: p["metadata"].update(namespace=f"ns-{i}"),
    "no-status": lambda p, i: p.pop("status"),
    "empty-status": lambda p, i: p.update(status={}),
    "null-status": lambda p, i: p.update(status=None),
    "claim-status": lambda p, i: p["status"].update(resourceClaimStatuses=[]),
    "nested-status": lambda p, i: p["status"].update(x={"status": {"a": i}}),
    "other-status": lambda p, i: p["status"].update(phase=["Pending", "Running"][i % 2]),
    "status-first": lambda p, i: _reorder(p, "", "status"),
    "spec-first": lambda p, i: _reorder(p, "", "spec"),
    "namespace-first": lambda p, i: _reorder(p, "metadata", "namespace"),
    "labels-reordered": lambda p, i: _reorder(p, "metadata.labels", "tier"),
    "containers-first": lambda p, i: _reorder(p, "spec", "containers"),
    "no-containers": lambda p, i: p["spec"].pop("containers"),
    "null-containers": lambda p, i: p["spec"].update(containers=None),
    "container-status-key": lambda p, i: p["spec"]["containers"][0].update(env=[{"name": "status", "value": "x"}]),
    "uid": lambda p, i: p["metadata"].update(uid=f"u-{i}"),
    "hostname": lambda p, i: p["spec"].update(hostname=p["metadata"]["name"]),
    "bad-node": lambda p, i: p["spec"].update(nodeName=f"Bad_Node_{i}"),
    "bad-name": lambda p, i: p["metadata"].update(name=f"Bad_{i}"),
}


def _pods(name: str, count: int = 4) -> list[dict]:
    out = []
    for i in range(count):
        p = lean(i, node=f"node-{i % 3}")
        CHANGES[name](p, i)
        out.append(p)
    return out


def _shapes(objs: list[dict]) -> list[Any]:
    index = ShapeIndex()
    return [index.entry(copy.deepcopy(o))[1] for o in objs]


@pytest.mark.parametrize("spaced", [False, True])
@pytest.mark.parametrize("name", sorted(CHANGES))
def test_equal_lean_keys_are_equal_shapes(name: str, spaced: bool) -> None:
    """Pods (each a chunk of its own, and with the plain ones) whose lean keys are equal have equal canonical
    pods; each pod with a lean key has a written key."""
    objs = _pods(name) + _pods("plain")
    pods = views(objs, spaced)
    keys = [found[0][0] if (found := lean_keys([p], set(), {})) is not None else None for p in pods]
    shapes = _shapes(objs)
    for a, b in itertools.product(range(len(objs)), repeat=2):
        if keys[a] is not None and keys[a] == keys[b]:
            assert shapes[a] == shapes[b], (name, a, b)
    for p, key in zip(views(objs, spaced), keys):
        if key is not None:
            assert written_key(p, set(), set()) is not None, name
    if name in ("plain", "label-values", "image-values", "zone-label", "no-status", "spec-first"):
        assert keys[0] is not None and keys[0] == keys[1], name      # (what the key is for)
    whole = lean_keys(views(objs, spaced), set(), {})
    assert (whole is None) == (None in keys), name                  # (a chunk: every pod lean, or none keyed)


def _mixed(seed: int, count: int) -> list[dict]:
    rng = random.Random(seed)
    names = sorted(CHANGES)
    out = []
    for i in range(count):
        p = lean(i, app=f"app-{rng.randrange(3)}", node=f"node-{rng.randrange(4)}")
        if rng.random() < 0.3:
            CHANGES[rng.choice(names)](p, i)
        out.append(p)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_a_prepared_index_answers_as_pod_by_pod(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """`ShapeIndex.prepare` over chunks of mixed pods (some chunks all lean, some not) gives each pod the entry
    the per-pod path gives: the same shape key, status answer and whether it is told by its text."""
    from kexplain.admission import shapes
    monkeypatch.setattr(shapes, "_CHUNK", 5)
    objs = _mixed(seed, 60) if seed % 2 else _pods("plain", 30) + _mixed(seed, 20)
    prepared, alone = ShapeIndex(), ShapeIndex()
    pods = views(objs, spaced=bool(seed % 3))
    prepared.prepare(pods)
    got = [prepared.entry(p)[1:] for p in pods]
    assert got == [alone.entry(p)[1:] for p in views(objs, spaced=bool(seed % 3))]
    assert [p.get("status") for p in pods] == [o.get("status") for o in objs]


@pytest.mark.parametrize("value", [*_NOT_LABEL_VALUES, "", "a", "a" * 63, "7ed4d57b", "A1", "a-b", "a_b.c", "-a", "a."])
def test_label_values_checked_at_once_as_one_by_one(value: str) -> None:
    assert _all_valid_at_once([{"a": "ok", "b": value}.values()]) == _valid_label_value(value)

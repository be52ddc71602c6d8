"""`kexplain.model.shapes`: the one pod shape key. Each projection keys two pods alike exactly
when its consumers cannot tell them apart (a field a consumer reads left out is a wrong answer),
and no second shape key appears elsewhere in kexplain/."""
from __future__ import annotations

import ast
import copy
import re
from fractions import Fraction
from typing import Any, Callable

import pytest
from tests.support.paths import ROOT

from kexplain.model.pod import PodInfo
from kexplain.model.shapes import (facts_key, node_fit_key, pending_key, plugin_key, requests_key, shape_key,
                                   want_key)

SHAPES = ROOT / "kexplain" / "model" / "shapes.py"
# Names of the shape keys this module replaced, and the patterns of a new one.
OLD_NAMES = {"pod_fingerprint", "sharing_key", "shape_of", "facts_key", "_shape_key", "add_status_parts"}
PATTERN = re.compile(r"shape_key|pod_fingerprint|facts_key|sharing_key|^shape_of$|requests_key|fit_key|plugin_key|"
                     r"pending_key|want_key")


def _functions() -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "kexplain").rglob("*.py")):
        if path == SHAPES:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((f"{path.relative_to(ROOT)}:{node.lineno}", node.name))
    return out


def test_no_second_shape_key_in_kexplain():
    found = [f"{where} {name}" for where, name in _functions() if name in OLD_NAMES or PATTERN.search(name)]
    assert not found, "a pod's shape is keyed by kexplain.model.shapes alone: " + "; ".join(found)


def test_the_scan_finds_a_shape_key(tmp_path):
    """The scan's own check: a function by an old name is found."""
    tree = ast.parse("def pod_fingerprint(pod):\n    return None\n")
    names = [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    assert [n for n in names if n in OLD_NAMES or PATTERN.search(n)] == ["pod_fingerprint"]


def _pod(**changes: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "shop", "uid": "u1", "labels": {"app": "web"},
                     "annotations": {"team": "a"}, "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}],
                 "tolerations": [{"key": "k", "operator": "Exists"}], "nodeSelector": {"pool": "a"},
                 "volumes": [{"name": "tok", "projected": {"sources": []}}]},
        "status": {"phase": "Pending"}}
    for path, value in changes.items():
        *parents, last = path.split("__")
        at = obj
        for p in parents:
            at = at.setdefault(p, {})
        at[last] = value
    return obj


def _spec(**fields: Any) -> dict[str, Any]:
    return {**_pod()["spec"], **fields}


RESIZED = {"phase": "Running", "containerStatuses": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}
CLAIM = [{"name": "d", "persistentVolumeClaim": {"claimName": "d"}}]
EPHEMERAL = [{"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]
ANTI = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "web"}}}]}}
NODE_AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}

SAME, DIFFERENT, NONE = "same", "different", "none"
PROJECTIONS: dict[str, Callable[[PodInfo], Any]] = {
    "requests": lambda p: requests_key(p.spec, p.status), "facts": facts_key, "plugin": plugin_key,
    "node_fit": node_fit_key, "pending": pending_key, "want": want_key}

# (projection, what the second pod changes, expected): each row a reason a projection includes
# or leaves out a field.
CASES = [
    # every projection: a replica's name and uid decide nothing
    *[(name, {"metadata__name": "web-2", "metadata__uid": "u2"}, SAME) for name in PROJECTIONS],
    # and its requests decide for all
    *[(name, {"spec__containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "2"}}}]},
       DIFFERENT) for name in PROJECTIONS],
    # types are told apart: cpu 1 is not cpu 1.0
    *[(name, {"spec__containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": 1}}}]},
       DIFFERENT) for name in PROJECTIONS],
    ("requests", {"status": RESIZED}, DIFFERENT),             # PodRequests reads resized containers
    ("facts", {"status": RESIZED}, DIFFERENT),
    ("plugin", {"status": RESIZED}, DIFFERENT),               # NodeResourcesFit reads them too
    ("requests", {"status": {"phase": "Running", "podIP": "10.0.0.1"}}, SAME),
    ("facts", {"status": {"phase": "Running", "podIP": "10.0.0.1"}}, SAME),
    ("requests", {"spec__overhead": {"cpu": "100m"}}, DIFFERENT),
    ("requests", {"spec__nodeSelector": {"pool": "b"}}, SAME),
    ("facts", {"spec__nodeSelector": {"pool": "b"}}, SAME),    # node selection is no PodFacts
    ("facts", {"spec__affinity": ANTI}, DIFFERENT),
    ("facts", {"metadata__namespace": "other"}, SAME),         # no affinity: the namespace decides nothing
    ("facts", {"metadata__namespace": "other", "spec__affinity": ANTI}, "vs-affinity"),
    ("plugin", {"metadata__labels": {"app": "api"}}, DIFFERENT),   # selectors match labels
    ("plugin", {"metadata__namespace": "other"}, DIFFERENT),
    ("plugin", {"metadata__annotations": {"team": "b"}}, SAME),
    ("plugin", {"spec__nodeSelector": {"pool": "b"}}, DIFFERENT),
    ("node_fit", {"metadata__labels": {"app": "api"}}, SAME),      # topology is checked apart
    ("node_fit", {"spec__tolerations": []}, DIFFERENT),
    ("node_fit", {"spec__affinity": NODE_AFFINITY}, DIFFERENT),
    ("node_fit", {"spec__affinity": ANTI}, SAME),                  # pod affinity is topology's
    ("node_fit", {"spec__volumes": CLAIM}, NONE),                  # claimed volumes' zones are the pod's
    ("node_fit", {"spec__volumes": EPHEMERAL}, NONE),
    # a token volume of the pod's own name, mounted: no per-node check reads mounts, names or images
    ("node_fit", {"spec__volumes": [{"name": "tok2", "projected": {"sources": []}}], "spec__containers": [
        {"name": "c2", "image": "nginx:2", "resources": {"requests": {"cpu": "1"}},
         "volumeMounts": [{"name": "tok2", "mountPath": "/t"}]}]}, SAME),
    ("node_fit", {"spec__containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "1"}},
                                        "ports": [{"containerPort": 80, "hostPort": 80}]}]}, DIFFERENT),   # host ports
    ("node_fit", {"spec__initContainers": [{"name": "i", "image": "i", "restartPolicy": "Always"}]}, DIFFERENT),
    ("pending", {"metadata__annotations": {"team": "b"}}, DIFFERENT),  # the whole pod but its identity
    ("pending", {"metadata__creationTimestamp": "2026-02-02T00:00:00Z"}, SAME),
    ("pending", {"spec__hostname": "web-1"}, DIFFERENT),
    ("pending", {"status__resourceClaimStatuses": [{"name": "x", "resourceClaimName": "y"}]}, DIFFERENT),
    ("pending", {"status__conditions": [{"type": "PodScheduled", "status": "False"}]}, SAME),
    ("pending", {"status__nominatedNodeName": "n1"}, NONE),
    ("pending", {"spec__resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu"}]}, NONE),
    ("pending", {"spec__volumes": EPHEMERAL}, NONE),               # claims named after the pod
    ("want", {"metadata__labels": {"app": "api"}}, SAME),
    ("want", {"spec__hostname": "web-2"}, SAME),                   # a replica's own names
    ("want", {"spec__volumes": [{"name": "tok2", "projected": {"sources": []}}]}, SAME),
    ("want", {"spec__volumes": CLAIM}, DIFFERENT),
    ("want", {"spec__priority": 10}, DIFFERENT),
    ("want", {"metadata__namespace": "other"}, DIFFERENT),
]


@pytest.mark.parametrize("projection, change, expected", CASES,
                         ids=[f"{p}-{'+'.join(c)}-{e}" for p, c, e in CASES])
def test_projections(projection: str, change: dict[str, Any], expected: str):
    key = PROJECTIONS[projection]
    base = _pod()
    if expected == "vs-affinity":          # same terms read in two namespaces: two keys
        base = _pod(spec__affinity=ANTI)
        expected = DIFFERENT
    other = copy.deepcopy(base)
    for path, value in change.items():
        *parents, last = path.split("__")
        at = other
        for p in parents:
            at = at.setdefault(p, {})
        at[last] = value
    one, two = key(PodInfo(base)), key(PodInfo(other))
    if expected == NONE:
        assert two is None
        return
    assert one is not None and two is not None
    assert (one == two) == (expected == SAME)


@pytest.mark.parametrize("value, other, equal", [
    ({"a": 1}, {"a": 1}, True), ({"a": 1}, {"a": 1.0}, False), ({"a": 1}, {"a": True}, False),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, False),           # key order kept: speed only, never wrong
    ((1, "x"), [1, "x"], True),
])
def test_the_encoding(value: Any, other: Any, equal: bool):
    assert (shape_key(value) == shape_key(other)) == equal


@pytest.mark.parametrize("value", [2 ** 70, object(), {"a": Fraction(1, 3)}])
def test_no_key_for_what_it_cannot_write(value: Any):
    assert shape_key(value) is None


def test_a_pod_that_is_not_plain_data_has_no_key():
    pod = PodInfo(_pod(spec__containers=[{"name": "c", "resources": {"requests": {"cpu": 2 ** 70}}}]))
    assert [name for name, key in PROJECTIONS.items() if key(pod) is not None] == []
    assert requests_key(None) is None

"""A dump's nodes that no API server stored are admitted without a copy when admission would
leave them exactly as they are (`pipeline._admitted_as_read`): the same admitted objects and
the same refusals as the copying path, and the input never changed. Each variant is one node
among a dump's many (`manifests.DUMP_OBJECTS`: then the nodes take the dump's path), at each
minor (the gates that drop node fields differ)."""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from kexplain.admission import admit
from kexplain.apimachinery import columns
from kexplain.errors import KexplainError
from kexplain.features import KubeVersion
from kexplain.load.manifests import DUMP_OBJECTS, load_objects

MINORS = ("1.33", "1.34", "1.35", "1.36")


def node(name: str, **extra: Any) -> dict:
    obj: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": "a"},
                     "annotations": {"node.alpha.kubernetes.io/ttl": "0"}, "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"providerID": f"aws:///a/{name}"},
        "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                   "allocatable": {"cpu": "3920m", "memory": "15Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-01-01T06:00:00Z"}],
                   "images": [{"names": ["registry.example/a:1"], "sizeBytes": 1000}]},
    }
    for path, value in extra.items():
        *parents, last = path.split("__")
        here = obj
        for part in parents:
            here = here.setdefault(part, {})
        here[last] = value
    return obj


VARIANTS: dict[str, dict] = {
    "as written": node("n"),
    "a namespace (dropped)": node("n", metadata__namespace="default"),
    "no allocatable (defaulted)": {**node("n"), "status": {"capacity": {"cpu": "4", "pods": "110"}}},
    "a capacity rounded up": node("n", status__capacity={"cpu": "1500u", "pods": "110"}),
    "an allocatable rounded up": node("n", status__allocatable={"cpu": "0.0001", "pods": "110"}),
    "declared features (a gate)": node("n", status__declaredFeatures=["FeatureA"]),
    "features (a gate)": node("n", status__features={"supplementalGroupsPolicy": True}),
    "a generation written as a float": node("n", metadata__generation=2.0),
    "a null image": node("n", status__images=[None]),
    "a null capacity value": node("n", status__capacity={"cpu": None}),
    "a time that does not parse": node("n", metadata__creationTimestamp="2026-02-30T00:00:00Z"),
    "a quantity that does not parse": node("n", status__capacity={"cpu": "four"}),
    "no metadata": {"apiVersion": "v1", "kind": "Node", "status": {"capacity": {"cpu": "1"}}},
    "a bad label": node("n", metadata__labels={"a b": "c"}),
    "a taint": node("n", spec__taints=[{"key": "k", "effect": "NoSchedule"}]),
}


def dump_of(tmp_path: Path, variant: dict) -> list:
    """The variant among enough nodes as written for a dump, read as a dump's file is."""
    items = [variant] + [node(f"other-{i}") for i in range(DUMP_OBJECTS)]
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, separators=(",", ":")))
    return load_objects([str(path)])


def outcome(cluster: list, kube: KubeVersion) -> tuple:
    try:
        result = admit(cluster, None, kube=kube)
    except KexplainError as err:
        return ("refused", type(err).__name__, str(err), err.field), result_ids(None)
    return ("admitted", repr([o for o, _ in result.objects]), result.warnings), result_ids(result)


def result_ids(result: Any) -> list[int]:
    return [id(o) for o, _ in result.objects] if result is not None else []


@pytest.mark.parametrize("minor", MINORS)
@pytest.mark.parametrize("name", list(VARIANTS))
def test_nodes_admitted_as_read_are_admitted_as_copies_are(tmp_path, name, minor):
    kube = KubeVersion(minor)
    dump = dump_of(tmp_path, VARIANTS[name])
    if isinstance(VARIANTS[name].get("metadata"), dict):      # (else no rows: every object asked one by one)
        assert columns.rows_of(dump) is not None, "not read as a dump"
    before = copy.deepcopy([o for o, _ in dump])
    got, ids = outcome(dump, kube)
    want, _ = outcome(list(dump), kube)        # (a plain list: every node copied, then admitted)
    assert got == want
    assert [o for o, _ in dump] == before, "admission changed its input"
    if got[0] == "admitted":
        kept = [id(o) for o, _ in dump]
        assert ids[1:len(kept)] == kept[1:], "the nodes as written were copied"


def test_only_nodes_admission_changes_are_copied(tmp_path):
    """The variants admission changes are copied; the node as written is not."""
    kept = {}
    for name in ("as written", "a namespace (dropped)", "no allocatable (defaulted)", "a capacity rounded up",
                 "a generation written as a float"):
        dump = dump_of(tmp_path, VARIANTS[name])
        result = admit(dump, None, kube=KubeVersion("1.35"))
        kept[name] = result.objects[0][0] is dump[0][0]
    assert kept == {"as written": True, "a namespace (dropped)": False, "no allocatable (defaulted)": False,
                    "a capacity rounded up": False, "a generation written as a float": False}

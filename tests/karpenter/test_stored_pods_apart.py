"""`pass_of` over a dump: its stored pods are taken as they are and admission sees the rest (with the
first stored pod of each namespace, where it stands); the inputs, warnings and refusals are those of
admitting every object, as a plain list of the same objects is read."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from kexplain.apimachinery import columns
from kexplain.errors import KexplainError, Source
from kexplain.features import KubeVersion
from kexplain.karpenter import inputs as ki
from kexplain.karpenter.params import read_settings
from tests.suggest.test_karpenter import GENERAL, NODE_CLASS, pod
from tests.suggest.test_karpenter_rerun import bound, node

NOW = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)
KUBE = KubeVersion("1.35")


def stored(obj: dict, namespace: str | None = None, version: str = "7") -> dict:
    meta = {**obj["metadata"], "resourceVersion": version, "uid": f"uid-{obj['metadata']['name']}"}
    if namespace is not None:
        meta["namespace"] = namespace
    return {**obj, "metadata": meta}


def objects(*extra: dict) -> list[dict]:
    return [stored(node("node-a1", "us-west-2a")), stored(bound("db-0", "node-a1", "1"), "team-b"),
            stored(bound("db-1", "node-a1", "1"), "team-a"), pod("web-0"), stored(bound("db-2", "node-a1", "1"), "team-b"),
            {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "db", "namespace": "team-a"},
             "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}}},
            *extra, GENERAL, NODE_CLASS]


def as_dump(docs: list[dict]) -> list:
    pairs = [(doc, Source("cluster.yaml", i)) for i, doc in enumerate(docs)]
    return columns.Dump(pairs, columns.Rows.read(doc for doc, _ in pairs))


def as_list(docs: list[dict]) -> list:
    return [(doc, Source("cluster.yaml", i)) for i, doc in enumerate(docs)]


def text(inputs) -> str:
    return json.dumps([[p.obj for p in inputs.pending], [p.obj for p in inputs.bound_pods], inputs.nodes,
                       inputs.node_claims, inputs.daemonsets, [p.obj for p in inputs.node_pools],
                       [c.obj for c in inputs.node_classes], inputs.objects, inputs.warnings,
                       sorted(str(s) for s in inputs.sources.values())], sort_keys=True, default=str)


def read(objs: list):
    return ki.pass_of(objs, read_settings(None, None), KUBE, now=NOW)


@pytest.fixture
def admitted(monkeypatch):
    seen: list[int] = []
    real = ki.admit
    monkeypatch.setattr(ki, "admit", lambda cluster, *a, **k: seen.append(len(cluster)) or real(cluster, *a, **k))
    monkeypatch.setattr(ki, "_read_pods", ki.ReadPods())
    return seen


def test_the_stored_pods_are_taken_as_they_are(admitted):
    dump = read(as_dump(objects()))
    assert admitted == [5]      # the node, db-0 (team-b's first), db-1 (team-a's), web-0, the PodDisruptionBudget
    assert text(dump) == text(read(as_list(objects())))
    assert [n["metadata"]["name"] for n in dump.objects["Namespace"]] == ["team-b", "team-a", "default"]


@pytest.mark.parametrize("extra", [stored(bound("db-0", "node-a1", "1"), "team-b", "9"),     # a name taken twice
                                   {**pod("db-2"), "metadata": {"name": "db-2", "namespace": "team-b"}},
                                   {**bound("db-3", "node-a1", "1"), "metadata": {"name": "db-3", "resourceVersion": "9"}}])
def test_what_admission_alone_can_say_is_said_by_it(admitted, extra):
    """A stored pod's name taken again (stored or not), a stored pod without namespace: every object
    admitted, the same refusal (or inputs) as the plain list's."""
    def outcome(objs: list) -> str:
        try:
            return text(read(objs))
        except KexplainError as err:
            return f"{type(err).__name__}: {err}"
    assert outcome(as_dump(objects(extra))) == outcome(as_list(objects(extra)))
    assert admitted[0] == len(objects(extra)) - 2          # (all but Karpenter's two objects)


def test_a_name_in_two_namespaces_is_two_pods(admitted):
    extra = stored(bound("db-1", "node-a1", "1"), "team-b", "9")         # (db-1 of team-a's too)
    assert text(read(as_dump(objects(extra)))) == text(read(as_list(objects(extra))))
    assert admitted[0] == 5

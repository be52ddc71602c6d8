"""Karpenter's pending pass reads a plain list of cluster objects as a dump (`columns.Dump`, its rows
made once: `pending._as_read`), so that `pass_of`'s checks and admission ask the rows, not each object;
the inputs are those the plain list gives."""
from __future__ import annotations

import json
from datetime import datetime, timezone

from kexplain.apimachinery import columns
from kexplain.errors import Source
from kexplain.features import KubeVersion
from kexplain.karpenter import pending
from kexplain.karpenter.inputs import pass_of
from kexplain.karpenter.params import read_settings
from kexplain.karpenter.request import NodePoolsRequest
from tests.suggest.test_karpenter import GENERAL, NODE_CLASS, pod
from tests.suggest.test_karpenter_rerun import bound, node

NOW = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)
KUBE = KubeVersion("1.35")


def _objects() -> list:
    stored = {**node("node-a1", "us-west-2a")}
    stored["metadata"] = {**stored["metadata"], "resourceVersion": "7"}
    docs = [stored, node("node-b1", "us-west-2b"), bound("db-0", "node-a1", "1"), pod("web-0"), GENERAL, NODE_CLASS]
    return [(doc, Source("cluster.yaml", i)) for i, doc in enumerate(docs)]


def _text(inputs) -> str:
    return json.dumps([[p.obj for p in inputs.pending], [p.obj for p in inputs.bound_pods], inputs.nodes,
                       inputs.node_claims, inputs.daemonsets, [p.obj for p in inputs.node_pools],
                       [c.obj for c in inputs.node_classes], inputs.objects, inputs.warnings],
                      sort_keys=True, default=str)


def test_a_plain_list_is_read_as_a_dump_with_the_same_inputs(monkeypatch):
    given: list = []
    real = pending.pass_of
    monkeypatch.setattr(pending, "pass_of", lambda objects, *a, **k: given.append(objects) or real(objects, *a, **k))
    inputs, _ = pending.load_node_pools(NodePoolsRequest(_objects()), KUBE, now=NOW)
    assert len(given) == 1 and columns.rows_of(given[0]) is not None
    assert _text(inputs) == _text(pass_of(_objects(), read_settings(None, None), KUBE, now=NOW))

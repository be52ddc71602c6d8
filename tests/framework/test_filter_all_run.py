"""A filterAll cycle keeps its first run of node-local Filter verdicts in the node memo
(`Framework._keep_run`), so a plain cycle of the same pod on a changed cluster that shares the
memo (a suggestion's verification with a node added) sifts only the new node: and says, node for
node, what a cycle on a cluster with nothing remembered says."""
from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path

import pytest

from kexplain.explain.inputs import load_inputs
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import framework_for
from kexplain.framework import runtime
from kexplain.framework.schedule import Options, schedule_pod
from kexplain.suggest.change import changed_inputs
from tests.framework.test_warm_search import SPREAD
from tests.support.generated import generated_cluster


@pytest.mark.parametrize("role", ["pod-plain", "pod-spread", "pod-unschedulable"])
def test_a_plain_cycle_after_filter_all_sifts_only_the_new_node(tmp_path: Path, role: str, monkeypatch) -> None:
    paths = generated_cluster(tmp_path, "classic", nodes=120, pods_per_node=6)
    paths["pod-spread"] = tmp_path / "spread.yaml"
    paths["pod-spread"].write_text(SPREAD)
    req = Request(pod_path=str(paths[role]), node_paths=(str(paths["json"]),), run=RunOptions())
    inputs = load_inputs(req)
    schedule_pod(framework_for(inputs, req), inputs.pod, Options(filter_all=True))
    added = copy.deepcopy(inputs.snapshot.node_infos[7].node.obj)
    added["metadata"] = {**added["metadata"], "name": "added"}
    changed = changed_inputs(inputs, [{"op": "create", "object": {"kind": "Node", "name": "added"}, "value": added}])
    fw = framework_for(changed, req)
    first = []
    for pl in fw.filter_plugins:
        if not pl.node_local:
            break
        first.append(pl.name)
    sifted: dict[str, list[int]] = {}
    sift = runtime._sift

    def spy(plugin, alive, statuses, verdicts):
        sifted.setdefault(plugin, []).append(len(alive))
        return sift(plugin, alive, statuses, verdicts)

    monkeypatch.setattr(runtime, "_sift", spy)
    warm = schedule_pod(fw, changed.pod, Options(filter_all=False)).to_json()
    monkeypatch.setattr(runtime, "_sift", sift)
    cold_inputs = replace(changed, snapshot=changed.snapshot.fresh())        # (nothing remembered)
    cold = schedule_pod(framework_for(cold_inputs, req), changed.pod, Options(filter_all=False)).to_json()
    assert warm == cold
    assert first and all(size <= 1 for name in first for size in sifted.get(name, ())), sifted

"""A framework holds its plugins and they hold it only weakly: a cycle's framework (one per copy of
a workload), its plugins and the snapshot it was bound to are freed when the cycle's last
reference goes, without the cyclic collector (which would otherwise walk each copy's snapshot
again and again until a full collection); the frameworks of one profile know each plugin as
configured alike."""
from __future__ import annotations

import gc
import weakref
from dataclasses import replace
from pathlib import Path

import pytest

from kexplain.explain.carryover import Carryover
from kexplain.explain.inputs import load_inputs
from kexplain.explain.placement import iter_placements
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import framework_for
from kexplain.framework.node_memo import node_memo
from kexplain.framework.runtime import Framework
from kexplain.framework.schedule import Options, schedule_pod
from kexplain.model.snapshot import Snapshot
from tests.support.generated import generated_cluster


def test_a_framework_and_its_plugins_are_freed_without_the_collector(tmp_path: Path) -> None:
    paths = generated_cluster(tmp_path, "classic", nodes=40, pods_per_node=3)
    req = Request(pod_path=str(paths["pod-plain"]), node_paths=(str(paths["json"]),), run=RunOptions())
    inputs = load_inputs(req)
    enabled = gc.isenabled()
    gc.disable()
    try:
        # (a snapshot of its own, as a copy's cycle binds one: only the framework holds it)
        own = Snapshot(list(inputs.snapshot.node_infos), inputs.snapshot.namespaces, inputs.snapshot.objects)
        fw = framework_for(replace(inputs, snapshot=own), req)
        del own
        assert schedule_pod(fw, inputs.pod, Options()).to_json()["result"]
        refs = [weakref.ref(fw), weakref.ref(fw.snapshot), *(weakref.ref(p) for p in fw.plugins.values())]
        del fw
        assert [r() for r in refs] == [None] * len(refs)
    finally:
        if enabled:
            gc.enable()


def test_the_frameworks_of_one_profile_share_each_plugin_s_configuration(tmp_path: Path) -> None:
    """A workload's copies each build a framework; a plugin configured without args is known as
    configured alike in all of them (one text, made once: `NodeMemo.configured`)."""
    paths = generated_cluster(tmp_path, "classic", nodes=10, pods_per_node=6)
    req = Request(pod_path=str(paths["pod-plain"]), node_paths=(str(paths["json"]),), run=RunOptions())
    inputs = load_inputs(req)
    first, second = framework_for(inputs, req), framework_for(inputs, req)
    memo = node_memo(inputs.snapshot)
    for name, plugin in first.plugins.items():
        assert memo.configured(plugin, first.kube) is memo.configured(second.plugins[name], second.kube), name


def test_a_workload_s_copies_build_their_profile_s_framework_once(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The scheduler keeps one framework per profile across its cycles: so do a workload's copies
    (one for the quiet runs, one for the runs in full), each cycle bound to the cluster as it is."""
    paths = generated_cluster(tmp_path, "classic", nodes=30, pods_per_node=6)
    req = Request(pod_path=str(paths["pod-plain"]), node_paths=(str(paths["json"]),), run=RunOptions())
    inputs = load_inputs(req)
    built = []
    init = Framework.__init__

    def counted(self, *args, **kwargs):
        built.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(Framework, "__init__", counted)
    placed = [p.node for p in iter_placements(inputs, RunOptions(), 40, carry=Carryover())]
    assert len(placed) == 40 and None not in placed
    assert 1 <= len(built) <= 2, len(built)


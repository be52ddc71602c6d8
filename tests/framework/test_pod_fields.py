"""`Plugin.pod_fields`: a node-local plugin's memo answers are keyed by the spec fields it reads, so
the plugin must read nothing else of the pod. Checked on the conformance corpus: each case's pod
and a hybrid (another case's pod carrying this pod's fields, and its status where requests are
read) get the same PreFilter, Filter and Score answers on the case's nodes; and the memo shares a
plugin's answers between two pods that differ only where it does not read."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from kexplain.errors import FrameworkError, KexplainError
from kexplain.explain.inputs import load_inputs
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import framework_for
from kexplain.framework.cycle_state import CycleState
from kexplain.framework.interface import FilterPlugin, PreFilterPlugin, PreScorePlugin, ScorePlugin
from kexplain.framework.schedule import Options, schedule_pod
from kexplain.model.pod import PodInfo
from kexplain.plugins import names
from tests.support.conformance_support import cases_under, request_for
from tests.support.generated import generated_cluster
from tests.support.paths import conformance_roots

CASES = [case for root in conformance_roots() for case in cases_under(root)]


def _hybrid(own: PodInfo, other: PodInfo, fields: tuple[str, ...]) -> PodInfo:
    """`other` with `own`'s `fields` (and its status when containers are among them)."""
    obj = copy.deepcopy(other.obj)
    spec = obj.setdefault("spec", {})
    for name in fields:
        if name in own.spec:
            spec[name] = copy.deepcopy(own.spec[name])
        else:
            spec.pop(name, None)
    if "containers" in fields:
        obj["status"] = copy.deepcopy(own.obj.get("status") or {})
    return PodInfo(obj)


def _answers(pl: Any, pod: PodInfo, nodes: list) -> object:
    """What the plugin answers for the pod on every node (its error, where it raises one)."""
    try:
        state = CycleState()
        out: list[object] = []
        if isinstance(pl, PreFilterPlugin):
            result, status = pl.pre_filter(state, pod, nodes)
            out.append((status.code, tuple(status.reasons), None if result is None else result.node_names))
            if not status.is_success:
                return out
        if isinstance(pl, FilterPlugin):
            out.append([(s.code, tuple(s.reasons)) for s in pl.filter_nodes(state, pod, nodes)])
        if isinstance(pl, PreScorePlugin):
            status = pl.pre_score(state, pod, nodes)
            out.append((status.code, tuple(status.reasons)))
            if not status.is_success:
                return out
        if isinstance(pl, ScorePlugin):
            out.append(list(pl.score_nodes(state, pod, nodes)))
        return out
    except FrameworkError as err:
        return ("error", str(err))


def _check(case: Path, other: PodInfo | None) -> tuple[int, PodInfo | None]:
    req = request_for(case)
    try:
        inputs = load_inputs(req)
        fw = framework_for(inputs, req)
    except KexplainError:
        return 0, other
    pod, nodes = inputs.pod, list(fw.snapshot.node_infos)
    compared = 0
    if other is not None and nodes:
        plugins = {pl.name: pl for pl in (*fw.filter_plugins, *fw.score_plugins) if pl.pod_fields is not None}
        for pl in plugins.values():
            hybrid = _hybrid(pod, other, pl.pod_fields)
            assert _answers(pl, hybrid, nodes) == _answers(pl, pod, nodes), (case.name, pl.name)
            compared += 1
    return compared, pod


@pytest.mark.parametrize("chunk", [CASES[i::8] for i in range(8)], ids=lambda c: f"{len(c)}-cases")
def test_a_plugin_reads_only_its_pod_fields(chunk: list[Path]) -> None:
    if not chunk:
        pytest.skip("no conformance cases here")
    compared, other = 0, None
    for case in chunk:
        n, other = _check(case, other)
        compared += n
    assert compared > 0


def test_every_node_local_plugin_declares_its_fields(tmp_path: Path) -> None:
    paths = generated_cluster(tmp_path, "classic", nodes=20, pods_per_node=2)
    req = Request(pod_path=str(paths["pod-plain"]), node_paths=(str(paths["json"]),), run=RunOptions())
    fw = framework_for(load_inputs(req), req)
    local = {pl.name for pl in (*fw.filter_plugins, *fw.score_plugins) if pl.node_local}
    assert local and all(pl.pod_fields for pl in (*fw.filter_plugins, *fw.score_plugins) if pl.node_local)


def test_pods_differing_where_a_plugin_does_not_read_share_its_answers(tmp_path: Path) -> None:
    """A second pod, another node selector: NodeResourcesFit is not asked again, NodeAffinity is."""
    paths = generated_cluster(tmp_path, "classic", nodes=60, pods_per_node=4)
    req = Request(pod_path=str(paths["pod-plain"]), node_paths=(str(paths["json"]),), run=RunOptions())
    inputs = load_inputs(req)
    fw = framework_for(inputs, req)
    asked: dict[str, int] = {}
    for pl in fw.filter_plugins:
        if pl.name in (names.NODE_RESOURCES_FIT, names.NODE_AFFINITY):
            def spy(state, pod, nodes, _run=pl.filter_nodes, _name=pl.name):
                asked[_name] = asked.get(_name, 0) + len(nodes)
                return _run(state, pod, nodes)
            pl.filter_nodes = spy
    options = Options(filter_all=True)
    schedule_pod(fw, inputs.pod, options)
    assert asked.get(names.NODE_RESOURCES_FIT)
    obj = copy.deepcopy(inputs.pod.obj)
    obj["spec"]["nodeSelector"] = {"kubernetes.io/os": "linux"}
    asked.clear()
    schedule_pod(fw, PodInfo(obj), options)
    assert asked.get(names.NODE_AFFINITY) and not asked.get(names.NODE_RESOURCES_FIT), asked

"""The node memo of the plugins that read a pod's requests (`REQUEST_FIELDS`: NodeResourcesFit,
BalancedAllocation) keyed by what requests read of its containers (`model.shapes.fields_key`): not
a container's name (unless a resized status is matched by it), image or ports. A cluster's many
workloads of one size then share those answers: a drain's scale fixes place one new pod of each
of a hundred workloads over one cordoned cluster (`app.eviction.drain_fixes.Cordoned`), each its
own framework."""
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
from kexplain.framework.schedule import Options, schedule_pod
from kexplain.model.pod import PodInfo
from kexplain.model.shapes import REQUEST_FIELDS, fields_key
from kexplain.plugins import names
from kexplain.plugins.balanced_allocation import NodeResourcesBalancedAllocation as BalancedAllocation
from tests.support.conformance_support import cases_under, request_for
from tests.support.generated import generated_cluster
from tests.support.paths import conformance_roots

CASES = [case for root in conformance_roots() for case in cases_under(root)]
SIZES = 10
REQUESTS_PLUGINS = (names.NODE_RESOURCES_FIT, names.NODE_RESOURCES_BALANCED_ALLOCATION)


def _renamed(pod: PodInfo, suffix: str) -> PodInfo:
    """The pod as another workload's: each container named and imaged apart, without ports."""
    obj = copy.deepcopy(pod.obj)
    for key in ("initContainers", "containers"):
        for c in (obj.get("spec") or {}).get(key) or ():
            if isinstance(c, dict):
                c["name"] = f"{c.get('name')}-{suffix}"
                c["image"] = f"registry.example/{suffix}:1"
                c.pop("ports", None)
    return PodInfo(obj)


def _answers(pl: Any, pod: PodInfo, nodes: list) -> object:
    """The plugin's PreFilter/Filter/PreScore/Score answers for the pod on every node."""
    try:
        state = CycleState()
        out: list[object] = []
        for point in ("pre_filter", "pre_score"):
            if hasattr(pl, point):
                result = getattr(pl, point)(state, pod, nodes)
                status = result[1] if isinstance(result, tuple) else result
                out.append((status.code, tuple(status.reasons)))
        if hasattr(pl, "filter_nodes"):
            out.append([(s.code, tuple(s.reasons)) for s in pl.filter_nodes(state, pod, nodes)])
        if hasattr(pl, "score_nodes"):
            out.append(list(pl.score_nodes(state, pod, nodes)))
        return out
    except FrameworkError as err:
        return ("error", str(err))


def test_the_key_leaves_out_names_images_and_ports_but_not_a_resize() -> None:
    pod = PodInfo({"metadata": {"name": "a"}, "spec": {"containers": [
        {"name": "web", "image": "nginx", "ports": [{"containerPort": 80}],
         "resources": {"requests": {"cpu": "1"}}}]}})
    assert fields_key(_renamed(pod, "x"), REQUEST_FIELDS) == fields_key(pod, REQUEST_FIELDS)
    bigger = copy.deepcopy(pod.obj)
    bigger["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2"
    assert fields_key(PodInfo(bigger), REQUEST_FIELDS) != fields_key(pod, REQUEST_FIELDS)
    sidecar = copy.deepcopy(pod.obj)
    sidecar["spec"]["initContainers"] = [{"name": "s", "restartPolicy": "Always",
                                          "resources": {"requests": {"cpu": "1"}}}]
    plain_init = copy.deepcopy(sidecar)
    del plain_init["spec"]["initContainers"][0]["restartPolicy"]
    assert fields_key(PodInfo(sidecar), REQUEST_FIELDS) != fields_key(PodInfo(plain_init), REQUEST_FIELDS)
    # a resized container's status applies to the container of its name only
    resized = {"phase": "Running", "containerStatuses": [{"name": "web", "resources": {"requests": {"cpu": "3"}}}]}
    own, other = copy.deepcopy(pod.obj), copy.deepcopy(_renamed(pod, "x").obj)
    own["status"], other["status"] = resized, copy.deepcopy(resized)
    assert fields_key(PodInfo(own), REQUEST_FIELDS) != fields_key(PodInfo(other), REQUEST_FIELDS)


@pytest.mark.parametrize("chunk", [CASES[i::4] for i in range(4)], ids=lambda c: f"{len(c)}-cases")
def test_the_requests_plugins_read_no_container_name_image_or_ports(chunk: list[Path]) -> None:
    """Over the conformance corpus: each case's pod and the same pod renamed (`_renamed`) get the
    same answers from the plugins keyed so, wherever their keys are equal."""
    if not chunk:
        pytest.skip("no conformance cases here")
    compared = 0
    for case in chunk:
        req = request_for(case)
        try:
            inputs = load_inputs(req)
            fw = framework_for(inputs, req)
        except KexplainError:
            continue
        pod, nodes = inputs.pod, list(fw.snapshot.node_infos)
        other = _renamed(pod, "other")
        if not nodes or fields_key(other, REQUEST_FIELDS) != fields_key(pod, REQUEST_FIELDS):
            continue
        for pl in (*fw.filter_plugins, *fw.score_plugins):
            if pl.name in REQUESTS_PLUGINS:
                assert _answers(pl, other, nodes) == _answers(pl, pod, nodes), (case.name, pl.name)
                compared += 1
    assert compared > 0


def test_workloads_of_one_size_score_each_node_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sixty workloads in ten sizes, one pod of each scheduled over one cluster, each with its own
    framework (as a drain's scale fixes are): BalancedAllocation scores each node once per size,
    the memo holding the sizes' answers across the other workloads' cycles (`node_memo.MAX_KEYS`)."""
    paths = generated_cluster(tmp_path, "classic", nodes=20, pods_per_node=2)
    req = Request(pod_path=str(paths["pod-plain"]), node_paths=(str(paths["json"]),), run=RunOptions())
    inputs = load_inputs(req)
    scored: list[int] = []
    score_nodes = BalancedAllocation.score_nodes

    def counted(self: Any, state: Any, pod: PodInfo, nodes: Any) -> Any:
        scored.append(len(nodes))
        return score_nodes(self, state, pod, nodes)

    monkeypatch.setattr(BalancedAllocation, "score_nodes", counted)
    placed = []
    for i in range(60):
        obj = copy.deepcopy(_renamed(inputs.pod, f"app-{i}").obj)
        obj["metadata"] = {**obj.get("metadata", {}), "name": f"app-{i}-0", "labels": {"app": f"app-{i}"}}
        obj["spec"]["containers"][0].setdefault("resources", {})["requests"] = {"cpu": f"{100 + 100 * (i % SIZES)}m"}
        pod = PodInfo(obj)
        trace = schedule_pod(framework_for(inputs, req), pod, Options())
        placed.append(trace.result.suggested_host)
    assert None not in placed
    assert 0 < sum(scored) <= SIZES * len(inputs.snapshot.node_infos), scored

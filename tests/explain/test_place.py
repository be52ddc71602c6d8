"""Placing copies one after another: binding, round-robin carry-over, distinct names, fresh
snapshots (no stale cached index), the tie rule when PreFilter narrowed the nodes."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kexplain.errors import Source
from kexplain.explain.inputs import inputs_for, load_pool
from kexplain.explain.placement import bound_copy, chosen_node, iter_placements
from kexplain.explain.request import RunOptions
from kexplain.model.pod import PodInfo
from kexplain.framework.trace import SCHEDULED, UNSCHEDULABLE


def node(name: str, cpu: str = "4", zone: str | None = None, **labels: str) -> dict:
    meta_labels = {"kubernetes.io/hostname": name, **labels}
    if zone:
        meta_labels["topology.kubernetes.io/zone"] = zone
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": meta_labels},
            "status": {"capacity": {"cpu": cpu, "memory": "16Gi", "pods": "110"}}}


def pod(name: str = "web", cpu: str = "1", labels: dict | None = None, **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": labels or {"app": name}},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}], **spec}}


def setup(tmp_path: Path, objs: list[dict], pending: dict):
    path = tmp_path / "pool.yaml"
    path.write_text(yaml.safe_dump_all(objs))
    pool = load_pool((str(path),))
    return inputs_for(pending, Source("pod.yaml", 1), pool), RunOptions()


def place_copies(inputs, options: RunOptions, copies: int) -> list:
    """The traces of the copies placed (every one Scheduled) and of the first that did not fit."""
    return [p.trace for p in iter_placements(inputs, options, copies)]


def test_copies_are_bound_in_turn_until_one_does_not_fit(tmp_path):
    inputs, req = setup(tmp_path, [node("n1", "2"), node("n2", "1")], pod(cpu="1"))
    traces = place_copies(inputs, req, 5)
    assert [t.result.status for t in traces] == [SCHEDULED] * 3 + [UNSCHEDULABLE]
    assert [t.pod["name"] for t in traces] == ["web-0", "web-1", "web-2", "web-3"]
    assert sorted(chosen_node(t) for t in traces[:3]) == ["n1", "n1", "n2"]
    assert traces[3].result.message.startswith("0/2 nodes are available: 2 Insufficient cpu.")
    # the caller's snapshot is untouched
    assert all(not ni.pods for ni in inputs.snapshot.node_infos)


def test_round_robin_position_is_carried_over(tmp_path):
    inputs, req = setup(tmp_path, [node(f"n{i}") for i in range(1, 5)], pod(cpu="100m"))
    traces = place_copies(inputs, req, 4)
    assert traces[0].search.start_index == 0
    for before, after in zip(traces, traces[1:]):
        assert after.search.start_index == before.search.next_start_index


def test_start_index_of_the_request_is_the_first_copy_s(tmp_path):
    inputs, req = setup(tmp_path, [node(f"n{i}") for i in range(1, 4)], pod(cpu="100m"))
    traces = place_copies(inputs, RunOptions(start_index=2), 2)
    assert traces[0].search.start_index == 2


def test_anti_affinity_between_copies_sees_the_bound_copies(tmp_path):
    """InterPodAffinity builds its pod index once per snapshot: each copy must get a new one."""
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    inputs, req = setup(tmp_path, [node("n1"), node("n2")], pod(cpu="100m", affinity=anti))
    traces = place_copies(inputs, req, 3)
    assert [t.result.status for t in traces] == [SCHEDULED, SCHEDULED, UNSCHEDULABLE]
    assert {chosen_node(t) for t in traces[:2]} == {"n1", "n2"}
    assert "didn't match pod anti-affinity rules" in traces[2].result.message


def test_spread_constraint_counts_the_bound_copies_with_their_zone_labels(tmp_path):
    spread = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]
    nodes = [node("a1", zone="a"), node("a2", zone="a"), node("b1", zone="b")]
    inputs, req = setup(tmp_path, nodes, pod(cpu="100m", topologySpreadConstraints=spread))
    placements = list(iter_placements(inputs, req, 4))
    zones = [{"a1": "a", "a2": "a", "b1": "b"}[p.node] for p in placements]
    assert sorted(zones) == ["a", "a", "b", "b"]
    last = placements[-1].inputs.snapshot
    bound = [p for ni in last.node_infos for p in ni.pods]
    assert len(bound) == 3      # the last placement's snapshot holds the three copies before it
    assert all(p.labels["topology.kubernetes.io/zone"] == {"a1": "a", "a2": "a", "b1": "b"}[p.node_name]
               for p in bound)


def test_with_pod_bound_returns_a_new_snapshot_with_an_empty_cache(tmp_path):
    inputs, _ = setup(tmp_path, [node("n1"), node("n2")], pod())
    snap = inputs.snapshot
    assert snap.cached("test/index", lambda: len(list(snap.all_pods()))) == 0
    bound = snap.with_pod_bound(bound_copy(pod("x"), "n1", {}))
    assert bound is not snap
    assert bound.cached("test/index", lambda: len(list(bound.all_pods()))) == 1
    assert snap.cached("test/index", lambda: -1) == 0
    assert bound.get("n2") is snap.get("n2") and bound.get("n1") is not snap.get("n1")
    assert [p.name for p in bound.get("n1").pods] == ["x"] and not snap.get("n1").pods
    with pytest.raises(KeyError):
        snap.with_pod_bound(PodInfo({"metadata": {"name": "y"}, "spec": {"nodeName": "nope"}}))


def test_narrowed_prefilter_binds_to_the_smallest_selected_name(tmp_path):
    """matchFields on metadata.name narrows the nodes in PreFilter: the visit order (and the pick
    among ties) is random in the scheduler; kexplain binds to the smallest selected name."""
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n3"]}]},
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]}}}
    inputs, req = setup(tmp_path, [node("n1"), node("n2"), node("n3")], pod(cpu="100m", affinity=affinity))
    first = place_copies(inputs, req, 1)[0]
    assert first.search.order_deterministic is False
    assert first.result.selected_nodes == ["n2", "n3"]
    assert chosen_node(first) == "n2"


def test_zero_copies_and_distinct_uids(tmp_path):
    inputs, req = setup(tmp_path, [node("n1")], pod(cpu="100m"))
    assert place_copies(inputs, req, 0) == []
    placements = list(iter_placements(inputs, req, 2))
    uids = {p.inputs.pod.uid for p in placements}
    assert len(uids) == 2 and inputs.pod.uid not in uids

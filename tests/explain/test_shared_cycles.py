"""A batch's pending pods that only their names tell apart share one cycle while nothing changes
(`kexplain.explain.shared_cycles`, issue 55): each shared trace must be exactly the one its own
cycle gives, and a pod that binds, or a batch that may hand a hint, ends the sharing."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import kexplain.explain.carryover as carryover
from kexplain.explain.batch import explain_batch
from kexplain.explain.inputs import load
from kexplain.explain.request import Request
from kexplain.explain.shared_cycles import SharedCycles
from kexplain.framework.opportunistic_batch import OpportunisticBatch
from kexplain.framework.search import SortedScores
from kexplain.suggest import suggestions

NODES = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n}},
          "status": {"capacity": {"cpu": "2", "memory": "4Gi", "pods": "110"}}} for n in ("n1", "n2", "n3")]


def _pod(name: str, cpu: str = "3", app: str = "web") -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "shop", "labels": {"app": app}},
            "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]}}


def _traces(tmp_path: Path, pods: list[dict], monkeypatch: pytest.MonkeyPatch, *, shared: bool) -> tuple[list, int]:
    """Each pod's trace (-o json's item) in queue order, and how many cycles ran."""
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(pods))
    (tmp_path / "nodes.yaml").write_text(yaml.safe_dump_all(NODES))
    req = Request(pod_path=str(tmp_path / "pods.yaml"), node_paths=(str(tmp_path / "nodes.yaml"),))
    loaded = load(req)
    cycles = []
    real = carryover.schedule_pod
    with monkeypatch.context() as m:
        m.setattr(carryover, "schedule_pod", lambda *a, **k: cycles.append(1) or real(*a, **k))
        if not shared:
            m.setattr(SharedCycles, "found", lambda self, key, inputs: None)
        items: list = []
        for _ in explain_batch(loaded.batch, loaded.pool, req.run, suggestions,
                               sink=lambda p: items.append(p.trace.to_json())):
            pass
    return items, len(cycles)


def test_pods_of_one_shape_share_the_first_cycle_renamed(tmp_path, monkeypatch):
    pods = [_pod("web-a"), _pod("web-b"), _pod("web-c")]
    alone, ran_alone = _traces(tmp_path, pods, monkeypatch, shared=False)
    together, ran = _traces(tmp_path, pods, monkeypatch, shared=True)
    assert together == alone
    assert [t["pod"]["name"] for t in together] == ["web-a", "web-b", "web-c"]
    assert together[2]["suggestions"] and "shop/web-c" in together[2]["suggestions"][0]["target"]
    assert ran < ran_alone          # the suggestions' re-runs and the cycles of web-b, web-c


def test_a_pod_that_binds_in_between_ends_the_sharing(tmp_path, monkeypatch):
    pods = [_pod("web-a"), _pod("small", cpu="1", app="small"), _pod("web-b")]
    alone, _ = _traces(tmp_path, pods, monkeypatch, shared=False)
    together, _ = _traces(tmp_path, pods, monkeypatch, shared=True)
    assert together == alone
    assert [t["result"]["status"] for t in together] == ["Unschedulable", "Scheduled", "Unschedulable"]


def test_another_shape_is_its_own_cycle(tmp_path, monkeypatch):
    pods = [_pod("web-a"), _pod("api-a", app="api"), _pod("web-b"), _pod("api-b", app="api")]
    alone, _ = _traces(tmp_path, pods, monkeypatch, shared=False)
    together, _ = _traces(tmp_path, pods, monkeypatch, shared=True)
    assert together == alone


def test_a_batch_hints_only_the_cycle_right_after_one_that_placed_a_pod():
    batch = OpportunisticBatch()
    assert not batch.may_hint(1)                    # nothing ranked yet
    batch.store_results("sig", "", "n1", None, 1)
    assert not batch.may_hint(2)                    # placed, but no ranking left
    batch.store_results("sig", "", "n1", SortedScores(["n2", "n3"], [5, 3]), 3)
    assert batch.may_hint(4)                        # the ranking of cycle 3, for cycle 4
    assert not batch.may_hint(5)                    # cycle 4 did not place a pod


def test_more_shapes_than_the_least_kept_round_robin_all_share_on_a_small_cluster(tmp_path, monkeypatch):
    """40 shapes (more than SHAPES_KEPT), two rounds, over three nodes: the shapes kept are bounded by
    nodes times shapes (`shapes_kept`), so every pod of the second round takes its shape's first cycle."""
    from kexplain.explain import shared_cycles
    shapes = shared_cycles.SHAPES_KEPT + 8
    pods = [_pod(f"web-{r}-{s}", cpu=str(3 + s), app=f"web-{s}") for r in range(2) for s in range(shapes)]
    hits: list[str] = []
    real = SharedCycles.found

    def found(self, key, inputs):
        placement = real(self, key, inputs)
        if placement is not None:
            hits.append(inputs.pod.name)
        return placement

    monkeypatch.setattr(SharedCycles, "found", found)
    _traces(tmp_path, pods, monkeypatch, shared=True)
    assert hits == [f"web-1-{s}" for s in range(shapes)]

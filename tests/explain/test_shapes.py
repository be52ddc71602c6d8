"""Pending pods only their names tell apart share one explanation (`kexplain pod --pending`):
the shared trace must be exactly what explaining the pod itself gives."""
from __future__ import annotations

from pathlib import Path

import yaml

from kexplain.explain.batch import admitted, explain_each
from kexplain.explain.inputs import load
from kexplain.explain.request import Request, RunOptions
from kexplain.explain.run import explain
from kexplain.model.shapes import pending_key
from kexplain.suggest import suggestions

NODES = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n}},
          "status": {"capacity": {"cpu": "2", "memory": "4Gi", "pods": "110"}}} for n in ("n1", "n2")]


def _pod(name: str, cpu: str = "3", **status) -> dict:
    obj = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "shop", "labels": {"app": "web"}},
           "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]}}
    if status:
        obj["status"] = status
    return obj


def _inputs(tmp_path: Path, *pods: dict):
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(list(pods)))
    (tmp_path / "nodes.yaml").write_text(yaml.safe_dump_all(NODES))
    loaded = load(Request(pod_path=str(tmp_path / "pods.yaml"), node_paths=(str(tmp_path / "nodes.yaml"),)))
    return [admitted(e, loaded.pool) for e in loaded.batch]


def test_copies_share_the_first_trace_renamed_as_their_own(tmp_path):
    first, second = _inputs(tmp_path, _pod("web-a"), _pod("web-b"))
    assert pending_key(first.pod) == pending_key(second.pod)
    options = RunOptions()
    shared = [v.trace for v in explain_each([first, second], options, suggestions)]
    own = explain(second, options)
    own.extra["suggestions"] = [s.to_json() for s in suggestions(second, own, options)]
    assert shared[1].to_json() == own.to_json()
    assert shared[1].pod == {"namespace": "shop", "name": "web-b"}
    assert own.extra["suggestions"], "the case must have suggestions to compare"


def test_pods_that_differ_are_explained_each():
    from kexplain.model.pod import PodInfo
    a, b = PodInfo(_pod("a")), PodInfo(_pod("b", cpu="1"))
    assert pending_key(a) != pending_key(b)
    nominated = PodInfo(_pod("c", nominatedNodeName="n1"))
    assert pending_key(nominated) is None
    claims = _pod("d")
    claims["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "gpu"}]
    assert pending_key(PodInfo(claims)) is None


def test_a_renamed_trace_leaves_other_pods_whose_key_ends_like_the_first_one_s():
    from kexplain.explain.shapes import renamed
    from kexplain.framework.trace import Trace
    from kexplain.model.pod import PodInfo
    first, pod = PodInfo(_pod("web-a")), PodInfo(_pod("web-b"))
    trace = Trace(pod={"namespace": "shop", "name": "web-a"}, profile="default-scheduler",
                  extra={"suggestions": [{"description": "delete pod myshop/web-a or pod shop/web-a-0; pod shop/web-a"}]})
    assert renamed(trace, first, pod).extra["suggestions"][0]["description"] == \
        "delete pod myshop/web-a or pod shop/web-a-0; pod shop/web-b"


def _counted(monkeypatch) -> list:
    """The pods `explain_each` runs the scheduler for (each a call of `explain.run.explain`)."""
    from kexplain.explain import batch
    ran: list = []
    original = batch.explain

    def counting(inputs, options):
        ran.append(inputs.pod.name)
        return original(inputs, options)

    monkeypatch.setattr(batch, "explain", counting)
    return ran


def test_a_batch_runs_the_scheduler_once_per_shape_though_its_shapes_come_round_robin(tmp_path, monkeypatch):
    """20 shapes (more than a recency cache of 16 held), three pods each, listed round robin: 20 cycles,
    and each pod's answer is exactly its own, explained alone."""
    shapes, rounds = 20, 3
    pods = [_pod(f"web-{r}-{s}", cpu=str(3 + s)) for r in range(rounds) for s in range(shapes)]
    inputs = _inputs(tmp_path, *pods)
    options = RunOptions()
    ran = _counted(monkeypatch)
    shared = [v.trace.to_json() for v in explain_each(inputs, options)]
    assert ran == [f"web-0-{s}" for s in range(shapes)]
    monkeypatch.undo()
    assert shared == [explain(i, options).to_json() for i in inputs]


def test_a_pod_against_another_state_is_explained_on_its_own(tmp_path, monkeypatch):
    from dataclasses import replace
    first, second = _inputs(tmp_path, _pod("web-a"), _pod("web-b"))
    other = replace(second, snapshot=second.snapshot.with_objects(dict(second.snapshot.namespaces),
                                                                  dict(second.snapshot.objects)))
    ran = _counted(monkeypatch)
    list(explain_each([first, other, second], RunOptions()))
    assert ran == ["web-a", "web-b"]


def test_more_shapes_than_the_least_kept_all_hit_on_a_small_cluster(tmp_path, monkeypatch):
    """40 shapes round robin (more than SHAPES_KEPT) over two nodes: the cap is by nodes times shapes,
    so each shape runs the scheduler once."""
    from kexplain.explain import shared_cycles
    shapes = shared_cycles.SHAPES_KEPT + 8
    pods = [_pod(f"web-{r}-{s}", cpu=str(3 + s)) for r in range(2) for s in range(shapes)]
    inputs = _inputs(tmp_path, *pods)
    assert shared_cycles.shapes_kept(inputs[0].snapshot) >= shapes
    ran = _counted(monkeypatch)
    list(explain_each(inputs, RunOptions()))
    assert ran == [f"web-0-{s}" for s in range(shapes)]


def test_a_large_cluster_keeps_fewer_shapes_but_never_under_the_least():
    from types import SimpleNamespace
    from kexplain.explain import shared_cycles
    many = SimpleNamespace(node_infos=range(shared_cycles.KEPT_NODE_ENTRIES))
    some = SimpleNamespace(node_infos=range(shared_cycles.KEPT_NODE_ENTRIES // 100))
    assert shared_cycles.shapes_kept(many) == shared_cycles.SHAPES_KEPT
    assert shared_cycles.shapes_kept(some) == 100
    assert shared_cycles.shapes_kept(None) == shared_cycles.KEPT_NODE_ENTRIES

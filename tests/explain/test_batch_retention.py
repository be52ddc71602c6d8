"""Memory flat in the number of pods (issue 18): an outcome of many copies keeps what the
table shows (the first copy, the first that does not fit, the last) and per copy its name,
node, zone and status; every other trace is gone once the sink has seen it."""
from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

import yaml

from kexplain.explain.batch import explain_batch
from kexplain.explain.inputs import load
from kexplain.explain.request import Request
from tests.support.copies import copy_names

Obj = dict[str, Any]


def node(name: str, cpu: str) -> Obj:
    room = {"cpu": cpu, "memory": "16Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": f"zone-{name}"}},
            "status": {"capacity": room, "allocatable": dict(room)}}


def deployment(name: str, replicas: int, cpu: str) -> Obj:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "x",
                                                           "resources": {"requests": {"cpu": cpu}}}]}}}}


def pod(name: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "10m"}}}]}}


def batch_of(tmp_path: Path, *objs: Obj, cpu: str = "8"):
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(objs))
    (tmp_path / "pool.yaml").write_text(yaml.safe_dump_all([node("a", cpu), node("b", cpu)]))
    req = Request(pod_path=str(tmp_path / "pods.yaml"), node_paths=(str(tmp_path / "pool.yaml"),))
    loaded = load(req)
    return loaded, req


def test_an_outcome_of_many_copies_keeps_three_traces_not_one_per_copy(tmp_path):
    loaded, req = batch_of(tmp_path, deployment("web", 120, "100m"), cpu="8")     # 160 fit, all 120 do
    traces: list[weakref.ref] = []
    seen: list[str] = []

    def sink(placement) -> None:
        traces.append(weakref.ref(placement.trace))
        seen.append(placement.inputs.pod.name)

    outcomes = list(explain_batch(loaded.batch, loaded.pool, req.run, sink=sink))
    gc.collect()
    (outcome,) = outcomes
    assert seen == copy_names(deployment("web", 120, "100m"), 120) and len(outcome.copies) == 120
    alive = [i for i, ref in enumerate(traces) if ref() is not None]
    assert alive == [0, 119]                # the first copy and the last one: all fit
    assert [a.index for a in outcome.attempts] == [0, 119]
    assert outcome.fits and len(outcome.placed) == 120
    assert sum(outcome.to_json()["zones"].values()) == 120


def test_the_first_copy_that_does_not_fit_is_kept_with_its_trace(tmp_path):
    loaded, req = batch_of(tmp_path, deployment("web", 50, "1"), cpu="8")         # 16 fit, the 17th does not
    traces: list[weakref.ref] = []
    outcomes = list(explain_batch(loaded.batch, loaded.pool, req.run,
                                  sink=lambda p: traces.append(weakref.ref(p.trace))))
    gc.collect()
    (outcome,) = outcomes
    assert len(traces) == len(outcome.copies) == 17
    assert [i for i, ref in enumerate(traces) if ref() is not None] == [0, 16]
    assert outcome.first_unfit is outcome.last
    assert outcome.first_unfit.inputs.pod.name == copy_names(deployment("web", 50, "1"), 17)[16]
    assert outcome.first_unfit.trace.result.status == "Unschedulable"
    assert [c.status for c in outcome.copies] == ["Scheduled"] * 16 + ["Unschedulable"]


def test_iterating_a_file_of_many_pods_holds_no_trace_of_the_pods_already_seen(tmp_path):
    loaded, req = batch_of(tmp_path, *[pod(f"p{i}") for i in range(30)])
    traces: list[weakref.ref] = []
    for i, outcome in enumerate(explain_batch(loaded.batch, loaded.pool, req.run,
                                              sink=lambda p: traces.append(weakref.ref(p.trace)))):
        assert outcome.entry.name == f"p{i}"
        del outcome
        gc.collect()
        # the pods before the previous one are gone (the queue binds the previous one lazily)
        assert not [j for j, ref in enumerate(traces[:-2]) if ref() is not None]
    assert len(traces) == 30

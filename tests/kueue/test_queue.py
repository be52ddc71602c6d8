"""The queues (queue/): Go's heap order, BestEffortFIFO setting a head aside and moving on,
StrictFIFO keeping its head, the preempting Workload kept at the head, v0.19's equivalent
Workloads set aside together."""
from __future__ import annotations

import random

import pytest

from kexplain.kueue.queue.heap import Heap
from tests.kueue.builders import cluster_queue, flavor, local_queue, run, workload


@pytest.mark.parametrize("seed", range(5))
def test_heap_pops_in_order(seed: int) -> None:
    values = list(range(40))
    random.Random(seed).shuffle(values)
    heap: Heap[int] = Heap(lambda v: v, lambda a, b: a < b)
    for v in values:
        heap.push_or_update(v)
    heap.delete(7)
    assert [heap.pop() for _ in range(len(heap))] == [v for v in range(40) if v != 7]


def _queue(strategy: str, *pending: tuple[str, str, int], version: str = "0.17"):
    docs = [flavor("default"), local_queue("q", "cq"),
            cluster_queue("cq", {"default": {"cpu": "4"}}, queueingStrategy=strategy)]
    submitted = tuple(workload(name, "q", {"cpu": cpu}, priority=p, created=f"2025-12-31T1{i}:00:00Z")
                      for i, (name, cpu, p) in enumerate(pending))
    return run(*docs, submitted=submitted, version=version)


def _states(done) -> dict[str, str]:
    out = {}
    for key, wl in done.workloads.items():
        cond = wl.find("QuotaReserved")
        out[key.split("/")[1]] = "admitted" if wl.is_true("QuotaReserved") else (cond.reason if cond else "none")
    return out


@pytest.mark.parametrize(("strategy", "states"), [
    # BestEffortFIFO: the head that does not fit is set aside, the next ones are tried
    ("BestEffortFIFO", {"big": "Pending", "small": "admitted", "tiny": "admitted"}),
    # StrictFIFO: the head blocks the queue; those behind it get no condition at all
    ("StrictFIFO", {"big": "Pending", "small": "none", "tiny": "none"}),
])
def test_strategies(strategy: str, states: dict[str, str]) -> None:
    done = _queue(strategy, ("big", "8", 10), ("small", "2", 0), ("tiny", "1", 0))
    assert _states(done) == states


def test_priority_then_creation_time() -> None:
    done = _queue("BestEffortFIFO", ("old-low", "3", 0), ("new-high", "3", 10))
    assert _states(done) == {"new-high": "admitted", "old-low": "Pending"}


@pytest.mark.parametrize(("version", "tried"), [("0.17", True), ("0.19", False)])
def test_equivalent_workloads_set_aside_from_v0_19(version: str, tried: bool) -> None:
    done = _queue("BestEffortFIFO", ("a", "3", 0), ("b", "3", 0), ("c", "3", 0), version=version)
    states = _states(done)
    assert states["a"] == "admitted" and states["b"] == "Pending"
    assert (states["c"] == "Pending") is tried                    # c is b's equal: v0.19 never tries it

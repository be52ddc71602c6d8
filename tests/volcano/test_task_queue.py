"""The allocate action's task queue with a sort key (`Session.task_key`: the priority plugin's order,
then CompareTask's) pops the tasks in the order the scan by `task_order_less` pops them: the
priority, the name's index, creation, UID, the first come among equals; a task whose name has no
index turns the queue back to the scan."""
from __future__ import annotations

import random

from kexplain.volcano import conf
from kexplain.volcano.api.task import new_task
from kexplain.volcano.framework.session import Session
from kexplain.volcano.framework.statement import PriorityQueue
from kexplain.volcano.plugins.priority import Priority


def _session() -> Session:
    ssn = Session(conf.default(), {}, {}, [], {}, None, None)     # type: ignore[arg-type]
    Priority({}).on_session_open(ssn)
    return ssn


def _task(rng: random.Random, i: int, indexed: bool = True) -> object:
    name = f"job-w-{rng.randint(0, 6)}" if indexed else f"solo{i}"
    pod = {"metadata": {"name": name, "namespace": "ns", "uid": f"u{rng.randint(0, 40):02d}",
                        "creationTimestamp": f"2026-01-01T00:00:0{rng.randint(0, 3)}Z",
                        "annotations": {"scheduling.k8s.io/group-name": "g"}},
           "spec": {"priority": rng.choice((0, 5, 10)), "containers": []}, "status": {"phase": "Pending"}}
    return new_task(pod)


def _popped(queue: PriorityQueue) -> list[int]:
    out = []
    while not queue.empty():
        out.append(id(queue.pop()))
    return out


def test_a_keyed_task_queue_pops_as_the_scan_does() -> None:
    ssn = _session()
    assert ssn.task_key() is not None
    for seed in range(20):
        rng = random.Random(seed)
        tasks = [_task(rng, i) for i in range(60)]
        later = [_task(rng, 100 + i) for i in range(10)]
        keyed = PriorityQueue(ssn.task_order_less, tasks, ssn.task_key())
        scanned = PriorityQueue(ssn.task_order_less, tasks)
        assert keyed._heap is not None
        out = [id(keyed.pop()) for _ in range(20)]
        assert out == [id(scanned.pop()) for _ in range(20)]
        for t in later:
            keyed.push(t)
            scanned.push(t)
        assert len(keyed) == len(scanned)
        assert _popped(keyed) == _popped(scanned)


def test_a_task_without_an_index_turns_the_queue_back_to_the_scan() -> None:
    ssn = _session()
    rng = random.Random(5)
    tasks = [_task(rng, i) for i in range(30)]
    keyed = PriorityQueue(ssn.task_order_less, tasks, ssn.task_key())
    scanned = PriorityQueue(ssn.task_order_less, tasks)
    assert [id(keyed.pop()) for _ in range(5)] == [id(scanned.pop()) for _ in range(5)]
    for t in [_task(rng, 50, indexed=False), _task(rng, 51)]:
        keyed.push(t)
        scanned.push(t)
    assert keyed._heap is None
    assert _popped(keyed) == _popped(scanned)

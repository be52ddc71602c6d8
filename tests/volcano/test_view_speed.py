"""What issue 93's second speed pass keeps exact: the session sums nodeorder's scores as lists
(`Session.node_scores`) and runs with the cyclic collector paused; and the pod index's tallies the
session's view patches at each placement count each bind once, on every line of snapshots."""
from __future__ import annotations

from typing import Any

from kexplain.model.labels import parse_selector
from kexplain.model.pod import PodInfo
from kexplain.model.pod_index import pod_index
from kexplain.model.snapshot import Snapshot
from kexplain.volcano.api.task import new_task
from kexplain.volcano.cache import K8sView
from kexplain.volcano.framework.session import Session
from kexplain.volcano.plugins.nodeorder import NodeOrderFn

SELECTOR = parse_selector({"matchLabels": {"app": "w"}})


def _node(name: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}


def _pod(name: str, node: str, app: str = "w") -> PodInfo:
    return PodInfo({"metadata": {"name": name, "namespace": "a", "uid": name, "labels": {"app": app}},
                    "spec": {"nodeName": node, "containers": [{"name": "c"}]}, "status": {"phase": "Running"}})


def _counts(snap: Snapshot) -> dict[str, int]:
    return dict(pod_index(snap).node_counts("a", SELECTOR).counts)


def _fresh(snap: Snapshot) -> dict[str, int]:
    return dict(pod_index(Snapshot([ni.clone() for ni in snap.node_infos], snap.namespaces)).node_counts(
        "a", SELECTOR).counts)


def test_a_tally_read_after_binds_counts_each_of_them_once() -> None:
    view = K8sView([_node("n1"), _node("n2"), _node("n3")], {"a": {}})
    view.add(new_task(_pod("before", "n1").obj), "n1")
    base = view.snapshot
    assert _counts(base) == {"n1": 1}                         # (the tally is made, then binds are logged)
    one = base.with_pod_bound(_pod("p1", "n2"))
    two = one.with_pod_bound(_pod("p2", "n2")).with_pod_bound(_pod("other", "n3", app="x"))
    three = two.with_pod_bound(_pod("p3", "n3"))
    assert _counts(two) == _fresh(two) == {"n1": 1, "n2": 2}
    assert _counts(three) == _fresh(three) == {"n1": 1, "n2": 2, "n3": 1}
    assert _counts(two) == {"n1": 1, "n2": 2}                 # (read again: not counted twice)
    assert _counts(one) == _fresh(one) == {"n1": 1, "n2": 1}  # (an earlier snapshot reads its own binds)
    branch = one.with_pod_bound(_pod("q", "n1"))               # (another bind from `one`: its own log)
    assert _counts(branch) == _fresh(branch) == {"n1": 2, "n2": 1}
    assert _counts(three) == {"n1": 1, "n2": 2, "n3": 1}
    assert _counts(base) == {"n1": 1}


class _Plain:
    """A batchNodeOrder function answering by node name only (no `many`)."""

    def __call__(self, task: Any, nodes: list[Any]) -> dict[str, float]:
        return {nd.name: 0.25 * len(nd.name) for nd in nodes}


class _Node:
    def __init__(self, name: str) -> None:
        self.name = name


def test_node_scores_sum_lists_and_dicts_per_node_in_order() -> None:
    nodes = [_Node("a"), _Node("bb"), _Node("ccc")]
    order = [("map", lambda t, nd: float(len(nd.name))),
             ("many", NodeOrderFn(None, lambda t, ns: [10.0, 20.0, 30.0]))]
    batch = [("plain", _Plain()), ("listed", NodeOrderFn(None, lambda t, ns: [0.5, 0.0, 100.0])), ("plain2", _Plain())]
    fake: Any = type("S", (), {})()
    fake._each = lambda point, _kind: order if point == "nodeOrder" else batch
    got = Session.node_scores(fake, None, nodes)          # type: ignore[arg-type]
    assert got == {"a": 1.0 + 10.0 + 0.25 + 0.5 + 0.25, "bb": 2.0 + 20.0 + 0.5 + 0.0 + 0.5,
                   "ccc": 3.0 + 30.0 + 0.75 + 100.0 + 0.75}
    assert list(got) == ["a", "bb", "ccc"]


def test_the_session_runs_with_the_cyclic_collector_paused(monkeypatch: Any) -> None:
    import gc

    from kexplain.volcano import run
    from kexplain.volcano.conf import default

    seen: list[bool] = []
    monkeypatch.setitem(run.EXECUTE, "allocate", lambda ssn: seen.append(gc.isenabled()))
    assert gc.isenabled()
    run.run_session([{"kind": "Node", **_node("n1")}], [], default())
    assert seen == [False] and gc.isenabled()

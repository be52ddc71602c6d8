"""The binpacking estimator's limiter and pod order (estimator/)."""
from __future__ import annotations

from kexplain.autoscaler.estimator import Limiter, estimator_limits, pod_score
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo


def test_the_tightest_limit_wins_and_a_negative_one_forbids():
    assert Limiter.of([1000, 3, 0]).max_nodes == 3
    assert Limiter.of([0, 0]).max_nodes == 0                  # no limit at all
    assert Limiter.of([1000, -1, 5]).max_nodes == -1
    limiter = Limiter(2)
    assert [limiter.permission_to_add_node() for _ in range(3)] == [True, True, False]
    assert not Limiter(-1).permission_to_add_node()
    assert all(Limiter(0).permission_to_add_node() for _ in range(50))


def test_the_default_thresholds():
    assert estimator_limits(1000, 4, 0, 10).max_nodes == 4            # room left in the group(s)
    assert estimator_limits(1000, 0, 0, 10).max_nodes == -1           # no room: no node
    assert estimator_limits(1000, 9, 12, 10).max_nodes == 2           # --max-nodes-total less the nodes
    assert estimator_limits(1000, 9, 10, 10).max_nodes == -1
    assert estimator_limits(3, 9, 0, 10).max_nodes == 3               # --max-nodes-per-scaleup


def test_score_is_cpu_and_memory_shares_of_the_template():
    node = NodeInfo(Node.from_obj({"metadata": {"name": "t"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi"}}}))
    pod = PodInfo({"metadata": {"name": "p"}, "spec": {"containers": [
        {"name": "c", "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]}})
    assert pod_score(pod, node) == 0.25 + 0.25

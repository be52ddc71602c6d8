"""The predicate helper (pkg/scheduler/util/predicate_helper.go, scheduler_helper.go): how many feasible
nodes a search stops at, where the next search starts, and the error cache of a job's role."""
from __future__ import annotations

from types import SimpleNamespace

from kexplain.volcano import conf
from kexplain.volcano.actions.allocate import error_cache, num_nodes_to_find, predicate_nodes
from kexplain.volcano.api.fit_errors import Code, FitError, Status


def test_feasible_nodes_to_find() -> None:
    assert [num_nodes_to_find(n) for n in (3, 100, 1000, 5000, 10000)] == [3, 100, 420, 500, 500]


def _nodes(n: int) -> list:
    return [SimpleNamespace(name=f"n{i}") for i in range(n)]


def test_a_role_that_failed_on_a_node_fails_there_again_unchecked() -> None:
    ssn = SimpleNamespace(last_node_index=0)
    nodes = _nodes(3)
    worker = SimpleNamespace(job="ns/j", role="worker", key="ns/j-worker-0")
    refuse_n0 = lambda t, n: FitError(t.key, n.name, [Status(Code.UNSCHEDULABLE, "no")]) if n.name == "n0" else None
    cache: dict = {}
    first, _ = predicate_nodes(ssn, worker, nodes, refuse_n0, cache)
    assert [n.name for n in first] == ["n1", "n2"]
    again, fe = predicate_nodes(ssn, worker, nodes, lambda t, n: None, cache)
    assert [n.name for n in again] == ["n1", "n2"] and set(fe.nodes) == {"n0"}
    # a task without a role is checked again
    plain = SimpleNamespace(job="ns/j", role="", key="ns/j-0")
    assert len(predicate_nodes(ssn, plain, nodes, lambda t, n: None, cache)[0]) == 3


def test_a_large_cluster_search_stops_and_the_next_starts_where_it_stopped() -> None:
    ssn = SimpleNamespace(last_node_index=0)
    nodes = _nodes(1000)
    task = SimpleNamespace(job="ns/j", role="", key="ns/p")
    found, _ = predicate_nodes(ssn, task, nodes, lambda t, n: None)
    assert len(found) == 420 and ssn.last_node_index == 420
    found, _ = predicate_nodes(ssn, task, nodes, lambda t, n: None)
    assert found[0].name == "n420"


def test_the_error_cache_is_the_actions_own_argument() -> None:
    off = conf.parse('actions: "allocate"\nconfigurations:\n- name: allocate\n  arguments:\n'
                     '    predicateErrorCacheEnable: "false"\n', "f")
    assert error_cache(SimpleNamespace(conf=off), "allocate") is False
    assert error_cache(SimpleNamespace(conf=conf.default()), "allocate") is True

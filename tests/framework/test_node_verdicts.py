"""The trace's `filter` kept as the search's columns (`NodeVerdicts`): read as the dict a node-by-node
search writes, a node visited twice (the nominated node, then the round-robin) in its first place with
its last verdict, and counted once by a copy's summary."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli import main
from kexplain.explain.copy_summary import summarize
from kexplain.framework.status import Code, Status
from kexplain.framework.trace import NodeVerdicts, Trace, filter_json
from tests.support.cli_helpers import TestEnvironment, node_yaml

FIT = Status()
FULL = Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit")
TAINT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("untolerated",), "TaintToleration")


def _json(status: Status) -> dict:
    return status.json_view(with_plugin=True)


def test_read_as_the_dict_written_node_by_node() -> None:
    columns, written = NodeVerdicts(), {}
    for names, statuses in ((["a", "b"], [FULL, FIT]), (["c", "a"], [TAINT, TAINT])):
        columns.extend(names, statuses)
        written.update(zip(names, map(_json, statuses)))
    assert list(columns.items()) == list(written.items())      # "a" first, with its second verdict
    assert columns == written and len(columns) == 3 and "c" in columns and "d" not in columns
    assert columns["a"] is _json(TAINT) and columns.get("d") is None
    assert columns["a"] == {"plugin": "TaintToleration", "code": "UnschedulableAndUnresolvable", "reasons": ["untolerated"]}
    assert filter_json(columns) == written and type(filter_json(columns)) is dict
    # one dict while no node is added: a trace shared by many pods is written once (render/json_text)
    assert filter_json(columns) is filter_json(columns)
    assert columns.statuses() == [TAINT, FIT, TAINT]


def test_a_copy_s_summary_counts_a_node_visited_twice_once() -> None:
    trace = Trace(pod={"namespace": "default", "name": "p"}, profile="default-scheduler")
    trace.filter = NodeVerdicts()
    trace.filter.extend(["a"], [FULL])
    trace.filter.extend(["a", "b"], [FULL, FULL])
    assert summarize(trace)["rejected"] == [{"plugin": "NodeResourcesFit", "reason": "Insufficient cpu", "nodes": 2}]


def test_a_nominated_node_that_no_longer_fits_is_reported_once(tmp_path: Path) -> None:
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text("---\n".join(node_yaml(f"n{i}", "z", "2" if i else "1", "4Gi") for i in range(3)))
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
                   "spec:\n  containers: [{name: c, image: x, resources: {requests: {cpu: '2'}}}]\n"
                   "status: {nominatedNodeName: n0}\n")
    env = TestEnvironment()
    main([str(pod), "--nodes", str(nodes), "-o", "json"], env=env)
    trace = json.loads(env.out)
    trace = trace.get("trace", trace)
    assert trace["search"]["order"][0] == "n0" and trace["search"]["order"].count("n0") == 2
    assert list(trace["filter"]) == ["n0", "n1", "n2"]
    assert trace["filter"]["n0"]["plugin"] == "NodeResourcesFit"

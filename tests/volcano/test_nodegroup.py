"""The nodegroup plugin: nodegroup_test.go's TestNodeGroup, its seven cases (the session opened over the
Go test's nodes, queues, PodGroups and pods with one tier, nodegroup with EnabledNodeOrder and
EnabledPredicate and the case's arguments and hierarchy; each task's NodeOrderFn score and PredicateFn
status code on every node), then a whole allocate session naming the plugin's reason."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.features.kube_version import KubeVersion
from kexplain.volcano import cache
from kexplain.volcano.api.fit_errors import Code
from kexplain.volcano.conf import parse
from kexplain.volcano.framework.framework import open_session
from kexplain.volcano.versions import DEFAULT
from tests.volcano.capacity_inputs import node, plugin, pod, pod_group, queue, rl, run

LABEL = "volcano.sh/nodegroup-name"
OK, NO = Code.SUCCESS, Code.UNSCHEDULABLE_AND_UNRESOLVABLE
NODES = [node("n1", rl("2", "4Gi"), {LABEL: "group1"}), node("n2", rl("4", "16Gi"), {LABEL: "group2"}),
         node("n3", rl("4", "16Gi"), {LABEL: "group3"}), node("n4", rl("4", "16Gi"), {LABEL: "group4"}),
         node("n5", rl("4", "16Gi"))]


def aqueue(name: str, affinity: dict[str, Any] | None, parent: str = "") -> dict[str, Any]:
    """util.MakeQueue(name).Affinity(...).Parent(...)."""
    obj = queue(name, None, None, parent=parent)
    if affinity is not None:
        obj["spec"]["affinity"] = affinity
    return obj


def rules(required: list[str], preferred: list[str], anti_required: list[str] = (),  # type: ignore[assignment]
          anti_preferred: list[str] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    out: dict[str, Any] = {"nodeGroupAffinity": {}}
    if required:
        out["nodeGroupAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = required
    if preferred:
        out["nodeGroupAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    if anti_required or anti_preferred:
        out["nodeGroupAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": list(anti_required),
                                        "preferredDuringSchedulingIgnoredDuringExecution": list(anti_preferred)}
    return out


FULL = rules(["group1", "group3"], ["group3"], ["group2", "group4"], ["group4"])
ROOT_Q = aqueue("root", FULL)
Q1 = aqueue("q1", FULL, "root")
Q2 = aqueue("q2", rules(["group1"], ["group3"], ["group2"], ["group4"]), "root")
Q3 = aqueue("q3", rules([], ["group1", "group3"]))
NO_AFFINITY_ROOT = aqueue("root-no-affinity", None)
NO_AFFINITY = aqueue("q-no-affinity", None, "root")
Q1_CHILD = aqueue("q1-child", None, "q1")
NO_AFFINITY_CHILD = aqueue("q-no-affinity-child", None, "q-no-affinity")
FULL_SCORES = {"n1": 100, "n2": 0, "n3": 150, "n4": -1, "n5": 0}
FULL_CODES = {"n1": OK, "n2": NO, "n3": OK, "n4": OK, "n5": NO}

CASES = [
    ("soft constraints is subset of hard constraints", "q1", [Q1], {}, False, FULL_SCORES, FULL_CODES),
    ("soft constraints is not subset of hard constraints", "q2", [Q2], {}, False,
     {"n1": 100, "n2": 0, "n3": 50, "n4": -1, "n5": 0}, FULL_CODES),
    ("affinity is not set for the queue, pods still cannot be scheduled to nodes with the nodegroup label "
     "when strict=false", "root-no-affinity", [NO_AFFINITY_ROOT], {"strict": False}, False,
     dict.fromkeys(FULL_SCORES, 0), {"n1": NO, "n2": NO, "n3": NO, "n4": NO, "n5": OK}),
    ("affinity inherits from parent queue", "q1-child", [ROOT_Q, Q1, Q1_CHILD], {}, True, FULL_SCORES, FULL_CODES),
    ("affinity inherits from ancestor queue if parent queue has no affinity", "q-no-affinity-child",
     [ROOT_Q, NO_AFFINITY, NO_AFFINITY_CHILD], {}, True, FULL_SCORES, FULL_CODES),
    ("queue without affinity", "q-no-affinity", [NO_AFFINITY], {}, False,
     dict.fromkeys(FULL_SCORES, 0), dict.fromkeys(FULL_CODES, NO)),
    ("preferred nodegroup priority ordering", "q3", [Q3], {"enablePreferredOrder": True}, False,
     {"n1": 50, "n2": 0, "n3": 25, "n4": 0, "n5": 0}, {"n1": OK, "n2": NO, "n3": OK, "n4": NO, "n5": NO}),
]


@pytest.mark.parametrize("name,queue_name,queues,arguments,hierarchy,scores,codes", CASES, ids=[c[0] for c in CASES])
def test_node_group(name: str, queue_name: str, queues: list[dict[str, Any]], arguments: dict[str, Any],
                    hierarchy: bool, scores: dict[str, float], codes: dict[str, Code]) -> None:
    option = {"name": "nodegroup", "enableNodeOrder": True, "enablePredicate": True, "arguments": arguments,
              "enableHierarchy": hierarchy}
    conf = parse(yaml.safe_dump({"actions": "allocate", "tiers": [{"plugins": [option]}]}), "test")
    cluster = cache.build([*NODES, pod("c1", "p", "", "Pending", rl("2", "4Gi"), "pg")],
                          [*queues, pod_group("pg", "c1", queue_name, 0, "")])
    ssn = open_session(cluster, conf, KubeVersion(DEFAULT.kubernetes))
    task = next(iter(ssn.jobs["c1/pg"].tasks.values()))
    nodes = list(ssn.nodes.values())
    assert ssn.node_scores(task, nodes) == scores
    got = {}
    for n in nodes:
        err = ssn.predicate(task, n)
        got[n.name] = OK if err is None else err.statuses[0].code
    assert got == codes


def test_allocate_names_the_reason(tmp_path: Path) -> None:
    """A queue whose tasks may only run in group1, which is full: the task's reasons are the plugin's."""
    objects = [node("n1", rl("1", "4Gi", pods="10"), {LABEL: "group1"}), node("n2", rl("8", "16Gi", pods="10"),
                                                                             {LABEL: "group2"}),
               node("n3", rl("8", "16Gi", pods="10")), aqueue("q", rules(["group1"], [])),
               pod_group("pg", "c1", "q", 1, "Inqueue"), pod("c1", "p", "", "Pending", rl("2", "1Gi"), "pg")]
    tier = [plugin("nodegroup", "enablePredicate", "enableNodeOrder"), plugin("predicates", "enablePredicate")]
    doc = run(tmp_path, objects, "allocate", tier)
    assert doc["pods"][0]["podScheduled"]["message"] == (
        "0/3 nodes are unavailable: 1 Insufficient cpu, 1 node does not satisfy the node group affinity, "
        "1 node group label not found.")

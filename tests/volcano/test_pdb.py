"""The pdb plugin: pdb_test.go's TestPreemptableAndReclaimableFn (its three cases: no budget, a budget
allowing 0, one allowing 1; the session's Preemptable and Reclaimable over two labelled tasks), a pod
without labels (never a victim), a budget without a status (the disruption controller's), and the
plugin in a whole preempt session (preempt_test.go's "preempt low priority job in same queue")."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.volcano.api.disruption import budgets_of
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import new_task
from kexplain.volcano.conf import parse
from kexplain.volcano.framework.session import Session
from kexplain.volcano.plugins.pdb import Pdb
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

LABEL = "volcano.sh/job-name"
CONF = "actions: preempt\ntiers:\n- plugins:\n  - name: pdb\n    enablePreemptable: true\n    enableReclaimable: true\n"


def make_pod(name: str, labels: dict[str, str] | None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
            "spec": {"containers": [{"name": "c"}]}}


def budget(allowed: int | None, ns: str = "default", selector: Any = None) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                           "metadata": {"name": "test-pdb", "namespace": ns},
                           "spec": {"selector": {"matchLabels": {LABEL: "job-1"}} if selector is None else selector}}
    if allowed is not None:
        obj["status"] = {"disruptionsAllowed": allowed}
    return obj


def victims(pdbs: list[dict[str, Any]], pods: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """The session's Preemptable and Reclaimable with the pdb plugin alone, over `pods` as tasks."""
    ssn = Session(parse(CONF, "test"), {}, {}, [], {}, Resource(), None)
    ssn.budgets = budgets_of([*pdbs, *pods])
    Pdb({}).on_session_open(ssn)
    tasks = [new_task(p) for p in pods]
    preemptor = new_task(make_pod("preemptor", None))
    return ([t.name for t in ssn.preemptable(preemptor, tasks)], [t.name for t in ssn.reclaimable(preemptor, tasks)])


TWO = [make_pod("test-pod1", {LABEL: "job-1"}), make_pod("test-pod2", {LABEL: "job-1"})]


@pytest.mark.parametrize("pdbs,expected", [
    ([], ["test-pod1", "test-pod2"]),                   # test without pdbs
    ([budget(0)], []),                                  # test with pdbs(can evict 0 pod)
    ([budget(1)], ["test-pod1"]),                       # test with pdbs(can evict 1 pod)
], ids=["without pdbs", "can evict 0 pod", "can evict 1 pod"])
def test_preemptable_and_reclaimable(pdbs: list[dict[str, Any]], expected: list[str]) -> None:
    assert victims(pdbs, TWO) == (expected, expected)


def test_a_budget_of_another_namespace_or_an_empty_selector_holds_nothing() -> None:
    assert victims([budget(0, ns="other"), budget(0, selector={})], TWO)[0] == ["test-pod1", "test-pod2"]


def test_a_pod_without_labels_is_no_victim() -> None:
    """pdbFilterFn's `continue` for a pod without labels skips the victims' append as well."""
    assert victims([], [make_pod("bare", None), *TWO])[0] == ["test-pod1", "test-pod2"]


def test_a_disrupted_pod_spends_no_allowance() -> None:
    pdb = budget(1)
    pdb["status"]["disruptedPods"] = {"test-pod1": "2026-01-01T00:00:00Z"}
    assert victims([pdb], TWO)[0] == ["test-pod1", "test-pod2"]


def test_a_budget_without_status_gets_the_controllers() -> None:
    """minAvailable 1 over two running, ready pods: the disruption controller allows 1."""
    running = [{**p, "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
                "spec": {"nodeName": "n1", "containers": [{"name": "c"}]}} for p in TWO]
    pdb = budget(None)
    pdb["spec"]["minAvailable"] = 1
    assert victims([pdb], running)[0] == ["test-pod1"]


@pytest.mark.parametrize("allowed,evicted", [(0, False), (1, True)])
def test_preempt_session_keeps_the_budget(tmp_path: Path, allowed: int, evicted: bool) -> None:
    hand = TESTS / "volcano" / "hand"
    cluster = tmp_path / "cluster.yaml"
    pdb = budget(allowed, ns="c1", selector={"matchLabels": {"volcano.sh/preemptable": "true"}})
    cluster.write_text((hand / "preempt-low-priority.yaml").read_text() + "\n---\n" + yaml.safe_dump(pdb))
    conf = yaml.safe_load((hand / "preempt-conf.yaml").read_text())
    conf["tiers"][0]["plugins"].append({"name": "pdb"})
    (tmp_path / "conf.yaml").write_text(yaml.safe_dump(conf))
    env = TestEnvironment()
    main(["volcano", "--nodes", str(cluster), "--scheduler-conf", str(tmp_path / "conf.yaml"), "-o", "json"], env)
    doc = json.loads(env.out)
    pods = {p["name"]: p for p in doc["pods"]}
    assert bool(pods["c1/preemptee1"].get("evicted")) is evicted
    spared = [f["evictions"].get("spared") for f in doc.get("fixes") or () if f["podGroup"] == "c1/pg2"]
    assert spared == ([None] if evicted else [[{"pod": "c1/preemptee1", "plugin": "pdb", "reason":
                                            "its eviction would break PodDisruptionBudget c1/test-pdb"}]])


def test_an_empty_intersection_leaves_the_question_to_the_next_tier() -> None:
    """Session.Preemptable: two plugins of a tier with disjoint victims intersect to Go's nil, so the next
    tier decides (pdb keeps test-pod1 beside a plugin that offers only test-pod1)."""
    conf = parse("actions: preempt\ntiers:\n- plugins:\n  - name: one\n  - name: pdb\n- plugins:\n  - name: two\n",
                 "test")
    ssn = Session(conf, {}, {}, [], {}, Resource(), None)
    ssn.budgets = budgets_of([budget(1), *TWO])
    Pdb({}).on_session_open(ssn)
    tasks = [new_task(p) for p in reversed(TWO)]          # test-pod2 first: it spends the budget's one
    ssn.add("preemptable", "one", lambda p, c: [t for t in c if t.name == "test-pod1"])
    ssn.add("preemptable", "two", lambda p, c: c)
    assert [t.name for t in ssn.preemptable(new_task(make_pod("p", None)), tasks)] == ["test-pod2", "test-pod1"]

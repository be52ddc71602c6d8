"""The shuffle action on Volcano v1.15.1's own unit test (actions/shuffle/shuffle_test.go, "select pods
with low priority and evict them"): a fake plugin, its victim switch on, names the running tasks of
priority 10; shuffle evicts exactly those, each with the reason "shuffle"."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.volcano import plugins
from kexplain.volcano.actions.shuffle import _fns
from tests.support.cli_helpers import TestEnvironment

LOW, HIGH = 10, 100


class Fake:
    """The test's mock plugin: a victim function choosing the low-priority tasks (AddVictimTasksFns)."""

    name = "fake"

    def on_session_open(self, ssn: Any) -> None:
        ssn.add("victimTasks", self.name, [lambda tasks: [t for t in tasks if t.priority == LOW]])

    def on_session_close(self, ssn: Any) -> None:
        pass


def node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}


def pod(name: str, node_name: str, group: str, priority: int) -> dict[str, Any]:
    """BuildPodWithPriority: running on its node, 1 cpu and 2G, its priority from a class (admission)."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "test", "creationTimestamp": f"2026-01-01T00:00:0{len(name)}Z",
                         "annotations": {"scheduling.k8s.io/group-name": group}},
            "spec": {"schedulerName": "volcano", "nodeName": node_name, "priorityClassName": f"p{priority}",
                     "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1", "memory": "2G"}}}]},
            "status": {"phase": "Running"}}


def group(name: str) -> dict[str, Any]:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "test", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"queue": "default", "minMember": 0}, "status": {"phase": "Running"}}


def run(tmp_path: Path, tiers: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    known, build = plugins.known, plugins.build
    monkeypatch.setattr(plugins, "known", lambda n: n == "fake" or known(n))
    monkeypatch.setattr(plugins, "build", lambda n, args: Fake() if n == "fake" else build(n, args))
    classes = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": f"p{v}"}, "value": v}
               for v in (LOW, HIGH)]
    objects = classes + [node("node1"), node("node2"), group("pg1"), group("pg2"), group("pg3"),
               pod("pod1-1", "node1", "pg1", LOW), pod("pod1-2", "node1", "pg1", HIGH),
               pod("pod1-3", "node1", "pg1", HIGH), pod("pod2-1", "node1", "pg2", LOW),
               pod("pod2-2", "node2", "pg2", HIGH), pod("pod3-1", "node2", "pg3", LOW),
               pod("pod3-2", "node2", "pg3", HIGH)]
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(objects))
    (tmp_path / "conf.yaml").write_text(yaml.safe_dump({"actions": "shuffle", "tiers": tiers}))
    env = TestEnvironment()
    main(["volcano", "--nodes", str(tmp_path / "cluster.yaml"), "--scheduler-conf", str(tmp_path / "conf.yaml"),
          "-o", "json"], env)
    assert env.out, env.err
    return json.loads(env.out)


def test_shuffle_evicts_what_the_victim_functions_choose(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = run(tmp_path, [{"plugins": [{"name": "fake", "enabledVictim": True}]}], monkeypatch)
    assert [p["name"] for p in doc["pods"] if p.get("evicted")] == ["test/pod1-1", "test/pod2-1", "test/pod3-1"]
    events = {(e["object"], e["reason"], e["message"]) for e in doc["events"]}
    assert {("Pod test/pod1-1", "Evict", "Pod is evicted, because of shuffle"),
            ("PodGroup test/pg3", "Evict", "shuffle")} <= events
    assert "notes" not in doc


def test_shuffle_asks_no_plugin_whose_victim_switch_is_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = run(tmp_path, [{"plugins": [{"name": "fake", "enabledVictim": False}]}], monkeypatch)
    assert not [p for p in doc["pods"] if p.get("evicted")]


def test_victim_fns_are_a_list_or_one() -> None:
    """AddVictimTasksFns registers a list; a plugin registering one function is read alike."""
    def one(tasks: list[Any]) -> list[Any]:
        return tasks
    assert _fns(one) == [one] and _fns([one, one]) == [one, one]

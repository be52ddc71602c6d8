"""A pod bound to a node under pressure: the kubelet's eviction manager admit handler runs first
(`eviction.kubelet.admit`, the one `kexplain evict pressure --admit` runs), from the node's
conditions alone, or with what a stats Summary shows (`--stats`, an evicted pod replayed); the
same in text, JSON and the page, exit 1 as any pod its kubelet rejects (issue 77, item 1)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

CASE = TESTS / "eviction" / "cases" / "pressure-0002"     # node-a: shop/agent-434 evicted for memory
MESSAGE = "The node had condition: [{}]. "


def node(*pressure: str) -> dict:
    conditions = [{"type": "Ready", "status": "True"}]
    conditions += [{"type": c, "status": "True" if c in pressure else "False"}
                   for c in ("MemoryPressure", "DiskPressure", "PIDPressure")]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "n1"}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}, "conditions": conditions}}


def pod(requests: dict | None = None, **spec) -> dict:
    container: dict = {"name": "a", "image": "x"}
    if requests:
        container["resources"] = {"requests": requests}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"nodeName": "n1", "containers": [container], **spec}}


def run(tmp_path: Path, the_node: dict, the_pod: dict, *extra: str) -> tuple[int, str]:
    (tmp_path / "cluster.yaml").write_text(json.dumps(the_node))
    (tmp_path / "pod.yaml").write_text(json.dumps(the_pod))
    env = TestEnvironment()
    code = main([str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), *extra], env)
    return code, env.out


def as_json(tmp_path: Path, the_node: dict, the_pod: dict) -> tuple[int, dict]:
    code, out = run(tmp_path, the_node, the_pod, "-o", "json")
    return code, json.loads(out)


def test_a_best_effort_pod_on_a_node_under_memory_pressure_is_rejected(tmp_path):
    code, trace = as_json(tmp_path, node("MemoryPressure"), pod())
    assert code == 1 and trace["result"]["status"] == "Failed"
    kubelet = trace["kubelet"]
    assert kubelet["admitted"] is False
    assert kubelet["event"] == {"type": "Warning", "reason": "Evicted", "from": "kubelet",
                                "message": MESSAGE.format("MemoryPressure")}
    assert kubelet["status"]["message"] == "Pod was rejected: " + MESSAGE.format("MemoryPressure")
    assert kubelet["pressure"] == {"conditions": ["MemoryPressure"], "from": "node status", "admitted": False,
                                   "why": "refused under the node's conditions", "qosClass": "BestEffort"}


@pytest.mark.parametrize(("pressure", "the_pod", "admitted"), [
    (("MemoryPressure",), pod({"cpu": "100m"}), True),                      # not BestEffort
    (("MemoryPressure",), pod(tolerations=[{"key": "node.kubernetes.io/memory-pressure",
                                            "operator": "Exists", "effect": "NoSchedule"}]), True),
    (("DiskPressure",), pod({"cpu": "100m"}), False),                       # any other condition: not critical
    (("PIDPressure",), pod(tolerations=[{"operator": "Exists"}]), False),
    (("MemoryPressure", "DiskPressure"), pod({"cpu": "100m"}), False),
    (("DiskPressure",), pod(priorityClassName="system-node-critical"), True),  # critical
    ((), pod(), True),
])
def test_the_eviction_managers_rules(tmp_path, pressure, the_pod, admitted):
    code, trace = as_json(tmp_path, node(*pressure), the_pod)
    assert trace["kubelet"]["admitted"] is admitted and code == (0 if admitted else 1)
    if pressure:
        assert trace["kubelet"]["pressure"]["conditions"] == list(pressure)
    else:
        assert "pressure" not in trace["kubelet"]
    if not admitted:
        assert trace["kubelet"]["event"]["message"] == MESSAGE.format(" ".join(pressure))


def test_the_text_and_the_page_say_the_rejection(tmp_path):
    code, out = run(tmp_path, node("DiskPressure"), pod({"cpu": "100m"}), "--html", str(tmp_path / "page.html"))
    assert code == 1
    assert "Pod default/p (spec.nodeName n1): Failed" in out and "admits it" not in out.split("The scheduler")[0]
    assert "Node n1 reports DiskPressure (node status): the kubelet's eviction manager refuses it" in " ".join(
        out.split())
    page = (tmp_path / "page.html").read_text()
    assert "\u2717 Failed" in page and "\u2713 Scheduled" not in page and "its kubelet admits it" not in page
    assert "The kubelet of n1 rejects it" in page and "reports DiskPressure" in page


def test_the_same_answer_as_evict_pressure_admit(tmp_path):
    """The pod's own answer and `kexplain evict pressure --admit` give one refusal for one pod."""
    arriving = pod()
    arriving["spec"]["nodeName"] = "node-a"
    (tmp_path / "admit.yaml").write_text(json.dumps(arriving))
    env = TestEnvironment()
    main(["evict", "pressure", "node-a", "--nodes", str(CASE / "cluster.yaml"), "--stats", str(CASE / "stats.json"),
          "--kubelet-config", str(CASE / "kubelet-config.yaml"), "--admit", str(tmp_path / "admit.yaml"),
          "--now", "2026-01-01T00:00:00Z", "-o", "json"], env)
    (answer,) = json.loads(env.out)["admission"]
    env = TestEnvironment()
    code = main([str(tmp_path / "admit.yaml"), "--stored", "--nodes", str(CASE / "cluster.yaml"),
                 "--stats", str(CASE / "stats.json"), "--kubelet-config", str(CASE / "kubelet-config.yaml"),
                 "-o", "json"], env)
    trace = json.loads(env.out)
    assert answer["admit"] is False and code == 1
    assert (trace["kubelet"]["event"]["reason"], trace["kubelet"]["event"]["message"]) == \
        (answer["reason"], answer["message"])


@pytest.fixture
def evicted_best_effort(tmp_path):
    """shop/agent-434 as the kubelet left it, its requests taken away (BestEffort)."""
    the_pod = next(o for o in yaml.safe_load_all((CASE / "cluster.yaml").read_text())
                   if o and o["metadata"]["name"] == "agent-434")
    gone = json.loads((CASE / "expected.json").read_text())["evicted"][0]
    the_pod["status"] = {"phase": "Failed", "reason": "Evicted", "message": gone["message"],
                         "conditions": gone["conditions"]}
    for c in the_pod["spec"]["containers"]:
        c.pop("resources", None)
    path = tmp_path / "evicted.yaml"
    path.write_text(yaml.safe_dump(the_pod))
    return path


def test_an_evicted_pod_replayed_with_stats_is_rejected_under_the_pressure_it_shows(evicted_best_effort):
    argv = [str(evicted_best_effort), "--stored", "--nodes", str(CASE / "cluster.yaml"),
            "--stats", str(CASE / "stats.json"), "--kubelet-config", str(CASE / "kubelet-config.yaml")]
    env = TestEnvironment()
    code = main([*argv, "-o", "json"], env)
    trace = json.loads(env.out)
    assert trace["eviction"]["now"]["underPressure"] is True
    assert code == 1 and trace["result"]["status"] == "Failed"
    assert trace["kubelet"]["pressure"]["from"] == "stats Summary"
    assert trace["kubelet"]["event"]["message"] == MESSAGE.format("MemoryPressure")
    env = TestEnvironment()
    assert main(argv, env) == 1
    assert "its kubelet admits it" not in env.out and "The kubelet of node-a rejects it" in env.out

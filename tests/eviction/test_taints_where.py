"""Where the pods the taint eviction controller deletes go: their controllers' replacements
scheduled over the cluster without them, the node tainted as the node lifecycle controller taints it."""
from __future__ import annotations

import json

from kexplain.app.eviction.replacements import stand_in as replacement
from kexplain.app.eviction.taints import lifecycle_tainted
from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

CLUSTER = TESTS / "eviction" / "data" / "taints-owned.yaml"
UNREACHABLE = "node.kubernetes.io/unreachable"


def run(*args: str) -> tuple[int, str]:
    env = TestEnvironment()
    code = main(["evict", "taints", "worker-3", "--nodes", str(CLUSTER), "--now", "2026-01-01T00:00:00Z", *args], env)
    return code, env.out


def test_each_evicted_pod_is_replaced_elsewhere_or_said_why_not() -> None:
    code, out = run("-o", "json")
    rows = {r["pod"]: r for r in json.loads(out)["whereTheyGo"]}
    assert code == 1
    web = rows["shop/web-7d9f-abcde"]
    assert {k: v for k, v in web.items() if k != "oldPod"} == {
        "pod": "shop/web-7d9f-abcde", "replaced": True, "controller": "ReplicaSet web-7d9f", "status": "Scheduled",
        "node": "worker-4"}
    assert "(FilterActivePods)" in web["oldPod"]       # worker-3 unreachable: the old pod stays Terminating
    once = rows["shop/batch-0"]["onceGone"]           # its StatefulSet waits for the old pod
    assert once["status"] == "Unschedulable"          # 3 CPUs: only worker-3 had them
    assert once["message"].startswith("0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had "
                                                      "untolerated taint")
    assert rows["shop/debug"] == {"pod": "shop/debug", "replaced": False,
                                  "why": "no controller: nothing creates it again"}
    assert rows["monitoring/exporter-x2x9q"]["replaced"] is False
    assert list(rows) == sorted(rows)                                 # (one priority: by name)


def test_the_table_says_it() -> None:
    _, out = run()
    assert "- shop/web-7d9f-abcde: ReplicaSet web-7d9f's new pod goes to worker-4" in out
    flat = " ".join(out.split())
    assert "- shop/batch-0: not replaced while it stays Terminating: StatefulSet batch does not create" in flat
    assert "once it is gone, the new pod stays pending: 0/2 nodes are" in flat


def test_no_eviction_no_placement() -> None:
    code, out = run("--taint", f"{UNREACHABLE}:NoExecute-", "-o", "json")
    assert code == 0 and json.loads(out)["whereTheyGo"] == []


def test_the_lifecycle_taints_and_the_replacement() -> None:
    node = {"metadata": {"name": "n"}, "spec": {"taints": [
        {"key": UNREACHABLE, "effect": "NoExecute"}, {"key": "dedicated", "effect": "NoExecute"}]}}
    assert lifecycle_tainted(node)["spec"]["taints"][2:] == [{"key": UNREACHABLE, "effect": "NoSchedule"}]
    assert len(node["spec"]["taints"]) == 2                             # (a copy)
    already = {"spec": {"taints": [{"key": UNREACHABLE, "effect": "NoExecute"},
                                   {"key": UNREACHABLE, "effect": "NoSchedule"}]}}
    assert lifecycle_tainted(already) == already
    pod = {"metadata": {"name": "p", "namespace": "ns", "uid": "u", "resourceVersion": "9", "labels": {"a": "b"}},
           "spec": {"nodeName": "n", "containers": []}, "status": {"phase": "Running"}}
    assert replacement(pod) == {"apiVersion": "v1", "kind": "Pod",
                                "metadata": {"name": "p", "namespace": "ns", "labels": {"a": "b"}},
                                "spec": {"containers": []}}


def test_which_pods_are_not_made_again() -> None:
    from kexplain.app.eviction.replacements import not_replaced

    def owned(kind: str, phase: str = "Running") -> dict:
        return {"metadata": {"ownerReferences": [{"kind": kind, "name": "x", "controller": True}]},
                "status": {"phase": phase}}
    assert not_replaced(owned("ReplicaSet")) is None and not_replaced(owned("Job")) is None
    assert not_replaced(owned("ReplicaSet", "Succeeded")) == "finished (Succeeded): nothing runs it again"
    assert not_replaced(owned("DaemonSet")) == "DaemonSet x's pod for this node: made again only here"
    assert not_replaced(owned("Rollout")) == "its controller Rollout x is not one kexplain follows"
    assert not_replaced({"metadata": {}}) == "no controller: nothing creates it again"


def test_the_replacements_are_placed_one_after_another(tmp_path) -> None:
    """Room on worker-4 for one of the two: the second replacement sees the first placed (the
    scheduler places them in turn, as `app.eviction.replacements` does for the drain too)."""
    text = CLUSTER.read_text().split("\n---\n")[:3]
    text[2] = text[2].replace('cpu: "1"', 'cpu: "1500m"')
    second = text[2].replace("web-7d9f-abcde", "web-7d9f-fghij")
    path = tmp_path / "two.yaml"
    path.write_text("\n---\n".join([*text, second]))
    env = TestEnvironment()
    main(["evict", "taints", "worker-3", "--nodes", str(path), "--now", "2026-01-01T00:00:00Z", "-o", "json"], env)
    rows = json.loads(env.out)["whereTheyGo"]
    assert [(r["pod"], r.get("node"), r["status"]) for r in rows] == [
        ("shop/web-7d9f-abcde", "worker-4", "Scheduled"), ("shop/web-7d9f-fghij", None, "Unschedulable")]


def test_a_pending_replacement_gets_what_the_cluster_autoscaler_would_add(tmp_path) -> None:
    """The node groups found in the cluster (a Cluster API MachineSet scaling from zero): CA's answer
    for the replacement the cluster has no room for (`app.eviction.autoscaled`)."""
    from tests.eviction.test_drain_autoscaled import MACHINE_SET

    path = tmp_path / "capi.yaml"
    path.write_text(CLUSTER.read_text() + "\n---\n" + json.dumps(MACHINE_SET))
    env = TestEnvironment()
    main(["evict", "taints", "worker-3", "--nodes", str(path), "--now", "2026-01-01T00:00:00Z", "-o", "json"], env)
    doc = json.loads(env.out)
    batch = next(r for r in doc["whereTheyGo"] if r["pod"] == "shop/batch-0")
    once = batch["onceGone"]        # (worker-3 unreachable: its StatefulSet waits for the old pod to go)
    assert once["status"] == "Unschedulable" and once["autoscalers"][0]["outcome"] == "TriggeredScaleUp"
    assert list(doc["autoscalers"]["replacements"]) == ["shop/batch-0"]
    text = TestEnvironment()
    main(["evict", "taints", "worker-3", "--nodes", str(path), "--now", "2026-01-01T00:00:00Z"], text)
    assert "the Cluster Autoscaler: TriggeredScaleUp (MachineSet/capi/workers 0->1" in text.out

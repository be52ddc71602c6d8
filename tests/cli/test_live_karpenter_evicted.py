"""A pod Karpenter moved (`kexplain pod NAME` live): its DisruptionTarget condition says the
Eviction API removed it; Karpenter's terminator's event on the pod (`Evicted` "Evicted pod:
REASON", sigs.k8s.io/karpenter v1.13.0 terminator/events) says Karpenter asked, the reason, the
methods that act for it; the node's `DisruptionTerminating` event, its NodeClaim's
DisruptionReason condition and its `karpenter.sh/disrupted` taint say the node's decision. One
mechanism with the kubelet's and the taint manager's removals (`eviction.evicted.asked_by`)."""
from __future__ import annotations

import copy
import json

import pytest

from kexplain.eviction.evicted import evicted
from tests.support.live_server import POD_PATH, isolated, recorded_api, run_cli  # noqa: F401

BOUND = "web-5f6d8c7b9-2xkqp"       # the recorded cluster's web pod on node-a1
CONDITION = {"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI",
             "message": "Eviction API: evicting", "lastTransitionTime": "2026-11-27T04:00:00Z"}


def _event(name: str, kind: str, obj: str, reason: str, message: str, namespace: str,
           component: str = "karpenter") -> dict:
    return {"metadata": {"name": name, "namespace": namespace, "resourceVersion": "1"},
            "involvedObject": {"kind": kind, "name": obj, **({"namespace": namespace} if kind == "Pod" else {})},
            "reason": reason, "message": message, "type": "Normal", "count": 1,
            "lastTimestamp": "2026-11-27T04:00:01Z", "source": {"component": component}}


EVENTS = [
    _event("moved.1", "Pod", "web-moved", "Evicted", "Evicted pod: Underutilized", "shop"),
    _event("node-a1.1", "Node", "node-a1", "DisruptionTerminating", "Disrupting Node: Underutilized", "default"),
    _event("drained.1", "Pod", "web-drained", "Evicted", "Evicted pod: Underutilized", "shop",
           component="kubectl"),        # not Karpenter's recorder: no one named
]
NODE_CLAIM = {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": "general-x1"},
              "status": {"nodeName": "node-a1", "conditions": [
                  {"type": "DisruptionReason", "status": "True", "reason": "Underutilized", "message": ""}]}}


@pytest.fixture
def api(tmp_path):
    """The recorded cluster with two evicted copies of the web pod on node-a1, the events."""
    with recorded_api(tmp_path) as server:
        items = server.collections[POD_PATH]["items"]
        bound = next(i for i in items if i["metadata"]["name"] == BOUND)
        for name in ("web-moved", "web-drained"):
            pod = copy.deepcopy(bound)
            pod["metadata"]["name"] = name
            pod["status"] = {"phase": "Running", "conditions": [copy.deepcopy(CONDITION)]}
            items.append(pod)
        server.collections["/api/v1/events"]["items"].extend(copy.deepcopy(EVENTS))
        yield server


def live(capsys, api, name: str, *more: str) -> tuple[int, str, str]:
    return run_cli(capsys, "pod", name, "-n", "shop", "--kubeconfig", api.kubeconfig, *more)


def test_a_pod_karpenter_moved_says_karpenter_the_reason_the_methods_and_the_node(capsys, api):
    code, out, _ = live(capsys, api, "web-moved", "-o", "json")
    doc = json.loads(out)["eviction"]
    assert (doc["by"], doc["cause"]) == ("Eviction API", "EvictionByEvictionAPI")
    assert doc["askedBy"] == {
        "by": "Karpenter",
        "event": {"type": "Normal", "reason": "Evicted", "message": "Evicted pod: Underutilized", "count": 1,
                  "lastSeen": "2026-11-27T04:00:01Z"},
        "nodeDecision": {"type": "Normal", "reason": "DisruptionTerminating",
                         "message": "Disrupting Node: Underutilized", "count": 1, "lastSeen": "2026-11-27T04:00:01Z"},
        "disruptionReason": "Underutilized",
        "methods": ["MultiNodeConsolidation", "SingleNodeConsolidation"]}
    code, out, _ = live(capsys, api, "web-moved")
    text = " ".join(out[:out.index("Pod shop/web-moved")].split())
    assert "Asked by Karpenter: Evicted pod: Underutilized (event Evicted, ×1)." in text
    assert ("Its disruption reason: Underutilized, which MultiNodeConsolidation or SingleNodeConsolidation acts "
            "for.") in text
    assert "Its node's decision: Disrupting Node: Underutilized (event DisruptionTerminating, ×1)." in text


def test_an_eviction_no_karpenter_event_names_is_said_as_before(capsys, api):
    code, out, _ = live(capsys, api, "web-drained", "-o", "json")
    doc = json.loads(out)["eviction"]
    assert doc["by"] == "Eviction API" and "askedBy" not in doc


def test_the_nodeclaims_condition_and_the_taint_say_the_nodes_decision():
    """With the NodeClaim and the Node given: the DisruptionReason condition and the
    karpenter.sh/disrupted taint; the reason from the condition when the event gives none."""
    pod = {"spec": {"nodeName": "node-a1"}, "status": {"conditions": [CONDITION]}}
    node = {"metadata": {"name": "node-a1"},
            "spec": {"taints": [{"key": "karpenter.sh/disrupted", "effect": "NoSchedule"}]}}
    disrupted = _event("p.1", "Pod", "p", "Disrupted", "Deleting the pod to accommodate the terminationTime ...",
                       "shop")
    doc = evicted(pod, events=[disrupted], node_claim=NODE_CLAIM, node_obj=node)
    assert doc["askedBy"]["nodeClaim"] == {"name": "general-x1", "condition": {
        "type": "DisruptionReason", "status": "True", "reason": "Underutilized"}}
    assert doc["askedBy"]["taint"] == "karpenter.sh/disrupted:NoSchedule"
    assert doc["askedBy"]["disruptionReason"] == "Underutilized"
    assert doc["askedBy"]["event"]["reason"] == "Disrupted"


def test_a_snapshot_replays_the_same_removal_from_files(capsys, tmp_path):
    """`kexplain snapshot NAME` on a cluster with Karpenter keeps its events; `kexplain POD.yaml
    --nodes SNAPSHOT --stored` says the same removal as live, from the events kept."""
    with recorded_api(tmp_path, collections=("karpenter",)) as api:
        items = api.collections[POD_PATH]["items"]
        pod = copy.deepcopy(next(i for i in items if i["metadata"]["name"] == BOUND))
        pod["metadata"]["name"], pod["metadata"]["uid"] = "web-moved", "uid-web-moved"
        pod["status"] = {"phase": "Running", "conditions": [copy.deepcopy(CONDITION)]}
        items.append(pod)
        api.collections["/api/v1/events"]["items"].extend(copy.deepcopy(EVENTS))
        code, out, _ = live(capsys, api, "web-moved", "-o", "json")
        from_live = json.loads(out)["eviction"]
        snap = tmp_path / "snap.json"
        code, _, err = run_cli(capsys, "snapshot", "web-moved", "-n", "shop", "-o", str(snap),
                               "--kubeconfig", api.kubeconfig)
        assert code == 0, err
    kept = [o["reason"] for o in json.loads(snap.read_text())["items"] if o["kind"] == "Event"]
    assert kept == ["Evicted", "DisruptionTerminating"]         # Karpenter's, not kubectl's
    code, out, err = run_cli(capsys, str(tmp_path / "snap.pod.json"), "--nodes", str(snap), "--stored",
                             "-o", "json")
    replayed = json.loads(out)["eviction"]
    # the snapshot's pod file is written unbound: its node's side needs the node it ran on
    assert replayed["askedBy"] == {k: v for k, v in from_live["askedBy"].items() if k != "nodeDecision"}
    assert replayed["askedBy"]["disruptionReason"] == "Underutilized"
    bound = tmp_path / "bound.json"          # the pod as the API server stores it, bound to node-a1
    bound.write_text(json.dumps({"apiVersion": "v1", "kind": "Pod", **pod}))
    code, out, err = run_cli(capsys, str(bound), "--nodes", str(snap), "--stored", "-o", "json")
    assert json.loads(out)["eviction"]["askedBy"] == from_live["askedBy"]

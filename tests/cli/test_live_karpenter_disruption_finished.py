"""`kexplain karpenter --disruption` on a live cluster with finished pods (issue 92, item 13):
Karpenter's informer holds every pod, and `GetCandidates` counts a node's Succeeded and Failed
pods in its disruption cost (`ReschedulingCost` over all of `StateNode.Pods`), which orders the
consolidation candidates. The live pass lists every pod (no field selector), so live and files
of the same objects give the same document; `kexplain pod` keeps the scheduler's unfinished pods."""
from __future__ import annotations

import json

import pytest
import yaml

from kexplain.load.live import PODS, POD_FIELD_SELECTOR
from tests.cli.test_live_karpenter_disruption import FILES, NOW, api, fixture_objects, serve  # noqa: F401
from tests.support.live_server import run_cli


def finished(name: str, node: str, phase: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"job-name": "report"}},
            "spec": {"nodeName": node, "restartPolicy": "Never",
                     "containers": [{"name": "job", "image": "job", "resources": {"requests": {"cpu": "500m"}}}]},
            "status": {"phase": phase, "startTime": "2026-01-01T10:00:00Z"}}


FINISHED = [finished("report-a", "ip-10-0-3-17.ec2.internal", "Succeeded"),
            finished("report-b", "ip-10-0-1-17.ec2.internal", "Failed")]


def _doc(capsys, *args: str) -> tuple[int, dict]:
    code, out, err = run_cli(capsys, "karpenter", "--disruption", *NOW, "-o", "json", *args)
    assert code == 0, err
    return code, json.loads(out)


def test_live_counts_finished_pods_as_karpenter_and_the_files_do(capsys, api, tmp_path):
    objects = fixture_objects() + FINISHED
    serve(api, objects)
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all(objects))
    code, live = _doc(capsys, "--kubeconfig", api.kubeconfig)
    live.pop("live")
    assert (code, live) == _doc(capsys, "--nodes", str(cluster), "--nodes", FILES[1])
    nodes = {n["node"]: n for n in live["nodes"]}
    assert nodes["ip-10-0-3-17.ec2.internal"]["pods"] == 1            # the Succeeded pod, counted
    assert nodes["ip-10-0-3-17.ec2.internal"]["disruptionCost"] > 0
    assert live["decision"]["method"] == "Emptiness"     # not a pod to move: the node is still empty
    listed = [s.query.get("fieldSelector") for s in api.requests if s.path == PODS.path]
    assert listed == [None]                                   # every pod, as Karpenter's informer


def test_kexplain_pod_still_lists_the_schedulers_pods(capsys, api):
    serve(api, fixture_objects() + FINISHED)
    run_cli(capsys, "pod", "web-0", "-n", "default", "--kubeconfig", api.kubeconfig, "-o", "json")
    listed = [s.query.get("fieldSelector") for s in api.requests if s.path == PODS.path]
    assert listed == [[POD_FIELD_SELECTOR]]


def test_a_snapshot_of_a_karpenter_cluster_keeps_finished_pods_and_replays_as_live(capsys, api, tmp_path):
    serve(api, fixture_objects() + FINISHED)
    snap = tmp_path / "snap.json"
    code, _, err = run_cli(capsys, "snapshot", "-o", str(snap), "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    kept = {o["metadata"]["name"] for o in json.loads(snap.read_text())["items"] if o["kind"] == "Pod"}
    assert {"report-a", "report-b"} <= kept
    replay = _doc(capsys, "--nodes", str(snap))
    code, live = _doc(capsys, "--kubeconfig", api.kubeconfig)
    live.pop("live")
    assert replay == (code, live)


def test_a_snapshot_without_karpenter_keeps_the_schedulers_pods(capsys, api, tmp_path):
    serve(api, [o for o in fixture_objects() + FINISHED if not o["apiVersion"].startswith("karpenter")])
    for path in [p for p in api.collections if p.startswith("/apis/karpenter")]:
        del api.collections[path]
    code, _, err = run_cli(capsys, "snapshot", "-o", str(tmp_path / "snap.json"), "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    listed = [s.query.get("fieldSelector") for s in api.requests if s.path == PODS.path]
    assert listed == [[POD_FIELD_SELECTOR]]


def test_finished_pods_change_which_node_consolidation_deletes_live_as_from_files(capsys, api, tmp_path):
    """"can delete nodes" of Karpenter's consolidation_test.go: node 1 holds two pods, node 2 one, so
    node 2 costs least and SingleNodeConsolidation deletes it. Two finished Job pods on node 2 raise
    its cost above node 1's: Karpenter then tries, and deletes, node 1 first. Live as from files."""
    from tests.karpenter import test_disruption_consolidation_delete_multi as multi
    if not multi.SHARED_AWS.is_dir():
        pytest.skip(f"{multi.SHARED_AWS} is not present")
    done = [{**p, "metadata": {**p["metadata"], "ownerReferences": []}, "spec": {**p["spec"], "restartPolicy": "Never"},
             "status": {"phase": phase, "startTime": "2026-01-01T10:00:00Z"}}
            for p, phase in ((multi.pod("report-a", 2), "Succeeded"), (multi.pod("report-b", 2), "Failed"))]
    running = [*multi.two_nodes(), multi.pod("web-2", 2)]
    assert multi.acted(multi.document(tmp_path, running)) == ("SingleNodeConsolidation", "delete", [multi.name_of(2)])
    files = multi.document(tmp_path, running + done)
    assert multi.acted(files) == ("SingleNodeConsolidation", "delete", [multi.name_of(1)])
    serve(api, running + done + [multi.node_pool(), multi.NODE_CLASS])
    code, live = _doc(capsys, "--kubeconfig", api.kubeconfig, "--aws-data", str(multi.SHARED_AWS))
    live.pop("live")
    assert live == files

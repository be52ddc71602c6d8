"""Live mode end to end: the real `kubernetes` client against a local API server serving
recorded responses (tests/live_server.py, tests/data/live/), never a mock of the client.

Every test checks that only GET requests were made and that the kubeconfig's token never
appears in what kexplain printed or wrote. The central property: `kexplain pod`,
`kubectl-kexplain`, `--pending` and `snapshot` explain exactly what the offline run on the
saved snapshot explains.
"""
from __future__ import annotations

import io
import json
import shutil
import socket
import ssl
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kexplain.cli import app as cli
from kexplain.cli.app import kubectl_args
from kexplain.cli.explain import Output
from kexplain.cli.live import Connect, PodArgs, run_pod
from kexplain.cli.env import Environment
from kexplain.explain.compare import compare
from kexplain.features import DEFAULT_MINOR, RELEASES
from kexplain.load import live as live_mod
from kexplain.autoscaler.cloudprovider.live import ACCESS as AUTOSCALER_ACCESS
from kexplain.autoscaler.cloudprovider.live import CLUSTER_API as AUTOSCALER_CLUSTER_API
from kexplain.autoscaler.cloudprovider.live import STATUS_PATH as AUTOSCALER_STATUS
from kexplain.load.live import APIS_PATH, DAEMONSETS, EVENTS, KARPENTER, KUEUE, POLICIES, RESOURCES, VOLCANO
from tests.support.live_server import (DATA, TOKEN, RecordedApiServer, isolated, recorded_api,  # noqa: F401
                                       run_cli, write_kubeconfig)  # (isolated: an autouse fixture)
from tests.support.paths import ROOT

CLUSTER = DATA / "cluster"
CHECKOUT = "checkout-6b8d9f7c4-lm3np"         # unschedulable; the scheduler's message agrees
WEB_PENDING = "web-5f6d8c7b9-x9n2k"           # the scheduler's message is stale (5 nodes, now 6)
VIP = "vip-9f7c6d5b8-t4wqz"                   # nominated by preemption
WEB_BOUND = "web-5f6d8c7b9-2xkqp"             # running on node-a1, the victim VIP's preemption picked
DB_BOUND = "db-0"                             # running on node-c1 with a zonal volume
RESOURCE_PATHS = {r.path for r in (*RESOURCES, *POLICIES, DAEMONSETS)} | {AUTOSCALER_STATUS} | {  # CA's node groups
    f"/apis/{r.group}/{v}/{r.plural}" for r in AUTOSCALER_CLUSTER_API for v in (r.version, *r.fallbacks)} | {
    APIS_PATH}      # the API group list: whether Karpenter's kinds are served


# --- fixtures and helpers ---------------------------------------------------------------------

@pytest.fixture
def api(tmp_path):
    with recorded_api(tmp_path) as server:
        yield server
        for seen in server.requests:
            known = seen.path in RESOURCE_PATHS or seen.path in ("/version", "/version/") or (
                seen.path.startswith("/api/v1/namespaces/") and "/pods/" in seen.path)
            assert known, f"unexpected request {seen.path}"


def live_json(capsys, api, *args: str) -> tuple[int, dict]:
    code, out, err = run_cli(capsys, *args, "--kubeconfig", api.kubeconfig, "-o", "json")
    return code, json.loads(out)


def offline_json(capsys, pod: str, cluster: str) -> tuple[int, dict]:
    code, out, _ = run_cli(capsys, pod, "--nodes", cluster, "--stored", "-o", "json")
    return code, json.loads(out)


def without_live(trace: dict) -> dict:
    return {k: v for k, v in trace.items() if k != "live"}


def snapshot(capsys, api, tmp_path: Path, *args: str, name: str = "cluster.json") -> tuple[Path, str]:
    out = tmp_path / name
    code, _, err = run_cli(capsys, "snapshot", *args, "-o", str(out), "--kubeconfig", api.kubeconfig)
    assert code == 0, err
    return out, err


def recorded(path: str) -> list[dict]:
    return json.loads((CLUSTER / path.lstrip("/")).with_suffix(".json").read_text())["items"]


# --- live equals offline ----------------------------------------------------------------------

@pytest.mark.parametrize("name, namespace, status", [
    (CHECKOUT, "shop", "Unschedulable"),
    (WEB_PENDING, "shop", "Unschedulable"),
    (VIP, "shop", "Unschedulable"),
    ("gated-report", "shop", "Gated"),
    ("upload-0", "default", "Scheduled"),
])
def test_pod_matches_the_offline_replay_of_its_snapshot(capsys, api, tmp_path, name, namespace, status):
    code, live = live_json(capsys, api, "pod", name, "-n", namespace, "--chunk-size", "4")
    assert live["result"]["status"] == status
    assert live["pod"] == {"namespace": namespace, "name": name}
    cluster, err = snapshot(capsys, api, tmp_path, name, "-n", namespace)
    pod_file = tmp_path / "cluster.pod.json"
    assert f"kexplain {pod_file} --nodes {cluster} --stored" in err
    off_code, offline = offline_json(capsys, str(pod_file), str(cluster))
    assert off_code == code
    assert offline == without_live(live)


def test_kubectl_plugin_entry_point_is_the_pod_command(capsys, api, monkeypatch, tmp_path):
    _, direct = live_json(capsys, api, "pod", CHECKOUT, "-n", "shop")
    monkeypatch.setattr(sys, "argv", ["kubectl-kexplain", CHECKOUT, "-n", "shop", "--kubeconfig",
                                      api.kubeconfig, "-o", "json"])
    code = cli.kubectl_main()
    out, err = capsys.readouterr()
    assert code == 1
    plugin = json.loads(out)
    assert plugin == direct
    monkeypatch.setattr(sys, "argv", ["kubectl-kexplain", "snapshot", CHECKOUT, "-o", str(tmp_path / "c.json"),
                                      "--kubeconfig", api.kubeconfig])
    code = cli.kubectl_main()
    capsys.readouterr()
    assert code == 0
    _, offline = offline_json(capsys, str(tmp_path / "c.pod.json"), str(tmp_path / "c.json"))
    assert offline == without_live(plugin)


def test_kubectl_plugin_options_first(capsys, api, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["kubectl-kexplain", "-n", "shop", "--kubeconfig", api.kubeconfig,
                                      "--pending"])
    code = cli.kubectl_main()
    out, _ = capsys.readouterr()
    assert code == 1
    assert out.splitlines()[0].split() == ["POD", "KEXPLAIN", "SCHEDULER", "WHY"]


@pytest.mark.parametrize("argv, expected", [
    (["web-0"], ["pod", "web-0"]),
    (["web-0", "-n", "shop"], ["pod", "web-0", "-n", "shop"]),
    (["-n", "shop", "web-0"], ["pod", "-n", "shop", "web-0"]),
    (["--context=prod", "web-0"], ["pod", "--context=prod", "web-0"]),
    (["-A"], ["pod", "-A"]),
    (["--pending", "-n", "shop"], ["pod", "--pending", "-n", "shop"]),
    (["snapshot", "-o", "c.json"], ["snapshot", "-o", "c.json"]),
    (["pod", "web-0"], ["pod", "web-0"]),
    (["version"], ["version"]),
    (["-"], ["-"]),
    (["--help"], ["--help"]),
    ([], []),
])
def test_kubectl_args(argv, expected):
    assert kubectl_args(argv) == expected


def test_kubectl_args_existing_file_is_a_manifest(tmp_path):
    pod = tmp_path / "pod.yaml"
    pod.write_text("kind: Pod\n")
    assert kubectl_args([str(pod), "--nodes", "c.yaml"]) == [str(pod), "--nodes", "c.yaml"]
    assert kubectl_args(["--nodes", "c.yaml", str(pod)]) == ["--nodes", "c.yaml", str(pod)]


def test_pending_lists_pods_of_the_namespace_one_line_each(capsys, api):
    code, out, _ = run_cli(capsys, "pod", "--pending", "-n", "shop", "--kubeconfig", api.kubeconfig)
    lines = out.splitlines()
    assert code == 1
    assert lines[0].split() == ["POD", "KEXPLAIN", "SCHEDULER", "WHY"]
    rows = {line.split()[0]: line.split()[1:3] for line in lines[1:]}
    assert rows == {
        f"shop/{CHECKOUT}": ["Unschedulable", "agrees"],
        "shop/gated-report": ["Gated", "agrees"],
        f"shop/{VIP}": ["Unschedulable", "agrees"],
        f"shop/{WEB_PENDING}": ["Unschedulable", "differs"],
    }
    vip = next(line for line in lines if VIP in line)
    assert "preemption would nominate node-a1; victims: shop/web-5f6d8c7b9-2xkqp" in vip


# What `kexplain pod --pending` lists for a pod of another scheduler: what `kexplain POD` says of it.
OTHER_SCHEDULER = ('profile not found for scheduler name "gpu-scheduler": the pod\'s spec.schedulerName is not a '
                   'profile of the scheduler configuration (profiles: "default-scheduler"); pass a '
                   'KubeSchedulerConfiguration with a profile for "gpu-scheduler" with --config')


def test_all_namespaces_skips_pods_of_another_scheduler(capsys, api):
    code, out, _ = run_cli(capsys, "pod", "-A", "--kubeconfig", api.kubeconfig, "--chunk-size", "3")
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert set(rows) == {f"shop/{CHECKOUT}", "shop/gated-report", f"shop/{VIP}", f"shop/{WEB_PENDING}",
                         "default/upload-0", "batch/train-0"}
    assert rows["batch/train-0"].split(None, 3)[1:] == ["skipped", "-", OTHER_SCHEDULER]
    assert rows["default/upload-0"].split(None, 3)[1:] == ["Scheduled", "differs",
                                                           "fits now: would be bound to node-c1"]
    # Running, Succeeded and bound pods are not listed; only pending ones with PodScheduled=False.
    assert not any("db-0" in r or "busybox" in r for r in rows)


def test_pending_json_items_match_offline_runs(capsys, api, tmp_path):
    code, doc = live_json(capsys, api, "pod", "-A")
    assert code == 1
    assert doc["kind"] == "SchedulingTraceList"
    assert doc["skipped"] == [{"pod": "batch/train-0", "reason": OTHER_SCHEDULER}]
    cluster, _ = snapshot(capsys, api, tmp_path)
    pods = {(p["metadata"]["namespace"], p["metadata"]["name"]): p
            for p in json.loads(cluster.read_text())["items"] if p["kind"] == "Pod"}
    assert len(doc["items"]) == 5
    for item in doc["items"]:
        key = (item["pod"]["namespace"], item["pod"]["name"])
        pod_file = tmp_path / f"{key[1]}.json"
        pod_file.write_text(json.dumps(pods[key]))
        _, offline = offline_json(capsys, str(pod_file), str(cluster))
        assert offline == without_live(item), key


def test_pending_details_prints_every_trace(capsys, api):
    code, out, _ = run_cli(capsys, "pod", "--pending", "-n", "shop", "--details", "--kubeconfig", api.kubeconfig)
    assert out.count("The scheduler said") == 4
    assert out.count("Rejected nodes") == 3        # the gated pod has none
    assert "kexplain differs from the scheduler" in out


def test_pending_in_a_namespace_without_pending_pods(capsys, api):
    code, out, _ = run_cli(capsys, "pod", "--pending", "-n", "kube-system", "--kubeconfig", api.kubeconfig)
    assert code == 0
    assert out == 'No pod in namespace "kube-system" is Pending with PodScheduled=False.\n'


@pytest.mark.parametrize("name, status, agrees", [
    (DB_BOUND, "Scheduled", True),           # its volume is in us-east-1c: node-c1 again
    (WEB_BOUND, "Unschedulable", False),     # VIP is nominated to its node: no room now
])
def test_bound_pod_is_explained_without_itself(capsys, api, tmp_path, name, status, agrees):
    code, live = live_json(capsys, api, "pod", name, "-n", "shop")
    assert live["live"]["hints"][0].startswith(f"pod shop/{name} is already bound to node ")
    assert live["live"]["agrees"] is agrees
    assert live["result"]["status"] == status
    if status == "Scheduled":
        assert live["result"]["suggestedHost"] == "node-c1"
    else:
        assert live["live"]["notes"] == [
            "the scheduler bound it to node-a1 when it ran; the cluster has changed since"]
    cluster, _ = snapshot(capsys, api, tmp_path, name, "-n", "shop")
    pod = json.loads((tmp_path / "cluster.pod.json").read_text())
    assert "nodeName" not in pod["spec"]
    names = [o["metadata"]["name"] for o in json.loads(cluster.read_text())["items"] if o["kind"] == "Pod"]
    assert name not in names and len(names) == 18
    _, offline = offline_json(capsys, str(tmp_path / "cluster.pod.json"), str(cluster))
    assert offline == without_live(live)


def test_default_namespace_comes_from_the_context(capsys, api):
    _, live = live_json(capsys, api, "pod", CHECKOUT)       # the kubeconfig's context says "shop"
    assert live["pod"]["namespace"] == "shop"
    assert any(r.path == f"/api/v1/namespaces/shop/pods/{CHECKOUT}" for r in api.requests)


# --- comparison with the scheduler's message ----------------------------------------------------

def test_table_output_says_the_scheduler_agrees(capsys, api):
    code, out, _ = run_cli(capsys, "pod", CHECKOUT, "--kubeconfig", api.kubeconfig)
    out = " ".join(out.split())
    assert code == 1
    assert "The scheduler said (PodScheduled=False, Unschedulable, since 2025-11-04T08:30:05Z)" in out
    assert "kexplain agrees with the scheduler." in out


def test_stale_message_is_explained(capsys, api):
    _, live = live_json(capsys, api, "pod", WEB_PENDING)
    comp = live["live"]
    assert comp["agrees"] is False
    assert comp["podScheduled"]["message"].startswith("0/5 nodes are available")
    assert comp["notes"][0].startswith("stale: the scheduler saw 5 nodes, the cluster has 6 now")
    assert any(n.startswith("a profile kexplain was not given") for n in comp["notes"])
    assert comp["hints"] == [f"node-a1 would take this pod but for shop/{VIP}, nominated there by preemption "
                             "with a priority at least this pod's: the scheduler counts it as running"]
    assert comp["serverVersion"] == "v1.35.4" and comp["context"] == "prod"


def _trace(status="Unschedulable", message="", nodes=6, host=None, minor=None):
    result = {"status": status, "selectedNodes": [host] if host else [], "message": message}
    if host:
        result["suggestedHost"] = host
    version = {"kubernetesVersion": {"minor": minor, "scheduler": RELEASES[minor]}} if minor else {}
    return {**version, "result": result, "search": {"numAllNodes": nodes}}


def _pod(cond=None, node=None, nominated=None):
    status = {"conditions": [{"type": "PodScheduled", **cond}]} if cond else {}
    if nominated:
        status["nominatedNodeName"] = nominated
    return {"spec": {"nodeName": node} if node else {}, "status": status}


MSG = "0/6 nodes are available: 6 Insufficient cpu."
LONG = "0/6 nodes are available: " + ", ".join(f"1 reason number {i}" for i in range(80)) + "."
# A cluster reporting v1.35.4 is followed as 1.35 in live mode: its traces name that minor.
COMPARE = [
    ("same message", _trace(message=MSG, minor="1.35"),
     _pod({"status": "False", "reason": "Unschedulable", "message": MSG}), "v1.35.4", True, True, []),
    ("event text cut at 1024 bytes", _trace(message=LONG.encode()[:1020].decode() + " ...", minor="1.35"),
     _pod({"status": "False", "reason": "Unschedulable", "message": LONG}), "v1.35.4", True, True, []),
    ("gated", _trace("Gated", minor="1.35"), _pod({"status": "False", "reason": "SchedulingGated"}), "v1.35.4",
     True, True, []),
    ("other version", _trace(message=MSG), _pod({"status": "False", "reason": "Unschedulable", "message": "x"}),
     "v1.33.2", True, False, ["stale: the cluster may have changed", "another scheduler version: the cluster runs "
                                                                        "Kubernetes v1.33.2"]),
    ("node count", _trace(message=MSG, minor="1.35"),
     _pod({"status": "False", "reason": "Unschedulable", "message": "0/4 nodes are available: 4 Insufficient cpu."}),
     "v1.35.4", False, False, ["stale: the scheduler saw 4 nodes, the cluster has 6 now",
                               "a profile kexplain was not given"]),
    ("unknown version, nominated", _trace(message=MSG),
     _pod({"status": "False", "reason": "Unschedulable", "message": "y"}, nominated="n2"), None, True, False,
     ["stale:", "the scheduler nominated node n2", "another scheduler version: the cluster's version is unknown; "
                                                    f"kexplain followed Kubernetes {DEFAULT_MINOR}"]),
    ("followed the cluster's minor", _trace(message=MSG, minor="1.33"),
     _pod({"status": "False", "reason": "Unschedulable", "message": "x"}), "v1.33.2", True, False,
     ["stale: the cluster may have changed"]),
    ("another patch release of the same minor", _trace(message=MSG, minor="1.36"),
     _pod({"status": "False", "reason": "Unschedulable", "message": "x"}), "v1.36.0-gke.1", True, False,
     ["stale: the cluster may have changed"]),
    ("followed another minor than the cluster's", _trace(message=MSG, minor="1.34"),
     _pod({"status": "False", "reason": "Unschedulable", "message": "x"}), "v1.36.1", True, False,
     ["stale: the cluster may have changed", "another scheduler version: the cluster runs Kubernetes v1.36.1, "
                                             "kexplain followed Kubernetes 1.34 (kube-scheduler v1.34.7)"]),
    ("fits now", _trace("Scheduled", host="n1", minor="1.35"),
     _pod({"status": "False", "reason": "Unschedulable", "message": MSG}), "v1.35.4", True, False, ["stale:"]),
    ("no condition", _trace(message=MSG, minor="1.35"), _pod(), "v1.35.4", True, None,
     ["the scheduler has not reported"]),
    ("bound elsewhere", _trace("Scheduled", host="n2", minor="1.35"), _pod({"status": "True"}, node="n1"), "v1.35.4",
     True, True, ["the scheduler bound it to n1; now kexplain would pick n2"]),
]


@pytest.mark.parametrize("what, trace, pod, version, config_given, agrees, notes", COMPARE,
                         ids=[c[0] for c in COMPARE])
def test_compare(what, trace, pod, version, config_given, agrees, notes):
    out = compare(trace, pod, config_given=config_given, server_version=version)
    assert out.agrees is agrees
    assert len(out.notes) == len(notes)
    for got, want in zip(out.notes, notes):
        assert got.startswith(want), (got, want)


# --- snapshots --------------------------------------------------------------------------------

def test_snapshot_is_a_json_list_of_stored_objects(capsys, api, tmp_path):
    cluster, err = snapshot(capsys, api, tmp_path)
    doc = json.loads(cluster.read_text())
    assert doc["kind"] == "List" and doc["apiVersion"] == "v1"
    items = doc["items"]
    for res in RESOURCES:
        expected = recorded(res.path)
        if res.kind == "Pod":           # the scheduler's field selector: no finished pods
            expected = [p for p in expected if p["status"]["phase"] not in ("Succeeded", "Failed")]
        got = [o for o in items if o["kind"] == res.kind]
        assert [o["metadata"]["name"] for o in got] == [o["metadata"]["name"] for o in expected]
        assert all(o["apiVersion"] == res.api_version for o in got)
    assert not any("managedFields" in o["metadata"] for o in items)
    assert items[0] == {"apiVersion": "kexplain/v1", "kind": "ServerVersion", "metadata": {},
                        "gitVersion": "v1.35.4"}       # the API server's /version, which a replay follows
    assert "report-28394700-x8s2d" not in cluster.read_text()
    node = next(o for o in items if o["kind"] == "Node")
    assert node["status"]["allocatable"]["cpu"] == "3920m"
    assert "wrote 59 objects (6 namespaces, 3 priorityclasses, 1 runtimeclasses, 6 nodes, " in err
    assert not (tmp_path / "cluster.pod.json").exists()


def test_snapshot_yaml_by_suffix_and_replay(capsys, api, tmp_path):
    cluster, _ = snapshot(capsys, api, tmp_path, CHECKOUT, name="cluster.yaml")
    doc = yaml.safe_load(cluster.read_text())
    assert doc["kind"] == "List"
    pod_file = tmp_path / "cluster.pod.yaml"
    assert yaml.safe_load(pod_file.read_text())["metadata"]["name"] == CHECKOUT
    _, live = live_json(capsys, api, "pod", CHECKOUT)
    _, offline = offline_json(capsys, str(pod_file), str(cluster))
    assert offline == without_live(live)


def test_snapshot_to_stdout(capsys, api):
    code, out, err = run_cli(capsys, "snapshot", "-o", "-", "--kubeconfig", api.kubeconfig)
    assert code == 0
    assert json.loads(out)["kind"] == "List"
    assert "to stdout" in err


def test_snapshot_with_a_pod_needs_a_file(capsys, api):
    code, out, err = run_cli(capsys, "snapshot", CHECKOUT, "-o", "-", "--kubeconfig", api.kubeconfig)
    assert code == 2 and out == ""
    assert "--pod-output" in err


# --- redaction ----------------------------------------------------------------------------------

SECRETS = ["hunter2", "sk-live", "kmsKeyId", "123456789012", "10.0.1.10", "ec2.internal", "node-a1", "checkout",
           "storefront", "shop", "gp3", "vol-0a1b2c3d4e5f60718", "nginx", "postgres", "system:serviceaccount",
           "kube-root-ca.crt", "high-priority", "gpu-scheduler"]


def test_redacted_snapshot_replays_the_same_verdict(capsys, api, tmp_path):
    key_file = tmp_path / "key.json"
    cluster, err = snapshot(capsys, api, tmp_path, VIP, "--redact", "--redact-map", str(key_file))
    text = cluster.read_text() + (tmp_path / "cluster.pod.json").read_text()
    leaked = [s for s in SECRETS if s in text and s != "gpu-scheduler"]
    assert leaked == []
    assert "gpu-scheduler" in text            # scheduler names stay: they choose the profile
    assert "us-east-1a" in text and "linux" in text and "m5.xlarge" in text   # kept, documented
    key = json.loads(key_file.read_text())
    assert key_file.stat().st_mode & 0o077 == 0
    back = {token: original for token, original in key.items()}

    _, live = live_json(capsys, api, "pod", VIP)
    _, red = offline_json(capsys, str(tmp_path / "cluster.pod.json"), str(cluster))
    assert red["result"]["status"] == live["result"]["status"] == "Unschedulable"
    assert red["result"]["message"] == live["result"]["message"]
    assert [back[n] for n in red["search"]["order"]] == live["search"]["order"]
    assert {back[n]: v for n, v in red["filter"].items()} == live["filter"]
    assert {back[n]: v for n, v in red["filterAll"].items()} == live["filterAll"]
    post, live_post = red["postFilter"], live["postFilter"]
    assert back[post["nominatedNodeName"]] == live_post["nominatedNodeName"] == "node-a1"
    assert sorted("/".join(back[p] for p in v.split("/")) for v in post["victims"]) == live_post["victims"]
    assert red["pod"] == {"namespace": key_inverse(back, "shop"), "name": key_inverse(back, VIP)}


def key_inverse(back: dict, original: str) -> str:
    return next(token for token, value in back.items() if value == original)


def test_redaction_is_consistent_and_deterministic(capsys, api, tmp_path):
    one, _ = snapshot(capsys, api, tmp_path, "--redact", name="one.json")
    two, _ = snapshot(capsys, api, tmp_path, "--redact", name="two.json")
    assert one.read_text() == two.read_text()
    items = json.loads(one.read_text())["items"]
    nodes = [o for o in items if o["kind"] == "Node"]
    assert [n["metadata"]["name"] for n in nodes] == [f"node-{i}" for i in range(1, 7)]
    for n in nodes:   # hostname label, CSINode, node names stay equal
        assert n["metadata"]["labels"]["kubernetes.io/hostname"] == n["metadata"]["name"]
        assert "addresses" not in n["status"] and "nodeInfo" not in n["status"]
    csinodes = [o["metadata"]["name"] for o in items if o["kind"] == "CSINode"]
    assert csinodes == [n["metadata"]["name"] for n in nodes]
    namespaces = [o for o in items if o["kind"] == "Namespace"]
    for ns in namespaces:
        assert ns["metadata"]["labels"]["kubernetes.io/metadata.name"] == ns["metadata"]["name"]
    names = {ns["metadata"]["name"] for ns in namespaces}
    assert {"default", "kube-system", "kube-public", "kube-node-lease"} <= names
    ds_pods = [o for o in items if o["kind"] == "Pod" and o["metadata"]["name"].startswith("pod-")
               and o["spec"].get("affinity")]
    for p in ds_pods:   # DaemonSet pods pin their node by matchFields metadata.name
        term = p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert term["nodeSelectorTerms"][0]["matchFields"][0]["values"] == [p["spec"]["nodeName"]]
    pods = [o for o in items if o["kind"] == "Pod"]
    assert not any("env" in c for p in pods for c in p["spec"]["containers"])
    assert all("message" not in c for p in pods for c in p["status"].get("conditions", []))
    rs = [o for o in items if o["kind"] == "ReplicaSet"]
    assert all("template" not in o["spec"] for o in rs)


def test_redacted_images_keep_image_locality(capsys, api, tmp_path):
    cluster, _ = snapshot(capsys, api, tmp_path, "--redact")
    items = json.loads(cluster.read_text())["items"]
    node_images = {n for o in items if o["kind"] == "Node" for img in o["status"]["images"] for n in img["names"]}
    web = next(o for o in items if o["kind"] == "Pod" and o["metadata"]["labels"].get("pod-template-hash")
               and o["spec"].get("nodeName") == "node-1" and o["spec"]["priority"] == 0)
    assert web["spec"]["containers"][0]["image"] in node_images    # shop/web:2.14.1 is on node-a1


def test_redact_map_needs_redact(capsys, api, tmp_path):
    code, _, err = run_cli(capsys, "snapshot", "-o", str(tmp_path / "c.json"), "--redact-map", "k.json",
                       "--kubeconfig", api.kubeconfig)
    assert code == 2 and "--redact-map needs --redact" in err


# --- paging -----------------------------------------------------------------------------------

def test_lists_are_paged_with_continue_tokens(capsys, api, tmp_path):
    snapshot(capsys, api, tmp_path, "--chunk-size", "2")
    pods = [r for r in api.requests if r.path == "/api/v1/pods"]
    live_pods = [p for p in recorded("/api/v1/pods") if p["status"]["phase"] != "Succeeded"]
    assert len(pods) == (len(live_pods) + 1) // 2
    assert all(r.query["limit"] == ["2"] for r in pods)
    assert all(r.query["fieldSelector"] == ["status.phase!=Succeeded,status.phase!=Failed"] for r in pods)
    assert "continue" not in pods[0].query and all("continue" in r.query for r in pods[1:])
    assert all(r.headers.get("authorization").lower() == f"bearer {TOKEN}".lower() for r in api.requests)


def test_expired_continue_token_lists_again(capsys, api, tmp_path):
    api.faults.expire["/api/v1/pods"] = 1
    cluster, _ = snapshot(capsys, api, tmp_path, "--chunk-size", "3")
    pods = [r for r in api.requests if r.path == "/api/v1/pods"]
    starts = [i for i, r in enumerate(pods) if "continue" not in r.query]
    assert len(starts) == 2            # the first list, then a new one after the 410
    names = [o["metadata"]["name"] for o in json.loads(cluster.read_text())["items"] if o["kind"] == "Pod"]
    assert len(names) == len(set(names)) == 19


def test_a_list_that_keeps_expiring_is_one_error(capsys, api, tmp_path):
    api.faults.expire["/api/v1/nodes"] = 100
    code, out, err = run_cli(capsys, "snapshot", "-o", str(tmp_path / "c.json"), "--chunk-size", "2",
                         "--kubeconfig", api.kubeconfig)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith("error: the list of nodes kept expiring (410 Gone)")


# --- errors: one line, exit code 2, no credentials ---------------------------------------------

def one_line_error(capsys, *args: str) -> str:
    code, out, err = run_cli(capsys, *args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith("error: ")
    return err.strip()


def test_unauthorized(capsys, api):
    api.faults.unauthorized = True
    err = one_line_error(capsys, "pod", CHECKOUT, "--kubeconfig", api.kubeconfig)
    assert err.startswith("error: unauthorized (401): the API server at ")
    assert api.url in err and 'context "prod"' in err


def test_wrong_token_is_refused_and_not_printed(capsys, api, tmp_path):
    other = write_kubeconfig(tmp_path / "other", api.url, token="wr0ng-t0ken-SECRET")
    code, out, err = run_cli(capsys, "pod", CHECKOUT, "--kubeconfig", str(other))
    assert code == 2 and "unauthorized (401)" in err
    assert "wr0ng" not in out + err


def test_forbidden_list_names_the_missing_permission(capsys, api, tmp_path):
    """`snapshot` needs every read: a refused list ends it, naming the permission."""
    api.faults.forbidden["/apis/storage.k8s.io/v1/csinodes"] = "forbidden-list-csinodes.json"
    err = one_line_error(capsys, "snapshot", "-o", str(tmp_path / "c.json"), "--kubeconfig", api.kubeconfig)
    assert ('forbidden (403): kexplain needs "list" on resource "csinodes" in API group "storage.k8s.io" '
            "at the cluster scope") in err
    assert "deploy/rbac.yaml" in err
    assert 'User "system:serviceaccount:tools:kexplain" cannot list' in err


def test_forbidden_get_names_the_namespace(capsys, api):
    api.faults.forbidden[f"/api/v1/namespaces/shop/pods/{CHECKOUT}"] = "forbidden-get-pods.json"
    err = one_line_error(capsys, "pod", CHECKOUT, "--kubeconfig", api.kubeconfig)
    assert 'kexplain needs "get" on resource "pods" in API group "" in the namespace "shop"' in err


def test_pod_not_found(capsys, api):
    err = one_line_error(capsys, "pod", "nope", "-n", "shop", "--kubeconfig", api.kubeconfig)
    assert err.startswith('error: pod "nope" not found in namespace "shop"')


def test_unreachable_server(capsys, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    kc = write_kubeconfig(tmp_path / "kc", f"http://127.0.0.1:{port}", token=TOKEN)
    err = one_line_error(capsys, "pod", CHECKOUT, "--kubeconfig", str(kc))
    assert err == (f"error: cannot reach the API server at http://127.0.0.1:{port} (context \"prod\"): "
                   "connection refused")


def test_timeout(capsys, api):
    api.faults.delay["/api/v1/nodes"] = 3
    err = one_line_error(capsys, "pod", CHECKOUT, "--kubeconfig", api.kubeconfig, "--request-timeout", "0.3")
    assert err.startswith("error: timed out after 0.3s waiting for the API server at ")
    assert "(list nodes)" in err and "--request-timeout" in err


def test_missing_kubeconfig_file(capsys, tmp_path):
    err = one_line_error(capsys, "pod", CHECKOUT, "--kubeconfig", str(tmp_path / "nope"))
    assert err == f"error: kubeconfig not found: --kubeconfig {tmp_path / 'nope'} does not exist"


def test_missing_kubeconfig_from_env(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "a") + ":" + str(tmp_path / "b"))
    err = one_line_error(capsys, "pod", CHECKOUT)
    assert err.startswith("error: kubeconfig not found: KUBECONFIG=")


def test_no_kubeconfig_and_not_in_a_cluster(capsys, tmp_path):
    err = one_line_error(capsys, "pod", CHECKOUT)
    assert "no kubeconfig" in err and ".kube/config does not exist" in err and "not running in a cluster" in err


def test_unknown_context(capsys, api):
    err = one_line_error(capsys, "pod", CHECKOUT, "--kubeconfig", api.kubeconfig, "--context", "staging")
    assert err == (f'error: context "staging" not found in the kubeconfig --kubeconfig {api.kubeconfig} '
                   "(it has: prod)")


def test_kubeconfig_from_env_and_other_context(capsys, api, tmp_path, monkeypatch):
    kc = write_kubeconfig(tmp_path / "kc2", api.url, token=TOKEN, namespace="default", extra_contexts=("dev",))
    monkeypatch.setenv("KUBECONFIG", str(kc))
    code, out, _ = run_cli(capsys, "pod", "upload-0", "--context", "dev", "-o", "json")
    assert code == 0
    assert json.loads(out)["live"]["context"] == "dev"


def test_name_and_pending_are_exclusive(capsys, api):
    err = one_line_error(capsys, "pod", CHECKOUT, "--pending", "--kubeconfig", api.kubeconfig)
    assert "not both" in err
    err = one_line_error(capsys, "pod", "--kubeconfig", api.kubeconfig)
    assert "name a pod" in err


# --- in-cluster configuration (TLS, service account) -------------------------------------------

@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a test certificate")
def test_in_cluster_configuration(capsys, tmp_path, monkeypatch):
    sa = tmp_path / "sa"
    sa.mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(sa / "key.pem"), "-out", str(sa / "ca.crt"), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    (sa / "token").write_text(TOKEN)
    (sa / "namespace").write_text("shop\n")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sa / "ca.crt", sa / "key.pem")
    monkeypatch.setattr(live_mod, "SA_DIR", str(sa))
    with RecordedApiServer(token=TOKEN, tls=ctx) as server:
        monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        monkeypatch.setenv("KUBERNETES_SERVICE_PORT", str(server.port))
        code, out, err = run_cli(capsys, "pod", CHECKOUT, "-o", "json")
        assert server.methods == {"GET"}, err
    trace = json.loads(out)
    assert code == 1
    assert trace["pod"] == {"namespace": "shop", "name": CHECKOUT}
    assert trace["live"]["context"] is None and trace["live"]["server"] == f"https://127.0.0.1:{server.port}"
    assert trace["live"]["agrees"] is True


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a test certificate")
def test_untrusted_certificate_is_one_line(capsys, tmp_path):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem"), "-subj",
                    "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    with RecordedApiServer(token=TOKEN, tls=ctx) as server:
        kc = write_kubeconfig(tmp_path / "kc", server.url, token=TOKEN)
        err = one_line_error(capsys, "pod", CHECKOUT, "--kubeconfig", str(kc))
    assert err.startswith("error: TLS error talking to the API server at https://127.0.0.1:")
    assert "certificate verify failed" in err


# --- progress bar -----------------------------------------------------------------------------

class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_only(api):
    args = PodArgs(CHECKOUT, Connect(api.kubeconfig, chunk_size=3), output=Output.json)
    tty = FakeTerminal()
    assert run_pod(Environment(stdout=io.StringIO(), stderr=tty), args) == 1
    assert "reading pods" in tty.getvalue() and "reading nodes" in tty.getvalue()
    pipe = io.StringIO()
    assert run_pod(Environment(stdout=io.StringIO(), stderr=pipe), args) == 1
    assert pipe.getvalue() == ""


# --- RBAC and krew manifests -------------------------------------------------------------------

def test_rbac_grants_get_and_list_on_exactly_what_is_read():
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "rbac.yaml").read_text()))
    role = next(d for d in docs if d and d["kind"] == "ClusterRole")
    granted = set()
    for rule in role["rules"]:     # a get of one named object (CA's status ConfigMap) needs no list
        assert sorted(rule["verbs"]) == (["get"] if rule.get("resourceNames") else ["get", "list"])
        granted |= {(g, r) for g in rule["apiGroups"] for r in rule["resources"]}
    assert granted == ({(r.group, r.plural) for r in (*RESOURCES, *POLICIES, DAEMONSETS, *KARPENTER, EVENTS, *KUEUE,
                                                              *VOLCANO)}
                       | {(g, r) for _, g, r in AUTOSCALER_ACCESS})


def test_the_live_docs_show_the_same_cluster_role():
    page = (ROOT / "docs" / "live.md").read_text()
    rbac = (ROOT / "deploy" / "rbac.yaml").read_text()
    for doc in rbac.split("\n---\n"):       # each ClusterRole, without its comments
        assert doc[doc.index("apiVersion:"):] in page


def test_krew_manifest():
    doc = yaml.safe_load((ROOT / "deploy" / "krew" / "kexplain.yaml").read_text())
    assert doc["apiVersion"] == "krew.googlecontainertools.github.com/v1alpha2"
    assert doc["kind"] == "Plugin" and doc["metadata"]["name"] == "kexplain"
    assert doc["spec"]["shortDescription"] and doc["spec"]["version"].startswith("v")
    for platform in doc["spec"]["platforms"]:
        assert platform["bin"].startswith("kubectl-kexplain")
        assert len(platform["sha256"]) == 64 and platform["uri"].startswith("https://")
        assert platform["selector"]


# --- more options -------------------------------------------------------------------------------

GPU_CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: gpu-scheduler
  plugins:
    score:
      disabled: [{name: ImageLocality}]
"""


def test_config_profiles_cover_another_scheduler(capsys, api, tmp_path):
    cfg = tmp_path / "sched.yaml"
    cfg.write_text(GPU_CONFIG)
    code, doc = live_json(capsys, api, "pod", "-A", "--config", str(cfg))
    assert doc["skipped"] == []
    train = next(i for i in doc["items"] if i["pod"]["name"] == "train-0")
    assert train["profile"] == "gpu-scheduler"
    assert train["result"]["suggestedHost"] == "node-a2"       # the one GPU node, whose taint it tolerates
    assert train["live"]["agrees"] is False
    assert not any(n.startswith("a profile kexplain was not given") for n in train["live"]["notes"])
    cluster, _ = snapshot(capsys, api, tmp_path, "train-0", "-n", "batch",
                          "--pod-output", str(tmp_path / "t.json"))
    code, out, _ = run_cli(capsys, str(tmp_path / "t.json"), "--nodes", str(cluster), "--stored", "--config", str(cfg),
                       "-o", "json")
    assert json.loads(out) == without_live(train)


def test_pod_output_needs_a_name(capsys, api, tmp_path):
    code, _, err = run_cli(capsys, "snapshot", "-o", str(tmp_path / "c.json"),
                       "--pod-output", str(tmp_path / "p.json"), "--kubeconfig", api.kubeconfig)
    assert code == 2 and "--pod-output needs a pod NAME" in err


def test_a_kind_the_server_does_not_serve(capsys, api):
    del api.collections["/apis/node.k8s.io/v1/runtimeclasses"]
    err = one_line_error(capsys, "pod", CHECKOUT, "--kubeconfig", api.kubeconfig)
    assert "does not serve runtimeclasses (node.k8s.io/v1, 404)" in err


def test_node_option_gives_the_offline_details(capsys, api, tmp_path):
    """`kexplain pod NAME --node N` records the same details (zones, requests, the node's
    plugin facts) as the offline command on the snapshot."""
    _, plain = live_json(capsys, api, "pod", CHECKOUT, "-n", "shop")
    node = sorted(plain["filter"])[0]
    code, live = live_json(capsys, api, "pod", CHECKOUT, "-n", "shop", "--node", node)
    assert "details" in live and "details" not in plain
    cluster, _ = snapshot(capsys, api, tmp_path, CHECKOUT, "-n", "shop")
    off_code, out, _ = run_cli(capsys, str(tmp_path / "cluster.pod.json"), "--nodes", str(cluster), "--stored",
                           "--node", node, "-o", "json")
    assert off_code == code
    assert json.loads(out) == without_live(live)
    code, out, _ = run_cli(capsys, "pod", CHECKOUT, "-n", "shop", "--node", node, "--kubeconfig", api.kubeconfig)
    assert node in out


def test_node_option_needs_a_pod_name(capsys, api):
    code, _, err = run_cli(capsys, "pod", "--pending", "--node", "n1", "--kubeconfig", api.kubeconfig)
    assert code == 2 and "--node needs a pod NAME" in err

"""`kexplain evict drain NODE` live (no --nodes): the cluster read through the API server as
`kexplain pod` reads it, the node's pods as `kubectl drain` lists them (finished ones too), only
GETs; the same document as the files of the same objects."""
from __future__ import annotations

import copy
import json

import pytest

from kexplain.app.eviction import LiveRead, live_objects
from tests.support.live_server import POD_PATH, isolated, recorded_api, run_cli  # noqa: F401

NODE = "node-a1"
BOUND = "web-5f6d8c7b9-2xkqp"       # the recorded cluster's web pod on node-a1


@pytest.fixture
def api(tmp_path):
    """The recorded cluster with a finished pod on node-a1 (the scheduler's list leaves it out,
    kubectl drain's does not)."""
    with recorded_api(tmp_path) as server:
        items = server.collections[POD_PATH]["items"]
        done = copy.deepcopy(next(i for i in items if i["metadata"]["name"] == BOUND))
        done["metadata"]["name"], done["status"] = "web-done", {"phase": "Succeeded"}
        items.append(done)
        yield server


def drain(capsys, api, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, "evict", "drain", *args, "--kubeconfig", api.kubeconfig)


def test_live_drain_reads_the_nodes_pods_as_kubectl_does(capsys, api):
    code, out, err = drain(capsys, api, NODE, "-o", "json")
    doc = json.loads(out)
    pods = [p["pod"] for p in doc["pods"]]
    assert "shop/web-done" in pods and f"shop/{BOUND}" in pods      # finished pods are drain's too
    done = next(p for p in doc["pods"] if p["pod"] == "shop/web-done")
    assert done["delete"] is True and done["reason"] != "Error"
    assert doc["node"] == NODE and code == 1 and doc["errors"]       # the DaemonSet pod refused
    assert api.methods == {"GET"}
    selectors = [r.query.get("fieldSelector", [""])[0] for r in api.requests if r.path == POD_PATH]
    assert f"spec.nodeName={NODE}" in selectors


def test_live_drain_equals_the_files_of_the_same_objects(capsys, api, tmp_path):
    objects = live_objects(LiveRead(api.kubeconfig), NODE)
    dump = tmp_path / "cluster.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [o for o, _ in objects]}, default=dict))
    live_code, live_out, _ = drain(capsys, api, NODE, "-o", "json", "--ignore-daemonsets")
    file_code, file_out, _ = run_cli(capsys, "evict", "drain", NODE, "--nodes", str(dump), "-o", "json",
                                     "--ignore-daemonsets")
    assert live_code == file_code and json.loads(live_out) == json.loads(file_out)


def test_live_drain_text(capsys, api):
    code, out, _ = drain(capsys, api, NODE, "--force")
    assert out.startswith(f"kubectl drain {NODE} ")
    assert f"delete shop/{BOUND}" in out


def test_live_drain_of_an_unknown_node(capsys, api):
    code, out, err = drain(capsys, api, "node-zz")
    assert code == 2 and "node-zz" in err and len(err.strip().splitlines()) == 1

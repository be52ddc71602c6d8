"""Live `kexplain evict` follows the cluster's own versions (issue 77, item 9): the Eviction API,
kubectl drain and the taint eviction controller the API server's /version, the eviction manager
the node's kubelet (`status.nodeInfo.kubeletVersion`), as `kexplain pod` follows the cluster;
--kubernetes-version still chooses; a snapshot (with its /version record and the nodes' nodeInfo)
keeps both."""
from __future__ import annotations

import json

import pytest

from tests.cli.test_live_evict import CONFIGZ, NODE, NOW, SUMMARY_PATH, CONFIGZ_PATH, snapshot_of, summary
from tests.support.live_server import isolated, recorded_api, run_cli  # noqa: F401

PDB_PATH = "/apis/policy/v1/poddisruptionbudgets"
NODES_PATH = "/api/v1/nodes"
OLD = "does not allow evicting pods currently"              # 1.35 on (kubernetes#133097)
NEEDS = "The disruption budget web needs 1 healthy pods and has 2 currently"      # 1.33, 1.34
DRAIN = ("--ignore-daemonsets", "--delete-emptydir-data", "--force", "-o", "json")


def serve(tmp_path, server_version: str, kubelet_version: str):
    """The recorded cluster as an API server of `server_version` whose nodes run `kubelet_version`;
    shop/web's budget spent (0 allowed) with more healthy pods than it needs."""
    context = recorded_api(tmp_path, git_version=server_version)
    server = context.__enter__()
    budget = server.collections[PDB_PATH]["items"][0]
    budget["status"].update(disruptionsAllowed=0, currentHealthy=2, desiredHealthy=1)
    budget["status"].pop("conditions", None)
    for n in server.collections[NODES_PATH]["items"]:
        n["status"]["nodeInfo"]["kubeletVersion"] = kubelet_version
    server.objects[SUMMARY_PATH] = summary(server)
    server.objects[CONFIGZ_PATH] = CONFIGZ
    return context, server


@pytest.fixture
def old_cluster(tmp_path):
    context, server = serve(tmp_path, "v1.34.7", "v1.34.7")
    yield server
    context.__exit__(None, None, None)


def causes(doc: dict) -> list[str]:
    return [c["message"] for e in doc["evictions"] for c in e.get("causes") or ()]


def test_live_drain_answers_in_the_api_servers_words(capsys, old_cluster):
    code, out, _ = run_cli(capsys, "evict", "drain", NODE, *DRAIN, "--kubeconfig", old_cluster.kubeconfig)
    doc = json.loads(out)
    assert doc["kubernetesVersion"].startswith("v1.34.") and NEEDS in causes(doc)
    assert not any(OLD in c for c in causes(doc))
    # --kubernetes-version still chooses
    code, out, _ = run_cli(capsys, "evict", "drain", NODE, *DRAIN, "--kubernetes-version", "1.36",
                           "--kubeconfig", old_cluster.kubeconfig)
    doc = json.loads(out)
    assert doc["kubernetesVersion"].startswith("v1.36.") and any(OLD in c for c in causes(doc))


def test_live_pressure_follows_the_nodes_kubelet(capsys, old_cluster):
    code, out, _ = run_cli(capsys, "evict", "pressure", NODE, "--now", NOW, "-o", "json",
                           "--kubeconfig", old_cluster.kubeconfig)
    doc = json.loads(out)
    assert doc["kubernetesVersion"].startswith("v1.34.") and doc["kubeletVersion"] == "v1.34.7"
    code, out, _ = run_cli(capsys, "evict", "pressure", NODE, "--now", NOW, "--kubeconfig", old_cluster.kubeconfig)
    assert "(kubelet v1.34." in out and "v1.36" not in out


def test_a_kubelet_older_than_its_api_server(capsys, tmp_path):
    """Version skew: the API server 1.36, the node's kubelet 1.34: each component its own."""
    context, server = serve(tmp_path, "v1.36.3", "v1.34.7")
    try:
        code, out, _ = run_cli(capsys, "evict", "pressure", NODE, "--now", NOW, "-o", "json",
                               "--kubeconfig", server.kubeconfig)
        assert json.loads(out)["kubernetesVersion"].startswith("v1.34.")
        code, out, _ = run_cli(capsys, "evict", "drain", NODE, *DRAIN, "--kubeconfig", server.kubeconfig)
        assert json.loads(out)["kubernetesVersion"].startswith("v1.36.")
    finally:
        context.__exit__(None, None, None)


def test_a_snapshot_keeps_both(capsys, old_cluster, tmp_path):
    dump = snapshot_of(old_cluster, tmp_path / "snapshot.json")
    code, out, _ = run_cli(capsys, "evict", "drain", NODE, "--nodes", str(dump), *DRAIN)
    doc = json.loads(out)
    assert doc["kubernetesVersion"].startswith("v1.34.") and NEEDS in causes(doc)
    (tmp_path / "stats.json").write_text(json.dumps(summary(old_cluster)))
    code, out, _ = run_cli(capsys, "evict", "pressure", NODE, "--nodes", str(dump), "--now", NOW, "--stats",
                           str(tmp_path / "stats.json"), "-o", "json")
    assert json.loads(out)["kubernetesVersion"].startswith("v1.34.")


def test_an_api_server_too_old_is_refused_naming_it(capsys, tmp_path):
    context, server = serve(tmp_path, "v1.30.2", "v1.30.2")
    try:
        code, _, err = run_cli(capsys, "evict", "drain", NODE, *DRAIN, "--kubeconfig", server.kubeconfig)
        assert code == 2 and "runs Kubernetes v1.30.2" in err and "--kubernetes-version" in err
    finally:
        context.__exit__(None, None, None)

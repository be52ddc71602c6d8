"""`--node NAME` naming no node of the cluster is bad usage: exit 2 and one line on stderr
naming the node asked for and the names closest to it, for one pod, for replicas, and live."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.live_server import RecordedApiServer, write_kubeconfig
from tests.support.paths import FIXTURES

# Node names as EKS gives them.
NAMES = [f"ip-10-0-{zone}-{host}.ec2.internal" for zone in (1, 2) for host in (17, 23, 58)]
NODE = """apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}
status: {{allocatable: {{cpu: "4", memory: 16Gi, pods: "110"}}}}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]
"""


@pytest.fixture
def cluster(tmp_path: Path) -> str:
    path = tmp_path / "nodes.yaml"
    path.write_text("---\n".join(NODE.format(name=n) for n in NAMES))
    return str(path)


def kexplain(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(args), env=env)
    return code, env.out, env.err


def one_line_error(code: int, out: str, err: str) -> str:
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    return err.removeprefix("error: ").rstrip("\n")


@pytest.mark.parametrize("output", ["table", "wide", "json", "yaml"])
def test_a_typo_names_the_closest_nodes(cluster, output):
    asked = "ip-10-0-2-23.ec2.interna"
    err = one_line_error(*kexplain(str(FIXTURES / "pod-web.yaml"), "--nodes", cluster, "--node", asked,
                                   "-o", output))
    head = f"--node {asked}: no node of that name among the cluster's 6 nodes; the closest: "
    assert err.startswith(head)
    closest = err.removeprefix(head).split(", ")
    assert closest[0] == "ip-10-0-2-23.ec2.internal"
    assert 1 <= len(closest) <= 3 and set(closest) <= set(NAMES)


def test_no_name_close(cluster):
    err = one_line_error(*kexplain(str(FIXTURES / "pod-web.yaml"), "--nodes", cluster, "--node", "gpu-a"))
    assert err == "--node gpu-a: no node of that name among the cluster's 6 nodes, and no name is close to it"


def test_replicas(cluster, tmp_path):
    pod = tmp_path / "web.yaml"
    pod.write_text(DEPLOYMENT)
    err = one_line_error(*kexplain(str(pod), "--nodes", cluster, "--node", "ip-10-0-1-71.ec2.internal"))
    assert err.startswith("--node ip-10-0-1-71.ec2.internal: no node of that name among the cluster's 6 nodes; "
                          "the closest: ip-10-0-1-17.ec2.internal")


def test_a_node_of_the_cluster_is_explained(cluster):
    code, out, err = kexplain(str(FIXTURES / "pod-web.yaml"), "--nodes", cluster, "--node", NAMES[4])
    assert code == 0 and err == ""
    assert out.startswith(f"Node {NAMES[4]} for pod default/web: Scheduled overall")


def test_live_pod(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"):
        monkeypatch.delenv(var, raising=False)
    with RecordedApiServer(token="t") as api:
        config = write_kubeconfig(tmp_path / "kubeconfig", api.url, token="t")
        err = one_line_error(*kexplain("pod", "checkout-6b8d9f7c4-lm3np", "-n", "shop", "--node", "node-a9",
                                       "--kubeconfig", str(config)))
    assert err.startswith("--node node-a9: no node of that name among the cluster's 6 nodes; the closest: node-a")

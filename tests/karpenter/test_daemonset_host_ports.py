"""A DaemonSet's host ports on every new NodeClaim (provisioning/scheduling: getDaemonHostPortUsage,
NodeClaim.CanAdd's "checking host port usage"): a DaemonSet's pod, made from its template as the
API server stores it (a port's protocol defaulted to TCP, as a Pod's is), holds its host ports on
each NodeClaim of a NodePool it lands on, so a pending pod asking for the same port fails there.
On fixtures/karpenter, whose NodePools both take the DaemonSets (they tolerate everything)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "karpenter"
CONFLICT = ("checking host port usage, pod hostport conflicts with existing hostport configuration "
            "(existing-hostport-ip={ip}, existing-hostport-port=9100, existing-hostport-protocol=TCP, "
            "pod-hostport-ip=0.0.0.0, pod-hostport-port=9100, pod-hostport-protocol=TCP)")


def daemonset(name: str, namespace: str = "monitoring", port: dict | None = None, **spec) -> dict:
    container = {"name": name, "image": "agent", "resources": {"requests": {"cpu": "10m", "memory": "20Mi"}}}
    if port is not None:
        container["ports"] = [port]
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"tolerations": [{"operator": "Exists"}], "containers": [container],
                                           **spec}}}}


POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "metrics", "namespace": "default"},
       "spec": {"containers": [{"name": "m", "image": "m", "ports": [{"containerPort": 9100, "hostPort": 9100}],
                                "resources": {"requests": {"cpu": "1"}}}]}}


def run(tmp_path: Path, daemonsets: list[dict]) -> dict:
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(POD))
    (tmp_path / "ds.yaml").write_text(yaml.safe_dump_all(daemonsets))
    env = TestEnvironment()
    code = main(["karpenter", str(tmp_path / "pod.yaml"), "--nodes", str(CASE / "cluster.yaml"),
                 "--nodes", str(tmp_path / "ds.yaml"), "--nodes", str(CASE / "nodepools.yaml"), "-o", "json"], env)
    assert code in (0, 1), env.err
    return json.loads(env.out)["pods"][0]


@pytest.mark.parametrize("daemonsets, error", [
    # the protocol neither writes: TCP on both, as the API server stores them
    ([daemonset("node-exporter", port={"containerPort": 9100, "hostPort": 9100})], CONFLICT.format(ip="0.0.0.0")),
    # an address of the DaemonSet's against the pod's 0.0.0.0: the unspecified address matches any
    ([daemonset("node-exporter", port={"containerPort": 9100, "hostPort": 9100, "hostIP": "10.0.0.1"})],
     CONFLICT.format(ip="10.0.0.1")),
    # another protocol holds another port
    ([daemonset("node-exporter", port={"containerPort": 9100, "hostPort": 9100, "protocol": "UDP"})], None),
    # the host's network gives a Pod's ports host ports, not a template's (SetDefaults_Pod only)
    ([daemonset("node-exporter", port={"containerPort": 9100}, hostNetwork=True)], None),
    # pods made from templates have no namespace and name: one key, and the last DaemonSet listed
    # (by namespace, then name) replaces the ports of those before it
    ([daemonset("node-exporter", port={"containerPort": 9100, "hostPort": 9100}),
      daemonset("zz-agent")], None),
    ([daemonset("aa-agent"), daemonset("node-exporter", port={"containerPort": 9100, "hostPort": 9100})],
     CONFLICT.format(ip="0.0.0.0")),
])
def test_a_daemonsets_host_port_on_every_new_nodeclaim(tmp_path: Path, daemonsets: list[dict],
                                                       error: str | None) -> None:
    got = run(tmp_path, daemonsets)
    if error is None:
        assert got["result"] == "NewNodeClaim", got
        return
    assert got["result"] == "Failed"
    assert {"nodePool": "general", "error": error} in got["nodePoolErrors"]
    assert got["errors"][-1] == error

"""lint and explain agree on what a set leaves (issue 39, second audit): an object the API server
refuses is absent for both, whatever step refuses it (decoding, validation), and whatever its
kind (a LimitRange, a ResourceQuota, a Namespace, an HPA); a Namespace refused does not exist,
so what the set creates in it is refused, a ConfigMap too; a set of pods that name their nodes
is admitted in the set's order by both. Files shaped like a team's namespace bundle."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment

NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: worker-1
  labels: {kubernetes.io/hostname: worker-1, kubernetes.io/os: linux, topology.kubernetes.io/zone: eu-west-1a}
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "3"}
  allocatable: {cpu: 3920m, memory: 15Gi, pods: "3"}
---
apiVersion: v1
kind: Node
metadata:
  name: win-1
  labels: {kubernetes.io/hostname: win-1, kubernetes.io/os: windows, topology.kubernetes.io/zone: eu-west-1a}
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: cache-0, namespace: default, resourceVersion: "10"}
spec:
  nodeName: worker-1
  containers: [{name: redis, image: redis:7, resources: {requests: {cpu: "1"}}}]
status: {phase: Running}
"""

CAPS = """\
apiVersion: v1
kind: LimitRange
metadata: {name: caps, namespace: default}
spec:
  limits:
  - type: Container
    max: {cpu: "1", memory: 1Gi}
    default: {cpu: 500m, memory: 512MB}
"""

QUOTA = """\
apiVersion: v1
kind: ResourceQuota
metadata: {name: team-quota, namespace: default}
spec:
  hard: {pods: "1", requests.memory: 2GB}
"""


def api(replicas: int, resources: str) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: api, namespace: default}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: api}}}}
  template:
    metadata: {{labels: {{app: api}}}}
    spec:
      containers: [{{name: api, image: registry.example.com/api:2.1, resources: {resources}}}]
"""


def _run(*argv: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(argv), env=env)
    return code, env.out, env.err


def _write(tmp_path: Path, *docs: str) -> tuple[str, str]:
    (tmp_path / "set.yaml").write_text("---\n".join(docs))
    (tmp_path / "nodes.yaml").write_text(NODES)
    return str(tmp_path / "set.yaml"), str(tmp_path / "nodes.yaml")


def _lint(path: str, nodes: str) -> tuple[int, list[dict]]:
    code, out, _ = _run("lint", path, "--nodes", nodes, "-o", "json")
    return code, json.loads(out)["findings"]


@pytest.mark.parametrize(("policy", "workload", "field"), [
    (CAPS, api(1, '{requests: {cpu: "2"}, limits: {cpu: "2"}}'), "spec.limits[0].default.memory"),
    (QUOTA, api(2, "{requests: {memory: 10Mi}}"), "spec.hard.requests.memory"),
])
def test_a_policy_refused_at_decoding_is_absent_for_both(tmp_path: Path, policy: str, workload: str,
                                                        field: str) -> None:
    """`512MB` is no quantity: the API server refuses the LimitRange (the quota), `kubectl apply`
    creates the rest, and the Deployment meets no bound and no quota, in explain and in lint."""
    path, nodes = _write(tmp_path, policy, workload)
    code, out, err = _run(path, "--nodes", nodes, "-o", "json")
    placement = json.loads(out)["placements"][0] if "placements" in json.loads(out) else None
    assert code == 2 and f"{field}: quantities must match the regular expression" in err
    assert placement is None or "failedCreate" not in placement
    code, findings = _lint(path, nodes)
    assert [(f["rule"], f["object"]["kind"]) for f in findings] == [("schema", policy.split("kind: ")[1].split()[0]),
                                                                    ("fits", "Deployment")]


def test_a_namespace_refused_at_decoding_does_not_exist(tmp_path: Path) -> None:
    """`enforce-version: 1.29` unquoted is a number, which a label cannot hold: the Namespace is
    refused, and the pod in it is refused by NamespaceLifecycle, in both."""
    namespace = """\
apiVersion: v1
kind: Namespace
metadata:
  name: payments
  labels:
    pod-security.kubernetes.io/enforce: baseline
    pod-security.kubernetes.io/enforce-version: 1.29
"""
    pod = """\
apiVersion: v1
kind: Pod
metadata: {name: ledger, namespace: payments}
spec:
  containers: [{name: ledger, image: registry.example.com/ledger:3.2}]
"""
    path, nodes = _write(tmp_path, namespace, pod)
    code, out, err = _run(path, "--nodes", nodes)
    assert code == 2 and out == ""
    assert 'Pod payments/ledger: namespaces "payments" not found' in err
    code, findings = _lint(path, nodes)
    assert [(f["rule"], f["object"]["kind"], f["message"]) for f in findings][1:] == [
        ("admission", "Pod", 'namespaces "payments" not found')]
    assert findings[0]["rule"] == "schema"


def test_everything_in_a_refused_namespace_is_refused(tmp_path: Path) -> None:
    """A Namespace whose Pod Security labels do not parse is refused: its ConfigMap, a kind
    kexplain does not otherwise read, is refused by NamespaceLifecycle like its Deployment."""
    namespace = """\
apiVersion: v1
kind: Namespace
metadata:
  name: team
  labels: {pod-security.kubernetes.io/enforce: Restricted}
"""
    config = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: team}
data: {LOG_LEVEL: info}
"""
    path, nodes = _write(tmp_path, namespace, config, api(1, "{}").replace("namespace: default", "namespace: team"))
    code, _, err = _run(path, "--nodes", nodes)
    assert code == 2
    assert 'ConfigMap team/settings: namespaces "team" not found' in err
    assert 'Deployment team/api: namespaces "team" not found' in err
    code, findings = _lint(path, nodes)
    assert [(f["object"]["kind"], f["message"]) for f in findings][1:] == [
        ("ConfigMap", 'namespaces "team" not found'), ("Deployment", 'namespaces "team" not found')]


PINNED = """\
apiVersion: v1
kind: Pod
metadata: {name: NAME}
spec:
  nodeName: NODE
  containers: [{name: c, image: registry.example.com/tool:1.0, resources: {requests: {cpu: CPU}}PORTS}]
"""


def pinned(name: str, node: str, cpu: str = "100m", port: bool = False) -> str:
    return PINNED.replace("NAME", name).replace("NODE", node).replace("CPU", cpu).replace(
        "PORTS", ", ports: [{containerPort: 80, hostPort: 8080}]" if port else "")


@pytest.mark.parametrize(("pods", "verdicts"), [
    # worker-1 allows 3 pods and runs 1: the second pod of the set is the third, the third is refused
    ([pinned("fill", "worker-1"), pinned("more", "worker-1"), pinned("too-many", "worker-1")],
     ["not-scheduled", "not-scheduled", "kubelet-rejected:OutOfpods"]),
    # the second pod wants the host port the first one took
    ([pinned("port-1", "win-1", port=True), pinned("port-2", "win-1", port=True)],
     ["not-scheduled", "kubelet-rejected:NodePorts"]),
])
def test_a_set_of_pinned_pods_is_admitted_in_order_by_both(tmp_path: Path, pods: list[str],
                                                          verdicts: list[str]) -> None:
    path, nodes = _write(tmp_path, *pods)
    code, out, _ = _run(path, "--nodes", nodes, "-o", "json", "--no-suggestions")
    explained = [("kubelet-rejected:" + i["kubelet"]["event"]["reason"]) if not i["kubelet"]["admitted"]
                 else "not-scheduled" for i in json.loads(out)["items"]]
    assert explained == verdicts and code == 1
    code, findings = _lint(path, nodes)
    linted = [f["rule"] + (f":{f['details']['reason']}" if f["rule"] == "kubelet-rejected" else "") for f in findings]
    assert linted == verdicts and code == 1

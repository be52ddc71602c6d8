"""What a pod carries that its manifest did not say, said with its explanation (issue 39): the
requests a namespace's LimitRange gave it (the `kubernetes.io/limit-ranger` annotation the API
server leaves, and which LimitRange), the labels its controller added (`pod-template-hash`,
`controller-revision-hash`, as `kubectl get pods --show-labels` shows them), in the text and
in `-o json` (extra keys `limitRanger`, `labels`); and the retry section wrapped between words,
never inside a parenthesis."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.copies import copy_names

NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {kubernetes.io/hostname: node-a}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: node-b
  labels: {kubernetes.io/hostname: node-b}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
"""
TEAM = """\
apiVersion: v1
kind: LimitRange
metadata: {name: team-defaults, namespace: default}
spec:
  limits:
  - type: Container
    max: {cpu: "2", memory: 1Gi}
    defaultRequest: {memory: 100Mi}
---
apiVersion: v1
kind: Pod
metadata: {name: toolbox}
spec:
  containers:
  - {name: shell, image: busybox:1.36}
"""


def _run(tmp_path: Path, manifest: str, *args: str, width: int = 80) -> tuple[int, str]:
    (tmp_path / "app.yaml").write_text(manifest)
    (tmp_path / "nodes.yaml").write_text(NODES)
    env = TestEnvironment(width=width)
    code = main([str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), *args], env=env)
    return code, env.out


def test_the_limit_range_that_gave_the_requests_is_named(tmp_path: Path) -> None:
    """Its max gives the default limit of cpu (2) and so its default request; memory's default
    request is its own (100Mi). Before: `Requests cpu 2, memory 100Mi` and nothing said why."""
    code, out = _run(tmp_path, TEAM)
    lines = out.splitlines()
    at = lines.index("Requests cpu 2, memory 100Mi; priority 0")
    assert lines[at + 1:at + 3] == [
        "Set by LimitRange team-defaults (LimitRanger): cpu, memory request for container",
        "  shell; cpu, memory limit for container shell"]
    code, out = _run(tmp_path, TEAM, "-o", "json")
    assert json.loads(out)["limitRanger"] == {
        "set": "cpu, memory request for container shell; cpu, memory limit for container shell",
        "limitRanges": ["team-defaults"]}


def test_a_pod_without_defaults_has_no_note(tmp_path: Path) -> None:
    code, out = _run(tmp_path, TEAM.replace("{name: shell, image: busybox:1.36}",
                                            "{name: shell, image: busybox:1.36, resources: {requests: "
                                            "{cpu: 100m, memory: 64Mi}, limits: {cpu: 100m, memory: 64Mi}}}"),
                     "-o", "json")
    assert "limitRanger" not in json.loads(out) and "labels" not in json.loads(out)


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: prod}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api, tier: backend}}
    spec:
      containers:
      - name: api
        image: registry.example.com/api:4.2.0
        resources: {requests: {cpu: "3"}}
"""


def test_a_copy_shows_the_labels_its_controller_added(tmp_path: Path) -> None:
    code, out = _run(tmp_path, DEPLOYMENT, "-o", "json")
    items = json.loads(out)["items"]
    hashes = {i["labels"].get("pod-template-hash") for i in items}
    assert len(hashes) == 1 and None not in hashes
    [value] = hashes
    assert items[0]["labels"] == {"app": "api", "tier": "backend", "pod-template-hash": value}
    code, out = _run(tmp_path, DEPLOYMENT)
    first = copy_names(DEPLOYMENT, 1)[0]
    assert first.startswith(f"api-{value}-")        # its ReplicaSet's name: <name>-<pod-template-hash>
    assert f"Labels of {first}: app=api,pod-template-hash={value},tier=backend" in out.splitlines()


RETRY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: frontend, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: frontend}}
  template:
    metadata: {labels: {app: frontend}}
    spec:
      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: redis}}
            topologyKey: kubernetes.io/hostname
      containers: [{name: web, image: nginx:1.27, resources: {requests: {cpu: 500m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: redis-primary, namespace: shop, labels: {app: redis}}
spec:
  containers: [{name: redis, image: redis:7.4, resources: {requests: {cpu: 500m}}}]
"""


def test_the_retry_section_breaks_between_words_never_in_a_parenthesis(tmp_path: Path) -> None:
    """Before: `(InterPodAffinity: ` at the end of a line, `Queue)` on the next, and trailing
    blanks."""
    code, out = _run(tmp_path, RETRY, "--no-suggestions", width=60)
    section = out[out.index("=== Retried by the scheduling queue"):].splitlines()
    assert code == 0
    assert section[1:] == [f"Deployment shop/frontend: {copy_names(RETRY, 1)[0]} bound to",
                           "    node-a",
                           "    requeued (round 1) when pod shop/redis-primary bound to",
                           "      node-a (InterPodAffinity: Queue)"]

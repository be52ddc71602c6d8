"""A Deployment applied with its HorizontalPodAutoscaler (issue 39): the HPA controller raises it
to minReplicas at once, and kexplain explains that many pods. The workload's `placements` entry
(`-o json`) and lint's verdict say which HPA set the count and why (before: only a warning on
stderr, and a JSON that explained 6 pods of a Deployment written without replicas)."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment

NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-17.ec2.internal
  labels: {kubernetes.io/hostname: ip-10-0-1-17.ec2.internal, topology.kubernetes.io/zone: us-east-1a}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
"""
APP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: frontend, namespace: web}
spec:
  selector: {matchLabels: {app: frontend}}
  template:
    metadata: {labels: {app: frontend}}
    spec:
      containers:
      - name: frontend
        image: public.ecr.aws/acme/frontend:1.8.2
        resources: {requests: {cpu: 500m, memory: 512Mi}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: frontend-hpa, namespace: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: frontend}
  minReplicas: 6
  maxReplicas: 30
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
"""
EXPECTED = {"namespace": "web", "name": "frontend-hpa", "from": 1, "to": 6,
            "reason": "Current number of replicas below Spec.MinReplicas",
            "message": "Deployment web/frontend: HorizontalPodAutoscaler web/frontend-hpa sets spec.replicas from 1 "
                       "to 6 at once (SuccessfulRescale: New size: 6; reason: Current number of replicas below "
                       "Spec.MinReplicas); its pods are explained at 6 replicas"}


def _run(tmp_path: Path, *argv: str) -> tuple[int, str]:
    (tmp_path / "app.yaml").write_text(APP)
    (tmp_path / "nodes.yaml").write_text(NODES)
    env = TestEnvironment(width=200)
    paths = [str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml")]
    code = main([*argv[:1], *paths, *argv[1:]] if argv[:1] == ("lint",) else [*paths, *argv], env=env)
    return code, env.out


def test_the_placements_entry_names_the_hpa(tmp_path: Path) -> None:
    code, out = _run(tmp_path, "-o", "json")
    [placement] = json.loads(out)["placements"]
    assert code == 0 and placement["replicas"] == 6
    assert placement["horizontalPodAutoscaler"] == EXPECTED


def test_lint_says_it_with_the_verdict(tmp_path: Path) -> None:
    code, out = _run(tmp_path, "lint", "-o", "json")
    [finding] = json.loads(out)["findings"]
    assert code == 0 and finding["rule"] == "fits" and finding["details"]["replicas"] == 6
    assert finding["details"]["horizontalPodAutoscaler"] == EXPECTED


SECOND = """\
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: frontend-rps, namespace: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: frontend}
  minReplicas: MIN
  maxReplicas: MAX
  metrics:
  - type: Pods
    pods: {metric: {name: http_requests_per_second}, target: {type: AverageValue, averageValue: "50"}}
"""


def _two(tmp_path: Path, minimum: int, maximum: int, *argv: str) -> tuple[int, str, str]:
    (tmp_path / "app.yaml").write_text(APP + SECOND.replace("MIN", str(minimum)).replace("MAX", str(maximum)))
    (tmp_path / "nodes.yaml").write_text(NODES)
    env = TestEnvironment(width=200)
    paths = [str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml")]
    code = main([*argv[:1], *paths, *argv[1:]] if argv[:1] == ("lint",) else [*paths, *argv], env=env)
    return code, env.out, env.err


def test_two_hpas_on_one_target_each_apply_their_bounds(tmp_path: Path) -> None:
    """The chart's CPU HPA raises the Deployment to 6, the second HPA (min 8) to 8; then both are
    within their bounds and neither reads a metric (AmbiguousSelector): 8 replicas, both said."""
    code, out, err = _two(tmp_path, 8, 40, "-o", "json")
    [placement] = json.loads(out)["placements"]
    scaled = placement["horizontalPodAutoscaler"]
    assert code == 0 and placement["replicas"] == 8
    assert (scaled["name"], scaled["from"], scaled["to"], scaled["targetedBy"]) == (
        "frontend-rps", 1, 8, ["web/frontend-hpa", "web/frontend-rps"])
    assert scaled["message"] == (
        "Deployment web/frontend: HorizontalPodAutoscalers web/frontend-hpa and web/frontend-rps both target it: "
        "web/frontend-hpa sets spec.replicas from 1 to 6 (SuccessfulRescale: New size: 6; reason: Current number of "
        "replicas below Spec.MinReplicas); web/frontend-rps sets spec.replicas from 6 to 8 (SuccessfulRescale: New "
        "size: 8; reason: Current number of replicas below Spec.MinReplicas); then every one is within its bounds, and "
        "none scales on its metrics (AmbiguousSelector: pods by selector app=frontend are controlled by multiple HPAs: "
        "[web/frontend-hpa web/frontend-rps]); its pods are explained at 8 replicas")
    assert scaled["message"] in err
    code, out, _ = _two(tmp_path, 8, 40, "lint", "-o", "json")
    [finding] = json.loads(out)["findings"]
    assert finding["details"]["replicas"] == 8 and finding["details"]["horizontalPodAutoscaler"] == scaled


def test_two_hpas_whose_bounds_conflict_flip_the_count(tmp_path: Path) -> None:
    """The second HPA's max (4) is below the first's min (6): each resync undoes the other."""
    code, out, _ = _two(tmp_path, 2, 4, "-o", "json")
    [placement] = json.loads(out)["placements"]
    assert placement["replicas"] == 6
    assert "with bounds that conflict" in placement["horizontalPodAutoscaler"]["message"]
    assert "then each undoes the other: the count flips between 4 and 6 at each resync (its pods are explained at 6 " \
        "replicas, the most)" in placement["horizontalPodAutoscaler"]["message"]


# The HPA already in the cluster (`kubectl get hpa -A -o yaml` beside the nodes: stored), and the
# Deployment applied from the file: the controller scales it as it would one applied with it.
CLUSTER_HPA = """\
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: frontend-hpa, namespace: web, resourceVersion: "811204"}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: frontend}
  minReplicas: 6
  maxReplicas: 30
status: {currentReplicas: 6, desiredReplicas: 6}
"""


def _cluster_hpa(tmp_path: Path, app: str, hpa: str, *argv: str) -> tuple[int, str, str]:
    (tmp_path / "app.yaml").write_text(app)
    (tmp_path / "nodes.yaml").write_text(NODES + hpa)
    env = TestEnvironment(width=200)
    paths = [str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml")]
    code = main([*argv[:1], *paths, *argv[1:]] if argv[:1] == ("lint",) else [*paths, *argv], env=env)
    return code, env.out, env.err


def test_an_hpa_of_the_cluster_scales_the_sets_workload(tmp_path: Path) -> None:
    """The HPA of --nodes targets the Deployment the file applies: 6 replicas, said as for the
    set's own HPA, in explain and lint alike (before: the Deployment's 1, and no word of it)."""
    deployment = APP.split("---\n")[0]
    code, out, err = _cluster_hpa(tmp_path, deployment, CLUSTER_HPA, "-o", "json")
    [placement] = json.loads(out)["placements"]
    assert code == 0 and placement["replicas"] == 6 and placement["horizontalPodAutoscaler"] == EXPECTED
    assert EXPECTED["message"] in err
    code, out, _ = _cluster_hpa(tmp_path, deployment, CLUSTER_HPA, "lint", "-o", "json")
    [finding] = json.loads(out)["findings"]
    assert finding["details"]["replicas"] == 6 and finding["details"]["horizontalPodAutoscaler"] == EXPECTED


def test_the_sets_hpa_replaces_the_clusters_of_its_name(tmp_path: Path) -> None:
    """`kubectl apply` updates the cluster's HPA with the file's (minReplicas 6 -> 3): the file's
    acts, alone; another HPA of the cluster on the same target would act beside it."""
    app = APP.replace("minReplicas: 6", "minReplicas: 3")
    code, out, _ = _cluster_hpa(tmp_path, app, CLUSTER_HPA, "-o", "json")
    [placement] = json.loads(out)["placements"]
    assert (code, placement["replicas"], placement["horizontalPodAutoscaler"]["name"]) == (0, 3, "frontend-hpa")
    assert "targetedBy" not in placement["horizontalPodAutoscaler"]
    other = CLUSTER_HPA.replace("name: frontend-hpa", "name: frontend-old")
    code, out, _ = _cluster_hpa(tmp_path, app, other, "-o", "json")
    [placement] = json.loads(out)["placements"]
    assert placement["replicas"] == 6
    assert placement["horizontalPodAutoscaler"]["targetedBy"] == ["web/frontend-old", "web/frontend-hpa"]


def test_an_hpa_of_the_nodes_file_the_api_server_refuses_is_bad_input(tmp_path: Path) -> None:
    """Not stored (no resourceVersion): created as the rest of --nodes, and refused (maxReplicas
    below minReplicas), it scales nothing; explain and lint say it as any refused object of the
    cluster (exit 2)."""
    refused = CLUSTER_HPA.replace(' resourceVersion: "811204"', "").replace("maxReplicas: 30", "maxReplicas: 2")
    deployment = APP.split("---\n")[0]
    code, out, err = _cluster_hpa(tmp_path, deployment, refused, "-o", "json")
    message = ('HorizontalPodAutoscaler.autoscaling "frontend-hpa" is invalid: spec.maxReplicas: Invalid value: 2: '
               "must be greater than or equal to `minReplicas`")
    assert code == 2 and message in err and json.loads(out)["kind"] == "SchedulingTrace"     # its 1 pod
    code, _, err = _cluster_hpa(tmp_path, deployment, refused, "lint")
    assert code == 2 and message in err

"""The API server's validation of the namespace policies a set brings (issue 39, second audit):
a LimitRange, a ResourceQuota or a HorizontalPodAutoscaler it would refuse is refused, left out
with its words (ValidateLimitRange, ValidateResourceQuota, ValidateHorizontalPodAutoscaler of
v1.34 and v1.36), in explain and lint alike: its defaults, its quota, its replica count never
act. Files shaped like a team's namespace bundle and an app's chart."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kexplain.admission.validate_policy import validate
from kexplain.apimachinery.fielderrors import invalid_message
from kexplain.cli.app import main
from kexplain.features import KubeVersion
from tests.support.cli_helpers import TestEnvironment

NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: pool-a-1
  labels: {kubernetes.io/hostname: pool-a-1, topology.kubernetes.io/zone: europe-west1-b}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  allocatable: {cpu: "7910m", memory: 29Gi, pods: "110"}
"""


def _errors(text: str, minor: str = "1.36") -> str:
    obj = yaml.safe_load(text)
    kind = {"HorizontalPodAutoscaler": "HorizontalPodAutoscaler.autoscaling"}.get(obj["kind"], obj["kind"])
    errs = validate(obj, KubeVersion(minor))
    return invalid_message(kind, obj["metadata"]["name"], errs) if errs else ""


@pytest.mark.parametrize(("limits", "message"), [
    # the default request defaults to the default, both above the max
    ('- type: Container\n    max: {cpu: "1"}\n    default: {cpu: "2"}',
     'LimitRange "defaults" is invalid: [spec.limits[0].defaultRequest[cpu]: Invalid value: "2": default request '
     'value 2 is greater than max value 1, spec.limits[0].default[cpu]: Invalid value: "1": default value 2 is '
     'greater than max value 1]'),
    ('- type: Container\n    min: {memory: 1Gi}\n    max: {memory: 512Mi}',
     'LimitRange "defaults" is invalid: [spec.limits[0].min[memory]: Invalid value: "1Gi": min value 1Gi is greater '
     'than max value 512Mi, spec.limits[0].defaultRequest[memory]: Invalid value: "512Mi": min value 1Gi is greater '
     'than default request value 512Mi, spec.limits[0].default[memory]: Invalid value: "1Gi": min value 1Gi is greater '
     'than default value 512Mi]'),
    ('- type: Pod\n    max: {cpu: "4"}\n    default: {cpu: "1"}\n  - type: Container\n    maxLimitRequestRatio: '
     '{cpu: 500m}\n  - type: Container\n    max: {gpu: "1"}',
     'LimitRange "defaults" is invalid: [spec.limits[0].default: Forbidden: may not be specified when `type` is '
     '\'Pod\', spec.limits[1].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1, '
     'spec.limits[2].type: Duplicate value: "Container", spec.limits[2].max[gpu]: Invalid value: "gpu": must be a '
     'standard resource type or fully qualified, spec.limits[2].max[gpu]: Invalid value: "gpu": must be a standard '
     'resource for containers, spec.limits[2].default[gpu]: Invalid value: "gpu": must be a standard resource type or '
     'fully qualified, spec.limits[2].default[gpu]: Invalid value: "gpu": must be a standard resource for containers, '
     'spec.limits[2].defaultRequest[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified, '
     'spec.limits[2].defaultRequest[gpu]: Invalid value: "gpu": must be a standard resource for containers]'),
    ('- type: Container\n    min: {cpu: 100m}\n    max: {cpu: "1"}\n    maxLimitRequestRatio: {cpu: "20"}',
     'LimitRange "defaults" is invalid: spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "20": ratio 20 is '
     'greater than max/min = 10.000000'),
    ('- type: Container\n    default: {cpu: 500m}\n    defaultRequest: {cpu: 100m}\n    max: {cpu: "2"}', ""),
])
def test_limit_range_validation(limits: str, message: str) -> None:
    text = f"apiVersion: v1\nkind: LimitRange\nmetadata: {{name: defaults, namespace: team}}\nspec:\n  limits:\n  {limits}\n"
    assert _errors(text) == message


@pytest.mark.parametrize(("spec", "message"), [
    ("hard: {requests.cpu: \"1\", pods: \"1\"}\n  scopes: [BestEffort]",
     'ResourceQuota "q" is invalid: spec.scopes: Invalid value: ["BestEffort"]: unsupported scope applied to resource'),
    ("hard: {request.cpu: \"1\"}",
     'ResourceQuota "q" is invalid: [spec.hard[request.cpu]: Invalid value: "request.cpu": must be a standard resource '
     'type or fully qualified, spec.hard[request.cpu]: Invalid value: "request.cpu": must be a standard resource for '
     'quota]'),
    ("hard: {pods: \"-1\", services: 1500m}\n  scopeSelector:\n    matchExpressions:\n"
     "    - {scopeName: PriorityClass, operator: Gt, values: [high]}",
     'ResourceQuota "q" is invalid: [spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0, '
     'spec.hard[services]: Invalid value: "1500m": must be an integer, spec.scopeSelector.matchExpressions: Invalid '
     'value: {"MatchExpressions":[{"ScopeName":"PriorityClass","Operator":"Gt","Values":["high"]}]}: unsupported scope '
     'applied to resource, spec.scopeSelector.matchExpressions.operator: Invalid value: "Gt": not a valid selector '
     'operator]'),
    ("hard: {pods: \"4\"}\n  scopeSelector:\n    matchExpressions:\n    - {scopeName: Terminating, operator: In, "
     "values: [x]}\n    - {scopeName: NotTerminating, operator: Exists}",
     'ResourceQuota "q" is invalid: [spec.scopeSelector.matchExpressions.operator: Invalid value: "In": must be '
     "'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
     "ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity, "
     'spec.scopeSelector.matchExpressions: Invalid value: null: conflicting scopes]'),
    ("hard: {pods: \"10\", requests.cpu: \"4\", requests.nvidia.com/gpu: \"2\"}\n  scopeSelector:\n"
     "    matchExpressions:\n    - {scopeName: PriorityClass, operator: In, values: [high]}", ""),
])
def test_resource_quota_validation(spec: str, message: str) -> None:
    text = f"apiVersion: v1\nkind: ResourceQuota\nmetadata: {{name: q, namespace: team}}\nspec:\n  {spec}\n"
    assert _errors(text) == message


HPA = """\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
"""


@pytest.mark.parametrize(("spec", "minor", "message"), [
    ("  minReplicas: 0\n  maxReplicas: 10\n  metrics:\n  - type: External\n    external:\n      metric: {name: "
     "queue_depth}\n      target: {type: AverageValue, averageValue: \"30\"}", "1.36",
     'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1'),
    ("  minReplicas: 3\n  maxReplicas: 1", "1.36", "spec.maxReplicas: Invalid value: 1: must be greater than or equal "
                                                  "to `minReplicas`"),
    ("  maxReplicas: 0", "1.36", "[spec.maxReplicas: Required value: must be set and greater than 0, "
                                 "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`]"),
    ("  maxReplicas: 0", "1.34", "[spec.maxReplicas: Invalid value: 0: must be greater than 0, "
                                 "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`]"),
    ("  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {name: cpu, target: {type: Utilization, "
     "averageUtilization: 0}}\n  behavior:\n    scaleDown: {stabilizationWindowSeconds: 7200, policies: []}", "1.36",
     "[spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0, "
     "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 7200: must be less than or equal to 3600, "
     "spec.behavior.scaleDown.policies: Required value: must specify at least one Policy]"),
    ("  maxReplicas: 5\n  metrics:\n  - type: Pods\n    pods: {metric: {name: rps}, target: {type: Value}}", "1.36",
     "spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue"),
    ("  maxReplicas: 5", "1.36", ""),
])
def test_hpa_validation(spec: str, minor: str, message: str) -> None:
    found = _errors(HPA + spec, minor)
    assert found == (f'HorizontalPodAutoscaler.autoscaling "web" is invalid: {message}' if message else "")


def test_the_target_names_its_api_group_from_1_34() -> None:
    """kubernetes#132537 (v1.34): a Deployment's apiVersion must name its group; 1.33 did not look."""
    text = HPA.replace("apiVersion: apps/v1, ", "") + "  maxReplicas: 5"
    assert _errors(text, "1.34") == ('HorizontalPodAutoscaler.autoscaling "web" is invalid: spec.scaleTargetRef.'
                                     'apiVersion: Invalid value: "": apiVersion must specify API group')
    assert _errors(text, "1.33") == ""


# -- in explain and lint ---------------------------------------------------------------------------
def _run(*argv: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(argv), env=env)
    return code, env.out, env.err


BUNDLE = """\
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: default}
spec:
  limits:
  - type: Container
    max: {cpu: "1"}
    default: {cpu: "2"}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: compute, namespace: default}
spec:
  hard: {requests.cpu: "1", pods: "1"}
  scopes: [BestEffort]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 5
  maxReplicas: 3
"""


def test_refused_policies_do_not_act_in_explain_or_lint(tmp_path: Path) -> None:
    """The LimitRange would refuse the pods (a 2-cpu limit above its max), the quota would let
    one pod be created, the HPA would ask for 5 replicas: each is refused, so the Deployment's 2
    pods are created, without defaults, and fit."""
    (tmp_path / "bundle.yaml").write_text(BUNDLE)
    (tmp_path / "nodes.yaml").write_text(NODES)
    path, nodes = str(tmp_path / "bundle.yaml"), str(tmp_path / "nodes.yaml")
    code, out, err = _run(path, "--nodes", nodes, "-o", "json")
    placement = json.loads(out)["placements"][0]
    assert (placement["replicas"], placement["fit"], "failedCreate" in placement) == (2, 2, False)
    assert "horizontalPodAutoscaler" not in placement
    refusals = [line for line in err.splitlines() if line.startswith("error:")]
    assert sorted(line.split(": ")[3] for line in refusals) == [
        "HorizontalPodAutoscaler default/web", "LimitRange default/defaults", "ResourceQuota default/compute"]
    assert code == 2
    code, out, _ = _run("lint", path, "--nodes", nodes, "-o", "json")
    findings = json.loads(out)["findings"]
    assert [(f["rule"], f["object"]["kind"]) for f in findings] == [
        ("admission", "LimitRange"), ("admission", "ResourceQuota"), ("fits", "Deployment"),
        ("admission", "HorizontalPodAutoscaler")]
    assert findings[3]["message"] == ('HorizontalPodAutoscaler.autoscaling "web" is invalid: spec.maxReplicas: '
                                      'Invalid value: 3: must be greater than or equal to `minReplicas`')
    assert {f["message"] for f in findings} - {"fits: pool-a-1 ×2", "all 2 replicas fit: pool-a-1 ×2"} == \
        {line.split(": ", 4)[4] for line in refusals}

"""lint and explain agree (issue 39, item 5): a kind removed at every version is an error in lint
like any other removed version, saying what replaced it (no "skipped (no schema)"); a Pod bound
to a node by spec.nodeName that does not fit there is Unschedulable in both (exit 1); the
template of a workload whose controller creates no pod is marked in `-o json`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment, workers_yaml
from tests.support.copies import copy_names

# An old cluster-policy bundle, as charts of the PodSecurityPolicy era shipped them.
OLD_POLICIES = """\
apiVersion: policy/v1beta1
kind: PodSecurityPolicy
metadata:
  name: restricted
  annotations:
    seccomp.security.alpha.kubernetes.io/allowedProfileNames: runtime/default
spec:
  privileged: false
  allowPrivilegeEscalation: false
  requiredDropCapabilities: [ALL]
  runAsUser: {rule: MustRunAsNonRoot}
  seLinux: {rule: RunAsAny}
  supplementalGroups: {rule: MustRunAs, ranges: [{min: 1, max: 65535}]}
  fsGroup: {rule: MustRunAs, ranges: [{min: 1, max: 65535}]}
  volumes: [configMap, emptyDir, secret, persistentVolumeClaim]
---
apiVersion: settings.k8s.io/v1alpha1
kind: PodPreset
metadata:
  name: inject-database
  namespace: shop
spec:
  selector:
    matchLabels: {role: frontend}
  env:
  - name: DB_PORT
    value: "6379"
---
apiVersion: extensions/v1beta1
kind: Deployment
metadata: {name: legacy, namespace: shop}
spec:
  template:
    metadata: {labels: {app: legacy}}
    spec:
      containers: [{name: legacy, image: registry.example.com/legacy:0.9}]
"""

NODES = workers_yaml("4", "16Gi")


def debug_pod(cpu: str) -> str:
    """A debugging pod pinned to a node by hand, as `kubectl debug node/...` pods are."""
    return f"""\
apiVersion: v1
kind: Pod
metadata:
  name: node-debugger
  namespace: ops
spec:
  nodeName: worker-1
  hostPID: true
  containers:
  - name: debugger
    image: busybox:1.36
    command: ["sleep", "3600"]
    resources:
      requests: {{cpu: "{cpu}", memory: 1Gi}}
"""


def _run(*argv: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(argv), env=env)
    return code, env.out, env.err


def test_removed_kinds_are_errors_naming_what_replaced_them(tmp_path: Path) -> None:
    (tmp_path / "policies.yaml").write_text(OLD_POLICIES)
    code, out, _ = _run("lint", str(tmp_path / "policies.yaml"), "-o", "json")
    report = json.loads(out)
    assert code == 1
    by_kind = {f["object"]["kind"]: f for f in report["findings"]}
    assert {f["rule"] for f in report["findings"]} == {"unknown-api-version"}
    assert report["summary"]["skipped"] == 0 and report["summary"]["errors"] == 3
    assert by_kind["PodSecurityPolicy"]["message"] == (
        'no matches for kind "PodSecurityPolicy" in version "policy/v1beta1": Kubernetes 1.36 does not serve it '
        "(removed in Kubernetes 1.25, with no replacement API: Pod Security admission takes its place, set per "
        "namespace by the labels pod-security.kubernetes.io/enforce, warn and audit)")
    assert "removed in Kubernetes 1.20, with no replacement API" in by_kind["PodPreset"]["message"]
    assert by_kind["Deployment"]["message"].endswith("does not serve it (use apps/v1)")
    assert by_kind["PodSecurityPolicy"]["field"] == "apiVersion"


# A chart's policy bundle written for the wrong group, and an old dynamic-audit sink: no version of
# these kinds is served, and no CustomResourceDefinition can serve a group of Kubernetes' own.
WRONG_GROUPS = """\
apiVersion: policy/v1
kind: PodSecurityPolicy
metadata: {name: restricted}
spec:
  privileged: false
  seLinux: {rule: RunAsAny}
---
apiVersion: apps/v1
kind: PodSecurityPolicy
metadata: {name: privileged}
spec:
  privileged: true
---
apiVersion: auditregistration.k8s.io/v1alpha1
kind: AuditSink
metadata: {name: falco}
spec:
  policy: {level: RequestResponse, stages: [ResponseComplete]}
  webhook:
    clientConfig: {service: {namespace: falco, name: falco-k8saudit-webhook, path: /k8s-audit}}
---
apiVersion: apps/v1
kind: Rollout
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
"""


def test_a_builtin_group_serves_no_kind_it_does_not_have(tmp_path: Path) -> None:
    (tmp_path / "policies.yaml").write_text(WRONG_GROUPS)
    code, out, _ = _run("lint", str(tmp_path / "policies.yaml"), "-o", "json")
    report = json.loads(out)
    assert code == 1
    assert [f["rule"] for f in report["findings"]] == ["unknown-api-version"] * 4
    assert report["summary"]["skipped"] == 0 and report["summary"]["errors"] == 4
    messages = {(f["object"]["kind"], f["object"]["name"]): f["message"] for f in report["findings"]}
    assert messages[("PodSecurityPolicy", "restricted")] == (
        'no matches for kind "PodSecurityPolicy" in version "policy/v1": Kubernetes 1.36 does not serve it '
        "(removed in Kubernetes 1.25, with no replacement API: Pod Security admission takes its place, set per "
        "namespace by the labels pod-security.kubernetes.io/enforce, warn and audit)")
    assert messages[("PodSecurityPolicy", "privileged")].startswith(
        'no matches for kind "PodSecurityPolicy" in version "apps/v1": Kubernetes 1.36 does not serve it (removed '
        "in Kubernetes 1.25")
    assert messages[("AuditSink", "falco")].startswith(
        'no matches for kind "AuditSink" in version "auditregistration.k8s.io/v1alpha1": Kubernetes 1.36 does '
        "not serve it (removed in Kubernetes 1.19")
    assert messages[("Rollout", "web")] == \
        'no matches for kind "Rollout" in version "apps/v1": Kubernetes 1.36 does not serve it'
    assert [f["object"]["namespace"] for f in report["findings"]] == ["", "", "", "shop"]


@pytest.mark.parametrize(("cpu", "explain_code", "rule"), [("8", 1, "kubelet-rejected"), ("1", 0, "not-scheduled")])
def test_a_pinned_pod_is_the_same_verdict(tmp_path: Path, cpu: str, explain_code: int, rule: str) -> None:
    """A pod that names its node is no scheduler's: the node's kubelet admits it, or rejects it
    with its own reason and words, in explain and lint alike; no FailedScheduling event."""
    (tmp_path / "debug.yaml").write_text(debug_pod(cpu))
    (tmp_path / "nodes.yaml").write_text(NODES)
    pod, nodes = str(tmp_path / "debug.yaml"), str(tmp_path / "nodes.yaml")
    code, out, _ = _run(pod, "--nodes", nodes, "-o", "json", "--no-suggestions")
    assert code == explain_code
    trace = json.loads(out)
    assert trace["preFilter"] is None and trace["filter"] is None and trace["postFilter"] is None
    lint_code, lint_out, _ = _run("lint", pod, "--nodes", nodes, "-o", "json")
    [finding] = json.loads(lint_out)["findings"]
    assert (finding["rule"], lint_code) == (rule, explain_code)
    if rule == "kubelet-rejected":
        message = "Node didn't have enough resource: cpu, requested: 8000, used: 0, capacity: 4000"
        assert trace["result"] == {"status": "Failed", "selectedNodes": [], "message": f"Pod was rejected: {message}"}
        assert trace["kubelet"]["event"] == {"type": "Warning", "reason": "OutOfcpu", "from": "kubelet",
                                             "message": message}
        assert finding["severity"] == "error"
        assert (finding["details"]["reason"], finding["details"]["message"]) == ("OutOfcpu", message)
        assert finding["message"] == ("spec.nodeName is worker-1: the scheduler does not place this pod, and its "
                                      f"kubelet rejects it: the pod fails with reason OutOfcpu: {message}")
    else:
        assert trace["result"]["status"] == "Scheduled" and trace["result"]["suggestedHost"] == "worker-1"
        assert trace["kubelet"] == {"node": "worker-1", "admitted": True}
        assert finding["message"] == "spec.nodeName is worker-1: the scheduler does not place this pod; its kubelet " \
                                     "admits it"


def test_a_pinned_pod_of_a_set_is_not_counted_twice(tmp_path: Path) -> None:
    """With other pods in the set, the bound pod joins the pool as `kubectl apply` creates it; its
    own check is against the pool without itself (3 cpu of 4: it fits, once)."""
    web = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ops}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27, resources: {requests: {cpu: 500m}}}]
"""
    (tmp_path / "set.yaml").write_text(debug_pod("3") + "---\n" + web)
    (tmp_path / "nodes.yaml").write_text(NODES)
    code, out, _ = _run("lint", str(tmp_path / "set.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), "-o", "json")
    rules = [f["rule"] for f in json.loads(out)["findings"]]
    assert code == 0 and rules == ["not-scheduled", "fits"]


@pytest.mark.parametrize("replicas", [1, 2])
def test_a_pinned_pod_of_a_set_its_kubelet_rejects_fails_both(tmp_path: Path, replicas: int) -> None:
    """Beside a workload, the bound pod joins the cluster instead of being explained; when its
    kubelet rejects it, a pod the set creates fails: explain says so on stderr and exits 1, as
    lint's kubelet-rejected error does (one copy: the workload's pod explained alone; two: a
    batch)."""
    web = f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: ops}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: web, image: nginx:1.27, resources: {{requests: {{cpu: 500m}}}}}}]
"""
    (tmp_path / "set.yaml").write_text(debug_pod("8") + "---\n" + web)
    (tmp_path / "nodes.yaml").write_text(NODES)
    pod, nodes = str(tmp_path / "set.yaml"), str(tmp_path / "nodes.yaml")
    code, _, err = _run(pod, "--nodes", nodes, "--no-suggestions")
    assert "Pod ops/node-debugger: spec.nodeName is worker-1: its kubelet rejects it (OutOfcpu" in err
    lint_code, lint_out, _ = _run("lint", pod, "--nodes", nodes, "-o", "json")
    rules = [f["rule"] for f in json.loads(lint_out)["findings"]]
    assert rules == ["kubelet-rejected", "fits"] and (code, lint_code) == (1, 1)
    code, _, _ = _run(pod, "--nodes", nodes, "-o", "json")
    assert code == 1


def test_idle_template_is_marked_in_json(tmp_path: Path) -> None:
    standby = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: standby, namespace: shop}
spec:
  replicas: 0
  selector: {matchLabels: {app: standby}}
  template:
    metadata: {labels: {app: standby}}
    spec:
      containers: [{name: app, image: registry.example.com/standby:1.0, resources: {requests: {cpu: 500m}}}]
"""
    (tmp_path / "app.yaml").write_text(standby + "---\n" + standby.replace("standby", "web").replace(
        "replicas: 0", "replicas: 2"))
    (tmp_path / "nodes.yaml").write_text(NODES)
    code, out, _ = _run(str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), "-o", "json")
    doc = json.loads(out)
    assert code == 0
    marks = {i["pod"]["name"]: i.get("notCreated") for i in doc["items"]}
    web = standby.replace("standby", "web").replace("replicas: 0", "replicas: 2")
    assert marks == {copy_names(standby, 1)[0]: "spec.replicas is 0: the Deployment controller creates no pod",
                     **{name: None for name in copy_names(web, 2)}}

"""A pod that names its node (spec.nodeName) is admitted or rejected by that node's kubelet, not
the scheduler (issue 39, audit): pkg/kubelet/lifecycle/predicate.go's checks and words, the
same in explain and lint, and no FailedScheduling event. Files shaped like the pods people pin
by hand: a `kubectl debug node/...` pod, a node-local cache, an agent pinned per node."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.copies import copy_names

NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  labels: {kubernetes.io/hostname: gpu-1, kubernetes.io/os: linux, topology.kubernetes.io/zone: us-east-1a,
           node.kubernetes.io/instance-type: g5.xlarge}
spec:
  taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "3", nvidia.com/gpu: "1"}
  allocatable: {cpu: "4", memory: 16Gi, pods: "3", nvidia.com/gpu: "1"}
---
apiVersion: v1
kind: Node
metadata:
  name: drained-1
  labels: {kubernetes.io/hostname: drained-1, kubernetes.io/os: linux, topology.kubernetes.io/zone: us-east-1b}
spec:
  unschedulable: true
  taints:
  - {key: node.kubernetes.io/unschedulable, effect: NoSchedule}
status:
  capacity: {cpu: "2", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "2", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: db-1
  labels: {kubernetes.io/hostname: db-1, kubernetes.io/os: linux, topology.kubernetes.io/zone: us-east-1b}
spec:
  taints:
  - {key: dedicated, value: postgres, effect: NoExecute}
status:
  capacity: {cpu: "2", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "2", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: exporter-1, namespace: monitoring}
spec:
  nodeName: gpu-1
  priority: 0
  tolerations: [{operator: Exists}]
  containers:
  - name: exporter
    image: nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5
    ports: [{containerPort: 9400, hostPort: 9400}]
    resources: {requests: {cpu: "1", memory: 4Gi}, limits: {cpu: "1", memory: 4Gi}}
"""


def pinned(name: str, node: str, extra: str = "", container: str = "") -> str:
    """A pod pinned by hand, as `kubectl debug node/NODE` makes one."""
    return f"""\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: ops
spec:
  nodeName: {node}{extra}
  containers:
  - name: debugger
    image: busybox:1.36
    command: ["sleep", "3600"]{container}
"""


def _run(tmp_path: Path, pod: str, *extra: str) -> tuple[int, dict, str]:
    (tmp_path / "pod.yaml").write_text(pod)
    (tmp_path / "nodes.yaml").write_text(NODES)
    env = TestEnvironment()
    code = main([str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), "-o", "json", *extra], env=env)
    return code, json.loads(env.out) if env.out.strip() else {}, env.err


def _lint(tmp_path: Path) -> tuple[int, list[dict]]:
    env = TestEnvironment()
    code = main(["lint", str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), "-o", "json"], env=env)
    return code, json.loads(env.out)["findings"]


@pytest.mark.parametrize("node", ["drained-1", "gpu-1"])
def test_a_cordon_and_a_no_schedule_taint_are_the_schedulers_not_the_kubelets(tmp_path: Path, node: str) -> None:
    code, trace, _ = _run(tmp_path, pinned("node-debugger", node))
    assert code == 0
    assert trace["result"]["status"] == "Scheduled" and trace["result"]["suggestedHost"] == node
    assert trace["kubelet"] == {"node": node, "admitted": True}
    assert trace["preEnqueue"] == [] and trace["filter"] is None and trace["search"] is None
    code, findings = _lint(tmp_path)
    assert code == 0 and [f["rule"] for f in findings] == ["not-scheduled"]


@pytest.mark.parametrize(("node", "extra", "container", "reason", "message"), [
    ("db-1", "", "", "TaintToleration",
     "Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate"),
    ("drained-1", "\n  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}", "", "NodeAffinity",
     "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"),
    ("gpu-1", "", "\n    ports: [{containerPort: 9400, hostPort: 9400}]", "NodePorts",
     "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports"),
    ("gpu-1", "", "\n    resources: {requests: {memory: 13Gi}}", "OutOfmemory",
     "Node didn't have enough resource: memory, requested: 13958643712, used: 4294967296, capacity: 17179869184"),
    ("drained-1", "\n  os: {name: windows}", "", "PodOSNotSupported",
     "Failed to admit pod as the OS field doesn't match node OS"),
    ("drained-1", "\n  securityContext: {supplementalGroupsPolicy: Strict}", "", "SupplementalGroupsPolicyNotSupported",
     "SupplementalGroupsPolicy=Strict is not supported in this node"),
])
def test_the_kubelet_rejects_with_its_own_reason_and_words(tmp_path: Path, node: str, extra: str, container: str,
                                                          reason: str, message: str) -> None:
    code, trace, _ = _run(tmp_path, pinned("node-debugger", node, extra, container), "--no-suggestions")
    assert code == 1
    assert trace["result"] == {"status": "Failed", "selectedNodes": [], "message": f"Pod was rejected: {message}"}
    assert trace["kubelet"]["event"] == {"type": "Warning", "reason": reason, "from": "kubelet", "message": message}
    assert trace["kubelet"]["status"] == {"phase": "Failed", "reason": reason, "message": f"Pod was rejected: {message}"}
    assert "FailedScheduling" not in json.dumps(trace)
    code, findings = _lint(tmp_path)
    assert code == 1 and [(f["rule"], f["details"]["reason"]) for f in findings] == [("kubelet-rejected", reason)]


def test_the_first_failure_is_the_verdict_and_pods_come_first(tmp_path: Path) -> None:
    """gpu-1 allows 3 pods and runs 1: two debuggers fit in count, but the node's resources come
    first among AdmissionCheck's failures (cpu before its node selector)."""
    extra = "\n  nodeSelector: {disktype: ssd}"
    code, trace, _ = _run(tmp_path, pinned("node-debugger", "gpu-1", extra, "\n    resources: {requests: {cpu: 3500m}}"))
    assert trace["kubelet"]["event"]["reason"] == "OutOfcpu"
    assert trace["kubelet"]["event"]["message"] == ("Node didn't have enough resource: cpu, requested: 3500, used: 1000, "
                                                    "capacity: 4000")


def test_an_extended_resource_the_node_lacks_is_not_the_kubelets_to_refuse(tmp_path: Path) -> None:
    """removeMissingExtendedResources: the kubelet drops requests of extended resources the
    node does not have (a GPU asked of a CPU node), and admits the pod."""
    code, trace, _ = _run(tmp_path, pinned("trainer", "drained-1", "",
                                           "\n    resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}"))
    assert code == 0 and trace["kubelet"]["admitted"] is True
    code, trace, _ = _run(tmp_path, pinned("trainer", "gpu-1", "",
                                           "\n    resources: {requests: {nvidia.com/gpu: 2}, limits: {nvidia.com/gpu: 2}}"),
                          "--no-suggestions")
    assert trace["kubelet"]["event"]["reason"] == "OutOfnvidia.com/gpu"
    assert trace["kubelet"]["event"]["message"] == ("Node didn't have enough resource: nvidia.com/gpu, requested: 2, "
                                                    "used: 0, capacity: 1")


def test_the_os_label_of_the_pod_is_checked(tmp_path: Path) -> None:
    pod = pinned("node-debugger", "drained-1").replace("namespace: ops", "namespace: ops\n  labels: {kubernetes.io/os: "
                                                                          "windows}")
    code, trace, _ = _run(tmp_path, pod)
    assert trace["kubelet"]["event"]["reason"] == "PodOSSelectorNodeLabelDoesNotMatch"
    assert trace["kubelet"]["event"]["message"] == ("Failed to admit pod as the `kubernetes.io/os` label doesn't match "
                                                    "node label")


def test_a_critical_pod_is_admitted_by_evicting_pods(tmp_path: Path) -> None:
    """CriticalPodAdmissionHandler: a system-node-critical pod short of memory evicts what frees
    it (the exporter, the one pod a critical pod may preempt); one that asks for more than the
    node's pods hold is rejected as the kubelet words it."""
    critical = "\n  priorityClassName: system-node-critical"
    code, trace, _ = _run(tmp_path, pinned("csi-node", "gpu-1", critical, "\n    resources: {requests: {memory: 14Gi}}"))
    assert code == 0 and trace["kubelet"] == {"node": "gpu-1", "admitted": True, "evicted": ["monitoring/exporter-1"]}
    code, findings = _lint(tmp_path)
    assert [f["message"] for f in findings] == [
        "spec.nodeName is gpu-1: the scheduler does not place this pod; its kubelet admits it, once it evicts "
        "monitoring/exporter-1 (a critical pod)"]
    code, trace, _ = _run(tmp_path, pinned("csi-node", "gpu-1", critical, "\n    resources: {requests: {memory: 30Gi}}"))
    assert code == 1 and trace["kubelet"]["event"]["reason"] == "UnexpectedAdmissionError"
    # 18Gi short (30Gi asked, 12Gi free), the exporter frees 4Gi: 14Gi left
    assert trace["kubelet"]["event"]["message"] == (
        "Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods "
        "to preempt: no set of running pods found to reclaim resources: [(res: memory, q: 15032385536), ]")


def test_a_workloads_pinned_copies_are_each_admitted(tmp_path: Path) -> None:
    """A Deployment whose template names a node: its controller's pods bypass the scheduler, and
    the kubelet admits the first two (3 pods allowed, the exporter runs) and rejects the next."""
    deployment = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: cache, namespace: ops}
spec:
  replicas: 3
  selector: {matchLabels: {app: cache}}
  template:
    metadata: {labels: {app: cache}}
    spec:
      nodeName: gpu-1
      containers: [{name: redis, image: redis:7.2, resources: {requests: {cpu: 500m}}}]
"""
    code, doc, _ = _run(tmp_path, deployment, "--no-suggestions")
    [placement] = doc["placements"]
    assert code == 1 and [p["status"] for p in placement["pods"]] == ["Scheduled", "Scheduled", "Failed"]
    assert doc["items"][-1]["kubelet"]["event"]["message"] == ("Node didn't have enough resource: pods, requested: 1, "
                                                               "used: 3, capacity: 3")
    code, findings = _lint(tmp_path)
    assert [f["rule"] for f in findings] == ["kubelet-rejected"]
    third = copy_names(deployment, 3)[2]
    assert findings[0]["message"].startswith(f"2 of 3 replicas run (gpu-1 ×2); replica {third}: "
                                             "spec.template.spec.nodeName is gpu-1: the scheduler does not place this "
                                             "pod, and its kubelet rejects it: the pod fails with reason OutOfpods")


def test_the_view_says_what_the_kubelet_does(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(pinned("node-debugger", "db-1"))
    (tmp_path / "nodes.yaml").write_text(NODES)
    env = TestEnvironment()
    code = main([str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "nodes.yaml")], env=env)
    assert code == 1
    text = " ".join(env.out.split())
    assert "Pod ops/node-debugger (spec.nodeName db-1): Failed" in text
    assert "The kubelet of db-1 rejects it: the pod fails (phase Failed, reason TaintToleration)." in text
    assert ("Warning TaintToleration kubelet Predicate TaintToleration failed: node(s) had taints that the pod "
            "didn't tolerate") in text
    assert "FailedScheduling" not in text


def test_a_bound_pod_of_a_set_its_kubelet_rejects_takes_no_room(tmp_path: Path) -> None:
    """A set's bound pods are created in its order and their kubelet admits or rejects each: the
    first debugger asks for more than db-1 has and fails (phase Failed: no room taken), the
    second is admitted, and a pending pod after them finds the room the first one left."""
    tolerates = "\n  tolerations: [{key: dedicated, operator: Exists}]"
    first = pinned("debug-a", "db-1", tolerates, "\n    resources: {requests: {cpu: '3'}}")
    second = pinned("debug-b", "db-1", tolerates, "\n    resources: {requests: {cpu: '1'}}")
    api = """\
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: ops}
spec:
  nodeSelector: {kubernetes.io/hostname: db-1}
  tolerations: [{key: dedicated, operator: Exists}]
  containers: [{name: api, image: registry.example.com/api:2.4, resources: {requests: {cpu: 1}}}]
"""
    code, trace, err = _run(tmp_path, "---\n".join([first, second, api]))
    assert ("pod.yaml: document 1: Pod ops/debug-a: spec.nodeName is db-1: its kubelet rejects it (OutOfcpu: Node "
            "didn't have enough resource: cpu, requested: 3000, used: 0, capacity: 2000): the pod fails, and takes no "
            "room") in err
    # debug-b's 1 and its 1 of 2 cpu; exit 1: a pod the set creates fails (debug-a), as lint says it
    assert code == 1 and trace["result"]["suggestedHost"] == "db-1"
    code, findings = _lint(tmp_path)
    assert [(f["object"]["name"], f["rule"]) for f in findings] == [
        ("debug-a", "kubelet-rejected"), ("debug-b", "not-scheduled"), ("api", "fits")]
    assert findings[0]["details"]["message"] == ("Node didn't have enough resource: cpu, requested: 3000, used: 0, "
                                                 "capacity: 2000")


def test_a_daemonset_whose_template_names_a_node(tmp_path: Path) -> None:
    """Its one pod, for that node (cordoned: the controller tolerates it), bypasses the
    scheduler: the node's kubelet rejects the pod (3.5 cpu of 2), and lint says it alike."""
    agent = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: gpu-agent, namespace: ops}
spec:
  selector: {matchLabels: {app: gpu-agent}}
  template:
    metadata: {labels: {app: gpu-agent}}
    spec:
      nodeName: drained-1
      containers: [{name: agent, image: registry.example.com/gpu-agent:1.2, resources: {requests: {cpu: "3500m"}}}]
"""
    code, doc, _ = _run(tmp_path, agent, "--no-suggestions")
    assert [p["status"] for p in doc["placements"][0]["pods"]] == ["Failed"]
    assert doc["items"][0]["kubelet"]["event"]["reason"] == "OutOfcpu"
    code, findings = _lint(tmp_path)
    assert code == 1 and [(f["rule"], f["details"]["reason"]) for f in findings] == [("kubelet-rejected", "OutOfcpu")]

"""The chain of a pod Volcano leaves pending (`kexplain.app.volcano_chain`, issue 93 item 5): `kexplain POD`
for a Volcano pod with CA's node groups or Karpenter's NodePools runs them over the pass its session
leaves, its job's pending pods each as any pending pod, with the PodScheduled condition Volcano wrote."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT

VOLCANO = ROOT / "fixtures" / "volcano"
GANG = [str(VOLCANO / "gang-pod.yaml"), "--nodes", str(VOLCANO / "gang-cluster.yaml")]
GROUPS = ["--node-groups", str(VOLCANO / "node-groups.yaml")]
NODEPOOLS = ["--nodes", str(ROOT / "fixtures" / "karpenter" / "nodepools.yaml")]

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: small, labels: {kubernetes.io/hostname: small}}
status:
  capacity: {cpu: "2", memory: 8Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: big, namespace: default, creationTimestamp: "2026-01-01T00:00:01Z"}
spec: {minMember: 2, queue: default}
---
"""
POD = """
apiVersion: v1
kind: Pod
metadata:
  name: big-{i}
  namespace: default
  creationTimestamp: "2026-01-01T00:00:0{i}Z"
  annotations: {{scheduling.k8s.io/group-name: big}}
spec:
  schedulerName: volcano
  containers: [{{name: main, image: i, resources: {{requests: {{cpu: "3", memory: 1Gi}}}}}}]
"""


def trace_of(*args: str) -> tuple[dict, int]:
    env = TestEnvironment()
    code = main([*args, "-o", "json"], env)
    return json.loads(env.out), code


def outcomes(doc: dict) -> dict[str, str]:
    return {f"{p['namespace']}/{p['name']}": p["outcome"] for p in doc["pods"]}


def test_ca_scales_up_for_every_pending_pod_of_the_job(tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text(CLUSTER + POD.format(i=0))
    (tmp_path / "pod.yaml").write_text(POD.format(i=1))
    trace, code = trace_of(str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), *GROUPS)
    assert code == 1 and trace["result"]["status"] == "Unschedulable"
    assert outcomes(trace["autoscaler"]) == {"default/big-0": "TriggeredScaleUp", "default/big-1": "TriggeredScaleUp"}
    assert trace["autoscalers"][0]["scaleUps"] == [{"nodeGroup": "cpu4", "currentSize": 0, "newSize": 2,
                                                    "maxSize": 3}]
    assert "neither knows the gang (minMember 2)" in trace["volcano"]["chain"]


def test_ca_does_not_list_the_tasks_volcano_calls_schedulable_and_packs_the_last_one() -> None:
    """The gang's two placed tasks are `Schedulable` (not listed); the third fits node-b alone: no scale-up,
    though Volcano needs room for all three at once."""
    trace, _ = trace_of(*GANG, *GROUPS)
    assert outcomes(trace["autoscaler"]) == {"default/train-0": "NotListedAsUnschedulable",
                                             "default/train-1": "NotListedAsUnschedulable",
                                             "default/train-2": "FilteredOut"}
    env = TestEnvironment()
    main([*GANG, *GROUPS], env)
    assert "note: the Cluster Autoscaler and Karpenter see the pods of PodGroup default/train" in env.out
    assert "Pod default/train-2: CA finds room for it on an existing node" in env.out


def test_a_schedulable_task_is_said_passed_over_for_its_condition() -> None:
    """CA's lister passes a `Schedulable` task over for its PodScheduled reason, not for gates or a
    nomination: the document says which, and the text says the same."""
    trace, _ = trace_of(*GANG, *GROUPS)
    said = {p["name"]: p.get("unlistedBecause") for p in trace["autoscaler"]["pods"]}
    assert said["train-0"] == "its PodScheduled condition's reason is Schedulable, not Unschedulable"
    env = TestEnvironment()
    main([*GANG, *GROUPS], env)
    text = " ".join(env.out.split())
    assert "not counted as unschedulable (its PodScheduled condition's reason is Schedulable, not Unschedulable)" in text
    assert "scheduling gates, or a nominated node" not in text


def test_karpenter_sees_the_jobs_pods_as_any_pending_pods() -> None:
    trace, _ = trace_of(*GANG, *NODEPOOLS)
    results = {p["pod"]: p["result"] for p in trace["karpenter"]["pods"]}
    assert results == {"default/train-0": "NotProvisionable", "default/train-1": "NotProvisionable",
                       "default/train-2": "ExistingNode"}
    assert [a["autoscaler"] for a in trace["autoscalers"]] == ["Karpenter"]


def test_without_an_autoscaler_no_section_and_the_page_has_it_with_one(tmp_path: Path) -> None:
    trace, _ = trace_of(*GANG)
    assert "autoscaler" not in trace and "chain" not in trace["volcano"]
    page = tmp_path / "page.html"
    main([*GANG, *GROUPS, "--html", str(page)], TestEnvironment())
    html = page.read_text()
    assert "Cluster autoscaler" in html and "neither knows the gang" in html

"""`kexplain JOB` for a job Kueue answers for (suggest/kueue_held.py): a held job gets Kueue's
verified fixes, those `kexplain kueue` gives, not its template's (the flavor's labels and
tolerations would change them); a started job's fix of a nodeSelector entry its flavor put there
edits the ResourceFlavor, not a path the Job does not have."""
from __future__ import annotations

import json

from kexplain.cli.app import main
from kexplain.suggest.kueue_held import held, in_flavor
from kexplain.suggest.verify import Suggestion, Verification
from tests.support import kueue_scenes
from tests.support.cli_helpers import TestEnvironment


def run(*args: str) -> tuple[int, str]:
    env = TestEnvironment(width=100)
    code = main(list(args), env)
    return code, env.out


def test_a_held_job_gets_kueues_fixes_not_its_templates(tmp_path) -> None:
    cluster = kueue_scenes.cluster(tmp_path)
    job = kueue_scenes.jobs(tmp_path, "job.yaml", 3)
    code, out = run("explain", job, "--nodes", cluster, "-o", "json")
    doc = json.loads(out)
    answer = doc["placements"][0]["kueue"]
    assert code == 1 and answer["verdict"] == "Pending"
    assert not doc["items"][0].get("suggestions")       # the template's toleration: the flavor brings it
    kueue_doc = json.loads(run("kueue", job, "--nodes", cluster, "-o", "json")[1])
    assert [s["change"] for s in answer["suggestions"]] == [s["change"] for s in kueue_doc["suggestions"]]
    assert answer["suggestions"][0]["kind"] == "raise-nominal-quota"
    text = " ".join(run("explain", job, "--nodes", cluster)[1].split())
    assert "Raise ClusterQueue ml-cq's nominalQuota of cpu in flavor a100 from 4 to 6" in text
    assert "without fixes of its own" in text and "add a toleration" not in text


def test_no_fixes_are_sought_without_suggestions(tmp_path) -> None:
    cluster = kueue_scenes.cluster(tmp_path)
    doc = json.loads(run("explain", kueue_scenes.jobs(tmp_path, "job.yaml", 3), "--nodes", cluster, "-o", "json",
                         "--no-suggestions")[1])
    assert "suggestions" not in doc["placements"][0]["kueue"]


def test_a_flavors_node_label_is_fixed_in_the_resource_flavor(tmp_path) -> None:
    cluster = kueue_scenes.cluster(tmp_path, label="h100")          # no node has it
    doc = json.loads(run("explain", kueue_scenes.jobs(tmp_path, "job.yaml", 2), "--nodes", cluster, "-o", "json")[1])
    assert doc["placements"][0]["kueue"]["verdict"] == "Admitted"
    fixes = doc["items"][0]["suggestions"]
    first = fixes[0]
    assert first["target"] == "ResourceFlavor a100"
    assert first["change"] == [{"op": "remove", "object": {"kind": "ResourceFlavor", "name": "a100"},
                                "path": "/spec/nodeLabels/gpu.example.com~1model"}]
    assert "from ResourceFlavor a100" in first["description"]
    assert not any(op["object"]["kind"] == "Pod" and op.get("path", "").startswith("/spec/nodeSelector/")
                   for s in fixes for op in s["change"])


def _suggestion(*ops: dict) -> Suggestion:
    words = "; ".join(f"remove the nodeSelector entry {op['path'].rsplit('/', 1)[1]}=v" for op in ops)
    return Suggestion("remove-node-selector", "pod ml/p", words, tuple(ops), 1, ("n1",),
                      Verification("Scheduled", "n1", ("n1",), 1, True))


def test_only_the_entries_a_flavor_put_there_move_to_it() -> None:
    pod_op = {"op": "remove", "object": {"kind": "Pod", "namespace": "ml", "name": "p"}, "path": "/spec/nodeSelector/own"}
    flavor_op = {**pod_op, "path": "/spec/nodeSelector/zone"}
    s = in_flavor(_suggestion(pod_op, flavor_op), {"zone": ("v", ["f1"])})
    assert s.change == (pod_op, {"op": "remove", "object": {"kind": "ResourceFlavor", "name": "f1"},
                                 "path": "/spec/nodeLabels/zone"})
    assert s.target == "pod ml/p"       # the pod's own entry still edited in the pod
    assert s.description.startswith("remove the nodeSelector entry own=v; remove the node label zone=v from "
                                    "ResourceFlavor f1")
    untouched = _suggestion(pod_op)
    assert in_flavor(untouched, {"zone": ("v", ["f1"])}) is untouched


def test_held() -> None:
    assert held({"verdict": "Pending"}) and held({"verdict": "Admitted", "startError": "conflict"})
    assert not held({"verdict": "Admitted"}) and not held(None)


def test_a_fix_another_held_job_would_take_first_is_said(tmp_path) -> None:
    cluster = kueue_scenes.cluster(tmp_path)
    jobs = kueue_scenes.jobs(tmp_path, "jobs.yaml", 3, 3)
    doc = json.loads(run("explain", jobs, "--nodes", cluster, "-o", "json")[1])
    first, second = (p["kueue"] for p in doc["placements"])
    waits = [s for s in second["suggestions"] if not s["verified"]["admits"]]
    assert [(s["kind"], s["verified"]["waitsBehind"]) for s in waits] == [("raise-nominal-quota", [first["workload"]])]
    assert not [s for s in first["suggestions"] if not s["verified"]["admits"]]
    text = " ".join(run("explain", jobs, "--nodes", cluster)[1].split())
    assert f"admits {first['workload']} first; {second['workload']} would still wait behind it" in text


POD = """apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: ml
  labels: {kueue.x-k8s.io/queue-name: ml-q}
spec:
  schedulingGates: [{name: kueue.x-k8s.io/admission}]
  containers:
  - {name: main, image: x, resources: {requests: {cpu: "2"}}}
"""


def test_a_plain_pods_flavor_label_is_fixed_in_the_resource_flavor(tmp_path) -> None:
    """A Pod Kueue admitted and ungated, explained alone: the nodeSelector entry is its flavor's
    (the Pod as written has none), so the fix edits the ResourceFlavor."""
    cluster = kueue_scenes.cluster(tmp_path, label="h100")          # no node has it
    pod = tmp_path / "pod.yaml"
    pod.write_text(POD)
    doc = json.loads(run("explain", str(pod), "--nodes", cluster, "-o", "json")[1])
    assert doc["kueue"]["verdict"] == "Admitted"
    fixes = doc["suggestions"]
    assert fixes[0]["target"] == "ResourceFlavor a100"
    assert fixes[0]["change"] == [{"op": "remove", "object": {"kind": "ResourceFlavor", "name": "a100"},
                                   "path": "/spec/nodeLabels/gpu.example.com~1model"}]
    assert not any(op["object"]["kind"] == "Pod" and op.get("path", "").startswith("/spec/nodeSelector/")
                   for s in fixes for op in s["change"])
    text = " ".join(run("explain", str(pod), "--nodes", cluster)[1].split())
    assert "remove the node label gpu.example.com/model=h100 from ResourceFlavor a100" in text
    assert "remove the nodeSelector entry" not in text


def test_a_replaced_flavor_entry_is_replaced_in_the_flavor() -> None:
    op = {"op": "replace", "object": {"kind": "Pod", "namespace": "ml", "name": "p"},
          "path": "/spec/nodeSelector/zone", "value": "b"}
    s = in_flavor(Suggestion("k", "pod ml/p", "nodeSelector zone=b instead of a", (op,), 1, ("n1",),
                             Verification("Scheduled", "n1", ("n1",), 1, True)), {"zone": ("a", ["f1"])})
    assert s.change == ({"op": "replace", "object": {"kind": "ResourceFlavor", "name": "f1"},
                         "path": "/spec/nodeLabels/zone", "value": "b"},)
    assert s.target == "ResourceFlavor f1"
    assert s.description.startswith("nodeSelector zone=b instead of a, set in ResourceFlavor f1's nodeLabels")


GPU_CLUSTER = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: gpu}
spec:
  nodeLabels: {node.kubernetes.io/instance-type: p3.2xlarge}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: gpu
      resources: [{name: cpu, nominalQuota: "16"}, {name: memory, nominalQuota: 64Gi}, {name: nvidia.com/gpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
"""
GPU_POD = """apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: default, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  schedulingGates: [{name: kueue.x-k8s.io/admission}]
  containers:
  - name: trainer
    image: trainer:1.0
    resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}
"""


def test_a_node_groups_selector_fix_of_a_flavor_entry_edits_the_flavor(tmp_path) -> None:
    """CA's fix selecting a node group's template (another instance type) replaces the value the
    flavor put in the Pod's nodeSelector: in the ResourceFlavor, not in the Pod."""
    from tests.support.paths import FIXTURES
    (tmp_path / "cluster.yaml").write_text(GPU_CLUSTER)
    (tmp_path / "pod.yaml").write_text(GPU_POD)
    args = ("explain", str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "cluster.yaml"),
            "--node-groups", str(FIXTURES / "autoscaler" / "nodegroups.yaml"))
    doc = json.loads(run(*args, "-o", "json")[1])
    [fix] = [s for s in doc["suggestions"] if "instance-type" in s["description"]]
    assert fix["target"] == "ResourceFlavor gpu"
    assert fix["change"] == [{"op": "replace", "object": {"kind": "ResourceFlavor", "name": "gpu"},
                              "path": "/spec/nodeLabels/node.kubernetes.io~1instance-type", "value": "g4dn.2xlarge"}]
    text = " ".join(run(*args)[1].split())
    assert "g4dn.2xlarge instead of p3.2xlarge, set in ResourceFlavor gpu's nodeLabels" in text

"""Controllers as they behave: a workload scaled to zero or a suspended Job creates no pod (its
template is explained, taking no room), and a pod's generic ephemeral volume gets the claim the
ephemeral volume controller creates (`kexplain.controllers.workloads.idle_reason`,
`kexplain.controllers.ephemeral`). Files shaped like the ones people apply."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.explain.inputs import load
from kexplain.explain.request import Request
from kexplain.lint.linter import LintOptions, Severity, default_suggester, lint
from kexplain.controllers.ephemeral import create_volume_claims
from kexplain.controllers.workloads import idle_reason
from tests.support.cli_helpers import TestEnvironment, node_yaml
from tests.support.copies import copy_names

# One node with room for exactly three pods of 1 cpu.
NODE = node_yaml("node-1", "eu-west-1a", "3", "8Gi")
DEFAULT_CLASS = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: gp3
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
"""


def deployment(name: str, replicas: int, cpu: str = "1") -> str:
    return f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: shop, labels: {{app.kubernetes.io/name: {name}}}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app.kubernetes.io/name: {name}}}}}
  template:
    metadata: {{labels: {{app.kubernetes.io/name: {name}}}}}
    spec:
      containers:
      - name: {name}
        image: registry.example.com/{name}:1.4.2
        ports: [{{containerPort: 8080}}]
        resources: {{requests: {{cpu: "{cpu}", memory: 256Mi}}, limits: {{memory: 512Mi}}}}
"""


def job(name: str, cpu: str = "1", **spec: object) -> str:
    extra = "".join(f"  {k}: {json.dumps(v)}\n" for k, v in spec.items())
    return f"""apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: shop}}
spec:
{extra}  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: report
        image: registry.example.com/report:2.0
        args: [--since, 24h]
        resources: {{requests: {{cpu: "{cpu}", memory: 128Mi}}}}
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run(*argv: str) -> tuple[int, str, str]:
    env = TestEnvironment(width=200)
    code = main(list(argv), env=env)
    return code, env.out, env.err


# -- which workloads create no pod ------------------------------------------------------------------
@pytest.mark.parametrize("obj, reason", [
    ({"kind": "Deployment", "spec": {"replicas": 0}}, "spec.replicas is 0: the Deployment controller creates no pod"),
    ({"kind": "StatefulSet", "spec": {"replicas": 0}}, "spec.replicas is 0: the StatefulSet controller"),
    ({"kind": "ReplicaSet", "spec": {"replicas": 0}}, "spec.replicas is 0: the ReplicaSet controller"),
    ({"kind": "Deployment", "spec": {}}, ""),
    ({"kind": "Deployment", "spec": {"replicas": 2}}, ""),
    ({"kind": "Job", "spec": {"parallelism": 0}}, "spec.parallelism is 0: the Job controller creates no pod"),
    ({"kind": "Job", "spec": {"completions": 0}}, "spec.completions is 0: the Job controller creates no pod"),
    ({"kind": "Job", "spec": {"suspend": True, "parallelism": 3}},
     "spec.suspend is true: the Job controller creates no pod until the Job is resumed"),
    ({"kind": "Job", "spec": {"suspend": False}}, ""),
    ({"kind": "CronJob", "spec": {"suspend": True, "jobTemplate": {"spec": {}}}},
     "spec.suspend is true: the CronJob controller creates no Job"),
    ({"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"suspend": True}}}},
     "spec.jobTemplate.spec.suspend is true: the Job controller"),
    ({"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"parallelism": 0}}}}, "spec.jobTemplate.spec.parallelism is 0"),
    ({"kind": "DaemonSet", "spec": {}}, ""),
    ({"kind": "Pod", "spec": {}}, ""),
])
def test_idle_reason(obj, reason):
    got = idle_reason(obj)
    assert got.startswith(reason) and bool(got) == bool(reason)


# -- a workload scaled to zero takes no room --------------------------------------------------------
def test_a_deployment_scaled_to_zero_leaves_its_room_to_the_next(tmp_path):
    nodes = write(tmp_path, "nodes.yaml", NODE)
    app = write(tmp_path, "app.yaml", "---\n".join([deployment("worker", 0), deployment("web", 3)]))
    code, out, _ = run(app, "--nodes", nodes)
    assert code == 0
    assert "=== Deployment shop/web (priority 0): 3 of 3 replicas fit" in out
    assert "=== Deployment shop/worker (priority 0): spec.replicas is 0: the Deployment controller creates no pod; " \
           "its template, explained without taking room:" in out
    # lint and explain agree
    report = lint(LintOptions((app,), (nodes,)))
    assert [(f.obj.name, f.rule) for f in report.findings] == [("worker", "fits"), ("web", "fits")]
    assert report.findings[1].details["fit"] == 3
    code, out, _ = run(app, "--nodes", nodes, "-o", "json")
    placements = {p["object"]["name"]: p for p in json.loads(out)["placements"]}
    assert placements["worker"]["replicas"] == 0 and placements["worker"]["pods"] == []
    assert placements["worker"]["idle"].startswith("spec.replicas is 0")
    assert placements["worker"]["template"]["node"] == "node-1"
    assert placements["web"]["fit"] == 3


def test_a_job_of_parallelism_zero_creates_no_pod(tmp_path):
    nodes = write(tmp_path, "nodes.yaml", NODE)
    app = write(tmp_path, "app.yaml", "---\n".join([job("nightly", parallelism=0), deployment("web", 3)]))
    code, out, _ = run(app, "--nodes", nodes)
    assert code == 0 and "3 of 3 replicas fit" in out
    assert "spec.parallelism is 0: the Job controller creates no pod" in " ".join(out.split())


def test_one_deployment_scaled_to_zero_is_said_so(tmp_path):
    nodes = write(tmp_path, "nodes.yaml", NODE)
    code, out, _ = run(write(tmp_path, "app.yaml", deployment("worker", 0, cpu="8")), "--nodes", nodes)
    assert out.startswith("=== Deployment shop/worker (priority 0): spec.replicas is 0")
    template = copy_names(deployment("worker", 0, cpu="8"), 1)[0]
    assert f"Pod shop/{template} (profile default-scheduler): Unschedulable" in out   # its template, told
    assert code == 0        # ... but no pod is created: nothing fails to schedule


# -- a suspended Job ------------------------------------------------------------------------------
def test_a_suspended_job_is_explained_and_linted_as_a_note(tmp_path):
    nodes = write(tmp_path, "nodes.yaml", NODE)
    app = write(tmp_path, "app.yaml", "---\n".join([job("backfill", cpu="2", suspend=True, parallelism=4),
                                                   deployment("web", 3)]))
    code, out, _ = run(app, "--nodes", nodes)
    assert code == 0
    text = " ".join(out.split())
    assert "=== Job shop/backfill (priority 0): spec.suspend is true: the Job controller creates no pod until the " \
           "Job is resumed; its template, explained without taking room:" in text
    assert f"Pod shop/{copy_names(job('backfill', cpu='2', suspend=True, parallelism=4), 1)[0]} (profile " \
           "default-scheduler): Scheduled" in out
    assert "3 of 3 replicas fit" in out          # the template took no room
    report = lint(LintOptions((app,), (nodes,)))
    by_name = {f.obj.name: f for f in report.findings}
    note = by_name["backfill"]
    assert note.rule == "not-created" and note.level.label == "info"
    assert note.message.startswith("spec.suspend is true: the Job controller creates no pod until the Job is "
                                   "resumed; its pod, once resumed: fits: node-1")
    assert by_name["web"].rule == "fits" and by_name["web"].details["fit"] == 3
    assert report.count(Severity.ERROR) == 0 and report.count(Severity.WARNING) == 0


def test_a_suspended_job_that_would_not_fit_is_a_note_not_an_error(tmp_path):
    nodes = write(tmp_path, "nodes.yaml", NODE)
    app = write(tmp_path, "job.yaml", job("backfill", cpu="16", suspend=True))
    report = lint(LintOptions((app,), (nodes,)), suggester=default_suggester())
    (note,) = report.findings
    assert note.rule == "not-created" and note.level.label == "info"
    assert "its pod, once resumed: unschedulable: 0/1 nodes are available: 1 Insufficient cpu." in note.message
    assert note.suggestions          # what to change before resuming it, verified
    code, _, _ = run("lint", app, "--nodes", nodes)
    assert code == 0
    code, out, _ = run(app, "--nodes", nodes)
    template = copy_names(job("backfill", cpu="16", suspend=True), 1)[0]
    assert code == 0 and f"Pod shop/{template} (profile default-scheduler): Unschedulable" in out


# -- generic ephemeral volumes --------------------------------------------------------------------
EPHEMERAL_POD = """apiVersion: v1
kind: Pod
metadata: {name: builder, namespace: ci}
spec:
  containers:
  - name: build
    image: registry.example.com/builder:7
    volumeMounts: [{name: scratch, mountPath: /scratch}]
  volumes:
  - name: scratch
    ephemeral:
      volumeClaimTemplate:
        metadata:
          labels: {type: scratch}
          annotations: {example.com/purpose: build-cache}
        spec:
          accessModes: [ReadWriteOnce]
          resources: {requests: {storage: 20Gi}}
"""


def test_an_ephemeral_volume_gets_its_claim(tmp_path):
    nodes = write(tmp_path, "nodes.yaml", NODE + "---\n" + DEFAULT_CLASS)
    pod = write(tmp_path, "pod.yaml", EPHEMERAL_POD)
    code, out, err = run(pod, "--nodes", nodes, "-o", "json")
    assert code == 0 and json.loads(out)["result"]["status"] == "Scheduled"
    assert "created PersistentVolumeClaim ci/builder-scratch for its ephemeral volume 'scratch'" in err
    loaded = load(Request(pod_path=pod, node_paths=(nodes,)))
    assert loaded.single is not None
    pod_uid = loaded.single.pod.uid
    (claim,) = [c for c in loaded.single.snapshot.of_kind("PersistentVolumeClaim")]
    meta = claim["metadata"]
    assert (meta["name"], meta["namespace"]) == ("builder-scratch", "ci")
    assert meta["ownerReferences"] == [{"apiVersion": "v1", "kind": "Pod", "name": "builder", "uid": pod_uid,
                                        "controller": True, "blockOwnerDeletion": True}]
    assert meta["labels"] == {"type": "scratch"}
    assert meta["annotations"]["example.com/purpose"] == "build-cache"
    assert claim["spec"]["resources"] == {"requests": {"storage": "20Gi"}}
    assert claim["spec"]["storageClassName"] == "gp3"      # DefaultStorageClass admission, as any new claim


def test_an_ephemeral_volume_without_a_class_meets_the_scheduler_s_answer(tmp_path):
    nodes = write(tmp_path, "nodes.yaml", NODE)          # no StorageClass: the claim stays unbound
    code, out, _ = run(write(tmp_path, "pod.yaml", EPHEMERAL_POD), "--nodes", nodes, "-o", "json")
    trace = json.loads(out)
    assert code == 1
    assert trace["result"]["message"].startswith("0/1 nodes are available: pod has unbound immediate "
                                                 "PersistentVolumeClaims.")
    assert "waiting for ephemeral volume controller" not in out


def test_a_claim_of_that_name_not_owned_by_the_pod_is_kept(tmp_path):
    taken = """apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: builder-scratch, namespace: ci}
spec:
  storageClassName: gp3
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
"""
    nodes = write(tmp_path, "nodes.yaml", NODE + "---\n" + DEFAULT_CLASS + "---\n" + taken)
    code, out, err = run(write(tmp_path, "pod.yaml", EPHEMERAL_POD), "--nodes", nodes, "-o", "json")
    assert code == 1 and "created PersistentVolumeClaim" not in err
    assert json.loads(out)["result"]["message"].startswith(       # VolumeIsForPod's words, as the scheduler says them
        "0/1 nodes are available: PVC ci/builder-scratch was not created for pod ci/builder (pod is not owner).")


def test_the_controller_stops_at_a_claim_the_pod_does_not_own():
    pod = yaml.safe_load(EPHEMERAL_POD)
    pod["metadata"]["uid"] = "u-1"
    pod["spec"]["volumes"] = [{"name": "a", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
                              {"name": "b", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]
    owned = {"metadata": {"name": "builder-a", "namespace": "ci",
                          "ownerReferences": [{"uid": "u-1", "controller": True}]}}
    foreign = {"metadata": {"name": "builder-a", "namespace": "ci"}}
    assert [c["metadata"]["name"] for c in create_volume_claims(pod, []).claims] == ["builder-a", "builder-b"]
    assert [c["metadata"]["name"] for c in create_volume_claims(pod, [owned]).claims] == ["builder-b"]
    assert create_volume_claims(pod, [foreign]).claims == []
    assert create_volume_claims({**pod, "metadata": {**pod["metadata"], "deletionTimestamp": "x"}}, []).claims == []


def test_each_replica_gets_its_own_ephemeral_claim(tmp_path):
    app = deployment("web", 3).replace("        resources:", """        volumeMounts: [{name: cache, mountPath: /cache}]
        resources:""") + """      volumes:
      - name: cache
        ephemeral:
          volumeClaimTemplate:
            spec:
              accessModes: [ReadWriteOnce]
              resources: {requests: {storage: 5Gi}}
"""
    nodes = write(tmp_path, "nodes.yaml", NODE + "---\n" + DEFAULT_CLASS)
    code, out, _ = run(write(tmp_path, "app.yaml", app), "--nodes", nodes, "-o", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["placements"][0]["fit"] == 3
    assert [i["result"]["status"] for i in doc["items"]] == ["Scheduled"] * 3


def test_an_ephemeral_claim_of_an_immediate_class_is_bound_by_the_pv_controller(tmp_path):
    cluster = NODE + """---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local-fast}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: scratch-pv-1}
spec:
  storageClassName: local-fast
  capacity: {storage: 50Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /mnt/scratch-1}
status: {phase: Available}
"""
    pod = EPHEMERAL_POD.replace("          accessModes: [ReadWriteOnce]",
                                "          storageClassName: local-fast\n          accessModes: [ReadWriteOnce]")
    nodes, path = write(tmp_path, "nodes.yaml", cluster), write(tmp_path, "pod.yaml", pod)
    code, out, _ = run(path, "--nodes", nodes, "-o", "json")
    assert code == 0 and json.loads(out)["result"]["status"] == "Scheduled"
    loaded = load(Request(pod_path=path, node_paths=(nodes,)))
    assert loaded.single is not None
    (claim,) = loaded.single.snapshot.of_kind("PersistentVolumeClaim")
    assert claim["spec"]["volumeName"] == "scratch-pv-1" and claim["status"]["phase"] == "Bound"
    (volume,) = loaded.single.snapshot.of_kind("PersistentVolume")
    assert volume["spec"]["claimRef"]["name"] == "builder-scratch"

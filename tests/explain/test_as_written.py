"""Manifests as people write them (issue 15): StatefulSets with claim templates, files that carry
their own claims and Services, workloads the API server refuses, pods pinned to a node that does
not exist, pods for another scheduler. The manifests are our own (tests/data/as-written); each
case asserts what `kexplain POD` and `kexplain lint` say, and that they say the same."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.admission.workloads import check_workload, generated_name, validate_workload
from kexplain.cli.app import main
from kexplain.errors import AdmissionRejected, Source
from kexplain.explain.inputs import load, load_inputs
from kexplain.explain.pod_file import PodFile
from kexplain.state.apply import cluster_with
from kexplain.state.objects import object_key
from kexplain.explain.request import Request
from kexplain.explain.run import explain
from kexplain.lint.linter import LintOptions, lint
from kexplain.controllers.workloads import copies_of, pod_from_workload, statefulset_claims
from tests.support.copies import copy_names
from tests.support.paths import DATA

DATA = DATA / "as-written"
CLUSTER = str(DATA / "cluster.yaml")

UNBOUND_IMMEDIATE = "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims."
PINNED = ("0/2 nodes are available: 2 node(s) didn't match the requested node name. no new claims to deallocate, "
          "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
JOB_REFUSED = ('Job.batch "" is invalid: [metadata.name: Required value: name or generateName is required, '
               'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"]')


def data(name: str) -> str:
    return str(DATA / name)


def explain_cli(capsys, pod: str, *nodes: str, args: tuple[str, ...] = ()) -> tuple[int, Any, str]:
    """`kexplain POD --nodes ... -o json`: (exit code, the JSON document or None, stderr)."""
    argv = [pod]
    for n in nodes or (CLUSTER,):
        argv += ["--nodes", n]
    code = main([*argv, "-o", "json", *args])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def explain_table(capsys, pod: str, *nodes: str) -> tuple[int, str, str]:
    argv = [pod]
    for n in nodes or (CLUSTER,):
        argv += ["--nodes", n]
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def lint_findings(pod: str, *nodes: str) -> list:
    return lint(LintOptions((pod,), tuple(nodes or (CLUSTER,)))).findings


def items(doc: dict) -> list[dict]:
    return doc["items"] if doc["kind"] == "SchedulingTraceList" else [doc]


# -- StatefulSets and their claims -----------------------------------------------------------------
def test_statefulset_claims_with_the_default_wait_for_first_consumer_class(capsys):
    code, doc, err = explain_cli(capsys, data("ledger-wffc.yaml"))
    assert code == 0, err
    assert [(t["pod"]["name"], t["result"]["status"]) for t in doc["items"]] == [
        ("ledger-0", "Scheduled"), ("ledger-1", "Scheduled")]
    assert doc["placements"][0]["nodes"] == {"east-1": 1, "west-1": 1}
    (f,) = lint_findings(data("ledger-wffc.yaml"))
    assert (f.rule, f.message) == ("fits", "all 2 replicas fit: east-1, west-1")


def test_each_ordinal_has_its_own_claim_from_the_template_with_the_default_class():
    loaded = load(Request(pod_path=data("ledger-wffc.yaml"), node_paths=(CLUSTER,)))
    claims = {c["metadata"]["name"]: c for c in loaded.pool.snapshot.of_kind("PersistentVolumeClaim")}
    assert sorted(claims) == ["journal-ledger-0", "journal-ledger-1"]
    for claim in claims.values():
        assert claim["metadata"]["namespace"] == "default"
        assert claim["metadata"]["labels"] == {"tier": "storage", "app": "ledger"}   # template's + selector's
        assert claim["spec"]["storageClassName"] == "balanced"                       # DefaultStorageClass
    (entry,) = loaded.batch
    assert entry.pod["metadata"]["name"] == "ledger-0"
    assert entry.pod["spec"]["volumes"] == [{"name": "journal", "persistentVolumeClaim": {"claimName": "journal-ledger-0"}}]
    # one explanation (one replica) is ordinal 0, against ordinal 0's claim
    single = load(Request(pod_path=data("ledger-wffc.yaml"), node_paths=(CLUSTER,), replicas=1)).single
    assert single.pod.name == "ledger-0"
    assert [c["metadata"]["name"] for c in single.snapshot.of_kind("PersistentVolumeClaim")] == ["journal-ledger-0"]
    # the StatefulSet itself is in the cluster its pods are scheduled against (default spreading reads it)
    assert [o["metadata"]["name"] for o in single.snapshot.of_kind("StatefulSet")] == ["ledger"]


def test_an_immediate_class_with_a_driver_has_its_volumes_provisioned(capsys):
    """An Immediate claim with no volume is provisioned by its class's driver (csi.example.com),
    which kexplain assumes runs in the cluster: each replica's claim is bound to its new volume."""
    code, doc, err = explain_cli(capsys, data("ledger-immediate.yaml"))
    assert code == 0 and [p["fit"] for p in doc["placements"]] == [2]
    assert err.count("csi.example.com provisions one (kexplain assumes the driver runs in the cluster)") == 2


@pytest.mark.parametrize("name", ["ledger-missing-class.yaml"])
def test_an_immediate_class_without_a_volume_or_a_missing_class_leaves_the_claim_unbound(capsys, name):
    """The scheduler's own message: a class that does not exist is not a WaitForFirstConsumer
    class, so the claim counts as immediate, and nothing provisions it."""
    code, doc, _ = explain_cli(capsys, data(name))
    assert code == 1
    (trace,) = doc["items"]          # the first replica does not fit: placement stops
    assert trace["pod"]["name"] == "ledger-0"
    assert trace["result"]["message"].startswith(UNBOUND_IMMEDIATE)
    code, doc, _ = explain_cli(capsys, data(name), args=("--replicas", "1"))
    assert code == 1 and doc["kind"] == "SchedulingTrace" and doc["result"]["message"].startswith(UNBOUND_IMMEDIATE)
    (f,) = lint_findings(data(name))
    assert f.rule == "unschedulable"
    assert f.message == f"none of the 2 replicas fits: {trace['result']['message']}"


def test_an_existing_claim_is_used_as_it_is(capsys):
    """journal-ledger-0 exists (bound to a volume in zone west): ledger-0 goes there; the
    claim for ledger-1 is created."""
    existing = data("existing-claim.yaml")
    code, doc, _ = explain_cli(capsys, data("ledger-wffc.yaml"), CLUSTER, existing)
    assert code == 0
    assert [(t["pod"]["name"], t["result"]["suggestedHost"]) for t in doc["items"]][0] == ("ledger-0", "west-1")
    loaded = load(Request(pod_path=data("ledger-wffc.yaml"), node_paths=(CLUSTER, existing)))
    claims = [c for c in loaded.pool.snapshot.of_kind("PersistentVolumeClaim")]
    assert [c["metadata"]["name"] for c in claims] == ["journal-ledger-0", "journal-ledger-1"]
    assert claims[0]["spec"]["volumeName"] == "pv-ledger-0" and "labels" not in claims[0]["metadata"]
    (f,) = lint_findings(data("ledger-wffc.yaml"), CLUSTER, existing)
    assert (f.rule, f.message) == ("fits", "all 2 replicas fit: west-1, east-1")


def test_replicas_take_the_local_volumes_one_by_one(capsys):
    """A volume bound for one replica is not free for the next: the third finds none."""
    local = data("local-volumes.yaml")
    code, doc, _ = explain_cli(capsys, data("ledger-local.yaml"), CLUSTER, local)
    assert code == 1
    assert [t["result"].get("suggestedHost") for t in doc["items"]] == ["east-1", "west-1", None]
    message = doc["items"][-1]["result"]["message"]
    assert message.startswith("0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind.")
    (f,) = lint_findings(data("ledger-local.yaml"), CLUSTER, local)
    assert f.rule == "replicas"
    assert f.message == f"fits only 2 of 3 replicas (east-1, west-1); replica ledger-2: {message}"


def test_the_statefulset_pod_as_its_controller_makes_it():
    sts = yaml.safe_load(open(data("ledger-wffc.yaml")))
    sts["spec"]["template"]["spec"]["volumes"] = [{"name": "journal", "emptyDir": {}}, {"name": "tmp", "emptyDir": {}}]
    sts["spec"]["ordinals"] = {"start": 5}
    pod = pod_from_workload(sts, Source("s.yaml"), 1)
    assert pod["metadata"]["name"] == "ledger-6"
    assert pod["metadata"]["labels"] == {"app": "ledger", "statefulset.kubernetes.io/pod-name": "ledger-6",
                                         "apps.kubernetes.io/pod-index": "6"}
    assert (pod["spec"]["hostname"], pod["spec"]["subdomain"]) == ("ledger-6", "ledger")
    # the template's volume of the claim's name is replaced; the claim volumes come first
    assert pod["spec"]["volumes"] == [{"name": "journal", "persistentVolumeClaim": {"claimName": "journal-ledger-6"}},
                                      {"name": "tmp", "emptyDir": {}}]
    assert [c["metadata"]["name"] for c in statefulset_claims(sts, 2)] == ["journal-ledger-5", "journal-ledger-6"]
    naming = copies_of(sts)
    assert [naming.name(i) for i in range(2)] == ["ledger-5", "ledger-6"]


# -- a file with its own cluster objects -------------------------------------------------------------
def test_a_file_with_its_deployment_service_and_claim(capsys):
    """Before, `persistentvolumeclaim "guestbook-uploads" not found`: the claim is in the file."""
    code, doc, err = explain_cli(capsys, data("guestbook.yaml"))
    assert code == 0, err
    assert doc["kind"] == "SchedulingTrace" and doc["pod"]["name"] == copy_names(Path(data("guestbook.yaml")), 1)[0]
    assert err == ""              # the ConfigMap is ignored silently, as a kind the scheduler does not read
    inputs = load_inputs(Request(pod_path=data("guestbook.yaml"), node_paths=(CLUSTER,)))
    assert [c["spec"]["storageClassName"] for c in inputs.snapshot.of_kind("PersistentVolumeClaim")] == ["balanced"]
    assert [s["metadata"]["name"] for s in inputs.snapshot.of_kind("Service")] == ["guestbook"]
    (f,) = lint_findings(data("guestbook.yaml"))
    assert (f.rule, f.message) == ("fits", f"fits: {doc['result']['suggestedHost']}")


def test_the_files_version_of_an_object_is_applied_onto_the_clusters_and_listed_once(capsys):
    """The cluster's claim (eager class, unbound) is patched with the file's, as `kubectl apply`
    patches it: the file's labels join, and the class the file does not set stays (no
    last-applied annotation: nothing is deleted). Before, the file's version replaced it (the
    default class). The eager class binds at once: a volume is provisioned, the pod fits."""
    stale = data("stale-claim.yaml")
    code, doc, err = explain_cli(capsys, data("guestbook.yaml"), CLUSTER, stale)
    assert code == 0 and doc["result"]["status"] == "Scheduled"
    assert "its StorageClass eager binds Immediately" in err
    inputs = load_inputs(Request(pod_path=data("guestbook.yaml"), node_paths=(CLUSTER, stale)))
    claims = inputs.snapshot.of_kind("PersistentVolumeClaim")
    assert [(c["metadata"]["name"], c["spec"]["storageClassName"], c["metadata"]["labels"]) for c in claims] == [
        ("guestbook-uploads", "eager", {"app": "guestbook"})]
    (f,) = lint_findings(data("guestbook.yaml"), CLUSTER, stale)
    assert f.rule == "fits"


def test_cluster_with_replaces_in_place_and_adds_created_objects_only_when_missing():
    src = Source("f")
    node = {"kind": "Node", "metadata": {"name": "n1", "labels": {"old": "1"}}}
    other = {"kind": "Node", "metadata": {"name": "n2"}}
    claim = {"kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "default"}}
    newer = {"kind": "Node", "metadata": {"name": "n1", "labels": {"new": "1"}}}
    created_same = {"kind": "PersistentVolumeClaim", "metadata": {"name": "c"}}
    created_new = {"kind": "PersistentVolumeClaim", "metadata": {"name": "d"}}
    ignored = {"kind": "ConfigMap", "metadata": {"name": "x"}}
    out = cluster_with([(node, src), (other, src), (claim, src)], [(newer, src), (ignored, src)],
                       [(created_same, src), (created_new, src)])
    merged = {"kind": "Node", "metadata": {"name": "n1", "labels": {"old": "1", "new": "1"}}}   # (kubectl apply's patch)
    assert [o for o, _ in out] == [merged, other, claim, created_new]
    assert object_key(created_same) == object_key(claim) == ("PersistentVolumeClaim", "default", "c")


def test_a_bound_pod_of_the_file_is_cluster_and_takes_room(capsys):
    code, doc, _ = explain_cli(capsys, data("web-with-bound-pod.yaml"))
    assert code == 0 and doc["kind"] == "SchedulingTrace"
    assert doc["pod"]["name"] == "frontend" and doc["result"]["suggestedHost"] == "west-1"   # east-1 is full
    findings = lint_findings(data("web-with-bound-pod.yaml"))
    assert [(f.rule, f.message) for f in findings] == [
        ("not-scheduled", "spec.nodeName is east-1: the scheduler does not place this pod; its kubelet admits it"),
        ("fits", "fits: west-1")]


def test_pod_file_split():
    objs = [(o, Source("f", i)) for i, o in enumerate(yaml.safe_load_all(open(data("guestbook.yaml"))), 1)]
    split = PodFile.of(objs, "f")
    assert [o["kind"] for o, _ in split.explained] == ["Deployment"]
    assert [o["kind"] for o, _ in split.cluster] == ["Service", "PersistentVolumeClaim"]
    pinned = [(yaml.safe_load(open(data("pinned-pod.yaml"))), Source("p"))]
    assert PodFile.of(pinned, "p").explained == pinned and PodFile.of(pinned, "p").cluster == []


def test_a_refused_object_of_the_file_is_a_finding_of_its_own(tmp_path):
    docs = list(yaml.safe_load_all(open(data("guestbook.yaml"))))
    docs[1]["spec"]["accessModes"] = []              # the claim: the API server refuses it
    path = tmp_path / "guestbook.yaml"
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    findings = lint_findings(str(path))
    assert [(f.rule, f.obj.kind) for f in findings] == [("admission", "PersistentVolumeClaim"),
                                                        ("unschedulable", "Deployment")]
    assert findings[0].message.startswith('PersistentVolumeClaim "guestbook-uploads" is invalid: spec.accessModes: '
                                          "Required value")
    assert findings[1].message.startswith('0/2 nodes are available: persistentvolumeclaim "guestbook-uploads" '
                                          "not found.")


# -- workloads the API server refuses -------------------------------------------------------------
def test_a_job_without_a_name_and_with_restart_policy_always(capsys):
    code, doc, err = explain_cli(capsys, data("nightly-job.yaml"))
    assert code == 2 and doc is None
    assert err.strip() == f"error: {data('nightly-job.yaml')}: document 1: Job: {JOB_REFUSED}"
    (f,) = lint_findings(data("nightly-job.yaml"))
    assert (f.rule, f.message) == ("admission", JOB_REFUSED)


def deployment(**spec: Any) -> dict:
    base = {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}
    base.update(spec)
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": base}


def refused(obj: dict) -> str:
    with pytest.raises(AdmissionRejected) as exc:
        check_workload(obj, Source("w.yaml"))
    return exc.value.message


@pytest.mark.parametrize("obj, message", [
    (deployment(selector=None),
     'Deployment.apps "web" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: '
     '{"app":"web"}: `selector` does not match template `labels`]'),
    (deployment(selector={"matchLabels": {"app": "api"}}),
     'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` '
     'does not match template `labels`'),
    (deployment(replicas=-1),
     'Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'),
    ({**deployment(), "kind": "ReplicaSet", "spec": {**deployment()["spec"], "selector": {}}},
     'ReplicaSet.apps "web" is invalid: spec.selector: Invalid value: {}: empty selector is invalid for deployment'),
    ({**deployment(), "kind": "StatefulSet", "metadata": {"name": "web.v2"}},
     'StatefulSet.apps "web.v2" is invalid: metadata.name: Invalid value: "web.v2": must not contain dots'),
    ({**deployment(), "kind": "DaemonSet",
      "spec": {**deployment()["spec"], "template": {"metadata": {"labels": {"app": "web"}},
                                                    "spec": {"restartPolicy": "OnFailure", "containers": []}}}},
     'DaemonSet.apps "web" is invalid: spec.template.spec.restartPolicy: Unsupported value: "OnFailure": '
     'supported values: "Always"'),
    ({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly"},
      "spec": {"jobTemplate": {"spec": {"selector": {"matchLabels": {"a": "b"}},
                                        "template": {"spec": {"restartPolicy": "Never"}}}}}},
     'CronJob.batch "nightly" is invalid: [spec.schedule: Required value, spec.jobTemplate.spec.selector: Invalid '
     'value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated]'),
])
def test_workload_validation_messages(obj, message):
    assert refused(obj) == message


def test_valid_workloads_pass_and_jobs_get_their_generated_selector():
    assert validate_workload(deployment()) == []
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "report"},
           "spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "x"}]}}}}
    assert validate_workload(job) == []
    pod = pod_from_workload(job, Source("j.yaml"))
    labels = pod["metadata"]["labels"]
    assert labels["batch.kubernetes.io/job-name"] == labels["job-name"] == "report"
    assert labels["batch.kubernetes.io/controller-uid"] == pod["metadata"]["ownerReferences"][0]["uid"]
    manual = {**job, "spec": {**job["spec"], "manualSelector": True}}
    assert refused(manual) == ('Job.batch "report" is invalid: [spec.selector: Required value, '
                               'spec.template.metadata.labels: Invalid value: null: `selector` does not match '
                               'template `labels`]')


def test_a_workload_named_by_generate_name_gets_the_api_servers_kind_of_name(capsys, tmp_path):
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"generateName": "report-"},
           "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "x"}]}}}}
    name = generated_name(job)
    assert name.startswith("report-") and len(name) == len("report-") + 5 and name == generated_name(job)
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(job))
    code, doc, _ = explain_cli(capsys, str(path))
    # its pods: the Job's name, a dash and five characters of their own (the Job controller's generateName)
    assert code == 0 and re.fullmatch(rf"{name}-[bcdfghjklmnpqrstvwxz2456789]{{5}}", doc["pod"]["name"])


# -- names: none invented --------------------------------------------------------------------------
def test_workload_pods_are_named_like_the_controllers_not_with_placeholders(capsys):
    code, out, err = explain_table(capsys, data("guestbook.yaml"))
    # the ReplicaSet controller's: <deployment>-<pod-template-hash>-<five characters>
    code, doc, _ = explain_cli(capsys, data("guestbook.yaml"))
    template_hash = doc["labels"]["pod-template-hash"]
    assert re.fullmatch(rf"guestbook-{template_hash}-[bcdfghjklmnpqrstvwxz2456789]{{5}}", doc["pod"]["name"])
    assert code == 0 and f"Pod default/{doc['pod']['name']} " in out
    code, out, err = explain_table(capsys, data("ledger-local.yaml"), CLUSTER, data("local-volumes.yaml"))
    assert "Why ledger-2 does not fit:" in out
    for text in (out, err):
        assert "kexplain" not in text.replace("kexplain/v1", "") and "workload" not in text
    findings = lint_findings(data("ledger-local.yaml"), CLUSTER, data("local-volumes.yaml"))
    assert all("kexplain" not in f.message and "workload" not in f.message for f in findings)


# -- pods pinned to a missing node, pods for another scheduler -------------------------------------
def test_a_pod_pinned_to_a_node_that_does_not_exist(capsys):
    code, doc, err = explain_cli(capsys, data("pinned-pod.yaml"))
    assert code == 1 and doc["result"]["message"] == PINNED
    assert "spec.nodeName is east-2, which is not a node of the cluster" in err
    (f,) = lint_findings(data("pinned-pod.yaml"))
    assert (f.rule, f.level.label) == ("unschedulable", "error")
    assert f.message == f"spec.nodeName is east-2, which is not a node of the pool: {PINNED}"


def test_a_pod_for_another_scheduler(capsys, monkeypatch):
    code, doc, err = explain_cli(capsys, data("other-scheduler.yaml"))
    assert code == 2 and doc is None and '"gang-scheduler"' in err
    (f,) = lint_findings(data("other-scheduler.yaml"))
    assert (f.rule, f.level.label, f.field) == ("other-scheduler", "warning", "spec.schedulerName")
    assert f.message == ("the pod is for scheduler gang-scheduler, which is not a profile of the scheduler "
                         "configuration: not checked; --config can add the profile")
    codes = []
    for debug in ("", "1"):
        monkeypatch.setenv("KEXPLAIN_DEBUG", debug)
        codes.append(main(["lint", data("other-scheduler.yaml"), "--nodes", CLUSTER]))
        capsys.readouterr()
    assert codes == [0, 0]          # a warning: not an error, not an internal error


def test_one_pod_files_explain_as_before():
    """A file that holds only the pod: load_inputs's cluster is --nodes alone."""
    inputs = load_inputs(Request(pod_path=data("other-scheduler.yaml"), node_paths=(CLUSTER,)))
    kinds = sorted({k for k, objs in inputs.snapshot.objects.items() if objs})
    assert kinds == ["Namespace", "PriorityClass", "StorageClass"]
    assert explain(load_inputs(Request(pod_path=data("web-with-bound-pod.yaml"), node_paths=(CLUSTER,))),
                   Request(pod_path="")).result.suggested_host == "west-1"


def test_claims_the_api_server_refuses_are_named(capsys, tmp_path):
    """A claim template without accessModes: the claim the controller creates is refused."""
    sts = yaml.safe_load(open(data("ledger-wffc.yaml")))
    del sts["spec"]["volumeClaimTemplates"][0]["spec"]["accessModes"]
    path = tmp_path / "ledger.yaml"
    path.write_text(yaml.safe_dump(sts))
    refusal = ('PersistentVolumeClaim "journal-ledger-0" is invalid: spec.accessModes: Required value: at least 1 '
               "access mode is required")
    for args in ((), ("--replicas", "1")):
        code, doc, err = explain_cli(capsys, str(path), args=args)
        assert code == 2 and err.strip() == f"error: {path}: document 1: PersistentVolumeClaim " \
                                            f"default/journal-ledger-0: {refusal}"
    (f,) = lint_findings(str(path))
    assert (f.rule, f.obj.kind, f.message) == ("admission", "StatefulSet",
                                               f"PersistentVolumeClaim default/journal-ledger-0: {refusal}")


def test_a_pod_pinned_to_an_existing_node_says_the_scheduler_is_bypassed(capsys, tmp_path):
    """Explain checks it against its node and says, as lint's not-scheduled finding does, that
    the scheduler never places it."""
    pinned = yaml.safe_load(Path(data("pinned-pod.yaml")).read_text())
    pinned["spec"]["nodeName"] = "east-1"
    path = tmp_path / "pinned.yaml"
    path.write_text(yaml.safe_dump(pinned))
    code, doc, err = explain_cli(capsys, str(path))
    assert code == 0 and doc["result"]["selectedNodes"] == ["east-1"]
    assert "spec.nodeName is east-1: the scheduler does not place this pod (it bypasses the scheduler)" in err
    (f,) = lint_findings(str(path))
    assert f.rule == "not-scheduled" and f.message.startswith("spec.nodeName is east-1: the scheduler does not place")

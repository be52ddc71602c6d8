"""An install file applied onto a cluster that has some of its objects, and an object given twice
in one apply, as `kubectl apply` and the API server leave them (issue 51): the file's object is
patched onto the cluster's (a Namespace keeps its admin's Pod Security label), and an update the
API server refuses (a PriorityClass's value, a Deployment's selector) leaves the object as it was,
with the API server's message (explain: exit 2, the rest explained; lint: an admission error)."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from kexplain.cli.app import main
from kexplain.errors import Source
from kexplain.load.apply_patch import LAST_APPLIED, apply_onto
from kexplain.lint.linter import LintOptions, lint
from tests.support.cli_helpers import TestEnvironment

NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {kubernetes.io/hostname: n1}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
"""
ADMIN_NAMESPACE = """\
apiVersion: v1
kind: Namespace
metadata:
  name: volcano-system
  labels: {pod-security.kubernetes.io/enforce: restricted}
"""
# Volcano's installer: its own Namespace (another label), then its scheduler
INSTALL = """\
apiVersion: v1
kind: Namespace
metadata:
  name: volcano-system
  labels: {app: volcano}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: volcano-scheduler, namespace: volcano-system}
spec:
  replicas: 1
  selector: {matchLabels: {app: vs}}
  template:
    metadata: {labels: {app: vs}}
    spec:
      containers: [{name: s, image: volcano/scheduler:1.0, resources: {requests: {cpu: 100m}}}]
"""
PRIORITY = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: vitess}
value: %d
"""
POD = """\
apiVersion: v1
kind: Pod
metadata: {name: vttablet}
spec:
  priorityClassName: vitess
  containers: [{name: c, image: vitess/lite, resources: {requests: {cpu: 100m}}}]
"""
REFUSED_VALUE = 'PriorityClass.scheduling.k8s.io "vitess" is invalid: value: Forbidden: may not be changed in an update.'


def run(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(args), env=env)
    return code, env.out, env.err


def write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def test_an_install_files_namespace_keeps_the_admins_pod_security_label(tmp_path):
    cluster = write(tmp_path / "cluster.yaml", NODE + "---\n" + ADMIN_NAMESPACE)
    install = write(tmp_path / "install.yaml", INSTALL)
    code, out, err = run(install, "--nodes", cluster, "-o", "json", "--no-suggestions")
    assert code == 1, err
    (placement,) = json.loads(out)["placements"]
    assert 'violates PodSecurity \\"restricted:latest\\"' in json.dumps(placement)
    report = lint(LintOptions((install,), (cluster,)))
    (finding,) = [f for f in report.findings if f.level.label == "error"]
    assert finding.rule == "admission" and 'violates PodSecurity "restricted:latest"' in finding.message


def test_a_priority_class_re_applied_with_another_value_keeps_its_value(tmp_path):
    cluster = write(tmp_path / "cluster.yaml", NODE + "---\n" + PRIORITY % 1000)
    install = write(tmp_path / "install.yaml", PRIORITY % 5000 + "---\n" + POD)
    code, out, err = run(install, "--nodes", cluster, "-o", "json", "--no-suggestions")
    assert code == 2
    assert err == f"error: {install}: document 1: PriorityClass vitess: {REFUSED_VALUE}\n"
    assert json.loads(out)["result"]["status"] == "Scheduled"
    code, out, err = run(install, "--nodes", cluster, "--no-suggestions")
    assert "priority 1000" in out
    report = lint(LintOptions((install,), (cluster,)))
    assert [(f.rule, f.location.doc, f.message) for f in report.findings] == [
        ("admission", 1, REFUSED_VALUE), ("fits", 2, "fits: n1")]


def test_a_priority_class_given_twice_in_one_apply_keeps_the_first_value(tmp_path):
    app = tmp_path / "app"
    write(app / "a.yaml", PRIORITY % 1000 + "---\n" + POD)
    later = write(app / "b.yaml", PRIORITY % 5000)
    cluster = write(tmp_path / "cluster.yaml", NODE)
    code, out, err = run(str(app), "--nodes", cluster, "--no-suggestions")
    assert code == 2 and "priority 1000" in out
    assert err == f"error: {later}: document 1: PriorityClass vitess: {REFUSED_VALUE}\n"
    report = lint(LintOptions((str(app),)))
    assert [(f.rule, f.location.path, f.message) for f in report.findings] == [("admission", later, REFUSED_VALUE)]


def test_a_deployments_changed_selector_is_refused_and_the_first_stands(tmp_path):
    app = tmp_path / "app"
    write(app / "a.yaml", INSTALL.split("---\n")[1].replace("namespace: volcano-system", "namespace: default"))
    changed = INSTALL.split("---\n")[1].replace("namespace: volcano-system", "namespace: default") \
        .replace("{app: vs}", "{app: vs2}").replace("cpu: 100m", "cpu: 200m")
    later = write(app / "b.yaml", changed)
    cluster = write(tmp_path / "cluster.yaml", NODE)
    code, out, err = run(str(app), "--nodes", cluster, "--no-suggestions")
    assert code == 2
    assert err == (f"error: {later}: document 1: Deployment default/volcano-scheduler: Deployment.apps "
                   '"volcano-scheduler" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"vs2"}}: '
                   "field is immutable\n")
    assert "Requests cpu 100m" in out and "app=vs," in out         # the first manifest's pods


SERVICE = """\
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: [{port: 80}]
"""
HEADLESS = SERVICE.replace("spec:\n", "spec:\n  clusterIP: None\n")
WEB = """\
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
"""
HEADLESS_REFUSED = ('Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["None"]: may not change once '
                    "set")


def test_a_headless_service_over_a_cluster_ip_one_is_refused_and_the_reverse_kept_headless(tmp_path):
    """Issue 77 item 22: the API server allocated the first Service an IP; a headless manifest over it
    is refused, while one without clusterIP over a headless Service keeps its None (and a headless
    manifest after it is then no change of the cluster IP)."""
    cluster = write(tmp_path / "cluster.yaml", NODE)
    app = tmp_path / "app"
    write(app / "a.yaml", SERVICE + "---\n" + WEB)
    later = write(app / "b.yaml", HEADLESS)
    code, _, err = run(str(app), "--nodes", cluster, "--no-suggestions")
    assert code == 2 and err == f"error: {later}: document 1: Service default/web: {HEADLESS_REFUSED}\n"
    report = lint(LintOptions((str(app),)))
    assert [(f.rule, f.location.path, f.message) for f in report.findings if f.rule == "admission"] == [
        ("admission", later, HEADLESS_REFUSED)]
    other = tmp_path / "other"
    write(other / "a.yaml", HEADLESS + "---\n" + WEB)
    write(other / "b.yaml", SERVICE)
    write(other / "c.yaml", HEADLESS)
    code, _, err = run(str(other), "--nodes", cluster, "--no-suggestions")
    assert (code, err) == (0, "")
    assert not [f for f in lint(LintOptions((str(other),))).findings if f.rule == "admission"]


def test_a_service_re_applied_without_cluster_ip_over_a_stored_headless_one_keeps_it():
    """kubectl apply's patch drops clusterIP (its last-applied manifest had it, this one has not): the
    API server puts the stored None back (patchAllocatedValues), no "primary clusterIP can not be unset"."""
    manifest = yaml.safe_load(SERVICE)
    stored = yaml.safe_load(HEADLESS)
    stored["metadata"].update(resourceVersion="7", annotations={LAST_APPLIED: json.dumps(yaml.safe_load(HEADLESS))})
    stored["spec"].update(clusterIPs=["None"], ipFamilyPolicy="SingleStack", ipFamilies=["IPv4"])
    update = apply_onto((stored, Source("cluster.yaml", 1)), (manifest, Source("svc.yaml", 1)))
    assert update.refused is None
    assert (update.applied[0]["spec"]["clusterIP"], update.applied[0]["spec"]["clusterIPs"]) == ("None", ["None"])
    allocated = {**stored, "spec": {**stored["spec"], "clusterIP": "10.96.0.7", "clusterIPs": ["10.96.0.7"]}}
    update = apply_onto((allocated, Source("cluster.yaml", 1)), (yaml.safe_load(HEADLESS), Source("svc.yaml", 1)))
    assert str(update.refused).endswith(HEADLESS_REFUSED) and update.applied[0] is allocated

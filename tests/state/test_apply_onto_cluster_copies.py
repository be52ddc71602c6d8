"""A set applied onto the cluster's copies, as `kubectl apply` leaves them, in explain and lint alike
(issue 70, items 14, 16, 17): a StatefulSet keeps what the three-way merge keeps (the live `replicas`
and a nodeSelector added by hand, neither in last-applied-configuration); an update the API server
refuses (a StatefulSet's volumeClaimTemplates, a StorageClass's volumeBindingMode) leaves the live
object, whose pods and claims are then judged, with the API server's message."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from kexplain.lint.linter import LintOptions, lint
from kexplain.state.apply import onto_cluster
from kexplain.errors import Source
from tests.support.cli_helpers import TestEnvironment, node_yaml

NODES = "---\n".join(node_yaml(name, zone, "4", "8Gi", allocatable=False) for name, zone in (("a1", "a"), ("b1", "b")))
STORAGE_CLASS = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: std
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"std"},"provisioner":"ebs.csi.aws.com","volumeBindingMode":"WaitForFirstConsumer"}'
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
"""
CLAIMS = ('{"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],'
          '"resources":{"requests":{"storage":"1Gi"}}}}],')
LAST_APPLIED = ('{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db","namespace":"default"},"spec":'
                + CLAIMS + '"serviceName":"db","selector":{"matchLabels":{"app":"db"}},"template":{"metadata":'
                '{"labels":{"app":"db"}},"spec":{"containers":[{"name":"c","image":"db:1","resources":{"requests":'
                '{"cpu":"100m"}}}]}}}}')
# the cluster's copy: scaled to 3 and pinned to zone b by hand (kubectl scale, kubectl edit)
LIVE = f"""\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: default
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{LAST_APPLIED}'
spec:
  replicas: 3
  serviceName: db
  selector: {{matchLabels: {{app: db}}}}
  template:
    metadata: {{labels: {{app: db}}}}
    spec:
      nodeSelector: {{topology.kubernetes.io/zone: b}}
      containers: [{{name: c, image: "db:1", resources: {{requests: {{cpu: 100m}}}}}}]
  volumeClaimTemplates:
  - metadata: {{name: data}}
    spec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 1Gi}}}}}}
"""
# the manifest re-applied: a new image, no replicas, no nodeSelector
MANIFEST = """\
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:%s
      containers: [{name: c, image: "db:2", resources: {requests: {cpu: 100m}}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: %s}}}
"""
ZONE_A = "\n      nodeSelector: {topology.kubernetes.io/zone: a}"
STS_REFUSED = ('StatefulSet.apps "db" is invalid: spec: Forbidden: updates to statefulset spec for fields other '
               "than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', "
               "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")


def run(*args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(list(args), env=env)
    return code, env.out, env.err


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def placement(out: str) -> dict:
    (placed,) = json.loads(out)["placements"]
    return {k: placed[k] for k in ("replicas", "fit", "nodes")}


def lint_findings(manifest: str, cluster: str) -> list[tuple[str, str]]:
    report = lint(LintOptions((manifest,), (cluster,)))
    return [(f.rule, f.message) for f in report.findings]


def test_onto_cluster_patches_the_copy_the_cluster_has_and_leaves_the_rest():
    import yaml
    live = yaml.safe_load(LIVE)
    manifest = yaml.safe_load(MANIFEST % ("", "1Gi"))
    other = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {}}
    src, other_src = Source("app.yaml", 1), Source("app.yaml", 2)
    settled = onto_cluster([(manifest, src), (other, other_src)], [(live, Source("cluster.yaml", 1))],
                           frozenset({"StatefulSet", "Deployment"}))
    (sts, sts_src), (dep, dep_src) = settled.objects
    assert settled.refused == [] and dep is other and dep_src is other_src and sts_src is src
    assert sts["spec"]["replicas"] == 3
    assert sts["spec"]["template"]["spec"]["nodeSelector"] == {"topology.kubernetes.io/zone": "b"}
    assert sts["spec"]["template"]["spec"]["containers"][0]["image"] == "db:2"


def test_a_statefulset_re_applied_keeps_its_live_replicas_and_nodeselector(tmp_path):
    cluster = write(tmp_path / "cluster.yaml", NODES + "---\n" + STORAGE_CLASS + "---\n" + LIVE)
    manifest = write(tmp_path / "db.yaml", MANIFEST % ("", "1Gi"))
    code, out, err = run(manifest, "--nodes", cluster, "-o", "json", "--no-suggestions")
    assert (code, err) == (0, "")
    assert placement(out) == {"replicas": 3, "fit": 3, "nodes": {"b1": 3}}
    assert lint_findings(manifest, cluster) == [("fits", "all 3 replicas fit: b1 ×3")]


def test_a_refused_statefulset_update_leaves_the_live_object_in_explain_and_lint(tmp_path):
    cluster = write(tmp_path / "cluster.yaml", NODES + "---\n" + STORAGE_CLASS + "---\n" + LIVE)
    # (the manifest's zone a, which the refused update would have set, is never seen)
    manifest = write(tmp_path / "db.yaml", MANIFEST % (ZONE_A, "5Gi"))
    code, out, err = run(manifest, "--nodes", cluster, "-o", "json", "--no-suggestions")
    assert code == 2
    assert err == f"error: {manifest}: document 1: StatefulSet default/db: {STS_REFUSED}\n"
    assert placement(out) == {"replicas": 3, "fit": 3, "nodes": {"b1": 3}}     # the live object's pods
    assert lint_findings(manifest, cluster) == [("admission", STS_REFUSED), ("fits", "all 3 replicas fit: b1 ×3")]


APP = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: std}
provisioner: ebs.csi.aws.com
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {accessModes: [ReadWriteOnce], storageClassName: std, resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
"""
SC_REFUSED = 'StorageClass.storage.k8s.io "std" is invalid: volumeBindingMode: Invalid value: "Immediate": field is immutable'


def test_a_refused_storage_class_update_leaves_the_live_class_and_its_binding_mode(tmp_path):
    cluster = write(tmp_path / "cluster.yaml", NODES + "---\n" + STORAGE_CLASS)
    app = write(tmp_path / "app.yaml", APP)
    code, out, err = run(app, "--nodes", cluster, "--no-suggestions")
    assert code == 2
    # no claim provisioned at once, as Immediate would: the live WaitForFirstConsumer stands
    assert err == f"error: {app}: document 1: StorageClass std: {SC_REFUSED}\n"
    assert "binds Immediately" not in out and "Pod default/p (profile default-scheduler): Scheduled" in out
    report = lint(LintOptions((app,), (cluster,)))
    assert [(f.rule, f.location.doc, f.message) for f in report.findings] == [
        ("admission", 1, SC_REFUSED), ("fits", 3, "fits: a1")]
    assert not any("binds Immediately" in w for w in report.warnings)

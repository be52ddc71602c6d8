"""What blocks a claim: VolumeBinding's PreFilter says "pod has unbound immediate
PersistentVolumeClaims" and names nothing; kexplain's `rejection` facts name each claim and why
(`kexplain.plugins.helper.unbound_claims`), the table says so under the verdict, and the
storage-class fix family proposes a class, each change verified by scheduling again. The
scheduler's own message is unchanged. Files shaped like charts people apply."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment, workers_yaml

NODES = workers_yaml("8", "32Gi", allocatable=False)
GP3 = """---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: gp3}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
"""
IMMEDIATE = """---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: nfs}
provisioner: nfs.csi.k8s.io
volumeBindingMode: Immediate
"""


def postgres(storage_class: str | None) -> str:
    cls = f"      storageClassName: {storage_class}\n" if storage_class is not None else ""
    return f"""apiVersion: apps/v1
kind: StatefulSet
metadata: {{name: postgres, namespace: db}}
spec:
  serviceName: postgres
  replicas: 1
  selector: {{matchLabels: {{app: postgres}}}}
  template:
    metadata: {{labels: {{app: postgres}}}}
    spec:
      containers:
      - name: postgres
        image: postgres:16
        ports: [{{containerPort: 5432}}]
        volumeMounts: [{{name: data, mountPath: /var/lib/postgresql/data}}]
        resources: {{requests: {{cpu: 500m, memory: 1Gi}}}}
  volumeClaimTemplates:
  - metadata: {{name: data}}
    spec:
{cls}      accessModes: [ReadWriteOnce]
      resources: {{requests: {{storage: 20Gi}}}}
"""


def run(tmp_path: Path, app: str, cluster: str, *args: str) -> tuple[int, str, str]:
    (tmp_path / "app.yaml").write_text(app)
    (tmp_path / "cluster.yaml").write_text(cluster)
    env = TestEnvironment(width=100)
    code = main([str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), *args], env=env)
    return code, env.out, env.err


MESSAGE = ("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found")


def test_a_class_that_is_not_in_the_input(tmp_path):
    code, out, _ = run(tmp_path, postgres("fast-ssd"), NODES, "-o", "json")
    trace = json.loads(out)
    assert code == 1 and trace["result"]["message"] == MESSAGE          # the scheduler's words, unchanged
    assert trace["rejection"] == {"plugin": "VolumeBinding", "claims": [
        {"volume": "data", "claim": "db/data-postgres-0", "request": "20Gi", "accessModes": ["ReadWriteOnce"],
         "cause": "classMissing", "storageClass": "fast-ssd"}]}
    (fix,) = trace["suggestions"]
    assert fix["kind"] == "create-storage-class" and fix["nodesOpened"] == 2
    assert fix["change"][0]["value"]["metadata"]["name"] == "fast-ssd"
    assert fix["change"][0]["value"]["volumeBindingMode"] == "WaitForFirstConsumer"
    code, out, _ = run(tmp_path, postgres("fast-ssd"), NODES)
    text = " ".join(out.split())
    assert ("claim db/data-postgres-0 (volume data): unbound: its StorageClass fast-ssd is not in the input (no "
            "such StorageClass), so nothing provisions or binds it") in text
    assert "create StorageClass fast-ssd, which claim db/data-postgres-0 names" in text


def test_a_class_that_is_not_in_the_input_beside_one_that_is(tmp_path):
    code, out, _ = run(tmp_path, postgres("fast-ssd"), NODES + GP3, "-o", "json")
    fixes = {f["kind"]: f for f in json.loads(out)["suggestions"]}
    assert fixes["create-storage-class"]["change"][0]["value"]["provisioner"] == "ebs.csi.aws.com"
    assert fixes["set-storage-class"]["description"] == (
        "set storageClassName: gp3 (a class of the input) in the StatefulSet's volumeClaimTemplates entry data "
        "(claim db/data-postgres-0)")


def test_no_class_and_no_default_class(tmp_path):
    code, out, _ = run(tmp_path, postgres(None), NODES, "-o", "json")
    trace = json.loads(out)
    assert code == 1 and trace["result"]["message"] == MESSAGE
    (claim,) = trace["rejection"]["claims"]
    assert claim["cause"] == "noDefaultClass" and claim["defaultClasses"] == []
    (fix,) = trace["suggestions"]
    assert fix["kind"] == "default-storage-class"
    assert fix["change"][0]["value"]["metadata"]["annotations"] == {
        "storageclass.kubernetes.io/is-default-class": "true"}
    code, out, _ = run(tmp_path, postgres(None), NODES)
    assert "it names no StorageClass and the input has no default StorageClass" in " ".join(out.split())


def test_no_class_with_a_class_that_is_not_the_default(tmp_path):
    code, out, _ = run(tmp_path, postgres(None), NODES + GP3, "-o", "json")
    kinds = [f["kind"] for f in json.loads(out)["suggestions"]]
    assert kinds == ["default-storage-class", "set-storage-class"]
    first = json.loads(out)["suggestions"][0]
    assert first["description"].startswith("make StorageClass gp3 the default")


WAITING_CLAIM = """---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-postgres-0, namespace: db}
spec:
  storageClassName: nfs
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 20Gi}}
"""


def test_an_immediate_class_without_a_volume(tmp_path):
    """The cluster's claim, unbound: its provisioner has not made its volume (a claim of the POD
    file would have it made: `kexplain.controllers.persistentvolume.provision`)."""
    code, out, _ = run(tmp_path, postgres("nfs"), NODES + IMMEDIATE + WAITING_CLAIM, "-o", "json")
    trace = json.loads(out)
    (claim,) = trace["rejection"]["claims"]
    assert claim == {"volume": "data", "claim": "db/data-postgres-0", "request": "20Gi",
                     "accessModes": ["ReadWriteOnce"], "cause": "noMatchingVolume", "storageClass": "nfs",
                     "bindingMode": "Immediate", "matchingVolumes": 0, "provisioner": "nfs.csi.k8s.io"}
    code, out, _ = run(tmp_path, postgres("nfs"), NODES + IMMEDIATE + WAITING_CLAIM)
    assert ("its class nfs binds at once (Immediate) and no free PersistentVolume of the class matches it (20Gi "
            "ReadWriteOnce); in a cluster nfs.csi.k8s.io would provision one") in " ".join(out.split())


def test_a_claim_that_is_not_in_the_input(tmp_path):
    pod = """apiVersion: v1
kind: Pod
metadata: {name: uploader, namespace: media}
spec:
  containers: [{name: app, image: registry.example.com/uploader:3}]
  volumes: [{name: uploads, persistentVolumeClaim: {claimName: uploads}}]
"""
    code, out, _ = run(tmp_path, pod, NODES, "-o", "json")
    trace = json.loads(out)
    assert trace["result"]["message"].startswith('0/2 nodes are available: persistentvolumeclaim "uploads" not found.')
    assert trace["rejection"] == {"plugin": "VolumeRestrictions",       # the first PreFilter to look it up
                                  "claims": [{"volume": "uploads", "claim": "media/uploads", "cause": "missing"}]}
    code, out, _ = run(tmp_path, pod, NODES)
    assert "claim media/uploads (volume uploads): not in the input" in " ".join(out.split())


def test_a_claim_that_waits_for_its_consumer_is_no_cause(tmp_path):
    code, out, _ = run(tmp_path, postgres("gp3"), NODES + GP3, "-o", "json")
    trace = json.loads(out)
    assert code == 0 and "rejection" not in trace


def test_lint_gives_the_causes_in_its_details(tmp_path):
    from kexplain.lint.linter import LintOptions, default_suggester, lint
    (tmp_path / "app.yaml").write_text(postgres("fast-ssd"))
    (tmp_path / "cluster.yaml").write_text(NODES)
    report = lint(LintOptions((str(tmp_path / "app.yaml"),), (str(tmp_path / "cluster.yaml"),)),
                  suggester=default_suggester())
    (finding,) = report.findings
    assert finding.rule == "unschedulable" and finding.message == MESSAGE      # the scheduler's words
    assert [c["cause"] for c in finding.details["rejection"]["claims"]] == ["classMissing"]
    assert finding.suggestions[0].startswith("create StorageClass fast-ssd")


def test_two_claims_without_their_classes_get_one_change_for_both(tmp_path):
    app = """apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: media, namespace: cms}
spec: {storageClassName: fast-ssd, accessModes: [ReadWriteOnce], resources: {requests: {storage: 50Gi}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: backups, namespace: cms}
spec: {storageClassName: cold-hdd, accessModes: [ReadWriteOnce], resources: {requests: {storage: 200Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: wordpress, namespace: cms}
spec:
  containers: [{name: wordpress, image: wordpress:6, volumeMounts: [{name: media, mountPath: /var/www/html},
                                                                    {name: backups, mountPath: /backups}]}]
  volumes:
  - {name: media, persistentVolumeClaim: {claimName: media}}
  - {name: backups, persistentVolumeClaim: {claimName: backups}}
"""
    code, out, _ = run(tmp_path, app, NODES + GP3, "-o", "json")
    trace = json.loads(out)
    assert [(c["claim"], c["cause"]) for c in trace["rejection"]["claims"]] == [
        ("cms/media", "classMissing"), ("cms/backups", "classMissing")]
    (both,) = trace["suggestions"]          # no single change is enough: the two together
    assert [op["value"]["metadata"]["name"] for op in both["change"]] == ["fast-ssd", "cold-hdd"]
    assert both["nodesOpened"] == 2

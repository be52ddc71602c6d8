"""Controllers as they create pods (issue 39, item 2): the Deployment controller's
pod-template-hash and the StatefulSet controller's controller-revision-hash on the copies, so
that `matchLabelKeys: [pod-template-hash]` spreads the new revision alone; an HPA applied with its
Deployment sets the replicas its controller sets at once."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.admission.pod_spec_defaults import default_pod_template
from kexplain.apimachinery.fielderrors import go_json
from kexplain.apimachinery.gohash import compute_hash, fnv32, fnv32a, hash_controller_revision, safe_encode_string
from kexplain.cli.app import main
from kexplain.features import KubeVersion
from kexplain.controllers.controller_utils import (_GoJSON, _stored_template, controller_revision_name, pod_template_hash,
                                            printed_template)
from kexplain.controllers.podautoscaler import BELOW_MIN, desired_replicas
from tests.support.cli_helpers import TestEnvironment

V1_35 = KubeVersion("1.35")

# A ControllerRevision as a cluster stored it (its Data and the hash in its name and its
# controller.kubernetes.io/hash label, c77f6d978, for collision count 0), in the test fixtures
# of a public operator: the one pair of Data and name kexplain checks its revision hash against.
RECORDED_DATA = (b'{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"test":"value"},'
                 b'"creationTimestamp":null,"labels":{"app":"foo"}},"spec":{"containers":[{"image":"test",'
                 b'"imagePullPolicy":"Always","name":"test","resources":{},"terminationMessagePath":'
                 b'"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst",'
                 b'"restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},'
                 b'"terminationGracePeriodSeconds":30}}}}')
RECORDED_TEMPLATE = {"metadata": {"annotations": {"test": "value"}, "labels": {"app": "foo"}},
                     "spec": {"containers": [{"image": "test", "name": "test"}]}}


def test_fnv_and_safe_encoding() -> None:
    # the FNV reference vectors (32 bits): "" is the offset basis; "a"
    assert fnv32a(b"") == fnv32(b"") == 0x811C9DC5
    assert fnv32a(b"a") == 0xE40C292C and fnv32(b"a") == 0x050C5D7E
    # SafeEncodeString maps each digit by its code modulo 27 into "bcdfghjklmnpqrstvwxz2456789"
    assert safe_encode_string("0123456789") == "456789bcdf"
    assert compute_hash("") == safe_encode_string(str(0x811C9DC5))
    # the collision count goes in as 8 little-endian bytes
    assert compute_hash("x", 1) == safe_encode_string(str(fnv32a(b"\x01" + bytes(7), fnv32a(b"x"))))


def test_revision_hash_of_a_recorded_revision() -> None:
    assert hash_controller_revision(RECORDED_DATA, 0) == "c77f6d978"
    assert hash_controller_revision(RECORDED_DATA, 1) != "c77f6d978"


def test_revision_data_is_the_sets_template_as_encoded() -> None:
    """The same Data from the template as written, but for creationTimestamp, which 1.35's
    ObjectMeta tags `omitzero` (the recorded revision is from an older release)."""
    encoded = _GoJSON("1.35").value("v1.PodTemplateSpec", _stored_template(RECORDED_TEMPLATE))
    patch = go_json({"spec": {"template": {"$patch": "replace", **encoded}}}, sort_keys=True)
    assert patch.encode() == RECORDED_DATA.replace(b'"creationTimestamp":null,', b"")
    name = controller_revision_name("web", RECORDED_TEMPLATE, V1_35)
    assert name == "web-" + hash_controller_revision(patch.encode(), 0)


def test_the_printed_template_follows_spew() -> None:
    """DeepHashObject's text for a small template: every field in declaration order with its Go
    type, nil pointers/lists/maps as <nil>, strings bare, the labels sorted, a pointer's target
    after its type, a quantity's int64 amount, scale, cached text and format."""
    template = default_pod_template({"metadata": {"labels": {"tier": "web", "app": "shop"}},
                                     "spec": {"containers": [{"name": "web", "image": "nginx:1.27",
                                                              "resources": {"requests": {"cpu": "250m"}}}]}})
    text = printed_template(template, V1_35)
    assert text.startswith("(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) GenerateName:(string) "
                           "Namespace:(string) SelfLink:(string) UID:(types.UID) ResourceVersion:(string) "
                           "Generation:(int64)0 CreationTimestamp:(v1.Time){Time:(time.Time){wall:(uint64)0 "
                           "ext:(int64)0 loc:(*time.Location)<nil>}} DeletionTimestamp:(*v1.Time)<nil> "
                           "DeletionGracePeriodSeconds:(*int64)<nil> Labels:(map[string]string)map[app:shop tier:web] "
                           "Annotations:(map[string]string)<nil> ")
    assert ("Resources:(v1.ResourceRequirements){Limits:(v1.ResourceList)<nil> Requests:(v1.ResourceList)"
            "map[cpu:{i:(resource.int64Amount){value:(int64)250 scale:(resource.Scale)-3} d:(resource.infDecAmount)"
            "{Dec:(*inf.Dec)<nil>} s:(string)250m Format:(resource.Format)DecimalSI}] Claims:([]v1.ResourceClaim)<nil>}"
            ) in text
    assert "TerminationGracePeriodSeconds:(*int64)30 " in text
    assert "SecurityContext:(*v1.PodSecurityContext){SELinuxOptions:(*v1.SELinuxOptions)<nil> " in text
    assert "ImagePullPolicy:(v1.PullPolicy)IfNotPresent " in text
    # 1.36's PodSpec ends with SchedulingGroup, 1.35's with WorkloadRef
    assert text.endswith("WorkloadRef:(*v1.WorkloadReference)<nil>}}")
    assert printed_template(template, KubeVersion("1.36")).endswith("SchedulingGroup:(*v1.PodSchedulingGroup)<nil>}}")


def test_the_hash_depends_on_the_template_and_the_version_only() -> None:
    a = {"metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{"name": "api", "image": "api:1"}]}}
    b = {"metadata": {"labels": {"app": "api"}}, "spec": {"containers": [{"name": "api", "image": "api:2"}]}}
    same = {"metadata": {"labels": {"app": "api"}}, "spec": {
        "containers": [{"name": "api", "image": "api:1", "imagePullPolicy": "IfNotPresent", "resources": {}}],
        "restartPolicy": "Always", "terminationGracePeriodSeconds": 30}}
    assert pod_template_hash(a, V1_35) == pod_template_hash(same, V1_35)      # the API server's defaults
    assert pod_template_hash(a, V1_35) != pod_template_hash(b, V1_35)
    assert len(pod_template_hash(a, V1_35)) in (9, 10)


NODES = """\
apiVersion: v1
kind: Node
metadata:
  name: zone-a-1
  labels: {kubernetes.io/hostname: zone-a-1, topology.kubernetes.io/zone: eu-west-1a}
status: {capacity: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata:
  name: zone-b-1
  labels: {kubernetes.io/hostname: zone-b-1, topology.kubernetes.io/zone: eu-west-1b}
status: {capacity: {cpu: "8", memory: 32Gi, pods: "110"}}
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata:
  name: checkout-6f9c7d8b4-old{i}
  namespace: shop
  labels: {{app: checkout, pod-template-hash: 6f9c7d8b4}}
spec:
  nodeName: zone-a-1
  containers: [{{name: checkout, image: registry.example.com/checkout:1.8, resources: {{requests: {{cpu: 100m}}}}}}]
""" for i in range(3))

ROLLOUT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: checkout, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: checkout}}
  template:
    metadata: {labels: {app: checkout}}
    spec:
      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector: {matchLabels: {app: checkout}}
        matchLabelKeys: [pod-template-hash]
      containers:
      - name: checkout
        image: registry.example.com/checkout:1.9
        resources: {requests: {cpu: 100m, memory: 128Mi}}
"""


def _explain(tmp_path: Path, manifest: str, *extra: str) -> tuple[int, dict, str]:
    (tmp_path / "app.yaml").write_text(manifest)
    (tmp_path / "nodes.yaml").write_text(NODES)
    env = TestEnvironment()
    code = main([str(tmp_path / "app.yaml"), "--nodes", str(tmp_path / "nodes.yaml"), "-o", "json",
                 "--no-suggestions", *extra], env=env)
    return code, json.loads(env.out), env.err


def test_match_label_keys_spreads_the_new_revision_alone(tmp_path: Path) -> None:
    """Three pods of the old revision run in zone a. With the new pods' pod-template-hash, the
    spread counts the new revision only: one new pod per zone. (Without the label, the key is
    skipped and the old pods count: both new pods would go to zone b.)"""
    code, doc, _ = _explain(tmp_path, ROLLOUT)
    assert code == 0
    [placement] = doc["placements"]
    assert placement["zones"] == {"eu-west-1a": 1, "eu-west-1b": 1}
    labels = {tuple(sorted(i["pod"].items())) for i in doc["items"]}
    assert len(labels) == 2


def test_statefulset_and_daemonset_copies_carry_their_revision(tmp_path: Path) -> None:
    from kexplain.explain.inputs import load
    from kexplain.explain.request import Request
    sts = ROLLOUT.replace("kind: Deployment", "kind: StatefulSet").replace("name: checkout, namespace",
                                                                          "name: ledger, namespace")
    ds = ROLLOUT.replace("kind: Deployment", "kind: DaemonSet").replace("  replicas: 2\n", "").replace(
        "name: checkout, namespace", "name: agent, namespace")
    (tmp_path / "app.yaml").write_text(sts + "---\n" + ds)
    (tmp_path / "nodes.yaml").write_text(NODES)
    loaded = load(Request(pod_path=str(tmp_path / "app.yaml"), node_paths=(str(tmp_path / "nodes.yaml"),)))
    by_kind = {e.kind: e.pod["metadata"]["labels"] for e in loaded.batch}
    assert by_kind["StatefulSet"]["controller-revision-hash"].startswith("ledger-")
    assert by_kind["StatefulSet"]["controller-revision-hash"] == controller_revision_name(
        "ledger", json.loads(json.dumps(loaded.batch[0].workload["spec"]["template"])), KubeVersion())
    assert by_kind["DaemonSet"]["pod-template-generation"] == "1"
    assert by_kind["DaemonSet"]["controller-revision-hash"] == pod_template_hash(
        loaded.batch[1].workload["spec"]["template"], KubeVersion())


HPA = """---
apiVersion: {version}
kind: HorizontalPodAutoscaler
metadata: {{name: checkout, namespace: shop}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: checkout}}
  minReplicas: {minimum}
  maxReplicas: 10
"""


@pytest.mark.parametrize("version", ["autoscaling/v2", "autoscaling/v1"])
def test_an_hpa_raises_the_replicas_to_its_minimum(tmp_path: Path, version: str) -> None:
    code, doc, err = _explain(tmp_path, ROLLOUT + HPA.format(version=version, minimum=4))
    assert code == 0
    assert doc["placements"][0]["replicas"] == 4
    assert ("Deployment shop/checkout: HorizontalPodAutoscaler shop/checkout sets spec.replicas from 2 to 4 at once "
            "(SuccessfulRescale: New size: 4; reason: Current number of replicas below Spec.MinReplicas)") in err


def test_hpa_bounds() -> None:
    hpa = {"spec": {"minReplicas": 3, "maxReplicas": 5}}
    assert desired_replicas(hpa, 1) == (3, BELOW_MIN)
    assert desired_replicas(hpa, 9) == (5, "Current number of replicas above Spec.MaxReplicas")
    assert desired_replicas(hpa, 4) == (4, "")
    assert desired_replicas(hpa, 0) == (0, "")                      # scaled to zero: autoscaling disabled
    assert desired_replicas({"spec": {"maxReplicas": 5}}, 0) == (0, "")
    assert desired_replicas({"spec": {"minReplicas": 0, "maxReplicas": 5}}, 0) == (0, "")

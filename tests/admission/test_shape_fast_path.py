"""The fast path of admission (pods of one shape patched, `kexplain.admission.shapes`) against
the full path: the same admitted objects, byte for byte (key order and value types included),
the same warnings, and the same refusal (type, words, object, field) on every input.

Inputs: the clusters of the conformance cases (shared and bundled), each with every pod copied
under other names, uids, nodes and zones (so that shapes repeat, as on a large cluster), and
hand-made clusters with what could tell the two paths apart: an invalid name or node in a
later copy, a uid admission generates, ephemeral volumes, matchLabelKeys, RuntimeClass
overhead, priority classes, YAML values (timestamps, `1.0`), nulls, duplicate names.
"""
from __future__ import annotations

import copy
import datetime
from pathlib import Path
from typing import Any

import pytest

from kexplain.admission import admit
from kexplain.admission.shapes import ShapeIndex
from kexplain.errors import KexplainError, Source
from kexplain.load.manifests import check_objects, load_objects
from tests.support.paths import conformance_roots

SRC = Source("cluster.yaml", 1)
ZONES = ("zone-a", "zone-b", "zone-c")
FAMILIES_STRIDE = 10       # every 10th case of each family: all families, a bounded run


def _cases() -> list[Path]:
    found: list[Path] = []
    for root in conformance_roots():
        dirs = sorted(p for p in root.iterdir() if (p / "cluster.yaml").is_file())
        by_family: dict[str, list[Path]] = {}
        for d in dirs:
            by_family.setdefault(d.name.split("-")[0], []).append(d)
        for members in by_family.values():
            found += members[::FAMILIES_STRIDE]
    return found


def outcome(cluster: list[tuple[dict, Source]], pending: tuple[dict, Source] | None, by_shape: bool) -> tuple:
    """What admission makes of the input, in comparable form; the input must stay as it was."""
    before = repr(cluster), repr(pending)
    try:
        result = admit(cluster, pending, by_shape=by_shape)
    except KexplainError as err:
        got: tuple = ("refused", type(err).__name__, str(err), err.field, repr(err.obj), str(err.source))
        patched = 0
    else:
        got = ("admitted", repr([o for o, _ in result.objects]), [str(s) for _, s in result.objects],
               repr(result.pending), result.warnings)
        patched = result.patched
    assert (repr(cluster), repr(pending)) == before, "admission changed its input"
    return got, patched


def assert_same(cluster: list[tuple[dict, Source]], pending: tuple[dict, Source] | None = None) -> int:
    """Both paths agree; returns how many pods the fast path patched."""
    fast, patched = outcome(cluster, pending, True)
    full, none = outcome(cluster, pending, False)
    assert none == 0
    assert fast == full
    return patched


def amplified(objects: list[tuple[dict, Source]], copies: int = 3) -> list[tuple[dict, Source]]:
    """`objects` with every Pod followed by copies of it under other identities: renamed, its
    uid dropped, changed or kept, bound to other nodes of the cluster, in other zones."""
    nodes = [o["metadata"]["name"] for o, _ in objects if isinstance(o, dict) and o.get("kind") == "Node"
             and isinstance(o.get("metadata"), dict) and isinstance(o["metadata"].get("name"), str)]
    out: list[tuple[dict, Source]] = []
    for i, (obj, src) in enumerate(objects):
        out.append((obj, src))
        if not isinstance(obj, dict) or obj.get("kind") != "Pod" or not isinstance(obj.get("metadata"), dict):
            continue
        for j in range(copies):
            twin = copy.deepcopy(obj)
            meta = twin["metadata"]
            if isinstance(meta.get("name"), str) and meta["name"]:
                meta["name"] = f"{meta['name']}-copy{j}"
            if j == 0:
                meta.pop("uid", None)
            elif j == 1:
                meta["uid"] = f"uid-{i}-{j}"
            spec = twin.get("spec")
            if isinstance(spec, dict) and isinstance(spec.get("nodeName"), str) and spec["nodeName"] and nodes:
                spec["nodeName"] = nodes[(i + j) % len(nodes)]
            labels = meta.get("labels")
            if isinstance(labels, dict) and "topology.kubernetes.io/zone" in labels:
                labels["topology.kubernetes.io/zone"] = ZONES[j % len(ZONES)]
            out.append((twin, src))
    return out


def _pod_of(case: Path) -> tuple[dict, Source] | None:
    try:
        objs = load_objects([str(case / "pod.yaml")])
    except KexplainError:
        return None
    pods = [(o, s) for o, s in objs if o.get("kind") == "Pod"]
    return pods[0] if len(pods) == 1 else None


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name)
def test_conformance_clusters_admit_alike(case: Path) -> None:
    try:
        cluster = load_objects([str(case / "cluster.yaml")])
    except KexplainError:
        pytest.skip("the cluster does not load (a case about that)")
    cluster = amplified(cluster)
    assert_same(cluster)
    pending = _pod_of(case)
    if pending is not None:
        assert_same(cluster, pending)


def test_conformance_clusters_take_the_fast_path() -> None:
    """The comparison above is not vacuous: on the amplified clusters most copies are patched."""
    patched = copies = 0
    for case in _cases()[:60]:
        try:
            cluster = amplified(load_objects([str(case / "cluster.yaml")]))
        except KexplainError:
            continue
        copies += sum(1 for o, _ in cluster if o.get("kind") == "Pod")
        patched += outcome(cluster, None, True)[1]
    if copies == 0:
        pytest.skip("no conformance cases here")
    assert patched > copies // 3


# -- hand-made inputs ------------------------------------------------------------------------
def node(name: str, zone: str = "zone-a") -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.kubernetes.io/zone": zone,
                                                  "topology.kubernetes.io/region": "r1"}},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def pod(name: str, node_name: str | None = "n1", **spec: Any) -> dict:
    spec.setdefault("containers", [{"name": "c", "image": "nginx:1.0",
                                    "resources": {"requests": {"cpu": "0.5", "memory": "1Gi"},
                                                  "limits": {"memory": "1Gi"}}}])
    if node_name is not None:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "team", "labels": {"app": "web", "pod-template-hash": "abc"}},
            "spec": spec, "status": {"phase": "Running"}}


def cluster_of(*objs: dict) -> list[tuple[dict, Source]]:
    base = [node("n1"), node("n2", "zone-b"), node("n3", "zone-c")]
    return [(o, SRC) for o in (*base, *objs)]


def replicas(make: Any, count: int = 4) -> list[dict]:
    return [make(i) for i in range(count)]


def test_plain_replicas_are_patched_and_share_what_admission_leaves() -> None:
    """What admission leaves of a pod is shared with the pod as written (its status), and what
    it writes alike into every pod of a shape (defaults, the defaulted containers) is shared by
    them; what is each pod's own is not."""
    pods = replicas(lambda i: pod(f"web-{i}", f"n{i % 3 + 1}"))
    cluster = cluster_of(*pods)
    assert assert_same(cluster) == len(pods)        # the first replica too: by its shape's patch
    result = admit(cluster, None)
    admitted = [o for o, _ in result.objects if o["kind"] == "Pod"]
    assert admitted[1]["status"] is pods[1]["status"]
    assert admitted[1]["spec"]["containers"] is admitted[2]["spec"]["containers"]
    assert admitted[1]["metadata"]["labels"]["topology.kubernetes.io/zone"] == "zone-b"
    assert admitted[1]["metadata"]["uid"] != admitted[2]["metadata"]["uid"]
    assert admitted[1]["spec"]["securityContext"] is admitted[2]["spec"]["securityContext"] == {}
    assert admitted[1]["spec"] is not admitted[2]["spec"]
    assert [p["spec"]["nodeName"] for p in admitted] == [p["spec"]["nodeName"] for p in pods]


def test_a_spec_given_defaults_is_made_from_the_shapes_admitted_spec() -> None:
    """A spec that admission only gives defaults is a copy of its shape's admitted spec with the
    pod's own values (its node) written back (`shapes._templated`): what the pods have alike and
    admission left (a node selector) is then shared by them too; keys and values are the full
    path's (`assert_same`)."""
    pods = replicas(lambda i: pod(f"web-{i}", f"n{i % 3 + 1}", nodeSelector={"disk": "ssd"}))
    cluster = cluster_of(*pods)
    assert assert_same(cluster) == len(pods)
    admitted = [o for o, _ in admit(cluster, None).objects if o["kind"] == "Pod"]
    assert admitted[1]["spec"]["nodeSelector"] is admitted[2]["spec"]["nodeSelector"] == {"disk": "ssd"}
    assert admitted[1]["spec"]["nodeSelector"] is not pods[1]["spec"]["nodeSelector"]
    assert [p["spec"]["nodeName"] for p in admitted] == ["n1", "n2", "n3", "n1"]
    assert admitted[1]["spec"] is not admitted[2]["spec"]


def _variant(name: str, i: int) -> dict:
    """The i-th replica of a workload whose pods are of one shape but for what `name` says."""
    p = pod(f"w-{i}", f"n{i % 3 + 1}")
    meta, spec = p["metadata"], p["spec"]
    if name == "bad-name-later" and i == 2:
        meta["name"] = "Bad_Name"
    elif name == "bad-node-later" and i == 2:
        spec["nodeName"] = "Bad_Node"
    elif name == "long-name-ephemeral":
        meta["name"] = ("x" * 240 if i == 2 else "w") + f"-{i}"
        spec["volumes"] = [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}}]
    elif name == "uid-kinds":
        meta["uid"] = [None, "", "u-1", None][i % 4]
    elif name == "uid-not-a-string" and i == 2:
        meta["uid"] = 7
    elif name == "duplicate-name" and i == 3:
        meta["name"] = "w-1"
    elif name.startswith("match-label-keys"):
        meta["labels"]["pod-template-hash"] = f"h{i % 2}"
        keys = ["pod-template-hash"] + (["topology.kubernetes.io/zone"] if name.endswith("zone") else [])
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"app": "web"}},
                                              "matchLabelKeys": keys}]
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname",
            "mismatchLabelKeys": ["tier"] if i % 2 else []}]}}
        meta["labels"]["topology.kubernetes.io/zone"] = ZONES[i % 3]
    elif name == "zone-label-invalid-later":
        meta["labels"]["topology.kubernetes.io/zone"] = "bad zone!" if i == 2 else "zone-a"
    elif name == "no-labels":
        del meta["labels"]
    elif name == "null-labels":
        meta["labels"] = None
    elif name == "unbound":
        del spec["nodeName"]
    elif name == "unknown-node":
        spec["nodeName"] = "elsewhere"
    elif name == "yaml-timestamp":
        meta["creationTimestamp"] = datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    elif name == "yaml-naive-timestamp" and i == 2:
        meta["creationTimestamp"] = datetime.datetime(2024, 1, 2, 3, 4, 5)
    elif name == "float-values":
        spec["containers"][0]["ports"] = [{"containerPort": 80.0, "hostPort": None}]
        spec["terminationGracePeriodSeconds"] = 10.0
        spec["nodeSelector"] = {"pool": None}
    elif name == "null-port-later" and i == 2:
        spec["containers"][0]["ports"] = [{"containerPort": 80}, None]
    elif name == "priority":
        spec["priorityClassName"] = "high"
    elif name == "priority-given-wrong" and i == 2:
        spec["priority"] = 5
    elif name == "runtime-class":
        spec["runtimeClassName"] = "kata"
    elif name == "default-namespace":
        del meta["namespace"]
    elif name == "mirror-annotation":
        meta["annotations"] = {"kubernetes.io/config.mirror": "x"}
        if i == 2:
            del spec["nodeName"]
    elif name == "label-values":                # a workload's labels, each pod's values its own
        meta["labels"].update({"app": f"web-{i}", "pod-template-hash": f"{i * 7919:08x}", "empty": "" if i else "x"})
    elif name == "label-value-invalid-later" and i == 2:
        meta["labels"]["tier"] = "not a label value!"
    elif name == "label-value-long-later":
        meta["labels"]["tier"] = "t" * (64 if i == 2 else 63)
    elif name == "annotation-values":           # unique annotations: each pod's values its own
        meta["annotations"] = {"example.com/build": f"b-{i}", "note": "x" * i,
                               "kubernetes.io/description": "kept in the shape"}
    elif name == "annotation-key-invalid-later":
        meta["annotations"] = {"example.com/build": f"b-{i}", **({"bad key!": "v"} if i == 2 else {})}
    elif name == "annotations-too-large-later":
        meta["annotations"] = {"example.com/blob": "x" * (256 * 1024 - 16 + (8 if i == 2 else 0))}
    elif name == "deletion-cost-later":
        meta["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": "x" if i == 2 else str(i),
                               "example.com/build": f"b-{i}"}
    elif name == "merged-label-values":     # values merged into the selector: each pod keyed by them
        meta["labels"]["pod-template-hash"] = f"h{i}"
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"app": "web"}},
                                              "matchLabelKeys": ["pod-template-hash"]}]
    elif name == "label-placeholder-text":
        meta["labels"]["copy"] = "kexplain-placeholder-label"
        meta["annotations"] = {"copy": "kexplain-placeholder-annotation"}
    elif name == "scheduling-gates":
        spec["schedulingGates"] = [{"name": "g"}]
    elif name == "host-network":
        spec["hostNetwork"] = True
        spec["containers"][0]["ports"] = [{"containerPort": 8080}]
    elif name == "node-name-placeholder-text":
        meta["annotations"] = {"note": "kexplain-placeholder-node.invalid"}
    elif name.startswith("stateful"):             # a StatefulSet's pods: what its controller derives from the name
        pod_name = meta["name"] = f"db-{i}"
        if name == "stateful-dotted-later" and i == 2:
            pod_name = meta["name"] = "db.2"            # a valid name, not a valid hostname
        meta["labels"].update({"statefulset.kubernetes.io/pod-name": pod_name, "apps.kubernetes.io/pod-index": str(i)})
        spec.update({"hostname": pod_name, "subdomain": "db",
                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": f"data-{pod_name}"}},
                                 {"name": "cfg", "configMap": {"name": "db-config"}}]})
        if name == "stateful-match-label-keys":
            spec["topologySpreadConstraints"] = [{
                "maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"app": "web"}}, "matchLabelKeys": ["apps.kubernetes.io/pod-index"]}]
        if name == "stateful-fqdn":
            spec["setHostnameAsFQDN"] = True
    elif name == "image-values":                # each pod its own image, of one tag's class
        spec["containers"][0]["image"] = f"registry.example/app-{i}:1"
    elif name == "image-classes":               # "latest" (said or not), a tag, a digest: pull policies apart
        spec["containers"][0]["image"] = ["nginx", "nginx:latest", "nginx:1.0", "nginx@sha256:" + "a" * 64,
                                          "Nginx:1.0"][i % 5]
    elif name == "image-placeholder-text":
        spec["containers"][0]["image"] = "kexplain-placeholder-image:tag" if i % 2 else "kexplain-placeholder-image"
    elif name == "image-init-containers":
        spec["initContainers"] = [{"name": "init", "image": f"registry.example/init-{i}"}]
    elif name == "image-volume":                # an image volume: the pod's images as written stay in the key
        spec["containers"][0]["image"] = f"registry.example/app-{i}:1"
        spec["volumes"] = [{"name": "data", "image": {"reference": "registry.example/data:1"}}]
        spec["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    elif name == "image-space-later" and i == 2:
        spec["containers"][0]["image"] = " nginx:1.0"
    elif name == "image-empty-later" and i == 2:
        spec["containers"][0]["image"] = ""
    elif name.startswith("volume"):               # each pod's own token volume, as an API server names it
        token = f"kube-api-access-{i:05x}"
        spec["volumes"] = [{"name": token, "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
                           {"name": "config", "configMap": {"name": "config"}},
                           {"name": "kexplain-placeholder-volume-0", "emptyDir": {}}]
        spec["containers"][0]["volumeMounts"] = [{"name": token, "mountPath": "/var/run/token"},
                                                 {"name": "config", "mountPath": "/etc/config"}]
        spec["initContainers"] = [{"name": "init", "image": "busybox:1", "volumeMounts": [
            {"name": "kexplain-placeholder-volume-0", "mountPath": "/scratch"}, {"name": token, "mountPath": "/t"}]}]
        if name == "volume-name-invalid-later" and i == 2:
            spec["volumes"][0]["name"] = spec["containers"][0]["volumeMounts"][0]["name"] = "Bad_Volume"
        elif name == "volume-name-twice-later" and i == 2:
            spec["volumes"][1]["name"] = token
        elif name == "volume-mount-unknown-later" and i == 2:
            spec["containers"][0]["volumeMounts"][1]["name"] = "elsewhere"
        elif name == "volume-ephemeral-containers-later" and i == 2:
            spec["ephemeralContainers"] = [{"name": "debug", "image": "busybox:1",
                                            "volumeMounts": [{"name": token, "mountPath": "/t"}]}]
    elif name.startswith("owner"):                # each pod its own owner (a one-replica app's ReplicaSet)
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"web-{i}-5d8f7c",
                                    "uid": f"rs-{i}", "controller": True, "blockOwnerDeletion": True},
                                   {"apiVersion": "v1", "kind": "ConfigMap", "name": "shared", "uid": "cm-1"}]
        refs = meta["ownerReferences"]
        if name == "owner-placeholder-text":
            refs[0].update(name="kexplain-placeholder-owner", uid="kexplain-placeholder-owner-uid") if i % 2 else None
        elif name == "owner-named-as-pod":
            refs[0].update(name=meta["name"], uid=f"w-{i}")
        elif i == 2 and name == "owner-name-empty-later":
            refs[0]["name"] = ""
        elif i == 2 and name == "owner-uid-missing-later":
            del refs[1]["uid"]
        elif i == 2 and name == "owner-two-controllers-later":
            refs[1]["controller"] = True
        elif i == 2 and name == "owner-name-not-a-string-later":
            refs[0]["name"] = 7
        elif i == 2 and name == "owner-kind-empty-later":
            refs[0]["kind"] = ""
    elif name.startswith("generate-name"):        # each pod its controller's generateName (its own ReplicaSet's)
        meta["generateName"] = {"generate-name-placeholder-text": "kexplain-placeholder-generated-" if i % 2 else
                                f"web-{i}-5d8f7c-", "generate-name-masked": "w" * 252 + f"{i}-",
                                "generate-name-invalid-later": "-web-" if i == 2 else f"web-{i}-",
                                "generate-name-long-later": "w" * 253 + f"{i}-" if i == 2 else f"web-{i}-",
                                "generate-name-not-a-string-later": 7 if i == 2 else f"web-{i}-"
                                }.get(name, f"web-{i}-5d8f7c-")
    elif name.startswith("daemon"):               # a DaemonSet's pods: each pinned to its node
        values = [spec["nodeName"]] if not (name == "daemon-bad-pin-later" and i == 2) else ["Bad_Node"]
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": values}]}]}}}
        spec["tolerations"] = [{"operator": "Exists"}]
    return p


ADMITTED = ["plain", "long-name-ephemeral", "uid-kinds", "match-label-keys", "match-label-keys-zone", "no-labels",
            "null-labels", "unbound", "unknown-node", "yaml-timestamp", "float-values", "priority", "runtime-class",
            "default-namespace", "host-network", "node-name-placeholder-text", "stateful", "stateful-match-label-keys",
            "stateful-fqdn", "daemon", "label-values", "annotation-values", "merged-label-values",
            "label-placeholder-text", "image-values", "image-classes", "image-placeholder-text",
            "image-init-containers", "image-volume", "volume-names", "owner-references", "owner-placeholder-text",
            "owner-named-as-pod", "generate-name", "generate-name-placeholder-text", "generate-name-masked"]
REFUSED = ["bad-name-later", "bad-node-later", "uid-not-a-string", "duplicate-name", "zone-label-invalid-later",
           "yaml-naive-timestamp", "null-port-later", "priority-given-wrong", "mirror-annotation", "scheduling-gates",
           "stateful-dotted-later", "daemon-bad-pin-later", "label-value-invalid-later", "label-value-long-later",
           "annotation-key-invalid-later", "annotations-too-large-later", "deletion-cost-later",
           "image-space-later", "image-empty-later", "volume-name-invalid-later", "volume-name-twice-later",
           "volume-mount-unknown-later", "volume-ephemeral-containers-later", "owner-name-empty-later",
           "owner-uid-missing-later", "owner-two-controllers-later", "owner-name-not-a-string-later",
           "owner-kind-empty-later", "generate-name-invalid-later", "generate-name-long-later",
           "generate-name-not-a-string-later"]
VARIANTS = ADMITTED + REFUSED
CONTEXT = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
            "value": 1000},
           {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata"}, "handler": "kata",
            "overhead": {"podFixed": {"cpu": "250m"}},
            "scheduling": {"nodeSelector": {"pool": "kata"}, "tolerations": [{"key": "kata", "operator": "Exists"}]}}]


@pytest.mark.parametrize("name", VARIANTS)
def test_variants_admit_alike(name: str) -> None:
    cluster = cluster_of(*CONTEXT, *replicas(lambda i: _variant(name, i), 5))
    assert_same(cluster)
    pending = (pod("pending", None), Source("pod.yaml", 1))
    assert_same(cluster, pending)


@pytest.mark.parametrize("name", ADMITTED)
def test_admitted_variants_are_admitted(name: str) -> None:
    """The variants meant to pass do (both paths agree on it above), most of them patched."""
    got, patched = outcome(cluster_of(*CONTEXT, *replicas(lambda i: _variant(name, i), 5)), None, True)
    assert got[0] == "admitted"
    if name not in ("long-name-ephemeral", "match-label-keys-zone", "yaml-timestamp", "stateful-match-label-keys",
                    "stateful-fqdn", "merged-label-values"):   # (a shape of one pod each: the full path)
        assert patched > 0
    if name in ("stateful", "daemon", "label-values", "annotation-values", "label-placeholder-text", "volume-names",
                "owner-references", "owner-placeholder-text", "owner-named-as-pod", "generate-name",
                "generate-name-placeholder-text", "generate-name-masked"):
        assert patched == 5                     # every pod: one shape despite the per-pod fields


@pytest.mark.parametrize("name", ["owner-references", "generate-name", "generate-name-placeholder-text",
                                  "generate-name-masked"])
def test_pods_naming_each_its_own_controller_are_one_shape(name: str) -> None:
    """A one-replica app's pods (each its own ReplicaSet: owner, generateName) are one shape: admitted once."""
    index = ShapeIndex()
    keys = {index.entry(_variant(name, i))[1] for i in range(5)}
    assert len(keys) == 1 and None not in keys


@pytest.mark.parametrize("name", REFUSED)
def test_refused_variants_are_refused(name: str) -> None:
    got, _ = outcome(cluster_of(*CONTEXT, *replicas(lambda i: _variant(name, i), 5)), None, True)
    assert got[0] == "refused"


def test_mixed_shapes_interleaved() -> None:
    pods = [_variant(name, i) for i in range(4) for name in ADMITTED
            if not name.startswith("stateful")]        # (their names are what makes them: renamed below)
    for j, p in enumerate(pods):
        if not p["metadata"]["name"].startswith("x"):
            p["metadata"]["name"] = f"p-{j}"
    assert assert_same(cluster_of(*CONTEXT, *pods)) > len(pods) // 2


@pytest.mark.parametrize("validate", ["strict", "warn", "ignore"])
def test_field_validation_by_shape_alike(validate: str) -> None:
    """check_objects with the load's ShapeIndex: the same warnings and the same refusal."""
    pods = replicas(lambda i: pod(f"web-{i}", f"n{i % 3 + 1}"), 4)
    pods[2]["spec"]["bogus"] = 1              # an unknown field in one replica: its own shape
    pods[3]["spec"]["containers"][0]["ports"] = [{"containerPort": "eighty"}]
    objs = cluster_of(*pods)

    def run(index: ShapeIndex | None) -> tuple:
        try:
            return ("ok", check_objects(objs, {"Pod", "Node"}, validate=validate, shape_index=index))
        except KexplainError as err:
            return ("refused", str(err))
    assert run(ShapeIndex()) == run(None)
    del pods[3]["spec"]["containers"][0]["ports"]
    assert run(ShapeIndex()) == run(None)


def pod_by_pod(objects: list) -> Any:
    """The snapshot of admitted objects with each pod added on its own, its facts worked out
    from its own object (`NodeInfo.add_pod`): what sharing them per shape must equal."""
    from kexplain.model.pod import PodInfo
    from kexplain.model.snapshot import Snapshot
    out = Snapshot.build([(o, s) for o, s in objects if o.get("kind") == "Node"], [])
    for obj, _ in objects:
        if obj.get("kind") == "Pod" and (obj.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
            node = out.get((obj.get("spec") or {}).get("nodeName") or "")
            if node is not None and obj["spec"]["nodeName"]:
                node.add_pod(PodInfo(obj))
    return out


@pytest.mark.parametrize("case", _cases()[::3], ids=lambda p: p.name)
def test_snapshot_from_shapes_equals_one_from_each_pod(case: Path) -> None:
    """The snapshot works out one pod's resources, host ports and affinity terms per shape
    (`kexplain.model.shapes.facts_key`): every pod's, and every node's sums and lists, are those of a
    snapshot that works them out pod by pod."""
    from kexplain.state.build import build_cluster
    try:
        cluster = amplified(load_objects([str(case / "cluster.yaml")]))
        result = admit(cluster, None)
    except KexplainError:
        pytest.skip("the cluster is refused (a case about that)")
    by_shape, _ = build_cluster(result.objects)
    assert_same_snapshot(by_shape, pod_by_pod(result.objects))


def _facts(pod: Any) -> tuple:
    return (pod.key, repr(pod.resource), pod.host_ports, pod.required_affinity_terms,
            pod.required_anti_affinity_terms, pod.preferred_affinity_terms, pod.preferred_anti_affinity_terms)


def assert_same_snapshot(by_shape: Any, by_pod: Any) -> None:
    assert len(by_shape.node_infos) == len(by_pod.node_infos)
    for a, b in zip(by_shape.node_infos, by_pod.node_infos):
        assert [_facts(p) for p in a.pods] == [_facts(p) for p in b.pods]
        assert repr(a.requested) == repr(b.requested) and repr(a.non_zero_requested) == repr(b.non_zero_requested)
        assert [p.key for p in a.pods_with_affinity] == [p.key for p in b.pods_with_affinity]
        assert [p.key for p in a.pods_with_required_anti_affinity] == \
            [p.key for p in b.pods_with_required_anti_affinity]
        assert a.used_ports._by_ip == b.used_ports._by_ip and a.pvc_ref_counts == b.pvc_ref_counts


def test_snapshot_shares_ports_and_affinity_terms_per_shape() -> None:
    """Replicas with host ports and pod (anti-)affinity: one shape, its facts worked out once
    and taken by the others; the snapshot is the one built pod by pod."""
    from kexplain.state.build import build_cluster

    def make(i: int) -> dict:
        p = pod(f"web-{i}", f"n{i % 3 + 1}")
        p["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
        p["spec"]["affinity"] = {
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]},
            "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": {
                "labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "topology.kubernetes.io/zone"}}]}}
        return p
    result = admit(cluster_of(*replicas(make, 6)), None)
    assert result.patched == 6
    by_shape, _ = build_cluster(result.objects)
    assert_same_snapshot(by_shape, pod_by_pod(result.objects))
    pods = [p for ni in by_shape.node_infos for p in ni.pods]
    assert all(p.host_ports and p.required_anti_affinity_terms and p.preferred_affinity_terms for p in pods)
    assert len({id(p.host_ports) for p in pods}) == 1     # the first pod's, taken by the others


def test_snapshot_from_shapes_is_not_vacuous() -> None:
    cases = _cases()[::3]
    shared = 0
    for case in cases:
        try:
            result = admit(amplified(load_objects([str(case / "cluster.yaml")])), None)
        except KexplainError:
            continue
        from kexplain.state.build import build_cluster
        pods = list(build_cluster(result.objects)[0].all_pods())
        shared += len(pods) - len({id(p.facts) for p in pods})
    assert shared > 100


def test_first_pod_of_a_shape_is_patched_or_refused_alike() -> None:
    """A shape's first pod is admitted by the shape's patch as well: alike when it decodes to
    other values (`1.0`), and refused in the full path's words when its name is taken by a pod
    of another shape."""
    floats = replicas(lambda i: _variant("float-values", i), 3)
    result = admit(cluster_of(*floats), None)
    assert result.patched == 3 and assert_same(cluster_of(*floats)) == 3
    first = next(o for o, _ in result.objects if o.get("kind") == "Pod")
    assert first["spec"]["terminationGracePeriodSeconds"] == 10 and type(first["spec"][
        "terminationGracePeriodSeconds"]) is int
    other = pod("web-0", "n2", priorityClassName="high")        # another shape, web-0's name
    cluster = cluster_of(*CONTEXT, pod("web-0", "n1"), other, pod("web-1", "n2", priorityClassName="high"))
    got, _ = outcome(cluster, None, True)
    assert got[0] == "refused" and 'pods "web-0" already exists' in got[2]
    assert_same(cluster)


def _full_path_admissions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the pods admission takes through its steps (`_Admission._admit_steps`: the
    full path, or a shape's canonical pod when its patch is made)."""
    from kexplain.admission import pipeline
    seen: list[str] = []
    steps = pipeline._Admission._admit_steps

    def counted(self: Any, pod: dict, *args: Any, **kwargs: Any) -> None:
        seen.append(pod["metadata"].get("name"))
        steps(self, pod, *args, **kwargs)
    monkeypatch.setattr(pipeline._Admission, "_admit_steps", counted)
    return seen


@pytest.mark.parametrize("name", ["label-values", "annotation-values", "owner-references"])
def test_pods_differing_in_label_or_annotation_values_share_one_admission(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten pods that differ in their label values or annotations (and name and node) are
    admitted once, as their shape's canonical pod; each keeps its own values."""
    pods = replicas(lambda i: _variant(name, i), 10)
    seen = _full_path_admissions(monkeypatch)
    result = admit(cluster_of(*pods), None)
    assert result.patched == 10
    assert seen == ["kexplain-placeholder-name.invalid"]
    admitted = [o for o, _ in result.objects if o["kind"] == "Pod"]
    for written, got in zip(pods, admitted):
        assert got["metadata"].get("annotations") == written["metadata"].get("annotations")
        assert got["metadata"].get("ownerReferences") == written["metadata"].get("ownerReferences")
        assert {k: v for k, v in got["metadata"]["labels"].items() if not k.startswith("topology.")} == \
            written["metadata"]["labels"]


def test_a_shape_of_one_pod_takes_the_full_path_and_makes_no_patch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pods each of a shape of their own (a selector holding each one's label value) are admitted
    by the full path alone: a patch made for one pod would cost a second admission, of its canonical
    pod, and a diff. A shape of three pods still makes one, at its second pod, and patches all three."""
    alone = replicas(lambda i: _variant("merged-label-values", i), 3)
    three = [pod(f"web-{i}", f"n{i % 3 + 1}") for i in range(3)]
    cluster = cluster_of(*alone[:2], *three, alone[2])
    assert assert_same(cluster) == 3
    seen = _full_path_admissions(monkeypatch)
    admit(cluster, None)
    assert sorted(seen) == sorted([p["metadata"]["name"] for p in alone] + ["kexplain-placeholder-name.invalid"])


def test_label_values_merged_by_match_label_keys_keep_pods_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pod whose label values admission merges into its selectors (matchLabelKeys) is keyed by
    them: four values, four admissions, each selector holding its pod's own value."""
    pods = replicas(lambda i: _variant("merged-label-values", i), 4)
    seen = _full_path_admissions(monkeypatch)
    admitted = [o for o, _ in admit(cluster_of(*pods), None).objects if o["kind"] == "Pod"]
    assert len(seen) == 4
    for i, got in enumerate(admitted):
        exprs = got["spec"]["topologySpreadConstraints"][0]["labelSelector"]["matchExpressions"]
        assert exprs == [{"key": "pod-template-hash", "operator": "In", "values": [f"h{i}"]}]


@pytest.mark.parametrize("name", ["label-value-invalid-later", "annotation-key-invalid-later",
                                  "annotations-too-large-later", "deletion-cost-later"])
def test_an_invalid_label_or_annotation_gets_the_full_paths_error(name: str) -> None:
    """The third pod's label value, annotation key, annotations' size or deletion cost is invalid:
    the refusal is the full path's, word for word, and names that pod."""
    cluster = cluster_of(*replicas(lambda i: _variant(name, i), 5))
    fast, _ = outcome(cluster, None, True)
    full, _ = outcome(cluster, None, False)
    assert fast == full and fast[0] == "refused"
    assert 'Pod "w-2" is invalid' in fast[2] and "metadata." in fast[2]


@pytest.mark.parametrize("name", ["owner-name-empty-later", "owner-uid-missing-later", "owner-two-controllers-later"])
def test_an_invalid_owner_reference_gets_the_full_paths_error(name: str) -> None:
    """Pods of one shape but for their owners' names and uids (`shapes.canonical_owners`), the third's
    references invalid: the refusal is the full path's, word for word (the two controllers' names
    included), and names that pod."""
    cluster = cluster_of(*replicas(lambda i: _variant(name, i), 5))
    fast, _ = outcome(cluster, None, True)
    full, _ = outcome(cluster, None, False)
    assert fast == full and fast[0] == "refused"
    assert 'Pod "w-2" is invalid' in fast[2] and "metadata.ownerReferences" in fast[2]
    if name == "owner-two-controllers-later":
        assert "ReplicaSet/web-2-5d8f7c and ConfigMap/shared" in fast[2]

"""Pods not stored read as views (a dump of manifests) and admitted by their shape
(`kexplain.admission.shapes.written_key`, `stored_pods.with_own`) against the objects admitted
one by one: the same admitted objects byte for byte, the same refusals, and each admitted
view the view of its admitted object. Inputs: the fast path's (`test_shape_fast_path`), written
as a compact JSON List and read as a dump is; and texts chosen to tell shapes apart where only
their text says which values are a pod's own.
"""
from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from kexplain.admission import admit
from kexplain.admission.openapi import RFC3339, go_time_parse_error
from kexplain.admission.shapes import ShapeIndex, _valid_time, written_key
from kexplain.apimachinery.pod_lists import dump_list
from kexplain.apimachinery.stored_pods import StoredPod, alike, plain, view_of
from kexplain.errors import KexplainError, Source
from kexplain.load.manifests import load_objects
from tests.admission.test_shape_fast_path import CONTEXT, VARIANTS, _cases, _pod_of, _variant, amplified, \
    cluster_of, outcome, pod, replicas


def as_views(cluster: list[tuple[dict, Source]]) -> list[tuple[Any, Source]] | None:
    """The objects as a compact JSON List read as a dump: bound pods as views. None when the
    text would not hold them as they are (a YAML timestamp, a non-ASCII string, no bound pod)."""
    objects = [o for o, _ in cluster]
    try:
        data = msgspec.json.encode({"apiVersion": "v1", "kind": "List", "items": objects})
    except (TypeError, msgspec.EncodeError):
        return None
    if json.loads(data)["items"] != objects or any(type(a) is not type(b) for a, b in zip(json.loads(data)["items"],
                                                                                          objects)):
        return None
    dump = dump_list(data)
    if dump is None or not any(type(o) is StoredPod for o in dump["items"]):
        return None
    return [(item, src) for item, (_, src) in zip(dump["items"], cluster)]


def views_outcome(views: list[tuple[Any, Source]], pending: tuple[dict, Source] | None) -> tuple[tuple, int]:
    """`outcome` of the views admitted by shape, as plain objects; each admitted view checked
    against its object. Returns it with the count of pods admitted as views."""
    try:
        result = admit(views, pending, by_shape=True)
    except KexplainError as err:
        return ("refused", type(err).__name__, str(err), err.field, repr(plain(err.obj)), str(err.source)), 0
    viewed = [o for o, _ in result.objects if type(o) is StoredPod and not o.stored]
    for obj in viewed:
        assert alike(obj.view, view_of(obj.obj)), obj.view.metadata.name     # (equal, but for a text's spacing)
    got = ("admitted", repr([plain(o) for o, _ in result.objects]), [str(s) for _, s in result.objects],
           repr(result.pending), result.warnings)
    return got, len(viewed)


def assert_views_alike(cluster: list[tuple[dict, Source]], pending: tuple[dict, Source] | None = None) -> int:
    """The views admit as the objects do one by one; returns how many were admitted as views
    (-1: the cluster is not one a JSON dump holds)."""
    views = as_views(cluster)
    if views is None:
        return -1
    before = copy.deepcopy([o for o, _ in cluster])
    got, viewed = views_outcome(views, pending)
    assert got == outcome(cluster, pending, False)[0]
    assert [plain(o) for o, _ in views] == before, "admission changed its input"
    return viewed


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name)
def test_conformance_clusters_admit_alike_as_views(case: Path) -> None:
    try:
        cluster = load_objects([str(case / "cluster.yaml")])
    except KexplainError:
        pytest.skip("the cluster does not load (a case about that)")
    cluster = amplified(cluster)
    if assert_views_alike(cluster) < 0:
        pytest.skip("no bound pod a JSON dump holds as it is")
    pending = _pod_of(case)
    if pending is not None:
        assert_views_alike(cluster, pending)


def test_conformance_clusters_are_admitted_as_views() -> None:
    """The comparison above is not vacuous: on the amplified clusters many pods stay views."""
    viewed = pods = 0
    for case in _cases()[:60]:
        try:
            cluster = amplified(load_objects([str(case / "cluster.yaml")]))
        except KexplainError:
            continue
        got = assert_views_alike(cluster)
        if got >= 0:
            viewed += got
            pods += sum(1 for o, _ in cluster if o.get("kind") == "Pod" and (o.get("spec") or {}).get("nodeName"))
    if pods == 0:
        pytest.skip("no conformance cases here")
    assert viewed > pods // 3


@pytest.mark.parametrize("name", VARIANTS)
def test_variants_admit_alike_as_views(name: str) -> None:
    cluster = cluster_of(*CONTEXT, *replicas(lambda i: _variant(name, i), 5))
    assert_views_alike(cluster)
    assert_views_alike(cluster, (pod("pending", None), Source("pod.yaml", 1)))


def test_plain_replicas_are_admitted_as_views() -> None:
    cluster = cluster_of(*CONTEXT, *replicas(lambda i: _variant("priority", i), 6))
    assert assert_views_alike(cluster) == 5      # (the shape's first: admitted whole, a copy)


def test_replicas_of_one_replica_apps_are_admitted_as_views() -> None:
    """Each pod its own owner (a one-replica app's ReplicaSet: `shapes.canonical_owners`): one shape,
    each view keeping its own references' text."""
    cluster = cluster_of(*CONTEXT, *replicas(lambda i: _variant("owner-references", i), 6))
    assert assert_views_alike(cluster) == 5
    views = as_views(cluster)
    assert views is not None
    admitted = [o for o, _ in admit(views, None, by_shape=True).objects if type(o) is StoredPod]
    assert [o.view.owner_references()[0]["name"] for o in admitted] == [f"web-{i}-5d8f7c" for i in range(1, 6)]


CREATED = "2026-01-01T00:00:00Z"


def _given_a_time(obj: dict) -> dict:
    """A reader's default (as `karpenter.inputs` gives a bound pod its uid and creation time)."""
    return {**obj, "metadata": {**obj["metadata"], "creationTimestamp": CREATED}}


def test_views_whose_reader_gives_defaults_are_admitted_as_views() -> None:
    """Views read with defaults in their view and in their object (`StoredPod.listed`) are admitted as
    views (the shape's first pod's admitted view made from its object with those defaults), each
    admitted view's object the pod's own with them, admitted."""
    pods = replicas(lambda i: _variant("owner-references", i), 6)
    cluster = cluster_of(*CONTEXT, *pods)
    views = as_views(cluster)
    assert views is not None
    given = [(StoredPod(o.raw, msgspec.structs.replace(o.view, metadata=msgspec.structs.replace(
        o.view.metadata, creationTimestamp=CREATED)), _given_a_time) if type(o) is StoredPod else o, src)
        for o, src in views]
    got, viewed = views_outcome(given, None)
    full, _ = outcome(cluster_of(*CONTEXT, *map(_given_a_time, pods)), None, False)
    assert got == full and viewed == 5


# -- the shape of a text -----------------------------------------------------------------------
def _written(pod_obj: dict) -> StoredPod:
    data = msgspec.json.encode({"apiVersion": "v1", "kind": "List", "items": [pod_obj]})
    dump = dump_list(data)
    assert dump is not None
    item = dump["items"][0]
    assert type(item) is StoredPod
    return item


def _twins(change: Any) -> list[dict]:
    """Two pods of one workload (other name, uid, node, status, zone) changed alike by `change(pod, i)`."""
    out = []
    for i in range(2):
        p = pod(f"web-{i}", f"n{i + 1}")
        p["metadata"]["uid"] = f"u-{i}"
        p["metadata"]["labels"]["topology.kubernetes.io/zone"] = f"zone-{i}"
        p["status"] = {"phase": "Running", "podIP": f"10.0.0.{i}"}
        change(p, i)
        out.append(p)
    return out


def _volumes_named(p: dict, name: str) -> None:
    """A pod's own volume (`name`), mounted by its container."""
    p["spec"]["volumes"] = [{"name": name, "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}}]
    p["spec"]["containers"][0]["volumeMounts"] = [{"name": name, "mountPath": "/t"}]


def _name_as(path: str) -> Any:
    def change(p: dict, i: int) -> None:
        target = p
        *parents, last = path.split(".")
        for key in parents:
            target = target.setdefault(key, {})
        target[last] = p["metadata"]["name"]
    return change


TWINS = {
    "plain": lambda p, i: None,
    "name-as-label": lambda p, i: p["metadata"]["labels"].update(pod=p["metadata"]["name"]),
    "suffix-as-label": lambda p, i: p["metadata"]["labels"].update(index=str(i)),
    "name-as-label-read": lambda p, i: p["metadata"]["labels"].update(pod=p["metadata"]["name"]) or p["spec"].update(
        topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable":
                                    "ScheduleAnyway", "labelSelector": {}, "matchLabelKeys": ["pod"]}]),
    "label-as-other-name": lambda p, i: p["metadata"]["labels"].update(pod=f"web-{1 - i}"),
    "label-named-name-first": lambda p, i: p["metadata"].update(labels={"name": p["metadata"]["name"] if i else "x",
                                                                        **p["metadata"]["labels"]}) or
    p.update(metadata={"labels": p["metadata"].pop("labels"), **p["metadata"]}),
    "name-as-hostname": _name_as("spec.hostname"),
    "name-as-hostname-fqdn": lambda p, i: _name_as("spec.hostname")(p, i) or p["spec"].update(setHostnameAsFQDN=True),
    "name-as-hostname-or-not": lambda p, i: p["spec"].update(hostname="web-0"),
    "dotted-name-as-hostname": lambda p, i: p["metadata"].update(name=f"web.{i}") or _name_as("spec.hostname")(p, i),
    "name-as-hostname-annotated": lambda p, i: _name_as("spec.hostname")(p, i) or p["metadata"].update(
        annotations={"hostname": p["metadata"]["name"]}),
    "name-as-annotation": _name_as("metadata.annotations.name"),
    "name-in-claim": lambda p, i: p["spec"].update(volumes=[
        {"name": "d", "persistentVolumeClaim": {"claimName": f"data-{p['metadata']['name']}"}}]),
    "name-as-container": lambda p, i: p["spec"]["containers"][0].update(name=p["metadata"]["name"]),
    "pinned": lambda p, i: p["spec"].update(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [p["spec"]["nodeName"]]}]}]}}}),
    "ephemeral": lambda p, i: p["spec"].update(volumes=[{"name": "e", "ephemeral": {}}]),
    "no-uid": lambda p, i: p["metadata"].pop("uid"),
    "no-status": lambda p, i: p.pop("status"),
    "null-status": lambda p, i: p.update(status=None),
    "claim-status": lambda p, i: p["status"].update(resourceClaimStatuses=[]),
    "status-first": lambda p, i: p.update({"status": p.pop("status"), "spec": p.pop("spec")}),
    "spec-before-metadata": lambda p, i: p.update({"metadata": p.pop("metadata"), "status": p.pop("status")}),
    "condition-status": lambda p, i: p["status"].update(conditions=[{"type": "Ready", "status": "True"}]),
    "nested-status-key": lambda p, i: p["status"].update(x={"status": {"a": i}}),
    "invalid-zone": lambda p, i: p["metadata"]["labels"].update({"topology.kubernetes.io/zone": "bad zone!"}),
    "created": lambda p, i: p["metadata"].update(creationTimestamp=f"2026-01-0{i + 1}T00:00:00Z"),
    "bad-created": lambda p, i: p["metadata"].update(creationTimestamp=f"not a time {i}"),
    "owner-named-alike": lambda p, i: p["metadata"].update(ownerReferences=[
        {"apiVersion": "v1", "kind": "X", "name": p["metadata"]["name"], "uid": p["metadata"]["uid"]}]),
    "owner-values": lambda p, i: p["metadata"].update(ownerReferences=[
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"rs-{i}", "uid": f"rs-uid-{i}", "controller": True}]),
    "owner-empty-values": lambda p, i: p["metadata"].update(ownerReferences=[
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "" if i else "rs", "uid": f"rs-uid-{i}"}]),
    "owner-not-strings": lambda p, i: p["metadata"].update(ownerReferences=[
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": i, "uid": [f"rs-uid-{i}"]}, "x"]),
    "owner-refs-also-in-spec": lambda p, i: p["metadata"].update(ownerReferences=[
        {"apiVersion": "v1", "kind": "X", "name": f"x-{i}", "uid": f"u-{i}"}]) or
    p["spec"].update(ownerReferences=[{"apiVersion": "v1", "kind": "X", "name": f"x-{i}", "uid": f"u-{i}"}]),
    "owner-refs-only-in-spec": lambda p, i: p["spec"].update(ownerReferences=[
        {"apiVersion": "v1", "kind": "X", "name": f"x-{i}", "uid": f"u-{i}"}]),
    "owner-named-as-node": lambda p, i: p["metadata"].update(ownerReferences=[
        {"apiVersion": "v1", "kind": "Node", "name": p["spec"]["nodeName"], "uid": f"u-{i}"}]),
    "node-as-label": lambda p, i: p["metadata"]["labels"].update(host=p["spec"]["nodeName"]),
    "label-values": lambda p, i: p["metadata"]["labels"].update(app=f"svc-{i}", hash=f"{i * 7919:08x}"),
    "label-value-as-selector": lambda p, i: p["metadata"]["labels"].update(app=f"svc-{i}") or
    p["spec"].update(nodeSelector={"app": f"svc-{i}"}),
    "annotation-values": lambda p, i: p["metadata"].update(annotations={"example.com/build": f"b-{i}",
                                                                         "kubernetes.io/description": "kept"}),
    "annotation-reserved-values": lambda p, i: p["metadata"].update(annotations={"kubernetes.io/description": f"{i}"}),
    "annotation-value-as-selector": lambda p, i: p["metadata"].update(annotations={"app": f"b-{i}"}) or
    p["spec"].update(nodeSelector={"app": f"b-{i}"}),
    "image-values": lambda p, i: p["spec"]["containers"][0].update(image=f"registry.example/app-{i}:1"),
    "image-latest-or-tag": lambda p, i: p["spec"]["containers"][0].update(image=["nginx", "nginx:1.0"][i]),
    "image-as-env-name": lambda p, i: p["spec"]["containers"][0].update(
        image=f"app-{i}:1", env=[{"name": "image", "value": f"app-{i}:1"}]),
    "image-volume": lambda p, i: p["spec"].update(volumes=[{"name": "d", "image": {"reference": f"data-{i}:1"}}]),
    "volume-names": lambda p, i: _volumes_named(p, f"kube-api-access-{i}"),
    "volume-name-as-container": lambda p, i: _volumes_named(p, f"v-{i}") or
    p["spec"]["containers"][0].update(name=f"v-{i}"),
    "volume-name-as-configmap": lambda p, i: _volumes_named(p, f"v-{i}") or
    p["spec"]["volumes"].append({"name": "cfg", "configMap": {"name": f"v-{i}"}}),
    "volume-names-swapped": lambda p, i: _volumes_named(p, "a") or p["spec"]["volumes"].insert(
        i, {"name": "b", "emptyDir": {}}) or p["spec"]["containers"][0]["volumeMounts"].append(
        {"name": "b", "mountPath": "/b"}),
    "volume-mount-elsewhere": lambda p, i: _volumes_named(p, "a") or p["spec"]["containers"][0]["volumeMounts"][0]
    .update(mountPath=f"/m{i}"),
    "volume-name-invalid": lambda p, i: _volumes_named(p, f"V_{i}"),
    "image-in-annotation": lambda p, i: p["metadata"].update(annotations={"x": f'"image":"app-{i}:1"'}) or
    p["spec"]["containers"][0].update(image=f"app-{i}:1"),
}


@pytest.mark.parametrize("name", sorted(TWINS))
def test_equal_written_keys_are_equal_shapes(name: str) -> None:
    """Pods whose texts give equal keys have equal canonical pods, on every pair of the twins
    of every change (and of the plain ones): a written key never joins two shapes."""
    pods = _twins(TWINS[name]) + _twins(TWINS["plain"])
    index = ShapeIndex()
    keys = [written_key(_written(p), index.valid_nodes, index.valid_times) for p in pods]
    shapes = [index.entry(copy.deepcopy(p))[1] for p in pods]
    for a in range(len(pods)):
        for b in range(len(pods)):
            if keys[a] is not None and keys[a] == keys[b]:
                assert shapes[a] == shapes[b], (name, a, b)
    if name in ("plain", "no-uid", "no-status", "condition-status", "nested-status-key", "invalid-zone", "created",
                "label-values", "image-values", "annotation-values", "volume-names", "owner-values",
                "owner-named-alike", "owner-named-as-node", "name-as-label", "suffix-as-label", "name-as-hostname"):
        assert keys[0] is not None and keys[0] == keys[1], name      # (what the key is for)


# values only letters and digits are valid without the regex (`shapes._valid_label_value`); these are not
_NOT_LABEL_VALUES = ["a" * 64, "\u0661\u0662\u0663", "\uff41\uff42\uff43", "abc\n", "ab c", "²", "a" * 63 + "\u00e9"]


@pytest.mark.parametrize("value", [*_NOT_LABEL_VALUES, "", "a", "a" * 63, "7ed4d57b", "A1", "a-b", "a_b.c", "-a", "a."])
def test_a_label_value_is_valid_as_admission_finds_it(value: str) -> None:
    from kexplain.admission.shapes import _valid_label_value
    from kexplain.apimachinery.names import is_label_value
    assert _valid_label_value(value) == (not is_label_value(value))


@pytest.mark.parametrize("value", _NOT_LABEL_VALUES)
def test_an_invalid_hash_label_past_the_memo_gets_the_full_paths_error(value: str, monkeypatch: pytest.MonkeyPatch
                                                                       ) -> None:
    """Each pod's own `pod-template-hash` (letters and digits: found valid without the regex, and never
    remembered here), the third's invalid: refused in the full path's words, as objects and as views."""
    from kexplain.admission import shapes
    monkeypatch.setattr(shapes, "_MEMO_MAX", 0)

    def hashed(i: int) -> dict:
        p = pod(f"w-{i}", f"n{i % 3 + 1}")
        p["metadata"]["labels"]["pod-template-hash"] = value if i == 2 else f"{i}f0a9{i}b"
        return p
    cluster = cluster_of(*replicas(hashed, 5))
    full, _ = outcome(cluster, None, False)
    assert outcome(cluster, None, True)[0] == full and full[0] == "refused" and 'Pod "w-2" is invalid' in full[2]
    views = as_views(cluster)
    if views is not None:
        assert views_outcome(views, None)[0] == full


@pytest.mark.parametrize("variant", ["owner-references", "volume-names"])
def test_replicas_written_spaced_are_admitted_as_views(variant: str) -> None:
    """A file written as `json.dump` writes (`", "` and `": "`): each view keeps its own references' text as
    spaced, its admitted template's is compact, and they are alike (they were not: every pod decoded)."""
    cluster = cluster_of(*CONTEXT, *replicas(lambda i: _variant(variant, i), 6))
    dump = dump_list(json.dumps({"apiVersion": "v1", "kind": "List", "items": [o for o, _ in cluster]}).encode())
    assert dump is not None
    views = [(item, src) for item, (_, src) in zip(dump["items"], cluster)]
    got, viewed = views_outcome(views, None)
    assert got == outcome(cluster, None, False)[0]
    assert viewed == 5


def test_replicas_naming_their_volumes_each_their_own_are_admitted_as_views() -> None:
    """Each pod's own token volume (and the mounts naming it) stays in its view, the rest the shape's."""
    cluster = cluster_of(*CONTEXT, *replicas(lambda i: _variant("volume-names", i), 6))
    assert assert_views_alike(cluster) == 5      # (the shape's first: admitted whole, a copy)


def test_a_creation_time_is_valid_as_the_parse_finds_it() -> None:
    """`_valid_time`'s regex for the form an API server writes says what the full parse says."""
    rng = random.Random(7)
    times = ["2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "0000-01-01T00:00:00Z", "2024-00-10T00:00:00Z",
             "2024-01-00T00:00:00Z", "2024-01-28T24:00:00Z", "2024-01-28T23:59:60Z", "2024-01-28t23:59:59Z",
             "2024-01-28T23:59:59+00:00", "2024-01-28T23:59:59.5Z", "\u0662024-01-28T23:59:59Z",
             "2024-01-28T23:59:59Z\n"]
    times += [f"{rng.randint(0, 9999):04d}-{rng.randint(0, 13):02d}-{rng.randint(0, 32):02d}T{rng.randint(0, 25):02d}:"
              f"{rng.randint(0, 61):02d}:{rng.randint(0, 61):02d}Z" for _ in range(5000)]
    assert [t for t in times if _valid_time(t, set()) != (go_time_parse_error(RFC3339, t) is None)] == []


@pytest.mark.parametrize("name", VARIANTS)
def test_an_admitted_views_annotations_and_tolerations_are_its_objects(name: str) -> None:
    """What Karpenter's disruption asks of every bound pod is read off its admitted view without
    making its object (`PodView.annotation`, `PodView.tolerations`), and is its object's: a pod's own
    annotation values (the shape's holes), its shape's admitted tolerations (a RuntimeClass's)."""
    from kexplain.model.pod import PodInfo
    cluster = cluster_of(*CONTEXT, *replicas(lambda i: _variant(name, i), 6))
    views = as_views(cluster)
    if views is None:
        pytest.skip("not a cluster a JSON dump holds")
    try:
        admitted = admit(views, None, by_shape=True).objects
    except KexplainError:
        pytest.skip("refused")
    viewed = [o for o, _ in admitted if type(o) is StoredPod and not o.stored]
    for stored in viewed:
        info = PodInfo(stored)
        keys = ["karpenter.sh/do-not-disrupt", "controller.kubernetes.io/pod-deletion-cost", "example.com/build",
                "note", "copy"]
        asked = {key: info.annotation(key) for key in keys}
        tolerations = stored.view.tolerations()
        assert not stored.decoded, "asking made the object"
        notes = stored.obj["metadata"].get("annotations") or {}
        assert asked == {key: notes.get(key) for key in keys}
        assert tolerations == stored.obj["spec"].get("tolerations")


def test_a_pods_own_annotation_values_are_read_off_its_view() -> None:
    """Replicas of one shape, each with its own do-not-disrupt value: each view answers its own."""
    def annotated(i: int) -> dict:
        p = _variant("owner-references", i)
        p["metadata"]["annotations"] = {"karpenter.sh/do-not-disrupt": ["true", "false", "5m"][i % 3]}
        return p
    views = as_views(cluster_of(*CONTEXT, *replicas(annotated, 6)))
    assert views is not None
    from kexplain.model.pod import PodInfo
    admitted = [o for o, _ in admit(views, None, by_shape=True).objects if o.get("kind") == "Pod"]
    assert sum(type(o) is StoredPod for o in admitted) == 5     # (the shape's first: admitted whole, a copy)
    assert [PodInfo(o).annotation("karpenter.sh/do-not-disrupt") for o in admitted] == \
        ["true", "false", "5m", "true", "false", "5m"]
    assert not any(o.decoded for o in admitted if type(o) is StoredPod)

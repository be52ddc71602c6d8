"""Pods matched against their shape's first text (`kexplain.admission.shapes._Templates`) against the same pods
keyed one by one (`written_key`): the same entry for every pod, whatever a later pod changes of the first
one's text (field order, escapes, `%`, values repeated or invalid, fields added, its status), and the same
admitted objects and messages. Written as `json.dump` writes (`plain_list.py`'s shape) and compact.
"""
from __future__ import annotations

import json
from typing import Any, Callable

import msgspec
import pytest

from kexplain.admission.shapes import ShapeIndex, written_key
from kexplain.apimachinery.pod_lists import dump_list
from kexplain.apimachinery.stored_pods import StoredPod
from tests.admission.test_shape_fast_path import cluster_of, outcome, pod
from tests.admission.test_written_views import views_outcome


def replica(i: int) -> dict:
    """The i-th pod of one workload: its own name, node, label values and image."""
    p = pod(f"web-{i}", f"n{i % 3 + 1}")
    p["metadata"]["labels"] = {"app": "web", "tier": f"t{i}", "pod-template-hash": f"{i * 7919:08x}"}
    p["spec"]["containers"][0]["image"] = f"registry.example/web-{i}:1"
    return p


def _set(path: str, value: Any) -> Callable[[dict, int], None]:
    def change(p: dict, i: int) -> None:
        target = p
        *parents, last = path.split(".")
        for key in parents:
            target = target.setdefault(key, {})
        target[last] = value(p, i) if callable(value) else value
    return change


def _name(p: dict) -> str:
    return p["metadata"]["name"]


def _owners(i: int) -> list[dict]:
    """The i-th replica's owners: its own ReplicaSet (a one-replica app's) and one it shares."""
    return [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"web-{i}-rs", "uid": f"rs-uid-{i}",
             "controller": True}, {"apiVersion": "v1", "kind": "ConfigMap", "name": "shared", "uid": "cm-uid"}]


CHANGES: dict[str, Callable[[dict, int], Any]] = {
    "plain": lambda p, i: None,
    "labels-reordered": lambda p, i: p["metadata"].update(labels=dict(reversed(p["metadata"]["labels"].items()))),
    "metadata-reordered": lambda p, i: p.update(metadata=dict(reversed(p["metadata"].items()))),
    "spec-before-metadata": lambda p, i: p.update({"metadata": p.pop("metadata"), "status": p.pop("status")}),
    "status-first": lambda p, i: p.update({"spec": p.pop("spec")}),
    "percent-in-text": lambda p, i: p["spec"]["containers"][0].update(env=[{"name": "LOAD", "value": "100%s%%"}]),
    "percent-in-image": lambda p, i: p["spec"]["containers"][0].update(image=f"registry.example/w%s%d-{i}:1"),
    "name-as-label": lambda p, i: p["metadata"]["labels"].update(pod=_name(p)),
    "suffix-as-label": lambda p, i: p["metadata"]["labels"].update(index=str(i)),
    "node-as-label": lambda p, i: p["metadata"]["labels"].update(host=p["spec"]["nodeName"]),
    "node-as-name": lambda p, i: p["spec"].update(nodeName=_name(p)),
    "name-as-container": lambda p, i: p["spec"]["containers"][0].update(name=_name(p)),
    "container-named-as-later-pod": lambda p, i: p["spec"]["containers"][0].update(name="web-3"),
    "container-named-as-later-pod-spec-first": lambda p, i: p["spec"]["containers"][0].update(name="web-3") or
    p.update({"metadata": p.pop("metadata"), "status": p.pop("status")}),
    "name-as-later-label": lambda p, i: p["metadata"]["labels"].update(pod=_name(p) if i >= 2 else "other"),
    "suffix-as-later-label": lambda p, i: p["metadata"]["labels"].update(index=str(i) if i >= 2 else "x"),
    "label-keys-later": lambda p, i: p["metadata"]["labels"].update(tier="matchLabelKeys" if i >= 2 else "t"),
    "image-as-label": lambda p, i: p["metadata"]["labels"].update(image=p["spec"]["containers"][0]["image"]),
    "label-nodeName": lambda p, i: p["metadata"]["labels"].update(nodeName=p["spec"]["nodeName"]),
    "label-values-alike": lambda p, i: p["metadata"]["labels"].update(app=f"t{i}"),
    "image-value-image": lambda p, i: p["spec"]["containers"][0].update(image="image"),
    "label-value-image": lambda p, i: p["metadata"]["labels"].update(tier="image"),
    "label-value-status": lambda p, i: p["metadata"]["labels"].update(tier="status"),
    "invalid-name": _set("metadata.name", lambda p, i: f"Web_{i}"),
    "invalid-node": _set("spec.nodeName", lambda p, i: f"N_{i}"),
    "invalid-label-value": lambda p, i: p["metadata"]["labels"].update(tier=f"bad value {i}!"),
    "long-label-value": lambda p, i: p["metadata"]["labels"].update(tier="t" * 64),
    "label-keys-value": lambda p, i: p["metadata"]["labels"].update(tier=f"matchLabelKeys{i}"),
    "image-latest": lambda p, i: p["spec"]["containers"][0].update(image=f"registry.example/web-{i}"),
    "image-spaced": lambda p, i: p["spec"]["containers"][0].update(image=f" registry.example/web-{i}:1"),
    "image-empty": lambda p, i: p["spec"]["containers"][0].update(image=""),
    "image-inner-space": lambda p, i: p["spec"]["containers"][0].update(image=f"a, b\": {i}"),
    "two-containers": lambda p, i: p["spec"]["containers"].append({**p["spec"]["containers"][0], "name": "d"}),
    "init-container": lambda p, i: p["spec"].update(initContainers=[{"name": "i", "image": f"init-{i}:1"}]),
    "uid": _set("metadata.uid", lambda p, i: f"u-{i}"),
    "created": _set("metadata.creationTimestamp", lambda p, i: f"2026-01-0{i % 9 + 1}T00:00:00Z"),
    "annotations": _set("metadata.annotations", lambda p, i: {"example.com/build": f"b-{i}"}),
    "volumes": _set("spec.volumes", [{"name": "d", "emptyDir": {}}]),
    "affinity": _set("spec.affinity", {"nodeAffinity": {}}),
    "claim-named-as-later-pod": _set("spec.volumes", [{"name": "d", "persistentVolumeClaim": {"claimName": "data-web-3"}}]),
    "pinned-to-later-node": _set("spec.affinity", {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]}}}),
    "hostname-as-name": _set("spec.hostname", lambda p, i: _name(p)),
    "hostname": _set("spec.hostname", "host"),
    "hostname-named-as-a-later-pod": _set("spec.hostname", "web-3"),
    "hostname-as-dotted-name": lambda p, i: p["metadata"].update(name=f"web.{i}") or p["spec"].update(hostname=f"web.{i}"),
    "hostname-as-name-some-dotted": lambda p, i: (p["metadata"].update(name=f"web.{i}") if i % 2 else None) or
    p["spec"].update(hostname=_name(p)),
    "hostname-as-name-fqdn": lambda p, i: p["spec"].update(hostname=_name(p), setHostnameAsFQDN=True),
    "extra-field": _set("spec.priorityClassName", "high"),
    "no-status": lambda p, i: p.pop("status"),
    "other-status": lambda p, i: p["status"].update(podIP=f"10.0.0.{i}"),
    "claim-status": lambda p, i: p["status"].update(resourceClaimStatuses=[]),
    "nested-status": lambda p, i: p["status"].update(x={"status": {"a": 1}}),
    "no-labels": lambda p, i: p["metadata"].pop("labels"),
    "empty-labels": lambda p, i: p["metadata"].update(labels={}),
    "second-labels": _set("spec.nodeSelector", lambda p, i: {"labels": "x"}),
    "namespace": _set("metadata.namespace", "other"),
    "owners": lambda p, i: p["metadata"].update(ownerReferences=_owners(i)),
    "owners-later": lambda p, i: p["metadata"].update(ownerReferences=_owners(i)) if i >= 2 else None,
    "owner-name-empty": lambda p, i: p["metadata"].update(ownerReferences=_owners(i)) or
    p["metadata"]["ownerReferences"][0].update(name=""),
    "owner-uid-missing": lambda p, i: p["metadata"].update(ownerReferences=_owners(i)) or
    p["metadata"]["ownerReferences"][1].pop("uid"),
    "owner-uid-not-a-string": lambda p, i: p["metadata"].update(ownerReferences=_owners(i)) or
    p["metadata"]["ownerReferences"][0].update(uid=i),
    "owner-not-a-mapping": _set("metadata.ownerReferences", lambda p, i: ["x"]),
    "owner-uid-first": _set("metadata.ownerReferences", lambda p, i: [{"uid": f"u-{i}", "name": f"rs-{i}",
                                                                       "kind": "ReplicaSet", "apiVersion": "apps/v1"}]),
    "owner-named-as-pod": lambda p, i: p["metadata"].update(ownerReferences=_owners(i)) or
    p["metadata"]["ownerReferences"][0].update(name=_name(p)),
    "owner-named-as-node": lambda p, i: p["metadata"].update(ownerReferences=_owners(i)) or
    p["metadata"]["ownerReferences"][0].update(name=p["spec"]["nodeName"]),
    "owner-uid-as-pod-uid": lambda p, i: p["metadata"].update(ownerReferences=_owners(i), uid=f"rs-uid-{i}"),
    "owner-as-label": lambda p, i: p["metadata"].update(ownerReferences=_owners(i)) or
    p["metadata"]["labels"].update(owner=f"web-{i}-rs"),
    "owner-placeholder-text": lambda p, i: p["metadata"].update(ownerReferences=_owners(i)) or
    p["metadata"]["ownerReferences"][0].update(name="kexplain-placeholder-owner"),
    "owners-more": lambda p, i: p["metadata"].update(ownerReferences=_owners(i) + _owners(i + 10)),
    "owners-also-in-spec": lambda p, i: p["metadata"].update(ownerReferences=_owners(i)) or
    p["spec"].update(ownerReferences=_owners(i)),
    # what a fuller workload writes alike in each pod (annotations, volumes mounted, a spread), and its own
    # uid and creation time: each an own value or the same text in every pod
    "workload": lambda p, i: _full(p, i),
    "workload-one-time": lambda p, i: _full(p, i) or p["metadata"].update(creationTimestamp="2025-12-01T00:00:00Z"),
    "workload-no-uid": lambda p, i: _full(p, i) or p["metadata"].pop("uid"),
    "workload-uid-later": lambda p, i: _full(p, i) or (p["metadata"].pop("uid") if i < 2 else None),
    "workload-time-invalid-later": lambda p, i: _full(p, i) or
    p["metadata"].update(creationTimestamp="not a time" if i == 3 else "2026-01-01T00:00:00Z"),
    "uid-as-volume": lambda p, i: _full(p, i) or p["metadata"].update(uid="config"),
    "uid-as-owner-uid": lambda p, i: _full(p, i) or p["metadata"].update(uid=f"rs-uid-{i}"),
    "uid-as-later-container-uid": lambda p, i: _full(p, i) or p["metadata"].update(uid=f"u-{i}") or
    p["spec"]["containers"][0].update(env=[{"name": "X", "uid": "u-3"}]),
    "uid-as-later-container-uid-spec-first": lambda p, i: _full(p, i) or p["metadata"].update(uid=f"u-{i}") or
    p["spec"]["containers"][0].update(env=[{"name": "X", "uid": "u-3"}]) or
    p.update({"metadata": p.pop("metadata"), "status": p.pop("status")}),
    "uid-as-name": lambda p, i: _full(p, i) or p["metadata"].update(uid=_name(p)),
    "time-as-label": lambda p, i: _full(p, i) or p["metadata"]["labels"].update(t="2026-01-01T00-00-00Z") or
    p["metadata"].update(creationTimestamp="2026-01-01T00:00:00Z"),
    "volume-named-as-later-pod": lambda p, i: _full(p, i) or p["spec"]["volumes"].append({"name": "web-3", "emptyDir": {}}),
    "volume-named-as-later-node": lambda p, i: _full(p, i) or p["spec"]["volumes"].append({"name": "n2", "emptyDir": {}}),
    "volume-named-as-later-owner": lambda p, i: _full(p, i) or
    p["spec"]["volumes"].append({"name": "web-3-rs", "emptyDir": {}}),
    "volume-unmounted-named-as-container": lambda p, i: _full(p, i) or
    p["spec"]["volumes"].append({"name": "c", "emptyDir": {}}),
    "volume-named-twice": lambda p, i: _full(p, i) or p["spec"]["volumes"].append({"name": "config", "emptyDir": {}}),
    "volume-own-name": lambda p, i: _full(p, i) or p["spec"]["volumes"].append({"name": f"token-{i}", "emptyDir": {}}),
    "volume-naming-pod": lambda p, i: _full(p, i) or p["spec"]["volumes"].append(
        {"name": "data", "configMap": {"name": f"{_name(p)}-config"}}),
    "volume-naming-later-pod": lambda p, i: _full(p, i) or p["spec"]["volumes"].append(
        {"name": "data", "configMap": {"name": "web-3"}}),
    "volume-ephemeral": lambda p, i: _full(p, i) or p["spec"]["volumes"].append({"name": "e", "ephemeral": {}}),
    "volumes-ephemeral-container": lambda p, i: _full(p, i) or p["spec"].update(ephemeralContainers=[]),
    "workload-own-token": lambda p, i: _full(p, i) or _token(p, f"kube-api-access-{i:05x}"),
    "own-token-status": lambda p, i: _full(p, i) or _token(p, f"tok-{i}") or
    p["status"].update(podIP=f"10.0.0.{i}", startTime=f"2026-01-0{i + 1}T00:00:00Z",
                       containerStatuses=[{"name": "c", "ready": True, "containerID": f"containerd://{i}"}]),
    "own-token-as-label": lambda p, i: _full(p, i) or _token(p, f"tok-{i}") or
    p["metadata"]["labels"].update(vol=f"tok-{i}"),
    "own-token-as-later-container": lambda p, i: _full(p, i) or _token(p, f"tok-{i}") or
    p["spec"]["containers"][0].update(name="tok-3"),
    "own-token-as-later-pod": lambda p, i: _full(p, i) or _token(p, "web-3" if i == 2 else f"tok-{i}"),
    "own-token-as-image": lambda p, i: _full(p, i) or _token(p, f"tok-{i}") or
    p["spec"]["containers"][0].update(image=f"tok-{i}"),
    "own-token-unmounted": lambda p, i: _full(p, i) or p["spec"]["volumes"].append({"name": f"tok-{i}", "emptyDir": {}}),
    "own-token-invalid": lambda p, i: _full(p, i) or _token(p, f"Tok_{i}"),
    "own-token-twice": lambda p, i: _full(p, i) or _token(p, f"tok-{i}") or _token(p, f"tok-{i}"),
    "own-token-env": lambda p, i: _full(p, i) or _token(p, f"tok-{i}") or
    p["spec"]["containers"][0].update(env=[{"name": "T", "value": f"tok-{i}"}]),
    "own-status-nested-later": lambda p, i: p["status"].update(x={"status": {"a": 1}}) if i >= 2 else
    p["status"].update(podIP=f"10.0.0.{i}"),
    "own-status-null-later": lambda p, i: p.update(status=None) if i >= 2 else None,
    "own-status-admitted-later": lambda p, i: p["status"].update(resourceClaimStatuses=[]) if i >= 3 else
    p["status"].update(podIP=f"10.0.0.{i}"),
    "own-status-not-last-later": lambda p, i: p.update({"spec": p.pop("spec")}) if i >= 3 else None,
    "annotation-name-later-pod": lambda p, i: _full(p, i) or p["metadata"]["annotations"].update(name="web-3"),
    "annotation-name-own": lambda p, i: _full(p, i) or p["metadata"]["annotations"].update(name=_name(p)),
    "annotation-reserved": lambda p, i: _full(p, i) or
    p["metadata"]["annotations"].update({"kubernetes.io/description": "web"}),
    "annotation-not-a-string": lambda p, i: _full(p, i) or p["metadata"]["annotations"].update(n=1),
    "annotation-own-value": lambda p, i: _full(p, i) or p["metadata"]["annotations"].update(build=f"b-{i}"),
    "annotation-volume-name": lambda p, i: _full(p, i) or p["metadata"]["annotations"].update(name="config"),
    "annotations-twice": lambda p, i: _full(p, i) or p["spec"].update(annotations={"a": "b"}),
    # each pod's own annotation values (a template's holes): beside other annotations, one too long, one read as
    # a word `written_key` counts, one naming `LabelKeys`, one pod without it, one whose value is no string
    "annotation-own-ip": lambda p, i: _full(p, i) or p["metadata"]["annotations"].update(
        {"cni.projectcalico.org/podIP": f"10.0.0.{i}/32", "kubernetes.io/psp": "eks.privileged"}),
    "annotation-own-too-long": lambda p, i: _full(p, i) or p["metadata"]["annotations"].update(
        build="x" * (270000 if i == 3 else i)),
    "annotation-own-word": lambda p, i: _full(p, i) or p["metadata"]["annotations"].update(
        build=("image", "status", "ephemeralContainers", "")[i % 4]),
    "annotation-own-label-keys": lambda p, i: _full(p, i) or p["metadata"]["annotations"].update(
        build="matchLabelKeys" if i == 3 else f"b-{i}"),
    "annotation-own-missing": lambda p, i: _full(p, i) or (p["metadata"]["annotations"].update(build=f"b-{i}")
                                                           if i != 3 else None),
    "annotation-own-name-first": lambda p, i: _full(p, i) or p.update(metadata={
        "annotations": {"name": _name(p) if i % 2 else f"b-{i}"}, **{k: v for k, v in p["metadata"].items()
                                                                      if k != "annotations"}}),
    "annotation-own-not-a-string": lambda p, i: _full(p, i) or p["metadata"]["annotations"].update(
        build=i if i == 3 else f"b-{i}"),
    # a controller's pods each write its generateName (a one-replica app's ReplicaSet: each its own), an own value
    "generate-name": _set("metadata.generateName", lambda p, i: f"web-{i}-rs-"),
    "generate-name-shared": _set("metadata.generateName", "web-"),
    "generate-name-workload": lambda p, i: _full(p, i) or p["metadata"].update(generateName=f"web-{i}-rs-"),
    "generate-name-invalid": _set("metadata.generateName", lambda p, i: f"Web_{i}-"),
    "generate-name-invalid-later": _set("metadata.generateName", lambda p, i: f"Web_{i}-" if i == 3 else f"w-{i}-"),
    "generate-name-masked": _set("metadata.generateName", lambda p, i: "w" * 252 + f"{i}-"),   # (valid masked only)
    "generate-name-as-label": lambda p, i: p["metadata"].update(generateName=f"web-{i}-rs") or
    p["metadata"]["labels"].update(gen=f"web-{i}-rs"),
    "generate-name-as-name": _set("metadata.generateName", lambda p, i: _name(p)),
    "generate-name-label-key": lambda p, i: p["metadata"].update(generateName=f"web-{i}-rs-") or
    p["metadata"]["labels"].update(generateName=f"web-{i}-rs-"),
    "generate-name-in-spec": lambda p, i: p["metadata"].update(generateName=f"web-{i}-rs-") or
    p["spec"]["containers"][0].update(env=[{"name": "X", "generateName": f"web-{i}-rs-"}]),
    "generate-name-placeholder-text": _set("metadata.generateName", lambda p, i: "kexplain-placeholder-generated-"
                                           if i % 2 else f"web-{i}-rs-"),
    # pods of one look (namespace, label keys, containers) written otherwise: a template each
    "annotated": _set("metadata.annotations", {"karpenter.sh/do-not-disrupt": "true"}),
    "tolerating": _set("spec.tolerations", [{"key": "batch", "operator": "Exists"}]),
    "annotations-empty": lambda p, i: _full(p, i) or p["metadata"].update(annotations={}),
    "affinity-naming-later-node": lambda p, i: _full(p, i) or p["spec"]["affinity"]["podAntiAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"]["matchLabels"].update(host="n2"),
    "affinity-pinned-own-node": lambda p, i: _full(p, i) or p["spec"]["affinity"].update(nodeAffinity={
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [p["spec"]["nodeName"]]}]}]}}),
}


def _token(p: dict, name: str) -> None:
    """A service-account token volume of the pod's own name, mounted by its container (as an API server writes it)."""
    p["spec"]["volumes"].append({"name": name, "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}})
    p["spec"]["containers"][0]["volumeMounts"].append({"name": name, "mountPath": "/var/run/secrets", "readOnly": True})


def _full(p: dict, i: int) -> None:
    """The i-th replica as a fuller workload writes it: its uid and creation time, annotations, two volumes
    the container mounts, an anti-affinity and a toleration."""
    p["metadata"].update(uid=f"00000000-0000-4000-8000-{i:012d}", creationTimestamp=f"2026-01-0{i % 9 + 1}T00:00:00Z",
                         annotations={"prometheus.io/scrape": "true", "team": "c"},
                         ownerReferences=[_owners(i)[0]])
    p["spec"]["containers"][0]["volumeMounts"] = [{"name": "config", "mountPath": "/etc/app"},
                                                  {"name": "scratch", "mountPath": "/tmp"}]
    p["spec"]["volumes"] = [{"name": "config", "configMap": {"name": "web-config"}}, {"name": "scratch", "emptyDir": {}}]
    p["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}}
    p["spec"]["tolerations"] = [{"key": "team", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}]
# texts changed after writing: a value written with an escape, a text compact or spaced otherwise
TEXTS: dict[str, Callable[[str], str]] = {
    "as-written": lambda text: text,
    "escaped-name": lambda text: text.replace('"web-', '"web\\u002d', 1),
    "escaped-label": lambda text: text.replace('"app": "web"', '"app": "w\\u0065b"'),
    "escaped-image": lambda text: text.replace('"registry.example/', '"registry.example\\/'),
    "escaped-owner": lambda text: text.replace('"rs-uid-', '"rs\\u002duid-'),
    "compact": lambda text: json.dumps(json.loads(text), separators=(",", ":")),
    "indented": lambda text: json.dumps(json.loads(text), indent=1),
}


def stored(objects: list[dict], written: Callable[[str], str] = TEXTS["as-written"], later: int = 2) -> list[Any]:
    """The objects as a JSON List (`json.dump`'s separators, the pods from `later` on written by `written`)
    read as a dump is: bound pods as views."""
    texts = [json.dumps(o) if i < later else written(json.dumps(o)) for i, o in enumerate(objects)]
    dump = dump_list(('{"apiVersion": "v1", "kind": "List", "items": [%s]}' % ", ".join(texts)).encode())
    assert dump is not None
    return dump["items"]


def given_defaults(pods: list[Any], created: Callable[[int], str | None] = lambda i: "2026-01-01T00:00:00Z",
                   uid: bool = True) -> list[Any]:
    """The views with what a reader gives a bound pod written without them, in its view and its object
    (`StoredPod.listed`), as `karpenter.inputs` gives each its uid and creation time: the i-th pod's
    `created(i)` (None: none), its uid from its name."""
    out = []
    for i, p in enumerate(pods):
        meta = p.view.metadata
        given = {"uid": meta.uid or (f"given-{meta.name}" if uid else None),
                 "creationTimestamp": meta.creationTimestamp or created(i)}
        given = {k: v for k, v in given.items() if v}
        view = msgspec.structs.replace(p.view, metadata=msgspec.structs.replace(meta, **given))
        out.append(StoredPod(p.raw, view, lambda obj, given=given: {**obj, "metadata": {**given, **obj["metadata"]}}))
    return out


def entries(objects: list[dict], written: Callable[[str], str], fast: bool,
            reader: Callable[[list[Any]], list[Any]] = lambda pods: pods) -> tuple[list[tuple], ShapeIndex]:
    """What `ShapeIndex.entry` says of each pod (and the status it reads), with or without templates; with
    them, each pod a template matched has the `written_key` of a first pod of its shape. `reader`: what the
    views are given when read."""
    index = ShapeIndex()
    match = index._templates.match
    matched = []
    index._templates.match = lambda pod: matched.append(pod) or None if not fast \
        else (found := match(pod), type(found) is bytes and matched.append(pod))[0]   # type: ignore[method-assign]
    pods = reader(stored(objects, written))
    out = [(*index.entry(p)[1:], repr(p.get("status"))) for p in pods]
    if fast:
        fresh = {id(p): q for p, q in zip(pods, reader(stored(objects, written)))}
        for p in matched:
            key = written_key(fresh[id(p)], set(), set())
            assert key is not None and index._written.get(key) == index.entry(p)[1], p.view.metadata.name
    return out, index


def workload(change: Callable[[dict, int], Any], changed: range = range(2, 5)) -> list[dict]:
    """Six replicas, those in `changed` changed by `change` (the first two make the template)."""
    out = []
    for i in range(6):
        p = replica(i)
        if i in changed:
            change(p, i)
        out.append(p)
    return out


@pytest.mark.parametrize("written", sorted(TEXTS))
@pytest.mark.parametrize("name", sorted(CHANGES))
def test_a_template_entry_is_written_keys(name: str, written: str) -> None:
    """Each pod's entry with templates is its entry keyed by `written_key` alone, whether the later pods
    are changed alike (`changed` from 2) or the first ones are (the template made of a changed text)."""
    for changed in (range(2, 5), range(0, 2), range(0, 6)):
        objects = workload(CHANGES[name], changed)
        slow, slow_index = entries(objects, TEXTS[written], False)
        fast, fast_index = entries(objects, TEXTS[written], True)
        assert fast == slow, (name, written, changed)
        assert fast_index.valid_nodes == slow_index.valid_nodes
    if name in ("plain", "owners", "workload", "workload-one-time", "workload-no-uid", "annotation-reserved",
                "other-status", "workload-own-token", "own-token-status", "generate-name", "generate-name-shared",
                "generate-name-workload", "generate-name-masked", "generate-name-as-label", "annotations",
                "annotation-own-value", "annotation-own-ip", "name-as-label", "suffix-as-label", "hostname-as-name") \
            and written == "as-written":
        assert fast_index._templates.matched == 5       # (what the templates are for: all but the first)


@pytest.mark.parametrize("name", ["annotated", "tolerating", "generate-name", "extra-field", "affinity", "hostname"])
def test_pods_of_one_look_written_otherwise_are_matched_each_by_its_template(name: str) -> None:
    """Pods alike in what their views tell at once (namespace, label keys, containers) but written otherwise
    (the first two changed, the next four not: an annotation, tolerations, a generateName, owners...) are each
    matched by a template of their own text, last matched first, each entry the one `written_key` gives."""
    objects = workload(CHANGES[name], range(0, 2))
    fast, index = entries(objects, TEXTS["as-written"], True)
    assert fast == entries(objects, TEXTS["as-written"], False)[0]
    assert index._templates.matched == 4            # (each text's first pod makes its template)
    assert [len(found) for found in index._templates.of.values()] == [2]
    interleaved = [objects[i] for i in (0, 2, 1, 3, 4, 5)]      # (the two texts one after the other)
    fast, index = entries(interleaved, TEXTS["as-written"], True)
    assert fast == entries(interleaved, TEXTS["as-written"], False)[0] and index._templates.matched == 4


READERS: dict[str, Callable[[list[Any]], list[Any]]] = {
    "uid-and-time": given_defaults,
    "uid": lambda pods: given_defaults(pods, lambda i: None),
    "time": lambda pods: given_defaults(pods, uid=False),
    "time-later": lambda pods: given_defaults(pods, lambda i: "2026-01-01T00:00:00Z" if i >= 2 else None),
    "time-invalid-later": lambda pods: given_defaults(pods, lambda i: "not a time" if i == 3 else "2026-01-01T00:00:00Z"),
    "time-invalid": lambda pods: given_defaults(pods, lambda i: f"not a time {i % 2}"),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("name", ["plain", "owners", "uid", "created", "owner-uid-as-pod-uid", "invalid-name"])
def test_a_template_entry_is_written_keys_of_views_given_defaults(name: str, reader: str) -> None:
    """Views given a uid and creation time by their reader (not written in their text) are matched as the
    others (the Karpenter pass's bound pods), each entry the one `written_key` alone gives."""
    for changed in (range(2, 5), range(0, 2), range(0, 6)):
        objects = workload(CHANGES[name], changed)
        slow, _ = entries(objects, TEXTS["as-written"], False, READERS[reader])
        fast, fast_index = entries(objects, TEXTS["as-written"], True, READERS[reader])
        assert fast == slow, (name, reader, changed)
    if name in ("plain", "owners") and reader in ("uid-and-time", "uid", "time"):
        assert fast_index._templates.matched == 5


@pytest.mark.parametrize("name", ["plain", "invalid-name", "invalid-node", "invalid-label-value", "long-label-value",
                                  "image-spaced", "name-as-label", "claim-status", "hostname-as-name", "uid", "owners",
                                  "owner-name-empty", "owner-uid-missing", "owner-named-as-pod", "workload",
                                  "workload-time-invalid-later", "volume-named-twice", "annotation-not-a-string",
                                  "volume-naming-pod", "generate-name", "generate-name-invalid-later",
                                  "generate-name-masked", "annotated", "annotations", "annotation-own-ip",
                                  "annotation-own-too-long", "annotation-own-word", "annotation-own-name-first",
                                  "hostname-named-as-a-later-pod", "hostname-as-name-fqdn"])
def test_a_template_admits_and_refuses_alike(name: str) -> None:
    """Admitted by shape from views keyed by templates: the objects and messages of each pod admitted alone."""
    objects = workload(CHANGES[name])
    cluster = cluster_of(*objects)
    views = [(o, src) for o, (_, src) in zip(stored([o for o, _ in cluster]), cluster)]
    assert views_outcome(views, None)[0] == outcome(cluster, None, False)[0]


def test_pods_sharing_their_containers_texts_are_admitted_as_one_by_one() -> None:
    """`ShapeAdmission.own_view` keeps the template's containers with a pod's images once per pair of texts the
    pods write: pods of one shape whose images repeat (and differ), on nodes of three zones, with their own label
    values, some with a uid or a second container's image of their own, admit to the objects and messages of
    each pod admitted alone, and each repeated pair is looked up, not made again."""
    from kexplain.admission import patched

    made: list[Any] = []
    containers = patched.OwnImages.containers
    images = ["a:1", "b:1", "a:1", "c:2", "b:1", "a:1", "c:2", "a:1"]
    objects = []
    for i, image in enumerate(images):
        p = replica(i)
        p["spec"]["containers"][0]["image"] = f"registry.example/{image}"
        if i in (3, 6):
            p["metadata"]["uid"] = f"u-{i}"
        objects.append(p)
    cluster = cluster_of(*objects)
    views = [(o, src) for o, (_, src) in zip(stored([o for o, _ in cluster]), cluster)]
    try:
        patched.OwnImages.containers = lambda self, admitted, mine: made.append(bytes(mine.containers)) or \
            containers(self, admitted, mine)      # type: ignore[method-assign]
        got, viewed = views_outcome(views, None)
    finally:
        patched.OwnImages.containers = containers      # type: ignore[method-assign]
    assert got == outcome(cluster, None, False)[0]
    assert viewed >= 5 and len(made) == len(set(made)) and len(made) < viewed


def test_workloads_of_one_look_past_its_templates_are_matched_by_their_owners_templates() -> None:
    """More workloads of one look than it keeps templates of (`_PER_LOOK`), each writing its own subdomain:
    each later workload's pods past its second are matched by its owners' template (`_Owned`), each entry
    the one `written_key` gives, whatever the order the workloads' pods come in."""
    objects = []
    for w in range(12):
        for i in range(4):
            p = replica(10 * w + i)
            p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"app-{w}-rs",
                                                 "uid": f"rs-uid-{w}", "controller": True}]
            p["spec"]["subdomain"] = f"app-{w}"
            objects.append(p)
    for order in (objects, objects[::4] + objects[1::4] + objects[2::4] + objects[3::4]):
        fast, index = entries(order, TEXTS["as-written"], True)
        assert fast == entries(order, TEXTS["as-written"], False)[0]
        assert index._templates.matched == 8 * 3 + 4 * 2
        assert sum(type(t) is not int for t in index._templates.owned.values()) == 4


def test_templates_end_within_a_run_of_asks_none_of_which_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pods asked in runs of `_TRIED`: a run of which fewer than half match a template ends the templates,
    however many pods matched before it (a DaemonSet's pods first, then workloads whose every pod is its
    own shape: each would make templates nothing matches)."""
    from kexplain.admission import shapes
    monkeypatch.setattr(shapes, "_TRIED", 16)
    objects = [replica(i) for i in range(60)]
    for i in range(60):
        p = replica(100 + i)
        p["spec"]["containers"][0]["env"] = [{"name": "OWN", "value": f"v{i}"}]     # (a look of its own)
        objects.append(p)
    index = ShapeIndex()
    ended = None
    for i, p in enumerate(stored(objects)):
        index.entry(p)
        if ended is None and index._templates is None:
            ended = i
    assert ended is not None and 60 <= ended <= 60 + 2 * 16

"""The claims the ephemeral volume controller (v1.35 pkg/controller/volume/ephemeral) creates for a pod:
until `<pod>-<volume>` exists, VolumeBinding keeps the pod unschedulable. Played for pods as people
write them (no `status`), the claim admitted and then settled by `persistentvolume`; details:
docs/internals/controllers.md.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from kexplain.apimachinery.identity import as_dict
from kexplain.errors import KexplainError, Source
from kexplain.features import DEFAULT as DEFAULT_VERSION, KubeVersion
from kexplain.model.snapshot import Snapshot
from kexplain.plugins.volumes import WAIT_FOR_FIRST_CONSUMER, binding_mode, claim_class, name_of
from kexplain.admission import admit
from kexplain.controllers.persistentvolume import settle


def _ephemeral_volumes(pod: Mapping[str, Any]) -> list[dict[str, Any]]:
    volumes = as_dict(pod.get("spec")).get("volumes")
    return [v for v in volumes if isinstance(v, dict) and isinstance(v.get("ephemeral"), dict)] \
        if isinstance(volumes, list) else []


def writes_volume_claims_for(pod: Mapping[str, Any]) -> bool:
    """Whether kexplain creates this pod's ephemeral volume claims: it has no `status` at all (a
    workload's pod, or a Pod manifest as written), and a generic ephemeral volume."""
    return pod.get("status") is None and bool(_ephemeral_volumes(pod))


def claim_name(pod_name: str, volume_name: str) -> str:
    """VolumeClaimName: `<pod>-<volume>`."""
    return f"{pod_name}-{volume_name}"


def claim_for(pod: Mapping[str, Any], volume: Mapping[str, Any]) -> dict[str, Any]:
    """The PersistentVolumeClaim the controller creates for the pod's ephemeral `volume`."""
    meta = as_dict(pod.get("metadata"))
    template = as_dict(as_dict(volume.get("ephemeral")).get("volumeClaimTemplate"))
    tmeta = as_dict(template.get("metadata"))
    claim_meta: dict[str, Any] = {
        "name": claim_name(str(meta.get("name") or ""), str(volume.get("name") or "")),
        "namespace": meta.get("namespace") or "default",
        "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": meta.get("name") or "",
                             "uid": meta.get("uid") or "", "controller": True, "blockOwnerDeletion": True}],
    }
    for key in ("annotations", "labels"):
        if tmeta.get(key):
            claim_meta[key] = copy.deepcopy(tmeta[key])
    claim: dict[str, Any] = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": claim_meta}
    if "spec" in template:
        claim["spec"] = copy.deepcopy(template["spec"])
    return claim


def _controlled_by(claim: Mapping[str, Any], namespace: str, uid: str) -> bool:
    """VolumeIsForPod: the claim is in the pod's namespace and the pod is its controller."""
    meta = as_dict(claim.get("metadata"))
    return (meta.get("namespace") or "default") == namespace and any(
        isinstance(r, dict) and r.get("controller") is True and (r.get("uid") or "") == uid
        for r in meta.get("ownerReferences") or ())


@dataclass
class Created:
    """The claims the controller's sync of a pod creates, and a note for each."""

    claims: list[dict[str, Any]] = field(default_factory=list)
    volumes: list[str] = field(default_factory=list)     # the volume of each claim

    def note(self, i: int, refused: str = "") -> str:
        """What is told of claim `i`: created, or (`refused`: the API server's message) not."""
        meta = self.claims[i]["metadata"]
        pod = meta["ownerReferences"][0]["name"]
        if refused:
            return (f"pod {meta['namespace']}/{pod}: the ephemeral volume controller cannot create "
                    f"PersistentVolumeClaim {meta['namespace']}/{meta['name']} for its volume "
                    f"{self.volumes[i]!r}: {refused}")
        return (f"pod {meta['namespace']}/{pod}: created PersistentVolumeClaim {meta['namespace']}/{meta['name']} "
                f"for its ephemeral volume {self.volumes[i]!r}, as the ephemeral volume controller would")


def create_volume_claims(pod: Mapping[str, Any], existing: Iterable[Mapping[str, Any]]) -> Created:
    """The claims the controller's sync of an admitted `pod` creates given `existing`; it stops at a
    claim the pod does not control, as the sync fails there."""
    meta = as_dict(pod.get("metadata"))
    namespace, pod_name, uid = meta.get("namespace") or "default", str(meta.get("name") or ""), meta.get("uid") or ""
    have = {(as_dict(c.get("metadata")).get("namespace") or "default", as_dict(c.get("metadata")).get("name")): c
            for c in existing}
    created = Created()
    if meta.get("deletionTimestamp") is not None:
        return created
    for volume in _ephemeral_volumes(pod):
        name = claim_name(pod_name, str(volume.get("name") or ""))
        found = have.get((namespace, name))
        if found is not None:
            if not _controlled_by(found, namespace, uid):
                break
            continue
        claim = claim_for(pod, volume)
        created.claims.append(claim)
        created.volumes.append(str(volume.get("name") or ""))
        have[(namespace, name)] = claim
    return created


_VOLUME_KINDS = ("StorageClass", "PersistentVolume")  # what the PV controller reads besides the claim


def with_volume_claims(pod: Mapping[str, Any], source: Source, snapshot: Snapshot,
                       kube: KubeVersion = DEFAULT_VERSION) -> tuple[Snapshot, list[str]]:
    """`snapshot` with the pod's ephemeral claims created, admitted (a refused one is not created) and
    settled by the PersistentVolume controller, and the notes to tell."""
    made = create_volume_claims(pod, snapshot.of_kind("PersistentVolumeClaim"))
    if not made.claims:
        return snapshot, []
    notes: list[str] = []
    admitted: list[dict[str, Any]] = []
    namespace = made.claims[0]["metadata"]["namespace"]
    context = [(o, source) for o in snapshot.of_kind("StorageClass")] + [
        (o, source) for o in snapshot.of_kind("Namespace") if as_dict(o.get("metadata")).get("name") == namespace]
    for i, claim in enumerate(made.claims):
        mine = Source(source.path, source.doc)
        try:
            result = admit(context + [(claim, mine)], None, kube=kube)
        except KexplainError as err:
            notes.append(made.note(i, refused=err.message))
            continue
        admitted += [o for o, s in result.objects if s is mine and o.get("kind") == "PersistentVolumeClaim"]
        notes.append(made.note(i))
    if not admitted:
        return snapshot, notes
    objects = dict(snapshot.objects)
    waiting = {name_of(sc) for sc in snapshot.of_kind("StorageClass")
               if binding_mode(sc) == WAIT_FOR_FIRST_CONSUMER}
    if all(claim_class(c) in waiting for c in admitted):   # the scheduler binds them: the controller waits
        objects["PersistentVolumeClaim"] = [*snapshot.of_kind("PersistentVolumeClaim"), *admitted]
        return snapshot.with_objects(snapshot.namespaces, objects), notes
    volumes = [(o, source) for kind in _VOLUME_KINDS for o in snapshot.of_kind(kind)]
    new = {id(c) for c in admitted}
    settled = settle(volumes + [(c, source) for c in admitted], lambda o, _: id(o) in new).objects
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for obj, _ in settled:
        by_kind.setdefault(str(obj.get("kind")), []).append(obj)
    objects["PersistentVolume"] = by_kind.get("PersistentVolume", [])
    objects["PersistentVolumeClaim"] = [*snapshot.of_kind("PersistentVolumeClaim"),
                                        *by_kind.get("PersistentVolumeClaim", [])]
    return snapshot.with_objects(snapshot.namespaces, objects), notes

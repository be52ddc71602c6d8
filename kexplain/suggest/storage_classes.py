"""create-storage-class, set-storage-class, default-storage-class: give an unbound claim a class.

For a claim VolumeBinding's PreFilter finds nothing binds (`plugins.helper.unbound_claims`):
a missing class created (WaitForFirstConsumer, the default class's provisioner) or another named;
no default class: one marked default (DefaultStorageClass admission then sets it) or one named.
A StatefulSet's claim is changed in its volumeClaimTemplates entry (docs/internals/suggest.md)."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.apimachinery.labels import ANN_DEFAULT_STORAGE_CLASS
from kexplain.plugins.helper.unbound_claims import CLASS_MISSING, NO_DEFAULT_CLASS, claim_name
from kexplain.plugins.volumes import NOT_SUPPORTED_PROVISIONER, WAIT_FOR_FIRST_CONSUMER, binding_mode, name_of
from kexplain.suggest.change import Candidate, Op, pointer
from kexplain.suggest.context import Context

ID = "storage-class"
CREATE_STORAGE_CLASS = "create-storage-class"
SET_STORAGE_CLASS = "set-storage-class"
DEFAULT_STORAGE_CLASS = "default-storage-class"
KINDS = (CREATE_STORAGE_CLASS, SET_STORAGE_CLASS, DEFAULT_STORAGE_CLASS)

PLACEHOLDER_PROVISIONER = "csi.example.com"     # stands for the cluster's CSI driver
NEW_DEFAULT_NAME = "standard"


def _provisions(sc: Mapping[str, Any]) -> bool:
    provisioner = sc.get("provisioner") or ""
    return bool(provisioner) and provisioner != NOT_SUPPORTED_PROVISIONER


def _classes(ctx: Context) -> list[Mapping[str, Any]]:
    """The input's StorageClasses that provision, the default ones first, then by name."""
    def default(sc: Mapping[str, Any]) -> bool:
        return ((sc.get("metadata") or {}).get("annotations") or {}).get(ANN_DEFAULT_STORAGE_CLASS) == "true"
    found = [sc for sc in ctx.snapshot.of_kind("StorageClass") if _provisions(sc)]
    return sorted(found, key=lambda sc: (not default(sc), name_of(sc)))


def _claim_ref(entry: Mapping[str, Any]) -> dict[str, str]:
    namespace, _, name = str(entry.get("claim") or "").partition("/")
    return {"kind": "PersistentVolumeClaim", "namespace": namespace, "name": name}


def _where(ctx: Context, entry: Mapping[str, Any]) -> str:
    """Where the claim's class is written: the StatefulSet's template entry, the pod's
    ephemeral volume, or the claim."""
    name = claim_name(entry)
    volume = str(entry.get("volume") or "")
    owners = ctx.pod.metadata.get("ownerReferences") or ()
    if name == f"{volume}-{ctx.pod.name}" and any(o.get("kind") == "StatefulSet" for o in owners):
        return f"in the StatefulSet's volumeClaimTemplates entry {volume} (claim {entry.get('claim')})"
    if entry.get("ephemeral"):
        return f"in the pod's ephemeral volume {volume} (volumeClaimTemplate; claim {entry.get('claim')})"
    return f"on claim {entry.get('claim')}"


def _set_class(entry: Mapping[str, Any], cls: str) -> Op:
    return {"op": "add", "object": _claim_ref(entry), "path": pointer("spec", "storageClassName"), "value": cls}


def _new_class(name: str, provisioner: str, default: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if default:
        meta["annotations"] = {ANN_DEFAULT_STORAGE_CLASS: "true"}
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": meta,
            "provisioner": provisioner, "reclaimPolicy": "Delete", "volumeBindingMode": WAIT_FOR_FIRST_CONSUMER}


def _create(name: str, provisioner: str, default: bool = False) -> Op:
    return {"op": "create", "object": {"kind": "StorageClass", "name": name},
            "value": _new_class(name, provisioner, default)}


def _provisioner_words(provisioner: str) -> str:
    if provisioner == PLACEHOLDER_PROVISIONER:
        return f"provisioner: your cluster's CSI driver in place of {PLACEHOLDER_PROVISIONER}"
    return f"provisioner: {provisioner}"


def candidates(ctx: Context) -> list[Candidate]:
    """One or two changes per claim a class would serve, in claim order; when several claims need one,
    first the first change of each together (no single one lets the pod schedule)."""
    claims = (ctx.trace.extra.get("rejection") or {}).get("claims") or ()
    per_claim = [_claim_candidates(ctx, entry) for entry in claims]
    firsts = [found[0] for found in per_claim if found]
    together: list[Candidate] = []
    if len(firsts) > 1 and len(firsts) == len(claims):
        ops: list[Op] = []
        for cand in firsts:
            ops += [op for op in cand.change if op not in ops]
        together.append(Candidate(firsts[0].kind, "cluster", "; ".join(c.description for c in firsts), tuple(ops)))
    return together + [c for found in per_claim for c in found]


def _claim_candidates(ctx: Context, entry: Mapping[str, Any]) -> list[Candidate]:
    """The changes that give one claim of the rejection a class, best first."""
    classes = _classes(ctx)
    provisioner = str(classes[0].get("provisioner")) if classes else PLACEHOLDER_PROVISIONER
    out: list[Candidate] = []
    cause = entry.get("cause")
    where = _where(ctx, entry)
    target = f"claim {entry.get('claim')}"
    if cause == CLASS_MISSING:
        cls = str(entry.get("storageClass") or "")
        out.append(Candidate(CREATE_STORAGE_CLASS, "cluster",
                             f"create StorageClass {cls}, which claim {entry.get('claim')} names "
                             f"({_provisioner_words(provisioner)}, volumeBindingMode: {WAIT_FOR_FIRST_CONSUMER})",
                             (_create(cls, provisioner),)))
        for sc in classes[:1]:
            out.append(Candidate(SET_STORAGE_CLASS, target,
                                 f"set storageClassName: {name_of(sc)} (a class of the input) {where}",
                                 (_set_class(entry, name_of(sc)),)))
    elif cause == NO_DEFAULT_CLASS:
        waiting = [sc for sc in classes if binding_mode(sc) == WAIT_FOR_FIRST_CONSUMER]
        for sc in (waiting or classes)[:1]:
            out.append(Candidate(DEFAULT_STORAGE_CLASS, "cluster",
                                 f"make StorageClass {name_of(sc)} the default (annotation "
                                 f'{ANN_DEFAULT_STORAGE_CLASS}: "true") before claim {entry.get("claim")} is '
                                 "created: the API server gives it that class",
                                 ({"op": "add", "object": {"kind": "StorageClass", "name": name_of(sc)},
                                   "path": pointer("metadata", "annotations", ANN_DEFAULT_STORAGE_CLASS),
                                   "value": "true"}, _set_class(entry, name_of(sc)))))
            out.append(Candidate(SET_STORAGE_CLASS, target, f"set storageClassName: {name_of(sc)} {where}",
                                 (_set_class(entry, name_of(sc)),)))
        if not classes:
            out.append(Candidate(DEFAULT_STORAGE_CLASS, "cluster",
                                 f"add a default StorageClass ({_provisioner_words(provisioner)}, "
                                 f'{ANN_DEFAULT_STORAGE_CLASS}: "true", volumeBindingMode: '
                                 f"{WAIT_FOR_FIRST_CONSUMER}) before claim {entry.get('claim')} is created: the "
                                 "API server gives it that class",
                                 (_create(NEW_DEFAULT_NAME, provisioner, default=True),
                                  _set_class(entry, NEW_DEFAULT_NAME))))
    return out

"""The PersistentVolume controller's binding (pkg/controller/volume/persistentvolume/pv_controller.go
syncVolume / syncClaim / bind, v1.35.4) for the claims and volumes a user applies: the scheduler's
VolumeBinding reads a claim as the controller left it a second after the create, so `settle` returns
the applied objects that way (stored objects already carry what the controller did). The rules
followed and what is not emulated: docs/internals/controllers.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import compress, repeat
from operator import and_, eq, not_
from typing import Any, Callable

from kexplain.admission.pipeline import is_stored
from kexplain.apimachinery.unstructured import copy_json
from kexplain.apimachinery import columns
from kexplain.errors import Source
from kexplain.apimachinery.labels import ANN_BOUND_BY_CONTROLLER
from kexplain.model.labels import SelectorError, parse_selector
from kexplain.apimachinery.quantity import QuantityError, parse_quantity, value
from kexplain.plugins.volume_binding import claim_is_prebound_to as bound_to_claim
from kexplain.plugins.volumes import (
    ANN_BIND_COMPLETED, NOT_SUPPORTED_PROVISIONER, VOLUME_AVAILABLE, WAIT_FOR_FIRST_CONSUMER,
    access_modes, annotations, attributes_class, claim_class, labels, meta, name_of, namespace_of,
    spec, storage_request, volume_capacity, volume_class, volume_mode,
)
from kexplain.apimachinery.identity import object_uid

ANN_PRE_RESIZE_CAPACITY = "volume.alpha.kubernetes.io/pre-resize-capacity"
ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
CLAIM_BOUND = "Bound"
VOLUME_BOUND = "Bound"
VOLUME_RELEASED = "Released"
VOLUME_PENDING = "Pending"

Objects = list[tuple[dict[str, Any], Source]]


@dataclass
class Settled:
    """The objects as the controller leaves them (the same list when nothing changed; changed
    objects are copies), what it bound, and the claims it would have a volume provisioned for."""

    objects: Objects
    bound: list[tuple[str, str]] = field(default_factory=list)          # ("ns/claim", volume) newly bound
    provisioning: list[tuple[str, str]] = field(default_factory=list)   # ("ns/claim", provisioner)
    notes: list[str] = field(default_factory=list)      # what was assumed (a volume provisioned)


class _Delay(Exception):
    """IsDelayBindingMode failed: the class has no volumeBindingMode (a stored class the API
    server never defaulted). The controller returns the error and binds nothing."""


def settle(objects: Objects, applied: Callable[[dict[str, Any], Source], bool]) -> Settled:
    """`objects` after the PersistentVolume controller acted on those `applied` names (and the claims
    their volumes' claimRefs name); `objects` itself is never changed."""
    return _Controller(objects, applied).run()


class _Controller:
    def __init__(self, objects: Objects, applied: Callable[[dict[str, Any], Source], bool]) -> None:
        self.objects = list(objects)
        self.changed = False
        self.new: set[int] = set()          # indexes of objects applied now
        self.classes: dict[str, dict[str, Any]] = {}
        self.volumes: list[int] = []        # indexes, in order
        self.volume_by_name: dict[str, int] = {}
        self.claims: list[int] = []
        self.claim_by_key: dict[tuple[str, str], int] = {}
        for i, (obj, src) in enumerate(self.objects):
            kind = obj.get("kind")
            if kind not in ("PersistentVolume", "PersistentVolumeClaim", "StorageClass"):
                continue
            if applied(obj, src) and not is_stored(obj):
                self.new.add(i)
            if kind == "StorageClass":
                self.classes.setdefault(name_of(obj), obj)
            elif kind == "PersistentVolume":
                self.volumes.append(i)
                self.volume_by_name.setdefault(name_of(obj), i)
            else:
                self.claims.append(i)
                self.claim_by_key.setdefault((namespace_of(obj), name_of(obj)), i)
        self.copied: set[int] = set()       # objects already copied for a change
        self.bound: set[int] = set()        # volumes bound here
        self.result = Settled(objects)

    # -- the objects ----------------------------------------------------------------------
    def obj(self, i: int) -> dict[str, Any]:
        return self.objects[i][0]

    def writable(self, i: int) -> dict[str, Any]:
        """Object i, copied once before its first change."""
        obj, src = self.objects[i]
        if i not in self.copied:
            obj = copy_json(obj)  # type: ignore[assignment]
            self.objects[i] = (obj, src)
            self.copied.add(i)
            self.changed = True
        return obj

    def phase(self, i: int) -> str:
        """The volume's phase as the controller sees it before binding (syncVolume run on a Pending one)."""
        pv = self.obj(i)
        written = str((pv.get("status") or {}).get("phase") or "")
        if i in self.new or (written in ("", VOLUME_PENDING) and not is_stored(pv)):
            ref = spec(pv).get("claimRef")
            return VOLUME_AVAILABLE if not isinstance(ref, dict) or not ref.get("uid") else VOLUME_PENDING
        return written

    # -- the controller ---------------------------------------------------------------------
    def run(self) -> Settled:
        to_sync = [i for i in self.claims if i in self.new]
        for v in self.volumes:
            ref = spec(self.obj(v)).get("claimRef")
            if v in self.new and isinstance(ref, dict):
                c = self.claim_by_key.get((str(ref.get("namespace") or ""), str(ref.get("name") or "")))
                if c is not None and c not in to_sync and ANN_BIND_COMPLETED not in annotations(self.obj(c)):
                    to_sync.append(c)
        to_sync.sort()
        for c in [c for c in to_sync if ANN_BIND_COMPLETED in annotations(self.obj(c))]:
            self.sync_bound_claim(c)
        for c in [c for c in to_sync if ANN_BIND_COMPLETED not in annotations(self.obj(c))]:
            self.sync_unbound_claim(c)
        for v in self.volumes:
            if v in self.new:
                self.sync_volume(v)
        if self.changed:
            self.result.objects = self.objects
        return self.result

    def sync_bound_claim(self, c: int) -> None:
        claim = self.obj(c)
        v = self.volume_by_name.get(str(spec(claim).get("volumeName") or ""))
        if v is None:
            return   # Lost: the scheduler reports it
        if spec(self.obj(v)).get("claimRef") is None:
            self.bind(v, c)

    def sync_unbound_claim(self, c: int) -> None:
        claim = self.obj(c)
        name = str(spec(claim).get("volumeName") or "")
        if not name:
            try:
                delay = self.delay_binding(claim)
            except _Delay:
                return
            v = self.find_best_match(claim, delay)
            if v is not None:
                self.bind(v, c)
                return
            cls = claim_class(claim)
            sc = self.classes.get(cls)
            if not delay and cls and sc is not None:
                provisioner = str(sc.get("provisioner") or "")
                if provisioner and provisioner != NOT_SUPPORTED_PROVISIONER:
                    self.result.provisioning.append((_key(claim), provisioner))
                    self.provision(c, sc, provisioner)
            return
        v = self.volume_by_name.get(name)
        if v is None:
            return   # the volume does not exist (yet): Pending
        pv = self.obj(v)
        if spec(pv).get("claimRef") is None:
            if self.satisfies(v, claim):
                self.bind(v, c)
        elif bound_to_claim(pv, claim):
            self.bind(v, c)

    def provision(self, c: int, sc: dict[str, Any], provisioner: str) -> None:
        """The claim's volume as its class's provisioner (a CSI external-provisioner, assumed to run)
        would create it, then bound; its node affinity only when the class's allowedTopologies names one
        term. The fields written: docs/internals/controllers.md."""
        claim = self.obj(c)
        uid = str(meta(claim).get("uid") or object_uid(claim))
        request = (spec(claim).get("resources") or {}).get("requests") or {}
        pv: dict[str, Any] = {
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": f"pvc-{uid}", "annotations": {ANN_PROVISIONED_BY: provisioner}},
            "spec": {"capacity": {"storage": request.get("storage", "0")},
                     "accessModes": list(access_modes(claim)),
                     "persistentVolumeReclaimPolicy": str(sc.get("reclaimPolicy") or "Delete"),
                     "storageClassName": claim_class(claim), "volumeMode": volume_mode(claim),
                     "csi": {"driver": provisioner, "volumeHandle": f"pvc-{uid}"}},
            "status": {"phase": VOLUME_AVAILABLE}}
        if sc.get("mountOptions"):
            pv["spec"]["mountOptions"] = list(sc["mountOptions"])
        topologies = [t for t in sc.get("allowedTopologies") or () if isinstance(t, dict)]
        if len(topologies) == 1:
            terms = [{"key": e.get("key"), "operator": "In", "values": list(e.get("values") or ())}
                     for e in topologies[0].get("matchLabelExpressions") or () if isinstance(e, dict)]
            if terms:
                pv["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": terms}]}}
        self.objects.append((pv, self.objects[c][1]))
        v = len(self.objects) - 1
        self.volumes.append(v)
        self.volume_by_name[name_of(pv)] = v
        self.new.add(v)
        self.changed = True
        where = ("in the zone its class's allowedTopologies names" if "nodeAffinity" in pv["spec"]
                 else "with no zone: the one the driver picks is not known, so the pod is not held to it")
        self.result.notes.append(
            f"{self.objects[c][1]}: PersistentVolumeClaim {_key(claim)}: its StorageClass {claim_class(claim)} binds "
            f"Immediately and no volume serves it, so {provisioner} provisions one (kexplain assumes the driver "
            f"runs in the cluster): volume {name_of(pv)}, {request.get('storage', '0')}, {where}")
        self.bind(v, c)

    def sync_volume(self, v: int) -> None:
        """A new volume that no claim took: the phase syncVolume gives it."""
        if v in self.bound:
            return
        pv = self.obj(v)
        ref = spec(pv).get("claimRef")
        if not isinstance(ref, dict) or not ref.get("uid"):
            phase = VOLUME_AVAILABLE
        else:
            c = self.claim_by_key.get((str(ref.get("namespace") or ""), str(ref.get("name") or "")))
            claim = self.obj(c) if c is not None else None
            if claim is None or (meta(claim).get("uid") or "") != ref.get("uid"):
                phase = VOLUME_RELEASED
            elif spec(claim).get("volumeName") == name_of(pv):
                phase = VOLUME_BOUND
            else:
                return
        if (pv.get("status") or {}).get("phase") != phase or set(pv.get("status") or {}) - {"phase"}:
            self.writable(v)["status"] = {"phase": phase}

    def delay_binding(self, claim: dict[str, Any]) -> bool:
        """IsDelayBindingMode: only an existing class with WaitForFirstConsumer delays."""
        cls = claim_class(claim)
        if not cls or cls not in self.classes:
            return False
        mode = self.classes[cls].get("volumeBindingMode")
        if mode is None:
            raise _Delay(cls)
        return mode == WAIT_FOR_FIRST_CONSUMER

    def find_best_match(self, claim: dict[str, Any], delay: bool) -> int | None:
        """findByClaim: the access-mode groups that can serve the claim, fewest modes first."""
        wanted = set(access_modes(claim))
        groups: dict[frozenset[str], list[int]] = {}
        for v in self.volumes:
            groups.setdefault(frozenset(access_modes(self.obj(v))), []).append(v)
        usable = [g for g in groups if wanted <= g]
        usable.sort(key=len)
        raw_selector = spec(claim).get("selector")
        try:
            selector = parse_selector(raw_selector) if raw_selector is not None else None
        except SelectorError:
            return None   # the controller's error: nothing is bound
        for g in usable:
            found = self.find_matching_volume(claim, groups[g], delay, selector)
            if found is not None:
                return found
        return None

    def find_matching_volume(self, claim: dict[str, Any], volumes: list[int], delay: bool,
                             selector: Any) -> int | None:
        """component-helpers v0.35.4 FindMatchingVolume, without a node (the controller's path)."""
        request = storage_request(claim)
        cls = claim_class(claim)
        smallest: int | None = None
        smallest_qty = Fraction(0)
        for v in volumes:
            pv = self.obj(v)
            if spec(pv).get("claimRef") is not None and not bound_to_claim(pv, claim):
                continue
            qty = volume_capacity(pv)
            if qty < request:
                continue
            if volume_mode(claim) != volume_mode(pv):
                continue
            if attributes_class(claim) != attributes_class(pv):
                continue
            if self.deleting(v):
                continue
            if bound_to_claim(pv, claim):
                return v
            if delay:
                continue
            if self.phase(v) != VOLUME_AVAILABLE:
                continue
            if selector is not None and not selector.matches(labels(pv)):
                continue
            if volume_class(pv) != cls:
                continue
            if smallest is None or smallest_qty > qty:
                smallest, smallest_qty = v, qty
        return smallest

    def deleting(self, v: int) -> bool:
        """A stored volume being deleted; a create clears deletionTimestamp."""
        return v not in self.new and meta(self.obj(v)).get("deletionTimestamp") is not None

    def satisfies(self, v: int, claim: dict[str, Any]) -> bool:
        """checkVolumeSatisfyClaim, for a claim that names the volume."""
        pv = self.obj(v)
        if self.deleting(v):
            return False
        if value(volume_capacity(pv)) < value(storage_request(claim)):
            return False
        if volume_class(pv) != claim_class(claim):
            return False
        if volume_mode(claim) != volume_mode(pv):
            return False
        return set(access_modes(claim)) <= set(access_modes(pv))

    def bind(self, v: int, c: int) -> None:
        """bind(): bindVolumeToClaim, updateVolumePhase, then bindClaimToVolume, updateClaimStatus; each object
        written only where it differs, as the controller saves only what changed."""
        pv, claim = self.obj(v), self.obj(c)
        claim_meta = meta(claim)
        ref = spec(pv).get("claimRef")
        if not isinstance(ref, dict) or ref.get("name") != name_of(claim) \
                or ref.get("namespace") != namespace_of(claim) \
                or (ref.get("uid") or "") != (claim_meta.get("uid") or ""):
            claim_ref: dict[str, Any] = {"kind": "PersistentVolumeClaim", "namespace": namespace_of(claim),
                                         "name": name_of(claim)}
            for k in ("uid", "resourceVersion"):     # reference.GetReference
                if claim_meta.get(k):
                    claim_ref[k] = claim_meta[k]
            claim_ref["apiVersion"] = "v1"
            self.writable(v).setdefault("spec", {})["claimRef"] = claim_ref
        if not bound_to_claim(pv, claim) and ANN_BOUND_BY_CONTROLLER not in annotations(pv):
            _annotate(self.writable(v), ANN_BOUND_BY_CONTROLLER)
        status = self.obj(v).get("status") or {}
        if status.get("phase") != VOLUME_BOUND or status.get("message"):
            self.writable(v)["status"] = {**{k: x for k, x in status.items() if k != "message"},
                                          "phase": VOLUME_BOUND}
        pv = self.obj(v)
        self.bound.add(v)

        completed = bool(spec(claim).get("volumeName")) and ANN_BIND_COMPLETED in annotations(claim)
        if spec(claim).get("volumeName") != name_of(pv):
            self.writable(c).setdefault("spec", {})["volumeName"] = name_of(pv)
            if ANN_BOUND_BY_CONTROLLER not in annotations(self.obj(c)):
                _annotate(self.writable(c), ANN_BOUND_BY_CONTROLLER)
        if ANN_BIND_COMPLETED not in annotations(self.obj(c)):
            _annotate(self.writable(c), ANN_BIND_COMPLETED)
        status = self.obj(c).get("status") or {}
        modes = list(access_modes(pv))
        wanted = dict(status)
        wanted["phase"] = CLAIM_BOUND
        if list(status.get("accessModes") or ()) != modes:
            wanted["accessModes"] = modes
        if status.get("phase") != CLAIM_BOUND:   # capacity only when the claim becomes Bound
            pre_resize = annotations(pv).get(ANN_PRE_RESIZE_CAPACITY)
            if pre_resize is not None:
                wanted["capacity"] = {**(status.get("capacity") or {}), "storage": pre_resize}
            elif _storage(status.get("capacity")) != _storage(spec(pv).get("capacity")):
                wanted["capacity"] = copy_json(dict(spec(pv).get("capacity") or {}))
        if wanted != status:
            self.writable(c)["status"] = wanted
        if not completed:
            self.result.bound.append((_key(self.obj(c)), name_of(pv)))


def _annotate(obj: dict[str, Any], key: str) -> None:
    metadata = obj.setdefault("metadata", {})
    if not isinstance(metadata.get("annotations"), dict):
        metadata["annotations"] = {}
    metadata["annotations"][key] = "yes"


def _storage(capacity: object) -> Fraction | None:
    """capacity["storage"] as a number, None when absent or unreadable."""
    raw = capacity.get("storage") if isinstance(capacity, dict) else None
    try:
        return None if raw is None else parse_quantity(raw)
    except QuantityError:
        return None


def _key(claim: dict[str, Any]) -> str:
    return f"{namespace_of(claim)}/{name_of(claim)}"


def half_bound_notes(objects: Objects) -> list[str]:
    """A note per claim bound by hand (spec.volumeName) without pv.kubernetes.io/bind-completed: VolumeBinding
    treats it as unbound ("pod has unbound immediate PersistentVolumeClaims")."""
    notes = []
    rows = columns.rows_of(objects)
    if rows is not None:        # a dump's 150,000 objects: its claims not stored, asked of its rows in C
        objects = list(compress(objects, map(and_, map(eq, rows.kinds, repeat("PersistentVolumeClaim")),
                                             map(not_, rows.stored))))
    for obj, src in objects:
        if obj.get("kind") != "PersistentVolumeClaim" or is_stored(obj):
            continue
        volume = spec(obj).get("volumeName")
        if volume and ANN_BIND_COMPLETED not in annotations(obj):
            notes.append(f"{src}: PersistentVolumeClaim {namespace_of(obj)}/{name_of(obj)} names volume {volume} "
                         f"(spec.volumeName) but lacks the annotation {ANN_BIND_COMPLETED} that the "
                         "PersistentVolume controller adds when it binds: the scheduler treats the claim as "
                         f'unbound; add {ANN_BIND_COMPLETED}: "yes" to write it as bound')
    return notes

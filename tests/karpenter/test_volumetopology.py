"""Karpenter's volume topology (controllers/provisioning/scheduling/volumetopology.go): the
requirements a pod's claims put on its node, as alternatives, and the provisioner's validation of
the claims with Karpenter's texts (those of the pvc-zone cases among them)."""
from __future__ import annotations

from typing import Any

import pytest

from kexplain.karpenter.provisioning.scheduling.volumetopology import VolumeTopology
from kexplain.model.pod import PodInfo
from kexplain.plugins.volumes import VolumeIndex

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
BOUND = {"pv.kubernetes.io/bind-completed": "yes"}


def pvc(name: str, volume: str = "", sc: str | None = "gp3", annotations: dict | None = None, **extra: Any) -> dict:
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"]}
    if sc is not None:
        spec["storageClassName"] = sc
    if volume:
        spec["volumeName"] = volume
    meta = {"name": name, "namespace": "default", "annotations": dict(annotations if annotations is not None
                                                                    else (BOUND if volume else {}))}
    meta.update(extra.pop("meta", {}))
    return {"kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec,
            "status": {"phase": "Bound" if volume else "Pending", **extra.pop("status", {})}}


def pv(name: str, *terms: list[dict], local: bool = False, **meta: Any) -> dict:
    spec: dict[str, Any] = {"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": name}}
    if local:
        spec = {"local": {"path": "/mnt"}}
    if terms:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": t} for t in terms]}}
    return {"kind": "PersistentVolume", "metadata": {"name": name, **meta}, "spec": spec}


def sc(name: str, mode: str | None = "WaitForFirstConsumer", *zone_terms: list[str]) -> dict:
    obj: dict[str, Any] = {"kind": "StorageClass", "metadata": {"name": name}, "provisioner": "ebs.csi.aws.com"}
    if mode is not None:
        obj["volumeBindingMode"] = mode
    if zone_terms:
        obj["allowedTopologies"] = [{"matchLabelExpressions": [{"key": ZONE, "values": list(z)}]} for z in zone_terms]
    return obj


def zone_in(*zones: str) -> list[dict]:
    return [{"key": ZONE, "operator": "In", "values": list(zones)}]


def index(*objects: dict) -> VolumeIndex:
    idx = VolumeIndex()
    for o in objects:
        name = o["metadata"]["name"]
        if o["kind"] == "PersistentVolumeClaim":
            idx.pvcs[(o["metadata"].get("namespace", "default"), name)] = o
        elif o["kind"] == "PersistentVolume":
            idx.pvs[name] = o
        else:
            idx.classes[name] = o
    return idx


def pod(*claims: str, ephemeral: str = "") -> PodInfo:
    volumes: list[dict] = [{"name": "scratch", "emptyDir": {}}]
    volumes += [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(claims)]
    if ephemeral:
        volumes.append({"name": ephemeral, "ephemeral": {"volumeClaimTemplate": {"spec": {}}}})
    return PodInfo({"metadata": {"name": "stateful-0", "namespace": "default", "uid": "u1"},
                    "spec": {"containers": [{"name": "c"}], "volumes": volumes}})


def alternatives(topology: VolumeTopology, p: PodInfo) -> list[str] | None:
    got, err = topology.get_requirements(p)
    assert err is None, str(err)
    return None if got is None else [str(r) for r in got]


# -- GetRequirements -------------------------------------------------------------------------------

@pytest.mark.parametrize("objects, claims, want", [
    ((), (), None),                                                                       # no claim
    ((pvc("d", "v"), pv("v", zone_in("a"))), ("d",), [f"{ZONE} In [a]"]),                 # bound: the PV's affinity
    ((pvc("d", "v"), pv("v")), ("d",), None),                                             # a PV without affinity
    ((pvc("d", "v"), pv("v", zone_in("a"), zone_in("b"))), ("d",), [f"{ZONE} In [a]", f"{ZONE} In [b]"]),
    ((pvc("d"), sc("gp3", "WaitForFirstConsumer", ["a", "b"])), ("d",), [f"{ZONE} In [a b]"]),
    ((pvc("d"), sc("gp3", "Immediate", ["a"], ["c"])), ("d",), [f"{ZONE} In [a]", f"{ZONE} In [c]"]),
    ((pvc("d"), sc("gp3")), ("d",), None),                                                # no allowedTopologies
    ((pvc("d", sc=None),), ("d",), None),                                                 # unbound, no class
], ids=["none", "pv-affinity", "pv-no-affinity", "pv-terms", "sc-topologies", "sc-terms", "sc-open", "no-class"])
def test_requirements_of_one_claim(objects, claims, want):
    assert alternatives(VolumeTopology(index(*objects)), pod(*claims)) == want


def test_local_volume_hostname_is_dropped():
    host_only = [{"key": HOST, "operator": "In", "values": ["node-1"]}]
    t = VolumeTopology(index(pvc("d", "v"), pv("v", host_only, local=True),
                             pvc("e", "w"), pv("w", host_only + zone_in("a"), local=True),
                             pvc("f", "x"), pv("x", host_only)))
    assert alternatives(t, pod("d")) == [""]                # a hostname-only term: unconstrained
    assert alternatives(t, pod("e")) == [f"{ZONE} In [a]"]
    (kept,), _ = t.get_requirements(pod("f"))                 # not local: the hostname stays
    assert str(kept.get(HOST)) == f"{HOST} In [node-1]"


def test_several_volumes_keep_the_combinations_that_intersect():
    t = VolumeTopology(index(pvc("a", "va"), pv("va", zone_in("z1"), zone_in("z2")),
                             pvc("b"), sc("gp3", "WaitForFirstConsumer", ["z2", "z3"], ["z1"])))
    assert alternatives(t, pod("a", "b")) == [f"{ZONE} In [z1]", f"{ZONE} In [z2]"]


def test_when_no_combination_intersects_all_are_kept():
    t = VolumeTopology(index(pvc("a", "va"), pv("va", zone_in("z1")), pvc("b", "vb"), pv("vb", zone_in("z2"), zone_in("z3"))))
    assert alternatives(t, pod("a", "b")) == [f"{ZONE} DoesNotExist", f"{ZONE} DoesNotExist"]


def test_an_ephemeral_volume_uses_the_claim_named_after_the_pod():
    t = VolumeTopology(index(pvc("stateful-0-cache", "v"), pv("v", zone_in("z9"))))
    assert alternatives(t, pod(ephemeral="cache")) == [f"{ZONE} In [z9]"]


@pytest.mark.parametrize("objects, text", [
    ((), 'discovering persistent volume claim, getting persistent volume claim, persistentvolumeclaims "d" not '
         'found (PersistentVolumeClaim=d)'),
    ((pvc("d", "v"),), 'getting existing requirements, getting persistent volume, persistentvolumes "v" not found '
                       '(PersistentVolume=v)'),
    ((pvc("d", sc="fast"),), 'getting storage class, storageclasses.storage.k8s.io "fast" not found '
                             '(StorageClass=fast)'),
])
def test_requirements_errors(objects, text):
    got, err = VolumeTopology(index(*objects)).get_requirements(pod("d"))
    assert got is None and str(err) == text


# -- ValidatePersistentVolumeClaims ----------------------------------------------------------------

@pytest.mark.parametrize("objects, claim, text", [
    ((), "missing-0",
     'getting persistent volume claim, persistentvolumeclaims "missing-0" not found (PersistentVolumeClaim=missing-0)'),
    ((pvc("data-1", sc="gp3-immediate"), sc("gp3-immediate", "Immediate")), "data-1",
     "failed to validate pvc, pvc with immediate volume binding mode must be bound "
     "(PersistentVolumeClaim=default/data-1, StorageClass=gp3-immediate)"),
    ((pvc("d", meta={"deletionTimestamp": "2026-01-01T00:00:00Z"}),), "d",
     "persistentvolumeclaim is being deleted (PersistentVolumeClaim=default/d)"),
    ((pvc("d", "v", status={"phase": "Lost"}),), "d",
     "persistentvolumeclaim bound to non-existent persistentvolume (PersistentVolume=v, "
     "PersistentVolumeClaim=default/d)"),
    ((pvc("d", "v"),), "d",
     'failed to validate pvc, persistentvolumes "v" not found (PersistentVolume=v, PersistentVolumeClaim=default/d, '
     'StorageClass=gp3)'),
    ((pvc("d", "v"), pv("v", deletionTimestamp="2026-01-01T00:00:00Z")), "d",
     "failed to validate pvc, persistentvolume is being deleted (PersistentVolume=v, PersistentVolumeClaim=default/d, "
     "StorageClass=gp3)"),
    ((pvc("d", "v", annotations={}), pv("v")), "d",
     "pvc is considered unbound because it does not contain annotation (PersistentVolume=v, PersistentVolumeClaim=d, "
     "annotation=pv.kubernetes.io/bind-completed)"),
    ((pvc("d", sc=None),), "d", "unbound pvc must define a storage class (PersistentVolumeClaim=default/d, StorageClass=)"),
    ((pvc("d", sc="fast"),), "d",
     'failed to validate pvc, failed to get storage class, storageclasses.storage.k8s.io "fast" not found '
     '(PersistentVolumeClaim=default/d, StorageClass=fast)'),
], ids=["missing", "immediate", "deleting", "lost", "pv-missing", "pv-deleting", "not-bind-completed", "no-class",
        "class-missing"])
def test_validation_errors(objects, claim, text):
    assert str(VolumeTopology(index(*objects)).validate_persistent_volume_claims(pod(claim))) == text


@pytest.mark.parametrize("objects", [
    (pvc("d"), sc("gp3")),                                  # WaitForFirstConsumer, unbound
    (pvc("d"), sc("gp3", None)),                            # no binding mode read as not Immediate
    (pvc("d", "v"), pv("v", zone_in("a"))),                 # bound and completed
    (pvc("d", "v", sc=None), pv("v")),                      # bound without a class
])
def test_claims_karpenter_provisions_for(objects):
    assert VolumeTopology(index(*objects)).validate_persistent_volume_claims(pod("d")) is None


def test_the_first_failing_claim_is_reported():
    t = VolumeTopology(index(pvc("ok"), sc("gp3")))
    assert "missing-1" in str(t.validate_persistent_volume_claims(pod("ok", "missing-1", "missing-2")))

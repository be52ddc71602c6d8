"""The PersistentVolume controller's binding of the claims a POD file applies (issue 15).

`kubectl apply -f` of a volume, a claim and a pod: the controller binds the claim within a
second and the pod runs. kexplain binds the POD file's own claims the same way (settle), and
leaves --nodes as the cluster is (the scheduler's view, which conformance checks).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.errors import Source
from kexplain.controllers.persistentvolume import ANN_BOUND_BY_CONTROLLER, settle
from kexplain.plugins.volume_binding import ERR_UNBOUND_IMMEDIATE
from kexplain.plugins.volumes import ANN_BIND_COMPLETED

RWO, ROX, RWX = "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany"
WFFC = "WaitForFirstConsumer"
SRC = Source("pod.yaml", 1)


# -- objects, as people write them ------------------------------------------------------------
def volume(name: str, size: str = "10Gi", cls: str | None = "manual", modes: tuple[str, ...] = (RWO,),
           labels: dict | None = None, claim: str | None = None, uid: str | None = None,
           phase: str | None = None, stored: bool = False, **spec: Any) -> dict:
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = labels
    if stored:
        meta["resourceVersion"] = "7"
    body: dict[str, Any] = {"capacity": {"storage": size}, "accessModes": list(modes),
                            "hostPath": {"path": f"/mnt/{name}"}, **spec}
    if cls is not None:
        body["storageClassName"] = cls
    if claim is not None:
        body["claimRef"] = {"namespace": "default", "name": claim}
        if uid:
            body["claimRef"]["uid"] = uid
    obj = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": meta, "spec": body}
    if phase:
        obj["status"] = {"phase": phase}
    return obj


def claim(name: str = "data", size: str = "3Gi", cls: str | None = "manual", modes: tuple[str, ...] = (RWO,),
          volume_name: str | None = None, annotations: dict | None = None, uid: str | None = None,
          stored: bool = False, **spec: Any) -> dict:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if annotations:
        meta["annotations"] = annotations
    if uid:
        meta["uid"] = uid
    if stored:
        meta["resourceVersion"] = "8"
    body: dict[str, Any] = {"accessModes": list(modes), "resources": {"requests": {"storage": size}}, **spec}
    if cls is not None:
        body["storageClassName"] = cls
    if volume_name:
        body["volumeName"] = volume_name
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": body}


def storage_class(name: str = "manual", mode: str = "Immediate", provisioner: str = "kubernetes.io/no-provisioner"):
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
            "provisioner": provisioner, "volumeBindingMode": mode}


def pod(claim_name: str = "data") -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
            "spec": {"volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": claim_name}}],
                     "containers": [{"name": "c", "image": "nginx", "volumeMounts": [{"name": "v", "mountPath": "/d"}],
                                     "resources": {"requests": {"cpu": "100m"}}}]}}


def node(name: str, zone: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


NODES = [node("n1", "a"), node("n2", "b")]


# -- the controller on objects ------------------------------------------------------------
def bindings(*objects: dict) -> dict[str, str | None]:
    """claim name -> the volume the controller bound it to (None: left unbound)."""
    settled = settle([(o, SRC) for o in objects], lambda o, s: True)
    return {o["metadata"]["name"]: (o["spec"].get("volumeName")
                                    if ANN_BIND_COMPLETED in (o["metadata"].get("annotations") or {}) else None)
            for o, _ in settled.objects if o["kind"] == "PersistentVolumeClaim"}


@pytest.mark.parametrize("objects,want", [
    # The tutorial: a volume and a claim of class "manual", no StorageClass object.
    ([volume("pv-volume"), claim("pv-claim")], {"pv-claim": "pv-volume"}),
    # Capacity: at least the request (exactly the request fits), the smallest that fits wins.
    ([volume("small", "1Gi"), claim()], {"data": None}),
    ([volume("exact", "3Gi"), claim()], {"data": "exact"}),
    ([volume("big", "20Gi"), volume("mid", "5Gi"), volume("tiny", "2Gi"), claim()], {"data": "mid"}),
    ([volume("a", "3072Mi"), volume("b", "3Gi"), claim()], {"data": "a"}),     # equal: the first
    # Access modes: the volume must offer every mode the claim asks for.
    ([volume("ro", modes=(ROX,)), claim()], {"data": None}),
    ([volume("rw", modes=(RWO, RWX)), claim()], {"data": "rw"}),
    ([volume("one", modes=(RWO,)), claim(modes=(RWO, ROX))], {"data": None}),
    # findByClaim searches the volumes with the fewest modes first, before comparing sizes.
    ([volume("two-modes", "4Gi", modes=(RWO, ROX)), volume("one-mode", "50Gi"), claim()], {"data": "one-mode"}),
    # Class: the same class, "" included; a class of another name never.
    ([volume("other", cls="fast"), claim()], {"data": None}),
    ([volume("none", cls=None), claim(cls="")], {"data": "none"}),
    ([volume("none", cls=None), claim()], {"data": None}),
    # volumeMode (Filesystem when unset) and volumeAttributesClassName must be equal.
    ([volume("block", volumeMode="Block"), claim()], {"data": None}),
    ([volume("block", volumeMode="Block"), claim(volumeMode="Block")], {"data": "block"}),
    ([volume("gold", volumeAttributesClassName="gold"), claim()], {"data": None}),
    # The selector reads the volume's labels.
    ([volume("plain", "4Gi"), volume("ssd", "8Gi", labels={"disk": "ssd"}),
      claim(selector={"matchLabels": {"disk": "ssd"}})], {"data": "ssd"}),
    ([volume("plain"), claim(selector={"matchExpressions": [{"key": "disk", "operator": "Exists"}]})],
     {"data": None}),
    # A volume pre-bound to the claim (claimRef) wins over a smaller free one; another claim's is
    # never taken, nor a pre-bound one too small.
    ([volume("free", "4Gi"), volume("reserved", "50Gi", claim="data"), claim()], {"data": "reserved"}),
    ([volume("theirs", claim="other"), claim()], {"data": None}),
    ([volume("reserved", "1Gi", claim="data"), volume("free", "4Gi"), claim()], {"data": "free"}),
    ([volume("old", claim="data", uid="uid-before"), claim(uid="uid-now")], {"data": None}),
    # A stored volume must be Available; a created one is made Available first (a create
    # resets its phase), and a hand-written one still Pending too.
    ([volume("gone", phase="Released", stored=True), claim()], {"data": None}),
    ([volume("new", phase="Pending", stored=True), claim()], {"data": None}),
    ([volume("ok", phase="Available", stored=True), claim()], {"data": "ok"}),
    ([volume("ok", phase="Released"), claim()], {"data": "ok"}),
    # An explicit Immediate class binds the same; WaitForFirstConsumer leaves the claim to the
    # scheduler, unless a volume is pre-bound to it (FindMatchingVolume returns that one).
    ([storage_class(), volume("v"), claim()], {"data": "v"}),
    ([storage_class(mode=WFFC), volume("v"), claim()], {"data": None}),
    ([storage_class(mode=WFFC), volume("v", claim="data"), claim()], {"data": "v"}),
    # Two claims, one volume: the first in file order takes it.
    ([volume("v"), claim("first"), claim("second")], {"first": "v", "second": None}),
    ([volume("v", "4Gi"), volume("w", "8Gi"), claim("first"), claim("second")], {"first": "v", "second": "w"}),
    # A claim already bound (bind-completed) is synced first: its free volume is no one else's.
    ([volume("v"), claim("second"), claim("first", volume_name="v", annotations={ANN_BIND_COMPLETED: "y"})],
     {"second": None, "first": "v"}),
    # A claim that names its volume (spec.volumeName, written as bound by hand): completed when the
    # volume is free and satisfies it, or already names the claim; the class's mode is not read.
    ([volume("v"), claim(volume_name="v")], {"data": "v"}),
    ([volume("v", claim="data"), claim(volume_name="v")], {"data": "v"}),
    ([storage_class(mode=WFFC), volume("v"), claim(volume_name="v")], {"data": "v"}),
    ([volume("v", "1Gi"), claim(volume_name="v")], {"data": None}),
    ([volume("v", modes=(ROX,)), claim(volume_name="v")], {"data": None}),
    ([volume("v", cls="fast"), claim(volume_name="v")], {"data": None}),
    ([volume("v", claim="other"), claim(volume_name="v")], {"data": None}),
    ([claim(volume_name="missing")], {"data": None}),
])
def test_which_volume_the_controller_binds(objects, want):
    assert bindings(*objects) == want


def test_bind_writes_what_the_controller_writes():
    pv, pvc = volume("pv-volume", modes=(RWO, ROX)), claim("pv-claim", uid="uid-1")
    given = json.dumps([pv, pvc], sort_keys=True)
    settled = settle([(pv, SRC), (pvc, SRC)], lambda o, s: True)
    assert json.dumps([pv, pvc], sort_keys=True) == given, "the input objects are not changed"
    new_pv, new_pvc = (o for o, _ in settled.objects)
    assert new_pv["spec"]["claimRef"] == {"kind": "PersistentVolumeClaim", "namespace": "default",
                                          "name": "pv-claim", "uid": "uid-1", "apiVersion": "v1"}
    assert new_pv["metadata"]["annotations"] == {ANN_BOUND_BY_CONTROLLER: "yes"}
    assert new_pv["status"] == {"phase": "Bound"}
    assert new_pvc["spec"]["volumeName"] == "pv-volume"
    assert new_pvc["metadata"]["annotations"] == {ANN_BOUND_BY_CONTROLLER: "yes", ANN_BIND_COMPLETED: "yes"}
    assert new_pvc["status"] == {"phase": "Bound", "accessModes": [RWO, ROX], "capacity": {"storage": "10Gi"}}
    assert settled.bound == [("default/pv-claim", "pv-volume")]


def test_pre_bound_on_both_sides_is_not_marked_as_the_controllers():
    """The user chose the pairing: neither object gets bound-by-controller, only bind-completed."""
    settled = settle([(volume("v", claim="data"), SRC), (claim(volume_name="v"), SRC)], lambda o, s: True)
    pv, pvc = (o for o, _ in settled.objects)
    assert "annotations" not in pv["metadata"]
    assert pvc["metadata"]["annotations"] == {ANN_BIND_COMPLETED: "yes"}


def test_a_claim_that_names_a_free_volume_marks_only_the_volume():
    settled = settle([(volume("v"), SRC), (claim(volume_name="v"), SRC)], lambda o, s: True)
    pv, pvc = (o for o, _ in settled.objects)
    assert pv["metadata"]["annotations"] == {ANN_BOUND_BY_CONTROLLER: "yes"}
    assert pvc["metadata"]["annotations"] == {ANN_BIND_COMPLETED: "yes"}


def test_only_objects_applied_now_and_never_stored_ones():
    objects = [(volume("v"), SRC), (claim(), SRC)]
    assert settle(objects, lambda o, s: False).objects is objects
    stored = [(volume("v", phase="Available", stored=True), SRC), (claim(stored=True), SRC)]
    assert settle(stored, lambda o, s: True).objects is stored


def test_a_volume_left_free_is_made_available():
    """syncVolume: a created volume's status is reset; free, or reserved without a uid, it is
    Available; reserved for a claim uid that does not exist, Released."""
    settled = settle([(volume("free", phase="Bound"), SRC), (volume("reserved", claim="x"), SRC),
                      (volume("orphan", claim="x", uid="u1"), SRC)], lambda o, s: True)
    assert [o["status"]["phase"] for o, _ in settled.objects] == ["Available", "Available", "Released"]


def test_a_csi_driver_provisions_an_immediate_claim():
    """Issue 39 item 6: an Immediate claim of a class whose provisioner is a driver (not
    kubernetes.io/no-provisioner) gets the volume the driver would create, bound to it; kexplain
    says it assumes the driver runs, and gives the volume a zone only from allowedTopologies."""
    sc = storage_class("fast", provisioner="example.com/csi")
    settled = settle([(sc, SRC), (claim(cls="fast"), SRC)], lambda o, s: True)
    assert settled.provisioning == [("default/data", "example.com/csi")]
    bound = settled.objects[1][0]
    volume_name = bound["spec"]["volumeName"]
    assert volume_name.startswith("pvc-") and bound["status"]["phase"] == "Bound"
    pv = settled.objects[2][0]
    assert pv["metadata"]["name"] == volume_name
    assert pv["spec"]["csi"]["driver"] == "example.com/csi" and pv["status"]["phase"] == "Bound"
    assert pv["spec"]["claimRef"]["name"] == "data" and "nodeAffinity" not in pv["spec"]
    [note] = settled.notes
    assert "example.com/csi provisions one (kexplain assumes the driver runs in the cluster)" in note
    zonal = {**sc, "allowedTopologies": [{"matchLabelExpressions": [
        {"key": "topology.kubernetes.io/zone", "values": ["eu-west-1a"]}]}]}
    pv = settle([(zonal, SRC), (claim(cls="fast"), SRC)], lambda o, s: True).objects[2][0]
    assert pv["spec"]["nodeAffinity"] == {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["eu-west-1a"]}]}]}}
    # No class object (the tutorial's "manual" without a volume), or no provisioner: nothing to provision.
    assert settle([(claim(), SRC)], lambda o, s: True).provisioning == []
    local = storage_class("local", provisioner="kubernetes.io/no-provisioner")
    assert settle([(local, SRC), (claim(cls="local"), SRC)], lambda o, s: True).provisioning == []


def test_a_volume_of_the_file_pre_bound_to_a_claim_of_the_cluster():
    cluster_claim = (claim(stored=True), Source("cluster.yaml", 1))
    settled = settle([cluster_claim, (volume("v", claim="data"), SRC)], lambda o, s: s is SRC)
    assert settled.bound == [("default/data", "v")]


# -- through the command --------------------------------------------------------------------
def run(capsys, tmp_path: Path, pod_file: list[dict], cluster: list[dict], *extra: str) -> tuple[int, dict]:
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump_all(pod_file))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(cluster))
    code = main([str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), "-o", "json", *extra])
    out, _ = capsys.readouterr()
    return code, json.loads(out)


def volume_binding(trace: dict) -> tuple[str, list[str]]:
    st = next(s for s in trace["preFilter"] if s["plugin"] == "VolumeBinding")
    return st["code"], st.get("reasons", [])


def test_the_tutorial_file_schedules(capsys, tmp_path):
    """A hostPath volume of class "manual", a claim of 3Gi and the pod, in one file: the pod runs
    (on any node: the volume has no node affinity)."""
    code, trace = run(capsys, tmp_path, [volume("pv-volume"), claim("pv-claim"), pod("pv-claim")], NODES)
    assert code == 0
    assert trace["result"]["status"] == "Scheduled" and trace["result"]["suggestedHost"] in ("n1", "n2")
    assert volume_binding(trace) == ("Success", [])


@pytest.mark.parametrize("pod_file", [
    [volume("pv-volume", "1Gi"), claim("pv-claim"), pod("pv-claim")],                     # too small
    [volume("pv-volume", modes=(ROX,)), claim("pv-claim"), pod("pv-claim")],               # mode
    [volume("pv-volume"), claim("pv-claim", selector={"matchLabels": {"disk": "ssd"}}), pod("pv-claim")],
    [storage_class("fast", provisioner="kubernetes.io/no-provisioner"), claim("pv-claim", cls="fast"), pod("pv-claim")],
], ids=["too-small", "access-mode", "selector", "no-provisioner"])
def test_no_match_keeps_the_scheduler_message(capsys, tmp_path, pod_file):
    """(A class of kubernetes.io/no-provisioner would need a volume made by hand.)"""
    code, trace = run(capsys, tmp_path, pod_file, NODES)
    assert code == 1
    assert volume_binding(trace) == ("UnschedulableAndUnresolvable", [ERR_UNBOUND_IMMEDIATE])


def test_wait_for_first_consumer_is_left_to_the_scheduler(capsys, tmp_path):
    """A local volume on n2 of a WaitForFirstConsumer class: the controller does not bind the
    claim, only makes the volume Available; the scheduler's VolumeBinding picks n2 for it."""
    local = volume("local", cls="local", nodeAffinity={"required": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["n2"]}]}]}})
    code, trace = run(capsys, tmp_path, [storage_class("local", WFFC), local, claim(cls="local"), pod()], NODES)
    assert code == 0
    assert trace["result"]["suggestedHost"] == "n2"


def test_a_claim_written_as_bound_in_the_pod_file_is_completed(capsys, tmp_path):
    """spec.volumeName without the bind-completed annotation: applied, the controller completes
    it (the same claim in --nodes is read as the scheduler reads it: tests/plugins/test_volume_binding.py)."""
    hand = claim(volume_name="pv-1")
    code, trace = run(capsys, tmp_path, [volume("pv-1", claim="data"), hand, pod()], NODES)
    assert code == 0 and volume_binding(trace) == ("Success", [])


def test_the_cluster_of_nodes_is_as_it_is(capsys, tmp_path):
    """--nodes is the cluster the scheduler sees, as conformance reads it: its claims are not bound."""
    code, trace = run(capsys, tmp_path, [pod()], [*NODES, volume("v"), claim()])
    assert code == 1 and volume_binding(trace)[1] == [ERR_UNBOUND_IMMEDIATE]


@pytest.mark.parametrize("cluster_volume", [volume("v", phase="Available", stored=True), volume("v")],
                         ids=["stored-available", "hand-written"])
def test_a_claim_of_the_pod_file_binds_a_volume_of_the_cluster(capsys, tmp_path, cluster_volume):
    code, trace = run(capsys, tmp_path, [claim(), pod()], [*NODES, cluster_volume])
    assert code == 0 and volume_binding(trace) == ("Success", [])


def test_stored_input_is_not_bound_again(capsys, tmp_path):
    code, trace = run(capsys, tmp_path, [volume("v"), claim(), pod()], NODES, "--stored")
    assert code == 1 and volume_binding(trace)[1] == [ERR_UNBOUND_IMMEDIATE]


def test_replicas_share_the_bound_claim(capsys, tmp_path):
    code, out = run(capsys, tmp_path, [volume("v"), claim(), pod()], NODES, "--replicas", "2")
    assert code == 0
    assert [p["node"] is not None for p in out["placements"][0]["pods"]] == [True, True]


def test_the_pod_of_a_provisioned_claim_schedules(capsys, tmp_path):
    pod_file = [storage_class("fast", provisioner="example.com/csi"), claim("pv-claim", cls="fast"), pod("pv-claim")]
    code, trace = run(capsys, tmp_path, pod_file, NODES)
    assert code == 0 and trace["result"]["status"] == "Scheduled"


def test_half_bound_notes_read_a_dumps_rows_as_they_read_each_object():
    """A claim written bound by hand (spec.volumeName, no bind-completed) gets its note, a stored
    one none: the same from a dump's rows (`columns.Dump`) as from a plain list."""
    from kexplain.apimachinery.columns import Dump, rows_of
    from kexplain.controllers.persistentvolume import half_bound_notes

    def claim(name: str, stored: bool) -> dict:
        meta = {"name": name, "namespace": "default", **({"resourceVersion": "7"} if stored else {})}
        return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta,
                "spec": {"volumeName": f"pv-{name}"}}

    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{k}", "resourceVersion": "1"}, "spec": {}}
            for k in range(3)]
    objects = [(o, Source("cluster.json", k + 1)) for k, o in
               enumerate([pods[0], claim("hand", False), pods[1], claim("kept", True), pods[2]])]
    dump = Dump(objects)
    assert rows_of(dump) is not None
    notes = half_bound_notes(dump)
    assert notes == half_bound_notes(list(objects))
    assert len(notes) == 1 and "PersistentVolumeClaim default/hand names volume pv-hand" in notes[0]

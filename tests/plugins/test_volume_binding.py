"""VolumeBinding: PreFilter's claim checks, Filter's bound/unbound claim rules, PreScore, and what
every view says of a claim written by hand as bound."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.framework.cycle_state import CycleState
from kexplain.model.pod import PodInfo
from kexplain.plugins.volume_binding import (
    ERR_REASON_BIND_CONFLICT, ERR_REASON_NODE_CONFLICT, ERR_REASON_PV_NOT_EXIST,
    ERR_UNBOUND_IMMEDIATE, VolumeBinding,
)
from tests.support.volume_helpers import (
    ZONE, claim_volume, cluster, ephemeral_volume, node, pod, pv, pvc, run_filters,
    storage_class, csinode,
)

OK = ("Success", ())
SKIP = ("Skip", ())
UU = "UnschedulableAndUnresolvable"
WFFC = "WaitForFirstConsumer"
NODES = [node("n1", {ZONE: "a"}), node("n2", {ZONE: "b"})]


def uu(*reasons: str) -> tuple[str, tuple[str, ...]]:
    return UU, reasons


@pytest.mark.parametrize("volumes,others,want", [
    # No claims at all: nothing to do.
    ([{"name": "tmp", "emptyDir": {}}], [], SKIP),
    ([], [], SKIP),
    # Missing claim, generic ephemeral claim not yet created.
    ([claim_volume("data")], [], uu('persistentvolumeclaim "data" not found')),
    ([ephemeral_volume("scratch")], [],
     uu('waiting for ephemeral volume controller to create the persistentvolumeclaim "p-scratch"')),
    # An ephemeral claim that another pod owns.
    ([ephemeral_volume("scratch")], [pvc("p-scratch", owner_uid="someone-else")],
     uu("PVC default/p-scratch was not created for pod default/p (pod is not owner)")),
    # Lost and deleting claims.
    ([claim_volume("data")], [pvc("data", volume_name="gone", phase="Lost")],
     uu('persistentvolumeclaim "data" bound to non-existent persistentvolume "gone"')),
    ([claim_volume("data")], [pvc("data", volume_name="pv1", deleting=True)],
     uu('persistentvolumeclaim "data" is being deleted')),
    # The first problem in volume order wins.
    ([claim_volume("a"), claim_volume("b")], [pvc("b", deleting=True)],
     uu('persistentvolumeclaim "a" not found')),
    # Unbound claims that should already be bound.
    ([claim_volume("data")], [pvc("data"), storage_class("standard", mode="Immediate")],
     uu(ERR_UNBOUND_IMMEDIATE)),
    ([claim_volume("data")], [pvc("data", storage_class="missing")], uu(ERR_UNBOUND_IMMEDIATE)),
    ([claim_volume("data")], [pvc("data", storage_class="")], uu(ERR_UNBOUND_IMMEDIATE)),
    # Volume name set but the bind not completed: pre-bound, counts as immediate.
    ([claim_volume("data")], [pvc("data", volume_name="pv1", bound=False),
                              storage_class("standard", mode=WFFC)], uu(ERR_UNBOUND_IMMEDIATE)),
    # Fully bound, or waiting for the first consumer: PreFilter passes.
    ([claim_volume("data")], [pvc("data", volume_name="pv1"), pv("pv1")], OK),
    ([claim_volume("data")], [pvc("data"), storage_class("standard", mode=WFFC)], OK),
    ([ephemeral_volume("scratch")], [pvc("p-scratch", owner_uid="uid-default-p", volume_name="pv1"),
                                     pv("pv1")], OK),
])
def test_pre_filter(volumes, others, want):
    h = cluster(NODES, others=others)
    pre, _, _ = run_filters(VolumeBinding, h, pod("p", volumes))
    assert pre == want


def test_missing_binding_mode_is_an_error():
    others = [pvc("data"), storage_class("standard", mode=None)]
    pre, _, _ = run_filters(VolumeBinding, cluster(NODES, others=others), pod("p", [claim_volume("data")]))
    assert pre == ("Error", ('VolumeBindingMode not set for StorageClass "standard"',))


@pytest.mark.parametrize("others,want", [
    # Bound claim: the volume's node affinity picks the node.
    ([pvc("data", volume_name="pv1"), pv("pv1", affinity={ZONE: ["a"]})],
     {"n1": OK, "n2": uu(ERR_REASON_NODE_CONFLICT)}),
    ([pvc("data", volume_name="pv1"), pv("pv1")], {"n1": OK, "n2": OK}),
    # Bound to a volume that does not exist.
    ([pvc("data", volume_name="gone")],
     {"n1": uu(ERR_REASON_PV_NOT_EXIST), "n2": uu(ERR_REASON_PV_NOT_EXIST)}),
    # matchFields are not checked for volumes (the node is matched by labels only).
    ([pvc("data", volume_name="pv1"),
      {**pv("pv1"), "spec": {**pv("pv1")["spec"], "nodeAffinity": {"required": {"nodeSelectorTerms": [
          {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]}}}}],
     {"n1": OK, "n2": OK}),
])
def test_bound_claims(others, want):
    _, per_node, _ = run_filters(VolumeBinding, cluster(NODES, others=others), pod("p", [claim_volume("data")]))
    assert per_node == want


def test_bound_claim_checks_stop_at_the_first_missing_volume():
    # The missing volume comes first: the affinity conflict of the second is never seen.
    others = [pvc("a", volume_name="gone"), pvc("b", volume_name="pv1"), pv("pv1", affinity={ZONE: ["b"]})]
    _, per_node, _ = run_filters(VolumeBinding, cluster(NODES, others=others),
                                 pod("p", [claim_volume("a"), claim_volume("b")]))
    assert per_node == {"n1": uu(ERR_REASON_PV_NOT_EXIST), "n2": uu(ERR_REASON_PV_NOT_EXIST)}


def wffc_cluster(*volumes, provisioner="kubernetes.io/no-provisioner", allowed=None, claim=None):
    sc = storage_class("local", provisioner=provisioner, mode=WFFC, allowed_zones=allowed)
    return cluster(NODES, others=[claim or pvc("data", storage_class="local"), sc, *volumes])


@pytest.mark.parametrize("volumes,want", [
    # A free local volume on n1 only.
    ([pv("lv1", "local", affinity={ZONE: ["a"]})], {"n1": OK, "n2": uu(ERR_REASON_BIND_CONFLICT)}),
    # Too small, wrong class, wrong access mode, already claimed, not Available, Block mode.
    ([pv("lv1", "local", capacity="512Mi")], {"n1": uu(ERR_REASON_BIND_CONFLICT), "n2": uu(ERR_REASON_BIND_CONFLICT)}),
    ([pv("lv1", "other")], {"n1": uu(ERR_REASON_BIND_CONFLICT), "n2": uu(ERR_REASON_BIND_CONFLICT)}),
    ([pv("lv1", "local", modes=["ReadOnlyMany"])],
     {"n1": uu(ERR_REASON_BIND_CONFLICT), "n2": uu(ERR_REASON_BIND_CONFLICT)}),
    ([pv("lv1", "local", claim_ref=("default", "other"))],
     {"n1": uu(ERR_REASON_BIND_CONFLICT), "n2": uu(ERR_REASON_BIND_CONFLICT)}),
    ([pv("lv1", "local", phase="Released")],
     {"n1": uu(ERR_REASON_BIND_CONFLICT), "n2": uu(ERR_REASON_BIND_CONFLICT)}),
    ([pv("lv1", "local", volume_mode="Block")],
     {"n1": uu(ERR_REASON_BIND_CONFLICT), "n2": uu(ERR_REASON_BIND_CONFLICT)}),
    ([pv("lv1", "local", deleting=True)],
     {"n1": uu(ERR_REASON_BIND_CONFLICT), "n2": uu(ERR_REASON_BIND_CONFLICT)}),
    # A volume pre-bound to this claim is taken even if not Available, where its affinity allows.
    ([pv("lv1", "local", claim_ref=("default", "data"), phase="Pending", affinity={ZONE: ["b"]})],
     {"n1": uu(ERR_REASON_BIND_CONFLICT), "n2": OK}),
])
def test_wait_for_first_consumer_static(volumes, want):
    _, per_node, _ = run_filters(VolumeBinding, wffc_cluster(*volumes), pod("p", [claim_volume("data")]))
    assert per_node == want


def test_selector_restricts_candidate_volumes():
    claim = pvc("data", storage_class="local", selector={"matchLabels": {"tier": "fast"}})
    h = wffc_cluster(pv("slow", "local", affinity={ZONE: ["a"]}, labels={"tier": "slow"}),
                     pv("fast", "local", affinity={ZONE: ["b"]}, labels={"tier": "fast"}), claim=claim)
    _, per_node, _ = run_filters(VolumeBinding, h, pod("p", [claim_volume("data")]))
    assert per_node == {"n1": uu(ERR_REASON_BIND_CONFLICT), "n2": OK}


def test_smallest_fitting_volume_is_chosen_and_not_reused():
    # Two claims (5Gi, 1Gi) on n1: the smaller claim is matched first and takes the 2Gi
    # volume; the 5Gi claim then takes the 8Gi one, not the 20Gi one.
    claims = [pvc("big", storage_class="local", request="5Gi"), pvc("small", storage_class="local", request="1Gi")]
    sc = storage_class("local", provisioner="kubernetes.io/no-provisioner", mode=WFFC)
    vols = [pv("v20", "local", capacity="20Gi"), pv("v8", "local", capacity="8Gi"), pv("v2", "local", capacity="2Gi")]
    h = cluster(NODES[:1], others=[*claims, sc, *vols])
    _, per_node, state = run_filters(VolumeBinding, h, pod("p", [claim_volume("big"), claim_volume("small")]))
    assert per_node == {"n1": OK}
    bindings = state.get("VolumeBinding").pod_volumes_by_node["n1"].static_bindings
    assert [(c["metadata"]["name"], v["metadata"]["name"]) for c, v in bindings] == [("small", "v2"), ("big", "v8")]


def test_equal_sizes_keep_the_first_volume():
    sc = storage_class("local", provisioner="kubernetes.io/no-provisioner", mode=WFFC)
    h = cluster(NODES[:1], others=[pvc("data", storage_class="local"), sc,
                                   pv("first", "local", capacity="5Gi"), pv("second", "local", capacity="5Gi")])
    _, _, state = run_filters(VolumeBinding, h, pod("p", [claim_volume("data")]))
    [(_, chosen)] = state.get("VolumeBinding").pod_volumes_by_node["n1"].static_bindings
    assert chosen["metadata"]["name"] == "first"


def test_one_volume_cannot_serve_two_claims():
    claims = [pvc("a", storage_class="local"), pvc("b", storage_class="local")]
    sc = storage_class("local", provisioner="kubernetes.io/no-provisioner", mode=WFFC)
    h = cluster(NODES[:1], others=[*claims, sc, pv("only", "local")])
    _, per_node, _ = run_filters(VolumeBinding, h, pod("p", [claim_volume("a"), claim_volume("b")]))
    assert per_node == {"n1": uu(ERR_REASON_BIND_CONFLICT)}


@pytest.mark.parametrize("provisioner,allowed,want", [
    # A provisioner can create the volume anywhere...
    ("pd.csi.storage.gke.io", None, {"n1": OK, "n2": OK}),
    # ... or only in its allowed topologies.
    ("pd.csi.storage.gke.io", ["b"], {"n1": uu(ERR_REASON_BIND_CONFLICT), "n2": OK}),
    # No provisioner: only pre-provisioned volumes.
    ("kubernetes.io/no-provisioner", None, {"n1": uu(ERR_REASON_BIND_CONFLICT), "n2": uu(ERR_REASON_BIND_CONFLICT)}),
])
def test_dynamic_provisioning(provisioner, allowed, want):
    h = wffc_cluster(provisioner=provisioner, allowed=allowed)
    _, per_node, _ = run_filters(VolumeBinding, h, pod("p", [claim_volume("data")]))
    assert per_node == want


def test_selected_node_annotation_pins_the_claim():
    claim = pvc("data", storage_class="local", annotations={"volume.kubernetes.io/selected-node": "n2"})
    h = wffc_cluster(provisioner="pd.csi.storage.gke.io", claim=claim)
    _, per_node, _ = run_filters(VolumeBinding, h, pod("p", [claim_volume("data")]))
    assert per_node == {"n1": uu(ERR_REASON_BIND_CONFLICT), "n2": OK}


def test_bound_and_unbound_reasons_are_both_reported():
    sc = storage_class("local", provisioner="kubernetes.io/no-provisioner", mode=WFFC)
    others = [pvc("b", volume_name="pv1"), pv("pv1", affinity={ZONE: ["b"]}),
              pvc("w", storage_class="local"), sc, pv("lv", "local", affinity={ZONE: ["b"]})]
    _, per_node, _ = run_filters(VolumeBinding, cluster(NODES, others=others),
                                 pod("p", [claim_volume("b"), claim_volume("w")]))
    assert per_node == {"n1": uu(ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT), "n2": OK}


@pytest.mark.parametrize("migrated,want_n1", [
    # Without migration the in-tree PV's zone affinity on the GA key is checked as written.
    (None, OK),
    # Migrated on the node: the zone key becomes the CSI driver's, which n1 lacks.
    ("kubernetes.io/gce-pd", uu(ERR_REASON_NODE_CONFLICT)),
])
def test_in_tree_volume_migrated_on_node(migrated, want_n1):
    vol = pv("pv1", affinity={ZONE: ["a"]}, source={"gcePersistentDisk": {"pdName": "d1"}})
    others = [pvc("data", volume_name="pv1"), vol, csinode("n1", migrated=migrated)]
    _, per_node, _ = run_filters(VolumeBinding, cluster(NODES[:1], others=others), pod("p", [claim_volume("data")]))
    assert per_node == {"n1": want_n1}


def test_migrated_volume_matches_nodes_with_the_driver_topology_label():
    vol = pv("pv1", affinity={ZONE: ["a"]}, source={"gcePersistentDisk": {"pdName": "d1"}})
    n1 = node("n1", {ZONE: "a", "topology.gke.io/zone": "a"})
    others = [pvc("data", volume_name="pv1"), vol, csinode("n1", migrated="kubernetes.io/gce-pd")]
    _, per_node, _ = run_filters(VolumeBinding, cluster([n1], others=others), pod("p", [claim_volume("data")]))
    assert per_node == {"n1": OK}


def test_pre_score_skips_without_storage_capacity_scoring():
    h = cluster(NODES, others=[pvc("data", volume_name="pv1"), pv("pv1")])
    plugin = VolumeBinding({"bindTimeoutSeconds": 600, "shape": None}, h)
    state = CycleState()
    info = PodInfo(pod("p", [claim_volume("data")]))
    plugin.pre_filter(state, info, h.snapshot.node_infos)
    assert plugin.pre_score(state, info, h.snapshot.node_infos).code.value == "Skip"


@pytest.mark.parametrize("request_size,capacity,want", [
    # Shape 0% -> 10 (x10 = 100), 100% -> 0: score falls linearly with utilisation.
    ("5Gi", "10Gi", 50),
    ("1Gi", "4Gi", 75),
    ("10Gi", "10Gi", 0),
])
def test_score_with_a_shape(request_size, capacity, want):
    sc = storage_class("local", provisioner="kubernetes.io/no-provisioner", mode=WFFC)
    h = cluster(NODES[:1], others=[pvc("data", storage_class="local", request=request_size), sc,
                                   pv("lv", "local", capacity=capacity)])
    plugin = VolumeBinding({"shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]}, h)
    state = CycleState()
    info = PodInfo(pod("p", [claim_volume("data")]))
    plugin.pre_filter(state, info, h.snapshot.node_infos)
    ni = h.snapshot.node_infos[0]
    assert plugin.filter(state, info, ni).is_success
    assert plugin.pre_score(state, info, [ni]).is_success
    assert plugin.score(state, info, ni) == want


def test_candidates_indexed_by_affinity_labels_keep_their_meaning():
    # One local volume per node (hostname), one for zone b or host n1 (two terms), and
    # one whose affinity has no In requirement (checked on every node).
    sc = storage_class("local", provisioner="kubernetes.io/no-provisioner", mode=WFFC)
    nodes = [node("n1", {ZONE: "a"}), node("n2", {ZONE: "b"}), node("n3", {ZONE: "c"})]
    two_terms = pv("two", "local", capacity="2Gi")
    two_terms["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["b"]}]},
        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}]}]}}
    not_in = pv("notin", "local", capacity="3Gi")
    not_in["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": ZONE, "operator": "NotIn", "values": ["a", "b"]}]}]}}
    local = [pv(f"local-{n}", "local", capacity="5Gi", affinity={"kubernetes.io/hostname": [n]})
             for n in ("n1", "n2")]
    h = cluster(nodes, others=[pvc("data", storage_class="local"), sc, *local, two_terms, not_in])
    _, per_node, state = run_filters(VolumeBinding, h, pod("p", [claim_volume("data")]))
    assert per_node == {"n1": OK, "n2": OK, "n3": OK}
    chosen = {n: pv_["metadata"]["name"] for n, vols in state.get("VolumeBinding").pod_volumes_by_node.items()
              for _, pv_ in vols.static_bindings}
    assert chosen == {"n1": "two", "n2": "two", "n3": "notin"}


# -- a claim written by hand as bound (issue 15) ----------------------------------------------------------
#
# The binder's isPVCFullyBound (volumebinding/binder.go) is the only test of "bound": spec.volumeName
# and the annotation pv.kubernetes.io/bind-completed (any value). status.phase and the volume's claimRef
# are never read; a claim naming a volume without the annotation is pre-bound and GetPodVolumeClaims
# puts it among the unbound Immediate claims, whatever its class. Every view must say the same.

BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
HAND_NODES = [node("n1", {ZONE: "a"})]


def hand_claim(annotated: bool, phase: str = "Bound", value: str = "yes", uid: str | None = None,
               volume_name: str = "pv-1", cls: str = "standard") -> dict:
    """A claim as people write one for a test cluster: volumeName and phase Bound, the
    bind-completed annotation only when `annotated`."""
    ann = {BIND_COMPLETED: value} if annotated else {}
    return pvc("data", storage_class=cls, volume_name=volume_name, bound=False, annotations=ann,
               phase=phase, uid=uid)


def hand_volume(ref: tuple[str, str] | None = ("default", "data"), uid: str | None = None, **kw) -> dict:
    kw.setdefault("source", {"hostPath": {"path": "/srv/pv-1"}})   # validation wants a volume type
    vol = pv("pv-1", claim_ref=ref, phase="Bound", **kw)
    if uid is not None:
        vol["spec"]["claimRef"]["uid"] = uid
    return vol


def run_cli(capsys, *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, _ = capsys.readouterr()
    return code, out


def write_case(tmp_path: Path, others: list[dict], config: str | None = None) -> list[str]:
    """pod.yaml (one claim volume), cluster.yaml (a node and `others`): the CLI's arguments."""
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(pod("app", [claim_volume("data", "data")])))
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all([*HAND_NODES, *others]))
    args = [str(tmp_path / "pod.yaml"), "--nodes", str(tmp_path / "cluster.yaml")]
    if config is not None:
        (tmp_path / "config.yaml").write_text(config)
        args += ["--config", str(tmp_path / "config.yaml")]
    return args


NO_VOLUME_ZONE = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: VolumeZone}]
"""

UNBOUND_IMMEDIATE = ("VolumeBinding", UU, [ERR_UNBOUND_IMMEDIATE])
NOT_USABLE = "claim default/data: bound to pv-1, usable on this node"
WRITTEN_BOUND = ("claim default/data is written as bound to pv-1 (spec.volumeName, status.phase Bound) but lacks "
                 f"the annotation {BIND_COMPLETED} that the PersistentVolume controller adds when it completes a "
                 "binding")
TREATED = ("the scheduler counts a claim as bound only with spec.volumeName and that annotation (any value); "
           "without it the claim is pre-bound, not yet bound, and treated like an unbound Immediate claim: "
           "PreFilter rejects the pod for every node (pod has unbound immediate PersistentVolumeClaims)")
ADD_ANNOTATION = f'to write it as bound by hand, add the annotation {BIND_COMPLETED}: "yes" to the claim'

# (case, cluster objects besides the node, config, the first rejection (plugin, code, reasons) or None
#  when the pod is scheduled, phrases `--node n1` prints, phrases it must not print)
HAND_BOUND = [
    ("no-annotation, claimRef names the claim", [hand_claim(False), hand_volume()], None, UNBOUND_IMMEDIATE,
     [WRITTEN_BOUND, TREATED, ADD_ANNOTATION + " (pv-1's claimRef already names it)",
      "with the annotation, Filter would check pv-1 against this node and pass: it has no node affinity"],
     [NOT_USABLE]),
    ("no-annotation, no claimRef", [hand_claim(False), hand_volume(ref=None)], None, UNBOUND_IMMEDIATE,
     [WRITTEN_BOUND, TREATED,
      ADD_ANNOTATION + "; pv-1's claimRef is missing: the scheduler does not read it, but a bound volume names its "
      "claim: set spec.claimRef to {namespace: default, name: data} on pv-1"], [NOT_USABLE]),
    ("no-annotation, claimRef names another claim", [hand_claim(False), hand_volume(ref=("default", "other"))],
     None, UNBOUND_IMMEDIATE, [WRITTEN_BOUND, "pv-1's claimRef names default/other, not this claim"], [NOT_USABLE]),
    ("no-annotation, claimRef of an older claim's uid",
     [hand_claim(False, uid="uid-now"), hand_volume(uid="uid-before")], None, UNBOUND_IMMEDIATE,
     [WRITTEN_BOUND, "pv-1's claimRef has uid uid-before, not the claim's"], [NOT_USABLE]),
    ("no-annotation, volume missing", [hand_claim(False)], None, UNBOUND_IMMEDIATE,
     [WRITTEN_BOUND, TREATED,
      ADD_ANNOTATION + "; PersistentVolume pv-1 does not exist either: create it too, or with the annotation alone "
      'the pod is still rejected for the missing volume (VolumeZone: persistentvolume "pv-1" not found; '
      "VolumeBinding: node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s))"], [NOT_USABLE]),
    # The class does not matter: a pre-bound claim is never waiting for its first consumer.
    ("no-annotation, WaitForFirstConsumer class, phase Pending",
     [hand_claim(False, phase="Pending"), hand_volume(), storage_class("standard", mode=WFFC)], None,
     UNBOUND_IMMEDIATE,
     ["claim default/data names volume pv-1 (spec.volumeName, status.phase Pending) but lacks the annotation",
      TREATED], [NOT_USABLE, "is written as bound"]),
    ("no-annotation, volume affinity excludes the node", [hand_claim(False), hand_volume(affinity={ZONE: ["b"]})],
     None, UNBOUND_IMMEDIATE,
     [WRITTEN_BOUND, "with the annotation, Filter would still reject this node: pv-1's node affinity "
      "(topology.kubernetes.io/zone In [b]) excludes it"], [NOT_USABLE]),
    # With the annotation the claim is bound: phase and claimRef are not read.
    ("annotated, claimRef names the claim", [hand_claim(True), hand_volume()], None, None, [NOT_USABLE],
     ["claimRef", "lacks the annotation"]),
    ("annotated, no claimRef", [hand_claim(True), hand_volume(ref=None)], None, None,
     [NOT_USABLE, "pv-1's claimRef is missing: the scheduler does not read it (a claim is bound for it by "
      f"spec.volumeName and the annotation {BIND_COMPLETED})"], ["lacks the annotation"]),
    ("annotated, claimRef names another claim", [hand_claim(True), hand_volume(ref=("default", "other"))], None,
     None, [NOT_USABLE, "pv-1's claimRef names default/other, not this claim: the scheduler does not read it"], []),
    ("annotated with an empty value, phase Pending", [hand_claim(True, phase="Pending", value=""), hand_volume()],
     None, None, [NOT_USABLE], []),
    ("annotated, affinity excludes the node", [hand_claim(True), hand_volume(affinity={ZONE: ["b"]})], None,
     ("VolumeBinding", UU, [ERR_REASON_NODE_CONFLICT]),
     ["claim default/data: bound to pv-1, whose node affinity (topology.kubernetes.io/zone In [b]) excludes this "
      "node"], [NOT_USABLE]),
    # A bound claim whose volume is missing: VolumeZone's PreFilter (after VolumeBinding's) stops the
    # cycle; without VolumeZone, VolumeBinding's Filter rejects every node.
    ("annotated, volume missing", [hand_claim(True)], None,
     ("VolumeZone", UU, ['persistentvolume "pv-1" not found']),
     ["claim default/data: bound to PersistentVolume pv-1, which does not exist"], [NOT_USABLE]),
    ("annotated, volume missing, no VolumeZone", [hand_claim(True)], NO_VOLUME_ZONE,
     ("VolumeBinding", UU, [ERR_REASON_PV_NOT_EXIST]),
     ["claim default/data: bound to PersistentVolume pv-1, which does not exist"], [NOT_USABLE]),
]


def first_rejection(trace: dict) -> tuple[str, str, list[str]] | None:
    for st in trace["preFilter"]:
        if st["code"] not in ("Success", "Skip"):
            return st["plugin"], st["code"], st.get("reasons", [])
    st = (trace.get("filter") or {}).get("n1")
    if st and st["code"] != "Success":
        return st["plugin"], st["code"], st.get("reasons", [])
    return None


@pytest.mark.parametrize("others,config,want,says,never", [c[1:] for c in HAND_BOUND],
                         ids=[c[0] for c in HAND_BOUND])
def test_hand_written_bound_claim(capsys, tmp_path, others, config, want, says, never):
    args = write_case(tmp_path, others, config)
    code, out = run_cli(capsys, *args, "-o", "json")
    trace = json.loads(out)
    assert first_rejection(trace) == want
    assert trace["result"]["status"] == ("Scheduled" if want is None else "Unschedulable")
    assert code == (0 if want is None else 1)
    # The default view reports the scheduler's verdict and never calls the claim usable.
    code, table = run_cli(capsys, *args)
    assert code == (0 if want is None else 1)
    assert "usable" not in table
    if want is not None:
        assert want[2][0] in " ".join(table.split())
    # --node: the same verdict, and the claim's facts in plain words.
    code, view = run_cli(capsys, *args, "--node", "n1")
    assert code == (0 if want is None else 1)
    text = " ".join(view.split())
    if want is not None and trace["search"] is None:   # PreFilter stopped the cycle
        assert f"Not examined: PreFilter plugin {want[0]} rejected the pod for every node: {want[2][0]}" in text
    elif want is not None:
        assert f"Rejected by {want[0]} ({want[1]}): {want[2][0]}" in text
    for phrase in says:
        assert phrase in text, phrase
    for phrase in never:
        assert phrase not in text, phrase
    assert all(len(line) <= 80 for line in view.splitlines())


def test_hand_written_bound_claim_facts_in_the_json_trace(capsys, tmp_path):
    args = write_case(tmp_path, [hand_claim(False, uid="uid-now"), hand_volume(uid="uid-before")])
    _, out = run_cli(capsys, *args, "--node", "n1", "-o", "json")
    facts = json.loads(out)["details"]["nodes"]["n1"]["plugins"]["VolumeBinding"]
    assert facts == {"claims": [{
        "volume": "data", "claim": "default/data", "found": True, "phase": "Bound", "storageClass": "standard",
        "bindingMode": None, "classExists": False, "request": "1Gi", "volumeName": "pv-1", "bindCompleted": False,
        "volumeExists": True, "volumeClaimRef": {"namespace": "default", "name": "data", "uid": "uid-before"},
        "claimRefMatches": False, "volumeNodeAffinity": None, "volumeAdmitsNode": True}]}
    assert "boundVolume" not in facts["claims"][0]


def test_hand_written_bound_claim_through_the_command(tmp_path):
    """The installed command, end to end: exit code 1 and the note under VolumeBinding."""
    args = write_case(tmp_path, [hand_claim(False), hand_volume(ref=None)])
    proc = subprocess.run([sys.executable, "-m", "kexplain", *args, "--node", "n1"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    text = " ".join(proc.stdout.split())
    assert "VolumeBinding - " + WRITTEN_BOUND in text
    assert "usable" not in text


@pytest.mark.parametrize("claim,want", [
    # Phase is not read: Pending with the annotation is bound, Bound without it is not.
    (hand_claim(True, phase="Pending"), OK),
    (hand_claim(True, phase="Lost"), uu('persistentvolumeclaim "data" bound to non-existent persistentvolume '
                                        '"pv-1"')),
    (hand_claim(False, phase="Bound"), uu(ERR_UNBOUND_IMMEDIATE)),
    # The annotation without a volume name is not bound either.
    (hand_claim(True, volume_name=""), uu(ERR_UNBOUND_IMMEDIATE)),
])
def test_bound_means_volume_name_and_annotation(claim, want):
    h = cluster(HAND_NODES, others=[claim, hand_volume(ref=None)])
    pre, _, _ = run_filters(VolumeBinding, h, pod("p", [claim_volume("data")]))
    assert pre == want


def test_explain_agrees_with_filter_on_a_migrated_in_tree_volume():
    """A GCE PD migrated on the node is checked with its zone key rewritten to the CSI driver's:
    the node lacks that label, so Filter rejects it and the facts must not call the volume usable."""
    vol = hand_volume(affinity={ZONE: ["a"]}, source={"gcePersistentDisk": {"pdName": "d1"}})
    h = cluster(HAND_NODES, others=[hand_claim(True), vol, csinode("n1", migrated="kubernetes.io/gce-pd")])
    plugin = VolumeBinding({}, h)
    state = CycleState()
    info = PodInfo(pod("p", [claim_volume("data")]))
    plugin.pre_filter(state, info, h.snapshot.node_infos)
    ni = h.snapshot.node_infos[0]
    assert plugin.filter(state, info, ni).reasons == (ERR_REASON_NODE_CONFLICT,)
    facts = plugin.explain(state, info, ni)["claims"][0]
    assert facts["boundVolume"] == "pv-1" and facts["volumeAdmitsNode"] is False


@pytest.mark.parametrize("annotated", [False, True])
def test_hand_written_bound_claim_is_noted_in_every_view(tmp_path, annotated):
    """The default view too: a claim written as bound without the annotation gets a warning
    naming what is missing (on stderr, beside every view); an annotated one gets none."""
    args = write_case(tmp_path, [hand_claim(annotated), hand_volume()])
    proc = subprocess.run([sys.executable, "-m", "kexplain", *args], capture_output=True, text=True, timeout=120)
    err = " ".join(proc.stderr.split())
    note = (f"PersistentVolumeClaim default/data names volume pv-1 (spec.volumeName) but lacks the annotation "
            f"{BIND_COMPLETED}")
    assert (note in err) is not annotated, err
    if not annotated:
        assert f'add {BIND_COMPLETED}: "yes" to write it as bound' in err

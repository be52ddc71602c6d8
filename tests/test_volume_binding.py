"""VolumeBinding: PreFilter's claim checks, Filter's bound/unbound claim rules, PreScore."""
from __future__ import annotations

import pytest

from kexplain.framework.cycle_state import CycleState
from kexplain.model.pod import PodInfo
from kexplain.plugins.volume_binding import (
    ERR_REASON_BIND_CONFLICT, ERR_REASON_NODE_CONFLICT, ERR_REASON_PV_NOT_EXIST,
    ERR_UNBOUND_IMMEDIATE, VolumeBinding,
)
from volume_helpers import (
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

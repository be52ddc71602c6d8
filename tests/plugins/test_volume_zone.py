"""VolumeZone: PV topology labels against node labels, and PreFilter's claim lookups."""
from __future__ import annotations

import pytest

from kexplain.plugins.volume_zone import ERR_REASON_CONFLICT, VolumeZone, pv_topologies
from tests.support.volume_helpers import ZONE, claim_volume, cluster, ephemeral_volume, node, pod, pv, pvc, run_filters, storage_class

OK = ("Success", ())
SKIP = ("Skip", ())
UU = "UnschedulableAndUnresolvable"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
CONFLICT = (UU, (ERR_REASON_CONFLICT,))

NODES = [
    node("ga-a", {ZONE: "a", REGION: "r1"}),
    node("beta-b", {BETA_ZONE: "b", BETA_REGION: "r1"}),
    node("plain"),                              # no topology labels: never constrained
    node("region-only", {REGION: "r2"}),
]


def bound(pv_labels):
    return [pvc("data", volume_name="pv1"), pv("pv1", labels=pv_labels)]


@pytest.mark.parametrize("pv_labels,want", [
    ({ZONE: "a"}, {"ga-a": OK, "beta-b": CONFLICT, "plain": OK, "region-only": CONFLICT}),
    # A beta key on the PV is looked up on the node as beta, then as GA.
    ({BETA_ZONE: "a"}, {"ga-a": OK, "beta-b": CONFLICT, "plain": OK, "region-only": CONFLICT}),
    ({BETA_ZONE: "b"}, {"ga-a": CONFLICT, "beta-b": OK, "plain": OK, "region-only": CONFLICT}),
    # A GA key is looked up only as GA.
    ({ZONE: "b"}, {"ga-a": CONFLICT, "beta-b": CONFLICT, "plain": OK, "region-only": CONFLICT}),
    # Several zones joined by "__", spaces trimmed.
    ({ZONE: "a__ b"}, {"ga-a": OK, "beta-b": CONFLICT, "plain": OK, "region-only": CONFLICT}),
    ({BETA_ZONE: "a__b"}, {"ga-a": OK, "beta-b": OK, "plain": OK, "region-only": CONFLICT}),
    # Zone and region must both match.
    ({ZONE: "a", REGION: "r2"}, {"ga-a": CONFLICT, "beta-b": CONFLICT, "plain": OK, "region-only": CONFLICT}),
    ({REGION: "r2"}, {"ga-a": CONFLICT, "beta-b": CONFLICT, "plain": OK, "region-only": OK}),
])
def test_filter(pv_labels, want):
    pre, per_node, _ = run_filters(VolumeZone, cluster(NODES, others=bound(pv_labels)),
                                   pod("p", [claim_volume("data")]))
    assert pre == OK
    assert per_node == want


@pytest.mark.parametrize("volumes,others,want", [
    ([], [], SKIP),
    # Ephemeral volumes are not looked at.
    ([ephemeral_volume("x")], [], SKIP),
    # A bound volume without topology labels, or with an unparsable one.
    ([claim_volume("data")], bound({"team": "x"}), SKIP),
    ([claim_volume("data")], bound({ZONE: "a____b"}), SKIP),
    ([claim_volume("data")], bound({ZONE: "a"}), OK),
    ([claim_volume("")], [], (UU, ("PersistentVolumeClaim had no name",))),
    ([claim_volume("data")], [], (UU, ('persistentvolumeclaim "data" not found',))),
    ([claim_volume("data")], [pvc("data", volume_name="gone")], (UU, ('persistentvolume "gone" not found',))),
    # Unbound claims: waiting for the first consumer is fine, anything else is not.
    ([claim_volume("data")], [pvc("data"), storage_class("standard", mode="WaitForFirstConsumer")], SKIP),
    ([claim_volume("data")], [pvc("data"), storage_class("standard", mode="Immediate")],
     (UU, ("PersistentVolume had no name",))),
    ([claim_volume("data")], [pvc("data")], (UU, ('storageclass.storage.k8s.io "standard" not found',))),
    ([claim_volume("data")], [pvc("data", storage_class="")],
     (UU, ("PersistentVolumeClaim had no pv name and storageClass name",))),
    ([claim_volume("data")], [pvc("data"), storage_class("standard", mode=None)],
     (UU, ('VolumeBindingMode not set for StorageClass "standard"',))),
])
def test_pre_filter(volumes, others, want):
    pre, _, _ = run_filters(VolumeZone, cluster(NODES, others=others), pod("p", volumes))
    assert pre == want


def test_topologies_in_label_order():
    vol = pv("pv1", labels={REGION: "r1", ZONE: "a", BETA_ZONE: "a__b"})
    assert [(t.key, sorted(t.values)) for t in pv_topologies(vol)] == [
        (BETA_ZONE, ["a", "b"]), (ZONE, ["a"]), (REGION, ["r1"])]

"""NodeVolumeLimits: per-driver attach limits from CSINode, unique volume handles."""
from __future__ import annotations

import pytest

from kexplain.plugins.node_volume_limits import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, NodeVolumeLimits
from kexplain.plugins.volumes import IN_TREE_PLUGINS, inline_volume_handle, pv_volume_handle, TranslationError
from tests.support.volume_helpers import (
    claim_volume, cluster, csinode, ephemeral_volume, gce_volume, node, pod, pv, pvc, run_filters, storage_class,
)

OK = ("Success", ())
SKIP = ("Skip", ())
FULL = ("Unschedulable", (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,))
EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.gke.io"


def csi_claim(name, driver=EBS, handle=None):
    """A bound claim and its CSI volume."""
    return [pvc(name, volume_name=f"pv-{name}"), pv(f"pv-{name}", csi=(driver, handle or f"h-{name}"))]


def user(name, node_name, *claims):
    return pod(name, [claim_volume(c) for c in claims], node_name=node_name)


@pytest.mark.parametrize("volumes,want", [
    ([], SKIP),
    ([{"name": "e", "emptyDir": {}}], SKIP),
    ([{"name": "c", "csi": {"driver": EBS}}], SKIP),        # CSI ephemeral inline volumes: not counted
    ([claim_volume("a")], OK),
    ([ephemeral_volume("x")], OK),
    ([gce_volume("d1")], OK),
    ([{"name": "f", "azureFile": {"secretName": "s", "shareName": "x"}}], OK),  # migratable in-tree
])
def test_pre_filter(volumes, want):
    pre, _, _ = run_filters(NodeVolumeLimits, cluster([node("n1")]), pod("p", volumes))
    assert pre == want


@pytest.mark.parametrize("limit,attached,want", [
    (3, 2, OK),        # 2 + 1 <= 3
    (3, 3, FULL),      # 3 + 1 > 3
    (None, 5, OK),     # the driver reports no limit
])
def test_limit_per_driver(limit, attached, want):
    claims = [f"c{i}" for i in range(attached)]
    others = [o for c in [*claims, "new"] for o in csi_claim(c)] + [csinode("n1", {EBS: limit})]
    pods = [user(f"u{i}", "n1", c) for i, c in enumerate(claims)]
    _, per_node, _ = run_filters(NodeVolumeLimits, cluster([node("n1")], pods, others), pod("p", [claim_volume("new")]))
    assert per_node == {"n1": want}


def test_volumes_already_attached_on_the_node_are_not_counted_twice():
    # The node is at its limit (2), but the pod's volume is one of the two attached.
    others = [*csi_claim("a"), *csi_claim("b"), csinode("n1", {EBS: 2})]
    pods = [user("u1", "n1", "a"), user("u2", "n1", "b")]
    _, per_node, _ = run_filters(NodeVolumeLimits, cluster([node("n1")], pods, others), pod("p", [claim_volume("a")]))
    assert per_node == {"n1": OK}


def test_same_handle_counts_once_and_drivers_are_separate():
    # Two claims whose volumes share one handle count as one; a GCE volume counts for GCE.
    others = [pvc("a", volume_name="pva"), pv("pva", csi=(EBS, "h1")),
              pvc("b", volume_name="pvb"), pv("pvb", csi=(EBS, "h1")),
              *csi_claim("g", driver=GCE), csinode("n1", {EBS: 1, GCE: 0})]
    _, per_node, _ = run_filters(NodeVolumeLimits, cluster([node("n1")], [], others),
                                 pod("p", [claim_volume("a"), claim_volume("b")]))
    assert per_node == {"n1": OK}
    _, per_node, _ = run_filters(NodeVolumeLimits, cluster([node("n1")], [], others),
                                 pod("p", [claim_volume("a"), claim_volume("g")]))
    assert per_node == {"n1": FULL}


def test_only_pods_of_the_node_count():
    others = [*csi_claim("a"), *csi_claim("new"), csinode("n1", {EBS: 1}), csinode("n2", {EBS: 1})]
    pods = [user("u1", "n1", "a")]
    _, per_node, _ = run_filters(NodeVolumeLimits, cluster([node("n1"), node("n2")], pods, others),
                                 pod("p", [claim_volume("new")]))
    assert per_node == {"n1": FULL, "n2": OK}


def test_node_without_csinode_has_no_limit():
    others = [*csi_claim("a"), *csi_claim("new")]
    _, per_node, _ = run_filters(NodeVolumeLimits, cluster([node("n1")], [user("u", "n1", "a")], others),
                                 pod("p", [claim_volume("new")]))
    assert per_node == {"n1": OK}


@pytest.mark.parametrize("provisioner,want", [
    # An unbound claim counts under its class's provisioner...
    (EBS, FULL),
    # ... an in-tree provisioner under its CSI driver...
    ("kubernetes.io/aws-ebs", FULL),
    # ... and another driver's limit does not apply.
    ("other.csi.example.com", OK),
])
def test_unbound_claim_counts_by_provisioner(provisioner, want):
    others = [*csi_claim("a"), pvc("new", storage_class="fast"), storage_class("fast", provisioner=provisioner),
              csinode("n1", {EBS: 1})]
    _, per_node, _ = run_filters(NodeVolumeLimits, cluster([node("n1")], [user("u", "n1", "a")], others),
                                 pod("p", [claim_volume("new")]))
    assert per_node == {"n1": want}


def test_inline_and_in_tree_pv_volumes_migrate_to_csi():
    # An inline GCE disk and a GCE PV both count against the GCE driver once a CSINode exists.
    others = [pvc("legacy", volume_name="pv-legacy"),
              pv("pv-legacy", source={"gcePersistentDisk": {"pdName": "old"}}, labels={"topology.kubernetes.io/zone": "z1"}),
              csinode("n1", {GCE: 1})]
    pods = [user("u", "n1", "legacy")]
    _, per_node, _ = run_filters(NodeVolumeLimits, cluster([node("n1")], pods, others), pod("p", [gce_volume("d1")]))
    assert per_node == {"n1": FULL}
    # The same inline disk on the node is the same volume.
    pods = [pod("u", [gce_volume("d1")], node_name="n1")]
    _, per_node, _ = run_filters(NodeVolumeLimits, cluster([node("n1")], pods, [csinode("n1", {GCE: 1})]),
                                 pod("p", [gce_volume("d1")]))
    assert per_node == {"n1": OK}


@pytest.mark.parametrize("volumes,others,want", [
    ([claim_volume("missing")], [csinode("n1", {EBS: 1})],
     ("UnschedulableAndUnresolvable", ('looking up PVC default/missing: persistentvolumeclaim "missing" not found',))),
    ([ephemeral_volume("x")], [pvc("p-x", owner_uid="nobody"), csinode("n1", {EBS: 1})],
     ("Error", ("PVC default/p-x was not created for pod default/p (pod is not owner)",))),
    # An inline Azure disk defaults to kind Shared, which CSI migration refuses.
    ([{"name": "az", "azureDisk": {"diskName": "d", "diskURI": "/x/d"}}], [csinode("n1", {})],
     ("Error", ("converting volume(az) from inline to csi: kind(Shared) is not supported in csi migration",))),
])
def test_errors(volumes, others, want):
    _, per_node, _ = run_filters(NodeVolumeLimits, cluster([node("n1")], [], others), pod("p", volumes))
    assert per_node == {"n1": want}


def test_missing_claims_of_existing_pods_are_ignored():
    others = [*csi_claim("new"), csinode("n1", {EBS: 1})]
    _, per_node, _ = run_filters(NodeVolumeLimits, cluster([node("n1")], [user("u", "n1", "gone")], others),
                                 pod("p", [claim_volume("new")]))
    assert per_node == {"n1": OK}


PLUGINS = {p.source: p for p in IN_TREE_PLUGINS}


@pytest.mark.parametrize("source,spec,want", [
    ("gcePersistentDisk", {"pdName": "d"}, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d"),
    ("awsElasticBlockStore", {"volumeID": "aws://us-east-1a/vol-123"}, "vol-123"),
    ("awsElasticBlockStore", {"volumeID": "vol-9"}, "vol-9"),
    ("cinder", {"volumeID": "c1"}, "c1"),
    ("azureDisk", {"diskURI": "/sub/d", "kind": "Managed"}, "/sub/d"),
])
def test_inline_handles(source, spec, want):
    assert inline_volume_handle(PLUGINS[source], {"name": "v", source: spec}) == want


@pytest.mark.parametrize("zone_label,want", [
    ("", "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d"),
    ("europe-west1-b", "projects/UNSPECIFIED/zones/europe-west1-b/disks/d"),
    ("europe-west1-b__europe-west1-c", "projects/UNSPECIFIED/regions/europe-west1/disks/d"),
])
def test_gce_pv_handle_from_zone_label(zone_label, want):
    labels = {"topology.kubernetes.io/zone": zone_label} if zone_label else {}
    vol = pv("x", labels=labels, source={"gcePersistentDisk": {"pdName": "d"}})
    assert pv_volume_handle(PLUGINS["gcePersistentDisk"], vol) == want


def test_bad_ebs_id_is_refused():
    with pytest.raises(TranslationError):
        inline_volume_handle(PLUGINS["awsElasticBlockStore"], {"name": "v", "awsElasticBlockStore": {
            "volumeID": "aws://zone/not-a-volume"}})

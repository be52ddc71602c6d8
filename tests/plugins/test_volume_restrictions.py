"""VolumeRestrictions: inline disk conflicts per node and ReadWriteOncePod claims."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from kexplain.features import KubeVersion
from kexplain.framework.cycle_state import CycleState
from kexplain.model.pod import PodInfo
from kexplain.plugins.volume_restrictions import (
    ERR_REASON_DISK_CONFLICT, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT, VolumeRestrictions, volumes_conflict,
)
from tests.support.volume_helpers import claim_volume, cluster, gce_volume, node, pod, pvc, run_filters

OK = ("Success", ())
SKIP = ("Skip", ())
DISK = ("Unschedulable", (ERR_REASON_DISK_CONFLICT,))
RWOP = ("Unschedulable", (ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,))


def rbd(image, monitors=("m1",), pool=None, ro=False):
    src = {"monitors": list(monitors), "image": image, "readOnly": ro}
    if pool:
        src["pool"] = pool
    return {"name": "r", "rbd": src}


@pytest.mark.parametrize("mine,theirs,want", [
    (gce_volume("d1"), gce_volume("d1"), True),
    (gce_volume("d1", read_only=True), gce_volume("d1"), True),
    (gce_volume("d1", read_only=True), gce_volume("d1", read_only=True), False),
    (gce_volume("d1"), gce_volume("d2"), False),
    # EBS conflicts even when both are read-only.
    ({"name": "e", "awsElasticBlockStore": {"volumeID": "vol-1", "readOnly": True}},
     {"name": "e", "awsElasticBlockStore": {"volumeID": "vol-1", "readOnly": True}}, True),
    ({"name": "e", "awsElasticBlockStore": {"volumeID": "vol-1"}},
     {"name": "e", "awsElasticBlockStore": {"volumeID": "vol-2"}}, False),
    ({"name": "i", "iscsi": {"iqn": "iqn.x", "targetPortal": "t", "lun": 0}},
     {"name": "i", "iscsi": {"iqn": "iqn.x", "targetPortal": "u", "lun": 1}}, True),
    ({"name": "i", "iscsi": {"iqn": "iqn.x", "readOnly": True}},
     {"name": "i", "iscsi": {"iqn": "iqn.x", "readOnly": True}}, False),
    # RBD: overlapping monitors, same pool (default "rbd") and image.
    (rbd("img", ("m1", "m2")), rbd("img", ("m2", "m3")), True),
    (rbd("img", ("m1",)), rbd("img", ("m2",)), False),
    (rbd("img"), rbd("img", pool="rbd"), True),
    (rbd("img", pool="a"), rbd("img", pool="b"), False),
    (rbd("img", ro=True), rbd("img", ro=True), False),
    # Different kinds never conflict.
    (gce_volume("d1"), {"name": "e", "awsElasticBlockStore": {"volumeID": "d1"}}, False),
])
def test_volumes_conflict(mine, theirs, want):
    assert volumes_conflict(mine, theirs) is want


def test_disk_conflict_only_on_nodes_using_the_disk():
    pods = [pod("user", [gce_volume("d1")], node_name="n1"), pod("other", [gce_volume("d2")], node_name="n2")]
    pre, per_node, _ = run_filters(VolumeRestrictions, cluster([node("n1"), node("n2")], pods),
                                   pod("p", [gce_volume("d1")]))
    assert pre == OK
    assert per_node == {"n1": DISK, "n2": OK}


@pytest.mark.parametrize("volumes,others,bound_pods,want_pre,want_filter", [
    # Nothing to check: skip.
    ([{"name": "e", "emptyDir": {}}], [], [], SKIP, {}),
    ([claim_volume("data")], [pvc("data")], [], SKIP, {}),
    # A ReadWriteOncePod claim nobody uses yet.
    ([claim_volume("data")], [pvc("data", modes=["ReadWriteOncePod"])], [], SKIP, {}),
    # ... used by a pod on n2: every node is out.
    ([claim_volume("data")], [pvc("data", modes=["ReadWriteOncePod"])],
     [pod("user", [claim_volume("data")], node_name="n2")], OK, {"n1": RWOP, "n2": RWOP}),
    # The same claim name in another namespace is another claim.
    ([claim_volume("data")], [pvc("data", modes=["ReadWriteOncePod"])],
     [pod("user", [claim_volume("data")], node_name="n2", namespace="other")], SKIP, {}),
    # A shared (ReadWriteOnce) claim used elsewhere is fine.
    ([claim_volume("data")], [pvc("data")], [pod("user", [claim_volume("data")], node_name="n2")], SKIP, {}),
    ([claim_volume("data")], [], [],
     ("UnschedulableAndUnresolvable", ('persistentvolumeclaim "data" not found',)), {}),
    # Disk conflicts are reported before ReadWriteOncePod ones.
    ([claim_volume("data"), gce_volume("d1")], [pvc("data", modes=["ReadWriteOncePod"])],
     [pod("user", [claim_volume("data"), gce_volume("d1")], node_name="n2")], OK, {"n1": RWOP, "n2": DISK}),
])
def test_pre_filter_and_filter(volumes, others, bound_pods, want_pre, want_filter):
    h = cluster([node("n1"), node("n2")], bound_pods, others)
    pre, per_node, _ = run_filters(VolumeRestrictions, h, pod("p", volumes))
    assert pre == want_pre
    assert per_node == want_filter


def test_add_and_remove_pod_adjust_the_conflict_count_on_a_clone():
    user = pod("user", [claim_volume("data")], node_name="n1")
    h = cluster([node("n1")], [user], [pvc("data", modes=["ReadWriteOncePod"])])
    plugin = VolumeRestrictions({}, h)
    state = CycleState()
    info = PodInfo(pod("p", [claim_volume("data")]))
    ni = h.snapshot.node_infos[0]
    _, pre = plugin.pre_filter(state, info, h.snapshot.node_infos)
    assert pre.is_success
    clone = state.clone()
    assert plugin.remove_pod(clone, info, PodInfo(user), ni).is_success
    assert plugin.filter(clone, info, ni).is_success          # the user is gone in the what-if
    assert plugin.filter(state, info, ni).reasons == (ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,)
    assert plugin.add_pod(clone, info, PodInfo(user), ni).is_success
    assert plugin.filter(clone, info, ni).reasons == (ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,)


@pytest.mark.parametrize("minor,reason", [
    ("1.33", "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"),
    ("1.34", "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use "
             "by another pod"),
    ("1.36", "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use "
             "by another pod"),
])
def test_read_write_once_pod_reason_per_minor(minor, reason):
    """The same rule in every minor; 1.34 reworded its reason."""
    user = pod("user", [claim_volume("data")], node_name="n1")
    h = cluster([node("n1"), node("n2")], [user], [pvc("data", modes=["ReadWriteOncePod"])])
    versioned = SimpleNamespace(snapshot=h.snapshot, profile_name=h.profile_name, kube=KubeVersion(minor))
    pre, per_node, _ = run_filters(VolumeRestrictions, versioned, pod("p", [claim_volume("data")]))
    assert pre == OK
    assert per_node == {"n1": ("Unschedulable", (reason,)), "n2": ("Unschedulable", (reason,))}


def test_explain_names_the_users_of_a_read_write_once_pod_claim_on_every_node():
    """The users are found once per cycle and said alike of every node, each node its own lists."""
    users = [pod("user", [claim_volume("data")], node_name="n2"), pod("also", [claim_volume("data")], node_name="n1"),
             pod("elsewhere", [claim_volume("data")], node_name="n1", namespace="other")]
    h = cluster([node("n1"), node("n2")], users, [pvc("data", modes=["ReadWriteOncePod"]), pvc("logs")])
    plugin = VolumeRestrictions({}, h)
    state = CycleState()
    info = PodInfo(pod("p", [claim_volume("data"), claim_volume("logs")]))
    _, pre = plugin.pre_filter(state, info, h.snapshot.node_infos)
    assert pre.is_success
    facts = [plugin.explain(state, info, ni) for ni in h.snapshot.node_infos]
    want = [{"claim": "default/data", "usedBy": ["default/also (on n1)", "default/user (on n2)"]}]
    assert [f["readWriteOncePod"] for f in facts] == [want, want]
    assert facts[0]["readWriteOncePod"][0]["usedBy"] is not facts[1]["readWriteOncePod"][0]["usedBy"]
    clone = state.clone()       # as a page asks each node's facts: the users are not looked for again
    plugin.handle = None
    assert plugin.explain(clone, info, h.snapshot.node_infos[0])["readWriteOncePod"] == want

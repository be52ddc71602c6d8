"""CSI volume limits as Karpenter tracks them per node (pkg/scheduling/volumeusage.go): which
driver a claim counts under, the limits a CSINode gives, and the error text."""
from __future__ import annotations

import pytest

from kexplain.karpenter.scheduling.volumeusage import VolumeUsage, get_volumes, volume_limits
from kexplain.model.pod import PodInfo
from kexplain.plugins.volumes import VolumeIndex


def pod(name: str, *claims: str, namespace: str = "default") -> PodInfo:
    return PodInfo({"metadata": {"name": name, "namespace": namespace},
                    "spec": {"volumes": [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}}
                                         for i, c in enumerate(claims)] + [{"name": "tmp", "emptyDir": {}}]}})


def world() -> VolumeIndex:
    idx = VolumeIndex()
    claims = {"csi": ("pv-csi", ""), "ebs": ("pv-ebs", ""), "nfs": ("pv-nfs", ""), "gone": ("pv-gone", ""),
              "dyn": ("", "gp3"), "intree": ("", "legacy"), "noclass": ("", ""), "badclass": ("", "missing"),
              "beta": ("", "")}
    for name, (volume, sc) in claims.items():
        spec = {"volumeName": volume} if volume else {}
        if sc:
            spec["storageClassName"] = sc
        meta = {"name": name, "namespace": "default"}
        if name == "beta":
            meta["annotations"] = {"volume.beta.kubernetes.io/storage-class": "gp3"}
        idx.pvcs[("default", name)] = {"metadata": meta, "spec": spec}
    idx.pvs["pv-csi"] = {"metadata": {"name": "pv-csi"}, "spec": {"csi": {"driver": "efs.csi.aws.com", "volumeHandle": "h"}}}
    idx.pvs["pv-ebs"] = {"metadata": {"name": "pv-ebs"}, "spec": {"awsElasticBlockStore": {"volumeID": "vol-1"}}}
    idx.pvs["pv-nfs"] = {"metadata": {"name": "pv-nfs"}, "spec": {"nfs": {"server": "s", "path": "/"}}}
    idx.classes["gp3"] = {"metadata": {"name": "gp3"}, "provisioner": "ebs.csi.aws.com"}
    idx.classes["legacy"] = {"metadata": {"name": "legacy"}, "provisioner": "kubernetes.io/gce-pd"}
    return idx


@pytest.mark.parametrize("claim, want", [
    ("csi", {"efs.csi.aws.com": {"default/csi"}}),          # a CSI volume's driver
    ("ebs", {"ebs.csi.aws.com": {"default/ebs"}}),          # in-tree EBS as its CSI driver
    ("nfs", {}),                                            # another in-tree volume: not counted
    ("dyn", {"ebs.csi.aws.com": {"default/dyn"}}),          # unbound: the class's provisioner
    ("intree", {"pd.csi.storage.gke.io": {"default/intree"}}),  # an in-tree provisioner translated
    ("noclass", {}), ("badclass", {}),                      # no class, a class that is gone
    ("beta", {}),                                           # the beta class annotation is not read
    ("missing", {}),                                        # a missing claim is skipped
])
def test_the_driver_a_claim_counts_under(claim, want):
    got, err = get_volumes(world(), pod("p", claim))
    assert err is None and got == want


def test_a_bound_claim_whose_volume_is_gone_is_an_error():
    got, err = get_volumes(world(), pod("p", "csi", "gone"))
    assert got == {} and str(err) == 'persistentvolumes "pv-gone" not found'


def test_limits_come_from_the_csinode():
    csinode = {"metadata": {"name": "n1"}, "spec": {"drivers": [
        {"name": "ebs.csi.aws.com", "allocatable": {"count": 25}},
        {"name": "efs.csi.aws.com", "allocatable": {}},       # allocatable without a count: limit 0
        {"name": "other"}]}}
    assert volume_limits(csinode) == {"ebs.csi.aws.com": 25, "efs.csi.aws.com": 0}
    assert volume_limits(None) == {}


def test_exceeds_limits_counts_distinct_claims_per_driver():
    usage = VolumeUsage()
    usage.add_limit("ebs.csi.aws.com", 2)
    usage.add(pod("a", "dyn"), {"ebs.csi.aws.com": {"default/dyn"}})
    assert usage.exceeds_limits({"ebs.csi.aws.com": {"default/dyn"}}) is None          # the same claim again
    assert usage.exceeds_limits({"ebs.csi.aws.com": {"default/x"}}) is None
    assert usage.exceeds_limits({"efs.csi.aws.com": {"default/a", "default/b", "default/c"}}) is None   # no limit
    err = usage.exceeds_limits({"ebs.csi.aws.com": {"default/x", "default/y"}})
    assert str(err) == "would exceed volume limit (provisioner=ebs.csi.aws.com, volume-count=3, volume-limit=2)"


def test_a_copy_is_changed_apart_from_the_original():
    usage = VolumeUsage()
    usage.add_limit("d", 1)
    usage.add(pod("a"), {"d": {"default/shared"}})
    usage.add(pod("b"), {"d": {"default/shared"}})
    copy = usage.deep_copy()
    copy.add(pod("c"), {"d": {"default/other"}})
    assert usage.volumes == {"d": {"default/shared"}}
    assert usage.exceeds_limits({"d": {"default/shared"}}) is None
    assert copy.exceeds_limits({"d": {"default/new"}}) is not None


def _stored(*volumes: dict, escaped: bool = False):
    """A bound pod read from a dump (a view), with these volumes (`escaped`: their claim key written with an
    escape)."""
    import json

    from kexplain.apimachinery.pod_lists import dump_list
    obj = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "u"},
           "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}], "volumes": list(volumes)},
           "status": {"phase": "Running"}}
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [obj]})
    if escaped:
        text = text.replace('"persistentVolumeClaim"', '"\\u0070ersistentVolumeClaim"')
    dump = dump_list(text.encode())
    assert dump is not None
    return PodInfo(dump["items"][0])


@pytest.mark.parametrize("volume, escaped, want", [
    ({"name": "kube-api-access-x7k2p", "projected": {"sources": []}}, False, {}),
    ({"name": "v", "persistentVolumeClaim": {"claimName": "csi"}}, False, {"efs.csi.aws.com": {"default/csi"}}),
    ({"name": "v", "persistentVolumeClaim": {"claimName": "csi"}}, True, {"efs.csi.aws.com": {"default/csi"}}),
    ({"name": "dyn", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}, False,
     {"ebs.csi.aws.com": {"default/p-dyn"}}),
])
def test_a_stored_pods_claims_are_found_and_its_volumes_decoded_only_when_its_text_names_one(volume, escaped, want):
    """A dump's bound pod whose volumes' text names no claim (a service-account token's) is answered without
    decoding them; one naming a claim or a generic ephemeral volume is read whole."""
    idx = world()
    idx.pvcs[("default", "p-dyn")] = {"metadata": {"name": "p-dyn", "namespace": "default"},
                                      "spec": {"storageClassName": "gp3"}}
    p = _stored(volume, escaped=escaped)
    got, err = get_volumes(idx, p)
    assert err is None and got == want
    assert ("volumes" in p.__dict__) == bool(want)

"""`--node-group NAME` (kexplain.app.cluster_autoscaler.check_node_group): a group's id or the name people
know it by, a pool of several MIGs asks which, an unknown name gets the closest names."""
from __future__ import annotations

import pytest

from kexplain.app.cluster_autoscaler import check_node_group
from kexplain.errors import KexplainError

ASG = "eks-general-xlarge-d2c5e8a1-3b4f-4c6d-9e0f-1a2b3c4d5e6f"
MIG = "https://www.googleapis.com/compute/v1/projects/p/zones/europe-west1-{z}/instanceGroups/gke-c-web-{h}-grp"
WEB = [MIG.format(z=z, h=h) for z, h in (("b", "0a1b2c3d"), ("c", "4e5f6a7b"))]
POOL = {"cloud.google.com/gke-nodepool": "web"}


def doc(*groups: tuple[str, dict], found: bool = False) -> dict:
    out = {"nodeGroups": [{"name": g, "template": {"labels": labels} if labels else None} for g, labels in groups]}
    return {**out, "nodeGroupsFound": {}} if found else out


def test_an_id_or_a_known_name_gives_the_groups_id():
    groups = doc((ASG, {}), (WEB[0], POOL), (WEB[1], {}), ("batch", {}))
    assert check_node_group(None, groups) is None
    assert check_node_group(ASG, groups) == ASG
    assert check_node_group("general-xlarge", groups) == ASG
    assert check_node_group("gke-c-web-4e5f6a7b-grp", groups) == WEB[1]
    assert check_node_group("batch", groups) == "batch"


def test_a_pool_of_several_migs_asks_which():
    with pytest.raises(KexplainError) as err:
        check_node_group("web", doc((WEB[0], POOL), (WEB[1], POOL), found=True))
    assert str(err.value) == ("--node-group web: node pool web is 2 node groups, a MIG per zone: give one of them: "
                              "gke-c-web-0a1b2c3d-grp (europe-west1-b), gke-c-web-4e5f6a7b-grp (europe-west1-c)")


def test_an_unknown_name_gets_the_closest_known_names():
    with pytest.raises(KexplainError) as err:
        check_node_group("general-xl", doc((ASG, {}), ("batch", {})))
    assert str(err.value) == ("--node-group general-xl: no node group of that name among the 2 node groups of "
                              "--node-groups; the closest: general-xlarge")

"""--node-groups: the node groups file, read with errors that name the file, group and field."""
from __future__ import annotations

import pytest

from kexplain.autoscaler.cloudprovider.static import members, read_node_groups
from kexplain.autoscaler.nodegroups import NodeGroup, parse_node_groups
from kexplain.errors import InputError, Source

SRC = Source("groups.yaml")


def group(**over):
    g = {"name": "g1", "minSize": 0, "maxSize": 3, "nodeSelector": {"pool": "a"}}
    g.update(over)
    return g


def test_a_group_is_read_with_defaults():
    (g,) = parse_node_groups({"nodeGroups": [group()]}, SRC)
    assert (g.name, g.min_size, g.max_size, g.target_size) == ("g1", 0, 3, None)
    assert g.options.zero_or_max_node_scaling is None
    assert g.selects({"pool": "a", "x": "y"}) and not g.selects({"pool": "b"})


def test_options_are_typed():
    (g,) = parse_node_groups({"nodeGroups": [group(options={"zeroOrMaxNodeScaling": True,
                                                              "scaleDownUnneededTime": "2m"})]}, SRC)
    assert g.options.zero_or_max_node_scaling is True
    assert g.options.scale_down_unneeded_time == 120.0


@pytest.mark.parametrize(("doc", "words"), [
    ({"nodeGroups": [group(maxSize=None)]}, "nodeGroups[0] (g1).maxSize: required"),
    ({"nodeGroups": [group(maxSize=-1)]}, "maxSize: expected an integer >= 0"),
    ({"nodeGroups": [group(minSize=4)]}, "maxSize: 3 is below minSize 4"),
    ({"nodeGroups": [group(color="red")]}, "unknown key 'color'"),
    ({"nodeGroups": [group(name="")]}, "nodeGroups[0].name: expected a non-empty string"),
    ({"nodeGroups": [group(), group()]}, "node group 'g1' is listed twice"),
    ({"nodeGroups": [group(options={"speed": 1})]}, "options: unknown key 'speed'"),
    ({"nodeGroups": [group(options={"scaleDownUnneededTime": "soon"})]}, "expected a duration"),
    ({"nodeGroups": [group(nodeSelector={"pool": 1})]}, "nodeSelector: expected a mapping"),
    ({"nodeGroups": [group(template={"kind": "Pod"})]}, "template.kind: expected Node"),
    ({"groups": []}, "unknown key 'groups'"),
    ({"kind": "List", "nodeGroups": []}, "kind: expected NodeGroupList"),
    ([1], "expected a NodeGroupList mapping"),
])
def test_malformed_groups_are_refused(doc, words):
    with pytest.raises(InputError) as err:
        parse_node_groups(doc, SRC)
    assert words in str(err.value)
    assert "groups.yaml" in str(err.value.source)


def test_a_node_two_groups_select_is_refused():
    groups = parse_node_groups({"nodeGroups": [group(), group(name="g2", nodeSelector={"zone": "b"})]}, SRC)
    assert members(groups, [("n1", {"pool": "a"}), ("n2", {"zone": "b"}), ("n3", {})]) == \
        {"g1": ["n1"], "g2": ["n2"]}
    with pytest.raises(InputError, match="node n4 is selected by two node groups, g1 and g2"):
        members(groups, [("n4", {"pool": "a", "zone": "b"})])


def test_two_migs_of_a_pool_selected_alike_are_told_apart_by_zone():
    mig = "https://www.googleapis.com/compute/v1/projects/p/zones/us-central1-{}/instanceGroups/gke-c-pool-{}-grp"
    pool = {"cloud.google.com/gke-nodepool": "pool"}
    groups = parse_node_groups({"nodeGroups": [group(name=mig.format("a", "0a1b2c3d"), nodeSelector=pool),
                                               group(name=mig.format("b", "4e5f6a7b"), nodeSelector=pool)]}, SRC)
    with pytest.raises(InputError) as err:
        members(groups, [("n1", {**pool, "topology.kubernetes.io/zone": "us-central1-a"})], SRC)
    assert str(err.value).endswith("each node belongs to at most one group (check their nodeSelector; MIGs of zones "
                                   "us-central1-a and us-central1-b: add topology.kubernetes.io/zone to each)")


def test_the_file_must_hold_one_document(tmp_path):
    path = tmp_path / "g.yaml"
    path.write_text("nodeGroups: []\n---\nnodeGroups: []\n")
    with pytest.raises(InputError, match="expected one NodeGroupList document, found 2"):
        read_node_groups(str(path))


def test_the_loop_takes_members_as_a_mapping_in_cluster_order():
    """One mechanism for every source: group -> member names (a file's by its nodeSelector, a
    discovered group's as found), kept in cluster order, nodes the cluster lacks left out."""
    from kexplain.autoscaler.inputs import in_cluster

    groups = [NodeGroup("a", 0, 3, None, {}), NodeGroup("b", 0, 3, None, {"pool": "b"})]
    got = in_cluster(groups, {"a": ("n3", "n1", "gone"), "b": ("n2",)}, ["n1", "n2", "n3"])
    assert got == {"a": ["n1", "n3"], "b": ["n2"]}
    assert in_cluster(groups, {}, ["n1"]) == {"a": [], "b": []}

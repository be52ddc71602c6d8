"""A file's node groups find their members by nodeSelector (`cloudprovider.static.members`): matched once
per distinct values of the labels the selectors name, not once per node, with the same members and the
same error for a node two groups select."""
from __future__ import annotations

import pytest

from kexplain.autoscaler.cloudprovider import static
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.errors import InputError


def _group(name: str, **selector: str) -> NodeGroup:
    return NodeGroup(name, 0, 10, None, selector)


def _matchings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    original = NodeGroup.selects

    def counted(self, labels):
        calls.append(self.name)
        return original(self, labels)

    monkeypatch.setattr(NodeGroup, "selects", counted)
    return calls


def test_nodes_alike_in_the_selectors_labels_are_matched_once(monkeypatch: pytest.MonkeyPatch) -> None:
    groups = [_group("a", pool="a"), _group("b", pool="b", zone="z1"), _group("none")]
    nodes = [(f"n{i}", {"pool": "ab"[i % 2], "zone": "z1", "kubernetes.io/hostname": f"n{i}"}) for i in range(100)]
    matched = _matchings(monkeypatch)
    members = static.members(groups, nodes)
    assert members == {"a": [f"n{i}" for i in range(0, 100, 2)], "b": [f"n{i}" for i in range(1, 100, 2)],
                       "none": []}
    assert len(matched) == 2 * len(groups)      # two distinct (pool, zone) values


def test_a_node_two_groups_select_is_refused_at_the_first_such_node() -> None:
    groups = [_group("a", pool="a"), _group("b", zone="z1")]
    nodes = [("n0", {"pool": "x", "zone": "z1"}), ("n1", {"pool": "a", "zone": "z1"}),
             ("n2", {"pool": "a", "zone": "z1"})]
    with pytest.raises(InputError, match="node n1 is selected by two node groups, a and b"):
        static.members(groups, nodes)

"""An existing node's CanAdd checks and adds only the requirements AddRequirements changed
(`existingnode.changed_by`): a requirement the node's holds already (the same object) without bounds is
compatible with itself and its own intersection, so Compatible and Add over the rest answer and leave
the node's requirements as over all of them; a bounded one (its intersection may drop exclusions the
bounds make moot) and every narrowed or new one still go through."""
from __future__ import annotations

from kexplain.karpenter.provisioning.scheduling.existingnode import changed_by
from kexplain.karpenter.scheduling.requirement import Requirement, new_requirement
from kexplain.karpenter.scheduling.requirements import Requirements

ZONE, HOST, ARCH, CPU = "topology.kubernetes.io/zone", "kubernetes.io/hostname", "kubernetes.io/arch", "example.com/cpu"

BOUND_FREE = [new_requirement("k", "In", "a", "b"), new_requirement("k", "NotIn", "a"), new_requirement("k", "Exists"),
              new_requirement("k", "DoesNotExist"), Requirement("k", False, set()),
              new_requirement("k", "In", "a", min_values=2)]
BOUNDED = [new_requirement("k", "Gt", "5"), new_requirement("k", "Lt", "3"), Requirement("k", True, {"1", "7"}, gte=6),
           Requirement("k", True, set(), gte=9, lte=2)]


def test_a_bound_free_requirement_is_compatible_with_itself_and_its_own_intersection():
    for r in BOUND_FREE:
        assert r.intersection(r) == r, r
        assert Requirements({"k": r}).compatible(Requirements({"k": r})) is None, r
    # (what the bounds change: an exclusion outside them dropped, an empty range refused)
    assert BOUNDED[2].intersection(BOUNDED[2]) != BOUNDED[2]
    assert Requirements({"k": BOUNDED[3]}).compatible(Requirements({"k": BOUNDED[3]})) is not None


def _node() -> Requirements:
    return Requirements({ZONE: new_requirement(ZONE, "In", "a"), HOST: new_requirement(HOST, "In", "n1"),
                         ARCH: new_requirement(ARCH, "In", "amd64"), CPU: Requirement(CPU, True, {"1", "7"}, gte=6)})


def _topology(node: Requirements, *narrowed) -> Requirements:
    """AddRequirements' answer: a copy of the node's, the topologies' domains added."""
    out = Requirements(node)
    out.add(*narrowed)
    return out


def _all(requirements: Requirements, topology: Requirements):
    """CanAdd's last steps over every requirement (Go's): Compatible, then Add."""
    err = requirements.compatible(topology)
    if err is not None:
        return str(err), None
    requirements.add(*topology.values())
    return None, requirements


def _changed(requirements: Requirements, topology: Requirements):
    changes = changed_by(requirements, topology)
    if changes:
        err = requirements.compatible(changes)
        if err is not None:
            return str(err), None
        requirements.add(*changes.values())
    return None, requirements


def test_only_what_addrequirements_changed_is_checked_and_added():
    node = _node()
    same = _topology(node)
    assert list(changed_by(node, same)) == [CPU]                # (bounded: still added)
    spread = _topology(node, new_requirement(ZONE, "In", "a", "b"))
    assert sorted(changed_by(node, spread)) == [CPU, ZONE] and changed_by(node, spread)[ZONE] is spread[ZONE]
    new_key = _topology(node, new_requirement("team", "In", "x"))
    assert sorted(changed_by(node, new_key)) == [CPU, "team"]


def test_the_node_requirements_and_errors_are_those_of_every_requirement():
    cases = [(),                                                          # no topology: a copy
             (new_requirement(ZONE, "In", "a", "b"),),                    # narrowed, compatible
             (new_requirement(ZONE, "In", "b"),),                         # no common zone: refused
             (new_requirement("team", "In", "x"), new_requirement(HOST, "NotIn", "n2")),
             (new_requirement(CPU, "Lt", "4"),)]                          # the bounded key emptied
    for narrowed in cases:
        node = _node()
        topology = _topology(node, *narrowed)
        expected = _all(Requirements(node), Requirements(topology))
        got = _changed(Requirements(node), Requirements(topology))
        assert got[0] == expected[0], narrowed
        assert got[1] == expected[1], narrowed
    assert _all(_node(), _topology(_node(), new_requirement(ZONE, "In", "b")))[0] is not None

"""A state node's identity (name, labels, registered, initialized) is read once from its objects and
read again when the cluster gives it another Node (`StateNode._reads`)."""
from kexplain.karpenter.state.statenode import StateNode


def _node(name: str, **labels: str) -> dict:
    return {"kind": "Node", "metadata": {"name": name, "labels": dict(labels)}}


def _claim(name: str) -> dict:
    return {"kind": "NodeClaim", "metadata": {"name": name, "labels": {"karpenter.sh/nodepool": "default"}}}


def test_a_claim_without_its_node_reads_the_claim_until_the_node_registers():
    state = StateNode(None, _claim("default-abc"))
    assert (state.name(), state.registered(), state.initialized()) == ("default-abc", False, False)
    assert state.labels() == {"karpenter.sh/nodepool": "default"}
    state.node = _node("ip-1", **{"karpenter.sh/registered": "true"})
    assert (state.name(), state.registered(), state.initialized()) == ("ip-1", True, False)
    assert state.labels() == {"karpenter.sh/registered": "true"}
    state.node = _node("ip-1", **{"karpenter.sh/registered": "true", "karpenter.sh/initialized": "true"})
    assert state.initialized()


def test_an_unregistered_node_of_a_claim_still_reads_the_claim():
    state = StateNode(_node("ip-2"), _claim("default-xyz"))
    assert (state.name(), state.registered()) == ("default-xyz", False)
    assert state.labels() == {"karpenter.sh/nodepool": "default"}


def test_a_node_without_a_claim_is_registered_and_initialized():
    state = StateNode(_node("ip-3", zone="a"), None)
    assert (state.name(), state.registered(), state.initialized(), state.labels()) == ("ip-3", True, True, {"zone": "a"})


def test_deleted_is_read_again_when_an_object_is_replaced():
    """Whether it is deleting is read with its identity: a replaced NodeClaim (deleting, or its
    instance terminating) or Node answers anew, the state not marked otherwise."""
    state = StateNode(_node("ip-4"), _claim("default-d"))
    assert not state.deleted() and not state.marked_for_deletion()
    deleting = _claim("default-d")
    deleting["metadata"]["deletionTimestamp"] = "2026-01-01T11:00:00Z"
    state.node_claim = deleting
    assert state.deleted() and state.marked_for_deletion()
    terminating = _claim("default-d")
    terminating["status"] = {"conditions": [{"type": "InstanceTerminating", "status": "True"}]}
    state.node_claim = terminating
    assert state.deleted()
    state.node_claim = _claim("default-d")
    assert not state.deleted()
    alone = StateNode(_node("ip-5"), None)
    assert not alone.deleted()
    gone = _node("ip-5")
    gone["metadata"]["deletionTimestamp"] = "2026-01-01T11:00:00Z"
    alone.node = gone
    assert alone.deleted() and alone.marked_for_deletion()
    alone.node = _node("ip-5")
    alone.marked = True
    assert not alone.deleted() and alone.marked_for_deletion()

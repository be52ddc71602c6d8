"""`SharedReads`: what a view reads of a trace is made once while the very same containers come again
(the pods that share a cycle), never for equal containers that are other objects or other values."""
from __future__ import annotations

from kexplain.render import preemption
from kexplain.render.views import SharedReads


def test_made_once_for_the_same_objects_and_values() -> None:
    shared = SharedReads(kept=2)
    made = []
    a, b = {"n1": {}}, {"n1": {}}
    one = shared.get((a,), lambda: made.append("a") or "A", 80)
    assert shared.get((a,), lambda: made.append("again") or "X", 80) == one == "A"
    assert shared.get((b,), lambda: made.append("b") or "B", 80) == "B"       # equal, not the same object
    assert shared.get((a,), lambda: made.append("a120") or "W", 120) == "W"   # another value
    assert made == ["a", "b", "a120"]
    shared.get(({},), lambda: "C")                                            # the oldest let go (kept=2)
    assert shared.get((a,), lambda: made.append("a80") or "A2", 80) == "A2"


def _trace(post: dict) -> dict:
    filter_ = {"n1": {"code": "Unschedulable", "plugin": "NodeResourcesFit", "reasons": ["Insufficient cpu"]}}
    return {"postFilter": post, "filter": filter_, "preemption": {"potentialNodes": ["n1"], "visited": ["n1"],
                                                                    "nodeStatuses": {"n1": {"reasons": ["x"]}}}}


def test_pods_of_one_cycle_share_their_preemption_view(monkeypatch) -> None:
    monkeypatch.setattr(preemption, "_VIEWS", SharedReads())
    post = {"plugin": "DefaultPreemption", "message": "0/1 nodes are available", "nominatedNodeName": ""}
    one = _trace(post)
    twin = {**one, "result": {"status": "Unschedulable"}}
    view = preemption.preemption_view(one)
    assert preemption.preemption_view(twin) is view and view.why_not
    other = preemption.preemption_view({**one, "postFilter": {**post, "message": "other"}})
    assert other is not view and other.message == "other" and other.why_not == view.why_not
    assert preemption.preemption_view({**one, "postFilter": {"plugin": "Other"}}) is None

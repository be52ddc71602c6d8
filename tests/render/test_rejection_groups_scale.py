"""`rejection_groups` over a cluster's nodes asks whether a node is in a group by sets, never
by scanning the group's list (a list scan made it quadratic: 1,500 nodes rejected for one reason
by two plugins took 0.4 s a pod, 80 s for a file of 500 pods); the groups are what they were."""
from __future__ import annotations

from dataclasses import dataclass, field

from kexplain.render import table, views
from kexplain.render.views import RejectionGroup, rejection_groups


class _NoScan(list):
    def __contains__(self, item: object) -> bool:
        raise AssertionError("a group's node list was scanned for a member")


@dataclass
class _Group(RejectionGroup):
    nodes: list[str] = field(default_factory=_NoScan)
    reported: list[str] = field(default_factory=_NoScan)


def _trace(n: int) -> dict:
    names = [f"n{k:04d}" for k in range(n)]
    fit = {"code": "Unschedulable", "reasons": ["Insufficient cpu"]}
    taint = {"code": "UnschedulableAndUnresolvable", "reasons": ["node(s) had untolerated taint(s)"]}
    first = {name: ({"plugin": "TaintToleration", **taint} if k % 3 == 0 else {"plugin": "NodeResourcesFit", **fit})
             for k, name in enumerate(names)}
    every = {name: {"TaintToleration": taint if k % 3 == 0 else {"code": "Success"}, "NodeResourcesFit": fit}
             for k, name in enumerate(names)}
    return {"filter": first, "filterAll": every, "search": {"numAllNodes": n, "order": names}}


def test_groups_of_many_nodes_are_found_without_scanning_them(monkeypatch) -> None:
    trace = _trace(3000)
    want = [(g.plugin, g.reason, g.code, list(g.nodes), list(g.reported)) for g in rejection_groups(trace)]
    monkeypatch.setattr(views, "RejectionGroup", _Group)
    monkeypatch.setattr(views, "_NAMED_GROUPS", views.SharedReads())     # (read again, not the groups kept above)
    got = rejection_groups(trace)
    assert all(type(g) is _Group for g in got)
    assert [(g.plugin, g.reason, g.code, list(g.nodes), list(g.reported)) for g in got] == want
    names = sorted(trace["filter"])
    assert want[0][:2] == ("NodeResourcesFit", "Insufficient cpu") and want[0][3] == names
    assert want[0][4] == [name for k, name in enumerate(names) if k % 3]
    assert want[1][3] == want[1][4] == names[::3]
    monkeypatch.setattr(table, "rejection_groups", lambda trace: got)
    assert table._rejected(trace, table.Look(width=120)) != []


def test_nodes_sharing_a_filter_all_entry_are_grouped_as_with_their_own() -> None:
    """filterAll shares one entry between nodes with the same statuses; its rejections are read
    once per entry, and the groups are those of a trace where each node has its own copy."""
    import copy
    shared = _trace(300)
    entries = {}
    for name, entry in shared["filterAll"].items():
        shared["filterAll"][name] = entries.setdefault(repr(entry), entry)
    assert len({id(e) for e in shared["filterAll"].values()}) == 2
    own = copy.deepcopy(shared)
    own["filterAll"] = {name: copy.deepcopy(entry) for name, entry in shared["filterAll"].items()}
    def key(groups):
        return [(g.plugin, g.reason, g.code, g.nodes, g.reported) for g in groups]
    assert key(rejection_groups(shared)) == key(rejection_groups(own))


def test_traces_sharing_a_cycle_read_their_groups_once(monkeypatch) -> None:
    """Pods of one shape share their cycle's verdicts (the same `filter`, `filterAll` and node facts):
    their named groups are read once; a trace with other facts or other verdicts is read for itself."""
    monkeypatch.setattr(views, "_NAMED_GROUPS", views.SharedReads())
    reads = []
    named = views._named_groups
    monkeypatch.setattr(views, "_named_groups", lambda *read: reads.append(read) or named(*read))
    one = _trace(30)
    twin = {**one, "result": {"status": "Unschedulable"}}           # another pod, the same cycle
    first = rejection_groups(one)
    assert rejection_groups(twin) == first and len(reads) == 1
    facts = {n: {"plugins": {"NodeResourcesFit": {"insufficient": ["cpu"]}}} for n in one["filter"]}
    detailed = {**one, "details": {"nodes": facts}}                  # the same verdicts, other facts
    assert rejection_groups(detailed) and len(reads) == 2
    copied = {**one, "filter": dict(one["filter"])}                 # equal, not the same: read again
    assert rejection_groups(copied) == first and len(reads) == 3
    kept = views._NAMED_GROUPS.kept
    for k in range(kept):                                           # the oldest is let go
        rejection_groups(_trace(3 + k))
    assert len(views._NAMED_GROUPS._made) == kept
    rejection_groups(one)
    assert len(reads) == 4 + kept

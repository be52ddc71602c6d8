"""A snapshot's bound pods when all are a dump's stored pods, read column by column in C: each one's node,
phase, namespace and facts key by `map` over the views, requests added per node and `Amount`, and a node's
pods kept as they are (`NodeInfo.add_stored`, made `PodInfo`s when read) unless one of them is looked at one
by one; finished pods, pods on no node of the snapshot and unbound ones are left out by position (a real
cluster's dump has completed Jobs' pods and pending ones). Any other list (a pod not stored, one without a
spec) is left to the build's loop over the pods.
"""
from __future__ import annotations

import gc
import operator
from collections import Counter, deque
from itertools import compress, repeat
from operator import attrgetter
from typing import Any

from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.model.pod import PodInfo, may_claim, stored_pod_info
from kexplain.model.prefix import Prefix
from kexplain.model.resources import Amount
from kexplain.model.shapes import stored_facts_keys

_VIEW, _SPEC, _STATUS, _META = attrgetter("view"), attrgetter("spec"), attrgetter("status"), attrgetter("metadata")
_NODE, _NAMESPACE, _PHASE = attrgetter("nodeName"), attrgetter("namespace"), attrgetter("phase")
_VOLUMES = attrgetter("volumes")
_TERMINAL = {"Succeeded", "Failed"}
_CHUNK = 4096


class Listed:
    """The bound pods' nodes and namespaces in the dump's order: the order of the namespace index, made on
    first use (`listed_index`) and kept for every snapshot of the same NodeInfos."""

    __slots__ = ("nodes", "namespaces", "index")

    def __init__(self, nodes: list[str], namespaces: list[str]) -> None:
        self.nodes, self.namespaces = nodes, namespaces
        self.index: dict[str, Prefix[tuple[PodInfo, Node]]] | None = None


def add_stored_pods(pods: list[Any], by_name: dict[str, NodeInfo], unbound: list[Any] | None = None) -> Listed | None:
    """Adds `pods` to their NodeInfos (`by_name`, none with pods yet) when every bound one is a `StoredPod`
    with a spec, and the unbound ones to `unbound` (when given), as the build's loop does: a finished pod or
    one on no node of the snapshot is left out. None, adding nothing, for any other list."""
    everything = pods
    stored = list(map(operator.is_, map(type, pods), repeat(StoredPod)))
    where: list[int] | None = None          # the stored pods' positions, when others are among them
    if not all(stored):
        unread = list(compress(pods, map(operator.not_, stored)))   # (a dump reads unbound pods as objects)
        if len(unread) == len(pods) or any(map(_bound, unread)):
            return None
        where = list(compress(range(len(pods)), stored))
        pods = list(compress(pods, stored))
    views = list(map(_VIEW, pods))
    specs = list(map(_SPEC, views))
    if None in specs:
        return None
    nodes = list(map(_NODE, specs))
    statuses = list(map(_STATUS, views))
    if where is not None or not by_name.keys() >= set(nodes) or \
            not _TERMINAL.isdisjoint(map(_PHASE, filter(None, statuses))):
        if unbound is not None:
            loose = set(compress(range(len(nodes)), map(operator.not_, nodes)))
            if where is not None:
                loose = set(map(where.__getitem__, loose)).union(compress(range(len(stored)), map(operator.not_, stored)))
            unbound += map(everything.__getitem__, sorted(loose))
        kept = [name in by_name and (status is None or status.phase not in _TERMINAL)
                for name, status in zip(nodes, statuses)]
        pods, views, specs, nodes, statuses = (list(compress(column, kept))
                                               for column in (pods, views, specs, nodes, statuses))
    namespaces = list(map(_NAMESPACE, map(_META, views)))
    if None in namespaces or "" in namespaces:
        namespaces = [namespace or "default" for namespace in namespaces]
    keys: list[bytes] = []
    distinct: dict[bytes, bytes] = {}       # (a chunk's keys at a time, each held once: a kubectl dump's are KBs)
    for at in range(0, len(views), _CHUNK):
        part = slice(at, at + _CHUNK)
        chunk = stored_facts_keys(views[part], specs[part], statuses[part], namespaces[part])
        keys += map(distinct.setdefault, chunk, chunk)
    amounts: dict[bytes, Amount] = {}       # facts key -> its facts' amount, worked out for each key's first pod
    looked_at: set[bytes] = set()           # keys whose pods are looked at one by one
    first = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1)))
    for key in dict.fromkeys(keys):
        facts = stored_pod_info(pods[first[key]]).facts
        amounts[key] = facts.amount
        if facts.indexed:
            looked_at.add(key)
    per_node: dict[str, list[StoredPod]] = {name: [] for name in dict.fromkeys(nodes)}
    deque(map(list.append, map(per_node.__getitem__, nodes), pods), 0)
    counts: dict[str, dict[Amount, int]] = {name: {} for name in per_node}
    for (name, amount), n in Counter(zip(nodes, map(amounts.__getitem__, keys))).items():
        counts[name][amount] = n
    one_by_one = set(compress(nodes, map(looked_at.__contains__, keys))) if looked_at else set()
    claiming: dict[str, list[PodInfo]] = {}        # the pods that may name claims, of the other nodes
    for at in compress(range(len(pods)), map(may_claim, map(_VOLUMES, specs))):
        if nodes[at] not in one_by_one:
            claiming.setdefault(nodes[at], []).append(stored_pod_info(pods[at]))
    for name, stored in per_node.items():
        if name in one_by_one:
            made = list(map(stored_pod_info, stored))
            by_name[name].add_counted(made, counts[name], [p for p in made if p.facts.indexed or p.may_claim])
        else:
            by_name[name].add_stored(stored, counts[name], claiming.get(name, ()))
    return Listed(nodes, namespaces)


def _bound(obj: Any) -> bool:
    """Whether a pod read as an object names a node (`spec.nodeName`)."""
    spec = obj.get("spec") if isinstance(obj, dict) else None
    return not isinstance(spec, dict) or bool(spec.get("nodeName"))


def listed_index(listed: Listed, by_name: dict[str, NodeInfo]) -> dict[str, Prefix[tuple[PodInfo, Node]]]:
    """Each namespace's pods with their nodes in the dump's order (as the build's loop makes them), in C: each
    node's pods are in that order. Made once: snapshots of the same NodeInfos share it (`Prefix`es)."""
    if listed.index is None:
        enabled = gc.isenabled()        # (a collection walking the pods as they are made, again and again)
        gc.disable()
        try:
            pods = {name: iter(by_name[name].pods) for name in dict.fromkeys(listed.nodes)}
            nodes = {name: by_name[name].node for name in pods}
            index: dict[str, list[tuple[PodInfo, Node]]] = {ns: [] for ns in dict.fromkeys(listed.namespaces)}
            deque(map(list.append, map(index.__getitem__, listed.namespaces),
                      zip(map(next, map(pods.__getitem__, listed.nodes)), map(nodes.__getitem__, listed.nodes))), 0)
            listed.index = {namespace: Prefix(members) for namespace, members in index.items()}
        finally:
            if gc.get_freeze_count():       # (the CLI froze what it loaded: these too, as the build's loop's were)
                gc.freeze()
            if enabled:
                gc.enable()
    return listed.index

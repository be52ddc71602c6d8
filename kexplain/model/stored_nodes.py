"""A snapshot's bound pods when all are a dump's stored pods, read column by column in C: each one's node,
phase, namespace and facts key by `map` over the views, requests added per node and `Amount`, and a node's
pods kept as they are (`NodeInfo.add_stored`, made `PodInfo`s when read) unless one of them is looked at one
by one. Any other list (a pod not stored, terminal, or on no node of the snapshot) is left to the build's
loop over the pods.
"""
from __future__ import annotations

import gc
from collections import Counter, deque
from itertools import compress
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


def add_stored_pods(pods: list[Any], by_name: dict[str, NodeInfo]) -> Listed | None:
    """Adds `pods` to their NodeInfos (`by_name`, none with pods yet) when every one is a `StoredPod` bound to
    one of them and not finished; None, adding nothing, otherwise."""
    if not pods or set(map(type, pods)) != {StoredPod}:
        return None
    views = list(map(_VIEW, pods))
    specs = list(map(_SPEC, views))
    if None in specs:
        return None
    nodes = list(map(_NODE, specs))
    statuses = list(map(_STATUS, views))
    if not by_name.keys() >= set(nodes) or not _TERMINAL.isdisjoint(map(_PHASE, filter(None, statuses))):
        return None
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

"""The cluster snapshot: NodeInfos in the scheduler's node-tree order, plus indexes built once per
snapshot (`cached`) and patched after a bind (`on_bind`) instead of rebuilt over every pod.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterable, TypeVar

from kexplain.apimachinery.labels import REGION_LABELS, ZONE_LABELS
from kexplain.errors import InputError, Source
from kexplain.model.nodeinfo import Node, NodeInfo
from kexplain.apimachinery.stored_pods import StoredPod
from kexplain.model.pod import PodFacts, PodInfo, stored_pod_info
from kexplain.model.prefix import Prefix
from kexplain.model.resources import Amount
from kexplain.model.shapes import facts_key, stored_facts_key
from kexplain.model.stored_nodes import Listed, add_stored_pods, listed_index

T = TypeVar("T")
# How a cached index follows a bind: (the index of the snapshot before, the snapshot after, the
# pod bound, the NodeInfo before, the NodeInfo after) -> the index of the snapshot after, or None
# when it must be rebuilt there.
OnBind = Callable[[Any, "Snapshot", PodInfo, NodeInfo, NodeInfo], Any]
# Each namespace's pods as a list shared with the snapshots before and after a bind (`Prefix`).
PodsByNamespace = dict[str, Prefix[tuple[PodInfo, Node]]]


_TERMINAL = ("Succeeded", "Failed")      # pod phases NodeInfo never counts
_SLOTS = "snapshot.slots"                 # the `_cache` key of `Snapshot._slots`


def _without(items: list[Any], positions: list[int]) -> list[Any]:
    """`items` but those at `positions` (ascending), by slices: the list is copied in C."""
    out: list[Any] = []
    start = 0
    for k in positions:
        out += items[start:k]
        start = k + 1
    out += items[start:]
    return out


def zone_key(labels: dict[str, str]) -> str:
    """The node tree's zone key: region and zone (beta labels first), "" when neither is set."""
    zone = labels.get(ZONE_LABELS[0], labels.get(ZONE_LABELS[1], ""))
    region = labels.get(REGION_LABELS[0], labels.get(REGION_LABELS[1], ""))
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


def node_tree_order(nodes: Iterable[Node]) -> list[Node]:
    """Interleave the nodes across zones, zones in order of first appearance: one node of
    each zone in turn, skipping exhausted zones (the scheduler's nodeTree.list)."""
    zones: dict[str, list[Node]] = {}
    for n in nodes:
        zones.setdefault(zone_key(n.labels), []).append(n)
    out: list[Node] = []
    depth = max((len(v) for v in zones.values()), default=0)
    for i in range(depth):
        for members in zones.values():
            if i < len(members):
                out.append(members[i])
    return out


def _add_pods(infos: list[NodeInfo], pods: list[Any], unbound: list[dict[str, Any]] | None) -> PodsByNamespace:
    """Adds the bound `pods` to their NodeInfos (`infos`, without pods yet), pod by pod (`Snapshot.build`'s
    way for a list `stored_nodes.add_stored_pods` leaves), and returns the namespace index."""
    # Each node's pods, added at the end in one batch (`NodeInfo.add_counted`): its Node, its
    # pods, how many of them have each `PodFacts.amount`, those looked at one by one.
    batches: dict[str, tuple[Node, list[PodInfo], dict[Amount, int], list[PodInfo]]] = {
        ni.name: (ni.node, [], {}, []) for ni in infos}
    by_namespace: dict[str, list[tuple[PodInfo, Node]]] = {}
    # `shapes.facts_key` -> the shape's facts, their amount and whether its pods are looked at one by one
    shared: dict[Hashable, tuple[PodFacts, Amount, bool]] = {}
    namespace, members = None, []               # the last pod's (a dump lists pods by namespace)
    for obj in pods:
        stored = type(obj) is StoredPod
        pod = stored_pod_info(obj) if stored else PodInfo(obj)
        if not pod.node_name:
            if unbound is not None:
                unbound.append(obj)
            continue
        if pod.phase in _TERMINAL:
            continue
        batch = batches.get(pod.node_name)
        if batch is None:
            continue
        key = stored_facts_key(obj.view, pod.namespace) if stored else facts_key(pod)
        found = shared.get(key) if key is not None else None
        if found is None:
            facts = pod.facts
            found = (facts, facts.amount, facts.indexed)
            if key is not None:
                shared[key] = found
        else:
            pod._facts = found[0]               # (its slot: set, they are not worked out)
        batch[1].append(pod)
        counts = batch[2]
        counts[found[1]] = counts.get(found[1], 0) + 1
        if found[2] or pod.may_claim:
            batch[3].append(pod)
        if pod.namespace != namespace:
            namespace = pod.namespace
            members = by_namespace.get(namespace)       # type: ignore[assignment]
            if members is None:
                members = by_namespace[namespace] = []
        members.append((pod, batch[0]))
    for ni in infos:
        _, added, counts, looked_at = batches[ni.name]
        if added:
            ni.add_counted(added, counts, looked_at)
    return {ns: Prefix(members) for ns, members in by_namespace.items()}


@dataclass
class Snapshot:
    """Nodes with their pods, and the other objects the plugins read."""

    node_infos: list[NodeInfo]
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> labels
    objects: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # kind -> objects
    _by_namespace: PodsByNamespace | None = field(default=None, repr=False)   # of these node_infos
    _by_name: dict[str, NodeInfo] = field(default_factory=dict, repr=False)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)
    _on_bind: dict[str, OnBind] = field(default_factory=dict, repr=False)
    _position: dict[str, int] = field(default_factory=dict, repr=False)    # node name -> index; made on use
    _listed: Listed | None = field(default=None, repr=False)     # how `_by_namespace` is made when first read
    # What is worked out of the bound pods alone (`pod_index`'s label indexes and per-node counts), shared by
    # the snapshots of the very same namespace index: other objects, a node without pods added
    pod_caches: dict[Hashable, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self._by_name:
            self._by_name = {ni.name: ni for ni in self.node_infos}

    @classmethod
    def build(cls, nodes: list[tuple[dict[str, Any], Source]], pods: list[dict[str, Any]],
              others: Iterable[dict[str, Any]] = (), unbound: list[dict[str, Any]] | None = None) -> "Snapshot":
        """The snapshot of `nodes` and their bound `pods` (unbound ones into `unbound` when given), pods of
        one `shapes.facts_key` sharing one `PodInfo.facts`."""
        parsed: list[Node] = []
        seen: dict[str, Source] = {}
        for obj, src in nodes:
            node = Node.from_obj(obj)
            if node.name in seen:
                raise InputError(f"duplicate node name (first defined in {seen[node.name]})",
                                 source=src, obj=obj, field="metadata.name")
            seen[node.name] = src
            parsed.append(node)
        infos = [NodeInfo(n) for n in node_tree_order(parsed)]
        by_name = {ni.name: ni for ni in infos}
        listed = add_stored_pods(pods, by_name)
        by_namespace = _add_pods(infos, pods, unbound) if listed is None else None
        objects: dict[str, list[dict[str, Any]]] = {}
        namespaces: dict[str, dict[str, str]] = {}
        for obj in others:
            kind = obj.get("kind", "")
            objects.setdefault(kind, []).append(obj)
            if kind == "Namespace":
                meta = obj.get("metadata") or {}
                namespaces[meta.get("name", "")] = dict(meta.get("labels") or {})
        return cls(infos, namespaces, objects, by_namespace, by_name, _listed=listed)

    # -- lookups -----------------------------------------------------------------------
    def get(self, name: str) -> NodeInfo | None:
        return self._by_name.get(name)

    def __len__(self) -> int:
        return len(self.node_infos)

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return self.objects.get(kind, [])

    def namespace_labels(self, name: str) -> dict[str, str]:
        return self.namespaces.get(name, {})

    @property
    def pods_by_namespace(self) -> PodsByNamespace:
        """Every bound pod with its node, per namespace: what pod (anti-)affinity and spread
        count from. Built on first use: in the dump's order for a build's stored pods (`stored_nodes.Listed`),
        else as the build's loop made it, or in node order for one made from NodeInfos."""
        if self._by_namespace is None:
            if self._listed is not None:
                self._by_namespace = listed_index(self._listed, self._by_name)
                return self._by_namespace
            index: dict[str, list[tuple[PodInfo, Node]]] = {}
            for ni in self.node_infos:
                for pod in ni.pods:
                    index.setdefault(pod.namespace, []).append((pod, ni.node))
            self._by_namespace = {ns: Prefix(members) for ns, members in index.items()}
        return self._by_namespace

    def index_later(self) -> tuple[Listed, dict[str, NodeInfo]] | None:
        """What `pods_by_namespace` is made of (`stored_nodes.listed_index`) while it is not made yet, for an index
        kept by the snapshot (`pod_index.PodIndex`) to make it without holding the snapshot."""
        return (self._listed, self._by_name) if self._by_namespace is None and self._listed is not None else None

    def _index(self) -> PodsByNamespace | None:
        """The namespace index a change patches: None when it is made on first use in node order."""
        return self.pods_by_namespace if self._by_namespace is not None or self._listed is not None else None

    def with_objects(self, namespaces: dict[str, dict[str, str]],
                     objects: dict[str, list[dict[str, Any]]]) -> "Snapshot":
        """The same nodes and pods (and their index) with other namespaces and objects."""
        return Snapshot(self.node_infos, namespaces, objects, self._by_namespace, self._by_name,
                        _position=self._position, _listed=self._listed, pod_caches=self.pod_caches)

    def with_node_infos(self, infos: list[NodeInfo]) -> "Snapshot":
        """A snapshot of `infos` (replaced, new or left-out NodeInfos), re-indexing only the namespaces with a
        pod on a changed node, so a change costs what it touches; plugin caches dropped."""
        by_name = {ni.name: ni for ni in infos}
        before = self._index()
        if before is None:
            return Snapshot(infos, self.namespaces, self.objects, None, by_name)
        changed: dict[str, NodeInfo | None] = {
            ni.name: by_name.get(ni.name) for ni in self.node_infos if by_name.get(ni.name) is not ni}
        changed.update((ni.name, ni) for ni in infos if ni.name not in self._by_name)
        touched: set[str] = set()
        kept: dict[str, set[int]] = {}
        for name, new in changed.items():
            old = self._by_name.get(name)
            if old is not None:
                touched.update(p.namespace for p in old.pods)
            if new is not None:
                touched.update(p.namespace for p in new.pods)
                kept[name] = {id(p) for p in new.pods}
        if not touched:             # (nothing changed, or nodes without pods: the index as it is, its caches kept)
            return Snapshot(infos, self.namespaces, self.objects, before, by_name, pod_caches=self.pod_caches)
        index = dict(before)
        slots = self._slots()
        for namespace in touched:
            members = list(index.get(namespace, ()))
            at = slots.get(namespace, {})
            dropped: list[int] = []
            present: set[int] = set()
            for name in changed:
                for k in at.get(name, ()):
                    pod = members[k][0]
                    if id(pod) in kept.get(name, ()):
                        members[k] = (pod, by_name[name].node)
                        present.add(id(pod))
                    else:
                        dropped.append(k)
            if dropped:
                members = _without(members, sorted(dropped))
            members.extend((pod, new.node) for new in changed.values() if new is not None
                           for pod in new.pods if pod.namespace == namespace and id(pod) not in present)
            if members:
                index[namespace] = Prefix(members)
            else:
                index.pop(namespace, None)
        return Snapshot(infos, self.namespaces, self.objects, index, by_name)

    def _slots(self) -> dict[str, dict[str, list[int]]]:
        """Where each node's pods are in each namespace's index list, worked out once for the snapshot that
        `with_node_infos` patches."""
        found = self._cache.get(_SLOTS)
        if found is None:
            found = {}
            for namespace, members in (self._index() or {}).items():
                at: dict[str, list[int]] = {}
                for k, (_, node) in enumerate(members):
                    at.setdefault(node.name, []).append(k)
                found[namespace] = at
            self._cache[_SLOTS] = found
        return found

    def fresh(self) -> "Snapshot":
        """The same snapshot with nothing cached by plugins (benchmarks: a first explanation)."""
        out = self.with_objects(self.namespaces, self.objects)
        out.pod_caches = {}
        return out

    def cached(self, key: str, build: Callable[[], T], on_bind: OnBind | None = None) -> T:
        """An index computed once per snapshot (plugins name their keys after themselves).
        With `on_bind`, the snapshot `with_pod_bound` makes gets the index patched by it."""
        if key not in self._cache:
            self._cache[key] = build()
            if on_bind is not None:
                self._on_bind[key] = on_bind
        return self._cache[key]

    # -- changes: a snapshot is never edited in place ----------------------------------
    def with_pod_bound(self, pod: PodInfo) -> "Snapshot":
        """A new snapshot with `pod` bound to `pod.node_name`: only its NodeInfo cloned, the rest shared,
        and `on_bind` indexes patched rather than rebuilt."""
        target = self._by_name.get(pod.node_name)
        if target is None:
            raise KeyError(f"no node {pod.node_name!r} in the snapshot")
        bound = target.clone()
        bound.add_pod(pod)
        infos = list(self.node_infos)
        infos[self.position(target.name)] = bound
        index = self._index()
        if index is not None:
            index = dict(index)
            members = index.get(pod.namespace)
            index[pod.namespace] = (members if members is not None else Prefix()).appended((pod, bound.node))
        by_name = dict(self._by_name)
        by_name[bound.name] = bound
        out = Snapshot(infos, self.namespaces, self.objects, index, by_name, _position=self._position)
        for key, on_bind in self._on_bind.items():
            patched = on_bind(self._cache[key], out, pod, target, bound)
            if patched is not None:
                out._cache[key] = patched
                out._on_bind[key] = on_bind
        return out

    def with_empty_node(self, node: Node, keep: Iterable[str] = ()) -> "Snapshot":
        """A new snapshot with one more node without pods (CA's simulated nodes), keeping the pod index, the
        affinity node lists and the caches named in `keep`."""
        info = NodeInfo(node)
        infos = [*self.node_infos, info]
        by_name = {**self._by_name, info.name: info}
        position = {ni.name: i for i, ni in enumerate(infos)} if not self._position else \
            {**self._position, info.name: len(infos) - 1}
        out = Snapshot(infos, self.namespaces, self.objects, self._by_namespace, by_name, _position=position,
                       _listed=self._listed, pod_caches=self.pod_caches)
        for key in ("snapshot/affinity", "snapshot/anti-affinity", *keep):
            if key in self._cache:
                out._cache[key] = self._cache[key]
                if key in self._on_bind:
                    out._on_bind[key] = self._on_bind[key]
        return out

    def with_pods_replaced(self, node_name: str, replaced: dict[int, PodInfo]) -> "Snapshot":
        """A new snapshot with pods of `node_name` replaced (`replaced`: id of old PodInfo -> new), sharing as
        `with_pod_bound` does; `cached` starts empty."""
        target = self._by_name.get(node_name)
        if target is None:
            raise KeyError(f"no node {node_name!r} in the snapshot")
        changed = target.clone()
        for old in list(target.pods):
            new = replaced.get(id(old))
            if new is not None:
                changed.remove_pod(old)
                changed.add_pod(new)
        infos = [changed if ni is target else ni for ni in self.node_infos]
        index = self._index()
        if index is not None:     # only the namespaces of the pods replaced change
            touched = {p.namespace for p in target.pods if id(p) in replaced}
            index = {ns: Prefix([(replaced.get(id(p), p), n) for p, n in members]) if ns in touched else members
                     for ns, members in index.items()}
        return Snapshot(infos, self.namespaces, self.objects, index)

    def without_pod(self, node_name: str, namespace: str, name: str) -> "Snapshot":
        """A new snapshot without the pod `namespace/name` on `node_name` (this one if absent), so a linted
        bound pod is checked as if not there yet."""
        target = self._by_name.get(node_name)
        found = next((p for p in target.pods if p.namespace == namespace and p.name == name), None) \
            if target is not None else None
        if target is None or found is None:
            return self
        changed = target.clone()
        changed.remove_pod(found)
        infos = [changed if ni is target else ni for ni in self.node_infos]
        index = self._index()
        if index is not None:
            index = {ns: Prefix([(p, n) for p, n in members if p is not found])
                     for ns, members in index.items()}
        return Snapshot(infos, self.namespaces, self.objects, index)

    def position(self, name: str) -> int:
        """The index of node `name` in `node_infos` (the same in every snapshot a bind makes)."""
        if not self._position:
            self._position.update((ni.name, i) for i, ni in enumerate(self.node_infos))
        return self._position[name]

    @property
    def have_pods_with_affinity(self) -> list[NodeInfo]:
        return self.cached("snapshot/affinity",
                           lambda: NodesInOrder.of(self, lambda ni: bool(ni.pods_with_affinity)),
                           lambda old, new, pod, before, after: old.rebound(
                               new, before, after, bool(after.pods_with_affinity)))

    @property
    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]:
        return self.cached("snapshot/anti-affinity",
                           lambda: NodesInOrder.of(self, lambda ni: bool(ni.pods_with_required_anti_affinity)),
                           lambda old, new, pod, before, after: old.rebound(
                               new, before, after, bool(after.pods_with_required_anti_affinity)))

    def all_pods(self) -> Iterable[PodInfo]:
        for ni in self.node_infos:
            yield from ni.pods


def unchanged_by_bind(old: Any, new: Snapshot, pod: PodInfo, before: NodeInfo, after: NodeInfo) -> Any:
    """`on_bind` for an index of what a bind never changes (nodes, other objects): kept as it is."""
    return old


class NodesInOrder(list):
    """Some NodeInfos in node order with their `positions`, so a bind finds its node by bisection."""

    __slots__ = ("positions",)

    @classmethod
    def of(cls, snapshot: Snapshot, member: Callable[[NodeInfo], bool]) -> "NodesInOrder":
        out = cls(ni for ni in snapshot.node_infos if member(ni))
        out.positions = [snapshot.position(ni.name) for ni in out]
        return out

    def rebound(self, new: Snapshot, before: NodeInfo, after: NodeInfo, member: bool) -> "NodesInOrder":
        """The list after `before` became `after` (in `new`): `after` in its place when it is a
        `member`, else out of the list."""
        at = new.position(before.name)
        i = bisect_left(self.positions, at)
        present = i < len(self.positions) and self.positions[i] == at
        if not member and not present:
            return self
        out = NodesInOrder(self)
        out.positions = self.positions
        if member and present:
            out[i] = after
        elif member:
            out.insert(i, after)
            out.positions = [*self.positions[:i], at, *self.positions[i:]]
        else:
            del out[i]
            out.positions = [*self.positions[:i], *self.positions[i + 1:]]
        return out

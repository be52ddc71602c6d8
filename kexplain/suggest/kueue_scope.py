"""Which part of Kueue's pass a suggested change can reach: its cohort trees.

Kueue counts quota per cohort tree and one scheduling cycle reads and changes only its head's
tree, so the objects fall apart into parts nothing links across (`World`); a pass over the parts
a change reaches, with the shared objects, gives their Workloads what the whole pass gives
(`None`: everything). The links: docs/internals/suggest.md."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from kexplain.apimachinery.identity import object_uid
from kexplain.kueue.apis import constants as c
from kexplain.kueue.apis.conversion import cohort_of
from kexplain.kueue.controller.jobframework.naming import workload_name
from kexplain.kueue.controller.jobs import INTEGRATIONS, integration_for
from kexplain.kueue.inputs import ADMISSION_CONTEXT, Objects
from kexplain.kueue.config_file import is_manager_config_map
from kexplain.kueue.objects import READ_KINDS, TAS_KINDS
from kexplain.suggest.kueue_context import ref

# Kinds every part reads (kept whole in every pass run again): pod admission's, and Kueue's own
# Configuration (given as a document or as the manager's ConfigMap).
SHARED = frozenset({"Namespace", *ADMISSION_CONTEXT, "Configuration", "ConfigMap"})
# Of Kueue's kinds, those that link parts are its queues and Workloads; every other one (flavors,
# priority classes, admission checks and their configs, topologies) is read by every part.
LINKING_KUEUE = frozenset({c.CLUSTER_QUEUE, c.COHORT, c.LOCAL_QUEUE, c.WORKLOAD})
READ = frozenset({*READ_KINDS, *SHARED, *INTEGRATIONS})      # the kinds a pass run again may read
RefKey = tuple[str, str, str]            # kind, namespace ("" when cluster-scoped), name


def _dict(raw: Any) -> Mapping[str, Any]:
    return raw if isinstance(raw, dict) else {}


def _meta(obj: Mapping[str, Any]) -> tuple[str, str]:
    """(namespace, name) as the parsers read them: a namespaced object without one in `default`."""
    meta = _dict(obj.get("metadata"))
    return str(meta.get("namespace") or "default"), str(meta.get("name") or "")


def ref_key(ref: Mapping[str, Any]) -> RefKey:
    """The key of a change's `object` (`kueue_context.ref`)."""
    return str(ref.get("kind") or ""), str(ref.get("namespace") or ""), str(ref.get("name") or "")


def links(obj: Any, submitted: bool, tas: bool = False) -> list[str] | None:
    """The nodes an object links (its own first): [] for an object every part reads, None for
    one the pass only lists as ignored (or that is no object). With a Topology read (`tas`), the
    Nodes and the cluster's pods are read by every part: TAS places on the Nodes and counts the
    pods bound to them."""
    if not isinstance(obj, dict):       # (a dump's bound pod; submitted, read by every part)
        return [] if submitted or tas else None
    kind = obj.get("kind")
    api = obj.get("apiVersion") if isinstance(obj.get("apiVersion"), str) else ""
    if api.split("/", 1)[0] == c.GROUP:
        return _kueue_links(obj, kind)
    if tas and not submitted and kind in TAS_KINDS and api == "v1":
        return []
    if kind not in READ or (not submitted and kind in INTEGRATIONS):
        return None             # (most of a cluster dump: its Nodes and bound Pods)
    if kind == "ConfigMap":
        return [] if is_manager_config_map(obj) else None
    if kind in SHARED:
        return []
    integration = integration_for(kind, api)
    if integration is None:
        return None
    namespace, name = _meta(obj)
    uid = object_uid(obj)       # (as `inputs._with_uid` gives it)
    out = [f"uid:{uid}", f"wl:{namespace}/{workload_name(name, uid, integration.KIND, integration.GROUP)}"]
    queue = str(_dict(_dict(obj.get("metadata")).get("labels")).get(c.QUEUE_NAME_LABEL) or "")
    if queue:
        out.append(f"lq:{namespace}/{queue}")
    return out


def _kueue_links(obj: Mapping[str, Any], kind: str) -> list[str]:
    spec = _dict(obj.get("spec"))
    namespace, name = _meta(obj)
    if kind not in LINKING_KUEUE:
        return []
    if kind == c.CLUSTER_QUEUE:
        cohort = cohort_of(obj)
        return [f"cq:{name}", *((f"co:{cohort}",) if cohort else ())]
    if kind == c.COHORT:
        parent = str(spec.get("parentName") or "")
        return [f"co:{name}", *((f"co:{parent}",) if parent else ())]
    if kind == c.LOCAL_QUEUE:
        return [f"lq:{namespace}/{name}", f"cq:{spec.get('clusterQueue') or ''}"]
    out = [f"wl:{namespace}/{name}", f"lq:{namespace}/{spec.get('queueName') or ''}"]
    admitted_in = _dict(_dict(obj.get("status")).get("admission")).get("clusterQueue")
    if admitted_in:
        out.append(f"cq:{admitted_in}")
    meta = _dict(obj.get("metadata"))
    out += [f"uid:{_dict(o).get('uid') or ''}" for o in meta.get("ownerReferences") or () if _dict(o).get("uid")]
    return out


def _is_topology(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == c.TOPOLOGY and \
        str(obj.get("apiVersion") or "").split("/", 1)[0] == c.GROUP


def _flavors_named(obj: Mapping[str, Any]) -> Iterable[str]:
    """The ResourceFlavors a ClusterQueue object names."""
    for group in _dict(obj.get("spec")).get("resourceGroups") or ():
        for flavor in _dict(group).get("flavors") or ():
            yield str(_dict(flavor).get("name") or "")


@dataclass(frozen=True)
class Entry:
    """One object a pass run again may read: which list (0 submitted, 1 cluster), its position,
    and its part (None: every part reads it)."""

    which: int
    position: int
    part: str | None


class World:
    """The objects read, indexed once: each one's part, the objects by reference, the parts of
    each namespace's queues and Workloads and of each flavor's ClusterQueues."""

    def __init__(self, submitted: Objects, cluster: Objects) -> None:
        self.lists = (submitted, cluster)
        self.tas = any(_is_topology(obj) for obj, _ in cluster) or any(_is_topology(obj) for obj, _ in submitted)
        self._parent: dict[str, str] = {}
        self.by_ref: dict[RefKey, list[tuple[int, int]]] = {}
        namespaces: dict[str, list[str]] = {}
        flavors: dict[str, list[str]] = {}
        found: list[tuple[int, int, str | None]] = []
        for which, objects in enumerate(self.lists):
            for position, (obj, _) in enumerate(objects):
                if which and not isinstance(obj, dict):
                    if self.tas:        # (a dump's bound pod, read by view: every part's, never changed)
                        found.append((which, position, None))
                    continue            # (without TAS `links` gives None)
                nodes = links(obj, which == 0, self.tas)
                if nodes is None:
                    continue
                key = ref_key(ref(obj))
                self.by_ref.setdefault(key, []).append((which, position))
                for node in nodes[1:]:
                    self._union(nodes[0], node)
                if nodes:
                    self._find(nodes[0])
                    if key[0] == c.CLUSTER_QUEUE:
                        for flavor in _flavors_named(obj):
                            flavors.setdefault(flavor, []).append(nodes[0])
                    elif key[1]:
                        namespaces.setdefault(key[1], []).append(nodes[0])
                found.append((which, position, nodes[0] if nodes else None))
        self.entries = tuple(Entry(w, p, None if n is None else self._find(n)) for w, p, n in found)
        self.namespace_parts = {ns: {self._find(n) for n in nodes} for ns, nodes in namespaces.items()}
        self.flavor_parts = {f: {self._find(n) for n in nodes} for f, nodes in flavors.items()}

    def _find(self, node: str) -> str:
        parent = self._parent.setdefault(node, node)
        while parent != node:
            grand = self._parent[parent]
            self._parent[node] = grand
            node, parent = parent, grand
        return node

    def _union(self, a: str, b: str) -> None:
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self._parent[rb] = ra

    def part_of(self, node: str) -> str | None:
        """The part a node is in; None for a node no object read names."""
        return self._find(node) if node in self._parent else None

    def parts(self, changed: Sequence[tuple[int, Any, Any]]) -> set[str] | None:
        """The parts a change reaches, from each changed object (its list, as read, as changed;
        None as read for one created); None when it reaches everything."""
        out: set[str] = set()
        for which, before, after in changed:
            for obj in (before, after):
                if obj is None:
                    continue
                nodes = links(obj, which == 0, self.tas)
                if nodes is None:
                    return None
                if not nodes:
                    shared = self._shared_parts(obj)
                    if shared is None:
                        return None
                    out |= shared
                out.update(p for p in map(self.part_of, nodes) if p is not None)
        return out

    def _shared_parts(self, obj: Mapping[str, Any]) -> set[str] | None:
        kind = obj.get("kind")
        namespace, name = _meta(obj)
        if kind == "Namespace":
            return set(self.namespace_parts.get(name, ()))
        if kind == c.RESOURCE_FLAVOR:
            return set(self.flavor_parts.get(name, ()))
        return None

    def objects(self, parts: set[str] | None, changed: Mapping[tuple[int, int], dict[str, Any]],
                created: Sequence[tuple[dict[str, Any], Any]]) -> tuple[Objects, Objects]:
        """The objects of `parts` (all, with None) and the shared ones, in the order read, the
        changed ones in their place; the created ones after the cluster's."""
        out: tuple[list, list] = ([], [])
        for e in self.entries:
            if e.part is None or parts is None or e.part in parts:
                obj, src = self.lists[e.which][e.position]
                out[e.which].append((changed.get((e.which, e.position), obj), src))
        out[1].extend(created)
        return out[0], out[1]

"""Where node groups come from: CA's cloudprovider seam (`CloudProvider.NodeGroups`, `NodeGroupForNode`).

One module per source (`static`: --node-groups FILE; `status_configmap`: the groups CA reports;
`clusterapi`: annotated MachineDeployments and MachineSets; `live`: their reads), each giving
groups, members and notes; `discover` combines the last two over plain objects, live or from files."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence

from kexplain.apimachinery import columns
from kexplain.autoscaler.cloudprovider import clusterapi, static, status_configmap
from kexplain.autoscaler.cloudprovider.membership import PROVIDER_LABELS
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.errors import KexplainError, Source
from kexplain.apimachinery.names import is_label_key

# The node-group labels of EKS managed node groups, GKE node pools and AKS agent pools.
DEFAULT_LABEL_KEYS: tuple[str, ...] = tuple(PROVIDER_LABELS)


@dataclass(frozen=True)
class Discovery:
    """Node groups found, in the provider's order, with their members (node names in cluster order:
    Cluster API members travel with the groups) and notes; a file's groups (`from_file`) find their
    members by nodeSelector once the nodes are read (`members_among`): one interface for the loop."""

    groups: tuple[NodeGroup, ...] = ()
    members: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()      # where groups were found ("status ConfigMap", "Cluster API")
    by_provider_id: frozenset[str] = frozenset()     # groups with a member its providerID placed
    file: str = ""                     # the --node-groups FILE they were read from ("": found in the cluster)

    @classmethod
    def from_file(cls, path: str, max_bytes: int | None = None) -> "Discovery":
        """The groups of a --node-groups FILE (`static.read_node_groups`; bad input: InputError)."""
        return cls(tuple(static.read_node_groups(path, max_bytes)), sources=(path,), file=path)

    def members_among(self, nodes: Iterable[tuple[str, Mapping[str, str]]]) -> Mapping[str, Sequence[str]]:
        """Each group's members among `nodes` (name and labels, cluster order): as found, or, for
        a file's groups, the nodes each one's nodeSelector selects (a node two select: InputError)."""
        if not self.file:
            return self.members
        return static.members(self.groups, nodes, Source(self.file))

    def with_notes(self, notes: Iterable[str]) -> "Discovery":
        return replace(self, notes=(*notes, *self.notes))


# Where each source of `discover` is, for a reader.
SOURCE_WORDS = {"status ConfigMap": f"CA's status ConfigMap {status_configmap.NAMESPACE}/{status_configmap.NAME}",
                "Cluster API": "Cluster API MachineDeployments and MachineSets (members through their Machines)"}
CLUSTER_API_KINDS = ("MachineDeployment/", "MachineSet/")


def provenance(found: Discovery) -> dict[str, Any]:
    """Where the groups of `found` came from: the autoscaler document's `nodeGroupsFound` key
    (sources, member labels and providerIDs, CA's backoffs, notes)."""
    labels = dict.fromkeys(k for g in found.groups if not g.name.startswith(CLUSTER_API_KINDS)
                           for k in g.node_selector)
    return {"sources": [SOURCE_WORDS.get(s, s) for s in found.sources], "memberLabels": list(labels),
            "memberProviderIds": [g.name for g in found.groups if g.name in found.by_provider_id],
            "backoff": {g.name: g.backoff.to_json() for g in found.groups if g.backoff is not None},
            "notes": list(found.notes)}


def label_keys(extra: Sequence[str] = ()) -> tuple[str, ...]:
    """The provider labels, then the ones given (--node-group-label), each once; a given one
    that is not a label name is an error."""
    for key in extra:
        problems = is_label_key(key)
        if problems:
            raise KexplainError(f"--node-group-label {key!r}: not a label name: {problems[0]}")
    return tuple(dict.fromkeys((*DEFAULT_LABEL_KEYS, *extra)))


def discover(objects: Sequence[dict[str, Any]], keys: Sequence[str] = DEFAULT_LABEL_KEYS,
             source: Source | None = None) -> Discovery:
    """The node groups among `objects` (Nodes in cluster order, CA's status ConfigMap, Cluster API
    objects); a group both know (CA on Cluster API) is taken from Cluster API in the status's order;
    a status in an unknown format raises InputError."""
    nodes = [o for o in objects if o.get("kind") == "Node"]
    capi, capi_members, notes = clusterapi.node_groups(objects, nodes, source)
    groups: list[NodeGroup] = []
    members: dict[str, list[str]] = {}
    sources: list[str] = []
    by_provider_id: frozenset[str] = frozenset()
    cm = status_configmap.find(objects)
    if cm is not None:
        status = status_configmap.parse(cm, source)
        sources.append("status ConfigMap")
        if status.state == "Initializing":
            notes.append("CA's status ConfigMap says CA is still initializing: it reports no node group yet")
        by_name = {g.name: g for g in capi}
        reported = status_configmap.AutoscalerStatus(status.format, status.state, status.time,
                                                     tuple(g for g in status.groups if g.name not in by_name))
        found, membership = status_configmap.node_groups(reported, nodes, keys, source)
        own = {g.name: g for g in found}
        for gs in status.groups:
            capi_group = by_name.get(gs.name)
            if capi_group is not None and gs.backoff is not None:       # CA's status says it of Cluster API's too
                capi_group = replace(capi_group, backoff=gs.backoff)
                notes.append(status_configmap.backoff_note(gs.name, gs.backoff))
            groups.append(capi_group or own[gs.name])
        members.update(membership.members)
        notes.extend(membership.notes)
        by_provider_id = membership.by_provider_id
    if capi:
        sources.append("Cluster API")
    listed = {g.name for g in groups}
    groups.extend(g for g in capi if g.name not in listed)
    members.update(capi_members)
    notes.extend(_claimed_twice(groups, members))
    return Discovery(tuple(groups), {g.name: tuple(members.get(g.name, ())) for g in groups}, tuple(notes),
                     tuple(sources), by_provider_id)


# The kinds whose objects report node groups (CA's status ConfigMap; Cluster API's).
REPORTING_KINDS = frozenset({"ConfigMap", *clusterapi.KINDS})


def reporting_objects(objects: Sequence[tuple[dict[str, Any], Any]]) -> list[tuple[dict[str, Any], Any]]:
    """The objects that report node groups (CA's status ConfigMap, Cluster API's MachineDeployments,
    MachineSets and Machines), in order; of a dump only those kinds are looked at (`columns.of_kind`)."""
    rows = columns.rows_of(objects)
    if rows is not None:
        objects = [pair for kind in sorted(REPORTING_KINDS) for pair in columns.of_kind(objects, rows, kind)]
    return [(o, s) for o, s in objects if o.get("kind") in clusterapi.KINDS or
            (o.get("kind") == "ConfigMap" and status_configmap.find([o]) is not None)]


def discover_in(objects: Sequence[tuple[dict[str, Any], Any]]) -> Discovery | None:
    """The node groups a cluster's objects (files or a snapshot) report, found as on a live cluster
    (`discover`); None when none reports any; a status ConfigMap CA would not write raises InputError."""
    reporting = reporting_objects(objects)
    if not reporting:
        return None
    rows = columns.rows_of(objects)
    nodes = columns.of_kind(objects, rows, "Node") if rows is not None else \
        [(o, s) for o, s in objects if o.get("kind") == "Node"]
    source = next((s for o, s in reporting if o.get("kind") == "ConfigMap"), reporting[0][1])
    return discover([o for o, _ in nodes] + [o for o, _ in reporting], DEFAULT_LABEL_KEYS, source)


def _claimed_twice(groups: Sequence[NodeGroup], members: dict[str, list[str]]) -> list[str]:
    """A node two groups claim stays in the first (CA's NodeGroupForNode gives one group)."""
    owner: dict[str, str] = {}
    notes = []
    for group in groups:
        kept = []
        for name in members.get(group.name, []):
            if name in owner:
                notes.append(f"node {name} is claimed by node groups {owner[name]} and {group.name}: "
                             f"counted in {owner[name]}")
                continue
            owner[name] = group.name
            kept.append(name)
        members[group.name] = kept
    return notes

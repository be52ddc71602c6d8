"""Which node group a node is an instance of, for groups known by their ids only (CA's status
ConfigMap): CA's `CloudProvider.NodeGroupForNode` as each provider defines it (the id says the
provider: gce, azure, else a node-group label); a node two groups claim stays in the first, noted."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from kexplain.apimachinery.labels import LABEL_TOPOLOGY_ZONE, zone_of
from kexplain.autoscaler.cloudprovider import aws, azure, gce

# label key -> the forms a group id takes for a label value V, besides V itself.
PROVIDER_LABELS: dict[str, str] = {
    aws.NODEGROUP_LABEL: aws.MANAGED_ASG_FORM,
    gce.POOL_LABEL: gce.POOL_MIG_FORM,
    azure.AGENTPOOL_LABEL: azure.POOL_VMSS_FORM,
}


@dataclass(frozen=True)
class NodeRef:
    """What membership reads of a Node: its name, labels and providerID."""

    name: str
    labels: Mapping[str, str]
    provider_id: str = ""


def node_refs(nodes: Iterable[dict[str, Any]]) -> list[NodeRef]:
    """The NodeRefs of Node objects, in their order."""
    out = []
    for node in nodes:
        meta = node.get("metadata") or {}
        labels = meta.get("labels")
        labels = {k: v for k, v in labels.items() if isinstance(v, str)} if isinstance(labels, dict) else {}
        provider_id = (node.get("spec") or {}).get("providerID")
        out.append(NodeRef(str(meta.get("name")), labels, provider_id if isinstance(provider_id, str) else ""))
    return out


def names_value(group: str, key: str, value: str) -> bool:
    """Whether the group id `group` names the nodes whose label `key` is `value`: the id is the
    value (or ends in `/VALUE`), or, for a provider's label, the provider's name built from it."""
    if not value:
        return False
    last = group.rstrip("/").rsplit("/", 1)[-1]
    if value in (group, last):
        return True
    form = PROVIDER_LABELS.get(key)
    return form is not None and re.fullmatch(form.replace("{v}", re.escape(value)), last) is not None


@dataclass(frozen=True)
class Members:
    """Each group's label selector (the labels that name its nodes, {} for none), its members
    (node names, in node order), the groups a member of which its providerID placed, notes."""

    selectors: dict[str, dict[str, str]]
    members: dict[str, list[str]]
    by_provider_id: frozenset[str] = frozenset()
    notes: list[str] = field(default_factory=list)


def members(groups: Sequence[str], nodes: Sequence[NodeRef], label_keys: Sequence[str]) -> Members:
    """The members of the groups `groups` (ids, the provider's order) among `nodes`. Each node
    is looked at once: its providerID, then the groups whose selector's first label it carries."""
    migs = {g: ref for g in groups if (ref := gce.parse_mig_url(g)) is not None}
    index = gce.mig_index(migs)
    scale_sets: dict[str, str] = {}
    for g in groups:
        scale_sets.setdefault(g.casefold(), g)
    values = {k: {n.labels[k] for n in nodes if k in n.labels} for k in label_keys}
    selectors = {g: selector(g, values, label_keys, migs.get(g)) for g in groups}
    order = {g: i for i, g in enumerate(groups)}
    by_label: dict[tuple[str, str], list[str]] = {}
    for g in groups:
        if selectors[g]:
            by_label.setdefault(next(iter(selectors[g].items())), []).append(g)
    found: dict[str, list[str]] = {g: [] for g in groups}
    placed: set[str] = set()
    notes: list[str] = []
    for node in nodes:
        instance = gce.ref_from_provider_id(node.provider_id)
        owner = _by_provider_id(node, instance, index, scale_sets)
        if owner is not None:
            placed.add(owner)
        else:
            candidates = sorted({g for k in label_keys if k in node.labels for g in by_label.get((k, node.labels[k]), ())},
                                key=order.__getitem__)
            zone = instance.zone if instance is not None else zone_of(dict(node.labels))
            owners = [g for g in candidates if _labels_match(node, selectors[g], migs.get(g), instance, zone)]
            if len(owners) > 1:
                notes.append(f"node {node.name} is claimed by node groups {owners[0]} and {owners[1]}: "
                             f"counted in {owners[0]}")
            owner = owners[0] if owners else None
        if owner is not None:
            found[owner].append(node.name)
    return Members(selectors, found, frozenset(placed), notes)


def _by_provider_id(node: NodeRef, instance: gce.GceRef | None, index: gce.MigIndex,
                    scale_sets: Mapping[str, str]) -> str | None:
    if instance is not None:
        return gce.mig_for_instance(instance, index)
    scale_set = azure.scale_set_of(node.provider_id)
    return scale_sets.get(scale_set.casefold()) if scale_set else None


def _labels_match(node: NodeRef, sel: Mapping[str, str], mig: gce.GceRef | None, instance: gce.GceRef | None,
                  zone: str) -> bool:
    if mig is not None and (zone != mig.zone or (instance is not None and instance.project != mig.project)):
        return False
    return all(node.labels.get(k) == v for k, v in sel.items() if not (mig is not None and k == LABEL_TOPOLOGY_ZONE))


def selector(group: str, values: Mapping[str, set[str]], label_keys: Sequence[str], mig: gce.GceRef | None = None
             ) -> dict[str, str]:
    """The first key with a value that names the group, of several the longest (the more specific
    reading of a GKE MIG name); a MIG's selector adds its zone."""
    for key in label_keys:
        named = sorted((v for v in values.get(key, ()) if names_value(group, key, v)), key=lambda v: (-len(v), v))
        if named:
            return {key: named[0], **({LABEL_TOPOLOGY_ZONE: mig.zone} if mig is not None else {})}
    return {}

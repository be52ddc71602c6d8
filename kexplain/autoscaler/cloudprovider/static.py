"""The `--node-groups FILE` provider: groups as a file lists them (../shared/autoscaler/README.md,
parsed by `kexplain.autoscaler.nodegroups`), members by each group's nodeSelector
(`Discovery.from_file` and `Discovery.members_among`)."""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from kexplain.apimachinery.labels import LABEL_TOPOLOGY_ZONE
from kexplain.autoscaler.cloudprovider.gce import parse_mig_url
from kexplain.autoscaler.nodegroups import LIST_KIND, NodeGroup, parse_node_groups
from kexplain.errors import InputError, Source
from kexplain.load.limits import DEFAULT_MAX_BYTES
from kexplain.load.manifests import read_text
from kexplain.load.yaml_io import parse_documents


def read_node_groups(path: str, max_bytes: int | None = None) -> list[NodeGroup]:
    """The node groups of `path`, in the order the file lists them (the provider's order)."""
    text = read_text(path, max_bytes or DEFAULT_MAX_BYTES)
    docs = [d for d in parse_documents(text, path) if d.value is not None]
    if len(docs) != 1:
        raise InputError(f"expected one {LIST_KIND} document, found {len(docs)}", source=Source(path))
    return parse_node_groups(docs[0].value, Source(path))


def members(groups: Sequence[NodeGroup], nodes: Iterable[tuple[str, Mapping[str, str]]],
            source: Source | None = None) -> dict[str, list[str]]:
    """Each group's member nodes (`nodes`: name and labels, in cluster order), by group name.
    A node two groups select is an input error; a node none selects belongs to no group. The groups
    are matched once per distinct values of the labels their selectors name (5,000 nodes, a few
    dozen groups: a few dozen matchings)."""
    out: dict[str, list[str]] = {g.name: [] for g in groups}
    keys = sorted({k for g in groups for k in g.node_selector})
    by_values: dict[tuple, list[str]] = {}      # the owners of nodes alike in the selectors' labels
    for name, labels in nodes:
        values = tuple(labels.get(k) for k in keys)
        owners = by_values.get(values)
        if owners is None:
            owners = by_values[values] = [g.name for g in groups if g.selects(labels)]
        if len(owners) > 1:
            raise InputError(f"node {name} is selected by two node groups, {owners[0]} and {owners[1]}: "
                             f"each node belongs to at most one group (check their nodeSelector{_zonal_hint(owners)})",
                             source=source)
        if owners:
            out[owners[0]].append(name)
    return out


def _zonal_hint(owners: Sequence[str]) -> str:
    """For two MIGs (a GKE pool's, one per zone) selected alike: what tells them apart."""
    migs = [parse_mig_url(o) for o in owners[:2]]
    if all(migs) and migs[0].zone != migs[1].zone:
        return f"; MIGs of zones {migs[0].zone} and {migs[1].zone}: add {LABEL_TOPOLOGY_ZONE} to each"
    return ""

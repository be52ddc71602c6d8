"""The `--node-groups FILE` provider: groups as a file lists them (../shared/autoscaler/README.md),
members by each group's nodeSelector. A thin wrapper of `kexplain.autoscaler.nodegroups`, so that
every source of node groups answers with the same `Discovery`."""
from __future__ import annotations

from typing import Any, Sequence

from kexplain.autoscaler.cloudprovider import Discovery
from kexplain.autoscaler.nodegroups import members, read_node_groups
from kexplain.errors import Source


def discover(path: str, nodes: Sequence[dict[str, Any]], max_bytes: int | None = None) -> Discovery:
    """The groups of `path`, each with its members among `nodes` (cluster order). A node two
    groups select is an input error here: the file is the user's to fix."""
    groups = read_node_groups(path, max_bytes)
    pairs = [(str((n.get("metadata") or {}).get("name")), (n.get("metadata") or {}).get("labels") or {})
             for n in nodes]
    found = members(groups, pairs, Source(path))
    notes = tuple(f"node group {g.name}: no node matches its nodeSelector and it has no template: not ready "
                  "for scale-up, as CA says" for g in groups if not found[g.name] and g.template is None)
    return Discovery(tuple(groups), {k: tuple(v) for k, v in found.items()}, notes, (path,))

"""The names people know a node group by, for `--node-group NAME`: besides CA's provider id, the
last part of a path id, the pool its id is built from and the pool its nodes' provider label names
(the MIGs of one GKE pool share the pool's name, so a pool over three zones names three groups)."""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Mapping, Sequence

from kexplain.autoscaler.cloudprovider import aws, azure, gce
from kexplain.autoscaler.cloudprovider.membership import PROVIDER_LABELS, names_value


@dataclass(frozen=True)
class Named:
    """One group: its id, the other names it is known by, its pool ("" when none is known) and
    its zone (a MIG's; "" for a group that spans zones)."""

    group: str
    names: tuple[str, ...]
    pool: str = ""
    zone: str = ""


def known(groups: Sequence[tuple[str, Mapping[str, str]]]) -> list[Named]:
    """Each group (id, and its template's labels, {} when it has none) with its names."""
    pools: dict[str, str] = {}          # GKE stem -> pool, from the groups whose labels say it
    out = []
    for gid, labels in groups:
        last = gid.rstrip("/").rsplit("/", 1)[-1]
        carried = [(k, labels[k]) for k in PROVIDER_LABELS if labels.get(k)]
        pool = (aws.managed_node_group(last) or azure.agent_pool(last)
                or next((v for k, v in carried if names_value(gid, k, v)), "")
                or next((v for _, v in carried), ""))
        mig = gce.parse_mig_url(gid)
        if mig is not None and pool and gce.pool_stem(mig):
            pools.setdefault(gce.pool_stem(mig), pool)
        out.append((gid, last, pool, mig))
    named = []
    for gid, last, pool, mig in out:
        pool = pool or (pools.get(gce.pool_stem(mig), "") if mig is not None else "")
        names = tuple(dict.fromkeys(n for n in (last, pool) if n and n != gid))
        named.append(Named(gid, names, pool, mig.zone if mig is not None else ""))
    return named


def resolve(name: str, groups: Sequence[Named]) -> list[Named]:
    """The groups `name` names: the group of that id; else every group known by that name (a GKE pool: its
    MIGs); else the same without regard to case (as Azure compares scale set names)."""
    exact = [g for g in groups if g.group == name]
    if exact:
        return exact
    by_name = [g for g in groups if name in g.names]
    if by_name:
        return by_name
    folded = name.casefold()
    return [g for g in groups if folded in (n.casefold() for n in (g.group, *g.names))]


def closest(name: str, groups: Sequence[Named], n: int = 3) -> list[str]:
    """The names (ids or others) closest to `name`, best first."""
    every = list(dict.fromkeys(x for g in groups for x in (g.group, *g.names)))
    return difflib.get_close_matches(name, every, n=n)

"""GCE and GKE: a node group is a managed instance group (MIG), one zone each, so a GKE pool over three zones
is three groups (CA's cloudprovider/gce `GenerateMigUrl`, `GceRefFromProviderId`). Without the GCE API,
members are matched by `findMigWithMatchingBasename`'s rule or the pool label and zone, and a member (or a
pool sibling's, `pool_templates`) stands in for the MIG's instance template (docs/internals/autoscaler.md)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kexplain.apimachinery.labels import LABEL_TOPOLOGY_ZONE, zone_of
from kexplain.autoscaler.cloudprovider.template import StandIn, node_as_made

POOL_LABEL = "cloud.google.com/gke-nodepool"
GPU_LABEL = "cloud.google.com/gke-accelerator"        # GceCloudProvider.GPULabel()
DRA_GPU_LABEL = "cloud.google.com/gke-gpu-dra-driver"  # "true": the node's GPUs come through DRA (GpuDraDriverEnabled)
DRA_GPU_DRIVER = "gpu.nvidia.com"
# The MIG a GKE node pool V has in each zone: gke-CLUSTER-V-HASH-grp (the last part of its URL).
POOL_MIG_FORM = r"gke-.+-{v}-[0-9a-f]{8}-grp"
_MIG_URL = re.compile(r"https://.*/projects/(.*)/zones/(.*)/instanceGroups/(.*)")     # ParseMigUrl
_GKE_MIG = re.compile(r"(gke-.+)-[0-9a-f]{8}-grp")
PROVIDER_ID_PREFIX = "gce://"
GCE_KUBE_PROXY = "less the kube-proxy pod CA adds to it (100m cpu)"


@dataclass(frozen=True)
class GceRef:
    """A GCE object by project, zone and name (CA's GceRef)."""

    project: str
    zone: str
    name: str


def parse_mig_url(url: str) -> GceRef | None:
    """The MIG a node group id names (`ParseMigUrl`), or None for an id that is not a MIG URL."""
    found = _MIG_URL.fullmatch(url)
    return GceRef(*found.groups()) if found else None


def ref_from_provider_id(provider_id: str) -> GceRef | None:
    """The instance of a node's `gce://PROJECT/ZONE/INSTANCE` providerID, or None."""
    if not provider_id.startswith(PROVIDER_ID_PREFIX):
        return None
    parts = provider_id[len(PROVIDER_ID_PREFIX):].split("/")
    return GceRef(*parts) if len(parts) == 3 and all(parts) else None


def basename(mig: GceRef) -> str:
    """The MIG's base instance name: its instances' names begin with it (GKE: the name
    without `-grp`; a MIG made by hand usually has its own name)."""
    return mig.name.removesuffix("-grp") if _GKE_MIG.fullmatch(mig.name) else mig.name


MigIndex = Mapping[tuple[str, str], Sequence[tuple[str, str]]]


def mig_index(migs: Mapping[str, GceRef]) -> MigIndex:
    """The MIGs (id to ref) by project and zone, each as (base instance name, id), the longest
    base name first."""
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for gid, mig in migs.items():
        out.setdefault((mig.project, mig.zone), []).append((basename(mig), gid))
    for entries in out.values():
        entries.sort(key=lambda e: -len(e[0]))
    return out


def mig_for_instance(instance: GceRef, index: MigIndex) -> str | None:
    """The id of the MIG (`mig_index`) of the instance's project and zone whose base instance name begins the
    instance's name; of several, the longest base name, the one the GCE API would list the instance in."""
    for base, gid in index.get((instance.project, instance.zone), ()):
        if instance.name.startswith(base):
            return gid
    return None


def pool_stem(mig: GceRef) -> str:
    """What the MIGs of one GKE node pool share across zones (`gke-CLUSTER-POOL`), "" when the
    MIG is not named as GKE names them."""
    found = _GKE_MIG.fullmatch(mig.name)
    return found.group(1) if found else ""


def pool_templates(groups: Sequence[str], members: Mapping[str, Sequence[str]],
                   selectors: Mapping[str, Mapping[str, str]], nodes: Sequence[Mapping[str, Any]]
                   ) -> dict[str, Any]:
    """For each MIG without a member, a stand-in for its instance template (`template.StandIn`) from
    a member of another MIG of its node pool, with the note that says so: the cluster does not hold
    the instance template CA reads, and a GKE pool's MIGs share machine type, labels and taints."""
    by_name = {str((n.get("metadata") or {}).get("name")): n for n in nodes}
    migs = {g: ref for g in groups if (ref := parse_mig_url(g)) is not None}
    pools = {g: _pool_key(ref, selectors.get(g) or {}) for g, ref in migs.items()}
    out: dict[str, Any] = {}
    for gid, mig in migs.items():
        if members.get(gid) or not pools[gid]:
            continue
        sibling = next((g for g in migs if g != gid and pools[g] == pools[gid] and members.get(g)), None)
        if sibling is None:
            continue
        name = members[sibling][0]
        origin = (f"the MIG's instance template, stood in for by node {name} of the same node pool (MIG "
                  f"{migs[sibling].name}, zone {migs[sibling].zone}) with its zone labels set to {mig.zone}, "
                  f"{GCE_KUBE_PROXY}")
        out[gid] = StandIn(pool_template(mig, by_name[name]), origin,
                           f"node group {gid}: no node in its zone {mig.zone}; template from node {name} of the same "
                           f"node pool (MIG {migs[sibling].name}, zone {migs[sibling].zone}) with its zone labels set "
                           f"to {mig.zone}, as CA builds it from the MIG's instance template; not included: the "
                           "kube-proxy pod CA adds to it (100m cpu)")
    return out


def _pool_key(mig: GceRef, sel: Mapping[str, str]) -> tuple[str, ...]:
    pool = tuple(sorted((k, v) for k, v in sel.items() if k != LABEL_TOPOLOGY_ZONE))
    if pool:
        return (mig.project, *(f"{k}={v}" for k, v in pool))
    stem = pool_stem(mig)
    return (mig.project, stem) if stem else ()


def pool_template(mig: GceRef, node: Mapping[str, Any]) -> dict[str, Any]:
    """A template node for `mig` from `node`, an instance of another MIG of its pool
    (`template.node_as_made`), every label that carries the node's zone set to the MIG's."""
    labels = {k: v for k, v in ((node.get("metadata") or {}).get("labels") or {}).items() if isinstance(v, str)}
    instance = ref_from_provider_id(str((node.get("spec") or {}).get("providerID") or ""))
    zone = instance.zone if instance is not None else zone_of(labels)
    return node_as_made(node, {k: (mig.zone if zone and v == zone else v) for k, v in labels.items()})

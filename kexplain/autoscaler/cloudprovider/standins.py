"""Stand-ins for the provider's template of a group found in the cluster (`TemplateNodeInfo`).

CA's MixedTemplateNodeInfoProvider (processors/nodeinfosprovider) takes a group's template from
its first good member (ready, schedulable, not being deleted); failing that, from the
provider's `TemplateNodeInfo`, which every provider builds from its cloud API (GCE from the
MIG's instance template, AWS from the ASG's launch template and instance type, Azure from the
scale set's VM profile); failing that, from any member. kexplain has no cloud API: what stands
in for the provider's template is a node of the group as the provider made it: its labels
(not the hostname), taints, capacity and allocatable, Ready, and nothing the node itself went
through (a cordon, a node condition's taint, a NotReady status). A group's own member first
(any member: what it was made from does not change with its state); for a MIG without a
member, a node of another MIG of its GKE node pool, its zone labels set to the MIG's
(`gce.pool_templates`). Either way the stand-in says where it came from (`StandIn.origin`).
Not included: the kube-proxy pod GCE's template adds (100m cpu).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kexplain.apimachinery.labels import LABEL_HOSTNAME
from kexplain.autoscaler.cloudprovider import gce


@dataclass(frozen=True)
class StandIn:
    """A template Node standing in for the provider's, the words saying what it stands for and
    from which node (`origin`), and a discovery note when one is due (a MIG without a node)."""

    node: dict[str, Any]
    origin: str
    note: str = ""


# providerID scheme -> what the provider builds a template from
TEMPLATE_OF = {gce.PROVIDER_ID_PREFIX: "the MIG's instance template", "aws://": "the ASG's launch template",
               "azure://": "the scale set's VM profile"}
GCE_KUBE_PROXY = "less the kube-proxy pod CA adds to it (100m cpu)"


def node_as_made(node: Mapping[str, Any], labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A template Node from `node`: its labels (or `labels`) without the hostname, its taints,
    capacity and allocatable, Ready; not its cordon, conditions or pods."""
    meta = node.get("metadata") or {}
    labels = {k: v for k, v in (labels if labels is not None else meta.get("labels") or {}).items()
              if isinstance(v, str) and k != LABEL_HOSTNAME}
    status = node.get("status") or {}
    capacity = dict(status.get("capacity") or status.get("allocatable") or {})
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"labels": labels},
                           "status": {"capacity": capacity, "allocatable": dict(status.get("allocatable") or capacity),
                                      "conditions": [{"type": "Ready", "status": "True"}]}}
    taints = [dict(t) for t in (node.get("spec") or {}).get("taints") or () if isinstance(t, dict)]
    if taints:
        out["spec"] = {"taints": taints}
    return out


def stand_ins(groups: Sequence[str], members: Mapping[str, Sequence[str]], selectors: Mapping[str, Mapping[str, str]],
              nodes: Sequence[Mapping[str, Any]]) -> dict[str, StandIn]:
    """For each group (ids, with their members and label selectors) with a member, or a MIG
    whose node pool has one in another zone: its stand-in."""
    by_name = {str((n.get("metadata") or {}).get("name")): n for n in nodes}
    out: dict[str, StandIn] = dict(gce.pool_templates(groups, members, selectors, nodes))
    for gid in groups:
        own = members.get(gid) or ()
        if not own:
            continue
        node = by_name[own[0]]
        provider_id = str((node.get("spec") or {}).get("providerID") or "")
        what = next((w for s, w in TEMPLATE_OF.items() if provider_id.startswith(s)),
                    "the MIG's instance template" if gce.parse_mig_url(gid) else "the provider's template")
        tail = f", {GCE_KUBE_PROXY}" if what == TEMPLATE_OF[gce.PROVIDER_ID_PREFIX] else ""
        out[gid] = StandIn(node_as_made(node), f"{what}, stood in for by its member node {own[0]}{tail}")
    return out

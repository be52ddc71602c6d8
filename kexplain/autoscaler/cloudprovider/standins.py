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

from typing import Any, Mapping, Sequence

from kexplain.autoscaler.cloudprovider import gce
from kexplain.autoscaler.cloudprovider.gce import GCE_KUBE_PROXY
from kexplain.autoscaler.cloudprovider.template import StandIn, node_as_made


# providerID scheme -> what the provider builds a template from
TEMPLATE_OF = {gce.PROVIDER_ID_PREFIX: "the MIG's instance template", "aws://": "the ASG's launch template",
               "azure://": "the scale set's VM profile"}


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

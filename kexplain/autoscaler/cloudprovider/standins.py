"""Stand-ins for the provider's template of a group found in the cluster (`TemplateNodeInfo`):
kexplain has no cloud API, so a node of the group (or of a sibling MIG of its GKE pool) as the
provider made it stands in, without what the node went through, saying where it came from
(`StandIn.origin`); CA's MixedTemplateNodeInfoProvider order: docs/internals/autoscaler.md."""
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

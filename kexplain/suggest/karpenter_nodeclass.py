"""A change to an EC2NodeClass: a subnet in the zone a pod needs.

A type is offered only in zones its class has a subnet in, so a pod requiring another zone fails
even where the type is sold; the change sets `status.subnets` (what the pass reads, as the
EC2NodeClass controller lists it) to include the account's subnet there (`describe-subnets`)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from kexplain.karpenter.apis.labels import LABEL_TOPOLOGY_ZONE, LABEL_TOPOLOGY_ZONE_ID
from kexplain.karpenter.aws.nodeclass import default_status_subnets
from kexplain.karpenter.inputs import EC2NODECLASS
from kexplain.karpenter.utils import resources
from kexplain.suggest.change import Candidate, pointer
from kexplain.suggest.karpenter_context import Idea, KarpenterContext, Pool, Want, takes, total_requests

ID = "karpenter-nodeclass"
ADD_SUBNET = "add-subnet"
KINDS = (ADD_SUBNET,)


def add_subnet(ctx: KarpenterContext, want: Want) -> list[Idea]:
    zone = want.requirements.get(LABEL_TOPOLOGY_ZONE) if want.requirements.has(LABEL_TOPOLOGY_ZONE) else None
    zone_id = want.requirements.get(LABEL_TOPOLOGY_ZONE_ID) if want.requirements.has(LABEL_TOPOLOGY_ZONE_ID) else None
    if zone is None and zone_id is None:
        return []
    world = ctx.run.cloud.world
    out = []
    for pool in ctx.pools:
        view = ctx.run.cloud.node_class_of(pool.obj)
        if view is None or takes(pool, want):
            continue
        have = {z.zone for z in view.zone_info()}
        offered: dict[str, None] = {}
        for subnet in world.subnets:
            if subnet.zone in have or subnet.zone in offered:
                continue
            if (zone is not None and not zone.has(subnet.zone)) or (zone_id is not None and not zone_id.has(subnet.zone_id)):
                continue
            if pool.requirements.has(LABEL_TOPOLOGY_ZONE) and not pool.requirements.get(LABEL_TOPOLOGY_ZONE).has(subnet.zone):
                continue
            if not _sold_with_room(pool, want, world, subnet.zone):
                continue
            offered[subnet.zone] = None
            out.append(_idea(ctx, pool, subnet))
    return out


def _sold_with_room(pool: Pool, want: Want, world: Any, zone: str) -> bool:
    total = total_requests(pool, want)
    return any(zone in world.offerings.get(it.name, ()) and resources.fits(total, it.allocatable())
               for it in pool.instance_types)


def _idea(ctx: KarpenterContext, pool: Pool, subnet: Any) -> Idea:
    name = pool.node_pool.spec.template.spec.node_class_ref.name
    node_class = next(c for c in ctx.run.inputs.node_classes if c.name == name)
    if node_class.status.subnets is not None:
        current = [{"id": s.id, "zone": s.zone, "zoneID": s.zone_id} for s in node_class.status.subnets]
    else:
        current = default_status_subnets(ctx.run.cloud.world, ctx.run.inputs.settings.zones)
    new = {"id": subnet.id, "zone": subnet.zone, "zoneID": subnet.zone_id}
    op = {"op": "add", "object": {"kind": EC2NODECLASS, "name": name}, "path": pointer("status", "subnets"),
          "value": [*current, new]}
    return Idea(Candidate(ADD_SUBNET, f"EC2NodeClass {name}",
                          f"EC2NodeClass {name}: a subnet in zone {subnet.zone} (e.g. {subnet.id}, selected by "
                          f"spec.subnetSelectorTerms; NodePool {pool.name} uses the class)", (op,)), pool.name)


FAMILIES: Sequence[Callable[[KarpenterContext, Want], list[Idea]]] = (add_subnet,)

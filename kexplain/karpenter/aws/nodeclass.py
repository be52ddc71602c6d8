"""The EC2NodeClass status the pass starts from where the input leaves it out (the EC2NodeClass
controller's discovery does not run)."""
from __future__ import annotations

from typing import Iterable

from kexplain.karpenter.aws.world import World

DEFAULT_ZONES = ("test-zone-1a", "test-zone-1b", "test-zone-1c")   # params.zones' default


def default_zones(world: World) -> list[str]:
    """The zones whose subnets a class gets when params.zones is not given."""
    zones = world.zones()
    return list(DEFAULT_ZONES) if set(DEFAULT_ZONES) <= set(zones) else zones


def default_status_subnets(world: World, zones: Iterable[str] | None = None) -> list[dict[str, str]]:
    """status.subnets: `{id, zone, zoneID}` for every subnet in the zones, in the world's order."""
    wanted = set(default_zones(world) if zones is None else zones)
    return [{"id": s.id, "zone": s.zone, "zoneID": s.zone_id} for s in world.subnets if s.zone in wanted]

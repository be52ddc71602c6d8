"""The instance-type catalog kexplain ships for when `--aws-data` is not given (`data/catalog.json.gz`,
written by tools/karpenter_aws_catalog.py from the AWS provider's public data)."""
from __future__ import annotations

import gzip
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

from kexplain.karpenter.aws.ec2 import InstanceTypeInfo, read_instance_types
from kexplain.karpenter.aws.pricing import FALLBACK_REGION, Pricing, static_pricing
from kexplain.karpenter.aws.tables import VPCLimits, read_bandwidth, read_vpc_limits
from kexplain.load import json_parse

CATALOG_FILE = "catalog.json.gz"


@dataclass(frozen=True)
class Catalog:
    """The shipped data: instance types, static prices per region, the provider's tables, the
    reference allocatable per type, the sources and the date taken."""

    instance_types: tuple[InstanceTypeInfo, ...]
    prices_by_region: Mapping[str, Mapping[str, float]]
    vpc_limits: Mapping[str, VPCLimits]
    bandwidth: Mapping[str, int]
    reference: Mapping[str, Mapping[str, str]]
    taken: str
    source: Mapping[str, Any]
    assumptions: tuple[str, ...]
    left_out: tuple[str, ...]

    def pricing(self, region: str) -> Pricing:
        """The pricing provider's initial state for the region."""
        own = region in self.prices_by_region
        return static_pricing(self.prices_by_region, region,
                              source=f"static on-demand prices for {region if own else FALLBACK_REGION}"
                                     f"{'' if own else f' (no static list for {region})'}; spot = on-demand")

    def description(self) -> str:
        """One line for the output: what the data is and when it was taken."""
        commit = str(self.source.get("commit", ""))[:12]
        return (f"kexplain's AWS instance-type catalog, taken {self.taken} from "
                f"{self.source.get('repository', '')} {commit}")


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The shipped catalog, read once."""
    raw = json_parse.loads(gzip.decompress(resources.files(__package__).joinpath("data", CATALOG_FILE).read_bytes()))
    return Catalog(
        instance_types=tuple(read_instance_types({"InstanceTypes": raw["InstanceTypes"]})),
        prices_by_region={region: dict(prices) for region, prices in raw["onDemandPrices"].items()},
        vpc_limits=read_vpc_limits(raw["vpcLimits"]),
        bandwidth=read_bandwidth(raw["networkBandwidth"]),
        reference=raw.get("reference", {}),
        taken=raw["taken"],
        source=raw["source"],
        assumptions=tuple(raw.get("assumptions", ())),
        left_out=tuple(raw.get("leftOut", {}).get("types", ())),
    )

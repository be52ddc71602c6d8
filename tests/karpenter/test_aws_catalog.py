"""The shipped catalog (kexplain.karpenter.aws.catalog) as a second world of our own: another
region, a thousand types, other prices, through the same reader and resolution as --aws-data.
Its types' allocatable is checked against Karpenter's own generated reference (kept in the
catalog), the prices against the catalog's static lists."""
from __future__ import annotations

import re

import pytest

from kexplain.karpenter.aws.catalog import load_catalog
from kexplain.karpenter.aws.document import instance_types_key
from kexplain.karpenter.aws.ec2 import Subnet
from kexplain.karpenter.aws.instancetype.instancetype import InstanceTypeProvider, StaticNodeClass, zone_info
from kexplain.karpenter.aws.world import catalog_world
from kexplain.karpenter.cloudprovider.document import instance_type_document, resource_list_document

POD_ENI = "vpc.amazonaws.com/pod-eni"


def listed(region: str, family: str = "AL2023", subnets=None) -> dict:
    world = catalog_world(region, subnets)
    subnet_status = [{"id": s.id, "zone": s.zone, "zoneID": s.zone_id} for s in world.subnets]
    node_class = StaticNodeClass("default", family=family, zones=tuple(zone_info(subnet_status)))
    types, err = InstanceTypeProvider(world).list(node_class)
    assert err is None
    return {it.name: it for it in types}


def test_the_catalog_says_what_it_is_and_when_it_was_taken():
    catalog = load_catalog()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", catalog.taken)
    assert catalog.taken in catalog.description() and "karpenter-provider-aws" in catalog.description()
    assert len(catalog.instance_types) > 1000
    assert {"us-east-1", "us-gov-west-1", "cn-north-1"} <= set(catalog.prices_by_region)
    assert catalog_world("us-east-1").taken == catalog.taken


def test_m5_large_in_us_east_1_as_the_worked_example_computes_it():
    catalog = load_catalog()
    m5 = listed("us-east-1")["m5.large"]
    doc = instance_type_document(m5)
    assert doc["capacity"] == {"cpu": "2", "ephemeral-storage": "20Gi", "memory": "7577Mi", "pods": "29", POD_ENI: "9"}
    assert doc["kubeReserved"] == {"cpu": "70m", "ephemeral-storage": "1Gi", "memory": "574Mi"}
    assert doc["evictionThreshold"] == {"ephemeral-storage": "2.147483648e+09", "memory": "100Mi"}
    assert doc["allocatable"] == {"cpu": "1930m", "ephemeral-storage": "17Gi", "memory": "6903Mi", "pods": "29",
                                  POD_ENI: "9"}
    price = catalog.prices_by_region["us-east-1"]["m5.large"]
    zones = ["us-east-1a", "us-east-1b", "us-east-1c"]
    assert doc["offerings"] == [f"{z} {ct} {price:g}" for z in zones for ct in ("on-demand", "spot")]
    assert m5.requirements.get("topology.kubernetes.io/region").values() == ["us-east-1"]


def test_other_regions_other_prices():
    catalog = load_catalog()
    gov = catalog.prices_by_region["us-gov-west-1"]
    name = next(n for n in ("m5.large", "m5.xlarge", "c5.large") if n in gov)
    assert gov[name] != catalog.prices_by_region["us-east-1"][name]
    it = listed("us-gov-west-1", subnets=[Subnet("subnet-1", "us-gov-west-1a", "usgw1-az1")])[name]
    cheapest = min(it.offerings.available(), key=lambda o: o.price)
    assert cheapest.price == gov[name] and cheapest.zone() == "us-gov-west-1a"
    assert it.requirements.get("topology.k8s.aws/zone-id").values() == ["usgw1-az1"]
    # a region without its own static list prices as us-east-1, as the provider does
    assert catalog.pricing("eu-west-1").on_demand_price("m5.large") == catalog.prices_by_region["us-east-1"]["m5.large"]
    assert "us-east-1" in catalog.pricing("eu-west-1").source


def test_types_without_a_price_have_no_available_offering():
    catalog = load_catalog()
    cn = catalog.prices_by_region["cn-north-1"]
    types = listed("cn-north-1")
    unpriced = [it for name, it in types.items() if name not in cn]
    assert unpriced and not any(o.available for it in unpriced for o in it.offerings)
    assert all(o.available for name in list(cn)[:20] if name in types for o in types[name].offerings)


def test_a1_types_do_not_run_al2023():
    assert not any(o.available for o in listed("us-east-1")["a1.large"].offerings)
    assert all(o.available for o in listed("us-east-1", family="AL2")["a1.large"].offerings)


def test_every_catalog_type_matches_karpenters_reference():
    """Karpenter's generated reference gives each type's resources after overhead (AL2023, the
    default flags); the catalog keeps it. The VPC-limits table is newer than the reference for a
    few types (pod ENIs the reference does not list yet): those are the only differences allowed."""
    catalog = load_catalog()
    types = listed("us-east-1")
    assert set(types) == set(catalog.reference)
    newer = 0
    for name, it in types.items():
        got = resource_list_document(it.allocatable(), drop_zero=True)
        want = dict(catalog.reference[name])
        if POD_ENI not in want and POD_ENI in got:
            got.pop(POD_ENI)
            newer += 1
        assert got == want, name
    assert newer < 50


def test_the_document_for_a_catalog_world():
    world = catalog_world("us-west-2")
    node_class = StaticNodeClass("general", zones=tuple(zone_info(
        [{"id": s.id, "zone": s.zone, "zoneID": s.zone_id} for s in world.subnets])))
    key = instance_types_key([node_class], InstanceTypeProvider(world))
    names = [t["name"] for t in key["general"]]
    assert names == sorted(names) and len(names) == len(load_catalog().instance_types)
    gpu = next(t for t in key["general"] if t["name"] == "g5.12xlarge")
    assert gpu["capacity"]["nvidia.com/gpu"] == "4"


@pytest.mark.parametrize("region", ["us-east-1", "ap-southeast-2"])
def test_default_subnets_are_the_regions_zones_a_b_c(region):
    world = catalog_world(region)
    assert world.zones() == [f"{region}a", f"{region}b", f"{region}c"]

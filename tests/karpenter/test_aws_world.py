"""`--aws-data DIR` (kexplain.karpenter.aws.world.load_world): the AWS CLI's JSON read as the
provider reads EC2's answers, one clear error naming the file and the member for bad data, and
the provider's own tables and static prices where the optional files are left out."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kexplain.errors import InputError
from kexplain.karpenter.aws.world import load_world
from kexplain.karpenter.aws.nodeclass import default_status_subnets

AWS = Path(__file__).resolve().parent / "cases" / "aws-max-pods-0023" / "aws"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    out = tmp_path / "aws"
    shutil.copytree(AWS, out)
    for f in out.iterdir():
        f.chmod(0o644)
    return out


def edit(path: Path, change) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def error(directory: Path) -> str:
    with pytest.raises(InputError) as err:
        load_world(directory)
    assert err.value.exit_code == 2
    return str(err.value)


def test_the_shared_world():
    world = load_world(AWS)
    assert world.region == "us-west-2" and len(world.instance_types) == 17
    assert world.offerings["m5.large"] == {"test-zone-1a", "test-zone-1b", "test-zone-1c", "test-zone-1a-local"}
    assert world.offerings["inf2.xlarge"] == {"test-zone-1a"}
    assert "t4g.small" not in world.offerings and "test-zone-1a-local" in world.all_zones
    assert world.pricing.on_demand_price("m5.large") == 0.096
    assert world.pricing.spot_price("m5.large", "test-zone-1b") == 0.096
    assert world.pricing.spot_price("m5.large", "nowhere") is None
    assert world.vpc_limits["m5.large"].branch_interface == 9 and world.bandwidth["m5.large"] == 750


def test_status_defaults_take_the_subnets_of_the_zones():
    world = load_world(AWS)
    assert [s["id"] for s in default_status_subnets(world)] == ["subnet-test1", "subnet-test2", "subnet-test3"]
    assert default_status_subnets(world, ["test-zone-1c", "test-zone-1a"]) == [
        {"id": "subnet-test1", "zone": "test-zone-1a", "zoneID": "tstz1-1a"},
        {"id": "subnet-test3", "zone": "test-zone-1c", "zoneID": "tstz1-1c"}]


def test_malformed_json_names_the_file(data: Path):
    (data / "describe-subnets.json").write_text("{not json")
    text = error(data)
    assert "describe-subnets.json" in text and "not valid JSON" in text


def test_a_missing_member_is_named(data: Path):
    edit(data / "describe-instance-types.json", lambda d: d["InstanceTypes"][1]["VCpuInfo"].pop("DefaultVCpus"))
    text = error(data)
    assert "describe-instance-types.json" in text
    assert "InstanceTypes[1].VCpuInfo.DefaultVCpus: missing (expected an integer)" in text


def test_a_member_of_the_wrong_type_is_named(data: Path):
    edit(data / "describe-instance-types.json", lambda d: d["InstanceTypes"][0]["MemoryInfo"].update(SizeInMiB="big"))
    assert "InstanceTypes[0].MemoryInfo.SizeInMiB: expected an integer, got the string 'big'" in error(data)


def test_bad_pricing_and_tables_are_named(data: Path):
    edit(data / "pricing.json", lambda d: d["onDemand"].update({"m5.large": "cheap"}))
    assert "pricing.json: onDemand.m5.large: expected a number" in error(data)


def test_a_default_card_index_out_of_range(data: Path):
    edit(data / "describe-instance-types.json",
         lambda d: d["InstanceTypes"][0]["NetworkInfo"].update(DefaultNetworkCardIndex=3))
    assert "InstanceTypes[0].NetworkInfo.DefaultNetworkCardIndex: 3 does not index NetworkCards" in error(data)


def test_a_missing_required_file(data: Path):
    (data / "describe-instance-type-offerings.json").unlink()
    text = error(data)
    assert "describe-instance-type-offerings.json" in text and "cannot read" in text


def test_not_a_directory(tmp_path: Path):
    assert "--aws-data must name a directory" in error(tmp_path / "nowhere")


def test_types_the_provider_does_not_discover_are_dropped(data: Path):
    def change(d):
        d["InstanceTypes"][0]["SupportedVirtualizationTypes"] = ["paravirtual"]
        d["InstanceTypes"][1]["ProcessorInfo"]["SupportedArchitectures"] = ["i386"]
    edit(data / "describe-instance-types.json", change)
    world = load_world(data)
    assert len(world.instance_types) == 15


def test_without_the_optional_files_the_provider_s_own_data_stands_in(data: Path):
    """pricing.json, the two tables and world.json left out: the static prices (us-east-1's list,
    which the test world's prices are), the compiled tables, the region from the zones."""
    full = load_world(AWS)
    for name in ("pricing.json", "vpc-limits.json", "network-bandwidth.json", "world.json"):
        (data / name).unlink()
    world = load_world(data)
    assert world.region == "test-zone-1"
    for name in full.instance_types:
        assert world.pricing.on_demand_price(name) == full.pricing.on_demand_price(name), name
        assert world.pricing.spot_price(name, "test-zone-1a") == full.pricing.on_demand_price(name), name
        assert world.vpc_limits[name] == full.vpc_limits[name], name
        assert world.bandwidth[name] == full.bandwidth[name], name


def test_keep_instance_types(data: Path):
    world = load_world(data).keep_instance_types(["inf2.xlarge", "t4g.small"])
    assert sorted(world.instance_types) == ["inf2.xlarge", "t4g.small"] and sorted(world.offerings) == ["inf2.xlarge"]
    assert world.all_zones == {"test-zone-1a"}

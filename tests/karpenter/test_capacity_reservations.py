"""Capacity reservations: an EC2NodeClass's `status.capacityReservations` (read by their JSON
names, as `kubectl get ec2nodeclass -o yaml` shows them) make the reserved offerings of
pkg/providers/instancetype/offering (price = on-demand / 10,000,000; available while the
reservation has free instances, its zone is one of the type's and it is not expiring) and the
type's reservation requirements (types.go); the free counts come from the AWS data's optional
`describe-capacity-reservations.json`, as the capacity-reservation provider's availability cache
is filled from DescribeCapacityReservations, a reservation absent from it counting 0."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.errors import AdmissionRejected, InputError
from kexplain.karpenter.apis.ec2nodeclass import parse_ec2_node_class
from kexplain.karpenter.aws.instancetype.instancetype import InstanceTypeProvider
from kexplain.karpenter.aws.nodeclass import default_status_subnets
from kexplain.karpenter.aws.world import load_world
from kexplain.karpenter.run import node_class_view
from tests.support.cli_helpers import run_cli

AWS = Path(__file__).resolve().parent / "cases" / "sched-aws"     # bundled: no ../shared needed
RESERVED = "reserved"
CR = "cr-0123abc"
M5_LARGE_OD = 0.096          # pricing.json's on-demand m5.large


def reservation(**over: Any) -> dict[str, Any]:
    """A status entry as the API server stores it (camelCase)."""
    out = {"availabilityZone": "test-zone-1b", "id": CR, "instanceMatchCriteria": "targeted",
           "instanceType": "m5.large", "ownerID": "123456789012", "reservationType": "default", "state": "active"}
    out.update(over)
    return {k: v for k, v in out.items() if v is not None}


def node_class(*reservations: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
            "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "R",
                     "subnetSelectorTerms": [{"tags": {"a": "b"}}],
                     "securityGroupSelectorTerms": [{"tags": {"a": "b"}}]},
            "status": {"capacityReservations": list(reservations)}}


def aws_data(tmp_path: Path, counts: list[dict[str, Any]] | None) -> Path:
    """The bundled AWS data, with a describe-capacity-reservations.json of `counts` (None: none)."""
    out = tmp_path / "aws"
    shutil.copytree(AWS, out)
    if counts is not None:
        (out / "describe-capacity-reservations.json").write_text(json.dumps({"CapacityReservations": counts}))
    return out


def count(n: int, rid: str = CR, **over: Any) -> dict[str, Any]:
    return {"CapacityReservationId": rid, "AvailableInstanceCount": n, "TotalInstanceCount": 3,
            "InstanceType": "m5.large", "AvailabilityZone": "test-zone-1b", "State": "active", **over}


def m5_large(tmp_path: Path, counts: list[dict[str, Any]] | None, *reservations: dict[str, Any],
             reserved_capacity: bool = True):
    world = load_world(aws_data(tmp_path, counts))
    view = node_class_view(parse_ec2_node_class(node_class(*reservations)), default_status_subnets(world))
    types, err = InstanceTypeProvider(world, reserved_capacity=reserved_capacity).list(view)
    assert err is None
    return next(t for t in types if t.name == "m5.large")


def reserved_offerings(it) -> list:
    return [o for o in it.offerings if o.capacity_type() == RESERVED]


# -- the provider ----------------------------------------------------------------------------------
def test_a_counted_reservation_makes_an_available_reserved_offering(tmp_path: Path):
    it = m5_large(tmp_path, [count(2)], reservation())
    [o] = reserved_offerings(it)
    assert o.available and o.reservation_capacity == 2 and o.zone() == "test-zone-1b"
    assert o.price == M5_LARGE_OD / 10_000_000
    assert o.reservation_id() == CR
    assert o.requirements.get("karpenter.k8s.aws/capacity-reservation-type").values() == ["default"]
    assert o.requirements.get("karpenter.k8s.aws/capacity-reservation-interruptible").values() == ["false"]
    assert o.requirements.get("topology.k8s.aws/zone-id").values() == ["tstz1-1b"]
    # the type's own requirements (computeRequirements): the reserved capacity type and the reservation labels
    assert RESERVED in it.requirements.get("karpenter.sh/capacity-type").values()
    assert it.requirements.get("karpenter.k8s.aws/capacity-reservation-id").values() == [CR]


def test_the_crd_defaults_fill_what_the_status_leaves_out(tmp_path: Path):
    it = m5_large(tmp_path, [count(1)], reservation(reservationType=None, state=None, interruptible=True))
    [o] = reserved_offerings(it)
    assert o.available
    assert o.requirements.get("karpenter.k8s.aws/capacity-reservation-type").values() == ["default"]
    assert o.requirements.get("karpenter.k8s.aws/capacity-reservation-interruptible").values() == ["true"]


def test_a_reservation_absent_from_the_counts_is_offered_but_not_available(tmp_path: Path):
    for counts in (None, [count(5, rid="cr-other")]):
        [o] = reserved_offerings(m5_large(tmp_path / str(counts is None), counts, reservation()))
        assert not o.available and o.reservation_capacity == 0


def test_no_free_instances_an_expiring_state_or_a_zone_of_no_subnet_make_it_unavailable(tmp_path: Path):
    [o] = reserved_offerings(m5_large(tmp_path / "zero", [count(0)], reservation()))
    assert not o.available
    [o] = reserved_offerings(m5_large(tmp_path / "expiring", [count(2)], reservation(state="expiring")))
    assert not o.available and o.reservation_capacity == 2
    # the default status subnets are in 1a, 1b, 1c: the local zone is not one of the type's zones
    local = reservation(availabilityZone="test-zone-1a-local")
    [o] = reserved_offerings(m5_large(tmp_path / "zone", [count(2)], local))
    assert not o.available


def test_a_reservation_ec2_would_not_list_as_active_counts_zero(tmp_path: Path):
    [o] = reserved_offerings(m5_large(tmp_path, [count(2, State="cancelled")], reservation()))
    assert not o.available and o.reservation_capacity == 0


def test_only_the_reservations_of_the_type_and_the_feature_gate(tmp_path: Path):
    other = reservation(id="cr-t3", instanceType="t3.large", availabilityZone="test-zone-1c")
    it = m5_large(tmp_path / "other", [count(2), count(2, rid="cr-t3")], reservation(), other)
    assert [o.reservation_id() for o in reserved_offerings(it)] == [CR]
    assert it.requirements.get("karpenter.k8s.aws/capacity-reservation-id").values() == [CR]
    # ReservedCapacity off: no reserved offering (the type's requirements still name the reservation, as Go's do)
    it = m5_large(tmp_path / "gate", [count(2)], reservation(), reserved_capacity=False)
    assert reserved_offerings(it) == []
    assert it.requirements.get("karpenter.k8s.aws/capacity-reservation-id").values() == [CR]


# -- --aws-data's describe-capacity-reservations.json ------------------------------------------------
def test_the_counts_file_is_read_by_id(tmp_path: Path):
    world = load_world(aws_data(tmp_path, [count(2), count(0, rid="cr-1"), count(4, rid="cr-2", State="expired")]))
    assert world.reservation_counts == {CR: 2, "cr-1": 0}
    assert load_world(AWS).reservation_counts == {}


@pytest.mark.parametrize("entry, message", [
    ({"CapacityReservationId": CR, "AvailableInstanceCount": "two"},
     "CapacityReservations[0].AvailableInstanceCount: expected an integer, got the string 'two'"),
    ({"CapacityReservationId": CR}, "CapacityReservations[0].AvailableInstanceCount: missing (expected an integer)"),
    ({"AvailableInstanceCount": 1}, "CapacityReservations[0].CapacityReservationId: missing (expected a string)"),
    ({"CapacityReservationId": CR, "AvailableInstanceCount": -1},
     "CapacityReservations[0].AvailableInstanceCount: a count cannot be negative (-1)"),
])
def test_a_bad_counts_file_is_an_input_error_naming_file_and_member(tmp_path: Path, entry, message):
    with pytest.raises(InputError) as err:
        load_world(aws_data(tmp_path, [entry]))
    assert err.value.exit_code == 2
    assert "describe-capacity-reservations.json" in str(err.value) and message in str(err.value)


# -- whole passes ----------------------------------------------------------------------------------
POOL = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "reserved"},
        "spec": {"template": {"spec": {
            "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": [RESERVED]}],
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}


def pods(n: int, cpu: str = "1500m") -> list[dict[str, Any]]:
    """`n` pods each needing a whole m5.large (2 vCPUs; 1930m allocatable)."""
    return [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"web-{i}", "namespace": "default"},
             "spec": {"containers": [{"name": "app", "image": "nginx",
                                      "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]}}
            for i in range(1, n + 1)]


def run_pass(tmp_path: Path, counts: list[dict[str, Any]] | None, n: int, params: dict[str, Any] | None = None,
             entry: dict[str, Any] | None = None) -> tuple[int, dict[str, Any], str]:
    aws = aws_data(tmp_path, counts)
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(pods(n)))
    (tmp_path / "nodepools.yaml").write_text(yaml.safe_dump_all([POOL, node_class(entry or reservation())]))
    argv = ["karpenter", str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "nodepools.yaml"),
            "--aws-data", str(aws), "-o", "json"]
    if params is not None:
        (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
        argv += ["--karpenter-config", str(tmp_path / "params.yaml")]
    code, out, err = run_cli(*argv)
    return code, (json.loads(out) if out.strip() else {}), err


def test_a_reserved_nodepool_launches_into_the_reservation_while_it_has_room(tmp_path: Path):
    code, doc, _ = run_pass(tmp_path, [count(1)], 2)
    [claim] = doc["nodeClaims"]
    assert claim["instanceTypes"] == ["m5.large"] and claim["prices"] == ["0.0000000096"]
    reqs = {r["key"]: r.get("values") for r in claim["requirements"]}
    assert reqs["karpenter.k8s.aws/capacity-reservation-id"] == [CR]
    assert reqs["karpenter.sh/capacity-type"] == [RESERVED]
    results = {p["pod"]: p["result"] for p in doc["pods"]}
    # one free instance: the first pod gets it, the second finds the reservation taken
    assert sorted(results.values()) == ["Failed", "NewNodeClaim"]
    assert code == 1
    code, doc, _ = run_pass(tmp_path / "two", [count(2)], 2)
    assert code == 0 and len(doc["nodeClaims"]) == 2


@pytest.mark.parametrize("counts, entry, reasons", [
    ([count(0)], reservation(), ["reservationFull"]),
    (None, reservation(), ["reservationNotCounted"]),
    ([count(2)], reservation(state="expiring"), ["reservationExpiring"]),
    ([count(0)], reservation(availabilityZone="test-zone-1a-local", state="expiring"),
     ["noSubnet", "reservationFull", "reservationExpiring"]),
])
def test_without_free_instances_no_nodeclaim_and_the_reason(tmp_path: Path, counts, entry, reasons):
    code, doc, _ = run_pass(tmp_path, counts, 1, entry=entry)
    assert code == 1 and doc["nodeClaims"] == [] and doc["pods"][0]["result"] == "Failed"
    [pool] = doc["explained"]["nodePools"]
    [unavailable] = pool["offerings"]["unavailable"]
    assert unavailable["capacityTypes"] == [RESERVED] and unavailable["reasons"] == reasons


def test_the_reserved_capacity_gate_off_leaves_the_reservation_unused(tmp_path: Path):
    code, doc, _ = run_pass(tmp_path / "on", [count(2)], 1, {"featureGates": "ReservedCapacity=true"})
    assert code == 0 and len(doc["nodeClaims"]) == 1
    code, doc, _ = run_pass(tmp_path / "off", [count(2)], 1, {"featureGates": "ReservedCapacity=false"})
    assert code == 1 and doc["nodeClaims"] == []


def test_a_bad_counts_file_exits_as_other_bad_aws_data(tmp_path: Path):
    code, _, err = run_pass(tmp_path, [{"CapacityReservationId": CR, "AvailableInstanceCount": "two"}], 1)
    shutil.rmtree(tmp_path / "aws")
    (tmp_path / "bad").mkdir()
    bad_subnets = aws_data(tmp_path / "bad", None)
    (bad_subnets / "describe-subnets.json").write_text(json.dumps({"Subnets": [{"SubnetId": 3}]}))
    other, _, other_err = run_cli("karpenter", str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "nodepools.yaml"),
                                  "--aws-data", str(bad_subnets), "-o", "json")
    assert code == other == 2
    assert "describe-capacity-reservations.json: CapacityReservations[0].AvailableInstanceCount: " \
           "expected an integer, got the string 'two'" in err
    assert "Traceback" not in err and other_err.startswith("error: ") and err.startswith("error: ")


def test_the_status_entries_are_checked_as_the_crd_checks_them():
    """A snake_case member is an unknown field, a missing required one or a bad state refuses the
    class: never a reservation silently matching nothing."""
    for entry, words in ((reservation(instanceType=None, instance_type="m5.large"),
                          'unknown field "status.capacityReservations[0].instance_type"'),
                         (reservation(instanceType=None),
                          "status.capacityReservations[0].instanceType: Required value"),
                         (reservation(state="gone"),
                          'status.capacityReservations[0].state: Unsupported value: "gone"')):
        with pytest.raises((InputError, AdmissionRejected)) as err:
            parse_ec2_node_class(node_class(entry), invalid="refuse")
        assert err.value.exit_code == 2 and words in str(err.value)

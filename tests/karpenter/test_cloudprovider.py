"""Karpenter's pkg/cloudprovider/types.go helpers (kexplain.karpenter.cloudprovider.types): the
order by price, compatibility through available offerings, minValues and truncation with Go's
texts, allocatable, and the document's offering strings."""
from __future__ import annotations

import pytest

from kexplain.apimachinery.labels import LABEL_TOPOLOGY_ZONE
from kexplain.apimachinery.quantity import must_parse
from kexplain.apimachinery.selectors import IN
from kexplain.karpenter.apis.labels import CAPACITY_TYPE_LABEL_KEY, LABEL_INSTANCE_FAMILY
from kexplain.karpenter.cloudprovider.document import instance_type_document, offering_text, offerings_document
from kexplain.karpenter.cloudprovider.types import (MAX_FLOAT64, InstanceType, InstanceTypeOverhead, InstanceTypes,
                                                    MIN_VALUES_POLICY_BEST_EFFORT, Offering, Offerings, format_price)
from kexplain.karpenter.utils.resources import merge, subtract
from kexplain.karpenter.scheduling.requirement import new_requirement
from kexplain.karpenter.scheduling.requirements import new_requirements

ZONE_A, ZONE_B = "zone-a", "zone-b"


def offering(zone: str, capacity_type: str, price: float, available: bool = True) -> Offering:
    return Offering(new_requirements(new_requirement(CAPACITY_TYPE_LABEL_KEY, IN, capacity_type),
                                     new_requirement(LABEL_TOPOLOGY_ZONE, IN, zone)), price, available)


def itype(name: str, *offerings: Offering, family: str = "m5", capacity: dict | None = None) -> InstanceType:
    return InstanceType(name, new_requirements(new_requirement(LABEL_INSTANCE_FAMILY, IN, family)),
                        Offerings(offerings), {k: must_parse(v) for k, v in (capacity or {}).items()})


def zone(z: str):
    return new_requirements(new_requirement(LABEL_TOPOLOGY_ZONE, IN, z))


def test_order_by_price_takes_each_types_cheapest_available_compatible_offering():
    cheap_elsewhere = itype("a", offering(ZONE_B, "spot", 0.01), offering(ZONE_A, "on-demand", 0.30))
    unavailable_cheap = itype("b", offering(ZONE_A, "spot", 0.02, available=False), offering(ZONE_A, "spot", 0.20))
    mid = itype("c", offering(ZONE_A, "on-demand", 0.10))
    none = itype("d", offering(ZONE_B, "on-demand", 0.05))
    its = InstanceTypes([cheap_elsewhere, unavailable_cheap, mid, none])
    assert [it.name for it in its.order_by_price(zone(ZONE_A))] == ["c", "b", "a", "d"]
    assert none.cheapest_price(zone(ZONE_A)) == MAX_FLOAT64
    assert [it.name for it in InstanceTypes([mid, none, cheap_elsewhere]).order_by_price(new_requirements())] == \
        ["a", "d", "c"]


def test_offerings_helpers():
    ofs = Offerings([offering(ZONE_A, "on-demand", 0.3), offering(ZONE_A, "spot", 0.1), offering(ZONE_B, "spot", 0.2),
                     offering(ZONE_B, "spot", 0.05, available=False)])
    assert [o.price for o in ofs.available()] == [0.3, 0.1, 0.2]
    assert ofs[0].zone() == ZONE_A and ofs[0].capacity_type() == "on-demand"


def test_the_type_index_lists_each_types_available_reserved_offerings_in_order():
    from kexplain.karpenter.provisioning.scheduling.typeindex import TypeIndex
    first, second = offering(ZONE_B, "reserved", 0.2), offering(ZONE_A, "reserved", 0.1)
    it = itype("a", offering(ZONE_A, "on-demand", 0.3), first, offering(ZONE_A, "reserved", 0.05, available=False),
               offering(ZONE_A, "spot", 0.1), second)
    index = TypeIndex()
    assert index.reserved(it) == [first, second] and index.reserved(it)[0] is first
    assert index.reserved(itype("b", offering(ZONE_A, "spot", 0.1))) == []


def test_questions_sharing_an_index_answer_as_each_types_requirements_do():
    """A type's compatibility is remembered per (requirement on a key, the type's requirement on
    it) across the questions of one index: each answer is still `Intersects`'s."""
    from kexplain.karpenter.provisioning.scheduling.typeindex import TypeIndex
    its = [itype("a", family="m5"), itype("b", family="c6"), itype("c", family="r7")]
    asks = [new_requirements(), new_requirements(new_requirement(LABEL_INSTANCE_FAMILY, IN, "m5", "c6")),
            new_requirements(new_requirement(LABEL_INSTANCE_FAMILY, "NotIn", "m5")),
            new_requirements(new_requirement(LABEL_INSTANCE_FAMILY, IN, "c6", "m5")),
            new_requirements(new_requirement(LABEL_INSTANCE_FAMILY, IN, "m5", "c6", min_values=2),
                             new_requirement(LABEL_TOPOLOGY_ZONE, IN, ZONE_A)),
            new_requirements(new_requirement(LABEL_INSTANCE_FAMILY, "DoesNotExist"))]
    index = TypeIndex()
    for reqs in [*asks, *reversed(asks)]:
        question = index.question(reqs)
        assert [question.compatible(it) for it in its] == [it.requirements.intersects(reqs) is None for it in its]


def test_a_question_asks_each_set_of_available_offerings_once_with_go_s_answer():
    from kexplain.karpenter.provisioning.scheduling.typeindex import TypeIndex
    from kexplain.karpenter.scheduling.requirements import ALLOW_UNDEFINED_WELL_KNOWN_LABELS
    its = [itype("a", offering(ZONE_A, "spot", 0.1), offering(ZONE_B, "on-demand", 0.2)),
           itype("b", offering(ZONE_B, "on-demand", 0.3), offering(ZONE_A, "spot", 0.4)),    # a's set, other order
           itype("c", offering(ZONE_A, "spot", 0.1, available=False), offering(ZONE_B, "spot", 0.2)),
           itype("d", offering(ZONE_A, "on-demand", 0.1, available=False)), itype("e")]
    index = TypeIndex()
    assert index.available_id(its[0]) == index.available_id(its[1]) != index.available_id(its[2])
    for reqs in (new_requirements(), zone(ZONE_A), zone(ZONE_B), zone("zone-c"),
                 new_requirements(new_requirement(CAPACITY_TYPE_LABEL_KEY, IN, "on-demand"))):
        question = index.question(reqs)
        assert [question.has_offering(it) for it in its] == [
            any(o.available and reqs.is_compatible(o.requirements, ALLOW_UNDEFINED_WELL_KNOWN_LABELS)
                for o in it.offerings) for it in its]


def min_values(n: int, *families: str):
    return new_requirements(new_requirement(LABEL_INSTANCE_FAMILY, IN, *families, min_values=n))


def test_satisfies_min_values_counts_the_types_needed():
    its = InstanceTypes([itype("a1", family="a"), itype("a2", family="a"), itype("b1", family="b"), itype("c1", family="c")])
    assert its.satisfies_min_values(new_requirements()) == (0, None, None)
    assert its.satisfies_min_values(min_values(2, "a", "b", "c"))[:2] == (3, None)
    needed, short, err = its.satisfies_min_values(min_values(4, "a", "b", "c"))
    assert (needed, short) == (4, {LABEL_INSTANCE_FAMILY: 3})
    assert str(err) == ("minValues requirement is not met for label(s) "
                        "(label(s)=[karpenter.k8s.aws/instance-family])")


def test_truncate_keeps_the_cheapest_and_refuses_to_break_min_values():
    its = InstanceTypes([itype("b1", offering(ZONE_A, "spot", 0.3), family="b"),
                         itype("a1", offering(ZONE_A, "spot", 0.1), family="a"),
                         itype("a2", offering(ZONE_A, "spot", 0.2), family="a")])
    kept, err = its.truncate(new_requirements(), 2)
    assert err is None and [it.name for it in kept] == ["a1", "a2"]
    kept, err = its.truncate(min_values(2, "a", "b"), 2)
    assert str(err) == ("validating minValues, minValues requirement is not met for label(s) "
                        "(label(s)=[karpenter.k8s.aws/instance-family])")
    assert [it.name for it in kept] == ["a1", "a2", "b1"]          # the whole list, sorted by price
    kept, err = its.truncate(min_values(2, "a", "b"), 2, MIN_VALUES_POLICY_BEST_EFFORT)
    assert err is None and [it.name for it in kept] == ["a1", "a2"]


def test_allocatable_is_capacity_less_the_overhead_and_hugepages():
    it = itype("x", capacity={"cpu": "2", "memory": "7577Mi", "ephemeral-storage": "20Gi", "pods": "29",
                              "hugepages-2Mi": "1Gi"})
    it.overhead = InstanceTypeOverhead(
        kube_reserved={"cpu": must_parse("70m"), "memory": must_parse("574Mi"), "ephemeral-storage": must_parse("1Gi")},
        eviction_threshold={"memory": must_parse("100Mi"), "ephemeral-storage": must_parse("2.147483648e+09")})
    got = {k: str(v) for k, v in it.allocatable().items()}
    assert got == {"cpu": "1930m", "memory": "5879Mi", "ephemeral-storage": "17Gi", "pods": "29", "hugepages-2Mi": "1Gi"}
    doc = instance_type_document(it)
    assert doc["evictionThreshold"] == {"ephemeral-storage": "2.147483648e+09", "memory": "100Mi"}
    assert "systemReserved" not in doc and doc["offerings"] == []


def test_merge_takes_the_first_terms_format_and_subtract_keeps_the_lefts():
    total = merge({"e": must_parse("1Gi")}, {}, {"e": must_parse("2.147483648e+09")})
    assert str(total["e"]) == "3Gi"
    assert str(subtract({"e": must_parse("20Gi"), "pods": must_parse("29")}, total)["e"]) == "17Gi"
    assert str(merge({"e": must_parse("2.147483648e+09")})["e"]) == "2147483648"   # Add drops the kept text


@pytest.mark.parametrize("price,text", [(0.096, "0.096"), (13.10904, "13.10904"), (0.0832, "0.0832"),
                                        (2.0, "2"), (1e-05, "0.00001"), (4.608, "4.608"), (0.0000096, "0.0000096")])
def test_prices_print_as_format_float_f(price, text):
    assert format_price(price) == text


def test_offerings_document_lists_available_then_unavailable_each_sorted():
    ofs = [offering(ZONE_B, "spot", 0.5), offering(ZONE_A, "spot", 0.5, available=False), offering(ZONE_A, "on-demand", 0.5)]
    assert offering_text(ofs[1]) == "zone-a spot 0.5 unavailable"
    assert offerings_document(ofs) == ["zone-a on-demand 0.5", "zone-b spot 0.5", "zone-a spot 0.5 unavailable"]

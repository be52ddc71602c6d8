"""The type index's whole answers (`TypeIndex.filtered`, `ordered`), remembered per answer key:
NodeClaims that differ only in their hostname get the answers worked out for the first, and
each answer is the one worked out afresh; once a type or offering names the hostname, nothing
is remembered."""
from __future__ import annotations

from kexplain.apimachinery.labels import LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE
from kexplain.apimachinery.quantity import must_parse
from kexplain.apimachinery.selectors import IN
from kexplain.karpenter.apis.labels import CAPACITY_TYPE_LABEL_KEY, LABEL_INSTANCE_FAMILY
from kexplain.karpenter.cloudprovider.types import InstanceType, Offering, Offerings
from kexplain.karpenter.provisioning.scheduling.nodeclaim import filter_instance_types_by_requirements
from kexplain.karpenter.provisioning.scheduling.typeindex import TypeIndex
from kexplain.karpenter.scheduling.requirement import new_requirement
from kexplain.karpenter.scheduling.requirements import new_requirements

ZONES = ("zone-a", "zone-b")


def offering(zone: str, capacity_type: str, price: float, available: bool = True, *extra) -> Offering:
    return Offering(new_requirements(new_requirement(CAPACITY_TYPE_LABEL_KEY, IN, capacity_type),
                                     new_requirement(LABEL_TOPOLOGY_ZONE, IN, zone), *extra), price, available)


def itype(name: str, family: str, cpu: str, *offerings: Offering) -> InstanceType:
    capacity = {"cpu": must_parse(cpu), "memory": must_parse("8Gi"), "pods": must_parse("110")}
    return InstanceType(name, new_requirements(new_requirement(LABEL_INSTANCE_FAMILY, IN, family)),
                        Offerings(offerings), capacity)


def catalog() -> list[InstanceType]:
    return [itype("m-large", "m5", "2", offering("zone-a", "spot", 0.3), offering("zone-b", "on-demand", 0.5)),
            itype("m-xlarge", "m5", "4", offering("zone-a", "on-demand", 0.4, False), offering("zone-b", "spot", 0.2)),
            itype("c-large", "c6", "2", offering("zone-a", "on-demand", 0.2)),
            itype("c-xlarge", "c6", "4", offering("zone-b", "spot", 0.2), offering("zone-a", "spot", 0.25)),
            itype("r-large", "r7", "2", offering("zone-b", "on-demand", 0.7))]


def claim_requirements(hostname: str, *extra):
    return new_requirements(new_requirement(LABEL_HOSTNAME, IN, hostname), *extra)


ASKS = [(), (new_requirement(LABEL_TOPOLOGY_ZONE, IN, "zone-a"),),
        (new_requirement(LABEL_INSTANCE_FAMILY, IN, "c6", "r7"), new_requirement(CAPACITY_TYPE_LABEL_KEY, IN, "spot")),
        (new_requirement(LABEL_INSTANCE_FAMILY, IN, "x9"),)]


def filtered(index: TypeIndex, its, reqs, cpu: str):
    total = {"cpu": must_parse(cpu)}
    remaining, _, err = filter_instance_types_by_requirements(its, reqs, total, {}, total, False, None, index)
    return [it.name for it in remaining] if remaining is not None else None, str(err) if err else None


def test_claims_differing_in_their_hostname_share_answers_equal_to_fresh_ones():
    its = catalog()
    shared = TypeIndex()
    for n, extra in enumerate(ASKS * 2):
        for cpu in ("1", "3", "9"):
            reqs = claim_requirements(f"hostname-placeholder-{n:04d}", *extra)
            assert filtered(shared, its, reqs, cpu) == filtered(TypeIndex(), its, reqs, cpu)
            fresh = TypeIndex().question(reqs)
            question = shared.question(reqs)
            assert question.cheapest_prices(its) == fresh.cheapest_prices(its)
            assert question.capacity_types(its) == fresh.capacity_types(its)
            assert [it.name for it in question.order_by_price(list(its))] == \
                [it.name for it in fresh.order_by_price(list(its))]
    assert shared.filtered and shared.ordered       # (remembered: the second round asked them)


def test_an_error_is_the_askers_own():
    """Flags are remembered, the error is made anew: its requests are the asker's (a NodeClaim
    holding other pods asks with the same total and other pod requests)."""
    its, index = catalog(), TypeIndex()
    reqs = claim_requirements("h", new_requirement(LABEL_INSTANCE_FAMILY, IN, "x9"))
    total = {"cpu": must_parse("3")}
    texts = []
    for pod in ("1", "3"):
        _, _, err = filter_instance_types_by_requirements(its, reqs, {"cpu": must_parse(pod)}, {}, total, False,
                                                          None, index)
        texts.append(str(err))
    assert texts == ['no instance type met all requirements, requirements=karpenter.k8s.aws/instance-family '
                     'In [x9], resources={"cpu":"1"}', 'no instance type met all requirements, '
                     'requirements=karpenter.k8s.aws/instance-family In [x9], resources={"cpu":"3"}']
    assert len(index.filtered) == 1


def test_nothing_is_remembered_once_an_offering_names_the_hostname():
    its = [*catalog(), itype("pinned", "m5", "8", offering("zone-a", "spot", 0.01, True,
                                                          new_requirement(LABEL_HOSTNAME, IN, "h1")))]
    index = TypeIndex()
    for hostname in ("h1", "h2"):
        reqs = claim_requirements(hostname)
        assert filtered(index, its, reqs, "6") == filtered(TypeIndex(), its, reqs, "6")
        assert index.question(reqs).cheapest_prices(its) == TypeIndex().question(reqs).cheapest_prices(its)
    assert index.answer_key(claim_requirements("h1")) is None and not index.filtered and not index.ordered

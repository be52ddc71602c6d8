"""The Configuration's `resources` (kexplain/kueue/workload/requests.py): excluded resources are not
counted, transformations turn requests into what is counted against quota, v0.17.8's way and v0.19's."""
from __future__ import annotations

from fractions import Fraction

import pytest
import yaml

from kexplain.kueue.config import Resources, Transformation
from kexplain.kueue.workload.requests import InfoOptions
from tests.kueue.builders import cluster_queue, flavor, local_queue, run, workload

MIG = "nvidia.com/mig-1g"
MEM = "example.com/accelerator-memory"


def config(**resources) -> str:
    return yaml.safe_dump({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
                           "resources": resources})


def usage(done, key: str = "default/w") -> dict[str, str]:
    wl = done.workloads[key]
    assert wl.admission is not None, [c.message for c in wl.conditions]
    return {k: str(q) for k, q in wl.admission.pod_set_assignments[0].resource_usage.items()}


def test_an_excluded_resource_is_not_counted() -> None:
    """A resource no ClusterQueue covers stops admission, unless its prefix is excluded."""
    docs = [flavor("default"), cluster_queue("cq", {"default": {"cpu": "4"}}), local_queue("q", "cq")]
    w = workload("w", "q", {"cpu": "1", "example.com/nic": "1"}, count=2)
    without = run(*docs, submitted=(w,))
    assert without.workloads["default/w"].admission is None
    done = run(*docs, config(excludeResourcePrefixes=["example.com/"]), submitted=(w,))
    assert usage(done) == {"cpu": "2"}


@pytest.mark.parametrize(("strategy", "expected"), [
    ("Replace", {"cpu": "2", MEM: "10737418240"}),        # (an extended resource: a count)
    ("Retain", {"cpu": "2", MEM: "10737418240", MIG: "2"}),
])
def test_a_transformation_counts_its_outputs(strategy, expected) -> None:
    covered = {"cpu": "4", MEM: "20Gi", **({MIG: "4"} if strategy == "Retain" else {})}
    docs = [flavor("default"), cluster_queue("cq", {"default": covered}), local_queue("q", "cq"),
            config(transformations=[{"input": MIG, "strategy": strategy, "outputs": {MEM: "5Gi"}}])]
    done = run(*docs, submitted=(workload("w", "q", {"cpu": "1", MIG: "1"}, count=2),))
    assert usage(done) == expected


def test_outputs_beyond_the_quota_do_not_fit() -> None:
    docs = [flavor("default"), cluster_queue("cq", {"default": {"cpu": "4", MEM: "8Gi"}}), local_queue("q", "cq"),
            config(transformations=[{"input": MIG, "strategy": "Replace", "outputs": {MEM: "5Gi"}}])]
    done = run(*docs, submitted=(workload("w", "q", {"cpu": "1", MIG: "1"}, count=2),))
    cond = done.workloads["default/w"].find("QuotaReserved")
    assert cond.status == "False" and f"insufficient quota for {MEM} in flavor default" in cond.message


RETAIN_BY = Resources(transformations=(Transformation(MIG, "Retain", "cpu", ((MEM, Fraction(2)),)),))
NEGATIVE = Resources(transformations=(Transformation(MIG, "Replace", "", (("cpu", Fraction(-1)),)),))


@pytest.mark.parametrize(("resources", "summed", "expected"), [
    # v0.17.8: multiplyBy scales the retained input too; v0.19 keeps it as asked
    (RETAIN_BY, False, {"cpu": Fraction(3), MIG: Fraction(6), MEM: Fraction(12)}),
    (RETAIN_BY, True, {"cpu": Fraction(3), MIG: Fraction(2), MEM: Fraction(12)}),
    # an output of an input's name: v0.17.8 writes one over the other (here the input, later); v0.19 sums,
    # a negative total output counting zero
    (NEGATIVE, False, {"cpu": Fraction(3)}),
    (NEGATIVE, True, {"cpu": Fraction(3)}),
])
def test_each_release_applies_them_its_way(resources, summed, expected) -> None:
    requests = {MIG: Fraction(2), "cpu": Fraction(3)}
    assert dict(InfoOptions(resources, summed).effective(requests)) == expected


def test_v0_19_sums_an_output_with_a_request_of_its_name() -> None:
    resources = Resources(transformations=(Transformation(MIG, "Replace", "", (("cpu", Fraction(1, 2)),)),))
    requests = {MIG: Fraction(2), "cpu": Fraction(3)}
    assert InfoOptions(resources, True).effective(requests) == {"cpu": Fraction(4)}
    assert InfoOptions(resources, False).effective(requests) == {"cpu": Fraction(3)}

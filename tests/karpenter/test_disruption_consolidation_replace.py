"""The scenarios of the "Replace" context of Karpenter v1.13.0's `pkg/controllers/disruption/consolidation_test.go`
(replace on-demand and spot nodes, the SpotToSpotConsolidation gate, its 15 cheaper types and the truncation
of the replacement, the price rules and their Unconsolidatable events) as one disruption pass each over files
typed with the AWS data's instance types. Each expectation is the Go test's assertion, checked against the
vendored consolidation.go (computeConsolidation, computeSpotToSpotConsolidation) on these inputs."""
from __future__ import annotations

import pytest

from tests.karpenter.test_disruption_consolidation_delete_multi import (DND, SHARED_AWS, acted, document, managed,
                                                                        messages, name_of, node_pool, pod)

pytestmark = pytest.mark.skipif(not SHARED_AWS.is_dir(), reason=f"{SHARED_AWS} is not present (a clone outside "
                                "the project's workspace)")
SPOT_GATE = {"featureGates": "SpotToSpotConsolidation=true"}


def test_can_replace_an_on_demand_node_with_a_cheaper_one(tmp_path):
    doc = document(tmp_path, [*managed(1, "m5.xlarge"), pod("web-0", 1)])
    assert acted(doc) == ("SingleNodeConsolidation", "replace", [name_of(1)])


def test_wont_replace_the_cheapest_on_demand_node(tmp_path):
    """t3.large is the cheapest type the NodePool allows: no cheaper replacement."""
    doc = document(tmp_path, [*managed(1, "t3.large"), pod("web-0", 1)])
    assert acted(doc) == (None, None, [])
    assert messages(doc, "Unconsolidatable")[f"Node {name_of(1)}"] == "Can't replace with a cheaper node"


def test_spot_to_spot_is_refused_without_the_gate(tmp_path):
    doc = document(tmp_path, [*managed(1, "m5.xlarge", ct="spot"), pod("web-0", 1)],
                   [node_pool(capacity_types=("spot",))])
    assert acted(doc) == (None, None, [])
    assert messages(doc, "Unconsolidatable")[f"Node {name_of(1)}"] == (
        "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node")


def test_spot_to_spot_needs_15_cheaper_types(tmp_path):
    """Three families leave 2 spot types cheaper than an m5.xlarge: fewer than 15."""
    doc = document(tmp_path, [*managed(1, "m5.xlarge", ct="spot"), pod("web-0", 1)],
                   [node_pool(capacity_types=("spot",))], params=SPOT_GATE)
    assert acted(doc) == (None, None, [])
    message = messages(doc, "Unconsolidatable")[f"Node {name_of(1)}"]
    assert message.startswith("SpotToSpotConsolidation requires 15 cheaper instance type options than the current "
                              "candidate to consolidate, got ")


@pytest.mark.parametrize("archs, got", [(("amd64",), 3), (("amd64", "arm64"), 4)])
def test_spot_to_spot_counts_the_cheaper_types_that_fit(tmp_path, archs, got):
    """The AWS data holds 17 types: any family leaves 3 amd64 spot types cheaper than an m5.xlarge (t3.large,
    m7i-flex.large, m5.large) and one more arm64 one (c6g.large: the t4g types are sold in no zone); never 15,
    so the 15-type truncation of the replacement cannot show here, only the count in the refusal."""
    pool = node_pool(capacity_types=("spot",), families=None)
    pool["spec"]["template"]["spec"]["requirements"][0]["values"] = list(archs)
    doc = document(tmp_path, [*managed(1, "m5.xlarge", ct="spot"), pod("web-0", 1)], [pool], params=SPOT_GATE)
    assert acted(doc) == (None, None, [])
    assert messages(doc, "Unconsolidatable")[f"Node {name_of(1)}"] == (
        "SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to "
        f"consolidate, got {got}")


def test_a_do_not_disrupt_pod_blocks_the_replace(tmp_path):
    doc = document(tmp_path, [*managed(1, "m5.xlarge"), pod("web-0", 1, annotations=DND)])
    assert acted(doc) == (None, None, [])


def test_a_spot_node_whose_node_pool_also_allows_on_demand_is_still_spot_to_spot(tmp_path):
    """The replacement's requirements still allow spot: computeSpotToSpotConsolidation decides, gate off."""
    doc = document(tmp_path, [*managed(1, "m5.xlarge", ct="spot"), pod("web-0", 1)],
                   [node_pool(capacity_types=("on-demand", "spot"))])
    assert acted(doc) == (None, None, [])
    assert messages(doc, "Unconsolidatable")[f"Node {name_of(1)}"] == (
        "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node")


def test_an_on_demand_node_may_be_replaced_by_spot(tmp_path):
    doc = document(tmp_path, [*managed(1, "m5.xlarge"), pod("web-0", 1)],
                   [node_pool(capacity_types=("on-demand", "spot"))])
    assert acted(doc) == ("SingleNodeConsolidation", "replace", [name_of(1)])
    claim, = doc["decision"]["commands"][0]["replacements"]
    # filtered by price assuming spot launches, so the replacement is held to spot
    assert claim["capacityTypes"] == ["spot"]
    assert claim["instanceTypes"] == ["t3.large", "m7i-flex.large", "m5.large"]


def test_replace_with_another_node_pool_without_instance_types(tmp_path):
    """A second NodePool whose requirements no type meets does not stop the replace."""
    empty = node_pool("empty", extra=[{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                       "values": ["no-such-type"]}])
    doc = document(tmp_path, [*managed(1, "m5.xlarge"), pod("web-0", 1)], [node_pool(), empty])
    assert acted(doc) == ("SingleNodeConsolidation", "replace", [name_of(1)])


def test_a_node_level_do_not_disrupt_blocks_the_replace(tmp_path):
    doc = document(tmp_path, [*managed(1, "m5.xlarge", node_meta={"annotations": DND}), pod("web-0", 1)])
    assert acted(doc) == (None, None, [])


def test_a_blocking_pdb_stops_the_replace(tmp_path):
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"app": "web"}}}}
    doc = document(tmp_path, [*managed(1, "m5.xlarge"), pod("web-0", 1), pdb])
    assert acted(doc) == (None, None, [])


def test_a_pdb_in_another_namespace_does_not_block(tmp_path):
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "other"},
           "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"app": "web"}}}}
    doc = document(tmp_path, [*managed(1, "m5.xlarge"), pod("web-0", 1), pdb])
    assert acted(doc) == ("SingleNodeConsolidation", "replace", [name_of(1)])


def test_a_pdb_with_always_allow_lets_an_unhealthy_pod_go(tmp_path):
    """unhealthyPodEvictionPolicy AlwaysAllow: a not-ready pod may be evicted despite a zero budget."""
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"maxUnavailable": 0, "unhealthyPodEvictionPolicy": "AlwaysAllow",
                    "selector": {"matchLabels": {"app": "web"}}}}
    sick = pod("web-0", 1)
    sick["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    doc = document(tmp_path, [*managed(1, "m5.xlarge"), sick, pdb])
    assert acted(doc) == ("SingleNodeConsolidation", "replace", [name_of(1)])


MIN_TYPES_4 = [{"key": "node.kubernetes.io/instance-type", "operator": "Exists", "minValues": 4}]


@pytest.mark.parametrize("ct, params", [("on-demand", None), ("spot", SPOT_GATE)])
def test_price_filtering_that_breaks_min_values_is_an_event(tmp_path, ct, params):
    """Three types are cheaper than an m5.xlarge, minValues asks for 4: RemoveInstanceTypeOptionsByPriceAndMinValues
    fails, on either path (the spot path checks it before the 15 types)."""
    doc = document(tmp_path, [*managed(1, "m5.xlarge", ct=ct), pod("web-0", 1)],
                   [node_pool(capacity_types=(ct,), extra=MIN_TYPES_4)], params=params)
    assert acted(doc) == (None, None, [])
    assert messages(doc, "Unconsolidatable")[f"Node {name_of(1)}"] == (
        "Filtering by price: minValues requirement is not met for label(s) "
        "(label(s)=[node.kubernetes.io/instance-type])")


def test_price_filtering_that_keeps_min_values_replaces(tmp_path):
    families = [{"key": "karpenter.k8s.aws/instance-family", "operator": "Exists", "minValues": 3}]
    doc = document(tmp_path, [*managed(1, "m5.xlarge"), pod("web-0", 1)], [node_pool(extra=families)])
    assert acted(doc) == ("SingleNodeConsolidation", "replace", [name_of(1)])


def test_the_cheapest_spot_node_has_no_cheaper_spot_replacement(tmp_path):
    doc = document(tmp_path, [*managed(1, "t3.large", ct="spot"), pod("web-0", 1)],
                   [node_pool(capacity_types=("spot",))], params=SPOT_GATE)
    assert acted(doc) == (None, None, [])
    assert messages(doc, "Unconsolidatable")[f"Node {name_of(1)}"] == "Can't replace with a cheaper node"

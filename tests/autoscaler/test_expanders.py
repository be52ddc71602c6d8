"""The expanders and their chain, on hand-built options whose answers follow CA's expander/ code."""
from __future__ import annotations

from typing import Any

import pytest

from kexplain.autoscaler.expander import Option
from kexplain.autoscaler.expander.factory import accepted_names, build
from kexplain.autoscaler.expander.least_nodes import LeastNodes
from kexplain.autoscaler.expander.least_waste import LeastWaste, requested, wasted_score
from kexplain.autoscaler.expander.most_pods import MostPods
from kexplain.autoscaler.expander.priority import Priority, parse_priorities, PriorityConfigError
from kexplain.autoscaler.nodegroups import NodeGroup
from kexplain.errors import InputError, Source
from kexplain.model.nodeinfo import Node, NodeInfo
from tests.support.resources_helpers import container, pod


def group(name: str) -> NodeGroup:
    return NodeGroup(name, 0, 10, None, {"eks.amazonaws.com/nodegroup": name})


def template(capacity: dict[str, Any], allocatable: dict[str, Any] | None = None) -> NodeInfo:
    return NodeInfo(Node.from_obj({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "t"},
                                   "status": {"capacity": capacity, "allocatable": allocatable or capacity}}))


def option(name: str, count: int, *pods_requests: dict[str, Any]) -> Option:
    return Option(group(name), count, tuple(pod(r) for r in pods_requests))


def names(options) -> list[str]:
    return [o.node_group.name for o in options]


# -- most-pods, least-nodes ---------------------------------------------------------------------
def test_most_pods_keeps_every_option_with_the_most_pods():
    opts = [option("a", 1, {"cpu": "1"}), option("b", 2, {"cpu": "1"}, {"cpu": "1"}),
            option("c", 3, {"cpu": "1"}, {"cpu": "1"})]
    assert names(MostPods().best_options(opts, {})) == ["b", "c"]
    assert MostPods().best_options([], {}) == []


def test_most_pods_keeps_podless_options_when_none_has_a_pod():
    opts = [Option(group("a"), 1, ()), Option(group("b"), 1, ())]
    assert names(MostPods().best_options(opts, {})) == ["a", "b"]


def test_least_nodes_skips_zero_counts():
    opts = [option("a", 0, {"cpu": "1"}), option("b", 3, {"cpu": "1"}), option("c", 2, {"cpu": "1"}),
            option("d", 2, {"cpu": "1"})]
    assert names(LeastNodes().best_options(opts, {})) == ["c", "d"]
    assert LeastNodes().best_options([option("a", 0, {"cpu": "1"})], {}) == []


# -- least-waste --------------------------------------------------------------------------------
def test_least_waste_reads_capacity_not_allocatable():
    # Capacity 4 cpu / 16Gi; allocatable much less. 3 cpu and 8Gi requested on one node:
    # wasted 1/4 cpu + 1/2 memory = 0.75 (allocatable would give 0 + 0.5).
    tpl = template({"cpu": "4", "memory": "16Gi"}, {"cpu": "3", "memory": "8Gi"})
    opt = option("a", 1, {"cpu": "2", "memory": "4Gi"}, {"cpu": "1", "memory": "4Gi"})
    assert wasted_score(opt, tpl) == 0.25 + 0.5


def test_least_waste_picks_lowest_and_keeps_exact_ties():
    infos = {"xlarge": template({"cpu": "4", "memory": "16Gi"}),
             "2xlarge": template({"cpu": "8", "memory": "32Gi"}),
             "big": template({"cpu": "16", "memory": "64Gi"})}
    reqs = ({"cpu": "3", "memory": "8Gi"}, {"cpu": "3", "memory": "8Gi"})
    opts = [option("big", 1, *reqs), option("xlarge", 2, *reqs), option("2xlarge", 1, *reqs)]
    # 2 x xlarge and 1 x 2xlarge: 8 cpu / 32Gi for 6 cpu / 16Gi, both 0.25 + 0.5; big wastes more.
    assert names(LeastWaste().best_options(opts, infos)) == ["xlarge", "2xlarge"]


def test_least_waste_skips_groups_without_template():
    infos = {"b": template({"cpu": "4", "memory": "16Gi"})}
    opts = [option("a", 1, {"cpu": "4", "memory": "16Gi"}), option("b", 1, {"cpu": "1"})]
    assert names(LeastWaste().best_options(opts, infos)) == ["b"]
    assert LeastWaste().best_options(opts[:1], infos) == []


def test_least_waste_counts_init_containers_and_overhead_as_the_scheduler_does():
    p = pod({"cpu": "500m", "memory": "1Gi"}, init=(container({"cpu": "2", "memory": "512Mi"}),),
            overhead={"cpu": "100m", "memory": "64Mi"})
    # max(0.5, 2) + 0.1 cpu; max(1Gi, 512Mi) + 64Mi memory
    assert requested([p]) == (2100, (1024 + 64) * 1024 * 1024)


def test_least_waste_sums_requests_before_rounding():
    # Three pods of 0.3333m each: CA adds the quantities, then rounds up once (1m, not 3m).
    p = [pod({"cpu": "0.0003333"}) for _ in range(3)]
    assert requested(p)[0] == 1


def test_least_waste_zero_capacity_score_is_nan_and_sticks_when_first():
    infos = {"a": template({"memory": "16Gi"}), "b": template({"cpu": "4", "memory": "16Gi"})}
    opts = [option("a", 1, {"memory": "8Gi"}), option("b", 1, {"cpu": "4", "memory": "16Gi"})]
    # a: 0/0 cpu is NaN in Go; a NaN first score is never beaten (comparisons with NaN are false)
    assert names(LeastWaste().best_options(opts, infos)) == ["a"]
    assert names(LeastWaste().best_options(opts[::-1], infos)) == ["b"]


# -- priority -----------------------------------------------------------------------------------
def configmap(priorities: str | None, namespace: str = "kube-system") -> dict[str, Any]:
    data = {} if priorities is None else {"priorities": priorities}
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cluster-autoscaler-priority-expander", "namespace": namespace}, "data": data}


OPTS = [option(n, 1, {"cpu": "1"}) for n in ("general-xlarge", "burst-medium", "burst-large", "gpu-12xlarge")]


def test_priority_keeps_highest_priority_groups_in_order():
    cm = configmap("10:\n  - .*\n50:\n  - burst-.*\n")
    verdict = Priority(cm).evaluate(OPTS, {})
    assert names(verdict.options) == ["burst-medium", "burst-large"]
    assert verdict.events == ()


def test_priority_matches_anywhere_in_the_id_and_drops_unmatched_groups():
    cm = configmap("5:\n  - large\n")
    verdict = Priority(cm).evaluate(OPTS, {})
    assert names(verdict.options) == ["general-xlarge", "burst-large", "gpu-12xlarge"]
    assert [(e.object, e.type, e.reason) for e in verdict.events] == [
        ("ConfigMap kube-system/cluster-autoscaler-priority-expander", "Warning", "PriorityConfigMapNotMatchedGroup")]
    assert verdict.events[0].message == ("Priority expander: node group burst-medium not found in priority "
                                         "expander configuration. The group won't be used.")


def test_priority_below_minus_one_never_wins():
    cm = configmap("-1:\n  - gpu\n-5:\n  - burst\n")
    assert names(Priority(cm).best_options(OPTS, {})) == ["gpu-12xlarge"]
    only_low = Priority(configmap("-5:\n  - .*\n")).evaluate(OPTS, {})
    assert names(only_low.options) == names(OPTS)
    assert [e.reason for e in only_low.events] == ["PriorityConfigMapNoGroupMatched"]


@pytest.mark.parametrize("text, reason", [
    (None, "PriorityConfigMapInvalid"),
    ("", "PriorityConfigMapInvalid"),
    ("10: [\"(\"]", "PriorityConfigMapInvalid"),
    ("ten: [a]", "PriorityConfigMapInvalid"),
    ("10: a", "PriorityConfigMapInvalid"),
    ("- a", "PriorityConfigMapInvalid"),
])
def test_priority_bad_configuration_keeps_every_option_with_a_warning(text, reason):
    verdict = Priority(configmap(text)).evaluate(OPTS, {})
    assert verdict.options == OPTS
    assert [e.reason for e in verdict.events] == [reason]
    assert verdict.events[0].message.endswith("Ignoring update.")


def test_priority_bad_configuration_messages_are_cas():
    assert Priority(configmap(None)).evaluate(OPTS, {}).events[0].message == (
        "Wrong configmap for priority expander, doesn't contain priorities key. Ignoring update.")
    assert Priority(configmap('10: ["a(", b]')).evaluate(OPTS, {}).events[0].message == (
        "Wrong configuration for priority expander: Can't compile regexp rule for priority 10 and rule a(: "
        "error parsing regexp: missing closing ): `a(`. Ignoring update.")


def test_priority_without_configmap_keeps_every_option_silently():
    verdict = Priority(None).evaluate(OPTS, {})
    assert verdict.options == OPTS and verdict.events == ()
    assert Priority(configmap("10: [x]")).evaluate([], {}).events == ()


def test_priority_keys_are_read_as_go_reads_them():
    # sigs.k8s.io/yaml sends keys as text (a float key as float32 %g), encoding/json reads an int.
    assert sorted(parse_priorities("'+7': [a]\n1000.0: [b]\n-3: [c]\n")) == [-3, 7, 1000]
    for bad in ("1.5: [a]", "1e6: [a]", "true: [a]", "'1 ': [a]", "9223372036854775808: [a]"):
        with pytest.raises(PriorityConfigError):
            parse_priorities(bad)


def test_priority_list_items_become_strings_and_null_matches_everything():
    progs = parse_priorities("10: [12, ~]\n")[10]
    assert [p.pattern for p in progs] == ["12", ""]
    assert names(Priority(configmap("10: [~]\n20: [nomatch]")).best_options(OPTS, {})) == names(OPTS)


def test_priority_uses_go_regexp_syntax():
    # \z is RE2's end of text; Python's re spells it \Z
    assert names(Priority(configmap("1: ['medium\\z']")).best_options(OPTS, {})) == ["burst-medium"]


# -- the chain and the factory ------------------------------------------------------------------
INFOS = {"a": template({"cpu": "4", "memory": "16Gi"}), "b": template({"cpu": "8", "memory": "32Gi"}),
         "c": template({"cpu": "4", "memory": "16Gi"})}


def test_chain_stops_at_the_first_single_option():
    opts = [option("a", 2, {"cpu": "3", "memory": "8Gi"}, {"cpu": "3", "memory": "8Gi"}),
            option("b", 1, {"cpu": "4", "memory": "8Gi"}, {"cpu": "4", "memory": "8Gi"}),
            option("c", 1, {"cpu": "3", "memory": "8Gi"})]
    # most-pods keeps a and b; least-waste then b (0 + 0.5 wasted against a's 0.25 + 0.5)
    choice = build("most-pods,least-waste").choose(opts, INFOS)
    assert choice.option is opts[1] and not choice.is_random
    assert [(s.expander, names(s.kept)) for s in choice.steps] == [("most-pods", ["a", "b"]), ("least-waste", ["b"])]
    assert build("most-pods,least-waste,least-nodes").choose(opts, INFOS).steps == choice.steps
    choice = build("least-nodes").choose(opts, INFOS)
    assert choice.is_random and names(choice.random_among) == ["b", "c"] and choice.option is opts[1]


def test_chain_names_a_random_tie_left_by_the_last_filter():
    reqs = ({"cpu": "3", "memory": "8Gi"}, {"cpu": "3", "memory": "8Gi"})
    opts = [option("a", 2, *reqs), option("b", 1, *reqs)]
    choice = build("least-waste").choose(opts, INFOS)
    assert choice.is_random and names(choice.random_among) == ["a", "b"]
    assert choice.option is opts[0]
    assert build("least-waste").best_option(opts, INFOS) is opts[0]


def test_random_expander_is_a_draw_among_all():
    opts = [option("a", 1, {"cpu": "1"}), option("b", 5, {"cpu": "1"})]
    choice = build("random").choose(opts, INFOS)
    assert names(choice.random_among) == ["a", "b"] and choice.steps == ()
    single = build("random").choose(opts[:1], INFOS)
    assert single.option is opts[0] and not single.is_random


def test_chain_with_no_option_left_chooses_nothing():
    choice = build("least-waste").choose([option("zz", 1, {"cpu": "1"})], INFOS)
    assert choice.option is None and not choice.is_random
    assert build("most-pods").choose([], INFOS).option is None


def test_chain_collects_priority_events():
    cm = configmap("10: [a]\n")
    opts = [option("a", 1, {"cpu": "1"}), option("b", 1, {"cpu": "1"})]
    choice = build("priority,least-waste", cm).choose(opts, INFOS)
    assert choice.option is opts[0]
    assert [e.reason for e in choice.events] == ["PriorityConfigMapNotMatchedGroup"]


@pytest.mark.parametrize("flag, message", [
    ("most-pods,most-pods", "Expander most-pods was specified multiple times, each expander must not be "
                            "specified more than once"),
    ("random,most-pods", "Expander most-pods came after an expander random that will always return only one "
                         "result, this is not allowed since most-pods will never be used"),
    ("least-waste, most-pods", "Expander  most-pods not supported (accepted: least-nodes, least-waste, most-pods, "
                               "priority, random)"),
    ("", "Expander  not supported (accepted: least-nodes, least-waste, most-pods, priority, random)"),
    ("price", "Expander price needs the cloud provider's prices, which kexplain does not have (accepted: "
              "least-nodes, least-waste, most-pods, priority, random)"),
])
def test_build_refuses_what_ca_refuses(flag, message):
    with pytest.raises(InputError) as err:
        build(flag, source=Source("params.yaml"))
    assert err.value.message == message
    assert str(err.value).startswith("params.yaml: expander: ")


def test_accepted_names():
    assert accepted_names() == ["least-nodes", "least-waste", "most-pods", "priority", "random"]


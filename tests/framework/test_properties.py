"""Properties of the scheduling engine over random but valid clusters (hypothesis).

Each example is a cluster that admission accepts: 1 to 8 nodes with labels (hostname, zone,
a disk type), taints and allocatable resources; up to 12 pods bound to them, with requests,
labels, host ports, pod (anti-)affinity and topology spread constraints; PriorityClasses;
and one pending pod with requests, a node selector, node affinity, tolerations, pod
(anti-)affinity, spread constraints and host ports; under one of a few scheduler
configurations, from a random round-robin position. Whatever the verdict, the trace must be
consistent with itself:

- `filter` (the scheduler's run, stopping at the first failing plugin) is, for every visited
  node, exactly the first failure of `filterAll` (every plugin on its own) in configured order;
- every Score plugin's normalized score is within 0..100, `weighted` = normalized x weight,
  and a node's `total` is the sum of its `weighted`;
- a pod that fits has `selectedNodes` among the feasible nodes (the best-scored ones), and
  `suggestedHost` among `selectedNodes`;
- the FailedScheduling message's histogram counts every reason of every node: parsed, it adds
  up to the nodes' reasons (one each for nodes the search never reached), so to at least the
  node count, `0/N` with N the cluster's node count;
- the trace renders as table, wide, json and yaml.

Budgets are fixed per test (`settings(max_examples=..., deadline=None)`), so CI runs the same
amount of work every time; `derandomize=True` makes every run check the same examples.
KEXPLAIN_PROPERTY_EXAMPLES=2000 runs a longer hunt.
"""
from __future__ import annotations

import io
import json
import os
import re
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kexplain.cli.explain import Output, write_trace
from kexplain.config import load_config
from kexplain.cli.env import Environment
from kexplain.errors import Source
from kexplain.explain.inputs import inputs_from_objects
from kexplain.explain.request import RunOptions
from kexplain.explain.run import explain
from kexplain.plugins import implements, known

PASSING = ("Success", "Skip")
ZONES = ("zone-a", "zone-b", "zone-c")
APPS = ("web", "db", "cache")
TOPOLOGY_KEYS = ("kubernetes.io/hostname", "topology.kubernetes.io/zone")
TAINT_KEYS = ("dedicated", "gpu", "spot")
PORTS = (80, 443, 8080)
CPU = ("100m", "250m", "500m", "1", "2", "3")
MEMORY = ("64Mi", "256Mi", "1Gi", "2Gi", "6Gi")

CONFIGS = {
    "default": None,
    "most-allocated": """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled: [{name: NodeResourcesFit, weight: 5}, {name: InterPodAffinity, weight: 3}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 2}, {name: memory, weight: 1}]
""",
    "requested-to-capacity-ratio": """
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      disabled: [{name: TaintToleration}]
      enabled: [{name: TaintToleration}]
    score:
      disabled: [{name: ImageLocality}, {name: NodeResourcesBalancedAllocation}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
        requestedToCapacityRatio:
          shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}
""",
}
PARSED_CONFIGS = {name: load_config(None if doc is None else yaml.safe_load(doc), implements=implements, known=known)
                  for name, doc in CONFIGS.items()}


# --- strategies ---------------------------------------------------------------------------------

def selector() -> st.SearchStrategy[dict[str, Any]]:
    labels = st.fixed_dictionaries({"matchLabels": st.fixed_dictionaries({"app": st.sampled_from(APPS)})})
    exprs = st.fixed_dictionaries({"matchExpressions": st.lists(st.one_of(
        st.fixed_dictionaries({"key": st.just("app"), "operator": st.sampled_from(["In", "NotIn"]),
                               "values": st.lists(st.sampled_from(APPS), min_size=1, max_size=2, unique=True)}),
        st.fixed_dictionaries({"key": st.sampled_from(["app", "tier"]),
                               "operator": st.sampled_from(["Exists", "DoesNotExist"])})), min_size=1, max_size=2)})
    return st.one_of(labels, exprs)


def affinity_term() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"labelSelector": selector(), "topologyKey": st.sampled_from(TOPOLOGY_KEYS)},
                                 optional={"namespaces": st.sampled_from([["default"], ["default", "other"]])})


def pod_affinity() -> st.SearchStrategy[dict[str, Any]]:
    required = st.lists(affinity_term(), min_size=1, max_size=2)
    preferred = st.lists(st.fixed_dictionaries({"weight": st.integers(1, 100), "podAffinityTerm": affinity_term()}),
                         min_size=1, max_size=2)
    block = st.fixed_dictionaries({}, optional={"requiredDuringSchedulingIgnoredDuringExecution": required,
                                                "preferredDuringSchedulingIgnoredDuringExecution": preferred})
    return st.fixed_dictionaries({}, optional={"podAffinity": block, "podAntiAffinity": block})


def node_affinity() -> st.SearchStrategy[dict[str, Any]]:
    expr = st.one_of(
        st.fixed_dictionaries({"key": st.just("topology.kubernetes.io/zone"), "operator": st.sampled_from(["In", "NotIn"]),
                               "values": st.lists(st.sampled_from(ZONES), min_size=1, max_size=2, unique=True)}),
        st.fixed_dictionaries({"key": st.just("disktype"), "operator": st.sampled_from(["Exists", "DoesNotExist"])}),
        st.fixed_dictionaries({"key": st.just("cores"), "operator": st.sampled_from(["Gt", "Lt"]),
                               "values": st.sampled_from([["2"], ["4"]])}))
    term = st.fixed_dictionaries({"matchExpressions": st.lists(expr, min_size=1, max_size=2)})
    by_name = st.fixed_dictionaries({"matchFields": st.builds(   # PreFilter narrows the nodes to visit
        lambda i: [{"key": "metadata.name", "operator": "In", "values": [f"node-{i}"]}], st.integers(1, 8))})
    required = st.fixed_dictionaries({"nodeSelectorTerms": st.one_of(st.lists(term, min_size=1, max_size=2),
                                                                     st.lists(by_name, min_size=1, max_size=2))})
    preferred = st.lists(st.fixed_dictionaries({"weight": st.integers(1, 100), "preference": term}),
                         min_size=1, max_size=2)
    return st.fixed_dictionaries({}, optional={"requiredDuringSchedulingIgnoredDuringExecution": required,
                                               "preferredDuringSchedulingIgnoredDuringExecution": preferred})


def spread_constraint() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"maxSkew": st.integers(1, 3), "topologyKey": st.sampled_from(TOPOLOGY_KEYS),
         "whenUnsatisfiable": st.sampled_from(["DoNotSchedule", "ScheduleAnyway"]),
         "labelSelector": selector()},
        optional={"nodeAffinityPolicy": st.sampled_from(["Honor", "Ignore"]),
                  "nodeTaintsPolicy": st.sampled_from(["Honor", "Ignore"])})


def container(with_ports: bool) -> st.SearchStrategy[dict[str, Any]]:
    requests = st.fixed_dictionaries({}, optional={"cpu": st.sampled_from(CPU), "memory": st.sampled_from(MEMORY)})
    ports = st.lists(st.fixed_dictionaries({"containerPort": st.sampled_from(PORTS), "hostPort": st.sampled_from(PORTS)}),
                     max_size=2, unique_by=lambda p: p["hostPort"]) if with_ports else st.just([])
    return st.builds(lambda req, pts: {"name": "c", "image": "nginx:1.27", "resources": {"requests": req},
                                       **({"ports": pts} if pts else {})}, requests, ports)


def toleration() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.fixed_dictionaries({"key": st.sampled_from(TAINT_KEYS), "operator": st.just("Exists")},
                              optional={"effect": st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"])}),
        st.fixed_dictionaries({"key": st.sampled_from(TAINT_KEYS), "operator": st.just("Equal"),
                               "value": st.sampled_from(["a", "b"])},
                              optional={"effect": st.sampled_from(["NoSchedule", "PreferNoSchedule"])}))


def pod_spec(node_names: list[str] | None) -> st.SearchStrategy[dict[str, Any]]:
    """A pod spec; bound to one of `node_names`, or pending when None."""
    pending = node_names is None
    optional: dict[str, st.SearchStrategy[Any]] = {
        "affinity": st.builds(lambda p, n: {**p, **({"nodeAffinity": n} if n and pending else {})},
                              pod_affinity(), node_affinity() if pending else st.just({})),
        "topologySpreadConstraints": st.lists(spread_constraint(), min_size=1, max_size=2,
                                              unique_by=lambda c: (c["topologyKey"], c["whenUnsatisfiable"])),
        "priorityClassName": st.sampled_from(["high", "low"]),
    }
    if pending:
        optional["nodeSelector"] = st.sampled_from([{"disktype": "ssd"}, {"topology.kubernetes.io/zone": "zone-a"}])
        optional["tolerations"] = st.lists(toleration(), min_size=1, max_size=3)
    required: dict[str, st.SearchStrategy[Any]] = {"containers": st.lists(container(True), min_size=1, max_size=2)
                                                   .map(_rename_containers)}
    if not pending:
        required["nodeName"] = st.sampled_from(node_names)
    return st.fixed_dictionaries(required, optional=optional)


def _rename_containers(containers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen_ports: set[int] = set()
    out = []
    for i, c in enumerate(containers):
        ports = [p for p in c.get("ports", []) if p["hostPort"] not in seen_ports]
        seen_ports.update(p["hostPort"] for p in ports)
        out.append({**c, "name": f"c{i}", **({"ports": ports} if ports else {})})
        if not ports:
            out[-1].pop("ports", None)
    return out


def pod(name: str, node_names: list[str] | None) -> st.SearchStrategy[dict[str, Any]]:
    labels = st.fixed_dictionaries({"app": st.sampled_from(APPS)}, optional={"tier": st.sampled_from(["fe", "be"])})
    namespace = st.sampled_from(["default", "default", "other"])
    return st.builds(lambda ns, lab, spec: {"apiVersion": "v1", "kind": "Pod",
                                            "metadata": {"name": name, "namespace": ns, "labels": lab},
                                            "spec": spec, **({} if node_names is None else
                                                             {"status": {"phase": "Running"}})},
                     namespace, labels, pod_spec(node_names))


def node(i: int) -> st.SearchStrategy[dict[str, Any]]:
    name = f"node-{i}"
    labels = st.builds(lambda zone, disk, cores: {"kubernetes.io/hostname": name, **zone, **disk, "cores": cores},
                       st.one_of(st.just({}), st.sampled_from(ZONES).map(lambda z: {"topology.kubernetes.io/zone": z})),
                       st.sampled_from([{}, {"disktype": "ssd"}, {"disktype": "hdd"}]),
                       st.sampled_from(["1", "2", "4", "8"]))
    taints = st.lists(st.fixed_dictionaries({"key": st.sampled_from(TAINT_KEYS),
                                             "effect": st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"])},
                                            optional={"value": st.sampled_from(["a", "b"])}),
                      max_size=2, unique_by=lambda t: (t["key"], t["effect"]))
    allocatable = st.fixed_dictionaries({"cpu": st.sampled_from(["1", "2", "4", "8"]),
                                         "memory": st.sampled_from(["2Gi", "4Gi", "8Gi"]),
                                         "pods": st.sampled_from(["3", "10", "110"])})
    images = st.lists(st.fixed_dictionaries({"names": st.just(["nginx:1.27"]),
                                             "sizeBytes": st.sampled_from([50_000_000, 500_000_000])}), max_size=1)
    return st.builds(lambda lab, tnt, alloc, img, cordoned: {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": lab},
        "spec": {"taints": tnt, **({"unschedulable": True} if cordoned else {})},
        "status": {"capacity": alloc, "allocatable": alloc, "images": img}},
        labels, taints, allocatable, images, st.sampled_from([False, False, False, False, True]))


PRIORITY_CLASSES = [
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": 10},
]


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    n_nodes = draw(st.integers(1, 8))
    nodes = [draw(node(i)) for i in range(1, n_nodes + 1)]
    names = [n["metadata"]["name"] for n in nodes]
    bound = [draw(pod(f"bound-{i}", names)) for i in range(draw(st.integers(0, 12)))]
    pending = draw(pod("pending", None))
    return {"nodes": nodes, "bound": bound, "pending": pending, "config": draw(st.sampled_from(sorted(CONFIGS))),
            "start_index": draw(st.integers(0, 2 * n_nodes)), "preemption": draw(st.booleans())}


def schedule(scenario: dict[str, Any]) -> dict[str, Any]:
    """The trace of the pending pod against the cluster, through admission as from files."""
    cluster = [(o, Source("cluster.yaml", i)) for i, o in
               enumerate([*PRIORITY_CLASSES, *scenario["nodes"], *scenario["bound"]], 1)]
    options = RunOptions(start_index=scenario["start_index"], preemption=scenario["preemption"])
    inputs = inputs_from_objects(scenario["pending"], Source("pod.yaml", 1), cluster, PARSED_CONFIGS[scenario["config"]])
    return explain(inputs, options).to_json()


EXAMPLES = int(os.environ.get("KEXPLAIN_PROPERTY_EXAMPLES", "50"))   # CI: 50; raise it for a longer hunt
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- properties ---------------------------------------------------------------------------------

@PROPERTY
@given(scenarios())
def test_filter_is_the_first_failure_of_filter_all(scenario):
    trace = schedule(scenario)
    filt, every = trace["filter"], trace["filterAll"]
    if filt is None:
        assert every is None
        return
    assert list(filt) == list(every), "filter and filterAll visit the same nodes"
    plugins = _configured(scenario, "filter")
    for node, status in filt.items():
        assert list(every[node]) == plugins, f"{node}: filterAll runs every Filter plugin in configured order"
        failures = [(p, s) for p, s in every[node].items() if s["code"] not in PASSING]
        if status["code"] == "Success":
            assert not failures, f"{node}: filter passed, filterAll failed {failures}"
        else:
            assert failures, f"{node}: filter failed ({status}), filterAll passed"
            plugin, first = failures[0]
            assert status == {"plugin": plugin, **first}, f"{node}: {status} != first failure {plugin} {first}"


@PROPERTY
@given(scenarios())
def test_scores_are_normalized_weighted_and_summed(scenario):
    trace = schedule(scenario)
    feasible = [n for n, s in (trace["filter"] or {}).items() if s["code"] == "Success"]
    if trace["score"] is None:
        assert len(feasible) < 2 or trace["result"]["status"] != "Scheduled"
        return
    assert sorted(trace["score"]) == sorted(feasible), "every feasible node is scored, and only those"
    for node, entry in trace["score"].items():
        for plugin, s in entry["plugins"].items():
            assert 0 <= s["normalized"] <= 100, f"{node} {plugin}: {s}"
            assert s["weighted"] == s["normalized"] * s["weight"], f"{node} {plugin}: {s}"
            assert s["weight"] >= 1
        assert entry["total"] == sum(s["weighted"] for s in entry["plugins"].values()), node


@PROPERTY
@given(scenarios())
def test_a_pod_that_fits_goes_to_a_best_feasible_node(scenario):
    trace = schedule(scenario)
    result = trace["result"]
    feasible = [n for n, s in (trace["filter"] or {}).items() if s["code"] == "Success"]
    if result["status"] != "Scheduled":
        assert not feasible or result["status"] == "Error"
        assert result["selectedNodes"] == [] and "suggestedHost" not in result
        return
    selected = result["selectedNodes"]
    assert selected and set(selected) <= set(feasible)
    assert selected == sorted(selected)
    assert result["suggestedHost"] in selected
    if trace["score"] is None:
        assert selected == feasible and len(feasible) == 1
    else:
        best = max(e["total"] for e in trace["score"].values())
        assert selected == sorted(n for n, e in trace["score"].items() if e["total"] == best)
    assert trace["postFilter"] is None


HISTOGRAM = re.compile(r"^0/(\d+) nodes are available: (.*?)\.(?: |$)")


@PROPERTY
@given(scenarios())
def test_failed_scheduling_histogram_counts_every_node(scenario):
    trace = schedule(scenario)
    result = trace["result"]
    if result["status"] != "Unschedulable" or trace["filter"] is None or result["message"].endswith(" ..."):
        return                                          # fits, or PreFilter said why for all nodes at once
    n_all = trace["search"]["numAllNodes"]
    match = HISTOGRAM.match(result["message"])
    assert match, result["message"]
    assert int(match.group(1)) == n_all
    counts = [int(item.split(" ", 1)[0]) for item in re.split(r", (?=\d+ )", match.group(2))]
    reasons = sum(len(s.get("reasons") or ()) for s in trace["filter"].values())
    unvisited = n_all - len(trace["filter"])          # outside PreFilter's narrowing: one reason each
    assert sum(counts) == reasons + unvisited, (result["message"], trace["filter"])
    assert sum(counts) >= n_all
    assert all(s["code"] != "Success" for s in trace["filter"].values())


@settings(max_examples=max(1, EXAMPLES * 2 // 5), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_every_output_format_renders(scenario):
    trace = schedule(scenario)
    for output in Output:
        out = io.StringIO()
        env = Environment(stdout=out, stderr=io.StringIO(), is_terminal=False, width=100)
        write_trace(env, trace, output)
        text = out.getvalue()
        assert text.strip(), output
        if output is Output.json:
            assert json.loads(text) == trace
        elif output is Output.yaml:
            assert yaml.safe_load(text) == trace
        else:
            assert trace["result"]["status"] in text


def _configured(scenario: dict[str, Any], point: str) -> list[str]:
    """The plugins of an extension point of the scenario's profile, in configured order."""
    return list(PARSED_CONFIGS[scenario["config"]].profile_for("default-scheduler").plugins[point])

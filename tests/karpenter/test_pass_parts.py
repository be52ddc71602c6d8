"""The parts of `kexplain karpenter`'s pass besides the requirements, the provider and topology:
the settings (params.py), resource lists with Go's quantity formats (utils/resources.py), what
the inputs leave out (inputs.py), the queue's order, preference relaxation, the cluster state
(state/), and Karpenter's own behaviour in small passes run through the command (limits, weights
and names, DaemonSet overhead, events), each checked against what Karpenter v1.13.0's code does.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.apimachinery.quantity import parse
from kexplain.cli.app import main
from kexplain.errors import InputError, Source
from kexplain.features.kube_version import resolve
from kexplain.karpenter.inputs import CLOCK, load_pass, object_uid
from kexplain.karpenter.params import FeatureGates, Offering, Settings, parse_settings
from kexplain.karpenter.provisioning.scheduling import preferences as prefs
from kexplain.karpenter.provisioning.scheduling.queue import Queue
from kexplain.karpenter.state.cluster import new_cluster
from kexplain.karpenter.utils import resources
from kexplain.model.pod import PodInfo
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

AWS = TESTS / "karpenter" / "cases" / "sched-aws"
SRC = Source("params.yaml")
KUBE = resolve("1.35", None)[0]

NODEPOOL = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"template": {"spec": {
                "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                                 {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}],
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}
NODECLASS = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
             "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole",
                      "subnetSelectorTerms": [{"tags": {"k": "v"}}], "securityGroupSelectorTerms": [{"tags": {"k": "v"}}]}}


def pod(name: str, cpu: str = "1", memory: str = "1Gi", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "nginx",
                                     "resources": {"requests": {"cpu": cpu, "memory": memory}}}], **spec}}


def node_pool(name: str, **spec: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(NODEPOOL))
    out["metadata"]["name"] = name
    out["spec"].update(spec)
    return out


def write(tmp: Path, name: str, objs: list[dict[str, Any]]) -> str:
    path = tmp / name
    path.write_text(yaml.safe_dump_all(objs))
    return str(path)


def run(tmp: Path, pods: list[dict[str, Any]], pools: list[dict[str, Any]], cluster: list[dict[str, Any]] = (),
        params: dict[str, Any] | None = None, output: str = "json") -> tuple[int, Any, str]:
    argv = ["karpenter", write(tmp, "pods.yaml", pods)]
    if cluster:
        argv += ["--nodes", write(tmp, "cluster.yaml", list(cluster))]
    argv += ["--nodes", write(tmp, "nodepools.yaml", [*pools, NODECLASS]), "--aws-data", str(AWS)]
    if params is not None:
        (tmp / "params.yaml").write_text(yaml.safe_dump(params))
        argv += ["--karpenter-config", str(tmp / "params.yaml")]
    env = TestEnvironment(width=200)
    code = main(argv + ["-o", output], env)
    return code, (json.loads(env.out) if output == "json" and env.out.strip() else env.out), env.err


def by_pod(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["pod"]: p for p in doc["pods"]}


# -- params.py ----------------------------------------------------------------------------------
def test_settings_defaults_are_karpenters_flags() -> None:
    s = parse_settings({}, SRC)
    assert s == Settings()
    assert s.feature_gates == FeatureGates(node_repair=False, reserved_capacity=True)
    assert (s.preference_policy, s.min_values_policy, s.cpu_requests) == ("Respect", "Strict", 1000)


def test_settings_read_every_key() -> None:
    s = parse_settings({"featureGates": "ReservedCapacity=false, NodeOverlay=true", "preferencePolicy": "Ignore",
                        "minValuesPolicy": "BestEffort", "cpuRequests": 2500, "vmMemoryOverheadPercent": 0.1,
                        "reservedENIs": 1, "instanceTypes": ["m5.large"], "zones": ["test-zone-1a"],
                        "unavailableOfferings": ["m5.large:test-zone-1a:spot"]}, SRC)
    assert not s.feature_gates.reserved_capacity and s.feature_gates.node_overlay
    assert s.cpu_requests == 2500
    assert s.unavailable_offerings == (Offering("m5.large", "test-zone-1a", "spot"),)
    assert parse_settings({"cpuRequests": 0}, SRC).cpu_requests == 1000      # Options.Parse: <= 0 is the default


@pytest.mark.parametrize("doc, words", [
    ({"zone": ["a"]}, "unknown key 'zone'"),
    ({"preferencePolicy": "Prefer"}, "preferencePolicy: expected Respect or Ignore"),
    ({"featureGates": "ReservedCapacity"}, "missing bool value for ReservedCapacity"),
    ({"featureGates": "ReservedCapacity=maybe"}, "invalid value of ReservedCapacity"),
    ({"cpuRequests": "1000m"}, "cpuRequests: expected an integer"),
    ({"vmMemoryOverheadPercent": 7.5}, "fraction in [0, 1)"),
    ({"unavailableOfferings": ["m5.large:test-zone-1a"]}, "instanceType:zone:capacityType"),
    ({"unavailableOfferings": ["m5.large:test-zone-1a:cheap"]}, "capacity type 'cheap'"),
    ([1, 2], "expected a mapping"),
])
def test_bad_settings_are_input_errors(doc: Any, words: str) -> None:
    with pytest.raises(InputError) as err:
        parse_settings(doc, SRC)
    assert words in str(err.value)


def test_settings_checked_against_the_world() -> None:
    s = parse_settings({"instanceTypes": ["m5.large", "m9.huge"]}, SRC)
    with pytest.raises(InputError, match="'m9.huge' is not an instance type"):
        s.check_world({"m5.large"}, {"z"})
    with pytest.raises(InputError, match="'z2' is not a zone"):
        parse_settings({"zones": ["z2"]}, SRC).check_world({"m5.large"}, {"z"})


def test_bad_settings_exit_2_naming_the_file(tmp_path: Path) -> None:
    code, _, err = run(tmp_path, [pod("a")], [NODEPOOL], params={"zones": ["test-zone-9z"]})
    assert code == 2 and "params.yaml" in err and "test-zone-9z" in err


# -- utils/resources.py ---------------------------------------------------------------------------
def q(text: str) -> Any:
    return parse(text)


def test_a_sum_takes_the_first_non_zero_format() -> None:
    assert resources.to_string(resources.merge({"memory": q("1Gi")}, {"memory": q("1024")})) == '{"memory":"1048577Ki"}'
    assert resources.to_string(resources.merge({"memory": q("1024")}, {"memory": q("1Gi")})) == '{"memory":"1073742848"}'
    assert resources.to_string(resources.merge({"cpu": q("0")}, {"cpu": q("50m")}, {"cpu": q("4")})) == \
        '{"cpu":"4050m"}'
    assert resources.to_string({}) == "{}"


def test_pod_requests_as_resourcehelper_sums_them() -> None:
    spec = {"containers": [{"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}},
                           {"resources": {"requests": {"cpu": "500m"}}}],
            "initContainers": [{"resources": {"requests": {"cpu": "3"}}},
                               {"restartPolicy": "Always", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}],
            "overhead": {"cpu": "10m"}}
    got = resources.requests_for_pods([spec])
    # containers 1.5 + sidecar 0.1 = 1.6; the first init step (3 + nothing before it) is larger: 3; overhead
    assert resources.to_json(got) == {"cpu": "3010m", "memory": "1088Mi", "pods": "1"}
    assert resources.requests_for_pod(spec) == got


def test_fits_and_its_integer_view_agree() -> None:
    total = {"cpu": q("1930m"), "memory": q("6903Mi"), "pods": q("29")}
    for cand, want in (({"cpu": q("1930m")}, True), ({"cpu": q("2")}, False), ({"nvidia.com/gpu": q("1")}, False),
                       ({"nvidia.com/gpu": q("0")}, True)):
        assert resources.fits(cand, total) is want
        assert resources.fits_nanos(resources.to_nanos(cand), resources.to_nanos(total)) is want
    assert not resources.fits({}, {"cpu": q("-1m")})


# -- inputs.py ----------------------------------------------------------------------------------
def test_uids_are_the_sha1_of_kind_namespace_name() -> None:
    uid = object_uid("Pod", "default", "web-1")
    assert [len(p) for p in uid.split("-")] == [8, 4, 4, 4, 12]
    assert uid != object_uid("Pod", "other", "web-1") and uid == object_uid("Pod", "default", "web-1")


def test_what_the_inputs_leave_out(tmp_path: Path) -> None:
    pods = write(tmp_path, "pods.yaml", [pod("a"), pod("b", schedulingGates=[{"name": "g"}]),
                                         {**pod("c"), "metadata": {"name": "c", "uid": "given",
                                                                    "creationTimestamp": "2025-01-01T00:00:00Z"}}])
    cluster = write(tmp_path, "cluster.yaml", [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"}, "status": {"capacity": {"cpu": "2"}}},
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
         "spec": {"volumeName": "pv-1", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
        NODEPOOL, NODECLASS])
    inputs = load_pass(pods, (cluster,), None, KUBE, max_bytes=10 ** 8, max_objects=1000)
    a, b, c = inputs.pending
    assert a.metadata["creationTimestamp"] == "2026-01-01T11:50:00Z" and a.metadata["uid"] == object_uid("Pod", "default", "a")
    assert b.metadata["creationTimestamp"] == "2026-01-01T11:50:01Z"
    assert [(x.status["phase"], x.status["conditions"][0]["reason"]) for x in (a, b)] == \
        [("Pending", "Unschedulable"), ("Pending", "SchedulingGated")]
    assert (c.metadata["uid"], c.metadata["creationTimestamp"]) == ("given", "2025-01-01T00:00:00Z")
    node = inputs.nodes[0]
    assert node["status"]["allocatable"] == {"cpu": "2"}
    assert [x["type"] for x in node["status"]["conditions"]] == ["Ready"]
    assert inputs.objects["PersistentVolumeClaim"][0]["status"]["phase"] == "Bound"
    assert inputs.node_pools[0].name == "default" and inputs.node_classes[0].name == "default"
    assert CLOCK == datetime(2026, 1, 1, 12, tzinfo=timezone.utc)


def test_a_refused_nodepool_is_bad_input(tmp_path: Path) -> None:
    bad = node_pool("bad")
    del bad["spec"]["template"]["spec"]["nodeClassRef"]
    code, _, err = run(tmp_path, [pod("a")], [bad])
    assert code == 2 and "NodePool" in err and "nodeClassRef" in err


# -- queue.py, preferences.py ---------------------------------------------------------------------
def test_queue_order_and_its_stop() -> None:
    def p(name: str, cpu: str, created: str, uid: str) -> PodInfo:
        obj = pod(name, cpu)
        obj["metadata"].update(uid=uid, creationTimestamp=created)
        return PodInfo(obj)
    pods = [p("small", "1", "2026-01-01T00:00:00Z", "1"), p("big", "2", "2026-01-01T00:00:05Z", "2"),
            p("late", "1", "2026-01-01T00:00:01Z", "0"), p("early", "1", "2026-01-01T00:00:00Z", "0")]
    from kexplain.karpenter.inputs import parse_time
    queue = Queue(pods, lambda x: resources.requests_for_pod(x.spec), lambda x: parse_time(x.metadata["creationTimestamp"]))
    assert [x.name for x in queue.pods] == ["big", "early", "small", "late"]
    queue.push(queue.pop())                           # failed: to the back
    assert [queue.pop().name for _ in range(4)] == ["early", "small", "late", "big"]
    queue.push(pods[1])
    assert queue.pop() is None                        # pushed when the queue was this long: no progress


def test_relaxation_order_and_go_s_swap() -> None:
    spec = {"affinity": {"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"a": 1}, {"b": 2}]},
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "x": 1}, {"weight": 5, "x": 5}]}},
            "topologySpreadConstraints": [{"whenUnsatisfiable": "ScheduleAnyway", "n": 1},
                                          {"whenUnsatisfiable": "DoNotSchedule", "n": 2},
                                          {"whenUnsatisfiable": "ScheduleAnyway", "n": 3}]}
    p = prefs.Preferences(tolerate_prefer_no_schedule=True)
    steps = []
    while (reason := p.relax(spec)) is not None:
        steps.append(reason)
    assert steps[0].startswith("removing: spec.affinity.nodeAffinity.required")
    assert steps[1] == "removing: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
    assert steps[-1] == "adding: toleration for PreferNoSchedule taints" and len(steps) == 6
    assert spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] == [{"b": 2}]
    assert spec["topologySpreadConstraints"] == [{"whenUnsatisfiable": "DoNotSchedule", "n": 2}]
    assert spec["tolerations"] == [{"operator": "Exists", "effect": "PreferNoSchedule"}]
    once = {"topologySpreadConstraints": [{"whenUnsatisfiable": "ScheduleAnyway", "n": 1}, {"n": 2},
                                          {"whenUnsatisfiable": "ScheduleAnyway", "n": 3}]}
    prefs.remove_topology_spread_schedule_anyway(once)
    assert [t["n"] for t in once["topologySpreadConstraints"]] == [3, 2]     # the last takes the removed one's place


# -- state/ -------------------------------------------------------------------------------------
def managed(name: str, pool: str, pid: str, registered: bool = True) -> list[dict[str, Any]]:
    labels = {"karpenter.sh/nodepool": pool, "node.kubernetes.io/instance-type": "m5.large"}
    node_labels = {**labels, "karpenter.sh/registered": "true", "karpenter.sh/initialized": "true"}
    claim = {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": f"{name}-claim", "labels": labels},
             "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                      "requirements": [], "taints": [{"key": "t", "effect": "NoSchedule"}]},
             "status": {"providerID": pid, "capacity": {"cpu": "2", "memory": "8Gi", "pods": "29"},
                        "allocatable": {"cpu": "1930m", "memory": "7Gi", "pods": "29"}}}
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": node_labels},
            "spec": {"providerID": pid}, "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "29"}}}
    return [claim, node] if registered else [claim]


def test_state_nodes_join_by_provider_id(tmp_path: Path) -> None:
    objs = [*managed("n1", "default", "aws:///z/i-1"), *managed("n2", "default", "aws:///z/i-2", registered=False),
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "plain", "labels": {
                "karpenter.sh/nodepool": "default", "node.kubernetes.io/instance-type": "m5.2xlarge"}},
             "spec": {"providerID": "aws:///z/i-3"}, "status": {"capacity": {"cpu": "8"}}},
            {**pod("bound", "500m"), "spec": {**pod("bound", "500m")["spec"], "nodeName": "n1"}}]
    inputs = load_pass(write(tmp_path, "pods.yaml", [pod("p")]), (write(tmp_path, "c.yaml", objs),), None, KUBE,
                       max_bytes=10 ** 8, max_objects=1000)
    cluster = new_cluster(inputs)
    names = {n.name(): n for n in cluster.nodes}
    assert set(names) == {"n1", "n2-claim", "plain"}
    n1, inflight, plain = names["n1"], names["n2-claim"], names["plain"]
    assert n1.managed() and n1.registered() and n1.initialized()
    assert inflight.managed() and not inflight.registered() and inflight.taints() == [{"key": "t", "effect": "NoSchedule"}]
    assert not plain.managed() and plain.initialized()
    available = resources.from_nanos(n1.available_nanos(), n1.allocatable())
    assert resources.to_json(available) == {"cpu": "3500m", "memory": "7Gi", "pods": "28"}
    usage = cluster.node_pool_resources_for("default")          # the unmanaged labelled node counts too
    assert resources.to_json(usage) == {"cpu": "14", "memory": "16Gi", "nodes": "3", "pods": "58"}


@pytest.mark.parametrize("refs", [
    None, [], ["not a reference"],
    [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "uid": "rs", "controller": True}],
    [{"apiVersion": "apps/v1", "kind": "DaemonSet", "uid": "ds", "controller": True}],
    [{"apiVersion": "apps/v1", "kind": "DaemonSet", "uid": "ds"},
     {"apiVersion": "v1", "kind": "Node", "uid": "", "controller": True},
     {"apiVersion": "apps/v1", "kind": "ReplicaSet", "uid": "rs", "controller": True}],
    [{"apiVersion": "extensions/v1beta1", "kind": "DaemonSet", "uid": "old", "controller": True}]])
def test_one_look_at_the_owners_says_what_two_do(refs: Any) -> None:
    from kexplain.karpenter.state.cluster import _controller_uid, _owners_of, is_owned_by_daemonset
    bound = PodInfo({**pod("p"), "metadata": {"name": "p", **({"ownerReferences": refs} if refs is not None else {})}})
    assert _owners_of(bound.owner_references or ()) == (is_owned_by_daemonset(bound), _controller_uid(bound))


def test_daemonset_requests_in_billionths_are_their_sum() -> None:
    from kexplain.karpenter.state.statenode import StateNode
    state = StateNode({"metadata": {"name": "n"}}, None)
    state.daemonset_requests = {("ns", "a"): resources.requests_for_pod(pod("a", "100m", "64Mi")["spec"]),
                                ("ns", "b"): resources.requests_for_pod(pod("b", "1500m", "1.5Gi")["spec"])}
    assert state.daemonset_requests_nanos() == resources.to_nanos(resources.merge(*state.daemonset_requests.values())) == {
        "cpu": 1_600_000_000, "memory": (64 + 1536) * 2 ** 20 * 10 ** 9, "pods": 2 * 10 ** 9}


# -- the pass, through the command ---------------------------------------------------------------
def test_a_nodeclaim_not_launched_is_said_as_a_warning(tmp_path: Path) -> None:
    code, doc, err = run(tmp_path, [pod("a")], [NODEPOOL], managed("late", "default", "", registered=False))
    assert code == 0 and doc["pods"][0]["result"] == "NewNodeClaim"
    assert ("warning: NodeClaim late-claim has no status.providerID: it has not launched, and Karpenter waits for "
            "it before provisioning (it is left out here)") in err


def test_names_count_over_the_pass_and_weights_order_pools(tmp_path: Path) -> None:
    heavy = node_pool("heavy", weight=10, template={"spec": {**NODEPOOL["spec"]["template"]["spec"], "taints": [
        {"key": "dedicated", "value": "x", "effect": "NoSchedule"}]}})
    tolerant = pod("tolerant", "2", tolerations=[{"key": "dedicated", "operator": "Exists"}])    # tried first
    code, doc, _ = run(tmp_path, [pod("a", "1500m"), tolerant, pod("b", "1500m", nodeSelector={"workload": "batch"})],
                       [node_pool("default"), heavy])
    got = by_pod(doc)
    assert code == 1
    assert [c["name"] for c in doc["nodeClaims"]] == ["heavy-00001", "default-00002"]
    assert got["default/tolerant"]["nodeClaim"] == "heavy-00001"
    assert got["default/b"]["nodePoolErrors"] == [
        {"nodePool": "heavy", "error": "did not tolerate taint (taint=dedicated=x:NoSchedule)"},
        {"nodePool": "default", "error": 'incompatible requirements, label "workload" does not have known values'}]
    assert doc["events"][-1]["reason"] == "FailedScheduling"


def test_limits_filter_instance_types_then_exhaust(tmp_path: Path) -> None:
    code, doc, _ = run(tmp_path, [pod(f"p{i}", "3") for i in range(3)], [node_pool("default", limits={"cpu": "8"})])
    results = [p.get("nodeClaim") or p.get("error") for p in doc["pods"]]
    # the first NodeClaim may become any type within 8 cpu: the largest (8 cpu) is taken off the limit
    assert results == ["default-00001", "default-00001",
                       "all available instance types exceed limits for nodepool (NodePool=default)"]
    assert doc["nodeClaims"][0]["instanceTypes"] == ["trn1.2xlarge"]


def test_daemonset_overhead_is_in_requests_and_errors(tmp_path: Path) -> None:
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
          "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {
              "containers": [{"name": "c", "image": "i", "resources": {"limits": {"cpu": "100m", "memory": "100Mi"}}}]}}}}
    code, doc, _ = run(tmp_path, [pod("a"), pod("huge", "500")], [NODEPOOL], [ds])
    assert doc["nodeClaims"][0]["requests"] == {"cpu": "1100m", "memory": "1124Mi", "pods": "2"}
    assert by_pod(doc)["default/huge"]["error"].endswith(
        'resources={"cpu":"500100m","memory":"1124Mi","pods":"2"}')


def test_no_ready_nodepool_is_not_considered_and_says_why(tmp_path: Path) -> None:
    missing = node_pool("default")
    missing["spec"]["template"]["spec"]["nodeClassRef"]["name"] = "nope"
    code, doc, _ = run(tmp_path, [pod("a")], [missing])
    assert doc["pods"][0]["result"] == "NotConsidered" and doc["pods"][0]["error"] == "no dynamic nodepools found"
    assert doc["nodePools"][0]["notReady"][0] == "NodeClassReady=False (NodeClassNotFound: NodeClass not found on cluster)"
    assert doc["events"] == [] and code == 1


def test_the_table_names_pods_claims_and_reasons(tmp_path: Path) -> None:
    code, out, _ = run(tmp_path, [pod("a"), pod("b", nodeSelector={"team": "x"})], [NODEPOOL], output="table")
    assert "Karpenter: 1 new NodeClaim; pods: 1 Failed, 1 NewNodeClaim" in out and "default-00001" in out
    assert 'label "team" does not have known values' in out and "t3.large $0.0832" in out


def test_help_describes_the_options() -> None:
    env = TestEnvironment(width=120)
    assert main(["karpenter", "--help"], env) == 0
    for option in ("--nodes", "--aws-data", "--karpenter-config", "-o"):
        assert option in env.out
    assert "v1.13.0" in env.out


def test_quantities_keep_exact_values() -> None:
    assert resources.to_nanos({"cpu": q("1930m")}) == {"cpu": 1_930_000_000}
    assert resources.to_nanos({"x": q("1n")}) == {"x": 1}
    assert q("1930m").value == Fraction(193, 100)


def test_a_nodeclaim_refusal_on_requirements_lasts_until_a_pod_is_added(tmp_path: Path) -> None:
    """Go asks again after every change: `team In [blue]` has no known values on the first
    NodeClaim until a pod requiring `team NotIn [red]` lands there (NotIn may be undefined); then
    it fits."""
    first = pod("first", "3")
    wants_y = pod("wants-y", "2", nodeSelector={"team": "blue"})
    not_x = pod("not-x", "1", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["red"]}]}]}}})
    code, doc, _ = run(tmp_path, [first, wants_y, not_x], [NODEPOOL])
    got = by_pod(doc)
    assert [got[f"default/{n}"].get("nodeClaim") for n in ("first", "not-x", "wants-y")] == ["default-00001"] * 3
    assert code == 0 and len(doc["nodeClaims"]) == 1
    assert doc["nodeClaims"][0]["labels"]["team"] == "blue"


def plain_node(name: str, cpu: str = "8") -> dict[str, Any]:
    """A node Karpenter does not manage (no NodePool label), without a `team` label."""
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": {"providerID": f"aws:///z/{name}"},
            "status": {"capacity": {"cpu": cpu, "memory": "32Gi", "pods": "110"},
                       "allocatable": {"cpu": cpu, "memory": "32Gi", "pods": "110"}}}


def test_an_existing_node_refusing_requirements_is_asked_again_once_a_pod_lands(tmp_path: Path) -> None:
    """`team In [blue]` has no known values on a node without the label, until a pod requiring
    `team NotIn [red]` lands there; then pods of that selector fit, whatever their shape (blue-b
    is another shape than blue-a, which the node refused before)."""
    blue_a = pod("blue-a", "3", nodeSelector={"team": "blue"})
    not_red = pod("not-red", "2", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["red"]}]}]}}})
    blue_b = pod("blue-b", "1", nodeSelector={"team": "blue"})
    code, doc, _ = run(tmp_path, [blue_a, not_red, blue_b], [NODEPOOL], [plain_node("plain")])
    assert code == 0
    assert {p["pod"]: (p["result"], p.get("node")) for p in doc["pods"]} == {
        f"default/{n}": ("ExistingNode", "plain") for n in ("blue-a", "not-red", "blue-b")}


def test_pods_of_equal_requirements_ask_an_unchanged_node_once(tmp_path: Path, monkeypatch: Any) -> None:
    """An existing node that refused a pod's requirements, and has had no pod added since,
    refuses a pod of other requests and the same requirements too: it is not asked again."""
    from kexplain.karpenter.pending import load_world
    from kexplain.karpenter.provisioning.scheduling.existingnode import ExistingNode
    from kexplain.karpenter.run import schedule

    pods = [pod("blue-a", "1", nodeSelector={"team": "blue"}), pod("blue-b", "2", nodeSelector={"team": "blue"})]
    inputs = load_pass(write(tmp_path, "pods.yaml", pods),
                       (write(tmp_path, "c.yaml", [plain_node(f"n{i}") for i in range(3)]),
                        write(tmp_path, "np.yaml", [NODEPOOL, NODECLASS])), None, KUBE,
                       max_bytes=10 ** 8, max_objects=1000)
    asked: list[str] = []
    can_add = ExistingNode.can_add

    def counted(self: ExistingNode, *args: Any) -> Any:
        asked.append(self.name())
        return can_add(self, *args)

    monkeypatch.setattr(ExistingNode, "can_add", counted)
    done = schedule(inputs, load_world(str(AWS)))
    assert [p.result for p in done.result.pods] == ["Failed", "Failed"]
    assert sorted(asked) == ["n0", "n1", "n2"]


@pytest.mark.parametrize("all_stored", [False, True])
def test_a_dumps_rows_give_the_inputs_its_objects_give(all_stored: bool) -> None:
    """`pass_of` over a `columns.Dump` (the checks and admission ask its rows) and over the same
    objects as a plain list: the same inputs, the same warnings (some objects stored, or all)."""
    import copy

    from kexplain.apimachinery import columns
    from kexplain.karpenter.inputs import pass_of
    from kexplain.karpenter.params import read_settings

    stored = {"resourceVersion": "7", "uid": "u-{}", "creationTimestamp": "2026-01-01T00:00:00Z"}

    def bound(name: str, node: str, **meta: Any) -> dict[str, Any]:
        return {**pod(name), "metadata": {"name": name, "namespace": "team", **meta},
                "spec": {**pod(name)["spec"], "nodeName": node}, "status": {"phase": "Running"}}

    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "team"},
          "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
              "metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    objs = [pod("pending-a"), pod("pending-b", "2"),
            *[{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", **({"resourceVersion": "3"} if i else {})},
               "status": {"capacity": {"cpu": "4"}}} for i in range(3)],
            ds, bound("stored", "n1", **{k: v.format(1) for k, v in stored.items()}), bound("plain", "n2"),
            bound("agent-x", "n0", ownerReferences=[{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent"}]),
            *[{**o, "metadata": {**o["metadata"], "resourceVersion": "5"}} for o in managed("k1", "default", "aws:///z/i-1")],
            {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "team"},
             "spec": {"volumeName": "pv", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}},
            NODEPOOL, NODECLASS]
    src = Source("c.yaml")
    if all_stored:
        objs = [{**o, "metadata": {"resourceVersion": "9", **o["metadata"]}} for o in objs]

    def summary(inputs: Any) -> Any:
        return ([p.obj for p in inputs.pending], [p.obj for p in inputs.bound_pods], inputs.nodes,
                inputs.node_claims, inputs.daemonsets, [np.name for np in inputs.node_pools],
                [c.name for c in inputs.node_classes], inputs.objects, inputs.warnings)

    plain = pass_of([(o, src) for o in copy.deepcopy(objs)], read_settings(None, 10 ** 8), KUBE)
    dump = columns.Dump([(o, src) for o in copy.deepcopy(objs)])
    assert columns.rows_of(dump) is not None
    assert summary(pass_of(dump, read_settings(None, 10 ** 8), KUBE)) == summary(plain)
    assert [p.name for p in plain.bound_pods] == ["stored", "plain", "agent-x"] and len(plain.nodes) == 4

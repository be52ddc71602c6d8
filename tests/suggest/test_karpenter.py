"""Karpenter suggestions (kexplain.suggest.karpenter): for each pod Karpenter will not place, the
changes that make it place the pod, each offered only where it is the reason and kept only when
Karpenter's pass, run again on the changed input, places the pod and unplaces no other. Every
suggestion here is checked twice: offered, and placed by a pass this test runs itself on the
changed input. Inputs are written by hand over the bundled AWS world (17 types, us-west-2)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from kexplain.cli.app import main
from kexplain.features import KubeVersion
from kexplain.karpenter.aws.world import load_world
from kexplain.karpenter.inputs import PassInputs, load_pass
from kexplain.suggest.karpenter import suggestions, suggestions_for
from kexplain.suggest.karpenter_context import build_context
from kexplain.suggest.karpenter_nodeclass import ADD_SUBNET
from kexplain.suggest.karpenter_nodepool import (
    DECLARE_LABEL, RAISE_LIMIT, RELAX_MIN_VALUES, WIDEN_REQUIREMENT, declare_label,
)
from kexplain.suggest.karpenter_pass import changed_pass, run
from kexplain.suggest.karpenter_pod import ADD_TOLERATION, DROP_TERM, LOWER_REQUEST, add_toleration
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

AWS = TESTS / "karpenter" / "cases" / "sched-aws"
WORLD = load_world(AWS)
NODE_CLASS = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
              "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole-test",
                       "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}],
                       "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}]}}
GPU = "nvidia.com/gpu"
GPU_TAINT = {"key": GPU, "value": "true", "effect": "NoSchedule"}


def node_pool(name: str, requirements: list[dict[str, Any]], *, weight: int | None = None,
              taints: list[dict[str, str]] | None = None, limits: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"template": {"spec": {
        "requirements": requirements, "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                       "name": "default"}}}}
    if taints:
        spec["template"]["spec"]["taints"] = taints
    if weight is not None:
        spec["weight"] = weight
    if limits is not None:
        spec["limits"] = limits
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec}


def req(key: str, operator: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


ON_DEMAND = req("karpenter.sh/capacity-type", "In", "on-demand")
GENERAL = node_pool("default", [req("karpenter.k8s.aws/instance-category", "In", "m", "t"), ON_DEMAND])


def pod(name: str, cpu: str = "1", memory: str = "1Gi", *, gpu: int | None = None,
        node_selector: dict[str, str] | None = None, tolerations: list[dict[str, str]] | None = None,
        affinity: dict[str, Any] | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {"requests": {"cpu": cpu, "memory": memory}}
    if gpu is not None:
        resources["limits"] = {GPU: str(gpu)}
    spec: dict[str, Any] = {"containers": [{"name": "app", "image": "busybox", "resources": resources}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    if tolerations:
        spec["tolerations"] = tolerations
    if affinity:
        spec["affinity"] = affinity
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def write(tmp_path: Path, name: str, docs: list[dict[str, Any]]) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return str(path)


def files(tmp_path: Path, pods: list[dict[str, Any]], pools: list[dict[str, Any]],
          params: dict[str, Any] | None = None) -> tuple[str, str, str | None]:
    settings = write(tmp_path, "params.yaml", [params]) if params else None
    return write(tmp_path, "pods.yaml", pods), write(tmp_path, "nodepools.yaml", [*pools, NODE_CLASS]), settings


def load(tmp_path: Path, pods: list[dict[str, Any]], pools: list[dict[str, Any]],
         params: dict[str, Any] | None = None) -> PassInputs:
    pods_file, pools_file, settings = files(tmp_path, pods, pools, params)
    return load_pass(pods_file, (pools_file,), settings, KubeVersion("1.35"), max_bytes=1 << 22, max_objects=10_000)


def offered(inputs: PassInputs, pod_key: str) -> dict[str, list[dict[str, Any]]]:
    """The suggestions placing `pod_key`, by kind; each checked here by a pass of our own on the
    changed input: the pod placed, and every pod the first pass placed still placed."""
    first = run(inputs, WORLD)
    assert not first.placed(pod_key)
    found = suggestions(inputs, WORLD)
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for s in found:
        changed = changed_pass(inputs, s["change"])
        assert changed is not None, s["description"]
        again = run(changed, WORLD)
        for key in s["pods"]:
            assert again.placed(key), s["description"]
        assert all(again.placed(k) for k, p in first.placements.items() if p.placed), s["description"]
        if pod_key in s["pods"]:
            by_kind.setdefault(s["kind"], []).append(s)
    return by_kind


def test_a_label_no_nodepool_declares(tmp_path):
    inputs = load(tmp_path, [pod("batch-job", node_selector={"workload": "batch"})], [GENERAL])
    by_kind = offered(inputs, "default/batch-job")
    [label] = by_kind[DECLARE_LABEL]
    assert label["target"] == "NodePool default"
    assert label["change"] == [{"op": "add", "object": {"kind": "NodePool", "name": "default"},
                                "path": "/spec/template/metadata/labels/workload", "value": "batch"}]
    assert label["description"] == ("NodePool default: declare the label workload=batch "
                                    "(spec.template.metadata.labels)")
    assert label["yaml"] == ("# NodePool default\nspec:\n  template:\n    metadata:\n      labels: {workload: batch}")
    claim = label["verified"]["nodeClaims"][0]
    assert claim["nodePool"] == "default" and claim["instanceTypes"][0] == "t3.large" and claim["prices"][0] == "0.0832"
    assert label["verified"]["pods"] == [{"pod": "default/batch-job", "result": "NewNodeClaim",
                                          "nodeClaim": claim["name"], "nodePool": "default"}]
    [drop] = by_kind[DROP_TERM]
    assert drop["description"] == "pod default/batch-job: drop nodeSelector workload=batch: no NodePool can meet it"
    assert drop["change"][0]["op"] == "remove" and drop["change"][0]["path"] == "/spec/nodeSelector/workload"


def test_a_gpu_pod_without_the_toleration(tmp_path):
    gpu = node_pool("gpu", [req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "nvidia"), ON_DEMAND],
                    weight=10, taints=[GPU_TAINT])
    inputs = load(tmp_path, [pod("trainer", "4", "16Gi", gpu=1)], [GENERAL, gpu])
    by_kind = offered(inputs, "default/trainer")
    [tolerate] = by_kind[ADD_TOLERATION]
    assert tolerate["description"] == ("pod default/trainer: tolerate NodePool gpu's taint "
                                       "nvidia.com/gpu=true:NoSchedule")
    assert tolerate["change"] == [{"op": "add", "object": {"kind": "Pod", "namespace": "default", "name": "trainer"},
                                   "path": "/spec/tolerations/-",
                                   "value": {"key": GPU, "operator": "Equal", "value": "true", "effect": "NoSchedule"}}]
    claim = tolerate["verified"]["nodeClaims"][0]
    assert (claim["nodePool"], claim["instanceTypes"], claim["prices"]) == \
        ("gpu", ["g4dn.8xlarge", "g5.12xlarge"], ["2.176", "5.672"])
    # the general NodePool, allowed the GPU category, takes it too: the cheapest GPU type
    [widen] = by_kind[WIDEN_REQUIREMENT]
    assert widen["target"] == "NodePool default"
    assert widen["change"] == [{"op": "add", "object": {"kind": "NodePool", "name": "default"},
                                "path": "/spec/template/spec/requirements/0/values/-", "value": "g"}]
    assert widen["verified"]["nodeClaims"][0]["instanceTypes"][0] == "g4dn.8xlarge"


def test_a_pod_too_big_for_the_allowed_family(tmp_path):
    small = node_pool("default", [req("karpenter.k8s.aws/instance-family", "In", "t3"), ON_DEMAND])
    inputs = load(tmp_path, [pod("big", "3", "4Gi")], [small])
    by_kind = offered(inputs, "default/big")
    [widen] = by_kind[WIDEN_REQUIREMENT]
    assert widen["description"] == (
        "NodePool default: allow karpenter.k8s.aws/instance-family m5: requirement "
        "karpenter.k8s.aws/instance-family In [t3] -> karpenter.k8s.aws/instance-family In [t3 m5]")
    claim = widen["verified"]["nodeClaims"][0]
    assert (claim["instanceTypes"][0], claim["prices"][0]) == ("m5.xlarge", "0.192")
    assert "t3.large" not in claim["instanceTypes"]
    # or the pod asks for what t3.large can take after the overhead (cpu 1930m allocatable)
    [lower] = by_kind[LOWER_REQUEST]
    assert lower["change"][0]["path"] == "/spec/containers/0/resources/requests/cpu"
    assert lower["change"][0]["value"] == "1930m"
    assert lower["verified"]["nodeClaims"][0]["instanceTypes"] == ["t3.large"]


def test_a_nodepool_at_its_cpu_limit(tmp_path):
    limited = node_pool("default", [req("karpenter.k8s.aws/instance-family", "In", "m5"), ON_DEMAND],
                        limits={"cpu": "4"})
    inputs = load(tmp_path, [pod("app-0", "3"), pod("app-1", "3")], [limited])
    first = run(inputs, WORLD)
    assert first.placed("default/app-0")
    by_kind = offered(inputs, "default/app-1")
    [limit] = by_kind[RAISE_LIMIT]
    assert limit["description"] == ("NodePool default: raise limits.cpu 4 -> 8 (in use 0, this pass's other "
                                    "NodeClaims 4, the pod's NodeClaim 4)")
    assert limit["change"] == [{"op": "replace", "object": {"kind": "NodePool", "name": "default"},
                                "path": "/spec/limits", "value": {"cpu": "8"}}]
    assert limit["verified"]["nodeClaims"][0]["instanceTypes"] == ["m5.xlarge"]


def test_a_zone_without_a_subnet(tmp_path):
    general = node_pool("default", [req("karpenter.k8s.aws/instance-family", "In", "m5"), ON_DEMAND])
    inputs = load(tmp_path, [pod("zonal", node_selector={"topology.kubernetes.io/zone": "test-zone-1b"})], [general],
                  params={"zones": ["test-zone-1a"]})
    by_kind = offered(inputs, "default/zonal")
    [subnet] = by_kind[ADD_SUBNET]
    assert subnet["target"] == "EC2NodeClass default"
    assert subnet["description"].startswith("EC2NodeClass default: a subnet in zone test-zone-1b (e.g. subnet-test2")
    assert subnet["change"] == [{"op": "add", "object": {"kind": "EC2NodeClass", "name": "default"},
                                 "path": "/status/subnets",
                                 "value": [{"id": "subnet-test1", "zone": "test-zone-1a", "zoneID": "tstz1-1a"},
                                           {"id": "subnet-test2", "zone": "test-zone-1b", "zoneID": "tstz1-1b"}]}]
    claim = subnet["verified"]["nodeClaims"][0]
    assert claim["instanceTypes"][0] == "m5.large"


def test_a_toleration_that_would_not_help_is_dropped(tmp_path):
    # the GPU NodePool's types would take the pod but for its taint, so tolerating it is an idea;
    # its cpu limit (8) is below every GPU type, which the pass run again shows: dropped
    gpu = node_pool("gpu", [req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "nvidia"), ON_DEMAND],
                    weight=10, taints=[GPU_TAINT], limits={"cpu": "8"})
    inputs = load(tmp_path, [pod("trainer", "4", "16Gi", gpu=1)], [GENERAL, gpu])
    first = run(inputs, WORLD)
    ctx = build_context(first, WORLD)
    [want] = ctx.wants
    [idea] = add_toleration(ctx, want)
    assert idea.candidate.description == "pod default/trainer: tolerate NodePool gpu's taint nvidia.com/gpu=true:NoSchedule"
    again = run(changed_pass(inputs, idea.candidate.change), WORLD)
    assert again.placements["default/trainer"].result == "Failed"
    found = suggestions_for(first, WORLD)
    assert ADD_TOLERATION not in {s["kind"] for s in found}
    assert [s["kind"] for s in found] == [WIDEN_REQUIREMENT], "the general NodePool allowed a GPU category takes it"
    assert run(changed_pass(inputs, found[0]["change"]), WORLD).placed("default/trainer")


def test_no_toleration_for_a_nodepool_whose_types_are_too_small(tmp_path):
    # the tainted pool's only type has one GPU and the pod wants two: the taint is not what keeps
    # it out, so no toleration is offered, and the pass agrees that one would not place it
    gpu = node_pool("gpu", [req("node.kubernetes.io/instance-type", "In", "g4dn.8xlarge"), ON_DEMAND],
                    weight=10, taints=[GPU_TAINT])
    inputs = load(tmp_path, [pod("trainer", "4", "16Gi", gpu=2)], [GENERAL, gpu])
    first = run(inputs, WORLD)
    ctx = build_context(first, WORLD)
    [want] = ctx.wants
    assert add_toleration(ctx, want) == []
    tolerating = [{"op": "add", "object": {"kind": "Pod", "namespace": "default", "name": "trainer"},
                   "path": "/spec/tolerations/-", "value": {"key": GPU, "operator": "Exists", "effect": "NoSchedule"}}]
    assert run(changed_pass(inputs, tolerating), WORLD).placements["default/trainer"].result == "Failed"
    found = suggestions_for(first, WORLD)
    assert ADD_TOLERATION not in {s["kind"] for s in found}
    assert all(run(changed_pass(inputs, s["change"]), WORLD).placed("default/trainer") for s in found)


def test_a_change_that_unplaces_another_pod_is_dropped(tmp_path):
    # declaring workload=batch on the only NodePool would place batch-job and lose plain, which
    # must not run on such nodes
    plain = pod("plain", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [req("workload", "DoesNotExist")]}]}}})
    inputs = load(tmp_path, [pod("batch-job", node_selector={"workload": "batch"}), plain], [GENERAL])
    first = run(inputs, WORLD)
    assert first.placed("default/plain") and not first.placed("default/batch-job")
    ctx = build_context(first, WORLD)
    [idea] = declare_label(ctx, ctx.wants[0])
    again = run(changed_pass(inputs, idea.candidate.change), WORLD)
    assert again.placed("default/batch-job") and not again.placed("default/plain")
    found = suggestions_for(first, WORLD)
    assert [s["kind"] for s in found] == [DROP_TERM]


def test_min_values_relaxed_when_they_block(tmp_path):
    strict = node_pool("default", [{**req("karpenter.k8s.aws/instance-family", "In", "m5", "t3"), "minValues": 2},
                                   ON_DEMAND])
    inputs = load(tmp_path, [pod("wide", "3")], [strict])
    by_kind = offered(inputs, "default/wide")
    [relax] = by_kind[RELAX_MIN_VALUES]
    assert relax["change"] == [{"op": "replace", "object": {"kind": "NodePool", "name": "default"},
                                "path": "/spec/template/spec/requirements/0/minValues", "value": 1}]


def test_nothing_is_kept_unverified(tmp_path):
    inputs = load(tmp_path, [pod("batch-job", node_selector={"workload": "batch"})], [GENERAL])
    assert suggestions(inputs, WORLD, budget=0) == []


def test_nothing_for_a_pass_that_places_every_pod(tmp_path):
    inputs = load(tmp_path, [pod("web")], [GENERAL])
    assert suggestions(inputs, WORLD) == []


def test_the_command_table_json_and_switch(tmp_path):
    pods_file, pools_file, _ = files(tmp_path, [pod("batch-job", node_selector={"workload": "batch"})], [GENERAL])
    argv = ["karpenter", pods_file, "--nodes", pools_file, "--aws-data", str(AWS)]
    env = TestEnvironment(width=200)
    assert main(argv, env) == 1
    assert "What would make Karpenter place them (each change verified by running Karpenter's pass again)" in env.out
    assert " 1. NodePool default: declare the label workload=batch (spec.template.metadata.labels)" in env.out
    assert "default/batch-job -> a new NodeClaim from NodePool default: t3.large $0.0832" in env.out
    env = TestEnvironment()
    main([*argv, "-o", "json"], env)
    doc = json.loads(env.out)
    assert [s["kind"] for s in doc["suggestions"]] == [DECLARE_LABEL, DROP_TERM]
    env = TestEnvironment()
    main([*argv, "-o", "json", "--no-suggestions"], env)
    assert "suggestions" not in json.loads(env.out)


def test_every_pod_of_a_shape_is_changed_and_named(tmp_path):
    gpu = node_pool("gpu", [req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "nvidia"), ON_DEMAND],
                    taints=[GPU_TAINT])
    inputs = load(tmp_path, [pod(f"trainer-{i}", "4", "16Gi", gpu=1) for i in range(3)], [gpu])
    by_kind = offered(inputs, "default/trainer-0")
    [tolerate] = by_kind[ADD_TOLERATION]
    assert tolerate["target"] == "pod default/trainer-0 and 2 more like it"
    assert tolerate["pods"] == ["default/trainer-0", "default/trainer-1", "default/trainer-2"]
    assert [op["object"]["name"] for op in tolerate["change"]] == ["trainer-0", "trainer-1", "trainer-2"]
    assert tolerate["yaml"].startswith("# Pod default/trainer-0 (and 2 more like it)\n")


def test_verified_with_one_pod_of_each_shape_as_with_the_whole_pass(tmp_path):
    # a big pass whose pods cannot reach one another is verified with one pod of each shape the
    # change concerns (forced here with shape_above=0): the same suggestions, the same pods
    gpu = node_pool("gpu", [req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "nvidia"), ON_DEMAND],
                    weight=10, taints=[GPU_TAINT])
    pods = [*(pod(f"batch-{i}", node_selector={"workload": "batch"}) for i in range(3)),
            *(pod(f"trainer-{i}", "4", "16Gi", gpu=1) for i in range(2)), pod("web", "500m")]
    inputs = load(tmp_path, pods, [GENERAL, gpu])
    first = run(inputs, WORLD)
    whole = suggestions_for(first, WORLD)
    shaped = suggestions_for(first, WORLD, shape_above=0)
    assert [(s["kind"], s["description"], s["pods"]) for s in shaped] == \
        [(s["kind"], s["description"], s["pods"]) for s in whole]
    assert {s["verified"]["scope"] for s in whole} == {"pass"}
    assert "shape" in {s["verified"]["scope"] for s in shaped}
    for s in shaped:
        again = run(changed_pass(inputs, s["change"]), WORLD)
        assert all(again.placed(k) for k in s["pods"]), s["description"]


def test_a_pod_landing_on_a_nodepool_with_limits_is_verified_with_the_whole_pass(tmp_path):
    # with its nodeSelector dropped, the pod would land on the heavier NodePool, which has limits
    # other pods draw on: the pods alone cannot say, so the whole pass decides
    # (`web`, which the heavier NodePool takes, shares it: the changed pod is not cut off)
    small = node_pool("small", [req("karpenter.k8s.aws/instance-family", "In", "t3"), ON_DEMAND], weight=5,
                      limits={"cpu": "4"})
    inputs = load(tmp_path, [pod("batch-0", node_selector={"workload": "batch"}), pod("web", "500m")],
                  [GENERAL, small])
    found = {(s["kind"], s["target"]): s["verified"]["scope"]
             for s in suggestions_for(run(inputs, WORLD), WORLD, shape_above=0)}
    assert found[(DROP_TERM, "pod default/batch-0")] == "pass"
    assert found[(DECLARE_LABEL, "NodePool small")] == "pass"          # a NodePool with limits changed
    assert found[(DECLARE_LABEL, "NodePool default")] == "shape"


def test_pods_that_reach_one_another_are_verified_with_the_whole_pass(tmp_path):
    spread = pod("spread", node_selector={"workload": "batch"})
    spread["spec"]["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                    "whenUnsatisfiable": "DoNotSchedule",
                                                    "labelSelector": {"matchLabels": {"app": "spread"}}}]
    spread["metadata"]["labels"] = {"app": "spread"}
    inputs = load(tmp_path, [spread], [GENERAL])
    found = suggestions_for(run(inputs, WORLD), WORLD, shape_above=0)
    assert found and {s["verified"]["scope"] for s in found} == {"pass"}


SPREAD = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
           "labelSelector": {"matchLabels": {"app": "web"}}}]


def _spread_web(name: str) -> dict[str, Any]:
    web = pod(name, "500m")
    web["metadata"]["labels"] = {"app": "web"}
    web["spec"]["topologySpreadConstraints"] = SPREAD
    return web


def test_a_pod_change_cut_off_from_the_other_pods_is_verified_with_those_pods(tmp_path):
    # the pods reach one another (zone spread), but not the GPU pods: no term selects them, no
    # other pod may use the gpu NodePool, and they may use no other; the toleration is verified by a pass over the GPU
    # pods alone (and the nodes they could land on), with the whole pass's verdict
    gpu = node_pool("gpu", [req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "nvidia"), ON_DEMAND,
                            req("workload", "In", "training")], weight=10, taints=[GPU_TAINT], limits={"cpu": "64"})
    pods = [*(_spread_web(f"web-{i}") for i in range(3)),
            *(pod(f"trainer-{i}", "4", "16Gi", gpu=1, node_selector={"workload": "training"}) for i in range(2))]
    inputs = load(tmp_path, pods, [GENERAL, gpu])
    first = run(inputs, WORLD)
    whole = suggestions_for(first, WORLD)
    scoped = suggestions_for(first, WORLD, shape_above=0)
    assert [(s["kind"], s["description"], s["pods"]) for s in scoped] == \
        [(s["kind"], s["description"], s["pods"]) for s in whole]
    by_kind = {s["kind"]: s for s in scoped}
    assert by_kind[ADD_TOLERATION]["verified"]["scope"] == "pods"
    assert by_kind[ADD_TOLERATION]["pods"] == ["default/trainer-0", "default/trainer-1"]
    for s in scoped:
        again = run(changed_pass(inputs, s["change"]), WORLD)
        assert all(again.placed(k) for k in s["pods"]), s["description"]
        assert all(again.placed(k) for k, p in first.placements.items() if p.placed), s["description"]


def test_a_pod_change_another_pod_selects_is_verified_with_the_whole_pass(tmp_path):
    # the web pods' zone spread counts the GPU pods (same label): the whole pass decides
    gpu = node_pool("gpu", [req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", "nvidia"), ON_DEMAND],
                    weight=10, taints=[GPU_TAINT])
    trainers = [pod(f"trainer-{i}", "4", "16Gi", gpu=1) for i in range(2)]
    for trainer in trainers:
        trainer["metadata"]["labels"] = {"app": "web"}
    inputs = load(tmp_path, [*(_spread_web(f"web-{i}") for i in range(3)), *trainers], [GENERAL, gpu])
    found = suggestions_for(run(inputs, WORLD), WORLD, shape_above=0)
    tolerations = [s for s in found if s["kind"] == ADD_TOLERATION]
    assert tolerations and {s["verified"]["scope"] for s in tolerations} == {"pass"}


def test_the_table_says_when_no_change_was_verified(tmp_path):
    pods_file, pools_file, _ = files(tmp_path, [pod("reserved", node_selector={"karpenter.sh/capacity-type": "reserved",
                                                                               "kubernetes.io/arch": "s390x"})],
                                     [GENERAL])
    env = TestEnvironment(width=200)
    main(["karpenter", pods_file, "--nodes", pools_file, "--aws-data", str(AWS)], env)
    assert "No single change was verified to make Karpenter place the pods it could not place." in env.out


def test_the_daemonsets_given_are_left_as_they_are(tmp_path):
    """Karpenter's DaemonSet compatibility check drops the required terms it tried from the pod
    it is given: the suggestions check their own copies, so every verifying pass reads the
    DaemonSet as written."""
    terms = [{"matchExpressions": [req("karpenter.sh/capacity-type", "In", "spot")]},       # not the pool's
             {"matchExpressions": [req("kubernetes.io/os", "In", "linux")]}]
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
          "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {
              "metadata": {"labels": {"app": "agent"}},
              "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                  "nodeSelectorTerms": terms}}},
                       "containers": [{"name": "a", "image": "agent", "resources": {"requests": {"cpu": "100m"}}}]}}}}
    pods_file, pools_file, _ = files(tmp_path, [pod("batch-job", node_selector={"workload": "batch"})], [GENERAL])
    inputs = load_pass(pods_file, (pools_file, write(tmp_path, "ds.yaml", [ds])), None, KubeVersion("1.35"),
                       max_bytes=1 << 22, max_objects=10_000)
    assert suggestions(inputs, WORLD)
    template = inputs.daemonsets[0]["spec"]["template"]["spec"]
    assert template["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] \
        == terms


def test_the_command_runs_its_pass_once(tmp_path, monkeypatch):
    """The suggestions start from the command's own pass (reused, with its explanation's), and
    run passes only on changed inputs."""
    import kexplain.karpenter.run as run_module
    import kexplain.suggest.karpenter_pass as pass_module
    seen: list[PassInputs] = []
    real = run_module.schedule

    real_state = pass_module.new_cluster

    def counting(inputs, world, cloud=None):
        seen.append(inputs)
        return real(inputs, world, cloud)

    def counting_state(inputs, base=None):         # (a pass run again, from the first one's state)
        seen.append(inputs)
        return real_state(inputs, base)

    monkeypatch.setattr(run_module, "schedule", counting)
    monkeypatch.setattr(pass_module, "schedule", counting)
    monkeypatch.setattr(pass_module, "new_cluster", counting_state)
    pods_file, pools_file, _ = files(tmp_path, [pod("batch-job", node_selector={"workload": "batch"})], [GENERAL])
    env = TestEnvironment()
    assert main(["karpenter", pods_file, "--nodes", pools_file, "--aws-data", str(AWS), "-o", "json"], env) == 1
    assert [s["kind"] for s in json.loads(env.out)["suggestions"]] == [DECLARE_LABEL, DROP_TERM]
    assert len(seen) > 1 and [i is seen[0] for i in seen].count(True) == 1


def test_suggested_nodeclaims_are_named_after_the_passes_own(tmp_path):
    """Each pass run again numbers its NodeClaims from -00001; a suggestion's are numbered on
    after the pass explained and after the suggestions before it, so that no name names two
    NodeClaims (a 16-CPU database is not said to join the frontend's small NodeClaim)."""
    inputs = load(tmp_path, [pod("frontend", "500m", "512Mi"), pod("database", "16", "32Gi",
                                                                   node_selector={"workload": "db"})], [GENERAL])
    first = run(inputs, WORLD)
    own = [c.name for c in first.result.node_claims]
    assert own == ["default-00001"]
    found = suggestions(inputs, WORLD)
    assert len(found) >= 2
    named = [c["name"] for s in found for c in s["verified"]["nodeClaims"]]
    assert named == [f"default-{n:05d}" for n in range(2, 2 + len(named))]
    for s in found:
        claims = {c["name"] for c in s["verified"]["nodeClaims"]}
        assert {p["nodeClaim"] for p in s["verified"]["pods"] if p["result"] == "NewNodeClaim"} <= claims

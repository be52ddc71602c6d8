"""The `explained` key of `kexplain karpenter`: for each pod Karpenter does not place, everything
in its way on each NodePool, from hand-built inputs over the bundled AWS data (17 types, subnets
in test-zone-1a/1b/1c)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kexplain.apimachinery.quantity import parse_quantity
from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

AWS = TESTS / "karpenter" / "cases" / "sched-aws"

NODE_CLASS = """---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole-test
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
"""


def node_pool(name: str, requirements: str = "", weight: int = 0, extra: str = "", labels: str = "",
              taints: str = "") -> str:
    weight_line = f"  weight: {weight}\n" if weight else ""
    return f"""---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: {name}}}
spec:
{weight_line}{extra}  template:
    metadata: {{labels: {{{labels}}}}}
    spec:
      requirements: [{requirements}]
      taints: [{taints}]
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
"""


def pod(name: str, requests: str = "cpu: 500m, memory: 512Mi", limits: str = "", spec: str = "") -> str:
    lim = f", limits: {{{limits}}}" if limits else ""
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
{spec}  containers: [{{name: c, image: busybox, resources: {{requests: {{{requests}}}{lim}}}}}]
"""


def run(tmp_path: Path, pods: str, pools: str, cluster: str = "", params: str = "",
        *extra: str) -> tuple[int, dict[str, Any], str]:
    (tmp_path / "pods.yaml").write_text(pods)
    (tmp_path / "nodepools.yaml").write_text(pools + NODE_CLASS)
    argv = ["karpenter", str(tmp_path / "pods.yaml")]
    if cluster:
        (tmp_path / "cluster.yaml").write_text(cluster)
        argv += ["--nodes", str(tmp_path / "cluster.yaml")]
    argv += ["--nodes", str(tmp_path / "nodepools.yaml"), "--aws-data", str(AWS)]
    if params:
        (tmp_path / "params.yaml").write_text(params)
        argv += ["--karpenter-config", str(tmp_path / "params.yaml")]
    env = TestEnvironment()
    code = main([*argv, *extra, "-o", "json"], env)
    return code, json.loads(env.out) if env.out.strip() else {}, env.err


def explained(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in doc["explained"]["pods"] if p["pod"] == f"default/{name}")


def verdict(entry: dict[str, Any], pool: str) -> dict[str, Any]:
    return next(v for v in entry["nodePools"] if v["nodePool"] == pool)


def q(text: str) -> int:
    return int(parse_quantity(text))


# -- a label no NodePool gives -----------------------------------------------------------------------
def test_label_without_known_values_names_the_field_and_how_to_declare_it(tmp_path):
    pools = node_pool("default", "{key: karpenter.k8s.aws/instance-category, operator: In, values: [m]}") + \
        node_pool("batch", labels="workload: other")
    code, doc, _ = run(tmp_path, pod("job", spec="  nodeSelector: {workload: batch}\n"), pools)
    assert code == 1
    entry = explained(doc, "job")
    assert entry["result"] == "Failed"
    # Karpenter's order: equal weights, names descending.
    assert [v["nodePool"] for v in entry["nodePools"]] == ["default", "batch"]
    default = verdict(entry, "default")
    [problem] = default["requirements"]
    assert problem["fields"] == ["spec.nodeSelector.workload"]
    assert problem["requirement"] == "workload In [batch]"
    assert problem["error"] == 'label "workload" does not have known values'
    label = problem["undefinedLabel"]
    assert label["key"] == "workload" and "hint" not in label
    assert label["declare"] == [
        {"field": "spec.template.metadata.labels", "key": "workload", "value": "batch"},
        {"field": "spec.template.spec.requirements", "key": "workload", "operator": "In", "values": ["batch"]},
        {"field": "spec.template.spec.requirements", "key": "workload", "operator": "Exists"}]
    assert default["karpenter"] == 'incompatible requirements, label "workload" does not have known values'
    assert default["inTheWay"] == ["requirements"] and "verdict" not in default
    # The pool that has the label with another value: a conflict, named on both sides.
    [conflict] = verdict(entry, "batch")["requirements"]
    assert conflict["nodePool"] == "workload In [other]"
    assert conflict["nodePoolFields"] == ["spec.template.metadata.labels.workload"]
    assert conflict["error"] == "key workload, workload In [batch] not in workload In [other]"


def test_typo_hint_and_every_term_of_required_node_affinity(tmp_path):
    spec = """  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: zone, operator: In, values: [test-zone-1a]}]
        - matchExpressions:
          - {key: kubernetes.io/arch, operator: In, values: [amd64]}
          - {key: team, operator: Exists}
"""
    code, doc, _ = run(tmp_path, pod("picky", spec=spec), node_pool("default"))
    entry = explained(doc, "picky")
    assert entry["nodeSelectorTerms"] == 2 and entry["termTried"] == 1
    problems = {p["key"]: p for p in verdict(entry, "default")["requirements"]}
    term = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
    assert problems["zone"]["fields"] == [f"{term}[0].matchExpressions[0]"]
    assert problems["zone"]["undefinedLabel"]["hint"] == "topology.kubernetes.io/zone"
    assert 'typo of "topology.kubernetes.io/zone"' in problems["zone"]["error"]
    assert problems["team"]["fields"] == [f"{term}[1].matchExpressions[1]"]
    # Exists: any value of a template label, or a requirement Exists; no In to offer.
    assert problems["team"]["undefinedLabel"]["declare"] == [
        {"field": "spec.template.metadata.labels", "key": "team", "value": ""},
        {"field": "spec.template.spec.requirements", "key": "team", "operator": "Exists"}]
    assert verdict(entry, "default")["termsWithoutProblems"] == []


# -- a GPU pod on a general pool --------------------------------------------------------------------
def test_gpu_pod_on_a_general_pool_and_a_tainted_gpu_pool(tmp_path):
    pools = node_pool("default", "{key: karpenter.k8s.aws/instance-category, operator: In, values: [m, t]}") + \
        node_pool("gpu", "{key: karpenter.k8s.aws/instance-gpu-manufacturer, operator: In, values: [nvidia]}",
                  weight=10, taints="{key: nvidia.com/gpu, value: 'true', effect: NoSchedule}")
    code, doc, _ = run(tmp_path, pod("trainer", "cpu: '4', memory: 16Gi", limits="nvidia.com/gpu: '1'"), pools)
    entry = explained(doc, "trainer")
    assert [v["nodePool"] for v in entry["nodePools"]] == ["gpu", "default"]
    gpu = verdict(entry, "gpu")
    assert gpu["taints"] == [{"taint": "nvidia.com/gpu=true:NoSchedule", "key": "nvidia.com/gpu",
                              "effect": "NoSchedule"}]
    # Only the taint is in the way there: its types have the GPU.
    assert gpu["instanceTypes"]["resources"] == gpu["instanceTypes"]["nodePool"] > 0
    its = verdict(entry, "default")["instanceTypes"]
    assert (its["offered"], its["nodePool"], its["requirements"], its["resources"]) == (17, 6, 6, 0)
    assert its["missing"] == ["nvidia.com/gpu"]          # no type has any
    assert its["enoughOtherwise"]["names"] == ["m5.metal", "m6idn.32xlarge"]
    gpu_row = next(r for r in its["requests"] if r["resource"] == "nvidia.com/gpu")
    assert (gpu_row["need"], gpu_row["enough"], gpu_row["of"]) == ("1", 0, 6)


# -- too big once the DaemonSets are counted --------------------------------------------------------
DAEMONSET = """apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      tolerations: [{operator: Exists}]
      containers: [{name: a, image: agent, resources: {requests: {cpu: 100m, memory: 1Gi}}}]
"""


def test_pod_too_big_after_daemonset_overhead(tmp_path):
    pools = node_pool("default", "{key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge]}")
    code, doc, _ = run(tmp_path, pod("big", "cpu: '1', memory: 13Gi"), pools, DAEMONSET)
    entry = explained(doc, "big")
    assert entry["result"] == "Failed"
    its = verdict(entry, "default")["instanceTypes"]
    assert its["resources"] == 0
    [closest] = its["closest"]
    assert closest["name"] == "m5.xlarge"
    [memory] = closest["short"]
    assert memory["resource"] == "memory"
    # 16Gi as EC2 describes it, less the VM overhead (7.5%, whole MiB), kube-reserved (11 x 58 pods +
    # 255 MiB) and the 100Mi eviction threshold; the pod's 13Gi and the DaemonSet's 1Gi.
    assert (memory["hardware"], memory["vmOverhead"], memory["kubeReserved"], memory["evictionThreshold"]) == \
        ("16Gi", "1229Mi", "893Mi", "100Mi")
    assert q(memory["allocatable"]) == q("16Gi") - q("1229Mi") - q("893Mi") - q("100Mi")
    assert (memory["pod"], memory["daemonSets"], memory["need"]) == ("13Gi", "1Gi", "14Gi")
    assert q(memory["short"]) == q("14Gi") - q(memory["allocatable"]) == q("174Mi")
    # Without the DaemonSet it would fit: the overhead decides.
    assert q(memory["pod"]) <= q(memory["allocatable"])
    overhead = doc["explained"]["nodePools"][0]["daemonSetOverhead"]
    assert overhead == {"cpu": "100m", "memory": "1Gi", "pods": "1"}


# -- a limit reached ---------------------------------------------------------------------------------
def test_limit_reached_says_used_and_limit(tmp_path):
    pools = node_pool("default", "{key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge]}",
                      extra="  limits: {cpu: '6'}\n")
    pods = pod("a", "cpu: '3'") + pod("b", "cpu: '3'")
    code, doc, _ = run(tmp_path, pods, pools)
    entry = explained(doc, "b")
    assert entry["karpenter"] == "all available instance types exceed limits for nodepool (NodePool=default)"
    v = verdict(entry, "default")
    assert v["inTheWay"] == ["limits"]
    assert v["instanceTypes"]["resources"] == 1 and v["instanceTypes"]["limits"] == 0
    limits = v["limits"]
    assert limits["exhausted"] is False
    # The first pod's NodeClaim counts its largest type's capacity: 4 of the 6 cpu.
    assert limits["resources"] == [{"resource": "cpu", "limit": "6", "used": "4", "remaining": "2"}]
    assert limits["smallest"] == {"name": "m5.xlarge", "over": [{"resource": "cpu", "capacity": "4",
                                                                 "remaining": "2"}]}
    # The first pod's NodeClaim has no room for it either.
    [claim] = entry["newNodeClaims"]
    assert claim["nodeClaim"] == "default-00001" and claim["reason"].startswith("no instance type has enough")
    assert doc["explained"]["nodePools"][0]["limits"] == [{"resource": "cpu", "limit": "6", "used": "4"}]


def test_node_limit_exhausted_by_an_existing_node(tmp_path):
    cluster = """apiVersion: v1
kind: Node
metadata:
  name: old
  labels: {karpenter.sh/nodepool: default, kubernetes.io/hostname: old, node.kubernetes.io/instance-type: m5.large}
spec:
  providerID: aws:///test-zone-1a/i-0123456789
  taints: [{key: dedicated, value: db, effect: NoSchedule}]
status: {capacity: {cpu: '2', memory: 8Gi, pods: '29'}}
"""
    pools = node_pool("default", extra="  limits: {nodes: '1'}\n")
    code, doc, _ = run(tmp_path, pod("p"), pools, cluster)
    entry = explained(doc, "p")
    assert entry["karpenter"] == "node limits have been exhausted for nodepool (NodePool=default)"
    limits = verdict(entry, "default")["limits"]
    assert limits["exhausted"] is True
    assert limits["resources"] == [{"resource": "nodes", "limit": "1", "used": "1", "remaining": "0"}]
    # The node it would have to share: its taint.
    nodes = entry["existingNodes"]
    assert nodes["considered"] == 1
    assert nodes["reasons"] == [{"reason": "did not tolerate taint (taint=dedicated=db:NoSchedule)", "count": 1,
                                 "names": ["old"]}]


# -- zones -------------------------------------------------------------------------------------------
def test_zone_without_a_subnet_and_zone_where_the_type_is_not_sold(tmp_path):
    pools = node_pool("default", "{key: node.kubernetes.io/instance-type, operator: In, "
                                 "values: [m6idn.32xlarge, m5.xlarge]}")
    pods = pod("c", spec="  nodeSelector: {topology.kubernetes.io/zone: test-zone-1c}\n")
    code, doc, _ = run(tmp_path, pods, pools, "", "zones: [test-zone-1a, test-zone-1b]\n")
    v = verdict(explained(doc, "c"), "default")
    assert v["instanceTypes"]["requirements"] == 0
    [excluded] = v["instanceTypes"]["excludedBy"]
    assert excluded["fields"] == ["spec.nodeSelector.topology.kubernetes.io/zone"]
    assert excluded["left"] == 0 and excluded["typesHave"] == ["test-zone-1a", "test-zone-1b"]
    offerings = v["offerings"]
    assert offerings["of"] == "nodePool" and offerings["zones"] == []
    by_type = {(u["zone"], tuple(u["names"])): u["reasons"] for u in offerings["unavailable"]}
    # m6idn.32xlarge is sold in test-zone-1c but the EC2NodeClass has no subnet there; m5.xlarge
    # is not even sold there.
    assert by_type[("test-zone-1c", ("m5.xlarge",))] == ["notSold", "noSubnet"]
    assert by_type[("test-zone-1c", ("m6idn.32xlarge",))] == ["noSubnet"]


def test_insufficient_capacity_offering(tmp_path):
    pools = node_pool("default", "{key: node.kubernetes.io/instance-type, operator: In, values: [t3.large]}, "
                                 "{key: karpenter.sh/capacity-type, operator: In, values: [spot]}")
    params = "unavailableOfferings: [t3.large:test-zone-1a:spot, t3.large:test-zone-1b:spot]\n"
    code, doc, _ = run(tmp_path, pod("s"), pools, "", params)
    entry = explained(doc, "s")
    # No type of the NodePool's has an offering: the scheduler drops it (NoCompatibleInstanceTypes).
    assert entry["karpenter"] == "nodepool requirements filtered out all available instance types"
    assert entry["nodePools"] == []
    [pool] = doc["explained"]["nodePools"]
    assert pool["tried"] is False
    assert pool["why"] == ("no instance type its requirements allow has an available offering "
                           "(NoCompatibleInstanceTypes)")
    offerings = pool["offerings"]
    assert offerings["zones"] == [] and offerings["capacityTypesExcluded"] == ["on-demand"]
    reasons = {u["zone"]: u["reasons"] for u in offerings["unavailable"]}
    assert reasons["test-zone-1a"] == ["insufficientCapacity"]
    assert reasons["test-zone-1c"] == ["notSold"]


# -- NodePools the scheduler did not try, pods placed ------------------------------------------------
def test_not_tried_node_pools_and_placed_pods_only_on_request(tmp_path):
    pools = node_pool("default") + node_pool(
        "tiny", "{key: karpenter.k8s.aws/instance-family, operator: In, values: [x9]}", weight=5) + """---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: orphan}
spec:
  template:
    spec:
      requirements: []
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: missing}
"""
    code, doc, _ = run(tmp_path, pod("ok"), pools)
    assert code == 0
    assert doc["explained"]["pods"] == []                   # every pod placed
    entries = {p["nodePool"]: p for p in doc["explained"]["nodePools"]}
    assert [p["nodePool"] for p in doc["explained"]["nodePools"]] == ["tiny", "orphan", "default"]
    assert entries["default"]["tried"] is True
    assert entries["orphan"]["tried"] is False and entries["orphan"]["why"].startswith("not ready: NodeClassReady=False")
    tiny = entries["tiny"]
    assert tiny["why"] == "its requirements match none of its 17 instance types (NoCompatibleInstanceTypes)"
    assert tiny["excludedBy"][0]["requirement"] == "karpenter.k8s.aws/instance-family In [x9]"
    assert tiny["excludedBy"][0]["fields"] == ["spec.template.spec.requirements[0]"]
    _, doc, _ = run(tmp_path, pod("ok"), pools, "", "", "--nodepool", "default")
    [entry] = doc["explained"]["pods"]
    assert entry["result"] == "NewNodeClaim" and entry["nodePool"] == "default"
    assert verdict(entry, "default")["inTheWay"] == []
    assert verdict(entry, "default")["verdict"] == ""       # Karpenter's own check takes it too


def test_aws_data_source_is_said(tmp_path):
    _, doc, _ = run(tmp_path, pod("ok"), node_pool("default"))
    aws = doc["explained"]["awsData"]
    assert aws["source"] == f"AWS data {AWS}" and aws["region"] == "us-west-2"
    assert "taken" not in aws                                 # a user's data: no date of ours


def test_the_comparison_keys_are_unchanged(tmp_path):
    """`explained` (and, for a pod left unplaced, `suggestions`) is added; the keys the yardstick
    compares are the engine's, untouched."""
    _, doc, _ = run(tmp_path, pod("job", spec="  nodeSelector: {workload: batch}\n"), node_pool("default"))
    assert set(doc) == {"karpenter", "nodePools", "instanceTypes", "pods", "nodeClaims", "events", "summary",
                        "explained", "suggestions"}

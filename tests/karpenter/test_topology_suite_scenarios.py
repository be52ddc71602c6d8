"""The scenarios of Karpenter v1.13.0's topology suite (`pkg/controllers/provisioning/scheduling/
topology_test.go`) that one provisioning pass over files can express, run end to end on the AWS
data (zones test-zone-1a/b/c): what each Go test asserts (which pods schedule, how many NodeClaims,
the domains they land in), checked against the vendored code (topology.go, topologygroup.go,
topologydomaingroup.go, topologynodefilter.go) on these AWS-typed inputs. The group-level rules
have their unit tests in test_topology.py; these hold the whole pass to them."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

AWS = TESTS / "karpenter" / "cases" / "sched-aws"
ZONE, HOST, CT = "topology.kubernetes.io/zone", "kubernetes.io/hostname", "karpenter.sh/capacity-type"
ZONES = ["test-zone-1a", "test-zone-1b", "test-zone-1c"]
TEST = {"test": "test"}
SEC = {"security": "s2"}
NODE_CLASS = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
              "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole",
                       "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}],
                       "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "test"}}]}}


def node_pool(name: str = "default", *reqs: dict, zones: list[str] = ZONES, labels: dict | None = None,
              taints: list | None = None, limits: dict | None = None) -> dict:
    """m5 amd64 of any capacity type in `zones`, plus `reqs`."""
    requirements = [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["m5"]},
                    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                    {"key": CT, "operator": "Exists"}, {"key": ZONE, "operator": "In", "values": zones}, *reqs]
    spec: dict[str, Any] = {"requirements": requirements,
                            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}
    if taints:
        spec["taints"] = taints
    template: dict[str, Any] = {"spec": spec}
    if labels:
        template["metadata"] = {"labels": labels}
    pool: dict[str, Any] = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
                            "spec": {"template": template}}
    if limits is not None:
        pool["spec"]["limits"] = limits
    return pool


def pod(name: str, labels: dict | None = None, cpu: str = "100m", node: str = "", **spec: Any) -> dict:
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
                           "spec": {"containers": [{"name": "c", "image": "x",
                                                    "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}], **spec}}
    if labels:
        out["metadata"]["labels"] = labels
    if node:
        out["spec"]["nodeName"] = node
        out["status"] = {"phase": "Running"}
    return out


def node(name: str, cpu: str = "100m", taints: list | None = None, **labels: str) -> dict:
    resources = {"cpu": cpu, "memory": "16Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {HOST: name, "kubernetes.io/arch": "amd64", **labels}},
            "spec": {"taints": taints or []},
            "status": {"capacity": resources, "allocatable": resources,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def spread(key: str = ZONE, skew: int = 1, **extra: Any) -> list[dict]:
    return [{"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": TEST}, **extra}]


def anti(key: str) -> dict:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": SEC}, "topologyKey": key}]}}


def provision(tmp_path: Path, pods: list[dict], pools: list[dict], cluster: list[dict] = ()) -> dict:
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(pods))
    (tmp_path / "nodepools.yaml").write_text(yaml.safe_dump_all([*pools, NODE_CLASS]))
    args = ["karpenter", str(tmp_path / "pods.yaml")]
    if cluster:
        (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(list(cluster)))
        args += ["--nodes", str(tmp_path / "cluster.yaml")]
    env = TestEnvironment()
    code = main([*args, "--nodes", str(tmp_path / "nodepools.yaml"), "--aws-data", str(AWS), "-o", "json"], env)
    assert code in (0, 1), env.err
    return json.loads(env.out)


def placed(doc: dict, key: str) -> Counter:
    """How many pods each new NodeClaim's value of `key` got (one value each), or 'Failed'."""
    values = {}
    for claim in doc["nodeClaims"]:
        found = [r["values"] for r in claim["requirements"] if r["key"] == key and r["operator"] == "In"]
        values[claim["name"]] = ",".join(found[0]) if found else None
    return Counter(values.get(p.get("nodeClaim"), p["result"]) for p in doc["pods"])


def test_existing_pods_in_a_zone_the_nodepool_cannot_reach_cap_the_others(tmp_path):
    # "should respect NodePool zonal constraints (existing pod)": 1 pod in zone c, the NodePool in a/b only
    cluster = [node("n0", "2", **{ZONE: "test-zone-1c"}), pod("b0", TEST, "1100m", node="n0")]
    doc = provision(tmp_path, [pod(f"p{i}", TEST, "1100m", topologySpreadConstraints=spread()) for i in range(6)],
                    [node_pool(zones=ZONES[:2])], cluster)
    assert placed(doc, ZONE) == {"test-zone-1a": 2, "test-zone-1b": 2, "Failed": 2}


def test_mutually_exclusive_tainted_nodepools_sharing_a_domain_spread_each_group_on_its_own(tmp_path):
    # "...mutually exclusive NodePools (by taints) share domains (NodeTaintsPolicy=honor)": each
    # deployment's group counts only the nodes whose taints it tolerates (its own NodePool's).
    pools = [node_pool(f"np{i}", {"key": "fake-label", "operator": "In", "values": values},
                       taints=[{"key": "taint-key", "value": f"nodepool-{i}", "effect": "NoSchedule"}])
             for i, values in enumerate([["foo", "bar"], ["foo", "baz"]])]
    pods = [pod(f"d{i}-{j}", TEST, topologySpreadConstraints=spread("fake-label", nodeTaintsPolicy="Honor"),
                tolerations=[{"key": "taint-key", "effect": "NoSchedule", "value": f"nodepool-{i}"}])
            for i in range(2) for j in range((i + 1) * 2)]
    doc = provision(tmp_path, pods, pools)
    by_pool = Counter((p.get("nodePool"), v) for p in doc["pods"]
                      for c in doc["nodeClaims"] if c["name"] == p.get("nodeClaim")
                      for r in c["requirements"] if r["key"] == "fake-label" for v in r["values"])
    assert by_pool == {("np0", "foo"): 1, ("np0", "bar"): 1, ("np1", "foo"): 2, ("np1", "baz"): 2}


def test_a_nodepool_out_of_limits_still_gives_its_zone_to_the_universe(tmp_path):
    # "should spread pods while respecting both constraints" (a second NodePool with cpu limit 0):
    # zone c stays a domain with no pod, so a and b take one each and the rest fail
    pools = [node_pool("a", zones=ZONES[:2]), node_pool("b", zones=ZONES[2:], limits={"cpu": "0"})]
    doc = provision(tmp_path, [pod(f"p{i}", TEST, topologySpreadConstraints=spread() + spread(HOST))
                               for i in range(4)], pools)
    assert placed(doc, ZONE) == {"test-zone-1a": 1, "test-zone-1b": 1, "Failed": 2}


def test_inverse_zonal_anti_affinity_blocks_every_zone_a_pod_may_land_in(tmp_path):
    # "should not violate pod anti-affinity on zone (Schrödinger)": the pod with anti-affinity is on a
    # NodeClaim of three zones, so the pod it avoids has none left in this pass
    doc = provision(tmp_path, [pod("anywhere", None, "2", affinity=anti(ZONE)), pod("aff", SEC)], [node_pool()])
    results = {p["pod"]: p["result"] for p in doc["pods"]}
    assert results == {"default/anywhere": "NewNodeClaim", "default/aff": "Failed"}
    assert "pod anti-affinity, key=topology.kubernetes.io/zone" in doc["pods"][1]["error"]


def test_bound_pods_required_anti_affinity_keeps_selected_pods_out_and_a_preferred_one_does_not(tmp_path):
    # "should (not) violate (preferred) pod anti-affinity on zone (inverse w/existing nodes)"
    for kind, want in (("required", "Failed"), ("preferred", "NewNodeClaim")):
        term = anti(ZONE)["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
        block = ({"requiredDuringSchedulingIgnoredDuringExecution": [term]} if kind == "required" else
                 {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": term}]})
        cluster = []
        for i, zone in enumerate(ZONES):
            cluster += [node(f"n{i}", "2", **{ZONE: zone}), pod(f"z{i}", None, "2", node=f"n{i}",
                                                                 affinity={"podAntiAffinity": block})]
        sub = tmp_path / kind
        sub.mkdir()
        doc = provision(sub, [pod("aff", SEC)], [node_pool()], cluster)
        assert doc["pods"][0]["result"] == want, kind


def test_self_affinity_on_hostname_starts_one_node_and_no_second(tmp_path):
    # "should respect self pod affinity for first empty topology domain only (hostname)": m5.metal
    # holds three 30-cpu pods, the others may not start a second hostname
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": SEC}, "topologyKey": HOST}]}}
    doc = provision(tmp_path, [pod(f"p{i}", SEC, "30", affinity=affinity) for i in range(6)], [node_pool()])
    assert len(doc["nodeClaims"]) == 1
    assert Counter(p["result"] for p in doc["pods"]) == {"NewNodeClaim": 3, "Failed": 3}


def test_capacity_type_spread_counts_an_existing_node_the_nodepool_cannot_make(tmp_path):
    # "should balance pods across capacity-types (no constraints)": an on-demand node with one pod,
    # the NodePool spot only: two spot pods, then the skew holds the rest
    cluster = [node("n0", **{ZONE: "test-zone-1a", CT: "on-demand"}), pod("b0", TEST, node="n0")]
    pool = node_pool("default", {"key": CT, "operator": "In", "values": ["spot"]})
    doc = provision(tmp_path, [pod(f"p{i}", TEST, "2", topologySpreadConstraints=spread(CT)) for i in range(5)],
                    [pool], cluster)
    assert placed(doc, CT) == {"spot": 2, "Failed": 3}

"""`kexplain POD --nodes ...` with Karpenter's NodePools among the objects: the "Karpenter"
section after the scheduler's verdict (one provisioning pass over every pending pod, each pod's
answer), the trace's `karpenter` key and the pod's answer in `autoscalers`, replicas and several
pods sharing one NodeClaim, `--nodepool NAME`, the verified fixes, and the errors of the options.
On fixtures/karpenter with the catalog kexplain ships."""
from __future__ import annotations

import json

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES
from tests.support.copies import copy_names

CASE = FIXTURES / "karpenter"
CLUSTER = ["--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodepools.yaml")]


def kexplain(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    env = TestEnvironment(width=100, stdin=stdin.encode()) if stdin is not None else TestEnvironment(width=100)
    code = main(list(args), env=env)
    return code, env.out, env.err


def flat(text: str) -> str:
    return " ".join(text.split())


def test_a_gpu_pod_gets_a_new_nodeclaim_from_the_gpu_nodepool():
    code, out, err = kexplain(str(CASE / "trainer.yaml"), *CLUSTER, "--no-suggestions")
    assert code == 1, err       # the scheduler's verdict: unschedulable on today's nodes
    lines = out.splitlines()
    # what Karpenter does, at the top, before the details
    assert lines[1].startswith("Karpenter: NewNodeClaim (a new NodeClaim): new NodeClaim gpu-00001 from NodePool")
    assert out.index("Rejected nodes, by reason") < out.index("Karpenter: 1 new NodeClaim; pods: 1 NewNodeClaim")
    section = flat(out[out.index("Karpenter: 1 new NodeClaim"):])
    assert "Instance types and prices from kexplain's AWS instance-type catalog, taken 20" in section  # its date
    assert ("Pod default/trainer: NewNodeClaim (a new NodeClaim): new NodeClaim gpu-00001 from NodePool gpu: "
            "g6.2xlarge $") in section
    assert "New NodeClaims" in section and "NodePool gpu" in section


def test_does_not_have_known_values_per_nodepool_with_the_fixes():
    code, out, err = kexplain(str(CASE / "pod.yaml"), *CLUSTER)
    assert code == 1, err
    assert out.splitlines()[1] == "Karpenter: Failed (no NodePool can take it)."
    section = flat(out[out.index("Karpenter: 0 new NodeClaims"):])
    # in Karpenter's order (weight first), each NodePool's verdict, in kexplain karpenter's words
    gpu, general = section.index("NodePool gpu (weight 10)"), section.index("NodePool general (weight 0)")
    assert gpu < general
    assert 'label "workload" does not have known values' in section
    assert "the NodePool must declare label workload: a template label workload: batch" in section
    # the fixes, each verified by Karpenter's pass again
    assert "What would make Karpenter place them" in section
    assert "NodePool general: declare the label workload=batch" in section
    # a node comes from a NodePool: no "add a node like" fix from the scheduler's side
    assert "add a node like" not in out


def test_json_the_pods_answer_and_the_pass_document():
    code, out, err = kexplain(str(CASE / "pod.yaml"), *CLUSTER, "-o", "json", "--no-suggestions")
    assert code == 1, err
    trace = json.loads(out)
    [answer] = trace["autoscalers"]
    assert answer["autoscaler"] == "Karpenter" and answer["pod"] == "default/batch-job"
    assert answer["outcome"] == "Failed"
    assert any('label "workload" does not have known values' in r for r in answer["reasons"])
    assert [p["nodePool"] for p in answer["explained"]["nodePools"]] == ["gpu", "general"]
    doc = trace["karpenter"]
    assert doc["pods"][0]["pod"] == "default/batch-job"
    assert doc["pendingPass"]["pods"]["default/batch-job"] == {"standsFor": "Pod default/batch-job"}
    assert "instanceTypes" not in doc            # the provider's listing: kexplain karpenter prints it
    assert all("instanceTypes" not in p and p["instanceTypeCount"] > 0 for p in doc["nodePools"])


def test_replicas_share_one_nodeclaim():
    code, out, err = kexplain(str(CASE / "web.yaml"), *CLUSTER, "--no-suggestions")
    assert code == 1, err
    section = out[out.index("\nKarpenter: "):]
    assert "Karpenter: 1 new NodeClaim; pods: 3 NewNodeClaim" in section
    for copy in (f"default/{n}" for n in copy_names(CASE / "web.yaml", 3)):
        row = next(line for line in section.splitlines() if line.startswith(copy))
        assert "NodeClaim general-00001" in row


def test_json_replicas_each_copy_its_answer():
    code, out, err = kexplain(str(CASE / "web.yaml"), *CLUSTER, "-o", "json", "--no-suggestions")
    doc = json.loads(out)
    [placement] = doc["placements"]
    assert [(a["pod"], a["outcome"], a["nodeClaim"]) for a in placement["autoscalers"]] == [
        (f"default/{n}", "NewNodeClaim", "general-00001") for n in copy_names(CASE / "web.yaml", 3)]
    assert doc["karpenter"]["summary"] == {"pods": {"NewNodeClaim": 3}, "newNodeClaims": 1}
    assert "autoscaler" not in doc          # no node groups: CA did not run


def test_several_pods_one_pass_each_its_answer():
    pods = "\n---\n".join((CASE / name).read_text() for name in ("pod.yaml", "trainer.yaml",
                                                                 "trainer-untolerating.yaml"))
    # (an API server without ExtendedResourceToleration: on EKS's it gives the trainer its toleration)
    code, out, err = kexplain("-", *CLUSTER, "--no-suggestions", "--admission-plugins", "default", stdin=pods)
    assert code == 1, err
    section = out[out.index("\nKarpenter: "):]
    assert "Karpenter: 1 new NodeClaim; pods: 2 Failed, 1 NewNodeClaim" in section
    assert "Why not placed: default/batch-job (Failed)" in section
    assert "Why not placed: default/trainer-untolerating (Failed)" in section
    assert "no instance type left has any nvidia.com/gpu" in flat(section)


def test_nodepool_shows_one_nodepools_verdict():
    code, out, err = kexplain(str(CASE / "pod.yaml"), *CLUSTER, "--nodepool", "general", "--no-suggestions")
    assert code == 1, err
    assert "NodePool general (weight 0)" in out and "Pod default/batch-job: Failed" in out
    assert "NodePool gpu (weight 10)" not in out


def test_a_wrong_nodepool_is_refused_with_the_closest():
    code, out, err = kexplain(str(CASE / "pod.yaml"), *CLUSTER, "--nodepool", "genral", "--no-suggestions")
    assert code == 2
    assert "--nodepool genral: no NodePool of that name" in err and "general" in err


def test_karpenter_options_without_nodepools_are_refused():
    code, out, err = kexplain(str(CASE / "pod.yaml"), "--nodes", str(CASE / "cluster.yaml"),
                              "--aws-data", str(CASE))
    assert code == 2
    assert "--aws-data is for Karpenter's NodePools" in err


def test_no_nodepools_no_section():
    code, out, err = kexplain(str(CASE / "pod.yaml"), "--nodes", str(CASE / "cluster.yaml"),
                              "--no-suggestions")
    assert code == 1
    assert "Karpenter" not in out


def test_a_scheduled_pod_gets_no_section():
    pod = (CASE / "pod.yaml").read_text().replace("nodeSelector: {workload: batch}", "nodeSelector: {}") \
        .replace('cpu: "1", memory: 1Gi', "cpu: 100m, memory: 128Mi")
    code, out, err = kexplain("-", *CLUSTER, "--no-suggestions", stdin=pod)
    assert code == 0, err
    assert "Karpenter" not in out


def test_bad_karpenter_settings_are_refused_whatever_the_verdict(tmp_path):
    config = tmp_path / "karpenter.yaml"
    config.write_text("preferencePolicy: Sometimes\n")
    pod = (CASE / "pod.yaml").read_text().replace("nodeSelector: {workload: batch}", "nodeSelector: {}") \
        .replace('cpu: "1", memory: 1Gi', "cpu: 100m, memory: 128Mi")
    code, out, err = kexplain("-", *CLUSTER, "--karpenter-config", str(config), stdin=pod)
    assert code == 2
    assert "Sometimes" in err


def test_nodepools_in_the_pod_file_join_the_cluster_of_nodes():
    pods = (CASE / "pod.yaml").read_text() + "\n---\n" + (CASE / "nodepools.yaml").read_text()
    code, out, err = kexplain("-", "--nodes", str(CASE / "cluster.yaml"), "--no-suggestions", stdin=pods)
    assert code == 1, err
    assert out.splitlines()[1] == "Karpenter: Failed (no NodePool can take it)."
    assert "existing nodes: 1 considered" in out         # the cluster's node, kept for the pass


def test_ca_and_karpenter_both_answer_from_one_pending_pass():
    groups = str(FIXTURES / "autoscaler" / "nodegroups.yaml")
    code, out, err = kexplain(str(CASE / "trainer.yaml"), *CLUSTER, "--node-groups", groups, "--no-suggestions")
    assert code == 1, err
    top = out.splitlines()[1:3]
    assert top[0].startswith("Cluster autoscaler: ") and top[1].startswith("Karpenter: NewNodeClaim")
    assert out.index("\nCluster autoscaler\n") < out.index("\nKarpenter: 1 new NodeClaim")
    code, out, err = kexplain(str(CASE / "trainer.yaml"), *CLUSTER, "--node-groups", groups, "--no-suggestions",
                              "-o", "json")
    trace = json.loads(out)
    assert [a["autoscaler"] for a in trace["autoscalers"]] == ["ClusterAutoscaler", "Karpenter"]
    assert "autoscaler" in trace and "karpenter" in trace

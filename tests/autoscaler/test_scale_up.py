"""One loop end to end on a small cluster written here: the free room first, then the binpacking
estimate per group, the expander's choice, the caps, the events and the exit code."""
from __future__ import annotations

import json

import pytest

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment

NODE = """apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {pool: small, kubernetes.io/hostname: n1}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
"""
GROUPS = """nodeGroups:
- name: small
  minSize: 0
  maxSize: 5
  nodeSelector: {pool: small}
- name: big
  minSize: 0
  maxSize: 2
  nodeSelector: {pool: big}
  template:
    metadata: {labels: {pool: big}}
    status:
      capacity: {cpu: "16", memory: 8Gi, pods: "110"}
- name: empty
  minSize: 0
  maxSize: 2
  nodeSelector: {pool: none}
"""


def pods(n: int, cpu: str = "1500m") -> str:
    return "".join(f"""---
apiVersion: v1
kind: Pod
metadata:
  name: web-{i}
  labels: {{app: web}}
  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: rs-web, controller: true}}]
spec:
  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
""" for i in range(n))


def run(tmp_path, pending: str, params: str | None = None, groups: str = GROUPS, output: str = "json"):
    (tmp_path / "pods.yaml").write_text(pending)
    (tmp_path / "cluster.yaml").write_text(NODE)
    (tmp_path / "groups.yaml").write_text(groups)
    args = ["autoscale", str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "cluster.yaml"),
            "--node-groups", str(tmp_path / "groups.yaml"), "-o", output]
    if params is not None:
        (tmp_path / "params.yaml").write_text(params)
        args += ["--autoscaler-config", str(tmp_path / "params.yaml")]
    env = TestEnvironment()
    code = main(args, env)
    return code, (json.loads(env.out) if output == "json" and code in (0, 1) else env.out), env.err


def outcomes(doc):
    return [p["outcome"] + (f"/{p['filteredBy']}" if p.get("filteredBy") else "") for p in doc["pods"]]


def test_free_room_first_then_the_cheapest_option(tmp_path):
    code, doc, _ = run(tmp_path, pods(5))
    assert code == 0
    assert doc["result"] == "ScaleUpSuccessful"
    assert outcomes(doc) == ["FilteredOut/FilterOutSchedulable"] * 2 + ["TriggeredScaleUp"] * 3
    options = {o["nodeGroup"]: o["nodeCount"] for o in doc["expansion"]["options"]}
    assert options == {"small": 2, "big": 1}          # 2 pods per 4-cpu node, 3 on a 16-cpu one
    assert doc["expansion"]["bestOption"]["nodeGroup"] == "small"     # least waste
    assert doc["pods"][4]["events"][0]["message"] == "pod triggered scale-up: [{small 1->3 (max: 5)}]"
    assert [g["newTargetSize"] for g in doc["nodeGroups"]] == [3, 0, 0]
    assert doc["nodeGroups"][2]["template"] is None
    assert doc["nodeGroups"][2]["skipped"] == ["not ready for scale-up"]
    assert doc["nodeGroups"][1]["template"]["labels"]["cluster-autoscaler.kubernetes.io/template-node"] == "true"
    assert [e["message"] for e in doc["clusterEvents"]] == [
        "Scale-up: setting group small size to 3 instead of 1 (max: 5)",
        "Scale-up: group small size set to 3 instead of 1 (max: 5)"]


def test_max_nodes_total_caps_the_estimate(tmp_path):
    code, doc, _ = run(tmp_path, pods(5), "maxNodesTotal: 2\n")
    assert code == 1
    assert {o["nodeGroup"]: o["nodeCount"] for o in doc["expansion"]["options"]} == {"small": 1, "big": 1}
    assert doc["expansion"]["scaleUps"] == [{"nodeGroup": "small", "currentSize": 1, "newSize": 2, "maxSize": 5}]
    assert sorted(outcomes(doc)) == sorted(["FilteredOut/FilterOutSchedulable"] * 2 + ["TriggeredScaleUp"] * 2
                                           + ["NoEvent"])


def test_max_nodes_total_reached_stops_before_the_scale_up(tmp_path):
    code, doc, _ = run(tmp_path, pods(3), "maxNodesTotal: 1\n")
    assert code == 1
    assert (doc["result"], doc["scaleUpCalled"], doc["expansion"]) == ("ScaleUpLimitedByMaxNodesTotal", False, None)
    assert doc["pods"][2]["events"] == [{"type": "Normal", "reason": "NotTriggerScaleUp",
                                         "message": "pod didn't trigger scale-up: max total nodes in cluster reached"}]
    assert doc["clusterEvents"][0]["reason"] == "MaxNodesTotalReached"


def test_a_pod_no_group_takes_gets_the_reasons_per_group(tmp_path):
    code, doc, _ = run(tmp_path, pods(1, cpu="20"))
    assert code == 1
    assert doc["result"] == "ScaleUpNoOptionsAvailable"
    (pod,) = doc["pods"]
    assert pod["outcome"] == "NotTriggerScaleUp"
    assert pod["nodeGroups"]["big"] == {"verdict": "rejected", "predicate": "NodeResourcesFit",
                                        "reasons": ["Insufficient cpu"]}
    # sorted by the reason after the count, byte order: capitals first
    assert pod["events"][0]["messageParts"] == ["2 Insufficient cpu", "1 not ready for scale-up"]
    assert pod["events"][0]["message"] == "pod didn't trigger scale-up: 2 Insufficient cpu, 1 not ready for scale-up"


def test_expendable_and_young_pods_are_filtered(tmp_path):
    code, doc, _ = run(tmp_path, pods(1), "flags:\n  new-pod-scale-up-delay: 1h\n")
    assert outcomes(doc) == ["FilteredOut/FilterOutSchedulable"]
    code, doc, _ = run(tmp_path, pods(3), "flags:\n  new-pod-scale-up-delay: 1h\n")
    assert outcomes(doc) == ["FilteredOut/FilterOutSchedulable"] * 2 + ["FilteredOut/TooYoung"]
    assert doc["result"] == "ScaleUpNotNeeded"


def test_scaledown_mode_runs_the_scale_up_part(tmp_path):
    code, doc, _ = run(tmp_path, pods(3), "mode: scaledown\n")
    assert doc["kind"] == "ClusterAutoscalerScaleDown"
    assert doc["result"] == "ScaleUpSuccessful"


def test_the_table_view(tmp_path):
    code, text, _ = run(tmp_path, pods(5), output="table")
    assert code == 0
    assert "ScaleUpSuccessful" in text and "small" in text and "TriggeredScaleUp" in text


@pytest.mark.parametrize(("groups", "words"), [
    (GROUPS.replace("pool: big}", "pool: small}", 1), "node n1 is selected by two node groups, small and big"),
    ("nodeGroups: [{name: x}]\n", "maxSize: required"),
])
def test_bad_node_groups_exit_2(tmp_path, groups, words):
    code, _, err = run(tmp_path, pods(1), groups=groups)
    assert code == 2
    assert words in err and "groups.yaml" in err


def test_an_unknown_flag_exits_2(tmp_path):
    code, _, err = run(tmp_path, pods(1), "flags:\n  turbo: true\n")
    assert code == 2 and "cluster-autoscaler has no flag --turbo" in err


def test_a_group_without_instances_but_a_target_size_is_not_ready(tmp_path):
    groups = GROUPS.replace("  maxSize: 2\n  nodeSelector: {pool: big}", "  maxSize: 2\n  targetSize: 1\n  nodeSelector: {pool: big}")
    code, doc, _ = run(tmp_path, pods(5), groups=groups)
    assert doc["nodeGroups"][1]["skipped"] == ["not ready for scale-up"]
    assert [o["nodeGroup"] for o in doc["expansion"]["options"]] == ["small"]


def test_an_unhealthy_cluster_stops_the_loop(tmp_path):
    unready = "".join(NODE.replace("name: n1", f"name: u{i}").replace("n1}", f"u{i}}}").replace(
        "pool: small", "pool: other") + "  conditions: [{type: Ready, status: 'False'}]\n---\n" for i in range(4))
    (tmp_path / "extra.yaml").write_text(unready)
    (tmp_path / "pods.yaml").write_text(pods(3))
    (tmp_path / "cluster.yaml").write_text(NODE)
    (tmp_path / "groups.yaml").write_text(GROUPS)
    env = TestEnvironment()
    code = main(["autoscale", str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), "--nodes",
                 str(tmp_path / "extra.yaml"), "--node-groups", str(tmp_path / "groups.yaml"), "-o", "json"], env)
    doc = json.loads(env.out)
    assert (code, doc["result"], doc["scaleUpCalled"]) == (1, "ScaleUpNotTried", False)
    assert doc["clusterEvents"][0]["reason"] == "ClusterUnhealthy"


def test_pods_are_needed_in_scale_up_mode_only(tmp_path):
    (tmp_path / "cluster.yaml").write_text(NODE)
    (tmp_path / "groups.yaml").write_text(GROUPS)
    base = ["autoscale", "--nodes", str(tmp_path / "cluster.yaml"), "--node-groups", str(tmp_path / "groups.yaml")]
    env = TestEnvironment()
    assert main(base, env) == 2 and "PODS (the pending pods) is needed in scale-up mode" in env.err
    (tmp_path / "params.yaml").write_text("mode: scaledown\n")
    env = TestEnvironment()
    assert main([*base, "--autoscaler-config", str(tmp_path / "params.yaml"), "-o", "json"], env) == 0
    assert json.loads(env.out)["pods"] == []
    (tmp_path / "pods.yaml").write_text("")
    code, doc, _ = run(tmp_path, "")
    assert (code, doc["result"]) == (0, "ScaleUpNotNeeded")


def test_gated_nominated_and_ended_pods_are_not_listed(tmp_path):
    text = pods(4)
    docs = text.split("---\n")[1:]
    docs[1] = docs[1].replace("spec:\n", "spec:\n  schedulingGates: [{name: wait}]\n")
    docs[2] += "status: {nominatedNodeName: n1}\n"
    docs[3] += "status: {phase: Failed}\n"
    code, doc, _ = run(tmp_path, "".join("---\n" + d for d in docs))
    assert outcomes(doc) == ["FilteredOut/FilterOutSchedulable"] + ["NotListedAsUnschedulable"] * 3


def test_pods_from_stdin(tmp_path):
    (tmp_path / "cluster.yaml").write_text(NODE)
    (tmp_path / "groups.yaml").write_text(GROUPS)
    env = TestEnvironment(stdin=pods(5).encode())
    code = main(["autoscale", "-", "--nodes", str(tmp_path / "cluster.yaml"), "--node-groups",
                 str(tmp_path / "groups.yaml"), "-o", "json"], env)
    assert code == 0 and json.loads(env.out)["expansion"]["bestOption"]["nodeCount"] == 2

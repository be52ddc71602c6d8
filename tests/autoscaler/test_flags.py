"""CA's flags as CA applies them, each on a small cluster written here (`kexplain autoscale`):
startup taints, --gpu-total, --enforce-node-group-min-size, the simulation on skipped groups,
CSI-node-aware scheduling, the first loop's cleanup, the status ConfigMap flags, the pod
lister's scheduler flags, the cluster's health, and the flags refused."""
from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from kexplain.autoscaler.params import FLAGS, NO_EFFECT, ONLY, REFUSED, parse_settings
from kexplain.cli.app import main
from kexplain.errors import InputError, Source
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT


def node(name: str, pool: str, cpu: str = "4", taints: list | None = None, **extra: Any) -> dict:
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Node",
                           "metadata": {"name": name, "labels": {"pool": pool, "kubernetes.io/hostname": name}},
                           "status": {"capacity": {"cpu": cpu, "memory": "16Gi", "pods": "110"},
                                      "allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110"}}}
    if taints:
        obj["spec"] = {"taints": taints}
    for key, value in extra.items():
        obj.setdefault(key, {}).update(value)
    return obj


def pod(name: str, cpu: str = "1", **spec: Any) -> dict:
    resources: dict[str, Any] = {"requests": {"cpu": cpu}}
    if spec.pop("gpu", None):
        resources = {"requests": {"cpu": cpu, "nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                              "uid": "rs-web", "controller": True}]},
            "spec": {"containers": [{"name": "c", "image": "nginx", "resources": resources}], **spec}}


def group(name: str, max_size: int = 5, template: dict | None = None, **extra: Any) -> dict:
    out = {"name": name, "minSize": 0, "maxSize": max_size, "nodeSelector": {"pool": name}, **extra}
    if template is not None:
        out["template"] = template
    return out


def template(pool: str, cpu: str = "4", labels: dict | None = None, **status: Any) -> dict:
    return {"metadata": {"labels": {"pool": pool, **(labels or {})}},
            "status": {"capacity": {"cpu": cpu, "memory": "16Gi", "pods": "110", **status},
                       "allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110", **status}}}


def filler(node_name: str, cpu: str) -> dict:
    """A bound pod taking `cpu` of the node, so that the pending pods need a new one."""
    out = pod(f"filler-{node_name}", cpu, nodeName=node_name)
    out["metadata"]["name"] = f"filler-{node_name}"
    return out


def run(tmp_path, pending: list, cluster: list, groups: list, params: dict | None = None):
    """`kexplain autoscale` on the objects given: (exit code, document or None, stderr)."""
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump_all(pending) if pending else "")
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(cluster))
    (tmp_path / "groups.yaml").write_text(yaml.safe_dump({"nodeGroups": groups}))
    args = ["autoscale", str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "cluster.yaml"),
            "--node-groups", str(tmp_path / "groups.yaml"), "-o", "json"]
    if params is not None:
        (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
        args += ["--autoscaler-config", str(tmp_path / "params.yaml")]
    env = TestEnvironment()
    code = main(args, env)
    return code, (json.loads(env.out) if code in (0, 1) else None), env.err


def by_name(doc: dict, key: str = "nodeGroups") -> dict:
    return {g["name"]: g for g in doc[key]}


# -- startup taints --------------------------------------------------------------------------------
BOOT = "example.com/boot"


@pytest.mark.parametrize(("key", "flags", "source", "taints"), [
    ("startup-taint.cluster-autoscaler.kubernetes.io/cni", {}, "template", []),
    ("ignore-taint.cluster-autoscaler.kubernetes.io/cni", {}, "template", []),
    (BOOT, {"startup-taint": [BOOT]}, "template", []),
    (BOOT, {"ignore-taint": [BOOT]}, "template", []),
    (BOOT, {"startup-taint-prefix": ["example.com/"]}, "template", []),
    ("status-taint.cluster-autoscaler.kubernetes.io/cni", {}, "node", []),      # dropped, but the node is ready
    (BOOT, {"status-taint": [BOOT]}, "node", []),
    (BOOT, {}, "node", [{"key": BOOT, "value": "x", "effect": "NoSchedule"}]),  # an ordinary taint stays
])
def test_a_node_with_a_startup_taint_is_unready_and_never_the_template(tmp_path, key, flags, source, taints):
    cluster = [node("n1", "small", taints=[{"key": key, "value": "x", "effect": "NoSchedule"}])]
    groups = [group("small", template=template("small", labels={"from": "provider"}))]
    code, doc, err = run(tmp_path, [pod("p", "8")], cluster, groups, {"flags": flags})
    made = by_name(doc)["small"]["template"]
    assert (made["source"], made["taints"]) == (source, taints), err
    # a provider template gets the deprecated beta labels, a member's does not
    assert ("from" in made["labels"]) == (source == "template")


def test_a_startup_tainted_member_is_still_the_last_resort_template(tmp_path):
    key = "startup-taint.cluster-autoscaler.kubernetes.io/cni"
    cluster = [node("n1", "small", taints=[{"key": key, "effect": "NoSchedule"}])]
    code, doc, _ = run(tmp_path, [pod("p", "8")], cluster, [group("small")])
    made = by_name(doc)["small"]["template"]
    assert made["source"] == "node" and made["taints"] == []


def test_startup_tainted_nodes_count_as_unready(tmp_path):
    # 4 of 5 nodes starting up: unready beyond --ok-total-unready-count and 45%: the cluster is unhealthy
    key = "startup-taint.cluster-autoscaler.kubernetes.io/cni"
    cluster = [node(f"n{i}", "small", taints=[{"key": key, "effect": "NoSchedule"}]) for i in range(4)]
    cluster.append(node("n4", "small"))
    code, doc, _ = run(tmp_path, [pod("p", "8")], cluster, [group("small")])
    assert doc["result"] == "ScaleUpNotTried"
    assert [e["reason"] for e in doc["clusterEvents"]] == ["ClusterUnhealthy"]


@pytest.mark.parametrize(("created", "healthy"), [("5m", True), ("2h", False)])
def test_nodes_not_started_yet_do_not_make_the_cluster_unhealthy(tmp_path, created, healthy):
    from datetime import datetime, timedelta, timezone
    at = datetime.now(timezone.utc) - (timedelta(minutes=5) if created == "5m" else timedelta(hours=2))
    stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
    unready = [node(f"n{i}", "small", metadata={"creationTimestamp": stamp},
                    status={"conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": stamp}]})
               for i in range(4)]
    code, doc, _ = run(tmp_path, [pod("p", "8")], [*unready, node("n4", "small")], [group("small", 9)],
                       {"flags": {"max-node-startup-time": "15m"}})
    assert (doc["result"] != "ScaleUpNotTried") == healthy


# -- --gpu-total -----------------------------------------------------------------------------------
GPU_GROUPS = [group("small"), group("gpu", 6, template("gpu", "8", {"TestGPULabel/accelerator": "nvidia-tesla-t4"},
                                                         **{"nvidia.com/gpu": "4"}))]


@pytest.mark.parametrize(("limit", "result", "new_size", "skipped"), [
    ([], "ScaleUpSuccessful", 3, None),                                  # 12 GPUs: 3 nodes of 4
    (["nvidia-tesla-t4:0:8"], "ScaleUpSuccessful", 2, None),             # capped to 8 GPUs
    (["nvidia-tesla-t4:0:3"], "ScaleUpNoOptionsAvailable", 0,            # not even one node of 4
     ['exceeded quota: "cluster-wide", resources: nvidia-tesla-t4']),
    (["nvidia-tesla-k80:0:1"], "ScaleUpSuccessful", 3, None),            # another GPU type: no limit
])
def test_gpu_total_skips_groups_and_caps_scale_ups(tmp_path, limit, result, new_size, skipped):
    pending = [pod(f"t{i}", "1", gpu=True) for i in range(12)]
    code, doc, err = run(tmp_path, pending, [node("n1", "small")], GPU_GROUPS, {"flags": {"gpu-total": limit}})
    assert doc["result"] == result, err
    gpu = by_name(doc)["gpu"]
    assert (gpu["newTargetSize"], gpu["skipped"]) == (new_size, skipped)
    if skipped:
        assert doc["pods"][0]["events"][0]["message"] == (
            'pod didn\'t trigger scale-up: 1 Insufficient nvidia.com/gpu, '
            '1 exceeded quota: "cluster-wide", resources: nvidia-tesla-t4')


@pytest.mark.parametrize(("value", "words"), [
    ("t4:1", "incorrect gpu limit specification: t4:1"),
    ("t4:x:2", "incorrect gpu limit - min is not integer: t4:x:2"),
    ("t4:3:2", "incorrect gpu limit - min is greater than max; t4:3:2"),
])
def test_a_bad_gpu_total_is_refused(tmp_path, value, words):
    code, doc, err = run(tmp_path, [pod("p")], [node("n1", "small")], [group("small")],
                         {"flags": {"gpu-total": [value]}})
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


# -- --enforce-node-group-min-size -----------------------------------------------------------------
@pytest.mark.parametrize(("flags", "result", "sizes", "events"), [
    ({}, "ScaleUpNotNeeded", {"small": 1, "big": 0}, []),
    ({"enforce-node-group-min-size": True}, "ScaleUpSuccessful", {"small": 3, "big": 2},
     ["Scale-up: setting group small size to 3 instead of 1 (max: 5)",
      "Scale-up: group small size set to 3 instead of 1 (max: 5)",
      "Scale-up: setting group big size to 2 instead of 0 (max: 5)",
      "Scale-up: group big size set to 2 instead of 0 (max: 5)"]),
    # CA caps by the group's own target size: 1 + 2 > 2 leaves small 1 more, big (0 + 2) untouched
    ({"enforce-node-group-min-size": True, "max-nodes-total": 2}, "ScaleUpSuccessful", {"small": 2, "big": 2},
     ["Max total nodes in cluster reached: 2",
      "Scale-up: setting group small size to 2 instead of 1 (max: 5)",
      "Scale-up: group small size set to 2 instead of 1 (max: 5)",
      "Scale-up: setting group big size to 2 instead of 0 (max: 5)",
      "Scale-up: group big size set to 2 instead of 0 (max: 5)"]),
])
def test_groups_below_their_minimum_grow_to_it(tmp_path, flags, result, sizes, events):
    groups = [group("small", minSize=3), group("big", minSize=2, template=template("big"))]
    code, doc, err = run(tmp_path, [pod("p")], [node("n1", "small")], groups, {"flags": flags})
    assert doc["result"] == result, err
    assert {g["name"]: g["newTargetSize"] for g in doc["nodeGroups"]} == sizes
    assert [e["message"] for e in doc["clusterEvents"]] == events
    assert doc["pods"][0]["filteredBy"] == "FilterOutSchedulable"


@pytest.mark.parametrize(("min_size", "result", "scale_ups"), [
    # the scale-up ran (p2 needs a node), then the minimum needs nothing more: NotNeeded is the loop's
    (1, "ScaleUpNotNeeded", []),
    # the minimum grows the group further: that scale-up's plan is the loop's, p2 is in none of its lists
    (3, "ScaleUpSuccessful", [{"nodeGroup": "small", "currentSize": 2, "newSize": 3, "maxSize": 5}]),
])
def test_the_min_size_status_replaces_the_loops(tmp_path, min_size, result, scale_ups):
    """RunOnce hands CA's status processor the scale-up's status, then the min-size's: the result is the
    latter's, and p2 keeps the TriggeredScaleUp the former recorded."""
    groups = [group("small", minSize=min_size)]
    code, doc, _ = run(tmp_path, [pod("p1", "3"), pod("p2", "3")], [node("n1", "small")], groups,
                       {"flags": {"enforce-node-group-min-size": True}})
    assert doc["scaleUpCalled"] and doc["result"] == result
    assert doc["expansion"]["scaleUps"] == scale_ups
    assert doc["expansion"]["chosenScaleUps"] == [{"nodeGroup": "small", "currentSize": 1, "newSize": 2,
                                                   "maxSize": 5}]
    assert doc["expansion"]["podsTriggeredScaleUp"] == []
    p2 = doc["pods"][1]
    assert (p2["outcome"], p2["events"]) == ("TriggeredScaleUp", [{
        "type": "Normal", "reason": "TriggeredScaleUp", "message": "pod triggered scale-up: [{small 1->2 (max: 5)}]"}])
    assert ("minSizeScaleUps" in doc) == bool(scale_ups)
    assert code == 0


def test_the_groups_grown_to_their_minimum_are_named(tmp_path):
    groups = [group("small", minSize=3), group("big", minSize=2, template=template("big"))]
    params = {"flags": {"enforce-node-group-min-size": True}}
    _, doc, _ = run(tmp_path, [pod("p")], [node("n1", "small")], groups, params)
    assert doc["minSizeScaleUps"] == [
        {"nodeGroup": "small", "currentSize": 1, "newSize": 3, "minSize": 3, "maxSize": 5},
        {"nodeGroup": "big", "currentSize": 0, "newSize": 2, "minSize": 2, "maxSize": 5}]
    env = TestEnvironment()
    assert main(["autoscale", str(tmp_path / "pods.yaml"), "--nodes", str(tmp_path / "cluster.yaml"),
                 "--node-groups", str(tmp_path / "groups.yaml"), "--autoscaler-config",
                 str(tmp_path / "params.yaml")], env) == 0
    assert " ".join(env.out.split("\n\n")[0].split()) == (
        "Cluster Autoscaler: ScaleUpSuccessful (scale-up) --enforce-node-group-min-size then grows the node groups "
        "below their minimum size (ScaleUpToNodeGroupMinSize, whose status is the loop's): small 1 -> 3 (min 3, "
        "max 5), big 0 -> 2 (min 2, max 5).")
    # the explanation's section says it after the expander's choice: a pod no node takes
    (tmp_path / "big.yaml").write_text(yaml.safe_dump(pod("big", "6")))
    env = TestEnvironment()
    assert main([str(tmp_path / "big.yaml"), "--nodes", str(tmp_path / "cluster.yaml"), "--node-groups",
                 str(tmp_path / "groups.yaml"), "--autoscaler-config", str(tmp_path / "params.yaml"),
                 "--no-suggestions"], env) == 1
    assert ("--enforce-node-group-min-size then grows the node groups below their minimum size "
            "(ScaleUpToNodeGroupMinSize, whose status is the loop's): small 1 -> 3 (min 3, max 5), big 0 -> 2 (min 2, "
            "max 5).") in " ".join(env.out.split())


# -- the simulation on skipped groups --------------------------------------------------------------
@pytest.mark.parametrize(("cpu", "flag", "message"), [
    ("20", False, "1 Insufficient cpu, 1 max node group size reached"),
    ("20", True, "2 Insufficient cpu"),                      # the skipped group rejects it too
    ("10", True, "1 Insufficient cpu, 1 max node group size reached"),   # it would fit there: skipped stays
])
def test_skipped_groups_are_simulated_when_the_flag_says(tmp_path, cpu, flag, message):
    groups = [group("small"), group("big", 1)]              # big is at its max size: skipped
    cluster = [node("n1", "small"), node("n2", "big", "16"), filler("n2", "16")]
    code, doc, _ = run(tmp_path, [pod("p", cpu)], cluster, groups,
                       {"flags": {"scaleup-simulation-for-skipped-node-groups-enabled": flag}})
    assert doc["result"] == "ScaleUpNoOptionsAvailable"
    assert doc["pods"][0]["events"][0]["message"] == f"pod didn't trigger scale-up: {message}"


# -- CSI-node-aware scheduling ---------------------------------------------------------------------
def _storage(csi_nodes: list[str]) -> list[dict]:
    objects: list[dict] = [{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "gp3"},
                            "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer"}]
    for claim in ("a", "b"):
        objects.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                        "metadata": {"name": claim, "namespace": "default"},
                        "spec": {"storageClassName": "gp3", "accessModes": ["ReadWriteOnce"],
                                 "resources": {"requests": {"storage": "1Gi"}}}})
    for name in csi_nodes:
        objects.append({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name},
                        "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": name,
                                              "allocatable": {"count": 1}}]}})
    return objects


@pytest.mark.parametrize(("flag", "verdict"), [
    (False, {"verdict": "fits"}),
    (True, {"verdict": "rejected", "predicate": "NodeVolumeLimits", "reasons": ["node(s) exceed max volume count"]}),
])
def test_templates_carry_the_members_csinode(tmp_path, flag, verdict):
    volumes = [{"name": c, "persistentVolumeClaim": {"claimName": c}} for c in ("a", "b")]
    waiting = pod("p", "1", volumes=volumes)
    cluster = [node("n1", "small"), filler("n1", "4"), *_storage(["n1"])]
    code, doc, _ = run(tmp_path, [waiting], cluster, [group("small")],
                       {"flags": {"enable-csi-node-aware-scheduling": flag}})
    assert doc["pods"][0]["nodeGroups"]["small"] == verdict


def test_a_node_without_its_csinode_ends_the_loop(tmp_path):
    cluster = [node("n1", "small"), node("n2", "small"), *_storage(["n1"])]
    code, doc, _ = run(tmp_path, [pod("p", "8")], cluster, [group("small")],
                       {"flags": {"enable-csi-node-aware-scheduling": True}})
    assert doc["result"] == "NotTried" and not doc["scaleUpCalled"]
    assert doc["loopError"] == ("failed to initialize ClusterSnapshot: couldn't obtain csi node: "
                                "csi nodes n2 not found")
    assert doc["pods"][0]["outcome"] == "NotListedAsUnschedulable"       # before the pod list processors
    assert doc["pods"][0]["notListed"].endswith(doc["loopError"])


# -- the first loop's cleanup ----------------------------------------------------------------------
@pytest.mark.parametrize(("key", "flags", "events"), [
    ("ToBeDeletedByClusterAutoscaler", {}, ["removed ToBeDeletedByClusterAutoscaler taint from node n1"]),
    ("DeletionCandidateOfClusterAutoscaler", {}, []),          # soft taints are on: left to scale-down
    ("DeletionCandidateOfClusterAutoscaler", {"max-bulk-soft-taint-count": 0},
     ["removed DeletionCandidateOfClusterAutoscaler taint from node n1",
      "removed DeletionCandidateOfClusterAutoscaler taint from node other"]),
])
def test_the_first_loop_cleans_cas_taints(tmp_path, key, flags, events):
    taint = [{"key": key, "value": "1700000000", "effect": "NoSchedule"}]
    cluster = [node("n1", "small", taints=taint), node("other", "nogroup", taints=taint)]
    code, doc, _ = run(tmp_path, [pod("p", "8")], cluster, [group("small")], {"flags": flags})
    cleanup = [e for e in doc["clusterEvents"] if e["reason"] == "ClusterAutoscalerCleanup"]
    assert [e["message"] for e in cleanup] == events
    assert all(e["object"].startswith("Node ") and e["type"] == "Normal" for e in cleanup)


# -- the status ConfigMap --------------------------------------------------------------------------
@pytest.mark.parametrize(("flags", "objects"), [
    ({}, {"ConfigMap kube-system/cluster-autoscaler-status"}),
    ({"namespace": "ca", "status-config-map-name": "ca-status"}, {"ConfigMap ca/ca-status"}),
    ({"write-status-configmap": False}, set()),
])
def test_status_events_go_where_the_flags_say(tmp_path, flags, objects):
    code, doc, _ = run(tmp_path, [pod("p", "3"), pod("q", "3")], [node("n1", "small")], [group("small")],
                       {"flags": flags})
    assert doc["result"] == "ScaleUpSuccessful"
    assert {e["object"] for e in doc["clusterEvents"]} == objects


def test_without_scale_up_from_zero_an_empty_cluster_stops_the_loop(tmp_path):
    groups = [group("small", template=template("small"))]
    code, doc, _ = run(tmp_path, [pod("p")], [], groups, {"flags": {"scale-up-from-zero": False}})
    assert doc["result"] == "NotTried"
    assert [e["message"] for e in doc["clusterEvents"]] == ["Cluster has no nodes."]
    assert doc["pods"][0]["outcome"] == "NotListedAsUnschedulable" and "--scale-up-from-zero" in \
        doc["pods"][0]["notListed"]
    code, doc, _ = run(tmp_path, [pod("p")], [], groups)
    assert doc["result"] == "ScaleUpSuccessful"


# -- the pod lister --------------------------------------------------------------------------------
def test_bypassed_schedulers_pods_count_without_the_schedulers_word(tmp_path):
    waiting = pod("p", "2", schedulerName="batch")
    waiting["status"] = {"conditions": [{"type": "PodScheduled", "status": "False"}]}
    cluster = [node("n1", "small"), filler("n1", "4")]
    code, doc, _ = run(tmp_path, [waiting], cluster, [group("small")])
    assert doc["pods"][0]["outcome"] == "NotListedAsUnschedulable"
    code, doc, _ = run(tmp_path, [waiting], cluster, [group("small")], {"flags": {"bypassed-scheduler-names": "batch"}})
    assert doc["pods"][0]["outcome"] == "TriggeredScaleUp"


def test_allowed_schedulers_leave_the_other_pods_out_bound_ones_too(tmp_path):
    other = pod("bound", "3", schedulerName="batch", nodeName="n1")
    pending = [pod("p", "2"), pod("q", "1", schedulerName="batch")]
    code, doc, _ = run(tmp_path, pending, [node("n1", "small"), other], [group("small")])
    assert [p["outcome"] for p in doc["pods"]] == ["TriggeredScaleUp", "FilteredOut"]
    code, doc, _ = run(tmp_path, pending, [node("n1", "small"), other], [group("small")],
                       {"flags": {"allowed-scheduler-names": "default-scheduler"}})
    assert [p["outcome"] for p in doc["pods"]] == ["FilteredOut", "NotListedAsUnschedulable"]


# -- what kexplain accepts and refuses -------------------------------------------------------------
def test_a_bad_expander_is_refused_even_when_no_scale_up_is_needed(tmp_path):
    code, doc, err = run(tmp_path, [pod("p")], [node("n1", "small")], [group("small")], {"expander": "cheapest"})
    assert code == 2 and "Expander cheapest not supported" in err
    assert len(err.strip().splitlines()) == 1


def test_every_flag_has_one_place():
    places = [set(NO_EFFECT), set(REFUSED), set(ONLY)]
    assert all(a.isdisjoint(b) for i, a in enumerate(places) for b in places[i + 1:])
    assert set().union(*places) <= set(FLAGS)


def test_the_docs_say_what_each_applied_flag_does():
    docs = (ROOT / "docs" / "autoscaler.md").read_text()
    applied = set(FLAGS) - set(NO_EFFECT) - set(REFUSED)
    missing = sorted(f for f in applied if f"`--{f}`" not in docs)
    assert not missing, f"docs/autoscaler.md does not describe {missing}"


WELL_FORMED = {"drain-priority-config": "1000:10,0:60"}      # a string CA parses at start-up


@pytest.mark.parametrize("name", sorted(NO_EFFECT))
def test_flags_without_effect_on_a_first_loop_are_accepted(name):
    kind, default = FLAGS[name]
    value = {"bool": not default, "int": 7, "float": 0.5, "duration": "3m", "string": "x",
             "multi": ["x"], "slice": "x"}[kind]
    value = WELL_FORMED.get(name, value)
    assert parse_settings({"flags": {name: value}}, Source("params.yaml")).given[name]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_flags_kexplain_cannot_apply_are_refused(name):
    with pytest.raises(InputError, match=f"kexplain cannot apply --{name}"):
        parse_settings({"flags": {name: "x"}}, Source("params.yaml"))


@pytest.mark.parametrize("name", sorted(ONLY))
def test_flags_kexplain_runs_with_one_value(name):
    value = ONLY[name][0]
    assert parse_settings({"flags": {name: value}}, Source("params.yaml")).flag(name) == value
    with pytest.raises(InputError, match=f"kexplain cannot apply --{name}="):
        parse_settings({"flags": {name: not value}}, Source("params.yaml"))


@pytest.mark.parametrize(("flags", "words"), [
    ({"estimator": "oracle"}, "unknown estimator: oracle"),
    ({"drain-priority-config": "1000:10", "max-graceful-termination-sec": 30},
     "could not use --drain-priority-config together with --max-graceful-termination-sec"),
    ({"drain-priority-config": "1000:10,0"}, "Invalid configuration, parsing --drain-priority-config$"),
    ({"drain-priority-config": "high:10"}, "Invalid configuration, parsing --drain-priority-config$"),
    ({"drain-priority-config": "1000: 10"}, "Invalid configuration, parsing --drain-priority-config$"),
    ({"drain-priority-config": ""}, "Invalid configuration, parsing --drain-priority-config$"),
    ({"predicate-parallelism": 0}, "Invalid value for --predicate-parallelism flag: 0$"),
    ({"predicate-parallelism": -2}, "Invalid value for --predicate-parallelism flag: -2$"),
    ({"enable-dynamic-resource-allocation": False}, "--enable-dynamic-resource-allocation flag must be true: false$"),
    ({"allowed-scheduler-names": "default-scheduler", "bypassed-scheduler-names": "default-scheduler,batch"},
     r"Invalid configuration\. --bypassed-scheduler-names should be a subset of --allowed-scheduler-names\. "
     "batch not included in --allowed-scheduler-names$"),
])
def test_what_ca_refuses_at_start_up(flags, words):
    with pytest.raises(InputError, match=words):
        parse_settings({"flags": flags}, Source("params.yaml"))


@pytest.mark.parametrize("flags", [
    {"bypassed-scheduler-names": "batch"},           # no allowed list: every scheduler's pods are listed
    {"allowed-scheduler-names": "default-scheduler,batch", "bypassed-scheduler-names": "batch"},
])
def test_bypassed_schedulers_within_the_allowed_ones_are_accepted(flags):
    assert parse_settings({"flags": flags}, Source("params.yaml")).flag("bypassed-scheduler-names") == ("batch",)


@pytest.mark.parametrize("text", ["10000:20,1000:100,0:60", "-10:+30"])
def test_a_drain_priority_config_ca_parses_is_accepted(text):
    assert parse_settings({"flags": {"drain-priority-config": text}}, Source("params.yaml")).given[
        "drain-priority-config"] == text


# -- readiness as CA reads it ----------------------------------------------------------------------
def test_readiness_and_the_unready_copy():
    from kexplain.autoscaler.readiness import STARTUP_NODES, node_readiness
    from kexplain.autoscaler.taints import TaintConfig, as_listed
    ready = node("n1", "small", metadata={"creationTimestamp": "2026-01-01T00:00:00Z"},
                 status={"conditions": [{"type": "Ready", "status": "True",
                                         "lastTransitionTime": "2026-01-01T01:00:00Z"}]})
    assert node_readiness(ready).ready
    pressed = node("n2", "small", status={"conditions": [{"type": "Ready", "status": "True"},
                                                         {"type": "DiskPressure", "status": "True"}]})
    assert not node_readiness(pressed).ready
    tainted = {**ready, "spec": {"taints": [{"key": "startup-taint.cluster-autoscaler.kubernetes.io/x",
                                             "effect": "NoSchedule"}]}}
    listed = as_listed(tainted, TaintConfig())
    found = node_readiness(listed)
    assert (found.ready, found.reason, found.last_transition.isoformat()) == \
        (False, STARTUP_NODES, "2026-01-01T00:00:00+00:00")          # unready since its creation
    cordoned = {**tainted, "spec": {**tainted["spec"], "unschedulable": True}}
    assert as_listed(cordoned, TaintConfig()) is cordoned             # not on the ready lister: kept


# -- the binpacking budgets ----------------------------------------------------------------------------
@pytest.mark.parametrize(("flags", "result"), [
    ({}, "ScaleUpSuccessful"),
    ({"max-binpacking-time": "10m"}, "ScaleUpSuccessful"),        # (a wall-clock budget: never spent here)
    ({"max-binpacking-time": "0s"}, "ScaleUpNoOptionsAvailable"),  # spent once the first group is binpacked
    ({"max-binpacking-time": "-1s"}, "ScaleUpNoOptionsAvailable"),
    ({"max-nodegroup-binpacking-duration": "0s"}, "ScaleUpSuccessful"),     # (0: no limit)
    ({"max-nodegroup-binpacking-duration": "-1s"}, "ScaleUpNoOptionsAvailable"),   # getMinLimit: -1, no node
])
def test_the_binpacking_budgets_act_when_not_positive(tmp_path, flags, result):
    """TimeLimiter.StopBinpacking is asked after each valid group (the first, `small`, holds no pod);
    the static threshold's negative duration makes PermissionToAddNode refuse every node."""
    groups = [group("small", template=template("small", cpu="500m")), group("big", template=template("big"))]
    code, doc, err = run(tmp_path, [pod("p0"), pod("p1")], [node("n1", "big"), filler("n1", "4")], groups,
                         {"flags": flags})
    assert doc is not None, err
    assert doc["result"] == result

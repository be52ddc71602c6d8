"""Node-group suggestions (kexplain.suggest.node_groups): with node groups known, "add a node
like X" gives way to changes each verified by running CA's loop again: a group's max size, a
toleration for a group's taint, a nodeSelector a group's template takes, requests lowered to
the room of a template, a template's zone allowed in the pod's node affinity, and all of those
a group needs at once; one run of the loop per distinct change."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.autoscaler.cloudprovider import Discovery
from kexplain.autoscaler.pending import GroupsRequest, autoscaler_document, load_groups, with_pending
from kexplain.cli.app import main
from kexplain.explain.inputs import load_pool
from kexplain.features import KubeVersion
from kexplain.load.manifests import load_objects
from kexplain.model.pod import PodInfo
from kexplain.suggest.node_groups import (GROUP_CHANGES, GROUP_LOWER_REQUEST, GROUP_NODE_AFFINITY, GROUP_NODE_SELECTOR,
                                         GROUP_TOLERATION, RAISE_MAX_SIZE, group_suggestions)
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "autoscaler"


GKE = CASE / "gke"


def suggested(pod_file: str, case: Path = CASE, runs: list | None = None, obj: dict | None = None,
              config: str | None = None) -> list[dict]:
    """The suggestions for the pod; `runs` gets each loop the verification ran again; `config`:
    CA's settings (--autoscaler-config)."""
    obj = obj or load_objects([str(case / pod_file)], 1 << 20)[0][0]
    obj["metadata"].setdefault("namespace", "default")
    pod = PodInfo(obj)
    req = GroupsRequest(Discovery.from_file(str(case / "nodegroups.yaml")), config,
                        state=load_pool((str(case / "cluster.yaml"),), kube=KubeVersion("1.35")))
    loop = with_pending(load_groups(req, KubeVersion("1.35")), [pod])

    def document(changed):
        if runs is not None:
            runs.append(changed)
        return autoscaler_document(changed)
    return group_suggestions(loop, pod, autoscaler_document(loop), document)


def test_a_toleration_for_the_gpu_groups_taint():
    [s] = suggested("pod-gpu.yaml")
    assert s["kind"] == GROUP_TOLERATION and s["target"] == "pod default/trainer"
    assert s["change"] == [{"op": "add", "object": {"kind": "Pod", "namespace": "default", "name": "trainer"},
                            "path": "/spec/tolerations/-",
                            "value": {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present",
                                      "effect": "NoSchedule"}}]
    assert s["verified"] == {"by": "autoscaler", "outcome": "TriggeredScaleUp",
                             "scaleUps": [{"nodeGroup": "gpu", "currentSize": 0, "newSize": 1, "maxSize": 3}]}


def test_verified_also_where_the_min_size_status_replaces_the_scale_ups(tmp_path):
    """--enforce-node-group-min-size: the loop's status is the min-size's, in whose lists the pod
    is not; the scale-up for it ran all the same, and its plan is the one shown."""
    config = tmp_path / "params.yaml"
    config.write_text("flags:\n  enforce-node-group-min-size: true\n")
    [s] = suggested("pod-gpu.yaml", config=str(config))
    assert s["kind"] == GROUP_TOLERATION
    assert s["verified"] == {"by": "autoscaler", "outcome": "TriggeredScaleUp",
                             "scaleUps": [{"nodeGroup": "gpu", "currentSize": 0, "newSize": 1, "maxSize": 3}]}


def test_raise_a_max_size_and_a_node_selector_another_group_takes():
    by_kind = {s["kind"]: s for s in suggested("pod-m5.yaml")}
    assert set(by_kind) == {RAISE_MAX_SIZE, GROUP_NODE_SELECTOR}
    raise_max = by_kind[RAISE_MAX_SIZE]
    assert raise_max["description"] == "raise node group general's max size from 2 to 3"
    assert raise_max["verified"]["scaleUps"] == [{"nodeGroup": "general", "currentSize": 2, "newSize": 3,
                                                  "maxSize": 3}]
    select = by_kind[GROUP_NODE_SELECTOR]
    assert select["change"][0]["path"] == "/spec/nodeSelector/node.kubernetes.io~1instance-type"
    assert select["change"][0]["value"] == "c5.2xlarge"
    assert select["verified"]["scaleUps"][0]["nodeGroup"] == "compute"


def test_nothing_when_ca_already_scales_up_for_the_pod():
    assert suggested("pod.yaml") == []


def test_they_replace_add_node_in_the_explanation():
    base = [str(CASE / "pod-m5.yaml"), "--nodes", str(CASE / "cluster.yaml"), "--kubernetes-version", "1.35",
            "-o", "json"]
    env = TestEnvironment()
    main(base, env=env)
    assert "add-node" in {s["kind"] for s in json.loads(env.out)["suggestions"]}
    env = TestEnvironment()
    main([*base, "--node-groups", str(CASE / "nodegroups.yaml")], env=env)
    kinds = [s["kind"] for s in json.loads(env.out)["suggestions"]]
    assert "add-node" not in kinds and RAISE_MAX_SIZE in kinds and GROUP_NODE_SELECTOR in kinds
    env = TestEnvironment(width=100)
    main([*base[:-2], "--node-groups", str(CASE / "nodegroups.yaml")], env=env)
    assert "raise node group general's max size from 2 to 3: CA would scale up general 2 -> 3" in env.out
    assert "or by running the Cluster Autoscaler's loop again" in " ".join(env.out.split())


MIG = "https://www.googleapis.com/compute/v1/projects/shop-prod/zones/{}/instanceGroups/gke-prod-default-pool-{}-grp"
MIGS = [MIG.format("us-central1-a", "1a2b3c4d"), MIG.format("us-central1-b", "5e6f7a8b"),
        MIG.format("us-central1-c", "9c0d1e2f")]


def test_lower_the_requests_to_fit_a_template_one_run_for_the_migs_alike():
    """6 CPUs: no e2-standard-4 template has them (3920m); the pool's three MIGs ask the same
    change, verified by one run of the loop (a second one tries highmem-pool's toleration: the
    pod would then fit that pool's empty node, where CA adds none)."""
    runs: list = []
    [s] = suggested("report.yaml", GKE, runs)
    assert len(runs) == 2
    assert s["kind"] == GROUP_LOWER_REQUEST and s["target"] == "pod shop/report"
    assert s["description"] == (f"lower the cpu request from 6 to 3920m (container report) to fit the template of "
                                f"node groups {MIGS[0]}, {MIGS[1]} and {MIGS[2]}")
    assert s["change"] == [{"op": "add", "object": {"kind": "Pod", "namespace": "shop", "name": "report"},
                            "path": "/spec/containers/0/resources/requests/cpu", "value": "3920m"}]
    assert s["verified"] == {"by": "autoscaler", "outcome": "TriggeredScaleUp",
                             "scaleUps": [{"nodeGroup": MIGS[0], "currentSize": 1, "newSize": 2, "maxSize": 5}],
                             "randomPickAmong": MIGS}      # the three MIGs tie: CA picks one at random


def test_allow_a_templates_zone_in_the_required_node_affinity():
    """Zone us-central1-f, where no pool is: each MIG's zone allowed, each its own run; the
    tainted pool (taint and zone) is not tried, since a change of one thing does."""
    runs: list = []
    found = suggested("batch.yaml", GKE, runs)
    assert len(runs) == 3
    assert [s["kind"] for s in found] == [GROUP_NODE_AFFINITY] * 3
    for s, mig, zone in zip(found, MIGS, ("us-central1-a", "us-central1-b", "us-central1-c")):
        assert s["change"] == [{"op": "add", "object": {"kind": "Pod", "namespace": "shop", "name": "batch"},
                                "path": "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
                                        "nodeSelectorTerms/0/matchExpressions/0/values/-", "value": zone}]
        assert s["description"] == (f"allow topology.kubernetes.io/zone={zone} in the node affinity expression "
                                    f"topology.kubernetes.io/zone In [us-central1-f], to take the template of node "
                                    f"group {mig}")
        assert [u["nodeGroup"] for u in s["verified"]["scaleUps"]] == [mig]


GPU_HUNGRY = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "render", "namespace": "default"},
              "spec": {"containers": [{"name": "render", "image": "render:1",
                                       "resources": {"requests": {"cpu": "10", "nvidia.com/gpu": "1"},
                                                     "limits": {"nvidia.com/gpu": "1"}}}]}}


def test_a_toleration_and_lower_requests_at_once_when_nothing_less_does():
    """A GPU and 10 CPUs: only the gpu group has GPUs, tainted, with 7910m: neither change alone
    makes CA scale up, both together do."""
    [s] = suggested("", obj=json.loads(json.dumps(GPU_HUNGRY)))
    assert s["kind"] == GROUP_CHANGES
    assert s["description"] == ("for the template of node group gpu: tolerate nvidia.com/gpu=present:NoSchedule; lower "
                                "the cpu request from 10 to 7910m (container render)")
    assert [op["path"] for op in s["change"]] == ["/spec/tolerations/-", "/spec/containers/0/resources/requests/cpu"]
    assert s["verified"]["scaleUps"] == [{"nodeGroup": "gpu", "currentSize": 0, "newSize": 1, "maxSize": 3}]

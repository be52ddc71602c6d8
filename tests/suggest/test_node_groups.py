"""Node-group suggestions (kexplain.suggest.node_groups): with node groups known, "add a node
like X" gives way to changes each verified by running CA's loop again: a group's max size, a
toleration for a group's taint, a nodeSelector a group's template takes."""
from __future__ import annotations

import json

from kexplain.autoscaler.cloudprovider import Discovery
from kexplain.autoscaler.pending import GroupsRequest, autoscaler_document, load_groups, with_pending
from kexplain.cli.app import main
from kexplain.features import KubeVersion
from kexplain.load.manifests import load_objects
from kexplain.model.pod import PodInfo
from kexplain.suggest.node_groups import GROUP_NODE_SELECTOR, GROUP_TOLERATION, RAISE_MAX_SIZE, group_suggestions
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "autoscaler"


def suggested(pod_file: str) -> list[dict]:
    obj = load_objects([str(CASE / pod_file)], 1 << 20)[0][0]
    obj["metadata"].setdefault("namespace", "default")
    pod = PodInfo(obj)
    req = GroupsRequest(Discovery.from_file(str(CASE / "nodegroups.yaml")), node_paths=(str(CASE / "cluster.yaml"),))
    loop = with_pending(load_groups(req, KubeVersion("1.35")), [pod])
    return group_suggestions(loop, pod, autoscaler_document(loop), autoscaler_document)


def test_a_toleration_for_the_gpu_groups_taint():
    [s] = suggested("pod-gpu.yaml")
    assert s["kind"] == GROUP_TOLERATION and s["target"] == "pod default/trainer"
    assert s["change"] == [{"op": "add", "object": {"kind": "Pod", "namespace": "default", "name": "trainer"},
                            "path": "/spec/tolerations/-",
                            "value": {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present",
                                      "effect": "NoSchedule"}}]
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

"""CA's RunOnce on the small loops of tests/autoscaler/loops (the shared cases' format, written by
hand: its README says what each is for), each run with `kexplain autoscale` and the flags of
the table on top of its params.yaml; the table names the keys each run must give.

Paths into the document: `a.b` walks mappings, a number a list by position, and a name a list
of named records (`pods.NAME`, `nodeGroups.NAME`; a pod by its name without namespace)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

LOOPS = TESTS / "autoscaler" / "loops"
STATUS = "ConfigMap kube-system/cluster-autoscaler-status"
WEB = "web-5c9d7f6b8-x2k9q"
BATCH = "batch-6f8b9c7d4-q8w2e"
UNHEALTHY = ("the cluster is unhealthy: 4 of 5 nodes are unready, more than --ok-total-unready-count (3) and "
             "--max-total-unready-percentage (45%) allow: CA's loop stops before it lists the unschedulable pods")


def at(doc: Any, path: str) -> Any:
    """The value at `path` (see the module's docstring)."""
    for key in path.split("."):
        if isinstance(doc, list):
            doc = doc[int(key)] if key.isdigit() else next(item for item in doc if item.get("name") == key)
        else:
            doc = doc[key]
    return doc


def run(case: str, tmp_path: Path, flags: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """`kexplain autoscale` on the case, with `flags` on top of its params.yaml: the exit code
    and the document."""
    folder = LOOPS / case
    params = yaml.safe_load((folder / "params.yaml").read_text()) if (folder / "params.yaml").exists() else {}
    params = {**params, "flags": {**(params.get("flags") or {}), **flags}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    env = TestEnvironment()
    code = main(["autoscale", str(folder / "pods.yaml"), "--nodes", str(folder / "cluster.yaml"),
                 "--node-groups", str(folder / "nodegroups.yaml"), "--autoscaler-config",
                 str(tmp_path / "params.yaml"), "-o", "json"], env)
    assert code in (0, 1), env.err
    return code, json.loads(env.out)


CASES = [
    # -- the DaemonSets on a template: the DaemonSet controller's predicates, each ----------------
    ("daemonset-predicates", {}, {
        "nodeGroups.burst-medium.template.pods": ["DaemonSet kube-system/burst-agent",
                                                 "DaemonSet kube-system/node-exporter"],
        "nodeGroups.batch-large.template.pods": ["DaemonSet kube-system/batch-cache",
                                                "DaemonSet kube-system/node-exporter"],
        "pods.burst-worker.outcome": "TriggeredScaleUp",      # room for it beside the two (not log-shipper)
        "expansion.scaleUps": [{"nodeGroup": "burst-medium", "currentSize": 0, "newSize": 1, "maxSize": 3}]}),
    # -- an unhealthy cluster: no pod listed, no scale-up, CA's warning ---------------------------
    ("unhealthy", {}, {
        "result": "ScaleUpNotTried", "scaleUpCalled": False, "expansion": None,
        f"pods.{WEB}.outcome": "NotListedAsUnschedulable", f"pods.{WEB}.events": [],
        f"pods.{WEB}.notListed": UNHEALTHY,
        f"pods.{BATCH}.outcome": "NotListedAsUnschedulable",
        "clusterEvents": [{"object": STATUS, "type": "Warning", "reason": "ClusterUnhealthy",
                           "message": "Cluster is unhealthy"}]}),
    # 4 unready nodes allowed: healthy; web fits the ready node's room, batch scales the group up
    ("unhealthy", {"ok-total-unready-count": "4"}, {
        "result": "ScaleUpSuccessful", f"pods.{WEB}.outcome": "FilteredOut",
        f"pods.{BATCH}.outcome": "TriggeredScaleUp"}),
    ("unhealthy", {"max-total-unready-percentage": "80"}, {"result": "ScaleUpSuccessful"}),
    # -- --enforce-node-group-min-size: its status is the loop's result; CA's status processor saw the
    # scale-up's first, so the pod keeps the TriggeredScaleUp it recorded ---------------------------
    ("min-size", {}, {
        "result": "ScaleUpSuccessful", "scaleUpCalled": True,
        "expansion.scaleUps": [{"nodeGroup": "general-xlarge", "currentSize": 2, "newSize": 3, "maxSize": 6}],
        "expansion.chosenScaleUps": [{"nodeGroup": "general-xlarge", "currentSize": 1, "newSize": 2, "maxSize": 6}],
        "expansion.podsTriggeredScaleUp": [],
        f"pods.{WEB}.outcome": "TriggeredScaleUp",
        f"pods.{WEB}.events": [{"type": "Normal", "reason": "TriggeredScaleUp",
                                "message": "pod triggered scale-up: [{general-xlarge 1->2 (max: 6)}]"}],
        "nodeGroups.general-xlarge.newTargetSize": 3}),
    ("min-size", {"enforce-node-group-min-size": "false"}, {
        "expansion.scaleUps": [{"nodeGroup": "general-xlarge", "currentSize": 1, "newSize": 2, "maxSize": 6}],
        f"pods.{WEB}.outcome": "TriggeredScaleUp",
        f"pods.{WEB}.events": [{"type": "Normal", "reason": "TriggeredScaleUp",
                                "message": "pod triggered scale-up: [{general-xlarge 1->2 (max: 6)}]"}],
        "nodeGroups.general-xlarge.newTargetSize": 2}),
    # the scale-up finds no option: its NotTriggerScaleUp (with its parts) stays, then the minimum grows the group
    ("min-size-no-options", {}, {
        "result": "ScaleUpSuccessful", "scaleUpCalled": True,
        f"pods.{BATCH}.outcome": "NotTriggerScaleUp",
        f"pods.{BATCH}.events": [{"type": "Normal", "reason": "NotTriggerScaleUp",
                                  "message": "pod didn't trigger scale-up: 2 Insufficient cpu",
                                  "messageParts": ["2 Insufficient cpu"]}],
        f"pods.{BATCH}.rejected": {"general-xlarge": ["Insufficient cpu"], "memory-xlarge": ["Insufficient cpu"]},
        "minSizeScaleUps": [{"nodeGroup": "general-xlarge", "currentSize": 1, "newSize": 3, "minSize": 3,
                             "maxSize": 6}]}),
    # -- --max-nodes-total reached: the min-size's status (nothing to grow) is the loop's, and the one
    # CA's processor sees: the scale-up's (not tried) records no NotTriggerScaleUp ----------------
    ("min-size-max-nodes-total", {}, {
        "result": "ScaleUpNotNeeded", "scaleUpCalled": False,
        f"pods.{WEB}.outcome": "NoEvent", f"pods.{WEB}.events": [],
        "clusterEvents": [{"object": STATUS, "type": "Warning", "reason": "MaxNodesTotalReached",
                           "message": "Max total nodes in cluster reached: 1"}]}),
    ("min-size-max-nodes-total", {"enforce-node-group-min-size": "false"}, {
        "result": "ScaleUpLimitedByMaxNodesTotal",
        f"pods.{WEB}.outcome": "NotTriggerScaleUp",
        f"pods.{WEB}.events": [{"type": "Normal", "reason": "NotTriggerScaleUp",
                                "message": "pod didn't trigger scale-up: max total nodes in cluster reached"}]}),
    # -- an event on a Node names it as CA's recorder does ---------------------------------------
    ("cleanup-node-event", {}, {
        "clusterEvents.0": {"object": "Node /ip-10-0-2-10.ec2.internal", "type": "Normal",
                            "reason": "ClusterAutoscalerCleanup",
                            "message": "removed ToBeDeletedByClusterAutoscaler taint from node ip-10-0-2-10.ec2.internal"}}),
]


@pytest.mark.parametrize(("case", "flags", "want"), CASES,
                         ids=[f"{c}-{','.join(f'{k}={v}' for k, v in f.items()) or 'as-is'}" for c, f, _ in CASES])
def test_loop(tmp_path, case, flags, want):
    _, doc = run(case, tmp_path, flags)
    assert {path: at(doc, path) for path in want} == want


@pytest.mark.parametrize(("case", "code"), [
    ("daemonset-predicates", 0),
    ("unhealthy", 1),                   # no pod listed: none helped
    ("min-size", 0),                    # the pod triggered the scale-up, whichever status the loop reports
    ("min-size-no-options", 1),
    ("min-size-max-nodes-total", 1),
])
def test_the_exit_code_says_whether_every_pod_is_helped(tmp_path, case, code):
    assert run(case, tmp_path, {})[0] == code


@pytest.mark.parametrize(("case", "words"), [
    ("unhealthy", [f"default/{WEB} NotListedAsUnschedulable not listed as unschedulable: {UNHEALTHY}",
                   "Warning ClusterUnhealthy: Cluster is unhealthy"]),
    ("min-size", ["Expander (least-waste) chose general-xlarge: 1 node(s) for 1 pod(s) general-xlarge: 1 -> 2 (max 6)",
                  "ScaleUpToNodeGroupMinSize, whose status is the loop's): general-xlarge 2 -> 3 (min 3, max 6).",
                  f"default/{WEB} TriggeredScaleUp pod triggered scale-up: [{{general-xlarge 1->2 (max: 6)}}]"]),
])
def test_the_text_says_why(case, words):
    folder = LOOPS / case
    params = ["--autoscaler-config", str(folder / "params.yaml")] if (folder / "params.yaml").exists() else []
    env = TestEnvironment(width=200)
    main(["autoscale", str(folder / "pods.yaml"), "--nodes", str(folder / "cluster.yaml"), "--node-groups",
          str(folder / "nodegroups.yaml"), *params], env)
    text = " ".join(env.out.split())
    assert [w for w in words if w not in text] == []

"""Karpenter's pass reads the one cluster state instead of admitting the cluster again: `kexplain
POD --nodes ...` with NodePools among the cluster's objects hands Karpenter the state the
explanation admitted (`NodePoolsRequest.state`, `pass_of_state`), and `kexplain karpenter PODS`
admits the cluster once, with PODS' Pods (`state_of`) or as its workloads were scheduled against
it (`PodsFilePass.state`), Karpenter's NodeClaims and the set layered on it. Counted: how many
calls of admission (`admission.admit`) and of kubectl's checks (`load.manifests.check_objects`)
are handed the cluster's Nodes. And the pass read from the state is the pass that admits the
cluster again (`pass_of`), a uid admission filled in taken as none (Karpenter's own given)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

import kexplain.cli.explain  # noqa: F401  (every reader of the cluster loaded: their names patched)
import kexplain.explain.inputs  # noqa: F401
import kexplain.karpenter.pending  # noqa: F401
import kexplain.state.cluster  # noqa: F401
from kexplain.admission import pipeline
from kexplain.cli.app import main
from kexplain.explain.inputs import read_config
from kexplain.features import KubeVersion
from kexplain.karpenter.inputs import PassInputs, object_uid, pass_of, pass_of_state
from kexplain.karpenter.params import read_settings
from kexplain.load import manifests
from kexplain.load.manifests import load_objects
from kexplain.state.cluster import state_of
from tests.support.admissions import counting
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import FIXTURES

CASE = FIXTURES / "karpenter"
CLUSTER = ["--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "nodepools.yaml")]
KUBE = KubeVersion("1.35")
TEMPLATE = {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx",
                                     "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]}}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
       "spec": TEMPLATE["spec"]}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
              "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": TEMPLATE}}
FILES = {"pod": [POD], "two-pods": [POD, {**POD, "metadata": {"name": "second", "namespace": "default"}}],
         "deployment": [DEPLOYMENT], "deployment-and-pod": [DEPLOYMENT, {**POD, "metadata": {"name": "alone"}}]}



@pytest.mark.parametrize("command", ["explain", "karpenter"])
@pytest.mark.parametrize("pods", FILES.values(), ids=FILES.keys())
@pytest.mark.parametrize("counted", [(pipeline, "admit"), (manifests, "check_objects")],
                         ids=["admit", "check_objects"])
def test_the_cluster_is_admitted_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str,
                                      pods: list[dict], counted: tuple[Any, str]) -> None:
    module, name = counted
    calls = counting(monkeypatch, getattr(module, name), name)
    path = tmp_path / "pods.yaml"
    path.write_text(yaml.safe_dump_all(pods))
    env = TestEnvironment(width=100)
    args = [str(path), *CLUSTER, "--kubernetes-version", "1.35", "--no-suggestions", "-o", "json"]
    code = main(["karpenter", *args] if command == "karpenter" else args, env=env)
    assert code in (0, 1), env.err
    doc = json.loads(env.out)
    assert (doc if command == "karpenter" else doc["karpenter"])["pods"]       # Karpenter's pass ran
    assert len(calls) == 1, calls


def _facts(inputs: PassInputs) -> str:
    """What Karpenter's pass reads of its inputs: the pods pending and bound (their objects:
    uids and creation times included), the nodes, NodeClaims, DaemonSets, NodePools,
    EC2NodeClasses, the other objects by kind, what was refused."""
    return json.dumps({
        "pending": [p.obj for p in inputs.pending], "bound": [p.obj for p in inputs.bound_pods],
        "nodes": inputs.nodes, "claims": inputs.node_claims, "daemonsets": inputs.daemonsets,
        "pools": [p.obj for p in inputs.node_pools], "classes": [c.obj for c in inputs.node_classes],
        "objects": inputs.objects, "refused": [str(e) for e in inputs.refused],
    }, sort_keys=True, default=str)


@pytest.mark.parametrize("uids", [True, False], ids=["uids-given", "uids-left-out"])
def test_the_state_gives_the_pass_admitting_again(uids: bool) -> None:
    """The pass read from the cluster state (`pass_of_state`) is the pass that defaults and
    admits the cluster itself (`pass_of`): the same pods (uids and creation times), nodes,
    NodeClaims and objects. Left out, each pod's uid is Karpenter's own (`object_uid`), not the
    one admission filled in."""
    pods = load_objects([str(CASE / "pod.yaml"), str(CASE / "vip.yaml")], 10 ** 8)
    cluster = load_objects([str(CASE / "cluster.yaml"), str(CASE / "nodepools.yaml")], 10 ** 8)
    if not uids:
        pods = [(_without_uid(o), s) for o, s in pods]
        cluster = [(_without_uid(o), s) for o, s in cluster]
    settings = read_settings(None, 10 ** 8)
    everything = pods + cluster
    again = pass_of(everything, settings, KUBE)
    state = state_of(everything, read_config(None, kube=KUBE))
    from_state = pass_of_state(state, settings)
    assert _facts(from_state) == _facts(again)
    if not uids:
        pod = from_state.pending[0]
        assert pod.uid == object_uid("Pod", pod.namespace, pod.name)


def _without_uid(obj: dict) -> dict:
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k != "uid"}
    return {**obj, "metadata": meta}


def test_what_loading_said_is_in_the_pass_read_from_the_state(tmp_path: Path) -> None:
    """Karpenter's document repeats what kubectl's checks and admission said of the cluster
    (`ClusterState.said`) though the pass does not check or admit it again."""
    path = tmp_path / "pods.yaml"
    path.write_text(yaml.safe_dump_all(FILES["two-pods"]))
    extra = tmp_path / "extra.yaml"
    extra.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                     "metadata": {"name": "c1", "namespace": "default"},
                                     "spec": {"bogus": 1, "accessModes": ["ReadWriteOnce"],
                                              "resources": {"requests": {"storage": "1Gi"}}}}))
    env = TestEnvironment(width=100)
    code = main([str(path), *CLUSTER, "--nodes", str(extra), "--validate", "warn", "--kubernetes-version", "1.35",
                 "--no-suggestions", "-o", "json"], env=env)
    assert code in (0, 1), env.err
    warnings = json.loads(env.out)["karpenter"]["warnings"]
    assert any('unknown field "spec.bogus"' in w for w in warnings), warnings

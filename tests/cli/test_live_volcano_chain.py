"""`kexplain pod NAME` for a pod Volcano schedules chains through the Cluster Autoscaler and Karpenter as
`kexplain POD` does (`app.explain.volcano_chain`, `app.volcano_chain`): the pass Volcano's session leaves,
its job's pending pods as any pending pods; live and the replay of its snapshot give one answer. The
stand-in API server (tests/support/live_server.py) serves the recorded cluster, Volcano's objects and, for
Karpenter, its NodePools."""
from __future__ import annotations

import copy
import json
from typing import Any, Callable

import yaml

from kexplain.autoscaler.cloudprovider.live import STATUS_PATH
from tests.cli.test_live_volcano import worker
from tests.cli.test_live_node_groups import GROUPS
from tests.support.live_server import isolated, recorded_api, run_cli  # noqa: F401 (isolated: autouse)
from tests.support.paths import DATA

EKS = "eks.amazonaws.com/nodegroup"


def _live_and_replay(capsys, tmp_path, *more: str, collections: tuple[str, ...] = ("volcano", "karpenter"),
                     setup: Callable[[Any], None] = lambda api: None
                     ) -> tuple[tuple[int, dict, str], tuple[int, dict, str]]:
    """The worker's answer live (`kexplain pod`), and from files (its snapshot replayed with `kexplain POD`):
    the exit code, -o json's document and the text, each."""
    pod = ["pod", "train-worker-0", "-n", "shop"]
    with recorded_api(tmp_path, collections=collections) as api:
        api.collections["/api/v1/pods"]["items"] += [worker(0), worker(1)]
        setup(api)
        live = _answer(capsys, *pod, "--kubeconfig", api.kubeconfig, *more)
        snap = tmp_path / "cluster.json"
        code, _, err = run_cli(capsys, "snapshot", *pod[1:], "-o", str(snap), "--kubeconfig", api.kubeconfig)
        assert code == 0, err
    return live, _answer(capsys, str(tmp_path / "cluster.pod.json"), "--nodes", str(snap), "--stored", *more)


def _answer(capsys, *args: str) -> tuple[int, dict, str]:
    code, out, err = run_cli(capsys, *args, "-o", "json")
    assert out, err
    text_code, text, _ = run_cli(capsys, *args)
    assert text_code == code
    return code, json.loads(out), text


def test_a_live_volcano_pod_chains_through_ca_and_karpenter_as_its_replay(capsys, tmp_path) -> None:
    groups = tmp_path / "groups.yaml"
    groups.write_text(GROUPS)
    (code, live, text), (replay_code, replay, replay_text) = _live_and_replay(capsys, tmp_path,
                                                                             "--node-groups", str(groups))
    assert {"autoscaler", "autoscalers", "karpenter"} <= set(live), sorted(live)
    assert live["volcano"]["chain"].startswith("the Cluster Autoscaler and Karpenter see the pods of PodGroup")
    assert (replay_code, replay) == (code, {k: v for k, v in live.items() if k != "live"})
    # the same text, live adding what Volcano wrote and whether kexplain agrees
    assert "\nCluster autoscaler\n" in replay_text and "\nKarpenter: " in replay_text
    assert text.startswith(replay_text) and "kexplain agrees with the scheduler." in text[len(replay_text):]


def _on_eks(api: Any) -> None:
    """CA on EKS: three nodes in general-xlarge by their label, its status ConfigMap (the groups found)."""
    nodes = copy.deepcopy(api.collections["/api/v1/nodes"])
    for item in nodes["items"]:
        if item["metadata"]["name"] in ("node-a1", "node-b1", "node-c1"):
            item["metadata"]["labels"][EKS] = "general-xlarge"
    api.collections["/api/v1/nodes"] = nodes
    api.objects[STATUS_PATH] = yaml.safe_load((DATA / "autoscaler-live" / "status-yaml.yaml").read_text())


def test_the_node_groups_ca_reports_chain_it_live_as_in_the_replay(capsys, tmp_path) -> None:
    """No --node-groups: the groups of CA's status ConfigMap, found live and in the snapshot alike."""
    (code, live, text), (replay_code, replay, replay_text) = _live_and_replay(
        capsys, tmp_path, collections=("volcano",), setup=_on_eks)
    assert "autoscaler" in live and "karpenter" not in live, sorted(live)
    assert live["autoscaler"]["nodeGroupsFound"]
    assert "chain" in live["volcano"]
    # live asks Cluster API too (not served here: a note); a replay finds its objects among --nodes or none
    notes = live["autoscaler"]["nodeGroupsFound"]["notes"]
    live_only = [n for n in notes if n.startswith("no Cluster API MachineDeployment or MachineSet")]
    assert len(live_only) == 1
    notes.remove(live_only[0])
    assert (replay_code, replay) == (code, {k: v for k, v in live.items() if k != "live"})
    flat, replay_flat = " ".join(text.split()), " ".join(replay_text.split())
    assert flat.replace(f"note: {live_only[0]} ", "").startswith(replay_flat), flat

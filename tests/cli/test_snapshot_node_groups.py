"""`kexplain snapshot` of a cluster the Cluster Autoscaler runs on, and its replay: the snapshot
keeps CA's status ConfigMap, Cluster API's objects and the DaemonSets (or says what it could not
read, and what a replay then lacks), and the replay (`kexplain POD --nodes FILE --stored`) finds
the node groups in them as `kexplain pod` finds them live. Offline, a status ConfigMap among
--nodes is used as the live one is, or a note says why not."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from kexplain.autoscaler.cloudprovider import REPORTING_KINDS
from kexplain.autoscaler.cloudprovider.live import STATUS_PATH
from kexplain.app.autoscalers import MAY_REPORT
from tests.support.live_server import isolated, recorded_api, run_cli  # noqa: F401 (isolated: an autouse fixture)
from tests.support.paths import DATA

CHECKOUT = "checkout-6b8d9f7c4-lm3np"       # a pending pod of the recorded cluster
EKS = "eks.amazonaws.com/nodegroup"
STATUS = DATA / "autoscaler-live" / "status-yaml.yaml"
DAEMONSETS = "/apis/apps/v1/daemonsets"
GENERAL = "eks-general-xlarge-d2c5e8a1-3b4f-4c6d-9e0f-1a2b3c4d5e6f"


@pytest.fixture
def ca(tmp_path):
    """The recorded cluster on EKS: three nodes in general-xlarge (by their label), CA's status
    ConfigMap, and a DaemonSet (no Karpenter: the DaemonSets are read for CA alone)."""
    with recorded_api(tmp_path) as server:
        nodes = copy.deepcopy(server.collections["/api/v1/nodes"])
        for item in nodes["items"]:
            if item["metadata"]["name"] in ("node-a1", "node-b1", "node-c1"):
                item["metadata"]["labels"][EKS] = "general-xlarge"
        server.collections["/api/v1/nodes"] = nodes
        server.objects[STATUS_PATH] = yaml.safe_load(STATUS.read_text())
        server.collections[DAEMONSETS] = json.loads((DATA / "live" / "karpenter" / "apis" / "apps" / "v1" /
                                                     "daemonsets.json").read_text())
        yield server


def snapshot(capsys, api, path: Path, *args: str) -> tuple[int, str]:
    code, _, err = run_cli(capsys, "snapshot", CHECKOUT, "-n", "shop", "-o", str(path), "--kubeconfig",
                           api.kubeconfig, *args)
    return code, err


def kinds(path: Path) -> list[str]:
    return [o["kind"] for o in json.loads(path.read_text())["items"]]


def test_the_replay_of_a_snapshot_has_the_live_answer(capsys, ca, tmp_path):
    snap = tmp_path / "cluster.json"
    code, err = snapshot(capsys, ca, snap)
    assert code == 0, err
    assert {"ConfigMap", "DaemonSet"} <= set(kinds(snap))
    assert "1 daemonsets, 1 configmaps" in err
    code, out, err = run_cli(capsys, "pod", CHECKOUT, "-n", "shop", "--kubeconfig", ca.kubeconfig, "-o", "json")
    live = json.loads(out)["autoscaler"]
    code, out, err = run_cli(capsys, str(tmp_path / "cluster.pod.json"), "--nodes", str(snap), "--stored",
                             "-o", "json")
    assert "note:" not in err, err
    replay = json.loads(out)["autoscaler"]
    assert replay["nodeGroups"] == live["nodeGroups"]
    assert replay["pods"] == live["pods"]
    assert replay["nodeGroupsFound"]["sources"] == live["nodeGroupsFound"]["sources"]
    assert [g["name"] for g in replay["nodeGroups"]][0] == GENERAL
    # the DaemonSet runs on a template the provider stands in for (a group with no member)
    assert any(g["template"] and "DaemonSet kube-system/ebs-csi-node" in g["template"]["pods"]
               for g in replay["nodeGroups"])


@pytest.mark.parametrize(("refused", "words"), [
    (STATUS_PATH, "note: CA's status ConfigMap kube-system/cluster-autoscaler-status could not be read: "),
    (DAEMONSETS, "note: DaemonSets could not be read: "),
])
def test_what_a_snapshot_could_not_read_is_said(capsys, ca, tmp_path, refused, words):
    ca.faults.forbidden[refused] = "forbidden-get-pods.json"
    snap = tmp_path / "cluster.json"
    code, err = snapshot(capsys, ca, snap)
    assert code == 0
    [line] = [line for line in err.splitlines() if line.startswith(words)]
    assert "the snapshot leaves it out; a replay" in line
    assert ("ConfigMap" in kinds(snap)) == (refused != STATUS_PATH)


def test_a_redacted_snapshot_says_it_leaves_the_node_groups_out(capsys, ca, tmp_path):
    code, err = snapshot(capsys, ca, tmp_path / "cluster.json", "--redact")
    assert code == 0
    assert "a replay finds no node group (give it --node-groups FILE)" in err.splitlines()[0]


# -- offline: a status ConfigMap among --nodes -------------------------------------------------
def offline(capsys, ca, tmp_path, status: dict | None, *args: str) -> tuple[int, dict, str]:
    """The snapshot's replay with `status` as CA's status ConfigMap (None: none)."""
    snap = tmp_path / "cluster.json"
    assert snapshot(capsys, ca, snap)[0] == 0
    doc = json.loads(snap.read_text())
    doc["items"] = [o for o in doc["items"] if o["kind"] != "ConfigMap"] + ([status] if status else [])
    snap.write_text(json.dumps(doc))
    code, out, err = run_cli(capsys, str(tmp_path / "cluster.pod.json"), "--nodes", str(snap), "--stored",
                             "-o", "json", *args)
    return code, json.loads(out), err


def test_without_a_status_configmap_there_is_no_section_and_no_word(capsys, ca, tmp_path):
    code, trace, err = offline(capsys, ca, tmp_path, None)
    assert "autoscaler" not in trace and "note:" not in err


@pytest.mark.parametrize(("data", "note"), [
    ({"status": "autoscalerStatus: Initializing\n"},
     "note: no node group found in CA's status ConfigMap kube-system/cluster-autoscaler-status or Cluster API's "
     "objects among --nodes (CA's status ConfigMap says CA is still initializing: it reports no node group yet): "
     "no Cluster autoscaler section"),
    ({"status": "not what CA writes"},
     "note: CA's status ConfigMap kube-system/cluster-autoscaler-status or Cluster API's objects among --nodes "
     "cannot be used: "),
])
def test_a_status_configmap_that_cannot_be_used_is_said(capsys, ca, tmp_path, data, note):
    status = {**yaml.safe_load(STATUS.read_text()), "data": data}
    code, trace, err = offline(capsys, ca, tmp_path, status)
    assert code == 1 and "autoscaler" not in trace
    assert any(line.startswith(note) for line in err.splitlines()), err


def test_node_groups_given_win_and_say_so(capsys, ca, tmp_path):
    groups = tmp_path / "groups.yaml"
    groups.write_text("nodeGroups:\n- {name: mine, minSize: 0, maxSize: 3, nodeSelector: {" + EKS
                      + ": general-xlarge}}\n")
    code, trace, err = offline(capsys, ca, tmp_path, yaml.safe_load(STATUS.read_text()), "--node-groups", str(groups))
    assert [g["name"] for g in trace["autoscaler"]["nodeGroups"]] == ["mine"]
    assert f"note: the node groups of --node-groups {groups} are used, not those CA's status ConfigMap" in err


def test_autoscaler_config_needs_groups_given_or_found(capsys, ca, tmp_path):
    config = tmp_path / "params.yaml"
    config.write_text("expander: most-pods\n")
    code, trace, err = offline(capsys, ca, tmp_path, yaml.safe_load(STATUS.read_text()), "--autoscaler-config",
                               str(config))
    assert trace["autoscaler"]["autoscaler"]["expander"] == "most-pods"
    snap = tmp_path / "cluster.json"
    doc = json.loads(snap.read_text())
    doc["items"] = [o for o in doc["items"] if o["kind"] != "ConfigMap"]
    snap.write_text(json.dumps(doc))
    code, out, err = run_cli(capsys, str(tmp_path / "cluster.pod.json"), "--nodes", str(snap), "--stored",
                             "--autoscaler-config", str(config))
    assert code == 2 and err.strip().endswith("--autoscaler-config needs node groups: --node-groups FILE, or CA's "
                                              "status ConfigMap kube-system/cluster-autoscaler-status or Cluster "
                                              "API's objects among --nodes (none is there)")


def test_the_cli_asks_the_kinds_that_report_node_groups():
    assert MAY_REPORT == REPORTING_KINDS


def test_kexplain_autoscale_finds_them_too(capsys, ca, tmp_path):
    snap = tmp_path / "cluster.json"
    assert snapshot(capsys, ca, snap)[0] == 0
    empty = tmp_path / "none.yaml"          # the cluster's own pending pods only
    empty.write_text("")
    code, out, err = run_cli(capsys, "autoscale", str(empty), "--nodes", str(snap), "-o", "json")
    assert code in (0, 1), err
    doc = json.loads(out)
    assert doc["nodeGroupsFound"]["sources"] == ["CA's status ConfigMap kube-system/cluster-autoscaler-status"]
    assert doc["nodeGroups"][0]["name"] == GENERAL and doc["nodeGroups"][0]["nodes"] == ["node-a1", "node-b1",
                                                                                          "node-c1"]
    doc = json.loads(snap.read_text())
    doc["items"] = [o for o in doc["items"] if o["kind"] != "ConfigMap"]
    snap.write_text(json.dumps(doc))
    code, out, err = run_cli(capsys, "autoscale", str(empty), "--nodes", str(snap))
    assert code == 2 and err.startswith("error: --node-groups FILE is needed: no node group is reported among "
                                        "--nodes")

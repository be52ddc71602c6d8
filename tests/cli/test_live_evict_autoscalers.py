"""Live `evict drain` and `evict taints` read the autoscalers as `kexplain pod` does (issue 77):
Karpenter's NodePools, NodeClaims and EC2NodeClasses and what reports CA's node groups, so where
the evicted pods' replacements go gets Karpenter's answer live as from files of the same objects;
a read RBAC refuses is said once, in the words of `kexplain pod`, and the rest goes on."""
from __future__ import annotations

import json

import pytest

from kexplain.app.eviction.request import LiveRead, live_cluster
from kexplain.load.live import version_record
from kexplain.app.eviction.autoscaled import live_reads
from kexplain.load.live import DAEMONSETS, KARPENTER, RESOURCES
from tests.support.live_server import Rbac, isolated, recorded_api, run_cli  # noqa: F401 (isolated: autouse)

NODE = "node-a1"
NOW = "2026-11-27T05:00:00Z"
NODECLAIMS = "/apis/karpenter.sh/v1/nodeclaims"
EVERY_KIND = frozenset(r.plural for r in (*RESOURCES, *KARPENTER, DAEMONSETS)) | {"configmaps"}
COMMANDS = {"drain": ("--ignore-daemonsets",), "taints": ("--taint", "node.kubernetes.io/unreachable:NoExecute")}
ROWS = {"drain": "replacements", "taints": "whereTheyGo"}


@pytest.fixture
def api(tmp_path):
    """The recorded cluster with Karpenter installed, every node but node-a1 cordoned (as kubectl
    cordon and the node lifecycle controller leave it) and no NodeClaim in flight: node-a1's
    evicted pods fit nowhere, and Karpenter launches a node for them."""
    with recorded_api(tmp_path, collections=("karpenter",)) as server:
        for node in server.collections["/api/v1/nodes"]["items"]:
            if node["metadata"]["name"] != NODE:
                node["spec"]["unschedulable"] = True
                node["spec"].setdefault("taints", []).append(
                    {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
        server.collections[NODECLAIMS]["items"] = []
        yield server


def evict(capsys, api, family: str, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, "evict", family, NODE, "--now", NOW, *COMMANDS[family], *args,
                   "--kubeconfig", api.kubeconfig)


@pytest.mark.parametrize("family", ["drain", "taints"])
def test_live_replacements_get_karpenters_answer_as_from_files(capsys, api, tmp_path, family):
    code, out, err = evict(capsys, api, family, "-o", "json")
    doc = json.loads(out)
    answers = [a for r in doc[ROWS[family]] for a in r.get("autoscalers") or ()]
    assert answers and {a["autoscaler"] for a in answers} == {"Karpenter"}
    assert {a["outcome"] for a in answers} == {"NewNodeClaim"}
    assert "karpenter" in doc["autoscalers"] and "liveReads" not in doc
    assert {"/apis/karpenter.sh/v1/nodepools", NODECLAIMS} <= set(api.paths()) and api.methods == {"GET"}
    dump = tmp_path / "cluster.json"
    live = live_cluster(LiveRead(api.kubeconfig), NODE, live_reads)     # as a snapshot keeps it: its /version too
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": [version_record(live.version), *(o for o, _ in live.objects)]},
                               default=dict))
    file_code, file_out, _ = run_cli(capsys, "evict", family, NODE, "--now", NOW, *COMMANDS[family],
                                     "--nodes", str(dump), "-o", "json")
    assert (file_code, json.loads(file_out)) == (code, doc)
    code, text, _ = evict(capsys, api, family)
    assert "Karpenter: NewNodeClaim (" in text


def test_a_refused_read_is_said_once_and_the_drain_goes_on(capsys, api):
    api.faults.rbac = Rbac(cluster=EVERY_KIND - {"nodepools"})
    code, out, err = evict(capsys, api, "drain", "-o", "json")
    doc = json.loads(out)
    assert code == 0 and all(e["evicted"] for e in doc["evictions"])
    assert [r["resource"] for r in doc["liveReads"]["refused"]] == ["nodepools"]
    assert "autoscalers" not in doc     # no NodePool read: Karpenter says nothing
    lines = err.splitlines()
    assert lines.count("Not read (RBAC refused, 403); what each read would add:") == 1
    assert ("  at the cluster scope: list nodepools: Karpenter's NodePools: whether Karpenter would launch a node "
            "for a pending pod, and why not.") in lines


def test_live_drain_reads_cas_status_configmap_as_from_files(capsys, tmp_path):
    """CA's status ConfigMap served (general-xlarge, node-a1's group by its EKS label, room to
    scale): the replacements left pending get CA's answer, live as from files of the same objects."""
    import yaml

    from kexplain.autoscaler.cloudprovider.live import STATUS_PATH
    from tests.support.paths import DATA
    with recorded_api(tmp_path) as server:
        server.objects[STATUS_PATH] = yaml.safe_load((DATA / "autoscaler-live" / "status-yaml.yaml").read_text())
        for node in server.collections["/api/v1/nodes"]["items"]:
            if node["metadata"]["name"] in ("node-a1", "node-b1", "node-c1"):
                node["metadata"]["labels"]["eks.amazonaws.com/nodegroup"] = "general-xlarge"
            if node["metadata"]["name"] != NODE:
                node["spec"]["unschedulable"] = True
                node["spec"].setdefault("taints", []).append(
                    {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
        code, out, _ = evict(capsys, server, "drain", "--force", "-o", "json")   # (no DaemonSet served)
        doc = json.loads(out)
        answers = [a for r in doc["replacements"] for a in r.get("autoscalers") or ()]
        assert answers and {a["autoscaler"] for a in answers} == {"ClusterAutoscaler"}
        assert STATUS_PATH in server.paths() and server.methods == {"GET"}
        dump = tmp_path / "cluster.json"
        live = live_cluster(LiveRead(server.kubeconfig), NODE, live_reads)
        dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                    "items": [version_record(live.version), *(o for o, _ in live.objects)]},
                                   default=dict))
    file_code, file_out, _ = run_cli(capsys, "evict", "drain", NODE, "--now", NOW, *COMMANDS["drain"], "--force",
                                     "--nodes", str(dump), "-o", "json")
    assert (file_code, json.loads(file_out)) == (code, doc)

"""`kexplain cluster` live (no --nodes): the current context's cluster read once as `kexplain
snapshot` reads it (the stand-in API server of tests/data/live), only GETs; the same document as
`kexplain cluster --nodes` over a snapshot of the same cluster; a section whose reads RBAC
refuses (403) says so in one line and is skipped, the others go on."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kexplain.autoscaler.cloudprovider.live import CLUSTER_API, STATUS
from kexplain.load.live import DAEMONSETS, EVENTS, KARPENTER, KUEUE, POLICIES, RESOURCES, VOLCANO
from tests.cli.test_live_kueue_more import CONFIG_MAP, config_map
from tests.cli.test_live_node_groups import GROUPS      # (the recorded cluster's node groups, as kexplain pod's)
from tests.support.live_server import POD_PATH, Rbac, isolated, recorded_api, run_cli  # noqa: F401 (isolated: autouse)

NOW = "2026-11-23T15:00:00Z"
EVERY = frozenset(r.plural for r in (*RESOURCES, *POLICIES, *KARPENTER, *KUEUE, *VOLCANO, *CLUSTER_API, DAEMONSETS,
                                     EVENTS, STATUS))


def _sections(doc: dict) -> dict[str, dict]:
    return {s["name"]: s for s in doc["sections"]}


@pytest.fixture
def groups(tmp_path) -> str:
    path = tmp_path / "groups.yaml"
    path.write_text(GROUPS)
    return str(path)


def _live_and_snapshot(capsys, api, tmp_path: Path, *args: str, named: tuple[str, ...] = ()) -> tuple[tuple, tuple]:
    """Live, and over `kexplain snapshot --node-stats-pressured` (what live reads of the nodes;
    `named`: --node-stats NODE of both)."""
    stats = [a for n in named for a in ("--node-stats", n)]
    live = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW, *args, *stats)
    snapshot = tmp_path / "snapshot.json"
    code, _, err = run_cli(capsys, "snapshot", "--kubeconfig", api.kubeconfig, "-o", str(snapshot),
                           "--node-stats-pressured", *stats)
    assert code == 0, err
    files = run_cli(capsys, "cluster", "--nodes", str(snapshot), "--now", NOW, *args)
    return live, files


def test_live_is_the_document_of_a_snapshot_of_the_same_cluster(capsys, tmp_path, groups):
    with recorded_api(tmp_path) as api:
        live, files = _live_and_snapshot(capsys, api, tmp_path, "--node-groups", groups, "-o", "json")
    assert live[0] == files[0] == 1
    doc = json.loads(live[1])
    assert doc == json.loads(files[1])
    sections = _sections(doc)
    assert sections["pending"]["held"] and sections["drains"]["held"]     # (the comparison cannot pass empty)
    assert sections["scaledown"]["nodes"] == 6 and "skipped" not in sections["scaledown"]
    assert sections["karpenter"]["skipped"] == "no Karpenter NodePool (karpenter.sh/v1) among the inputs"


def test_live_with_karpenter_is_the_snapshots_document_too(capsys, tmp_path):
    with recorded_api(tmp_path, collections=("karpenter",)) as api:
        live, files = _live_and_snapshot(capsys, api, tmp_path, "-o", "json")
    doc = json.loads(live[1])
    assert "skipped" not in _sections(doc)["karpenter"]
    assert doc == json.loads(files[1]) and live[0] == files[0]


def test_the_text_is_the_snapshots_text(capsys, tmp_path):
    with recorded_api(tmp_path) as api:
        live, files = _live_and_snapshot(capsys, api, tmp_path)
    assert live[1] == files[1] and live[1].startswith("6 pending groups (6 pods), 1 drain blocked")


def test_a_section_whose_reads_rbac_refuses_is_skipped_and_the_others_go_on(capsys, tmp_path):
    rbac = Rbac(cluster=EVERY - {"nodepools"}, namespaces=frozenset())
    with recorded_api(tmp_path, collections=("karpenter",), rbac=rbac) as api:
        code, out, err = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW, "-o", "json")
    assert code == 1, err
    sections = _sections(json.loads(out))
    assert sections["karpenter"]["skipped"] == \
        "not read from the cluster: list nodepools at the cluster scope (403)"
    assert sections["pending"]["held"] and sections["drains"]["held"]
    assert "skipped" not in sections["budgets"]


def test_daemonsets_refused_skip_what_reads_them(capsys, tmp_path, groups):
    rbac = Rbac(cluster=EVERY - {"daemonsets"}, namespaces=frozenset())
    with recorded_api(tmp_path, rbac=rbac) as api:
        code, out, _ = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW,
                               "--node-groups", groups, "-o", "json")
    sections = _sections(json.loads(out))
    assert {n for n, s in sections.items() if str(s.get("skipped", "")).startswith("not read")} == \
        {"drains", "scaledown", "karpenter"}
    assert sections["drains"]["skipped"].startswith("not read from the cluster: DaemonSets could not be read: ")
    assert "skipped" not in sections["pending"] and code == 1


def test_cas_status_refused_skips_its_scale_down_unless_the_groups_are_given(capsys, tmp_path, groups):
    rbac = Rbac(cluster=EVERY - {"configmaps"}, namespaces=frozenset())
    with recorded_api(tmp_path, rbac=rbac) as api:
        _, out, _ = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW, "-o", "json")
        skipped = _sections(json.loads(out))["scaledown"]["skipped"]
        _, out, _ = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW, "--node-groups", groups,
                            "-o", "json")
    assert skipped.startswith("not read from the cluster: CA's status ConfigMap "
                              "kube-system/cluster-autoscaler-status could not be read: ")
    assert "skipped" not in _sections(json.loads(out))["scaledown"]


def test_the_text_says_a_refused_section_in_one_line(capsys, tmp_path):
    rbac = Rbac(cluster=EVERY - {"nodepools"}, namespaces=frozenset())
    with recorded_api(tmp_path, collections=("karpenter",), rbac=rbac) as api:
        _, out, _ = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW)
    head = out.split("\n\n")[0].replace("\n", " ")
    assert head.endswith("scaledown skipped, karpenter skipped")
    assert out.rstrip().endswith("Nodes Karpenter will not remove: skipped: not read from the cluster: list\n"
                                 "nodepools at the cluster scope (403)")


def test_a_namespace_keeps_its_pending_pods_only(capsys, tmp_path):
    with recorded_api(tmp_path) as api:
        _, out, _ = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW, "-n", "shop",
                            "--section", "pending", "-o", "json")
        _, every, _ = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW, "-n", "shop", "-A",
                              "--section", "pending", "-o", "json")
    rows = _sections(json.loads(out))["pending"]["rows"]
    assert rows and {r["owner"]["namespace"] for r in rows} == {"shop"}
    assert {r["owner"]["namespace"] for r in _sections(json.loads(every))["pending"]["rows"]} > {"shop"}


def test_the_live_options_are_not_for_files(capsys, tmp_path):
    code, out, err = run_cli(capsys, "cluster", "--nodes", str(tmp_path / "x.yaml"), "--context", "prod")
    assert (code, out) == (2, "")
    assert "--kubeconfig and --context read the live cluster: give them without --nodes" in err


def test_live_with_kueue_is_the_snapshots_document_too(capsys, tmp_path):
    with recorded_api(tmp_path, collections=("kueue",)) as api:
        live, files = _live_and_snapshot(capsys, api, tmp_path, "-o", "json")
    doc = json.loads(live[1])
    sections = _sections(doc)
    assert "skipped" not in sections["queued"] and "skipped" not in sections["evictions"]
    assert doc == json.loads(files[1]) and live[0] == files[0]


def test_kueues_reads_refused_skip_the_queued_work_only(capsys, tmp_path):
    rbac = Rbac(cluster=EVERY - {"workloads"}, namespaces=frozenset())
    with recorded_api(tmp_path, collections=("kueue",), rbac=rbac) as api:
        code, out, err = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW, "-o", "json")
    assert code == 1, err
    sections = _sections(json.loads(out))
    assert sections["queued"]["skipped"] == "not read from the cluster: list workloads at the cluster scope (403)"
    assert {n for n, s in sections.items() if str(s.get("skipped", "")).startswith("not read")} == {"queued"}
    assert sections["evictions"]["pressureReported"] == 0 and "pressureSkipped" not in sections["evictions"]


def test_a_kueue_configuration_kueue_refuses_skips_the_sections_running_kueue_with_its_words(capsys, tmp_path):
    """Live, Kueue's manager ConfigMap holds a Configuration Kueue's loader refuses: the sections
    running Kueue's pass (the queued work; the pending pods, with Workloads stored) say they were not
    run, in the loader's words; the rest goes on (never exit 2 for the whole report)."""
    with recorded_api(tmp_path, collections=("kueue",)) as api:
        api.objects[CONFIG_MAP] = config_map(fairSharing={"preemptionStrategies": ["Fastest"]})
        code, out, err = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW, "-o", "json")
    assert code == 1, err
    sections = _sections(json.loads(out))
    said = sections["queued"]["skipped"]
    assert said.startswith("not run: Kueue's manager refuses its Configuration (it does not start on it): http")
    assert ("ConfigMap kueue-system/kueue-manager-config controller_manager_config.yaml: Configuration: "
            'fairSharing.preemptionStrategies: Unsupported value: []v1beta2.PreemptionStrategy{"Fastest"}') in said
    assert sections["pending"]["skipped"] == said
    assert sections["drains"]["held"] and "skipped" not in sections["budgets"]


PRESSED = "node-b2"
CONFIGZ = {"kubeletconfig": {"evictionHard": {"memory.available": "100Mi"}}}


def _proxy(node: str, what: str) -> str:
    return f"/api/v1/nodes/{node}/proxy/{what}"


def _under_pressure(api, summary: bool = True) -> None:
    """node-b2 reports MemoryPressure, its kubelet 50Mi short of memory (hard threshold 100Mi),
    its Summary naming each of its pods; every node's configz and Summary served."""
    items = api.collections[POD_PATH]["items"]
    stamp = {"time": "2026-11-23T14:59:58Z"}
    for node in api.collections["/api/v1/nodes"]["items"]:
        name = node["metadata"]["name"]
        pods = [p for p in items if p["spec"].get("nodeName") == name]
        available = (50 << 20) if name == PRESSED else (8 << 30)
        if summary:
            api.objects[_proxy(name, "stats/summary")] = {
                "node": {"nodeName": name, "memory": {**stamp, "availableBytes": available,
                                                      "workingSetBytes": 15 << 30}},
                "pods": [{"podRef": {k: p["metadata"][k] for k in ("name", "namespace", "uid")},
                          "memory": {**stamp, "workingSetBytes": (600 + 10 * i) << 20}} for i, p in enumerate(pods)]}
        api.objects[_proxy(name, "configz")] = CONFIGZ
        if name == PRESSED:
            node["status"].setdefault("conditions", []).append({"type": "MemoryPressure", "status": "True"})


def test_live_reads_the_nodes_under_pressure_as_a_snapshot_with_node_stats_pressured(capsys, tmp_path, groups):
    with recorded_api(tmp_path) as api:
        _under_pressure(api)
        live, files = _live_and_snapshot(capsys, api, tmp_path, "--node-groups", groups, "-o", "json")
        asked = {p for p in api.paths() if "/proxy/" in p}
    assert asked == {_proxy(PRESSED, "stats/summary"), _proxy(PRESSED, "configz")}     # that node's only
    doc = json.loads(live[1])
    assert doc == json.loads(files[1]) and live[0] == files[0] == 1
    evictions = _sections(doc)["evictions"]
    assert evictions["pressureChecked"] == 1 and "pressureSkipped" not in evictions
    [row] = [r for r in evictions["rows"] if r["family"] == "pressure"]
    assert row["node"] == PRESSED and row["evicts"] and row["conditions"]
    assert row["pressure"]["evictionHard"] == {"memory.available": "100Mi"}     # its configz, as evict pressure reads


def test_a_refused_node_proxy_is_one_line_and_the_rest_goes_on(capsys, tmp_path):
    with recorded_api(tmp_path) as api:
        _under_pressure(api)
        for what in ("stats/summary", "configz"):
            api.faults.forbidden[_proxy(PRESSED, what)] = "forbidden-get-nodes-proxy.json"
        code, out, err = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW, "-o", "json")
        _, text, _ = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW)
    assert code == 1, err
    sections = _sections(json.loads(out))
    evictions = sections["evictions"]
    assert evictions["pressureSkipped"] == (
        "not read from the cluster: get nodes/proxy at the cluster scope (403): the node proxy was refused "
        "(deploy/rbac.yaml's kexplain-node-stats grants it)")
    assert evictions["pressureUnread"] == [PRESSED] and evictions["taintsChecked"] >= 0
    assert sections["pending"]["held"] and sections["drains"]["held"]
    assert "Node pressure: skipped: not read from the cluster: get nodes/proxy" in text.replace("\n", " ")
    assert "forbidden" not in err        # (the section says it)


def test_a_node_whose_kubelet_does_not_answer_is_named_not_explained(capsys, tmp_path):
    with recorded_api(tmp_path) as api:
        _under_pressure(api, summary=False)         # its configz answers, its Summary is not found
        live, files = _live_and_snapshot(capsys, api, tmp_path, "-o", "json")
    assert live[0] == files[0] == 1, live[2]
    doc = json.loads(live[1])
    assert doc == json.loads(files[1])
    evictions = _sections(doc)["evictions"]
    assert evictions["pressureUnread"] == [PRESSED] and evictions["pressureChecked"] == 0
    assert f"note: node {PRESSED}'s stats/summary not kept: " in live[2]


def test_a_named_node_is_read_too_as_snapshot_node_stats_reads_it(capsys, tmp_path):
    with recorded_api(tmp_path) as api:
        _under_pressure(api)
        live, files = _live_and_snapshot(capsys, api, tmp_path, "-o", "json", named=("node-a1",))
        asked = {p for p in api.paths() if "/proxy/" in p}
        code, _, err = run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW,
                               "--node-stats", "node-zz", "--section", "evictions")
        before = len(api.paths())
        run_cli(capsys, "cluster", "--kubeconfig", api.kubeconfig, "--now", NOW, "--node-stats", "node-a1",
                "--section", "budgets")
        without = [p for p in api.paths()[before:] if "/proxy/" in p]
    assert asked == {_proxy(n, w) for n in ("node-a1", PRESSED) for w in ("stats/summary", "configz")}
    doc = json.loads(live[1])
    assert doc == json.loads(files[1]) and live[0] == files[0]
    assert _sections(doc)["evictions"]["pressureChecked"] == 2
    assert "note: node node-zz is not in the cluster: no stats kept for it" in err and code in (0, 1)
    assert without == []            # a report without the evictions asks no kubelet

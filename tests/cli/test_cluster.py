"""`kexplain cluster`: its exit codes (0 nothing held, 1 something held, 2 bad input), the text's
first line (every section in a few words, the most held first, those skipped named), one
versioned document for -o json|yaml."""
from __future__ import annotations

import json

import yaml

from tests.support.cli_helpers import run_cli
from tests.support.live_server import isolate
from tests.support.paths import DATA, FIXTURES

SHOP = str(DATA / "cluster" / "shop.yaml")
NOW = "2026-01-01T12:00:00Z"


def test_something_held_exits_1_and_the_first_line_sums_up_each_section():
    code, out, _ = run_cli("cluster", "--nodes", SHOP, "--now", NOW, width=200)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == ("3 pending groups (5 pods), 1 budget allows no disruption, 1 drain blocked, "
                        "0 evictions coming (no node reports pressure), queued skipped, scaledown skipped, "
                        "karpenter skipped")
    assert "Nodes Karpenter will not remove: skipped: no Karpenter NodePool (karpenter.sh/v1) among the inputs" in lines


def test_the_text_fits_80_columns():
    _, out, _ = run_cli("cluster", "--nodes", SHOP, "--now", NOW, width=80)
    assert max(len(line) for line in out.splitlines()) <= 80


def test_the_worst_section_comes_first():
    code, out, _ = run_cli("cluster", "--nodes", str(FIXTURES / "karpenter-disruption" / "cluster.yaml"),
                           "--nodes", str(FIXTURES / "karpenter-disruption" / "nodepools.yaml"), "--now", NOW,
                           width=200)
    assert code == 1
    assert out.splitlines()[0].startswith("2 nodes kept (2 by Karpenter; 1 NodePool closed by budgets), "
                                          "1 budget allows no disruption, 0 pending groups")


def test_nothing_held_exits_0():
    code, out, _ = run_cli("cluster", "--nodes", str(FIXTURES / "eviction" / "drain.yaml"), "--section", "drains",
                           "--now", NOW)
    assert code == 0
    assert out.splitlines()[0] == "0 drains blocked"


def test_json_is_one_versioned_document():
    code, out, _ = run_cli("cluster", "--nodes", SHOP, "--now", NOW, "-o", "json", "--section", "pending")
    doc = json.loads(out)
    assert (code, doc["apiVersion"], doc["kind"], doc["now"]) == (1, "kexplain/v1", "ClusterReport", NOW)
    assert [s["name"] for s in doc["sections"]] == ["pending"]


def test_yaml_is_the_same_document():
    _, as_json, _ = run_cli("cluster", "--nodes", SHOP, "--now", NOW, "-o", "json")
    _, as_yaml, _ = run_cli("cluster", "--nodes", SHOP, "--now", NOW, "-o", "yaml")
    assert yaml.safe_load(as_yaml) == json.loads(as_json)


def test_without_nodes_nor_a_kubeconfig_is_bad_usage(monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path / "home")         # (live: no kubeconfig, not in a cluster)
    code, out, err = run_cli("cluster")
    assert (code, out) == (2, "")
    assert "error: no kubeconfig: " in err and "pass --kubeconfig FILE" in err


def test_an_unknown_section_is_bad_usage():
    code, _, err = run_cli("cluster", "--nodes", SHOP, "--section", "kueue")
    assert code == 2
    assert ("error: --section kueue: not a section (one of pending, queued, budgets, drains, scaledown, "
            "karpenter, evictions)") in err


def test_a_file_that_is_not_there_is_bad_input(tmp_path):
    code, _, err = run_cli("cluster", "--nodes", str(tmp_path / "missing.yaml"))
    assert code == 2
    assert "missing.yaml" in err and "Traceback" not in err


def test_a_broken_object_is_bad_input(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec: {unschedulable: maybe}\n")
    code, _, err = run_cli("cluster", "--nodes", str(broken))
    assert code == 2
    assert "broken.yaml" in err and "Traceback" not in err


def test_what_a_section_said_goes_to_stderr(tmp_path):
    going = tmp_path / "going.yaml"
    going.write_text("""apiVersion: v1
kind: Pod
metadata: {name: going, namespace: shop, deletionTimestamp: "2026-01-01T11:00:00Z"}
spec:
  containers: [{name: c, image: c}]
status:
  phase: Pending
  conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
""")
    code, out, err = run_cli("cluster", "--nodes", SHOP, "--nodes", str(going), "--section", "pending", "--now", NOW)
    assert code == 1
    assert "note: skipped 1 pending pod(s) being deleted (the scheduler skips them)" in err.splitlines()
    assert "going" not in out


def test_node_groups_that_cannot_be_found_are_said_and_the_report_goes_on(tmp_path):
    status = tmp_path / "status.yaml"
    status.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-autoscaler-status, "
                      "namespace: kube-system}\ndata:\n  status: \"not: [what CA writes\"\n")
    code, out, err = run_cli("cluster", "--nodes", SHOP, "--nodes", str(status), "--section", "pending", "--now", NOW)
    assert code == 1 and out.startswith("3 pending groups (5 pods)")
    assert "note: the autoscaler's node groups could not be found: " in err
    assert err.rstrip().endswith(": no Cluster autoscaler answer")


def test_a_directory_of_files_is_one_cluster():
    code, out, _ = run_cli("cluster", "--nodes", str(DATA / "cluster"), "--section", "pending", "--now", NOW,
                           "-o", "json")
    owners = {(r["owner"]["kind"], r["owner"]["name"]) for r in json.loads(out)["sections"][0]["rows"]}
    assert code == 1 and {("Deployment", "render"), ("Job", "worker")} <= owners


def test_a_snapshot_is_explained_as_the_version_it_recorded(tmp_path):
    snapshot = tmp_path / "cluster.yaml"
    text = (DATA / "cluster" / "shop.yaml").read_text().replace(
        "items:\n", "items:\n- {apiVersion: kexplain/v1, kind: ServerVersion, metadata: {}, gitVersion: v1.34.2}\n", 1)
    snapshot.write_text(text)
    _, out, _ = run_cli("cluster", "--nodes", str(snapshot), "--section", "drains", "--now", NOW, "-o", "json")
    doc = json.loads(out)
    assert doc["kubernetesVersion"] == "1.34"
    assert doc["sections"][0]["rows"][0]["drain"]["kubernetesVersion"].startswith("v1.34.")


def test_the_nodes_both_autoscalers_keep_are_one_part_of_the_first_line():
    from kexplain.render.cluster import summary
    doc = {"sections": [{"name": "pending", "held": 0, "pods": 0},
                        {"name": "scaledown", "held": 3, "rows": [{}, {}, {}]},
                        {"name": "karpenter", "held": 3, "rows": [{}, {}], "nodePools": [{}]}]}
    assert summary(doc) == "5 nodes kept (3 by the Cluster Autoscaler, 2 by Karpenter; 1 NodePool closed by " \
                           "budgets), 0 pending groups (0 pods)"


def test_many_nodes_kept_for_one_reason_are_counted_not_each_listed():
    from kexplain.render.cluster import scaledown_lines
    rows = [{"name": f"n{i}", "nodeGroup": "g", "reason": "BlockedByPod",
             "blockingPod": {"pod": f"default/p{i}", "reason": "NotReplicated"}} for i in range(6)]
    rows.append({"name": "m", "nodeGroup": "g", "reason": "ScaleDownDisabledAnnotation"})
    lines = [text for _, text in scaledown_lines({"result": "ScaleDownNoNodeDeleted", "candidates": 7, "nodes": 7,
                                                  "unneeded": [], "rows": rows})]
    assert lines == ["Cluster Autoscaler: ScaleDownNoNodeDeleted (7 of 7 nodes looked at; unneeded: none)",
                     "- 6 nodes: BlockedByPod (NotReplicated)",
                     "- n0 (group g): BlockedByPod: default/p0 (NotReplicated)",
                     "- n1 (group g): BlockedByPod: default/p1 (NotReplicated)",
                     "- n2 (group g): BlockedByPod: default/p2 (NotReplicated)",
                     "... and 3 more (-o json lists each)",
                     "- m (group g): ScaleDownDisabledAnnotation"]


def test_the_options_it_shares_are_declared_as_the_other_commands_declare_them():
    """--node-groups, --autoscaler-config and --kubelet-config: `cli.options`' declarations (one
    flag, metavar and default; --node-groups' help opening as every command's), the report's words after."""
    from kexplain.cli import cluster, options

    said = {cluster.NODE_GROUPS_OPTION: options.node_groups_option(""),
            cluster.AUTOSCALER_CONFIG_OPTION: options.autoscaler_config_option(),
            cluster.KUBELET_CONFIG_OPTION: options.kubelet_config_option()}
    for option, shared in said.items():
        assert {**vars(option), "help": ""} == {**vars(shared), "help": ""}, option.param_decls
    assert cluster.NODE_GROUPS_OPTION.help.startswith(options.node_groups_option("").help)

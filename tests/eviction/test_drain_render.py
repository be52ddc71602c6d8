"""`kexplain evict drain`'s table view (`render.eviction.drain`), read only from the document, and
its bad input: an unknown node is one line, exit 2."""
from __future__ import annotations

import json

import yaml

from kexplain.cli.app import main
from kexplain.render.eviction.drain import override, summary, verdict
from tests.eviction.drain_cluster import cluster, pod, write
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT

FIXTURE = ROOT / "fixtures" / "eviction" / "drain.yaml"


def run(*argv: str) -> tuple[int, TestEnvironment]:
    env = TestEnvironment()
    return main(["evict", "drain", *argv], env), env


def test_the_table_shows_each_pod_each_eviction_with_its_budget_the_replacements_and_the_fixes():
    code, env = run("node-a", "--nodes", str(FIXTURE), "--ignore-daemonsets", "--delete-emptydir-data", "--force")
    out = env.out
    assert code == 1 and "blocked: 1 of 4 evictions refused" in out
    assert "- skip   kube-system/node-exporter-x7k2p: ignoring DaemonSet-managed Pods  (by" in out
    assert "default/web-pdb: healthy 3, desired 2, expected 3, allowed 1 -> allowed 0" in out
    assert "- default/db-0 -> db-0 (StatefulSet/db): scheduled on node-c" in out
    assert "- set default/web-pdb minAvailable to 1 (was 2)\n    the drain goes" in out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "warning: ignoring DaemonSet-managed Pods: kube-system/node-exporter-x7k2p" in env.err


def test_a_refusal_names_the_flag_that_overrides_it(tmp_path):
    code, env = run("node-a", "--nodes", str(write(tmp_path / "c.yaml", cluster() + [pod("debug", None)])))
    assert code == 1 and "refused: 1 error, nothing is evicted" in env.out
    words = " ".join(env.out.split())
    assert "refuse default/debug: Pods that declare no controller (use --force to override) (--force overrides)" \
        in words


def test_the_words_read_only_the_document():
    assert verdict({"reason": "Error", "delete": False}) == "refuse"
    assert verdict({"reason": "Warning", "delete": False}) == "skip"
    assert verdict({"reason": "Warning", "delete": True}) == "delete"
    assert override({"reason": "Error"}, {"flag": "--force"}) == "(--force overrides)"
    assert override({"reason": "Okay"}, {"flag": ""}) == ""
    doc = {"node": "n", "flags": [], "kubernetesVersion": "v1.36.3", "errors": [], "evictions": [{"evicted": True}]}
    assert summary(doc) == "kubectl drain n (v1.36.3): drains: 1 pod evicted"


def test_an_unknown_node_is_one_line_and_exit_2():
    code, env = run("node-z", "--nodes", str(FIXTURE))
    assert code == 2 and env.out == ""
    lines = env.err.strip().splitlines()
    assert len(lines) == 1 and "node 'node-z' not found" in lines[0] and lines[0].count("drain.yaml") == 1
    code, env = run("node-z", "--nodes", str(FIXTURE), "--nodes", str(FIXTURE))
    assert code == 2 and env.err.strip() == f"error: node 'node-z' not found in {FIXTURE}, {FIXTURE}"


def test_yaml_is_the_same_document():
    _, as_json = run("node-a", "--nodes", str(FIXTURE), "-o", "json")
    code, as_yaml = run("node-a", "--nodes", str(FIXTURE), "-o", "yaml")
    assert code == 1 and yaml.safe_load(as_yaml.out) == json.loads(as_json.out)

"""`kexplain evict taints` on the command line: the table, `--taint`'s what if, exit codes, bad input."""
from __future__ import annotations

import json

import pytest
import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

CASES = TESTS / "eviction" / "cases"
NODE = "ip-10-0-1-5"
NOW = "2026-01-01T00:00:00Z"


def run(case: str, *args: str) -> tuple[int, str, str]:
    env = TestEnvironment()
    code = main(["evict", "taints", NODE, "--nodes", str(CASES / case / "cluster.yaml"), "--now", NOW, *args], env)
    return code, env.out, env.err


def test_the_table_shows_every_pod_its_taints_seconds_and_when() -> None:
    code, out, err = run("taints-0040")
    assert code == 1 and err == ""
    assert max(len(line) for line in out.splitlines()) <= 80
    lines = out.splitlines()
    assert "  T1 dedicated=gpu:NoExecute" in lines
    assert any(line.split() == ["ml/multi-2-880", "after", "45", "s", "T1", "45", "s"] for line in lines)
    assert any(line.split() == ["ml/wrong-value-1-978", "never", "T1", "forever"] for line in lines)
    assert any(line.split() == ["kube-system/none-0-404", "now", "T1", "not", "tolerated"] for line in lines)
    assert "deleted at 2026-01-01T00:16:40Z" in out              # 1000 s after now
    assert "- ml/multi-2-880: node.kubernetes.io/unreachable:NoExecute for 300 s" in lines
    assert lines[-1] == "5 pods of 7 deleted: 3 now, 2 after 45 to 1000 s; 2 never."


def test_a_node_without_no_execute_taints_evicts_nothing() -> None:
    code, out, _ = run("taints-0001")
    assert code == 0
    assert "0 NoExecute taints" in out and out.splitlines()[-1] == "0 pods of 5 deleted: 0 now; 5 never."


def test_what_if_the_node_becomes_unreachable() -> None:
    code, out, _ = run("taints-0001", "--taint", "node.kubernetes.io/unreachable:NoExecute", "-o", "json")
    doc = json.loads(out)
    assert code == 1
    assert doc["whatIf"] == {"add": [{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}], "remove": []}
    assert {p["pod"]: (p["decision"], p.get("afterSeconds")) for p in doc["pods"]} == {
        "default/daemonset-0-143": ("keep", None),        # tolerates it forever
        "default/seconds-2-796": ("evictAfter", 60),      # its own 60 s
        "default/none-3-813": ("evictAfter", 300), "default/none-4-270": ("evictAfter", 300),
        "kube-system/none-1-522": ("evictAfter", 300)}    # DefaultTolerationSeconds' 300 s
    matches = {m["pod"]: m for m in doc["matches"]}
    assert matches["default/seconds-2-796"]["evictAt"] == "2026-01-01T00:01:00Z"
    assert matches["default/daemonset-0-143"]["taints"][0]["toleration"]["operator"] == "Exists"


def test_what_if_a_taint_goes_away() -> None:
    code, out, _ = run("taints-0040", "--taint", "dedicated:NoExecute-", "-o", "yaml")
    doc = yaml.safe_load(out)
    assert code == 0 and doc["noExecuteTaints"] == [] and doc["events"] == []


@pytest.mark.parametrize(("taint", "message"), [
    ("a=b=c:NoExecute", "error: --taint: invalid taint spec: a=b=c:NoExecute"),
    ("dedicated=gpu:NoSchedule", "error: --taint: dedicated=gpu:NoSchedule: not a NoExecute taint"),
    ("gone:NoExecute-", 'error: --taint: taint "gone:NoExecute" not found'),
])
def test_a_bad_taint_is_one_line_and_exit_2(taint: str, message: str) -> None:
    code, out, err = run("taints-0001", "--taint", taint)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(message)


def test_an_unknown_node_is_exit_2() -> None:
    env = TestEnvironment()
    code = main(["evict", "taints", "nope", "--nodes", str(CASES / "taints-0001" / "cluster.yaml")], env)
    assert code == 2 and len(env.err.splitlines()) == 1 and "node 'nope' not found" in env.err

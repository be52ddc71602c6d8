"""The toleration changes that keep a deleted pod on the node, each checked by the pass again."""
from __future__ import annotations

import json
from datetime import datetime, timezone

from kexplain.cli.app import main
from kexplain.eviction.tainteviction import evaluate
from kexplain.eviction.tainteviction.fixes import ADD, DROP_SECONDS, exact_toleration, keeping
from kexplain.features import KubeVersion
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT, TESTS

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
KUBE = KubeVersion("1.36")
NODE = {"spec": {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoExecute"},
                            {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]}}


def fix_of(tolerations: list[dict]):
    pod = {"metadata": {"name": "p", "namespace": "ns"}, "spec": {"tolerations": tolerations}}
    return keeping(NODE, pod, evaluate(NODE, [pod], KUBE, NOW).pods[0], KUBE, NOW)


def test_exact_toleration() -> None:
    assert exact_toleration({"key": "a", "value": "b", "effect": "NoExecute"}) == \
        {"key": "a", "operator": "Equal", "value": "b", "effect": "NoExecute"}
    assert exact_toleration({"key": "a", "effect": "NoExecute"}) == {"key": "a", "operator": "Exists",
                                                                     "effect": "NoExecute"}


def test_an_untolerated_taint_and_a_default_toleration_are_answered_by_additions() -> None:
    fix = fix_of([])
    assert fix is not None and fix.decision == "keep"
    assert fix.changes == ((ADD, {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoExecute"}),
                           (ADD, {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                                  "effect": "NoExecute"}))


def test_the_pods_own_seconds_are_dropped() -> None:
    own = {"key": "dedicated", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
    fix = fix_of([own, {"operator": "Exists", "key": "node.kubernetes.io/unreachable"}])
    assert fix is not None and fix.changes == ((DROP_SECONDS, own),) and fix.decision == "keep"


def test_a_kept_pod_needs_none() -> None:
    assert fix_of([{"operator": "Exists"}]) is None


def test_every_fix_of_the_bundled_cases_keeps_its_pod() -> None:
    checked = 0
    for case in sorted((TESTS / "eviction" / "cases").glob("taints-*")):
        env = TestEnvironment()
        node = json.loads((case / "params.yaml").read_text())["node"]
        main(["evict", "taints", node, "--nodes", str(case / "cluster.yaml"), "--now", "2026-01-01T00:00:00Z",
              "-o", "json"], env)
        doc = json.loads(env.out)
        deleted = [p["pod"] for p in doc["pods"] if p["decision"] != "keep"]
        assert [f["pod"] for f in doc["fixes"]] == deleted
        assert {f["decisionAfter"] for f in doc["fixes"]} <= {"keep"}
        checked += len(deleted)
    assert checked > 10


def test_the_table_words_them() -> None:
    env = TestEnvironment()
    main(["evict", "taints", "worker-3", "--nodes", str(ROOT / "fixtures" / "eviction" / "taints.yaml"),
          "--now", "2026-01-01T00:00:00Z"], env)
    assert "- shop/cache-0: drop tolerationSeconds 30 from its toleration" in env.out
    assert "node.kubernetes.io/unreachable:NoExecute (checked: kept)" in env.out
    assert "stays bound to a dead node" in env.out

"""Both memory thresholds met past grace (evictionHard memory.available<500Mi, evictionSoft
memory.available<1Gi): thresholdsMetGracePeriod ranges over a map and byEvictionPriority puts
either first, so the kubelet acts on either; the document says both (`reclaimChoices`: each one's
grace period and message), the single answer (`evicted`, `reclaimSignal`) as before (issue 77,
item 8)."""
from __future__ import annotations

import json
from pathlib import Path

from kexplain.cli.app import main
from tests.eviction.test_admitted_priority import cluster, summary, write
from tests.support.cli_helpers import TestEnvironment

CONFIG = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
          "evictionHard": {"memory.available": "500Mi"}, "evictionSoft": {"memory.available": "1Gi"},
          "evictionSoftGracePeriod": {"memory.available": "30s"}, "evictionMaxPodGracePeriod": 20}
EARLIER = "2025-12-31T23:58:00Z"


def run(tmp_path: Path, config: dict, *extra: str) -> tuple[int, dict, str]:
    now = summary(300 << 20)
    earlier = json.loads(json.dumps(now).replace("2026-01-01T00:00:00Z", EARLIER))
    for name, doc in (("stats.json", now), ("earlier.json", earlier), ("kc.yaml", config)):
        (tmp_path / name).write_text(json.dumps(doc))
    argv = ["evict", "pressure", "n1", "--nodes", write(tmp_path / "cluster.yaml", cluster()),
            "--stats", str(tmp_path / "stats.json"), "--earlier-stats", str(tmp_path / "earlier.json"),
            "--earlier-at", EARLIER, "--kubelet-config", str(tmp_path / "kc.yaml"), "--now", "2026-01-01T00:00:00Z"]
    env = TestEnvironment()
    code = main([*argv, "-o", "json"], env)
    text = TestEnvironment()
    main(argv, text)
    return code, json.loads(env.out), text.out


def test_both_memory_thresholds_are_said_with_their_grace_and_quantity(tmp_path):
    code, doc, text = run(tmp_path, CONFIG)
    choices = doc["reclaimChoices"]
    assert [(c["value"], c["hard"], c["quantity"]) for c in choices] == [("1Gi", False, "1Gi"),
                                                                         ("500Mi", True, "500Mi")]
    assert [c["evicted"]["gracePeriodSeconds"] for c in choices] == [20, 1]
    assert {c["evicted"]["pod"] for c in choices} == {"shop/web"}
    assert "Threshold quantity: 500Mi, available: 300Mi. " in choices[1]["evicted"]["message"]
    # the single answer stays the one the yardstick reads: the first choice
    (evicted,) = doc["evicted"]
    assert (doc["reclaimSignal"], doc["reclaimHard"], evicted) == ("memory.available", False, choices[0]["evicted"])
    said = " ".join(text.split())
    assert "The kubelet may act on either memory threshold" in said
    assert 'grace period 1s, message "Threshold quantity: 500Mi"' in said


def test_one_memory_threshold_has_no_choices(tmp_path):
    config = {k: v for k, v in CONFIG.items() if not k.startswith("evictionSoft")}
    code, doc, text = run(tmp_path, config)
    assert doc["evicted"] and "reclaimChoices" not in doc and "may act on either" not in text

"""The cdp plugin: cdp_test.go's Test_CooldownTimePlugin_podPreemptStableTime (a valid and an invalid
cooldown) and TestPreemptableFn (three Running pods scheduled 100s, 100s and 800s ago with 600s, an
invalid value and 600s: the second and third are victims), at a fixed clock; then a whole preempt session."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import new_task
from kexplain.volcano.conf import parse
from kexplain.volcano.framework.session import Session
from kexplain.volcano.plugins.cdp import Cdp, cooldown
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=timezone.utc)


def make_pod(name: str, labels: dict[str, str], annotations: dict[str, str], scheduled_ago: int | None) -> dict[str, Any]:
    """makePod: Running with a True PodScheduled condition `scheduled_ago` seconds before NOW, else Pending."""
    status: dict[str, Any] = {"phase": "Pending", "conditions": []}
    if scheduled_ago is not None:
        at = (NOW - timedelta(seconds=scheduled_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
        status = {"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True",
                                                       "lastTransitionTime": at}]}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels,
                         "annotations": {**annotations, "scheduling.k8s.io/group-name": "test-group"}},
            "spec": {"containers": [{"name": "c"}]}, "status": status}


@pytest.mark.parametrize("value,expected", [("600s", 600 * 10**9), ("600abcde", None)], ids=["normal", "not-enabled"])
def test_pod_cooldown_time(value: str, expected: int | None) -> None:
    assert cooldown(make_pod("p", {}, {"volcano.sh/cooldown-time": value}, 100)) == expected


def test_preemptable_fn() -> None:
    conf = parse("actions: preempt\ntiers:\n- plugins:\n  - name: cdp\n    enablePreemptable: true\n", "test")
    ssn = Session(conf, {}, {}, [], {}, Resource(), None)
    ssn.now = int(NOW.timestamp()) * 10**9  # type: ignore[attr-defined]
    Cdp({}).on_session_open(ssn)
    preemptable = {"volcano.sh/preemptable": "true"}
    tasks = [new_task(make_pod("task1", preemptable, {"volcano.sh/cooldown-time": "600s"}, 100)),
             new_task(make_pod("task2", preemptable, {"volcano.sh/cooldown-time": "600abcde"}, 100)),
             new_task(make_pod("task3", preemptable, {"volcano.sh/cooldown-time": "600s"}, 800))]
    assert [t.name for t in ssn.preemptable(new_task(make_pod("preemptor", {}, {}, None)), tasks)] == ["task2", "task3"]


@pytest.mark.parametrize("cooldown_time,evicted", [("87600h", False), ("1s", True)])
def test_preempt_session_spares_a_cooling_pod(tmp_path: Path, cooldown_time: str, evicted: bool) -> None:
    """preempt_test.go's "preempt low priority job in same queue" with cdp beside the other plugins: the
    victim scheduled at 2026-01-01 is spared while its cooldown (ten years) runs, not once it (1s) has."""
    hand = TESTS / "volcano" / "hand"
    docs = list(yaml.safe_load_all((hand / "preempt-low-priority.yaml").read_text()))
    for d in docs:
        if d.get("kind") == "Pod" and d["metadata"]["name"] == "preemptee1":
            d["metadata"]["labels"]["volcano.sh/cooldown-time"] = cooldown_time
            d["status"]["conditions"] = [{"type": "PodScheduled", "status": "True",
                                          "lastTransitionTime": "2026-01-01T00:00:00Z"}]
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(docs))
    conf = yaml.safe_load((hand / "preempt-conf.yaml").read_text())
    conf["tiers"][0]["plugins"].append({"name": "cdp"})
    (tmp_path / "conf.yaml").write_text(yaml.safe_dump(conf))
    env = TestEnvironment()
    main(["volcano", "--nodes", str(tmp_path / "cluster.yaml"), "--scheduler-conf", str(tmp_path / "conf.yaml"),
          "-o", "json"], env)
    doc = json.loads(env.out)
    pods = {p["name"]: p for p in doc["pods"]}
    assert bool(pods["c1/preemptee1"].get("evicted")) is evicted
    says = [f["evictions"]["says"] for f in doc.get("fixes") or () if f["podGroup"] == "c1/pg2"]
    assert evicted or says[0].endswith("; cdp kept c1/preemptee1: it started less than its volcano.sh/cooldown-time ago")

"""The evicted pod's node ranked again now (`kexplain.eviction.ranking_now`, issue 71 item 4): the
same rank function as `kexplain evict pressure`, over the node's active pods and the Summary now,
with the evicted pod's place, or its replacement's."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from kexplain.app.eviction.pressure import read_kubelet_config
from kexplain.eviction.kubelet import config as kconfig
from kexplain.eviction.kubelet import thresholds as th
from kexplain.eviction.ranking_now import ITSELF, REPLACEMENT, ranked_signal, ranking_now
from kexplain.eviction.kubelet.manager import Filesystems
from kexplain.eviction.kubelet.signals import observations
from tests.support.paths import ROOT, TESTS

CASES = TESTS / "eviction" / "cases"
SHARED = ROOT.parent / "shared" / "eviction"


def objects(case: Path) -> list[dict]:
    return [o for o in yaml.safe_load_all((case / "cluster.yaml").read_text()) if o]


def evicting_cases() -> list[Path]:
    """The pressure cases (bundled, and ../shared/eviction's when there) whose one pass evicts a pod
    under node pressure (not a local storage limit)."""
    out = []
    for case in sorted(CASES.glob("pressure-*")) + sorted(SHARED.glob("pressure-*")):
        doc = json.loads((case / "expected.json").read_text())
        if doc.get("evicted") and doc.get("reclaimResource") and not (case / "stats-earlier.json").exists():
            out.append(case)
    return out


def parts(case: Path) -> tuple[list[dict], dict, kconfig.EvictionConfig, dict]:
    expected = json.loads((case / "expected.json").read_text())
    stats = json.loads((case / "stats.json").read_text())
    config = read_kubelet_config(str(case / "kubelet-config.yaml"), 1 << 30)
    pods = [o for o in objects(case) if o.get("kind") == "Pod"]
    return pods, stats, config, expected


def by_name(pods: list[dict], name: str) -> dict:
    return next(p for p in pods if f"{p['metadata'].get('namespace') or 'default'}/{p['metadata']['name']}" == name)


@pytest.mark.parametrize("case", evicting_cases(), ids=lambda c: c.name)
def test_the_same_order_as_the_kubelets_pass(case):
    """Ranked now on the Summary the kubelet read, the order is the kubelet's own (`expected.json`),
    and the pod it evicted stands first among those not critical, as itself."""
    pods, stats, config, expected = parts(case)
    params = json.loads((case / "params.yaml").read_text())
    fs = Filesystems.named(params.get("filesystems") or "shared")
    gone = expected["evicted"][0]["pod"]
    now = ranking_now(by_name(pods, gone), expected["reclaimResource"], pods, stats, config, fs)
    assert now is not None
    assert [r["pod"] for r in now["ranking"]] == expected["ranking"]
    assert now["places"] == [{"pod": gone, "place": expected["ranking"].index(gone) + 1, "as": ITSELF}]
    assert now["underPressure"] is True


CASE = CASES / "pressure-0002"      # shop/agent-434 evicted for memory, first of five


def test_a_replacement_by_name_and_uid():
    """A StatefulSet's replacement keeps the name with a new uid; the evicted copy is gone."""
    pods, stats, config, _ = parts(CASE)
    evicted = by_name(pods, "shop/agent-434")
    replacement = copy.deepcopy(evicted)
    replacement["metadata"]["uid"] = "new-uid"
    others = [p for p in pods if p is not evicted] + [replacement]
    stats = copy.deepcopy(stats)
    for ref in stats["pods"]:
        if ref["podRef"]["name"] == "agent-434":
            ref["podRef"]["uid"] = "new-uid"
    now = ranking_now(evicted, "memory", others, stats, config)
    assert now["places"] == [{"pod": "shop/agent-434", "place": 1, "as": REPLACEMENT}]


def test_a_replacement_by_its_controller_and_none():
    pods, stats, config, _ = parts(CASE)
    owner = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "cache-7d", "uid": "rs", "controller": True}]
    evicted = {"metadata": {"name": "cache-old", "namespace": "default", "uid": "gone", "ownerReferences": owner},
               "spec": {}}
    pods = copy.deepcopy(pods)
    by_name(pods, "default/cache-566")["metadata"]["ownerReferences"] = owner
    now = ranking_now(evicted, "memory", pods, stats, config)
    assert now["places"] == [{"pod": "default/cache-566", "place": 2, "as": REPLACEMENT}]
    alone = {"metadata": {"name": "lonely", "namespace": "default", "uid": "x"}, "spec": {}}
    assert ranking_now(alone, "memory", pods, stats, config)["places"] == []


def test_finished_pods_are_not_ranked():
    pods, stats, config, _ = parts(CASE)
    pods = copy.deepcopy(pods)
    by_name(pods, "default/cache-566")["status"] = {"phase": "Succeeded"}
    now = ranking_now(by_name(pods, "shop/agent-434"), "memory", pods, stats, config)
    assert "default/cache-566" not in [r["pod"] for r in now["ranking"]]


def test_not_under_pressure_now_still_ranks():
    """Now, memory is plentiful: no threshold is met, the order the kubelet would follow is shown."""
    pods, stats, config, _ = parts(CASE)
    stats = copy.deepcopy(stats)
    stats["node"]["memory"]["availableBytes"] = 8 << 30
    now = ranking_now(by_name(pods, "shop/agent-434"), "memory", pods, stats, config)
    assert now["underPressure"] is False and now["ranking"][0]["pod"] == "shop/agent-434"
    row = next(r for r in now["thresholds"] if r["signal"] == "memory.available")
    assert row["met"] is False and row["margin"] == "8092Mi"
    assert now["at"] == "2025-12-31T23:59:54Z"


def test_the_signal_ranked():
    _, stats, config, _ = parts(CASE)
    seen = observations(stats)
    assert ranked_signal("memory", config.thresholds, seen) == th.MEMORY_AVAILABLE
    assert ranked_signal("ephemeral-storage", (), seen) == th.NODEFS_AVAILABLE      # none configured: the first
    assert ranked_signal("pids", config.thresholds, seen) == th.PID_AVAILABLE
    assert ranked_signal("gpu", config.thresholds, seen) is None

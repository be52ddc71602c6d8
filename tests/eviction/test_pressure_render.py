"""`kexplain evict pressure`'s table view: read from the document alone, 80 columns but the
kubelet's message, printed whole."""
from __future__ import annotations

import json

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS

CASE = TESTS / "eviction" / "cases" / "pressure-0002"
ARGV = ["evict", "pressure", "node-a", "--nodes", str(CASE / "cluster.yaml"), "--stats", str(CASE / "stats.json"),
        "--kubelet-config", str(CASE / "kubelet-config.yaml"), "--admit", str(CASE / "admit.yaml"),
        "--now", "2026-01-01T00:00:00Z"]


def test_the_table_shows_signals_ranking_message_changes_and_admission() -> None:
    env = TestEnvironment()
    assert main(ARGV, env) == 1
    out = env.out
    want = json.loads((CASE / "expected.json").read_text())
    message = want["evicted"][0]["message"]
    assert f"  {message.rstrip()}\n" in out
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines if message.rstrip() not in line)
    assert any(line.startswith("memory.available") and line.rstrip().endswith("MET") for line in lines)
    ranked = [line.split()[1] for line in lines if line[:1].isdigit() and "/" in line]
    assert ranked == want["ranking"]
    assert "EVICTED" in next(line for line in lines if "shop/agent-434" in line and line[:1] == "1")
    assert "Verified changes (each ranked again)" in out and "default/cache-566" in out
    assert "The node had condition:" in out and "[MemoryPressure]." in out


def test_json_and_table_come_from_one_document() -> None:
    env = TestEnvironment()
    main([*ARGV, "-o", "json"], env)
    doc = json.loads(env.out)
    assert [k["pod"] for k in doc["rankingKeys"]] == doc["ranking"]
    assert [k["name"] for k in doc["rankingKeys"][0]["keys"]] == ["exceedsRequest", "priority", "usageOverRequest"]
    met = [s for s in doc["signals"] if s.get("met")]
    assert [s["signal"] for s in met] == ["memory.available"] and met[0]["marginValue"] < 0


def _run(argv: list[str]) -> tuple[int, str]:
    env = TestEnvironment()
    return main(argv, env), env.out


def test_a_condition_held_by_the_transition_period_is_said_so() -> None:
    case = TESTS / "eviction" / "cases" / "pressure-0041"
    params = json.loads((case / "params.yaml").read_text())
    code, out = _run(["evict", "pressure", params["node"], "--nodes", str(case / "cluster.yaml"),
                      "--stats", str(case / "stats.json"), "--kubelet-config", str(case / "kubelet-config.yaml"),
                      "--earlier-stats", str(case / "stats-earlier.json"), "--earlier-at", params["earlierAt"],
                      "--now", params["now"]])
    assert code == 1        # the earlier pass evicted
    assert (f"No threshold is met. Node conditions reported: MemoryPressure (held by the 300s\n"
            f"transition period: last met at {params['earlierAt']})") in out


def test_a_summary_not_newer_than_the_last_pass_is_not_acted_on() -> None:
    """The same Summary twice: the second pass meets the threshold but its sample is old."""
    code, out = _run([*ARGV, "--earlier-stats", str(CASE / "stats.json"), "--earlier-at", "2025-12-31T23:59:55Z",
                      "-o", "json"])
    doc = json.loads(out)
    assert code == 1 and [e["pod"] for e in doc["earlier"]["evicted"]] == ["shop/agent-434"]
    assert doc["evicted"] == [] and [t["signal"] for t in doc["staleStats"]] == ["memory.available"]
    _, text = _run([*ARGV, "--earlier-stats", str(CASE / "stats.json"), "--earlier-at", "2025-12-31T23:59:55Z"])
    assert "its sample is not newer than the previous pass's" in " ".join(text.split())


def test_the_key_that_put_the_evicted_pod_first_is_named() -> None:
    _, out = _run(ARGV)
    assert ("shop/agent-434 is ahead of default/cache-566 because it has the lower priority:\n"
            "priority -10 against 0; the keys before it are equal.") in out
    _, doc = _run([*ARGV, "-o", "json"])
    assert [r["decidedBy"] for r in json.loads(doc)["rankingKeys"]] == \
        ["priority", "priority", "usageOverRequest", "exceedsRequest", ""]


def _case_argv(name: str) -> list[str]:
    case = TESTS / "eviction" / "cases" / name
    params = json.loads((case / "params.yaml").read_text())
    return ["evict", "pressure", params["node"], "--nodes", str(case / "cluster.yaml"), "--stats",
            str(case / "stats.json"), "--kubelet-config", str(case / "kubelet-config.yaml"), "--now", params["now"]]


def test_local_storage_evictions_and_critical_pods_spared_are_said() -> None:
    code, out = _run(_case_argv("pressure-0012"))
    assert code == 1 and "default/ui-406 has an emptyDir volume over its sizeLimit." in " ".join(out.split())
    code, out = _run(_case_argv("pressure-0033"))
    assert code == 0 and "Over a local storage limit but critical, not evicted: kube-system/api-611." in out

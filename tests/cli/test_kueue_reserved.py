"""A job whose Workload holds quota and waits for its admission checks (tests/data/kueue-reserved):
Kueue keeps it held, but its pod template is explained as its pods would run once the checks pass,
on the reserved flavor's nodes (its node labels and tolerations merged in; with TAS, the reserved
domain's too). Every output (JSON, text, page, lint) says the same."""
from __future__ import annotations

import json
from functools import lru_cache

from tests.support.cli_helpers import run_cli
from tests.support.kueue_chain_facts import flat, page_text
from tests.support.paths import DATA

CASE = DATA / "kueue-reserved"
NODES = ("--nodes", str(CASE / "cluster.yaml"))
SAID = "Its pod template, explained on the reserved flavors' nodes"


@lru_cache(maxsize=None)
def explained(job: str, *flags: str) -> tuple[int, str, str]:
    return run_cli(str(CASE / job), *NODES, *flags, width=100)


def _doc(job: str) -> dict:
    code, out, err = explained(job, "-o", "json")
    assert out and code == 1, err       # (held by Kueue: exit 1, as any held job)
    return json.loads(out)


def test_a_job_reserved_on_a100_is_explained_on_a100s_nodes_only() -> None:
    """Flavor a100's node label and toleration (of a100-1's taint) are merged in: a100-1 is the only
    feasible node; without them t4-1 and the TAS nodes would be, a100-1 not (its taint)."""
    doc = _doc("job.yaml")
    assert doc["items"][0]["result"]["selectedNodes"] == ["a100-1"]
    [placement] = doc["placements"]
    answer = placement["kueue"]
    assert answer["verdict"] == "QuotaReserved" and answer["clusterQueue"] == "checked-cq"
    [reserved] = answer["reservedPodSets"]
    assert reserved["nodeSelector"] == {"gpu": "a100"} and reserved["flavors"] == ["a100"]
    assert reserved["tolerations"] == [{"key": "gpu", "operator": "Equal", "value": "a100", "effect": "NoSchedule"}]
    assert placement["idle"] and placement["pods"] == []       # held: explained, not started


def test_the_reserved_domain_of_a_tas_reservation_is_in_the_template() -> None:
    doc = _doc("tas-job.yaml")
    assert len(doc["items"][0]["result"]["selectedNodes"]) == 1        # (without it: tas-1, tas-2 and t4-1)
    [reserved] = doc["placements"][0]["kueue"]["reservedPodSets"]
    [domain] = reserved["topology"]["domains"]
    assert reserved["nodeSelector"] == {"pool": "tas", "kubernetes.io/hostname": domain["values"][0]}
    assert doc["items"][0]["result"]["selectedNodes"] == domain["values"]


def test_the_text_says_where_the_template_is_explained() -> None:
    words = flat(explained("job.yaml")[1])
    assert "Workload ml/job-train-9c79f holds quota in ClusterQueue checked-cq and waits for its admission " \
           "checks (manual Pending); the Job stays suspended" in words
    assert "Pod set main: quota reserved on flavor a100 nodeSelector gpu=a100 tolerations gpu=a100:NoSchedule" \
        in words
    assert f"{SAID} (their node labels and tolerations merged in, as Kueue sets them when its checks pass; " \
           "not started):" in words
    assert "Would be bound to a100-1" in words and "explained without the reserved" not in words


def test_the_page_says_what_the_text_says(tmp_path) -> None:
    page = tmp_path / "page.html"
    code, _, err = run_cli(str(CASE / "job.yaml"), *NODES, "--html", str(page))
    words = page_text(page.read_text())
    assert code == 1, err
    assert f"{SAID} (their node labels and tolerations merged in, as Kueue sets them when its checks pass; " \
           "not started) as its first pod would meet the cluster, would be Scheduled." in words


def test_lint_schedules_the_template_on_the_reserved_flavors_nodes() -> None:
    code, out, err = run_cli("lint", str(CASE / "job.yaml"), *NODES, "-o", "json")
    [finding] = [f for f in json.loads(out)["findings"] if f["rule"] == "kueue-held"]
    assert finding["details"]["kueue"]["verdict"] == "QuotaReserved" and code == 0, err
    assert finding["message"].endswith("its pod, once resumed: fits: a100-1")

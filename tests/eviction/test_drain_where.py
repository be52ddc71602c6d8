"""Where a drain's evicted pods go (`app.eviction.drain_where`): each controller's replacement,
made as `controllers.workloads` makes copies, scheduled over the cluster with the node cordoned."""
from __future__ import annotations

import json

from kexplain.cli.app import main
from tests.eviction.drain_cluster import cluster, pod, write
from tests.support.cli_helpers import TestEnvironment

NOW = "2026-01-01T00:00:00Z"


def drain(tmp_path, objects, *flags: str) -> tuple[int, dict]:
    env = TestEnvironment()
    code = main(["evict", "drain", "node-a", "--nodes", str(write(tmp_path / "cluster.yaml", objects)), *flags,
                 "--now", NOW, "-o", "json"], env)
    return code, json.loads(env.out)


def test_replacements_are_scheduled_off_the_cordoned_node(tmp_path):
    code, doc = drain(tmp_path, cluster({"minAvailable": 0}))
    assert code == 0 and all(e["evicted"] for e in doc["evictions"])
    by_evicted = {r["evicted"]: r for r in doc["replacements"]}
    db = by_evicted["default/db-0"]
    assert (db["controller"], db["replacement"], db["status"]) == ("StatefulSet/db", "db-0", "Scheduled")
    web = [r for r in doc["replacements"] if r["controller"] == "ReplicaSet/web-7d9"]
    assert len({r["replacement"] for r in web}) == 2 and all(r["replacement"].startswith("web-7d9-") for r in web)
    assert {r["node"] for r in doc["replacements"]} <= {"node-b", "node-c"}


def test_a_replacement_with_no_room_stays_pending_and_says_why(tmp_path):
    code, doc = drain(tmp_path, cluster({"minAvailable": 0}, b_pods=1, c_pods=0))
    pending = [r for r in doc["replacements"] if r["status"] == "Unschedulable"]
    assert pending and all(r["node"] is None for r in pending)
    assert "1 node(s) were unschedulable" in pending[0]["message"]


def test_a_pod_without_controller_has_no_replacement(tmp_path):
    objects = cluster({"minAvailable": 0}) + [pod("debug", None, app="debug")]
    _, doc = drain(tmp_path, objects, "--force")
    debug = next(r for r in doc["replacements"] if r["evicted"] == "default/debug")
    assert debug["replacement"] is None and "no controller" in debug["why"]


def test_a_refused_drain_has_no_replacements(tmp_path):
    code, doc = drain(tmp_path, cluster() + [pod("debug", None, app="debug")])
    assert code == 1 and doc["errors"] and "replacements" not in doc


def test_a_budget_status_given_without_conditions_is_written_without_them(tmp_path):
    """PodDisruptionBudgetStatus.conditions is omitempty: a status given without conditions (and
    left with none by an eviction that leaves disruptions) has no `conditions` key, as the API
    server's JSON; a status the disruption controller writes keeps its condition."""
    objects = cluster({"minAvailable": 0})
    objects[-2]["metadata"]["generation"] = 1
    objects[-2]["status"] = {"observedGeneration": 1, "currentHealthy": 2, "desiredHealthy": 0,
                             "expectedPods": 2, "disruptionsAllowed": 2}
    code, doc = drain(tmp_path, objects)
    web = next(b for b in doc["pdbs"] if b["name"] == "default/web-pdb")
    assert web["statusFrom"] == "given" and "conditions" not in web["status"]
    after = next(b for b in doc["pdbsAfter"] if b["name"] == "default/web-pdb")
    assert after["status"]["disruptionsAllowed"] == 0 and after["status"]["conditions"][0]["reason"]
    db = next(b for b in doc["pdbs"] if b["name"] == "default/db-pdb")
    assert db["status"]["conditions"]

"""Where evicted pods go, one mechanism for every eviction command (`app.eviction.replacements`):
the controllers' replacements (from the template when the controller is read, else the evicted pod
standing in), the node(s) left out of an overlay of the one cluster state, scheduled one after
another in queue order."""
from __future__ import annotations

import json
from datetime import datetime, timezone

from kexplain.app.eviction.request import EvictRequest, read_state
from kexplain.app.eviction import replacements
from kexplain.app.eviction.replacements import cordoned, controllers_index, left, placements, replacement_of
from kexplain.cli.app import main
from kexplain.features.kube_version import resolve
from kexplain.model.pod import PodInfo
from tests.eviction.drain_cluster import budget, cluster, node, pod, workload, write
from tests.support.cli_helpers import TestEnvironment

KUBE = resolve(None, None)[0]
NOW = "2026-01-01T00:00:00Z"


def state_of(tmp_path, objects):
    path = write(tmp_path / "cluster.yaml", objects)
    return read_state(EvictRequest("node-a", (str(path),), datetime.now(timezone.utc), KUBE))


def test_left_changes_an_overlay_not_the_state(tmp_path):
    st = state_of(tmp_path, cluster())
    gone = [PodInfo(o) for o, _ in st.objects if o.get("kind") == "Pod" and o["metadata"]["name"] == "db-0"]
    after = cordoned(st, "node-a", gone)
    assert after.snapshot.get("node-a").node.unschedulable and not st.snapshot.get("node-a").node.unschedulable
    assert {p.name for p in after.snapshot.get("node-a").pods} == {"web-7d9-aaaaa", "web-7d9-bbbbb"}
    assert len(st.snapshot.get("node-a").pods) == 3 and ("default", "db-0") not in after.pod_keys
    assert after.objects is st.objects            # (an overlay: nothing read again)
    tainted = left(st, {"node-b": {**st.snapshot.get("node-b").node.obj, "spec": {"taints": [
        {"key": "k", "effect": "NoSchedule"}]}}}, [])
    assert [t["key"] for t in tainted.snapshot.get("node-b").node.obj["spec"]["taints"]] == ["k"]


def test_a_controller_not_read_is_stood_in_for_by_its_pod(tmp_path):
    objects = [o for o in cluster() if o.get("kind") != "ReplicaSet"]
    st = state_of(tmp_path, objects)
    pods = {o["metadata"]["name"]: PodInfo(o) for o, _ in st.objects if o.get("kind") == "Pod"}
    index, made = controllers_index([*st.objects, *st.other_kinds]), {}
    web = replacement_of(pods["web-7d9-aaaaa"], index, made)
    assert web.controller == "ReplicaSet/web-7d9" and web.pod["metadata"]["name"] == "web-7d9-aaaaa"
    assert "nodeName" not in web.pod["spec"] and "status" not in web.pod
    db = replacement_of(pods["db-0"], index, made)      # (its StatefulSet is read: from the template)
    assert db.pod["metadata"]["name"] == "db-0" and db.source is not replacements.STAND_IN


def test_replacements_are_placed_one_after_another(tmp_path):
    """Two replacements and room for one: the second sees the first placed and stays pending."""
    objects = [node("node-a"), node("node-b", pods=2), pod("x", None, node_name="node-b"),
               workload("ReplicaSet", "web-7d9", 2, "web"),
               pod("web-7d9-aaaaa", ("apps/v1", "ReplicaSet", "web-7d9")),
               pod("web-7d9-bbbbb", ("apps/v1", "ReplicaSet", "web-7d9"))]
    st = state_of(tmp_path, objects)
    evicted = [PodInfo(o) for o, _ in st.objects if o.get("kind") == "Pod" and o["spec"]["nodeName"] == "node-a"]
    index, made = controllers_index(st.objects), {}
    answers = placements(cordoned(st, "node-a", evicted), [replacement_of(p, index, made) for p in evicted])
    assert [answers[i]["node"] for i in (0, 1)] == ["node-b", None]
    assert answers[1]["status"] == "Unschedulable"


def test_the_drains_fixes_share_one_cordoned_overlay(tmp_path, monkeypatch):
    """Every scale fix schedules its new pods over the one overlay made for the fixes (the other
    overlay: the evicted pods' replacements')."""
    made: list[int] = []
    real = replacements.left
    monkeypatch.setattr(replacements, "left", lambda st, nodes, gone: made.append(len(gone)) or real(st, nodes, gone))
    objects = [*cluster({"minAvailable": 2}), workload("ReplicaSet", "api-1", 1, "api"),
               pod("api-1-aaaaa", ("apps/v1", "ReplicaSet", "api-1"), app="api"), budget("api-pdb", "api", minAvailable=1)]
    env = TestEnvironment()
    main(["evict", "drain", "node-a", "--nodes", str(write(tmp_path / "c.yaml", objects)), "--now", NOW, "-o", "json"],
         env)
    fixes = json.loads(env.out)["fixes"]
    assert len([f for f in fixes if f["fix"].startswith("scale")]) == 2 and made.count(0) == 1

"""The drain's index: the objects split once, and a fix's change replacing only what it changes."""
from __future__ import annotations

from kexplain.app.eviction.drain_index import DrainIndex
from tests.eviction.drain_cluster import pod


def pdb(name: str, namespace: str = "default") -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": namespace}, "spec": {"selector": {"matchLabels": {"app": name}}, "maxUnavailable": 1}}


def workload(kind: str, name: str) -> dict:
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": 2}}


def objects() -> list[dict]:
    return [workload("ReplicaSet", "web"), pod("web-1", ("apps/v1", "ReplicaSet", "web")), pdb("web"),
            workload("DaemonSet", "logs"), pod("other", None, namespace="team"), pdb("db", "team"),
            workload("Deployment", "api"), workload("ReplicaSet", "web")]


def test_the_objects_are_split_by_what_the_drain_reads_them_for_in_order():
    objs = objects()
    index = DrainIndex.of(objs)
    assert index.pdbs == (objs[2], objs[5])
    assert index.daemonset_keys == {("default", "logs")}
    assert index.workloads == {("ReplicaSet", "default", "web"): objs[0], ("Deployment", "default", "api"): objs[6]}
    assert index.workloads[("ReplicaSet", "default", "web")] is objs[0]     # the first, as the finders take it
    assert [p.name for p in index.pods_in("default")] == ["web-1"]
    assert [p.name for p in index.pods_in("team")] == ["other"]
    assert index.pods_in("nowhere") == ()
    assert set(index.pdbs_by_key) == {"default/web", "team/db"}


def test_a_change_replaces_only_the_parts_holding_what_it_changes():
    objs = objects()
    index = DrainIndex.of(objs)
    relaxed = {**objs[2], "spec": {"maxUnavailable": 2}}
    changed = index.replaced({id(objs[2]): relaxed})
    assert changed.pdbs == (relaxed, objs[5])
    assert changed.workloads is index.workloads and changed.daemonsets is index.daemonsets
    assert changed.pods_in("default") is index.pods_in("default")
    assert index.pdbs == (objs[2], objs[5])          # the index changed is untouched


def test_a_removed_budget_and_added_pods_and_a_scaled_workload():
    objs = objects()
    index = DrainIndex.of(objs)
    scaled = {**objs[6], "spec": {"replicas": 3}}
    new = pod("web-2", ("apps/v1", "ReplicaSet", "web"), node_name="node-b")
    changed = index.replaced({id(objs[5]): None, id(objs[6]): scaled}, [new])
    assert changed.pdbs == (objs[2],)
    assert changed.workloads[("Deployment", "default", "api")] is scaled
    assert [p.name for p in changed.pods_in("default")] == ["web-1", "web-2"]
    assert changed.pods_in("team") is index.pods_in("team")
    assert [p.name for p in changed.pods_in("default").selected(_selector("web"))] == ["web-1", "web-2"]


def _selector(app: str):
    from kexplain.model.labels import parse_selector
    return parse_selector({"matchLabels": {"app": app}})

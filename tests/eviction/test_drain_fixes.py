"""Fixes for a blocked drain (`app.eviction.drain_fixes`), each checked by draining again."""
from __future__ import annotations

from tests.eviction.drain_cluster import budget, cluster, node, pod
from tests.eviction.test_drain_where import drain


def by_words(doc: dict) -> dict[str, dict]:
    return {f["fix"]: f for f in doc.get("fixes") or ()}


def test_a_budget_that_allows_nothing_is_relaxed_or_its_workload_scaled(tmp_path):
    code, doc = drain(tmp_path, cluster({"minAvailable": 2}))
    assert code == 1 and [e["evicted"] for e in doc["evictions"] if e["pod"].startswith("default/web")] == [False] * 2
    fixes = by_words(doc)
    relax = fixes["set default/web-pdb minAvailable to 0 (was 2)"]
    assert relax["drains"] and relax["budget"] == "default/web-pdb"
    scale = fixes["scale ReplicaSet default/web-7d9 to 4 replicas"]
    assert scale["drains"] and scale["result"].startswith("2 of its 2 pods evicted")


def test_scaling_without_room_is_not_a_fix(tmp_path):
    _, doc = drain(tmp_path, cluster({"minAvailable": 2}, b_pods=1, c_pods=0))
    scale = by_words(doc)["scale ReplicaSet default/web-7d9 to 4 replicas"]
    assert not scale["drains"] and "2 of the 2 new pods do not fit with the node cordoned" in scale["result"]


def test_max_unavailable_relaxed_from_the_expected_pods(tmp_path):
    _, doc = drain(tmp_path, cluster({"maxUnavailable": 0}))
    assert by_words(doc)["set default/web-pdb maxUnavailable to 2 (was 0)"]["drains"]


def test_the_flag_fix_then_the_budget(tmp_path):
    code, doc = drain(tmp_path, cluster({"minAvailable": 2}) + [pod("debug", None, app="debug")])
    assert code == 1 and doc["errors"]
    fixes = by_words(doc)
    assert not fixes["add --force"]["drains"] and fixes["add --force"]["result"] == "2 evicted, 2 refused"
    assert fixes["add --force; set default/web-pdb minAvailable to 0 (was 2)"]["drains"]


def test_two_budgets_on_a_pod_one_is_deleted_and_what_still_blocks_is_fixed_on_top(tmp_path):
    objects = cluster({"minAvailable": 0}) + [budget("db-pdb-2", "db", minAvailable=2)]
    _, doc = drain(tmp_path, objects)
    assert next(e for e in doc["evictions"] if e["pod"] == "default/db-0")["code"] == 500
    fixes = by_words(doc)
    assert fixes["delete PodDisruptionBudget default/db-pdb-2"]["drains"]
    assert not fixes["delete PodDisruptionBudget default/db-pdb"]["drains"]      # db-pdb-2 allows nothing



def test_a_drain_that_goes_has_no_fixes(tmp_path):
    code, doc = drain(tmp_path, cluster({"minAvailable": 0}))
    assert code == 0 and "fixes" not in doc


def with_claims(objects: list[dict], binding: str = "WaitForFirstConsumer") -> list[dict]:
    """The db StatefulSet with a volumeClaimTemplate (data) whose StorageClass provisions: db-0's and
    db-1's claims made and bound, as its controller and the provisioner left them."""
    sts = next(o for o in objects if o["kind"] == "StatefulSet")
    sts["spec"]["volumeClaimTemplates"] = [{"metadata": {"name": "data"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "storageClassName": "fast", "resources": {"requests": {"storage": "1Gi"}}}}]
    sts["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    claims = []
    for o in objects:
        if o["kind"] == "Pod" and o["metadata"]["name"].startswith("db-"):
            claim = f"data-{o['metadata']['name']}"
            o["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
            o["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
            claims += [{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"pv-{claim}"},
                        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                                 "storageClassName": "fast", "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": claim},
                                 "claimRef": {"namespace": "default", "name": claim}},
                        "status": {"phase": "Bound"}},
                       {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                        "metadata": {"name": claim, "namespace": "default", "labels": {"app": "db"}},
                        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                                 "resources": {"requests": {"storage": "1Gi"}}, "volumeName": f"pv-{claim}"},
                        "status": {"phase": "Bound"}}]
    storage_class = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"},
                     "provisioner": "ebs.csi.aws.com", "volumeBindingMode": binding}
    return [storage_class, *objects, *claims]


def test_a_statefulsets_new_ordinal_gets_its_claim(tmp_path):
    """Scaling a StatefulSet with volumeClaimTemplates up: its controller creates db-2's claim
    data-db-2 before the pod (the path `kexplain FILE` takes), and the provisioner makes its volume
    where the pod goes: the new pod fits and the drain goes."""
    objects = with_claims(cluster({"minAvailable": 0}))
    for o in objects:
        if o["kind"] == "PodDisruptionBudget" and o["metadata"]["name"] == "db-pdb":
            o["spec"] = {"selector": o["spec"]["selector"], "minAvailable": 2}
    code, doc = drain(tmp_path, objects)
    assert code == 1
    scale = by_words(doc)["scale StatefulSet default/db to 3 replicas"]
    assert scale["drains"], scale
    assert "do not fit" not in scale["result"]


def unowned_cluster() -> list[dict]:
    """metrics-server's HA overlay as `kubectl get pods` gives it: two pods of a ReplicaSet that is
    not among the objects, a budget with maxUnavailable (the controller needs the owner's scale)."""
    return [node("node-a"), node("node-b"),
            pod("ms-7d9-aaaaa", ("apps/v1", "ReplicaSet", "ms-7d9"), app="ms"),
            pod("ms-7d9-bbbbb", ("apps/v1", "ReplicaSet", "ms-7d9"), node_name="node-b", app="ms"),
            budget("ms-pdb", "ms", maxUnavailable=1)]


def test_a_budget_the_controller_cannot_sync_says_why_and_offers_the_owner(tmp_path):
    from tests.eviction.test_drain_where import NOW, main, write
    from tests.support.cli_helpers import TestEnvironment
    code, doc = drain(tmp_path, unowned_cluster())
    assert code == 1
    assert doc["syncFailures"] == [{"pdb": "default/ms-pdb", "message": 'found no controllers for pod "ms-7d9-aaaaa"',
                                    "ownersNotFound": ["ReplicaSet default/ms-7d9"]}]
    fixes = by_words(doc)
    give = next(f for words, f in fixes.items() if words.startswith("give ReplicaSet default/ms-7d9"))
    assert give["drains"] and "kubectl get replicaset/ms-7d9 -n default -o yaml" in give["fix"]
    assert fixes["delete PodDisruptionBudget default/ms-pdb"]["drains"]
    env = TestEnvironment()
    main(["evict", "drain", "node-a", "--nodes", str(write(tmp_path / "c.yaml", unowned_cluster())), "--now", NOW], env)
    text = " ".join(env.out.split())
    assert ('default/ms-pdb: the disruption controller\'s sync fails: found no controllers for pod "ms-7d9-aaaaa" '
            "(ReplicaSet default/ms-7d9, the owner of its pods, is not among the objects") in text
    assert "- give ReplicaSet default/ms-7d9" in text

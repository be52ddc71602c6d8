"""The pending pass (kexplain.explain.pending_pass): what the autoscalers see of what kexplain was
given, gathered once: every copy of every workload that did not fit (those never tried too),
the copies that fit bound, the set's objects and what controllers create for its pods, the
cluster's own pending pods merged in creation order, and the per-pod answer slot."""
from __future__ import annotations

from pathlib import Path

from kexplain.errors import Source
from kexplain.explain.batch import explain_batch
from kexplain.explain.inputs import load
from kexplain.explain.pending_pass import (PassAnswers, PassBuilder, PendingPass, PendingPod, PodAnswer,
                                           answers_json, copies_json, pass_json)
from kexplain.explain.request import Request, RunOptions
from kexplain.features import KubeVersion
from kexplain.load.manifests import load_objects
from kexplain.model.pod import PodInfo
from tests.support.copies import copy_names
from tests.support.paths import DATA, FIXTURES

CLUSTER = str(FIXTURES / "autoscaler" / "cluster.yaml")     # two m5.xlarge nodes with 1920m cpu free each
KUBE = KubeVersion("1.35")



def gathered(path: Path) -> PendingPass:
    loaded = load(Request(pod_path=str(path), node_paths=(CLUSTER,), kube=KUBE))
    builder = PassBuilder()
    builder.add_objects(loaded.set_objects, loaded.set_created)
    for outcome in explain_batch(loaded.batch, loaded.pool, RunOptions()):
        builder.add_outcome(outcome)
    return builder.build()


def test_every_copy_that_did_not_fit_is_pending_not_only_the_first(tmp_path: Path):
    workload = tmp_path / "web.yaml"
    workload.write_text((DATA / "autoscaler" / "worker-deployment.yaml").read_text()
                        .replace("replicas: 3", "replicas: 6").replace("cpu: 1500m", 'cpu: "3"'))
    pp = gathered(workload)
    # the scheduler stops at the first copy that does not fit; the five after it are pending as well
    assert [(p.key, p.stands_for, p.copy) for p in pp.pending] == \
        [(f"default/{n}", "Deployment default/worker", i) for i, n in enumerate(copy_names(workload, 6, kube=KUBE))]
    assert pp.bound == ()
    owners = {p.pod.metadata["ownerReferences"][0]["uid"] for p in pp.pending}
    assert len(owners) == 1 and pp.pending[0].pod.metadata["ownerReferences"][0]["kind"] == "ReplicaSet"
    replica_sets = [o for o, _ in pp.objects if o["kind"] == "ReplicaSet"]
    assert [(r["metadata"]["uid"], r["spec"]["replicas"]) for r in replica_sets] == [(owners.pop(), 6)]


def test_the_copies_that_fit_are_bound_where_they_went(tmp_path: Path):
    workload = tmp_path / "worker.yaml"
    workload.write_text((DATA / "autoscaler" / "worker-deployment.yaml").read_text())
    pp = gathered(workload)
    names = copy_names(workload, 3, kube=KUBE)
    assert [(p.name, p.node_name) for p in pp.bound] == [(names[0], "general-1"), (names[1], "general-2")]
    assert [p.key for p in pp.pending] == [f"default/{names[2]}"]


def test_each_copy_with_its_own_claims(tmp_path: Path):
    parallel = tmp_path / "storage.yaml"       # every ordinal exists at once (see the OrderedReady test below)
    parallel.write_text((DATA / "autoscaler" / "storage.yaml").read_text()
                        .replace("  serviceName: db\n", "  serviceName: db\n  podManagementPolicy: Parallel\n"))
    pp = gathered(parallel)
    claims = {p.pod.name: [v["persistentVolumeClaim"]["claimName"] for v in p.pod.spec["volumes"]
                           if "persistentVolumeClaim" in v] for p in pp.pending}
    assert claims == {"db-0": ["data-db-0"], "db-1": ["data-db-1"], "db-2": ["data-db-2"], "uses-scratch": ["scratch"],
                      "eph": []}
    assert pp.not_created == ()
    created = [(o["metadata"]["name"], o["metadata"].get("ownerReferences", [{}])[0].get("uid")) for o, _ in pp.created]
    eph = next(p for p in pp.pending if p.pod.name == "eph")
    assert created == [("data-db-0", None), ("data-db-1", None), ("data-db-2", None), ("eph-tmp", eph.pod.uid)]
    assert [o["kind"] for o, _ in pp.objects] == ["StorageClass", "StatefulSet", "PersistentVolumeClaim"]


def test_an_ordered_ready_statefulset_has_only_the_pods_its_controller_created(tmp_path: Path):
    """OrderedReady (the default): the controller creates db-1 only once db-0 is Running and Ready,
    so with db-0 pending only db-0 exists; the copies that fit are bound (taken as Ready) and the
    next one exists. Parallel: every copy exists."""
    pp = gathered(DATA / "autoscaler" / "storage.yaml")
    assert [p.pod.name for p in pp.pending] == ["db-0", "uses-scratch", "eph"]
    [missing] = pp.not_created
    assert (missing.stands_for, missing.pods) == ("StatefulSet default/db", ("default/db-1", "default/db-2"))
    assert "OrderedReady" in missing.why and "db-0 is pending" in missing.why
    assert pass_json(pp)["notYetCreated"] == [missing.to_json()]
    two_fit = tmp_path / "sts.yaml"     # 1500m each: two fit the two busy nodes, the third does not
    two_fit.write_text((DATA / "autoscaler" / "storage.yaml").read_text()
                       .replace('cpu: "3"', "cpu: 1500m").replace("replicas: 3", "replicas: 5"))
    pp = gathered(two_fit)
    assert [(p.name, p.node_name) for p in pp.bound] == [("db-0", "general-1"), ("db-1", "general-2")]
    assert [p.pod.name for p in pp.pending if p.stands_for.startswith("StatefulSet")] == ["db-2"]
    assert pp.not_created[0].pods == ("default/db-3", "default/db-4")


def test_a_pod_preemption_nominates_carries_its_node_and_its_victims_terminate():
    """The scheduler's PostFilter runs before any autoscaler looks: the pod its explanation's
    preemption nominates carries status.nominatedNodeName, and its victims are terminating in the
    cluster the autoscalers read (still on their node), the set's bound copies as well."""
    from kexplain.explain.run import explain
    loaded = load(Request(pod_path=str(FIXTURES / "autoscaler" / "vip.yaml"), node_paths=(CLUSTER,), kube=KUBE))
    assert loaded.single is not None
    trace = explain(loaded.single, RunOptions())
    builder = PassBuilder()
    builder.add_single(loaded.single, post_filter=trace.post_filter)
    builder.add_pod(pod("api-2"), Source("pods.yaml"), node="general-2")     # a bound copy of the set, a victim
    pp = builder.build()
    [vip] = pp.pending
    assert vip.pod.status["nominatedNodeName"] == "general-2"
    assert [p.to_json() for p in pp.preemptions] == [{"nominatedNodeName": "general-2", "victims": ["default/api-2"]}]
    assert pass_json(pp)["preempting"] == {"default/vip": {"nominatedNodeName": "general-2", "victims": ["default/api-2"]}}
    cluster = load_objects([CLUSTER])
    applied = {o["metadata"]["name"]: o for o, _ in pp.applied_to(cluster) if o["kind"] == "Pod"}
    for victim in (applied["api-2"], pp.bound[0].obj):
        assert victim["metadata"]["deletionTimestamp"] and victim["spec"]["nodeName"] == "general-2"
        assert {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"} in \
            victim["status"]["conditions"]
    assert "deletionTimestamp" not in applied["api-1"]["metadata"]
    unnominated = PassBuilder()       # no PostFilter (or one that nominates nothing): as it is
    unnominated.add_single(loaded.single, post_filter={"code": "Unschedulable"})
    assert "nominatedNodeName" not in unnominated.build().pending[0].pod.status


def pod(name: str, created: str | None = None, namespace: str = "default") -> PodInfo:
    meta = {"name": name, "namespace": namespace, **({"creationTimestamp": created} if created else {})}
    return PodInfo({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"containers": []}})


def test_the_clusters_pending_pods_join_in_creation_order():
    builder = PassBuilder()
    for name, created in (("b", "2025-01-01T00:02:00Z"), ("file-pod", None)):
        builder.add_pod(pod(name, created), Source("pods.yaml"))
    builder.add_pod(pod("bound"), Source("pods.yaml"), node="n1")
    mine = builder.build()
    listed = [pod("c", "2025-01-01T00:03:00Z"), pod("b", "2025-01-01T00:02:00Z"), pod("a", "2025-01-01T00:01:00Z"),
              pod("bound"), pod("old-no-time")]
    merged = mine.with_cluster_pending(listed)
    # by creation time, then those without one as listed, the cluster's before the set's; the
    # set's `b` (explained: it stands for itself) in its place, `bound` (a copy that fit) not pending
    assert [(p.pod.name, p.stands_for) for p in merged.pending] == [
        ("a", ""), ("b", "Pod default/b"), ("c", ""), ("old-no-time", ""), ("file-pod", "Pod default/file-pod")]
    assert pass_json(merged) == {"pods": {"default/b": {"standsFor": "Pod default/b"},
                                          "default/file-pod": {"standsFor": "Pod default/file-pod"}},
                                 "clusterPending": 3, "bound": 1, "notes": []}


def test_the_set_is_applied_to_the_cluster():
    src = Source("cluster.yaml")
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "default"},
             "spec": {"resources": {"requests": {"storage": "1Gi"}}}}
    newer = {**claim, "metadata": {**claim["metadata"], "labels": {"app": "db"}}}   # (a change the API server takes)
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"}}
    made = {**claim, "metadata": {"name": "made", "namespace": "default"}}
    pp = PendingPass(objects=((newer, Source("pods.yaml")), (ds, Source("pods.yaml"))),
                     created=((dict(claim), Source("pods.yaml")), (made, Source("pods.yaml"))))
    applied = [o for o, _ in pp.applied_to([(claim, src)])]
    assert applied == [newer, ds, made]        # the file's claim in the cluster's place; a created one only if new


def test_the_answer_slot():
    answer = PodAnswer("ClusterAutoscaler", "default/web-1", "TriggeredScaleUp", ("compute 0->2 (max: 4)",),
                       {"equivalenceClass": 0})
    passes = [PassAnswers("ClusterAutoscaler", "autoscaler", {}, {"default/web-1": answer})]
    assert answers_json(passes, "default/web-1") == [
        {"autoscaler": "ClusterAutoscaler", "pod": "default/web-1", "outcome": "TriggeredScaleUp",
         "reasons": ["compute 0->2 (max: 4)"], "equivalenceClass": 0}]
    assert answers_json(passes, "default/other") == []
    pp = PendingPass((PendingPod(pod("web-0"), "Deployment default/web", 0),
                      PendingPod(pod("web-1"), "Deployment default/web", 1)))
    assert [a["pod"] for a in copies_json(passes, pp, "Deployment default/web")] == ["default/web-1"]


def test_pods_the_queues_retry_placed_are_bound_not_pending(tmp_path: Path):
    """A web tier whose required pod affinity names a cache applied after it: unschedulable on its
    first attempt, placed when the queue retries it (`kexplain.explain.retry`). An autoscaler looks
    at the cluster as the scheduler leaves it: the web pods are bound there, nothing is pending."""
    web = tmp_path / "app.yaml"
    web.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - {labelSelector: {matchLabels: {app: cache}}, topologyKey: kubernetes.io/hostname}
      containers: [{name: web, image: web:1, resources: {requests: {cpu: 100m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: cache, labels: {app: cache}}
spec:
  containers: [{name: cache, image: redis:7, resources: {requests: {cpu: 100m}}}]
""")
    loaded = load(Request(pod_path=str(web), node_paths=(CLUSTER,), kube=KUBE))
    builder = PassBuilder()
    batch = explain_batch(loaded.batch, loaded.pool, RunOptions())
    for outcome in batch:
        builder.add_outcome(outcome)
    web_0, web_1 = copy_names(web, 2, kube=KUBE)
    assert [p.key for p in builder.build().pending] == [f"default/{web_0}", f"default/{web_1}"]   # first attempts
    builder.settle(batch.retried)
    pp = builder.build()
    cache_node = next(p.node_name for p in pp.bound if p.name == "cache")
    assert pp.pending == ()
    assert sorted((p.name, p.node_name) for p in pp.bound) == [
        ("cache", cache_node), *sorted((n, cache_node) for n in (web_0, web_1))]


def test_victims_marked_on_a_dump_keep_it_a_dump():
    """A cluster read as a dump (`columns.Dump`) stays one with the pass's victims terminating:
    the passes over it (admission, CA's kind filters, the build) keep their fast paths, and the
    same victims are marked as on a plain list."""
    from kexplain.apimachinery import columns
    from kexplain.explain.pending_pass import Preemption

    src = Source("cluster.json")
    pods = [({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "team", "resourceVersion": "1"},
              "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]}}, src) for i in range(3)]
    same_name = ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "p1", "namespace": "team",
                                                                       "resourceVersion": "1"}}, src)
    cluster = columns.Dump([*pods, same_name])
    pp = PendingPass(preemptions=(Preemption("team/x", "n1", ("team/p1",)),))
    got = pp.applied_to(cluster)
    plain = pp.applied_to(list(cluster))
    assert type(got) is columns.Dump and columns.rows_of(got) is not None
    assert [bool((o.get("metadata") or {}).get("deletionTimestamp")) for o, _ in got] == [False, True, False, False]
    assert [o for o, _ in got] == [o for o, _ in plain]
    assert cluster[1][0].get("metadata", {}).get("deletionTimestamp") is None      # never changed in place

"""pdb.Limits reads what disruption asks of a pod once per pod and pass (`PodTraits`), a pod's
PodDisruptionBudgets once per namespace and labels, and ToleratesDisruptedNoScheduleTaint once per
tolerations list: each answer must stay the one the per-pod checks give, never another pod's (a pod
of another namespace with the same labels, a pod with the same tolerations list changed, a pod
of a later pass whose object changed)."""
from __future__ import annotations

from datetime import datetime, timezone

from kexplain.karpenter.disruption.events import Recorder
from kexplain.karpenter.disruption.pods import DO_NOT_DISRUPT, Limits, eviction_cost, is_active, is_reschedulable
from kexplain.model.pod import PodInfo

NOW = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)
DISRUPTED = {"key": "karpenter.sh/disrupted", "operator": "Exists", "effect": "NoSchedule"}


def _pod(name: str, namespace: str = "default", labels: dict | None = None, owner: tuple | None = None,
         phase: str = "Running", deleting: bool = False, annotations: dict | None = None,
         tolerations: list | None = None, priority: int | None = None) -> PodInfo:
    meta: dict = {"name": name, "namespace": namespace, "labels": labels or {"app": "web"},
                  "annotations": annotations or {}}
    if owner is not None:
        meta["ownerReferences"] = [{"apiVersion": owner[0], "kind": owner[1], "name": "o", "uid": "u"}]
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T11:00:00Z"
    spec: dict = {"containers": [{"name": "c"}]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    if priority is not None:
        spec["priority"] = priority
    return PodInfo({"metadata": meta, "spec": spec,
                    "status": {"phase": phase, "startTime": "2026-01-01T11:00:00Z"}})


PODS = [
    _pod("plain"),
    _pod("replica", owner=("apps/v1", "ReplicaSet"), priority=1000,
         annotations={"controller.kubernetes.io/pod-deletion-cost": "-500"}),
    _pod("daemon", owner=("apps/v1", "DaemonSet")),
    _pod("mirror", owner=("v1", "Node")),
    _pod("stateful-deleting", owner=("apps/v1", "StatefulSet"), deleting=True),
    _pod("replica-deleting", owner=("apps/v1", "ReplicaSet"), deleting=True),
    _pod("done", phase="Succeeded"),
    _pod("failed", phase="Failed"),
    _pod("tolerates", tolerations=[DISRUPTED]),
    _pod("other-toleration", tolerations=[{"key": "x", "operator": "Exists"}]),
    _pod("keep", annotations={DO_NOT_DISRUPT: "true"}),
    _pod("keep-a-while", annotations={DO_NOT_DISRUPT: "2h"}),
    _pod("kept-once", annotations={DO_NOT_DISRUPT: "10m"}),
    _pod("bad-value", annotations={DO_NOT_DISRUPT: "soon"}),
]


def _pdbs() -> list[dict]:
    return [{"metadata": {"name": "web", "namespace": ns}, "spec": {"selector": {"matchLabels": {"app": "web"}}},
             "status": {"disruptionsAllowed": allowed}} for ns, allowed in (("default", 1), ("blocked", 0))]


def test_the_traits_answer_as_the_per_pod_checks():
    limits = Limits([])
    for pod in PODS:
        t = limits.traits(pod)
        assert (t.active, t.reschedulable, t.cost) == (is_active(pod), is_reschedulable(pod), eviction_cost(pod)), \
            pod.name
        assert limits.traits(pod) is t                  # (asked again: the one made)
    evictable = {p.name for p in PODS if limits.is_evictable(p, NOW, Recorder())}
    assert evictable == {"plain", "replica", "daemon", "other-toleration", "kept-once", "bad-value"}
    disruptable = {p.name for p in PODS if limits.is_disruptable(p, NOW, Recorder())}
    assert disruptable == {p.name for p in PODS} - {"keep", "keep-a-while"}


def test_the_do_not_disrupt_events_are_published_at_every_ask():
    """An annotated pod's events come from asking, each time (Go's IsDoNotDisruptActive): its traits
    keep the value, never the answer."""
    limits, recorder = Limits([]), Recorder()
    for _ in range(2):
        for pod in PODS:
            limits.is_disruptable(pod, NOW, recorder)
    assert recorder.published == {"DoNotDisruptUntil": 2, "DoNotDisruptGracePeriodElapsed": 2,
                                  "InvalidDoNotDisruptAnnotation": 2}


def test_the_same_labels_in_another_namespace_find_that_namespaces_budgets():
    limits = Limits(_pdbs())
    a, b = _pod("a"), _pod("b", namespace="blocked")
    assert [p.key for p in limits.matching(a)] == ["default/web"]
    assert [p.key for p in limits.matching(b)] == ["blocked/web"]
    assert limits.can_evict_pods([a], NOW, Recorder()) == ([], True)
    assert limits.can_evict_pods([b], NOW, Recorder()) == (["blocked/web"], False)
    assert limits.matching(_pod("c", namespace="none")) == []
    assert limits.matching(_pod("d", labels={"app": "api"})) == []


def test_a_shared_tolerations_list_answers_for_each_pass():
    """Two pods share a tolerations list (as a workload's do): one answer for both; a later pass
    (its own Limits) over the list changed answers anew."""
    shared = [{"key": "x", "operator": "Exists"}]
    first, second = _pod("first", tolerations=shared), _pod("second", tolerations=shared)
    limits = Limits([])
    assert limits.traits(first).evictable and limits.traits(second).evictable
    shared.append(DISRUPTED)
    later = Limits([])
    assert not later.traits(_pod("third", tolerations=shared)).evictable


def test_a_later_pass_reads_the_changed_pod():
    """The suggestions change a pod and run the pass again: a new pass's Limits reads the pod anew."""
    pod = _pod("web", annotations={DO_NOT_DISRUPT: "true"})
    assert not Limits([]).is_disruptable(pod, NOW, Recorder())
    changed = PodInfo({**pod.obj, "metadata": {**pod.obj["metadata"], "annotations": {}}})
    assert Limits([]).is_disruptable(changed, NOW, Recorder())


def test_a_dumps_pods_answer_as_their_objects_without_being_decoded():
    """The same pods read from a dump (views: `StoredPodInfo`): their traits are the objects', read
    off their views (annotations, priority, tolerations), none of them decoded for it."""
    import msgspec

    from kexplain.apimachinery.pod_lists import dump_list
    items = [{"apiVersion": "v1", "kind": "Pod", **{k: v for k, v in p.obj.items()}} for p in PODS]
    for item in items:
        item["metadata"] = {**item["metadata"], "resourceVersion": "1"}
        item["spec"] = {**item["spec"], "nodeName": "n1"}
    dump = dump_list(msgspec.json.encode({"apiVersion": "v1", "kind": "List", "items": items}))
    assert dump is not None
    views = [PodInfo(o) for o in dump["items"]]
    objects = [PodInfo(item) for item in items]
    by_view, by_object = Limits([]), Limits([])
    for view, obj in zip(views, objects):
        assert by_view.traits(view) == by_object.traits(obj), obj.name
    assert not any(v.obj.decoded for v in views)
    assert {v.name for v in views if by_view.is_evictable(v, NOW, Recorder())} == \
        {o.name for o in objects if by_object.is_evictable(o, NOW, Recorder())}


# -- one PodTraits per workload (`_workload_key`) ---------------------------------------------------
BASE = {"labels": {"app": "web"}, "owner": ("apps/v1", "ReplicaSet"), "annotations": {"a": "b"}, "priority": 10}
# each a pod equal to BASE's but for one thing a trait is read from (none of them BASE's traits)
VARIANTS = {
    "namespace": {"namespace": "blocked"},
    "labels": {"labels": {"app": "api"}},
    "owner": {"owner": ("apps/v1", "DaemonSet")},
    "deleting": {"deleting": True},
    "phase": {"phase": "Succeeded"},
    "tolerations": {"tolerations": [DISRUPTED]},
    "do-not-disrupt": {"annotations": {"a": "b", DO_NOT_DISRUPT: "true"}},
    "deletion-cost": {"annotations": {"a": "b", "controller.kubernetes.io/pod-deletion-cost": "900"}},
    "priority": {"priority": 2000000},
}


def _fresh(pdbs: list[dict], pod: PodInfo):
    """The pod's traits read of the pod alone (a pass that asks nothing else)."""
    return Limits(pdbs)._read_traits(pod)


def _as_views(pods: list[PodInfo]) -> list[PodInfo]:
    import msgspec

    from kexplain.apimachinery.pod_lists import dump_list
    items = [{"apiVersion": "v1", "kind": "Pod", **p.obj} for p in pods]
    for i, item in enumerate(items):
        item["metadata"] = {**item["metadata"], "resourceVersion": "1", "uid": f"u{i}"}
        item["spec"] = {**item["spec"], "nodeName": "n1"}
    dump = dump_list(msgspec.json.encode({"apiVersion": "v1", "kind": "List", "items": items}))
    assert dump is not None
    return [PodInfo(o) for o in dump["items"]]


def _variants() -> list[PodInfo]:
    pods = [_pod("base", **BASE), _pod("same", **BASE)]
    pods += [_pod(name, **{**BASE, **change}) for name, change in VARIANTS.items()]
    for pod in pods[1:]:      # (a controller's pods share one list of owner references, as decoded)
        if pod.obj["metadata"]["ownerReferences"] == pods[0].obj["metadata"]["ownerReferences"]:
            pod.obj["metadata"]["ownerReferences"] = pods[0].obj["metadata"]["ownerReferences"]
    return pods


def test_the_pods_of_a_workload_share_their_traits_and_no_other_pod_takes_them():
    """Each pod differing from the first in one thing its traits are read from gets its own (equal
    to the ones read of it alone, and not the first's); a pod written alike shares the first's."""
    for pods in (_variants(), _as_views(_variants())):
        limits = Limits(_pdbs())
        first = limits.traits(pods[0])
        assert limits.traits(pods[1]) is first          # (written alike: one PodTraits)
        for pod in pods[2:]:
            t = limits.traits(pod)
            assert t == _fresh(_pdbs(), pod), pod.name
            assert t != first, pod.name
        assert not any(getattr(p.obj, "decoded", True) for p in pods if type(p) is not PodInfo)


def test_a_decoded_pods_shared_lists_are_held_by_identity():
    """Decoded pods key their owner references and tolerations by identity: an entry made for
    another list under the same id (a list gone, its id reused) must not answer for this one."""
    from kexplain.karpenter.disruption.pods import _workload_key
    limits = Limits([])
    refs = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "o", "uid": "u"}]
    a, b, c = _pod("a"), _pod("b"), _pod("c")
    for p in (a, b, c):
        p.obj["metadata"]["ownerReferences"] = refs
    assert limits.traits(a) is limits.traits(b)
    daemon = _pod("daemon", owner=("apps/v1", "DaemonSet"))
    key, _ = _workload_key(a)
    limits._by_workload[key] = ((daemon.owner_references, None), limits.traits(daemon))
    assert limits.traits(c) == _fresh([], c) and limits.traits(c).reschedulable


def test_reschedulable_alone_answers_as_the_traits_without_reading_them():
    """`Limits.reschedulable` (a node's count where NewCandidate refused it before reading its pods)
    is the traits' answer for every pod, decoded or a dump's view, and reads no traits; a pod whose
    traits were read answers off them."""
    for pods in (PODS, _as_views(PODS), _variants(), _as_views(_variants())):
        limits = Limits(_pdbs())
        assert [limits.reschedulable(p) for p in pods] == [_fresh(_pdbs(), p).reschedulable for p in pods]
        assert not limits._traits and not limits._by_workload
        assert not any(getattr(p.obj, "decoded", True) for p in pods if type(p) is not PodInfo)
        read = limits.traits(pods[0])
        assert limits.reschedulable(pods[0]) is read.reschedulable


def test_a_node_refused_before_its_pods_reads_no_pods_traits(tmp_path, monkeypatch):
    """A node NewCandidate refuses before ValidatePodsDisruptable (not Karpenter's here: no
    NodeClaim) has its reschedulable pods counted without any pod's traits; a candidate's are read."""
    from kexplain.karpenter.disruption import pods as pods_module
    from tests.karpenter.test_disruption import document, node, pod
    asked: list[str] = []
    traits = pods_module.Limits.traits
    monkeypatch.setattr(pods_module.Limits, "traits", lambda self, p: asked.append(p.name) or traits(self, p))
    unmanaged = dict(node(2)[0], metadata={"name": "plain-node", "labels": {}})
    doc = document(tmp_path, [*node(1), pod("web-0", 1), unmanaged,
                              {**pod("other", 1), "spec": {**pod("other", 1)["spec"], "nodeName": "plain-node"}}])
    verdicts = {n["node"]: n for n in doc["nodes"]}
    assert verdicts["plain-node"]["reschedulablePods"] == 1 and "managed" in verdicts["plain-node"]["error"]
    assert "other" not in asked and "web-0" in asked

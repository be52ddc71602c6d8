"""CA's drainability rules, one by one and in order, and the PDB budgets they read."""
from __future__ import annotations

import pytest

from kexplain.autoscaler.scaledown.drainability import (
    Controllers, DeleteOptions, DrainContext, Outcome, drainable, pods_to_move)
from kexplain.autoscaler.scaledown.pdb import PdbTracker
from kexplain.model.pod import PodInfo
from tests.autoscaler.scaledown.objects import MINUTE_NS, NOW_NS, controller, pdb, pod


def ctx(*objects, pdbs=(), options=DeleteOptions()) -> DrainContext:
    by_kind: dict = {}
    for obj in objects:
        by_kind.setdefault(obj["kind"], []).append(obj)
    return DrainContext(PdbTracker(pdbs), Controllers(by_kind), NOW_NS, options)


RS = controller("ReplicaSet", "rs")
DS = controller("DaemonSet", "ds", namespace="kube-system", replicas=None)
SYSTEM_RS = controller("ReplicaSet", "rs", namespace="kube-system")


def verdict(obj, context=None):
    status = drainable(context or ctx(RS, DS, SYSTEM_RS), PodInfo(obj))
    return status.outcome, status.reason


@pytest.mark.parametrize("obj, expected", [
    (pod("plain"), (Outcome.UNDEFINED, "")),
    (pod("bare", owner=None), (Outcome.BLOCK, "NotReplicated")),
    (pod("deploy-owned", owner=("Deployment", "d")), (Outcome.BLOCK, "NotReplicated")),
    (pod("orphan", owner=("ReplicaSet", "gone")), (Outcome.BLOCK, "ControllerNotFound")),
    (pod("job", owner=("Job", "gone")), (Outcome.BLOCK, "ControllerNotFound")),
    (pod("rc", owner=("ReplicationController", "gone")), (Outcome.BLOCK, "ControllerNotFound")),
    (pod("sts", owner=("StatefulSet", "gone")), (Outcome.BLOCK, "ControllerNotFound")),
    (pod("daemon", namespace="kube-system", owner=("DaemonSet", "ds")), (Outcome.DRAIN, "")),
    (pod("lost-daemon", namespace="kube-system", owner=("DaemonSet", "other")), (Outcome.BLOCK, "ControllerNotFound")),
    (pod("mirror", owner=None, annotations={"kubernetes.io/config.mirror": "x"}), (Outcome.SKIP, "")),
    (pod("young-system", namespace="kube-system"), (Outcome.BLOCK, "UnmovableKubeSystemPod")),
    (pod("no-age-system", namespace="kube-system", created_ns=None), (Outcome.BLOCK, "UnmovableKubeSystemPod")),
    (pod("old-system", namespace="kube-system", created_ns=NOW_NS - 61 * MINUTE_NS), (Outcome.DRAIN, "")),
    (pod("pinned", annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}),
     (Outcome.BLOCK, "NotSafeToEvictAnnotation")),
    (pod("scratch", volumes=[{"name": "tmp", "emptyDir": {}}]), (Outcome.BLOCK, "LocalStorageRequested")),
    (pod("host", volumes=[{"name": "h", "hostPath": {"path": "/x"}}]), (Outcome.BLOCK, "LocalStorageRequested")),
    (pod("ram", volumes=[{"name": "tmp", "emptyDir": {"medium": "Memory"}}]), (Outcome.UNDEFINED, "")),
    (pod("listed", volumes=[{"name": "tmp", "emptyDir": {}}],
         annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes": "a,tmp"}), (Outcome.UNDEFINED, "")),
    (pod("safe", owner=None, volumes=[{"name": "tmp", "emptyDir": {}}],
         annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}), (Outcome.DRAIN, "")),
    (pod("finishing", annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict": "on-completion"}),
     (Outcome.WAIT, "")),
    (pod("done", owner=None, restartPolicy="Never") | {"status": {"phase": "Succeeded"}}, (Outcome.DRAIN, "")),
])
def test_each_rule(obj, expected):
    assert verdict(obj) == expected


def test_rules_run_in_cas_order():
    # a missing controller is found before the pod's local storage or annotation
    obj = pod("both", owner=("ReplicaSet", "gone"), volumes=[{"name": "tmp", "emptyDir": {}}],
              annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"})
    assert verdict(obj) == (Outcome.BLOCK, "ControllerNotFound")
    # not-safe-to-evict comes before local storage
    obj = pod("both", volumes=[{"name": "tmp", "emptyDir": {}}],
              annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"})
    assert verdict(obj) == (Outcome.BLOCK, "NotSafeToEvictAnnotation")


def test_long_terminating_pod_is_skipped():
    obj = pod("leaving")
    obj["metadata"]["deletionTimestamp"] = "2020-01-01T00:00:00Z"
    assert verdict(obj) == (Outcome.SKIP, "")
    obj["metadata"]["deletionTimestamp"] = "2099-01-01T00:00:00Z"     # deleted, still within its grace period
    assert verdict(obj) == (Outcome.UNDEFINED, "")


def test_kube_system_pod_with_a_pdb_is_judged_by_the_pdb():
    obj = pod("dns", namespace="kube-system", labels={"app": "dns"})
    rs = controller("ReplicaSet", "rs", namespace="kube-system")
    assert verdict(obj, ctx(rs, pdbs=[pdb("dns", {"app": "dns"}, 1, "kube-system")])) == (Outcome.UNDEFINED, "")
    assert verdict(obj, ctx(rs, pdbs=[pdb("dns", {"app": "dns"}, 0, "kube-system")])) == (Outcome.BLOCK, "NotEnoughPdb")


def test_options_turn_rules_off():
    options = DeleteOptions(skip_nodes_with_system_pods=False, skip_nodes_with_local_storage=False,
                            skip_nodes_with_custom_controller_pods=False)
    assert verdict(pod("young-system", namespace="kube-system"), ctx(options=options)) == (Outcome.UNDEFINED, "")
    assert verdict(pod("scratch", volumes=[{"name": "t", "emptyDir": {}}]), ctx(options=options)) == (Outcome.UNDEFINED, "")
    # without the custom-controller check any controller replicates, and a missing one is not looked up
    assert verdict(pod("d", owner=("Deployment", "d")), ctx(options=options)) == (Outcome.UNDEFINED, "")
    assert verdict(pod("o", owner=("ReplicaSet", "gone")), ctx(options=options)) == (Outcome.UNDEFINED, "")


def test_min_replica_count():
    small = controller("ReplicaSet", "rs", replicas=1)
    assert verdict(pod("p"), ctx(small, options=DeleteOptions(min_replica_count=2))) == \
        (Outcome.BLOCK, "MinReplicasReached")
    assert verdict(pod("p"), ctx(small, options=DeleteOptions(min_replica_count=1))) == (Outcome.UNDEFINED, "")


def test_pods_to_move_stops_at_the_first_blocking_pod():
    pods = [PodInfo(p) for p in (
        pod("web-1"), pod("daemon", namespace="kube-system", owner=("DaemonSet", "ds")),
        pod("mirror", owner=None, annotations={"kubernetes.io/config.mirror": "x"}),
        pod("bare-1", owner=None), pod("bare-2", owner=None))]
    moves = pods_to_move(ctx(RS, DS), pods)
    assert [p.name for p in moves.pods] == ["web-1"]
    assert [p.name for p in moves.daemonset_pods] == ["daemon"]
    assert moves.blocking is not None and moves.blocking.to_json() == {"pod": "default/bare-1", "reason": "NotReplicated"}
    clear = pods_to_move(ctx(RS, DS), pods[:3])
    assert clear.blocking is None and [p.name for p in clear.pods] == ["web-1"]


def test_pdb_budgets_are_spent():
    tracker = PdbTracker([pdb("web", {"app": "web"}, 2)])
    a, b, c = (PodInfo(pod(n)) for n in "abc")
    assert tracker.matching(a) == [2]
    check = tracker.can_remove([a, b, c])
    assert check.can_remove and not check.in_parallel and check.blocking_pod is c
    tracker.remove([a, b])
    assert tracker.matching(a) == [0]
    assert not tracker.can_remove([c]).can_remove
    other_ns = PodInfo(pod("x", namespace="other"))
    assert tracker.matching(other_ns) == []


def test_emptiness_reads_a_node_up_to_its_first_pod_to_move_and_agrees_with_pods_to_move():
    from kexplain.autoscaler.scaledown.drainability import emptiness
    daemon = pod("daemon", namespace="kube-system", owner=("DaemonSet", "ds"))
    waiting = pod("wait", annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict": "on-completion"})
    nodes = [[daemon], [daemon, waiting], [daemon, pod("plain"), pod("bare", owner=None)],
             [pod("bare", owner=None), pod("plain")], [], [waiting, pod("plain")]]
    context = ctx(RS, DS)
    for objs in nodes:
        pods = [PodInfo(o) for o in objs]
        moves = pods_to_move(context, pods)
        empty = moves.blocking is None and not moves.pods
        assert emptiness(context, pods) == (empty, empty and bool(moves.on_completion_pods))
    read = []

    def counted(objs):
        for o in objs:
            read.append(o["metadata"]["name"])
            yield PodInfo(o)
    assert emptiness(context, counted([daemon, pod("plain"), pod("later"), pod("last")])) == (False, False)
    assert read == ["daemon", "plain"]       # the pods after the first to move are not put through the rules

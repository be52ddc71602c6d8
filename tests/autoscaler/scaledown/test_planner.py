"""One loop of the scale-down planner on small clusters: candidates, reasons, the simulation."""
from __future__ import annotations

from kexplain.autoscaler.cloudprovider.static import members
from kexplain.autoscaler.nodegroups import NodeGroup, NodeGroupOptions
from kexplain.autoscaler.params import Settings
from kexplain.autoscaler.scaledown.loop import ca_snapshot, run_scale_down, scale_down_json
from kexplain.autoscaler.simulator import ClusterSim, scheduler_framework
from kexplain.explain.inputs import read_config
from kexplain.features import KubeVersion
from kexplain.model.pod import PodInfo
from kexplain.model.snapshot import Snapshot
from tests.autoscaler.scaledown.objects import NOW_NS, controller, node, node_info, pdb, pod


def group(name="g", min_size=0, max_size=10, **options) -> NodeGroup:
    return NodeGroup(name, min_size, max_size, None, {"nodegroup": name}, None, NodeGroupOptions(**options))


SCHEDULER = read_config(None, kube=KubeVersion("1.36"))    # the default profile CA embeds


def sim_of(snap, settings=Settings("scaledown")) -> ClusterSim:
    """CA's snapshot of `snap` (expendable pods left out) with its scheduler."""
    snapshot = ca_snapshot(snap, settings.flag("expendable-pods-priority-cutoff"))
    return ClusterSim(snapshot, scheduler_framework(SCHEDULER, snapshot))


def run(infos, groups, settings=Settings("scaledown"), **kw):
    """`infos` (NodeInfos, or a ClusterSim over them) through one loop's scale-down."""
    if isinstance(infos, ClusterSim):
        sim, infos = infos, infos.snapshot.node_infos
    else:
        sim = sim_of(snapshot(infos, kw.pop("pdbs", [])), settings)
    names = [ni.name for ni in infos]
    found = members(groups, [(ni.name, ni.node.labels) for ni in infos])
    return run_scale_down(sim, names, groups, found, settings, NOW_NS, **kw)


def snapshot(infos, pdbs=()):
    return Snapshot(list(infos), {}, {"ReplicaSet": [controller("ReplicaSet", "rs")], "PodDisruptionBudget": list(pdbs)})


def by_name(outcome):
    return {v.name: v for v in outcome.nodes}


def test_an_idle_node_is_unneeded_but_not_long_enough():
    infos = [node_info(node("n1"), pod("a", "n1", cpu="3")),
             node_info(node("n2"), pod("b", "n2", cpu="500m"))]
    out = run(infos, [group()])
    verdicts = by_name(out)
    assert out.result == "ScaleDownNoNodeDeleted" and out.unneeded == ("n2",)
    assert verdicts["n1"].reason == "NotUnderutilized" and verdicts["n1"].utilization.utilization == 0.75
    assert verdicts["n2"].reason == "NotUnneededLongEnough" and verdicts["n2"].unneeded
    assert out.removable[0].placements == (("default/b", "n1"),)


def test_removed_nodes_are_no_destination_for_later_ones():
    # both are under the threshold; once n1 is unneeded (its pod moved to n2), n2's pod has nowhere to go
    infos = [node_info(node("n1"), pod("a", "n1", cpu="1")), node_info(node("n2"), pod("b", "n2", cpu="1"))]
    verdicts = by_name(run(infos, [group()]))
    assert verdicts["n1"].unneeded and not verdicts["n2"].unneeded
    assert verdicts["n2"].reason == "NoPlaceToMovePods" and verdicts["n2"].utilization.cpu == 0.25


def test_nodes_outside_groups_or_at_min_size_are_not_candidates():
    infos = [node_info(node("n1", group="small")), node_info(node("n2", group="")),
             node_info(node("n3", group="big")), node_info(node("n4", group="big"))]
    out = run(infos, [group("small", min_size=1), group("big", min_size=1)])
    assert [(v.name, v.node_group, v.candidate, v.reason) for v in out.nodes] == [
        ("n1", "small", False, ""), ("n2", "", False, ""),
        ("n3", "big", True, "NotUnneededLongEnough"), ("n4", "big", True, "NotUnneededLongEnough")]
    assert out.unneeded == ("n3", "n4")               # empty: nothing to move (the min size counts only at deletion)
    assert run([infos[1]], [group("small", min_size=1)]).result == "ScaleDownNoCandidates"


def test_scale_down_disabled_annotation_has_no_utilization():
    disabled = node("n1", metadata={"annotations": {"cluster-autoscaler.kubernetes.io/scale-down-disabled": "true"},
                                    "labels": {"nodegroup": "g"}})
    out = run([node_info(disabled), node_info(node("n2"))], [group()])
    first = out.nodes[0]
    assert (first.candidate, first.reason, first.utilization) == (True, "ScaleDownDisabledAnnotation", None)
    assert scale_down_json(out)["nodes"][0] == {"name": "n1", "nodeGroup": "g", "candidate": True,
                                                "unneeded": False, "reason": "ScaleDownDisabledAnnotation"}


def test_blocking_pod_and_pdb_budgets_spent_across_nodes():
    infos = [node_info(node("n1"), pod("a", "n1", labels={"app": "guarded"})),
             node_info(node("n2"), pod("b", "n2", labels={"app": "guarded"})),
             node_info(node("n3"), pod("c", "n3", cpu="3"))]
    verdicts = by_name(run(infos, [group()], pdbs=[pdb("guard", {"app": "guarded"}, 1)]))
    assert verdicts["n1"].unneeded                     # spends the one disruption
    assert verdicts["n2"].reason == "BlockedByPod"
    assert verdicts["n2"].blocking_pod.to_json() == {"pod": "default/b", "reason": "NotEnoughPdb"}


def test_group_threshold_overrides_the_flag():
    infos = [node_info(node("n1"), pod("a", "n1", cpu="3")), node_info(node("n2"), pod("b", "n2", cpu="2"))]
    assert by_name(run(infos, [group()]))["n1"].reason == "NotUnderutilized"
    assert by_name(run(infos, [group(scale_down_utilization_threshold=0.8)]))["n1"].reason == "NoPlaceToMovePods"
    flags = Settings("scaledown", {}, {"scale-down-utilization-threshold": 0.8})
    assert by_name(run(infos, [group()], flags))["n1"].reason == "NoPlaceToMovePods"


def test_without_an_unneeded_time_deletion_starts_down_to_the_min_size():
    infos = [node_info(node(f"n{i}")) for i in range(1, 4)]
    settings = Settings("scaledown", {}, {"scale-down-unneeded-time": 0.0})
    out = run(infos, [group(min_size=1)], settings)
    assert out.result == "ScaleDownNodeDeleteStarted"
    assert out.unneeded == ("n1", "n2", "n3") and out.scaled_down == ("n1", "n2")
    assert by_name(out)["n3"].reason == "NodeGroupMinSizeReached"


def test_cooldown_keeps_unneeded_nodes_without_a_reason():
    infos = [node_info(node("n1")), node_info(node("n2"))]
    out = run(infos, [group()], in_cooldown=True)
    assert out.result == "ScaleDownInCooldown" and out.unneeded == ("n1", "n2")
    assert all(v.reason == "" and v.utilization is None for v in out.nodes)


def test_the_node_search_goes_on_from_the_last_match_and_the_snapshot_is_restored():
    infos = [node_info(node("n1"), pod("a", "n1", cpu="1")), node_info(node("n2", cpu="8"), pod("b", "n2", cpu="5")),
             node_info(node("n3", cpu="8"), pod("c", "n3", cpu="5")), node_info(node("n4", group="other"))]
    groups = [group(), group("other", min_size=1)]
    # while n1 is simulated the list is n2, n3, n4, then n1's tainted copy; a search starts at index 1
    fresh = run(infos, groups)
    assert fresh.removable[0].placements == (("default/a", "n3"),)
    # after a match at n3 (index 2, as a scale-up part may leave it) it starts at index 3, the
    # copy, which takes nothing, and wraps around to n2
    sim = sim_of(snapshot(infos))
    assert sim.schedule_anywhere(PodInfo(pod("x", "", cpu="1")), [2]) == "n3"
    placed = sim.snapshot
    out = run(sim, groups)
    assert out.removable[0].placements == (("default/a", "n2"),)
    assert sim.snapshot is placed          # the scale-down's changes are reverted


def test_cluster_minimum_cores_stop_deletion():
    infos = [node_info(node(f"n{i}", allocatable={}) | {"status": {
        "allocatable": {"cpu": "3900m", "memory": "15Gi", "pods": "110"},
        "capacity": {"cpu": "3500m", "memory": "16Gi", "pods": "110"},
        "conditions": [{"type": "Ready", "status": "True"}]}}) for i in range(1, 4)]
    settings = Settings("scaledown", {}, {"scale-down-unneeded-time": 0.0, "cores-total": "8:320000"})
    out = run(infos, [group()], settings)
    # capacity rounds up to 4 cores a node: 12 in all, 4 above the minimum, one node's worth
    assert out.scaled_down == ("n1",)
    assert [v.reason for v in out.nodes] == ["", "MinimalResourceLimitExceeded", "MinimalResourceLimitExceeded"]


def test_controllers_the_snapshot_lacks_are_looked_up():
    infos = [node_info(node("n1"), pod("batch-1", "n1", owner=("Job", "batch"))), node_info(node("n2"), pod("b", "n2"))]
    without = by_name(run(infos, [group()]))["n1"]
    assert without.blocking_pod.to_json() == {"pod": "default/batch-1", "reason": "ControllerNotFound"}
    with_job = by_name(run(infos, [group()], controllers={"Job": [controller("Job", "batch", replicas=None)]}))
    assert with_job["n1"].unneeded and with_job["n1"].reason == "NotUnneededLongEnough"


def test_unready_nodes_wait_for_the_unready_time():
    from kexplain.autoscaler.scaledown.eligibility import is_ready
    sick = node("n1")
    sick["status"]["conditions"] = [{"type": "Ready", "status": "Unknown"}]
    assert not is_ready(sick) and is_ready(node("n2")) and is_ready({"status": {}})     # (the input's default)
    pressed = node("n3")
    pressed["status"]["conditions"].append({"type": "DiskPressure", "status": "True"})
    tainted = node("n4", spec={"taints": [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]})
    assert not is_ready(pressed) and not is_ready(tainted)
    out = run([node_info(sick), node_info(node("n2"))], [group()])
    assert [v.reason for v in out.nodes] == ["NotUnreadyLongEnough", "NotUnneededLongEnough"]
    disabled = Settings("scaledown", {}, {"scale-down-unready-enabled": False})
    first = run([node_info(sick), node_info(node("n2"))], [group()], disabled).nodes[0]
    assert (first.reason, first.utilization) == ("ScaleDownUnreadyDisabled", None)


def test_sizes_after_a_scale_up_decide_the_candidates():
    infos = [node_info(node("n1")), node_info(node("n2"))]
    assert not any(v.candidate for v in run(infos, [group(min_size=2)]).nodes)
    grown = run(infos, [group(min_size=2)], sizes={"g": 3}, in_cooldown=True)     # the loop set 3 on the provider
    assert all(v.candidate for v in grown.nodes) and grown.result == "ScaleDownInCooldown"


def test_the_ghost_goes_last_and_the_search_wraps_past_it():
    from kexplain.autoscaler.scaledown.cluster import with_ghost
    infos = [node_info(node(f"n{i}")) for i in range(1, 4)]
    ghosted = with_ghost(snapshot(infos), "n2", NOW_NS)
    assert [ni.name for ni in ghosted.node_infos] == ["n1", "n3", "n2"]
    assert ghosted.get("n2").node.taints[-1] == {"key": "ToBeDeletedByClusterAutoscaler",
                                                   "value": str(NOW_NS // 10**9), "effect": "NoSchedule"}
    # after a match at n2 (index 1): while n2 is simulated the list is n1, n3, n2's ghost, so n2's
    # pod starts at the ghost (index 2, refused) and wraps to n1; then n2 is gone, the list is n1
    # and n3's ghost, and n3's pod starts at the ghost (index 1) and wraps to n1 too
    infos = [node_info(node("n1", group="keep")), node_info(node("n2", cpu="8")), node_info(node("n3"), pod("c", "n3"))]
    sim = sim_of(snapshot(infos))
    assert sim.schedule_anywhere(PodInfo(pod("x", "", cpu="1")), [1]) == "n2"
    out = run(sim, [group("keep", min_size=1), group()])
    assert [(r.node, r.placements) for r in out.removable] == [
        ("n2", (("default/x", "n1"),)), ("n3", (("default/c", "n1"),))]

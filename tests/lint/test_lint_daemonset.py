"""`kexplain lint --nodes` and DaemonSets: one pod per eligible node, as the DaemonSet controller
creates them (its tolerations added, each pod pinned to its node by a required node affinity on
metadata.name), each scheduled through the whole pipeline; nodes the controller would not run
the pod on (selector, affinity, untolerated taints) are not eligible and are no finding."""
from __future__ import annotations

import copy

import pytest

from kexplain.errors import Source
from kexplain.explain.inputs import inputs_for, load_pool
from kexplain.lint.linter import LintOptions, Linter, lint
from kexplain.render.lint_formats import RenderOptions, render_text
from kexplain.controllers.workloads import add_daemon_tolerations, pin_to_node, pod_from_workload
from kexplain.model.nodeinfo import Node
from kexplain.model.pod import PodInfo
from kexplain.explain import placement as place
from tests.support.bounded import no_hang
from tests.support.lint_helpers import deployment, node, pod, run, write


def daemonset(name: str = "agent", cpu: str = "500m", **extra) -> dict:
    return deployment(name, replicas=None, cpu=cpu, kind="DaemonSet", **extra)


def labelled(name: str, cpu: str = "2", labels: dict | None = None, **extra) -> dict:
    obj = node(name, cpu, **extra)
    obj["metadata"]["labels"].update(labels or {})
    return obj


def taint(key: str, effect: str = "NoSchedule", value: str | None = None) -> dict:
    out = {"key": key, "effect": effect}
    if value is not None:
        out["value"] = value
    return out


def lint_one(tmp_path, obj: dict, *pool_objs: dict, **options):
    pool_path = write(tmp_path, "pool.yaml", *pool_objs)
    report = lint(LintOptions((write(tmp_path, "ds.yaml", obj),), (pool_path,), **options))
    return report


# -- the verdicts --------------------------------------------------------------------------------------
def test_a_daemonset_that_fits_on_every_node(tmp_path, capsys, monkeypatch):
    report = lint_one(tmp_path, daemonset(), node("n1"), node("n2"), node("n3"))
    (f,) = report.findings
    assert (f.rule, f.message) == ("fits", "fits on all 3 eligible nodes: n1, n2, n3")
    assert f.details["eligible"] == ["n1", "n2", "n3"] and f.details["notEligible"] == {}
    assert (f.details["replicas"], f.details["fit"], f.details["nodes"]) == (3, 3, ["n1", "n2", "n3"])
    pool_path = write(tmp_path, "pool.yaml", node("n1"), node("n2"), node("n3"))
    code, out, _ = run(capsys, monkeypatch, write(tmp_path, "ds.yaml", daemonset()), "--nodes", pool_path)
    assert code == 0, out
    assert "0 errors, 0 warnings" in out


def test_tainted_nodes_without_a_toleration_are_not_eligible_and_no_finding(tmp_path, capsys, monkeypatch):
    pool_objs = (node("n1"), node("n2"), node("gpu1", taints=[taint("dedicated", value="gpu")]),
                 node("drain", taints=[taint("maintenance", "NoExecute")]),
                 node("soft", taints=[taint("prefer", "PreferNoSchedule")]))        # only a preference
    report = lint_one(tmp_path, daemonset(), *pool_objs)
    (f,) = report.findings
    assert f.rule == "fits"
    assert f.message == ("fits on all 3 eligible nodes: n1, n2, soft; 2 of 5 nodes not eligible: "
                         "drain (untolerated taint maintenance:NoExecute); gpu1 (untolerated taint dedicated=gpu:NoSchedule)")
    assert f.details["notEligible"] == {"drain": "untolerated taint maintenance:NoExecute",
                                        "gpu1": "untolerated taint dedicated=gpu:NoSchedule"}
    code, _, _ = run(capsys, monkeypatch, write(tmp_path, "ds.yaml", daemonset()), "--nodes",
                     write(tmp_path, "pool.yaml", *pool_objs), "--fail-on", "warning")
    assert code == 0
    # with the toleration, the tainted node is eligible, and the pod lands there too
    tolerant = daemonset(tolerations=[{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}])
    (f,) = lint_one(tmp_path, tolerant, *pool_objs).findings
    assert f.rule == "fits" and f.details["nodes"] == ["gpu1", "n1", "n2", "soft"]


def test_a_daemonset_that_does_not_fit_on_a_small_node(tmp_path, capsys, monkeypatch):
    pool_objs = (node("n1", "2"), node("n2", "2"), node("small", "1"), node("tiny", "1"),
                 node("tainted", "1", taints=[taint("dedicated")]))
    report = lint_one(tmp_path, daemonset(cpu="1500m"), *pool_objs)
    (f,) = report.findings
    assert (f.rule, f.level.label) == ("replicas", "error")
    assert f.message == ("fits on 2 of 4 eligible nodes (n1, n2); does not fit on small, tiny (Insufficient cpu); "
                         "1 of 5 nodes not eligible")
    assert f.details["notFit"]["small"]["reason"] == "Insufficient cpu"
    assert f.details["notFit"]["small"]["message"].startswith(
        "0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't satisfy plugin(s) [NodeAffinity].")
    assert (f.details["replicas"], f.details["fit"]) == (4, 2)
    code, out, _ = run(capsys, monkeypatch, write(tmp_path, "ds.yaml", daemonset(cpu="1500m")), "--nodes",
                       write(tmp_path, "pool.yaml", *pool_objs))
    assert code == 1
    assert "error [replicas] DaemonSet default/agent: fits on 2 of 4 eligible nodes (n1, n2); does not fit on small" in out


def test_bound_pods_and_host_ports_of_the_pool_count_per_node(tmp_path):
    ported = daemonset(cpu="100m")
    ported["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    web = pod("web", cpu="100m", nodeName="n2")
    web["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    busy = pod("busy", cpu="1950m", nodeName="n3")
    (f,) = lint_one(tmp_path, ported, node("n1"), node("n2"), node("n3"), web, busy).findings
    assert f.rule == "replicas"
    assert f.message == ("fits on 1 of 3 eligible nodes (n1); does not fit on n2 (node(s) didn't have free ports "
                         "for the requested pod ports); n3 (Insufficient cpu)")


def test_fitting_on_no_eligible_node_is_unschedulable(tmp_path):
    (f,) = lint_one(tmp_path, daemonset(cpu="3"), node("n1"), node("n2")).findings
    assert f.rule == "unschedulable"
    assert f.message == "fits on 0 of 2 eligible nodes; does not fit on n1, n2 (Insufficient cpu)"


def test_node_selector_and_affinity_limit_the_eligible_nodes(tmp_path):
    pool_objs = (labelled("gpu1", labels={"gpu": "true"}), labelled("gpu2", labels={"gpu": "true"}),
                 labelled("cpu1"), labelled("big", "1", labels={"gpu": "true", "size": "big"}))
    (f,) = lint_one(tmp_path, daemonset(nodeSelector={"gpu": "true"}, cpu="1500m"), *pool_objs).findings
    assert f.rule == "replicas"
    assert f.details["eligible"] == ["big", "gpu1", "gpu2"]
    assert f.details["notEligible"] == {"cpu1": "node selector or affinity does not match"}
    assert f.message.endswith("does not fit on big (Insufficient cpu); 1 of 4 nodes not eligible")
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "size", "operator": "NotIn", "values": ["big"]}]}]}}}
    (f,) = lint_one(tmp_path, daemonset(nodeSelector={"gpu": "true"}, affinity=affinity), *pool_objs).findings
    assert f.rule == "fits" and f.details["nodes"] == ["gpu1", "gpu2"]
    assert f.message == ("fits on all 2 eligible nodes: gpu1, gpu2; 2 of 4 nodes not eligible: "
                         "big, cpu1 (node selector or affinity does not match)")


def test_no_eligible_node_is_a_warning(tmp_path, capsys, monkeypatch):
    pool_objs = (node("n1"), node("n2", taints=[taint("dedicated")]))
    (f,) = lint_one(tmp_path, daemonset(nodeSelector={"gpu": "true"}), *pool_objs).findings
    assert (f.rule, f.level.label) == ("no-eligible-nodes", "warning")
    assert f.message == ("no node of the pool is eligible, the DaemonSet would run no pod: "
                         "n1, n2 (node selector or affinity does not match)")
    assert f.details["fit"] == 0 and f.details["eligible"] == []
    path = write(tmp_path, "ds.yaml", daemonset(nodeSelector={"gpu": "true"}))
    pool_path = write(tmp_path, "pool.yaml", *pool_objs)
    assert run(capsys, monkeypatch, path, "--nodes", pool_path)[0] == 0
    assert run(capsys, monkeypatch, path, "--nodes", pool_path, "--fail-on", "warning")[0] == 1


def test_the_controllers_tolerations_keep_cordoned_and_troubled_nodes_eligible(tmp_path):
    cordoned = node("cordoned", taints=[taint("node.kubernetes.io/unschedulable")])
    cordoned["spec"]["unschedulable"] = True
    pool_objs = (node("n1"), cordoned, node("notready", taints=[taint("node.kubernetes.io/not-ready", "NoExecute")]),
                 node("pressure", taints=[taint("node.kubernetes.io/memory-pressure"),
                                          taint("node.kubernetes.io/disk-pressure"),
                                          taint("node.kubernetes.io/pid-pressure")]),
                 node("nonet", taints=[taint("node.kubernetes.io/network-unavailable")]))
    (f,) = lint_one(tmp_path, daemonset(), *pool_objs).findings
    assert f.rule == "fits"
    assert f.details["nodes"] == ["cordoned", "n1", "notready", "pressure"]
    assert f.details["notEligible"] == {"nonet": "untolerated taint node.kubernetes.io/network-unavailable:NoSchedule"}
    (f,) = lint_one(tmp_path, daemonset(hostNetwork=True), *pool_objs).findings
    assert f.rule == "fits" and len(f.details["nodes"]) == 5


def test_preemption_on_some_nodes_is_a_warning_naming_them(tmp_path):
    high = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
            "value": 1000}
    low = pod("low", cpu="1800m", nodeName="n2")
    report = lint_one(tmp_path, daemonset(priorityClassName="high"), node("n1"), node("n2"), low, high)
    (f,) = report.findings
    assert (f.rule, f.level.label) == ("preemption", "warning")
    assert f.message == "schedulable only through preemption on 1 of 2 eligible nodes: on n2, evicting default/low"
    assert f.details["preemption"]["n2"]["victims"] == ["default/low"]
    assert f.details["nodes"] == ["n1"]
    report = lint_one(tmp_path, daemonset(priorityClassName="high"), node("n1"), node("n2"), low, high,
                      preemption=False)
    assert [f.rule for f in report.findings] == ["replicas"]


def test_failing_and_preempting_nodes_are_two_findings(tmp_path):
    high = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
            "value": 1000}
    low = pod("low", cpu="1800m", nodeName="n2")
    (failing, preempting) = lint_one(tmp_path, daemonset(cpu="1500m", priorityClassName="high"),
                                     node("n1"), node("n2"), node("small", "1"), low, high).findings
    assert failing.rule == "replicas" and "does not fit on small (Insufficient cpu)" in failing.message
    assert preempting.rule == "preemption" and "on n2, evicting default/low" in preempting.message


def test_gated_template_and_template_node_name(tmp_path):
    (f,) = lint_one(tmp_path, daemonset(schedulingGates=[{"name": "example.com/wait"}]), node("n1"), node("n2")).findings
    assert (f.rule, f.message) == ("gated", "waits for its scheduling gates (example.com/wait)")
    (f,) = lint_one(tmp_path, daemonset(nodeName="n2"), node("n1"), node("n2")).findings
    assert (f.rule, f.message) == ("not-scheduled", "spec.template.spec.nodeName is n2: the scheduler does not place "
                                                    "its pod; its kubelet admits it")
    (f,) = lint_one(tmp_path, daemonset(nodeName="gone"), node("n1")).findings
    assert f.rule == "no-eligible-nodes" and f.details["notEligible"] == {"n1": "spec.nodeName is gone"}


def test_a_template_node_name_on_other_workloads_bypasses_the_scheduler(tmp_path):
    (f,) = lint_one(tmp_path, deployment(replicas=3, nodeName="n1"), node("n1")).findings
    assert (f.rule, f.message) == ("not-scheduled", "spec.template.spec.nodeName is n1: the scheduler does not place "
                                                    "its pods; its kubelet admits all 3")


def test_copies_that_select_each_other_are_bound_one_after_another(tmp_path):
    """With required anti-affinity against its own pods per zone, one pod per zone fits: each
    copy is bound before the next is scheduled."""
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"app": "agent"}}, "topologyKey": "topology.kubernetes.io/zone"}]}}
    pool_objs = (node("a1", zone="a"), node("a2", zone="a"), node("b1", zone="b"))
    (f,) = lint_one(tmp_path, daemonset(affinity=anti), *pool_objs).findings
    assert f.rule == "replicas"
    assert f.message == ("fits on 2 of 3 eligible nodes (a1, b1); does not fit on a2 (node(s) didn't match pod "
                         "anti-affinity rules)")
    # against another app's pods, the copies are independent: all fit
    other = copy.deepcopy(anti)
    other["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"] = {
        "matchLabels": {"app": "other"}}
    (f,) = lint_one(tmp_path, daemonset(affinity=other), *pool_objs).findings
    assert f.rule == "fits" and f.details["fit"] == 3


def test_suggestions_for_the_first_node_that_does_not_fit(tmp_path):
    calls = []

    def suggester(inputs, trace):
        calls.append((inputs.pod.spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"],
                      trace.result.status))
        return ["lower the cpu request"]

    pool_path = write(tmp_path, "pool.yaml", node("n1"), node("s1", "1"), node("s2", "1"))
    report = Linter(LintOptions((write(tmp_path, "ds.yaml", daemonset(cpu="1500m")),), (pool_path,)),
                    suggester=suggester).run()
    (f,) = report.findings
    assert f.suggestions == ("lower the cpu request",)
    assert calls == [({"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                                 "values": ["s1"]}]}]}, "Unschedulable")]


def test_long_node_lists_are_cut_in_messages_not_in_details(tmp_path):
    nodes = [node(f"n{i:03d}", "1") for i in range(25)]
    (f,) = lint_one(tmp_path, daemonset(cpu="1500m"), *nodes).findings
    assert f.message == ("fits on 0 of 25 eligible nodes; does not fit on n000, n001, n002, n003, n004, n005, n006, "
                         "n007, n008, n009 and 15 more (Insufficient cpu)")
    assert len(f.details["notFit"]) == 25
    assert "and 15 more" in render_text(lint_one(tmp_path, daemonset(cpu="1500m"), *nodes), RenderOptions())


def test_hundreds_of_nodes_build_the_cluster_once(tmp_path, monkeypatch):
    """Each eligible node's pinned pod goes through the pipeline, against the pool's own snapshot
    (the copies are independent): no snapshot is rebuilt per node. (Its time is measured by
    benchmarks/budgets_bench.py.)"""
    import kexplain.explain.inputs as inputs
    import kexplain.state.cluster as state

    builds: list[int] = []
    build = state.build_cluster
    for module in (inputs, state):
        monkeypatch.setattr(module, "build_cluster", lambda cluster, *rest: builds.append(len(cluster)) or build(cluster, *rest))
    objs = []
    for i in range(300):
        objs.append(node(f"n{i:03d}", "4", zone=f"z{i % 3}"))
        for j in range(3):
            objs.append(pod(f"p{i}-{j}", cpu="100m", nodeName=f"n{i:03d}"))
    pool_path = write(tmp_path, "pool.yaml", *objs)
    linter = Linter(LintOptions((write(tmp_path, "ds.yaml", daemonset()),), (pool_path,)))
    with no_hang("lint of a DaemonSet on 300 nodes"):
        report = linter.run()
    (f,) = report.findings
    assert f.rule == "fits" and f.details["fit"] == 300
    assert len(builds) == 1             # the pool's, once


# -- the controller's pods ------------------------------------------------------------------------------
def test_the_template_gets_the_controllers_tolerations():
    obj = pod_from_workload(daemonset(tolerations=[
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
        {"key": "dedicated", "operator": "Equal", "value": "x", "effect": "NoSchedule"}]), Source("ds.yaml"))
    assert obj["spec"]["tolerations"] == [
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},   # seconds dropped
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
        {"key": "dedicated", "operator": "Equal", "value": "x", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]
    host = add_daemon_tolerations({"hostNetwork": True})
    assert host["tolerations"][-1] == {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists",
                                       "effect": "NoSchedule"}
    # other workloads' pods get none
    assert "tolerations" not in pod_from_workload(deployment(), Source("d.yaml"))["spec"]


@pytest.mark.parametrize("affinity, expected", [
    (None, {}),
    ({}, {}),
    ({"podAntiAffinity": {"x": 1}}, {"podAntiAffinity": {"x": 1}}),
    ({"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}]}},
     {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}]}}),
    ({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"matchFields": []}]}}}, {}),
])
def test_pinning_replaces_only_the_required_node_affinity(affinity, expected):
    spec = {"nodeSelector": {"a": "b"}}
    if affinity is not None:
        spec["affinity"] = copy.deepcopy(affinity)
    pin_to_node(spec, "n7")
    pinned = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n7"]}]}]}
    node_affinity = spec["affinity"]["nodeAffinity"]
    assert node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] == pinned
    assert spec["nodeSelector"] == {"a": "b"}
    rest = copy.deepcopy(spec["affinity"])
    del rest["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    if not rest["nodeAffinity"]:
        del rest["nodeAffinity"]
    assert rest == expected


def test_should_run_daemon_pod():
    spec = add_daemon_tolerations({"containers": [], "nodeSelector": {"role": "edge"},
                                   "tolerations": [{"key": "edge", "operator": "Exists"}]})
    ds_pod = PodInfo({"metadata": {"name": "x"}, "spec": spec})

    def node_with(labels, taints=()):
        return Node.from_obj({"metadata": {"name": "n", "labels": labels}, "spec": {"taints": list(taints)}})

    assert place.should_run_daemon_pod(ds_pod, node_with({"role": "edge"})) is None
    assert place.should_run_daemon_pod(ds_pod, node_with({"role": "core"})) == place.NOT_SELECTED
    assert place.should_run_daemon_pod(ds_pod, node_with({"role": "edge"}, [taint("edge", "NoExecute")])) is None
    assert place.should_run_daemon_pod(ds_pod, node_with({"role": "edge"}, [taint("other", "NoExecute")])) == \
        "untolerated taint other:NoExecute"
    assert place.should_run_daemon_pod(ds_pod, node_with({"role": "edge"}, [taint("other", "PreferNoSchedule")])) is None


def test_siblings_matter_only_through_what_selects_the_pods_own_labels(tmp_path):
    pool = load_pool((write(tmp_path, "pool.yaml", node("n1")),))

    def matters(**extra) -> bool:
        obj = pod_from_workload(daemonset(**extra), Source("ds.yaml"))
        return place.siblings_matter(PodInfo(obj), inputs_for(obj, Source("ds.yaml"), pool))

    own, other = {"matchLabels": {"app": "agent"}}, {"matchLabels": {"app": "other"}}
    assert not matters()
    for kind in ("podAffinity", "podAntiAffinity"):
        for selector, expected in ((own, True), (other, False)):
            term = {"labelSelector": selector, "topologyKey": "kubernetes.io/hostname"}
            assert matters(affinity={kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}) is expected
            assert not matters(affinity={kind: {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 1, "podAffinityTerm": term}]}})
    spread = {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "labelSelector": own}
    assert matters(topologySpreadConstraints=[{**spread, "whenUnsatisfiable": "DoNotSchedule"}])
    assert not matters(topologySpreadConstraints=[{**spread, "whenUnsatisfiable": "ScheduleAnyway"}])
    assert matters(volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": "c"}}])
    assert not matters(volumes=[{"name": "v", "emptyDir": {}}])

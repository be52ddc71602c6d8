"""gangpreempt and gangreclaim on Volcano v1.15.1's own unit tests (actions/gangpreempt/gangpreempt_test.go,
actions/gangreclaim/gangreclaim_test.go, actions/utils/bundle_test.go and simulate_test.go): sessions built as the Go tests
build them (a test plugin whose unified evictable function allows every candidate), the same bundles,
domains and arguments asserted."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kexplain.cli.app import main
from kexplain.volcano.actions import gangpreempt, gangreclaim
from kexplain.volcano.actions.bundles import (SAFE, WHOLE, Bundle, apply_allowed, create_job_bundles, flatten,
                                              sort_for_preempt, sort_for_reclaim)
from kexplain.volcano import plugins
from kexplain.volcano.actions.gang_evict import (CLUSTER_TOP, DEFAULT_MAX_DOMAINS, parse_arguments, pick_domains, simulate,
                                                 unified_evictable)
from kexplain.volcano.api.eviction import GANG_PREEMPT, GANG_RECLAIM, EvictionContext
from kexplain.volcano.api.job import JobInfo, PodGroup
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.queue import default_queue, queue_of
from kexplain.volcano.api.resource import Resource
from kexplain.volcano.api.task import TaskInfo, TaskStatus
from kexplain.volcano.conf import PluginOption, SchedulerConf
from kexplain.volcano.framework.session import Session
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import TESTS


def task(job: str, name: str, status: TaskStatus, priority: int, milli_cpu: float, role: str = "") -> TaskInfo:
    """testTask: a task of `milli_cpu`, preemptable."""
    return TaskInfo(uid=name, job=job, name=name, namespace="ns", role=role, priority=priority,
                    pod={"metadata": {"name": name, "namespace": "ns"}}, resreq=Resource(milli_cpu),
                    init_resreq=Resource(milli_cpu), best_effort=False, node_name="", status=status,
                    sch_gated=False, creation="")


def job_of(uid: str, queue: str, priority: int, *tasks: TaskInfo, min_available: int = 0,
           pod_group: PodGroup | None = None) -> JobInfo:
    job = JobInfo(uid, queue=queue, priority=priority, min_available=min_available, pod_group=pod_group)
    for t in tasks:
        job.add_task(t)
    return job


def pod_group(annotations: dict[str, str]) -> PodGroup:
    return PodGroup("ns", "pg", {"metadata": {"annotations": annotations}}, 0, "q1", None, "", {}, "Running")


def session(jobs: list[JobInfo], queues: list[Any], plugin: str, configurations: dict | None = None) -> Session:
    """A session whose one tier is a test plugin allowing every candidate (AddUnifiedEvictableFn)."""
    conf = SchedulerConf(("gangpreempt",), ((PluginOption(plugin, {}, {}),),), configurations or {}, "test")
    ssn = Session(conf, {j.uid: j for j in jobs}, {}, [], {q.name: q for q in queues}, Resource(), None)
    ssn.add("unifiedEvictable", plugin, lambda _ctx, candidates: (candidates, 1))
    return ssn


def node_with(*tasks: TaskInfo) -> NodeInfo:
    node = NodeInfo("n1", None)
    for t in tasks:
        node.add_task(t)
    return node


# -- PickDomainsFromGradients, parseArguments (both actions' tests) ------------------------------------
def test_pick_domains_caps_and_dedups() -> None:
    gradients: list[list[str | None]] = [["d1", "d2"], ["d2", "d3"]]
    assert pick_domains(gradients, 2, "") == ["d1", "d2"]            # gangpreempt_test
    assert pick_domains(gradients, 3, "") == ["d1", "d2", "d3"]      # gangreclaim_test
    assert pick_domains([], 8, CLUSTER_TOP) == [CLUSTER_TOP]


@pytest.mark.parametrize(("action", "value", "domains", "whole"),
                         [("gangpreempt", 3, 3, False), ("gangreclaim", 5, 5, False),
                          ("gangpreempt", 0, DEFAULT_MAX_DOMAINS, True), ("gangreclaim", -1, DEFAULT_MAX_DOMAINS, True)])
def test_parse_arguments(action: str, value: int, domains: int, whole: bool) -> None:
    args: dict[str, Any] = {"maxDomains": value}
    if not whole:
        args["allowWholeBundle"] = False
    got = parse_arguments(session([], [], "x", {action: args}), action)
    assert (got.max_domains, got.allow_whole_bundle, got.error_cache) == (domains, whole, True)


# -- gangpreempt's selectDomainBundles ------------------------------------------------------------------
def _preempt_case(victim_group: PodGroup | None, min_available: int = 0) -> tuple[Session, JobInfo, list[TaskInfo]]:
    preemptor = task("ns/preemptor", "preemptor", TaskStatus.PENDING, 100, 1000)
    victim = task("ns/victim", "victim", TaskStatus.RUNNING, 10, 1000)
    pj = job_of("ns/preemptor", "q1", 100, preemptor)
    vj = job_of("ns/victim", "q1", 10, victim, min_available=min_available, pod_group=victim_group)
    return session([pj, vj], [queue_of({"metadata": {"name": "q1"}})], "test-preempt"), pj, [preemptor, victim]


def _preempt_victims(ssn: Session, job: JobInfo, pending: TaskInfo, victim: TaskInfo, allow_whole: bool) -> list[str]:
    bundles = gangpreempt.select_domain_bundles(ssn, job, [pending], pending.init_resreq.clone(), [node_with(victim)],
                                                "d1", allow_whole)
    return [t.uid for t in flatten(bundles)]


def test_gangpreempt_respects_allow_whole_bundle() -> None:
    ssn, job, (preemptor, victim) = _preempt_case(None, min_available=1)     # one running task: whole only
    assert _preempt_victims(ssn, job, preemptor, victim, False) == []
    assert _preempt_victims(ssn, job, preemptor, victim, True) == ["victim"]


def test_gangpreempt_respects_victim_job_preemptable() -> None:
    ssn, job, (preemptor, victim) = _preempt_case(pod_group({"volcano.sh/preemptable": "false"}))
    assert _preempt_victims(ssn, job, preemptor, victim, True) == []


def test_gangpreempt_allows_victim_job_when_preemptable_unset() -> None:
    ssn, job, (preemptor, victim) = _preempt_case(pod_group({}))
    assert _preempt_victims(ssn, job, preemptor, victim, True) == ["victim"]


# -- gangreclaim's selectDomainBundles ------------------------------------------------------------------
def _reclaim_victims(ssn: Session, reclaimer: TaskInfo, *on_node: TaskInfo) -> list[str]:
    job = ssn.jobs[reclaimer.job]
    bundles = gangreclaim.select_domain_bundles(ssn, None, job, [reclaimer], reclaimer.init_resreq.clone(),
                                                [node_with(*on_node)], "d1", True)
    return [t.uid for t in flatten(bundles)]


def _queue(name: str, reclaimable: bool) -> Any:
    return queue_of({"metadata": {"name": name}, "spec": {"reclaimable": reclaimable}})


def test_gangreclaim_takes_only_reclaimable_other_queues() -> None:
    reclaimer = task("ns/reclaimer", "reclaimer", TaskStatus.PENDING, 100, 1000)
    victim = task("ns/victim", "victim", TaskStatus.RUNNING, 10, 1000)
    other = task("ns/other", "other", TaskStatus.RUNNING, 10, 1000)
    ssn = session([job_of("ns/reclaimer", "q1", 0, reclaimer), job_of("ns/victim", "q2", 0, victim),
                   job_of("ns/other", "q3", 0, other)],
                  [default_queue("q1"), _queue("q2", True), _queue("q3", False)], "test-reclaim")
    assert _reclaim_victims(ssn, reclaimer, victim, other) == ["victim"]


@pytest.mark.parametrize(("annotations", "victims"), [({"volcano.sh/preemptable": "false"}, []), ({}, ["victim"])])
def test_gangreclaim_respects_victim_job_preemptable(annotations: dict[str, str], victims: list[str]) -> None:
    reclaimer = task("ns/reclaimer", "reclaimer", TaskStatus.PENDING, 100, 1000)
    victim = task("ns/victim", "victim", TaskStatus.RUNNING, 10, 1000)
    ssn = session([job_of("ns/reclaimer", "q1", 0, reclaimer),
                   job_of("ns/victim", "q2", 0, victim, pod_group=pod_group(annotations))],
                  [default_queue("q1"), _queue("q2", True)], "test-reclaim")
    assert _reclaim_victims(ssn, reclaimer, victim) == victims


# -- bundle.go (bundle_test.go) -------------------------------------------------------------------------
def _running_job(n: int, min_available: int, role_min: dict[str, int]) -> tuple[JobInfo, list[TaskInfo]]:
    tasks = [task("j", chr(ord("a") + i), TaskStatus.RUNNING, i, 1000, role="worker") for i in range(n)]
    job = job_of("j", "q", 0, *tasks, min_available=min_available)
    job.task_min_available = role_min
    return job, tasks


@pytest.mark.parametrize(("n", "role_min", "min_available", "sizes"),
                         [(5, {"worker": 3}, 3, [(SAFE, 2), (WHOLE, 3)]),    # SafeAndWhole: surplus 2
                          (4, {}, 2, [(SAFE, 2), (WHOLE, 2)]),              # NoTaskMinAvailableTreats...
                          (2, {}, 10, [(SAFE, 2)])])                        # JobNotReadyShortCircuitsAllSafe
def test_create_job_bundles(n: int, role_min: dict[str, int], min_available: int, sizes: list[tuple[int, int]]) -> None:
    job, tasks = _running_job(n, min_available, role_min)
    bundles = create_job_bundles(job, list(reversed(tasks)))
    assert [(b.type, len(b.tasks)) for b in bundles] == sizes
    assert [t.uid for t in bundles[0].tasks] == ["a", "b"]              # lowest priority first


def _bundle(kind: int, job: JobInfo, uid: str, local: float, global_: float) -> Bundle:
    t = task(job.uid, uid, TaskStatus.RUNNING, 0, local)
    return Bundle(kind, job, (t,), Resource(local), Resource(global_))


def test_apply_allowed_keeps_whole_bundles_atomic_and_shrinks_safe_ones() -> None:
    job = JobInfo("j")
    t1, t2, t3 = (task("j", n, TaskStatus.RUNNING, 0, 1000) for n in ("t1", "t2", "t3"))
    bundles = [Bundle(SAFE, job, (t1, t2), Resource(2000), Resource()), Bundle(WHOLE, job, (t3,), Resource(1000), Resource(3000))]
    valid = apply_allowed(bundles, {"t1", "t3x"})
    assert [(b.type, [t.uid for t in b.tasks], b.local_res.milli_cpu) for b in valid] == [(SAFE, ["t1"], 1000)]


def test_sort_for_preempt_by_type_then_victim_job_order_then_roi() -> None:
    low, high = JobInfo("low", priority=1), JobInfo("high", priority=10)
    bundles = [_bundle(WHOLE, low, "w1", 1000, 4000), _bundle(SAFE, high, "s1", 1000, 0),
               _bundle(WHOLE, low, "w2", 1000, 2000)]
    ordered = sort_for_preempt(bundles, Resource(1000), lambda l, r: l.priority < r.priority)
    assert [b.tasks[0].uid for b in ordered] == ["s1", "w2", "w1"]
    a, b = _bundle(WHOLE, JobInfo("ja"), "a", 1000, 2000), _bundle(WHOLE, JobInfo("jb"), "b", 1000, 2000)
    assert sort_for_preempt([a, b], Resource(1000), lambda l, r: l.uid > r.uid)[0].tasks[0].uid == "b"


def test_sort_for_reclaim_by_queue_order_then_roi_then_uid() -> None:
    queues = {n: default_queue(n) for n in ("qa", "qb", "q")}
    a = _bundle(WHOLE, JobInfo("ja", queue="qa"), "a", 1000, 4000)
    b = _bundle(WHOLE, JobInfo("jb", queue="qb"), "b", 1000, 2000)
    assert sort_for_reclaim([b, a], Resource(1000), lambda l, r: l.name < r.name, queues)[0].tasks[0].uid == "a"
    c = _bundle(WHOLE, JobInfo("jc", queue="qc"), "c", 1000, 4000)
    d = _bundle(WHOLE, JobInfo("jd", queue="qd"), "d", 1000, 2000)
    assert sort_for_reclaim([c, d], Resource(1000), None, queues)[0].tasks[0].uid == "d"
    a2 = _bundle(WHOLE, JobInfo("ja", queue="q"), "a", 1000, 2000)
    b2 = _bundle(WHOLE, JobInfo("jb", queue="q"), "b", 1000, 2000)
    assert [x.tasks[0].uid for x in sort_for_reclaim([b2, a2], Resource(1000), None, queues)] == ["a", "b"]


# -- whole sessions (cluster files, the document) -------------------------------------------------------
HAND = TESTS / "volcano" / "hand"


def run(cluster: str, conf: Path) -> dict[str, Any]:
    env = TestEnvironment()
    main(["volcano", "--nodes", str(HAND / cluster), "--scheduler-conf", str(conf), "-o", "json"], env)
    return json.loads(env.out)


def evicted(doc: dict[str, Any]) -> list[str]:
    return [p["name"] for p in doc["pods"] if p.get("evicted")]


def events(doc: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(e["object"], e["reason"], e["message"]) for e in doc["events"]}


def test_gangpreempt_on_preempt_tests_case() -> None:
    """preempt_test.go's "preempt low priority job in same queue" run by gangpreempt: the same victim,
    the preemptor pipelined with its nominated node; the eviction's reason is the action's."""
    doc = run("preempt-low-priority.yaml", HAND / "gang-conf.yaml")
    assert evicted(doc) == ["c1/preemptee1"]
    preemptor = {p["name"]: p for p in doc["pods"]}["c1/preemptor1"]
    assert preemptor["nominatedNodeName"] == "n1"
    assert preemptor["podScheduled"]["message"] == (
        "Pod c1/preemptor1 can possibly be assigned to n1, once resource is released and minAvailable is satisfied")
    assert {("Pod c1/preemptee1", "Evict", "Pod is evicted, because of gangpreempt"),
            ("PodGroup c1/pg1", "Evict", "gangpreempt")} <= events(doc)
    assert "notes" not in doc


def test_gangreclaim_on_reclaim_tests_case() -> None:
    """reclaim_test.go's overused queue run by gangreclaim: only preemptee2 is preemptable."""
    doc = run("reclaim-overusing-queue.yaml", HAND / "gang-conf.yaml")
    assert evicted(doc) == ["c1/preemptee2"]
    assert ("PodGroup c1/pg1", "Evict", "gangreclaim") in events(doc)


def test_gangpreempt_evicts_a_whole_gang_for_a_whole_gang(tmp_path: Path) -> None:
    """The low gang's two running tasks are its minMember: one whole bundle, evicted together so both
    pending tasks of the high gang are pipelined; allowWholeBundle false, and the legacy preempt (the
    gang plugin keeps minAvailable), evict nothing."""
    doc = run("gangpreempt-whole-job.yaml", HAND / "gang-conf.yaml")
    assert evicted(doc) == ["ns/low-0", "ns/low-1"]
    fix = next(f for f in doc["fixes"] if f["podGroup"] == "ns/high")       # the action that evicted, by name
    assert fix["evictions"]["says"].startswith("gangpreempt evicted ns/low-0, ns/low-1 for it; pipelined")
    assert {p["name"]: p.get("nominatedNodeName") for p in doc["pods"] if p["podGroup"] == "high"} == {
        "ns/high-0": "n1", "ns/high-1": "n1"}
    conf = yaml.safe_load((HAND / "gang-conf.yaml").read_text())
    for change in ({"configurations": [{"name": "gangpreempt", "arguments": {"allowWholeBundle": False}}]},
                   {"actions": "preempt"}):
        path = tmp_path / "conf.yaml"
        path.write_text(yaml.safe_dump({**conf, **change}))
        assert evicted(run("gangpreempt-whole-job.yaml", path)) == []


def test_gangreclaim_asks_capacity_in_its_tier(tmp_path: Path) -> None:
    """capacity's unified evictable function refuses the task that would take qa to its deserved, so
    job a's whole bundle goes and the safe one frees too little; asked only in a later tier, after
    priority, gang and conformance allowed every candidate, it is not asked and both tasks go."""
    assert evicted(run("gangreclaim-capacity.yaml", HAND / "gang-capacity-conf.yaml")) == []
    conf = yaml.safe_load((HAND / "gang-capacity-conf.yaml").read_text())
    first = [p for p in conf["tiers"][0]["plugins"] if p["name"] != "capacity"]
    conf["tiers"] = [{"plugins": first}, {"plugins": conf["tiers"][1]["plugins"] + [{"name": "capacity"}]}]
    path = tmp_path / "conf.yaml"
    path.write_text(yaml.safe_dump(conf))
    assert evicted(run("gangreclaim-capacity.yaml", path)) == ["ns/a-0", "ns/a-1"]


# -- simulate.go's BuildNominationPlanInDomain (simulate_test.go) -----------------------------------------
def _node(name: str, idle: float, releasing: float = 0.0) -> NodeInfo:
    return NodeInfo(name, {"metadata": {"name": name}}, Resource(idle + releasing), Resource(idle), Resource(),
                    Resource(releasing))


def _plan_session(*jobs: JobInfo, nodes: list[NodeInfo]) -> Session:
    conf = SchedulerConf(("gangpreempt",), (), {}, "test")
    return Session(conf, {j.uid: j for j in jobs}, {n.name: n for n in nodes}, [], {}, Resource(), None)


def test_plan_pipelines_the_pending_task() -> None:
    """_Success: one operation; _NoFeasibleNode: none on a node without room."""
    t1 = task("ns/job2", "t1", TaskStatus.PENDING, 0, 1000)
    job = job_of("ns/job2", "q", 0, t1)
    node = _node("n1", 2000)
    plan = simulate(_plan_session(job, nodes=[node]), None, job, [node], [], "test", True)
    assert plan is not None and [(op, t.uid) for op, t, _ in plan.operations] == [("pipeline", "t1")]
    t2 = task("ns/job3", "t1", TaskStatus.PENDING, 0, 1000)
    job3 = job_of("ns/job3", "q", 0, t2)
    empty = _node("n1", 0)
    assert simulate(_plan_session(job3, nodes=[empty]), None, job3, [empty], [], "test", True) is None
    assert t2.status == TaskStatus.PENDING and not empty.tasks


def test_plan_with_a_victim_evicts_then_pipelines() -> None:
    """_WithVictimIncludesEvictAndPipeline: the eviction and the pipeline, in that order."""
    t1 = task("ns/job4", "t1", TaskStatus.PENDING, 0, 1000)
    victim = task("ns/victim-job", "v1", TaskStatus.RUNNING, 0, 1000)
    job, vjob = job_of("ns/job4", "q", 0, t1), job_of("ns/victim-job", "q", 0, victim)
    node = _node("n1", 3000)
    node.add_task(victim)
    plan = simulate(_plan_session(job, vjob, nodes=[node]), None, job, [node], [victim], "test", True)
    assert plan is not None and [(op, t.uid, why) for op, t, why in plan.operations] == [
        ("evict", "v1", "test"), ("pipeline", "t1", "")]
    assert t1.eviction_occurred and victim.status == TaskStatus.RELEASING


def test_plan_prefers_an_idle_node_over_a_future_idle_one() -> None:
    """_PrefersIdleNodeOverFutureIdle: the task goes where it fits now, not where room is released."""
    t1 = task("ns/job5", "t1", TaskStatus.PENDING, 0, 1000)
    job = job_of("ns/job5", "q", 0, t1)
    future, idle = _node("n-future", 0, releasing=2000), _node("n-idle", 2000)
    plan = simulate(_plan_session(job, nodes=[future, idle]), None, job, [future, idle], [], "test", True)
    assert plan is not None and t1.node_name == "n-idle" and not future.tasks


# -- the plugins' unified evictable functions -----------------------------------------------------------
def test_plugins_unified_evictable_functions() -> None:
    """priority (gang preempt only: a lower job priority), conformance (no kube-system or critical pod),
    gang (every candidate), asked as one tier."""
    preemptor_job = job_of("ns/p", "q", 50, task("ns/p", "p", TaskStatus.PENDING, 0, 1000))
    low = task("ns/low", "low", TaskStatus.RUNNING, 0, 1000)
    equal = task("ns/eq", "eq", TaskStatus.RUNNING, 0, 1000)
    system = task("kube-system/low", "sys", TaskStatus.RUNNING, 0, 1000)
    system.namespace = "kube-system"
    jobs = [preemptor_job, job_of("ns/low", "q", 10, low), job_of("ns/eq", "q", 50, equal),
            job_of("kube-system/low", "q", 10, system)]

    def ask(names: tuple[str, ...], kind: str) -> list[str]:
        conf = SchedulerConf(("gangpreempt",), (tuple(PluginOption(n, {}, {}) for n in names),), {}, "test")
        ssn = Session(conf, {j.uid: j for j in jobs}, {}, [], {}, Resource(), None)
        for n in names:
            plugins.build(n, {}).on_session_open(ssn)
        return [t.uid for t in unified_evictable(ssn, EvictionContext(kind, preemptor_job, CLUSTER_TOP),
                                                 [low, equal, system])]
    assert ask(("priority", "gang", "conformance"), GANG_PREEMPT) == ["low"]
    assert ask(("priority", "gang", "conformance"), GANG_RECLAIM) == ["low", "eq"]
    assert ask(("gang",), GANG_PREEMPT) == ["low", "eq", "sys"]


@pytest.mark.parametrize(("nominated_idle", "in_domain"), [(2000, False), (0, True)])
def test_plan_takes_no_shortcut_through_the_nominated_node(nominated_idle: float, in_domain: bool) -> None:
    """_IgnoresNominatedNodeOutsideDomain (the nominated node outside the domain) and
    _FallbackWhenNominatedInfeasible (inside it, without room): the task goes to the other node."""
    t1 = task("ns/job", "t1", TaskStatus.PENDING, 0, 1000)
    t1.nominated = "n-nominated"
    job = job_of("ns/job", "q", 0, t1)
    nominated, other = _node("n-nominated", nominated_idle), _node("n-other", 2000)
    domain = [nominated, other] if in_domain else [other]
    assert simulate(_plan_session(job, nodes=[nominated, other]), None, job, domain, [], "test", True) is not None
    assert t1.node_name == "n-other" and not nominated.tasks

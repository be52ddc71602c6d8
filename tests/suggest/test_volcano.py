"""Volcano's verified fixes (`kexplain.suggest.volcano`, issue 93 item 4): per PodGroup a session leaves
waiting, the changes its refusals call for, each kept only when the session run again starts the job;
what preempt and reclaim evicted for it. Through `kexplain volcano` and `kexplain POD`."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from kexplain.cli.app import main
from tests.support.cli_helpers import TestEnvironment
from tests.support.paths import ROOT, TESTS

FIXTURES = ROOT / "fixtures" / "volcano"
HAND = TESTS / "volcano" / "hand"
CASES = TESTS / "volcano" / "cases"


def node(name: str, cpu: str = "4", taints: list | None = None, labels: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "spec": {"taints": taints} if taints else {},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def pod(name: str, group: str, cpu: str = "1", **spec: object) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z",
                         "annotations": {"scheduling.k8s.io/group-name": group}},
            "spec": {"schedulerName": "volcano", **spec,
                     "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu,
                                                                                         "memory": "1Gi"}}}]}}


def pod_group(name: str, min_member: int = 1, queue: str = "default", **spec: object) -> dict:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"minMember": min_member, "queue": queue, **spec}, "status": {"phase": "Pending"}}


def queue(name: str, state: str = "Open", **spec: object) -> dict:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name},
            "spec": {"weight": 1, **spec}, "status": {"state": state}}


def write(tmp_path: Path, objects: list[dict]) -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    return str(path)


def run(*args: str) -> tuple[dict, int]:
    env = TestEnvironment()
    code = main(["volcano", *args, "-o", "json"], env)
    return json.loads(env.out), code


def entry(doc: dict, name: str) -> dict:
    return next(e for e in doc["fixes"] if e["podGroup"] == name)


def kinds(e: dict) -> dict[str, dict]:
    return {s["kind"]: s for s in e["suggestions"]}


def test_a_gang_not_met_is_lowered_to_the_tasks_that_found_a_node_and_its_requests_to_what_fits() -> None:
    doc, code = run("--nodes", str(FIXTURES / "gang-not-met.yaml"))
    assert code == 1
    fixes = kinds(entry(doc, "default/train"))
    gang = fixes["lower-min-member"]
    assert gang["change"] == [{"object": "PodGroup default/train", "op": "replace", "path": "/spec/minMember",
                               "value": 2}]
    assert sorted(gang["verified"]["podsBound"]) == ["default/train-0", "default/train-1"]
    request = fixes["lower-request"]
    assert {c["value"] for c in request["change"]} == {"2500m"}
    assert len(request["verified"]["podsBound"]) == 3
    assert entry(doc, "default/train")["evictions"]["configured"] == []


def test_a_closed_queue_moves_to_an_open_one(tmp_path: Path) -> None:
    path = write(tmp_path, [node("n1"), queue("frozen", state="Closed"), pod_group("j", queue="frozen"),
                            pod("j-0", "j")])
    doc, _ = run("--nodes", path)
    e = entry(doc, "default/j")
    assert [(s["kind"], s["change"][0]["value"]) for s in e["suggestions"]] == [("another-queue", "default")]
    assert e["suggestions"][0]["verified"]["podsBound"] == {"default/j-0": "n1"}


def test_a_queue_capability_is_raised_and_a_rise_that_does_not_start_the_job_is_said_not_kept(tmp_path: Path) -> None:
    objs = [node("n1", cpu="8"), queue("team", capability={"cpu": "1"}), queue("closed", state="Closed")]
    for name in ("a", "b"):
        objs += [pod_group(name, queue="team", minResources={"cpu": "1"}), pod(f"{name}-0", name)]
    doc, _ = run("--nodes", write(tmp_path, objs))
    first = kinds(entry(doc, "default/b"))
    raised = first["raise-queue-capability"]
    assert raised["change"] == [{"object": "Queue team", "op": "replace", "path": "/spec/capability/cpu",
                                 "value": "2"}]
    assert raised["verified"]["podsBound"] == {"default/b-0": "n1"}
    assert "another-queue" in first and first["another-queue"]["change"][0]["value"] == "default"


def test_a_queue_is_raised_for_the_waiting_jobs_volcano_orders_first_too(tmp_path: Path) -> None:
    """Three jobs of 1 cpu in a queue of 1 cpu: a runs; raised by c's own need (2), b would take the room."""
    objs = [node("n1", cpu="8"), queue("team", capability={"cpu": "1"})]
    for i, name in enumerate(("a", "b", "c")):
        group = pod_group(name, queue="team", minResources={"cpu": "1"})
        group["metadata"]["creationTimestamp"] = f"2026-01-01T00:00:0{i}Z"
        objs += [group, pod(f"{name}-0", name)]
    doc, _ = run("--nodes", write(tmp_path, objs))
    e = entry(doc, "default/c")
    raised = kinds(e)["raise-queue-capability"]
    assert raised["change"][0]["value"] == "3" and raised["verified"]["podsBound"] == {"default/c-0": "n1"}
    assert "the 1 waiting job(s) Volcano orders before this one" in raised["description"]
    assert e["triedNotEnough"] == ["raise queue team's capability to what it holds and the job needs: cpu 1 -> 2"]


def test_taints_and_a_node_selector_get_a_toleration_and_the_selector_dropped(tmp_path: Path) -> None:
    taint = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
    path = write(tmp_path, [node("gpu", taints=[taint]), node("other", labels={"pool": "b"}), pod_group("j"),
                            pod("j-0", "j", nodeSelector={"pool": "a"})])
    doc, _ = run("--nodes", path)
    e = entry(doc, "default/j")
    assert "add-toleration" not in kinds(e)           # the tainted node does not match the selector either
    dropped = kinds(e)["drop-node-selector"]
    assert dropped["change"] == [{"object": "Pod default/j-0", "op": "remove", "path": "/spec/nodeSelector"}]
    assert dropped["verified"]["podsBound"] == {"default/j-0": "other"}
    path = write(tmp_path, [node("gpu", taints=[taint]), pod_group("j"), pod("j-0", "j")])
    doc, _ = run("--nodes", path)
    tol = kinds(entry(doc, "default/j"))["add-toleration"]
    assert tol["change"][0]["value"] == {"key": "dedicated", "operator": "Equal", "value": "gpu",
                                         "effect": "NoSchedule"}
    assert tol["verified"]["podsBound"] == {"default/j-0": "gpu"}


def test_a_gang_enqueue_refuses_is_made_one_the_nodes_hold(tmp_path: Path) -> None:
    doc, _ = run("--nodes", str(CASES / "overcommit-refuses-enqueue" / "cluster.yaml"))
    gang = kinds(entry(doc, "default/huge"))["lower-min-member"]
    ops = {c["path"]: c["value"] for c in gang["change"]}
    assert ops["/spec/minMember"] < 4 and "cpu" in ops["/spec/minResources"]
    assert gang["verified"]["podsBound"]


def test_no_change_found_is_said_with_what_was_tried(tmp_path: Path) -> None:
    """One node of 4 cpu, a task of 6: its request would fit only lowered; nothing else to try."""
    path = write(tmp_path, [node("n1"), pod_group("j"), pod("j-0", "j", cpu="6", nodeName=None)])
    doc, _ = run("--nodes", path)
    e = entry(doc, "default/j")
    assert kinds(e)["lower-request"]["change"][0]["value"] == "4"
    path = write(tmp_path, [node("n1", cpu="4"), pod_group("j"),
                            pod("j-0", "j", affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                                {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}]}}),
                            {**pod("x", "other"), "metadata": {"name": "x", "namespace": "default",
                                                              "labels": {"app": "x"}},
                             "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]},
                             "status": {"phase": "Running"}}])
    doc, _ = run("--nodes", path)
    e = entry(doc, "default/j")
    assert e["suggestions"] == [] and e["none"] == "kexplain has no change to try for its refusals"


def test_preempt_says_what_it_evicted_for_the_job() -> None:
    doc, _ = run("--nodes", str(HAND / "preempt-low-priority.yaml"), "--scheduler-conf", str(HAND / "preempt-conf.yaml"))
    ev = entry(doc, "c1/pg2")["evictions"]
    assert ev["configured"] == ["preempt"]
    assert ev["evicted"] == ["c1/preemptee1"] and ev["pipelined"] == {"c1/preemptor1": "n1"}
    doc, _ = run("--nodes", str(HAND / "reclaim-overusing-queue.yaml"), "--scheduler-conf", str(HAND / "reclaim-conf.yaml"))
    assert entry(doc, "c1/pg2")["evictions"]["evicted"] == ["c1/preemptee2"]


def test_no_suggestions_leaves_the_key_out_and_the_session_as_it_is() -> None:
    with_fixes, _ = run("--nodes", str(FIXTURES / "gang-not-met.yaml"))
    without, _ = run("--nodes", str(FIXTURES / "gang-not-met.yaml"), "--no-suggestions")
    assert "fixes" not in without
    assert {k: v for k, v in with_fixes.items() if k != "fixes"} == without


def test_text_lists_each_fix_with_what_it_binds() -> None:
    env = TestEnvironment()
    main(["volcano", "--nodes", str(FIXTURES / "gang-not-met.yaml")], env)
    assert "Fixes (each verified by running the session again with it):" in env.out
    assert ("lower-min-member: lower the gang to the 2 task(s) that found a node: minMember 3 -> 2" in env.out)


def test_the_pod_answer_has_its_pod_groups_fixes_and_says_when_the_pod_stays_pending(tmp_path: Path) -> None:
    args = [str(FIXTURES / "gang-pod.yaml"), "--nodes", str(FIXTURES / "gang-cluster.yaml")]
    env = TestEnvironment()
    main([*args, "-o", "json"], env)
    trace = json.loads(env.out)
    assert trace["volcano"]["fixes"]["podGroup"] == "default/train"
    assert "lower-min-member" in kinds(trace["volcano"]["fixes"])
    env = TestEnvironment()
    main(args, env)
    assert "(the job starts; default/train-2 itself stays pending)" in env.out
    page = tmp_path / "page.html"
    main([*args, "--html", str(page)], TestEnvironment())
    assert "Fixes, each verified by running the session again with it" in page.read_text()


def test_the_sessions_run_again_are_bounded_for_the_whole_answer(tmp_path: Path, monkeypatch) -> None:
    """Every fix runs a whole session again: past `MAX_SESSIONS` in all, a waiting PodGroup is said not
    tried, and no further session runs."""
    from kexplain.suggest import volcano as fixes
    runs: list[int] = []
    real = fixes.run_session

    def counted(*args: object, **kw: object) -> dict:
        runs.append(1)
        return real(*args, **kw)
    monkeypatch.setattr(fixes, "run_session", counted)
    monkeypatch.setattr(fixes, "MAX_SESSIONS", 2)
    objects = [node("n1", cpu="2"), queue("default")]
    for name in ("a", "b", "c"):
        objects += [pod_group(name, min_member=2), pod(f"{name}-0", name, cpu="3"), pod(f"{name}-1", name, cpu="3")]
    doc, code = run("--nodes", write(tmp_path, objects))
    assert code == 1 and len(runs) == 2
    said = [e for e in doc["fixes"] if "notTried" in e]
    assert said and all("at most 2 times" in e["notTried"] for e in said)

"""`plugins/memo` (issue 93): the verdicts and scores kept per pod shape and node version give the
session it gives without them: the same document, the same fit errors node by node (in order), the
same "one of" candidates and where the rotating node search stopped. Clusters of the benchmark's
generator, small (its standard, gang and hetero styles: a gang placed then rolled back, anti-affinity
among a job's pods), and one made here with topology spread, host ports, preferred node affinity,
PreferNoSchedule taints and gangs that do not fit."""
from __future__ import annotations

import copy
import random
import sys
from typing import Any

import pytest

from kexplain.admission.pipeline import admit
from kexplain.model.shapes import task_key
from kexplain.volcano import conf
from kexplain.volcano.api.node import NodeInfo
from kexplain.volcano.api.task import TaskStatus, new_task
from kexplain.volcano.cache import is_volcano_object
from kexplain.volcano.plugins import memo
from kexplain.volcano.run import run_kept
from kexplain.volcano.versions import DEFAULT
from tests.support.paths import ROOT

ZONES = ("z1", "z2", "z3")


def _bench(style: str, nodes: int, jobs: int, tasks: int) -> list[dict[str, Any]]:
    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.insert(0, str(ROOT / "benchmarks"))
    import volcano_bench
    return volcano_bench.build(volcano_bench.Shape(style, nodes, jobs, tasks, 6, 93))


def _node(i: int, rng: random.Random) -> dict[str, Any]:
    name = f"n{i:03d}"
    labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": ZONES[i % 3],
              "disk": "ssd" if i % 2 else "hdd"}
    spec: dict[str, Any] = {}
    if i % 7 == 0:
        spec["taints"] = [{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]
    cpu = rng.choice((4, 8))
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": spec,
            "status": {"allocatable": {"cpu": str(cpu), "memory": f"{4 * cpu}Gi", "pods": "20"},
                       "images": [{"names": [f"img-{i % 4}"], "sizeBytes": 300_000_000}]}}


def _role_spec(kind: str, job: str, cpu: int) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "image": f"img-{cpu % 4}",
                                 "resources": {"requests": {"cpu": str(cpu), "memory": f"{cpu}Gi"}}}
    spec: dict[str, Any] = {"schedulerName": "volcano", "containers": [container]}
    if kind == "spread":
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"job": job}}}]
    elif kind == "ports":
        container["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    elif kind == "preferred":
        spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "preference": {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}}]}}
    elif kind == "tolerant":
        spec["tolerations"] = [{"key": "spot", "operator": "Exists"}]
    return spec


def _job(index: int, rng: random.Random, kind: str = "", size: int = 0, cpu: int = 0, gang: bool = False,
         ) -> list[dict[str, Any]]:
    job = f"j{index:02d}"
    kind = kind or ("spread", "ports", "preferred", "tolerant", "plain")[index % 5]
    size, cpu = size or rng.randint(2, 14), cpu or rng.choice((1, 2, 3))
    group = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
             "metadata": {"name": job, "namespace": "default", "creationTimestamp": f"2026-01-01T00:{index:02d}:00Z"},
             "spec": {"minMember": size if gang or index % 4 == 0 else 1, "queue": "default"}}
    pods = [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"{job}-w-{i}", "namespace": "default", "uid": f"{job}-{i}", "labels": {"job": job},
                          "creationTimestamp": f"2026-01-01T00:{index:02d}:00Z",
                          "annotations": {"scheduling.k8s.io/group-name": job, "volcano.sh/task-spec": "w"}},
             "spec": _role_spec(kind, job, cpu), "status": {"phase": "Pending"}} for i in range(size)]
    return [group, *pods]


def _made(nodes: int, jobs: int, seed: int) -> list[dict[str, Any]]:
    """`jobs` jobs of five kinds, then a gang larger than the room left (placed, then discarded) and a
    job of its very shape that the discarded placements' nodes hold again."""
    rng = random.Random(seed)
    out = [_node(i, rng) for i in range(nodes)]
    for j in range(jobs):
        out += _job(j, rng)
    out += _job(jobs, rng, "plain", 400, 2, gang=True)
    out += _job(jobs + 1, rng, "plain", 60, 2)
    return out


def _session(objects: list[dict[str, Any]], enabled: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The document, each task's fit errors node by node, the decisions and the search's last index."""
    monkeypatch.setattr(memo, "ENABLED", enabled)
    objects = copy.deepcopy(objects)
    volcano = [o for o in objects if is_volcano_object(o)]
    admitted = admit([(o, "test") for o in objects if not is_volcano_object(o)], None)
    doc, ssn, _ = run_kept([o for o, _ in admitted.objects], volcano, conf.default(), DEFAULT)
    assert (ssn.memo is not None) == enabled
    errors = {uid: (fe.err, [(node, e.task, [(s.code, s.reason, s.plugin) for s in e.statuses])
                             for node, e in fe.nodes.items()])
              for job in ssn.jobs.values() for uid, fe in job.nodes_fit_errors.items()}
    decisions = {uid: (d.node, d.candidates, d.scores) for uid, d in ssn.decisions.items()}
    return {"doc": doc, "errors": errors, "decisions": decisions, "last": ssn.last_node_index}


CLUSTERS = {
    "standard": lambda: _bench("standard", 150, 24, 400),
    "gang": lambda: _bench("gang", 130, 1, 300),
    "hetero": lambda: _bench("hetero", 150, 24, 400),
    "made": lambda: _made(140, 30, 7),
}


@pytest.mark.parametrize("name", sorted(CLUSTERS))
def test_the_memo_changes_no_answer(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    objects = CLUSTERS[name]()
    kept = _session(objects, True, monkeypatch)
    plain = _session(objects, False, monkeypatch)
    assert kept["doc"]["pods"] == plain["doc"]["pods"]
    assert kept["doc"] == plain["doc"]
    assert kept["decisions"] == plain["decisions"]
    assert kept["errors"] == plain["errors"]
    assert kept["last"] == plain["last"]
    assert len(kept["decisions"]) > 100 and kept["errors"]      # (placements made, some tasks fit nowhere)


def test_a_shape_ignores_what_no_check_reads() -> None:
    spec = _role_spec("ports", "j", 2)
    a = {"spec": {**spec, "hostname": "a-0", "priorityClassName": "high"}, "status": {"phase": "Pending"}}
    b = copy.deepcopy(a)
    b["spec"].update(hostname="b-1", priorityClassName="low")
    b["spec"]["containers"][0].update(image="other", name="d", command=["run"])
    assert task_key(a) == task_key(b)
    b["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "3"
    assert task_key(a) != task_key(b)
    c = copy.deepcopy(a)
    c["spec"]["tolerations"] = [{"key": "spot", "operator": "Exists"}]
    assert task_key(a) != task_key(c)


def _cpu_task(name: str, cpu: str) -> Any:
    return new_task({"metadata": {"name": name, "namespace": "ns", "uid": name,
                                  "annotations": {"scheduling.k8s.io/group-name": "g"}},
                     "spec": {"containers": [{"resources": {"requests": {"cpu": cpu}}}]}, "status": {"phase": "Pending"}})


def test_a_node_change_is_seen_through_its_stamp() -> None:
    """The fits (and node scores) are kept per node `stamp`: every task added or removed gives the node a new
    one, so a node that a task left (a discarded statement) is asked again, not answered as it was with it."""
    node = NodeInfo.of({"metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "3", "memory": "1Gi", "pods": "10"}}})
    kept, asking, other = memo.ShapeMemo(1), _cpu_task("a", "2"), _cpu_task("b", "2")
    assert kept.fits(asking, [node]) == [(True, True)]
    other.status = TaskStatus.ALLOCATED
    node.add_task(other)
    assert kept.fits(asking, [node]) == [(False, False)]
    node.remove_task(other)
    assert kept.fits(asking, [node]) == [(True, True)]

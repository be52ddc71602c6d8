"""Kueue's verifying passes scoped to the cohort trees a change reaches (suggest/kueue_scope.py):
which parts a change reaches, and, on every bundled case and a cluster of two cohort trees,
the same verdict for every idea as the pass over everything."""
from __future__ import annotations

from pathlib import Path

import pytest

from kexplain.kueue.run import Settings, run_pass
from kexplain.kueue.versions import VERSIONS
from kexplain.load.manifests import objects_from_text
from kexplain.kueue.inputs import inputs_of
from kexplain.suggest import kueue as fixes
from kexplain.suggest.kueue_scope import World
from tests.kueue.builders import NOW, cluster_queue, flavor, local_queue, run, workload
from tests.support.paths import TESTS

CASES = sorted(p for p in (TESTS / "kueue" / "cases").iterdir() if (p / "workloads.yaml").is_file())


def _two_trees() -> list[str]:
    """Two cohorts of two ClusterQueues each, a LocalQueue per ClusterQueue, one Workload
    admitted in each ClusterQueue and one pending behind it."""
    docs = [flavor("default")]
    for tree in ("a", "b"):
        for i in (1, 2):
            cq = f"cq-{tree}{i}"
            docs += [cluster_queue(cq, {"default": {"cpu": "4"}}, cohort=f"cohort-{tree}"),
                     local_queue(f"q-{tree}{i}", cq),
                     workload(f"old-{tree}{i}", f"q-{tree}{i}", {"cpu": "3"}, admitted_in=cq, uid=f"u-{tree}{i}")]
    return docs


def _pending() -> tuple[str, ...]:
    return tuple(workload(f"w-{t}{i}", f"q-{t}{i}", {"cpu": "3"}) for t in ("a", "b") for i in (1, 2))


def _verdicts(first, scoped: bool) -> list:
    verifier = fixes.Verifier(first, 10_000, scoped=scoped)
    out = []
    for ctx in fixes.contexts(first):
        for idea in fixes._turns(ctx):
            verdict = verifier.verify(idea.change, ctx.workload.key)
            out.append((ctx.workload.key, repr(idea.change), verdict and (verdict.admitted, verdict.cluster_queue,
                                                                          verdict.flavors)))
    return out


def _quota(cq: str, value: str) -> dict:
    return {"op": "replace", "object": {"kind": "ClusterQueue", "name": cq},
            "path": "/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota", "value": value}


def test_a_quota_change_reaches_its_cohort_tree_only() -> None:
    first = run(*_two_trees(), submitted=_pending())
    verifier = fixes.Verifier(first, 5)
    world = verifier.world
    changed, created, pairs = verifier._changed((_quota("cq-a1", "8"),))
    parts = world.parts(pairs)
    assert parts == {world.part_of("cq:cq-a1")} and world.part_of("cq:cq-a2") in parts
    assert world.part_of("cq:cq-b1") not in parts
    submitted, cluster = world.objects(parts, changed, created)
    names = {o["metadata"]["name"] for o, _ in [*submitted, *cluster]}
    assert {"cq-a1", "cq-a2", "q-a1", "old-a2", "w-a1", "default"} <= names
    assert not names & {"cq-b1", "q-b2", "old-b1", "w-b2"}
    verdict = verifier.verify((_quota("cq-a1", "6"),), "default/w-a1")
    assert verdict is not None and verdict.admitted == ["default/w-a1"] and verdict.cluster_queue == "cq-a1"


def test_a_workload_moved_to_another_tree_reaches_both() -> None:
    first = run(*_two_trees(), submitted=_pending())
    verifier = fixes.Verifier(first, 5)
    move = {"op": "replace", "object": {"kind": "Workload", "namespace": "default", "name": "w-a1"},
            "path": "/spec/queueName", "value": "q-b1"}
    parts = verifier.world.parts(verifier._changed((move,))[2])
    assert parts == {verifier.world.part_of("cq:cq-a1"), verifier.world.part_of("cq:cq-b1")}


def test_shared_objects_reach_the_parts_that_read_them() -> None:
    world = World([], objects_from_text("---\n".join([*_two_trees(), local_queue("q-x", "cq-b2", namespace="team")]),
                                        "cluster.yaml"))
    label = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "labels": {"a": "b"}}}
    assert world.parts([(1, None, label)]) == {world.part_of("cq:cq-b2")}
    rf = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}}
    assert world.parts([(1, None, rf)]) == {world.part_of("cq:cq-a1"), world.part_of("cq:cq-b1")}
    wpc = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": "p"},
           "value": 1}
    assert world.parts([(1, None, wpc)]) is None            # read by every part: the whole pass


def test_two_trees_same_verdicts() -> None:
    first = run(*_two_trees(), submitted=_pending())
    scoped = _verdicts(first, True)
    assert any(v is not None for _, _, v in scoped)
    assert scoped == _verdicts(first, False)


@pytest.mark.parametrize("case", CASES, ids=[p.name for p in CASES])
@pytest.mark.parametrize("version", ["0.17", "0.19"])
def test_bundled_cases_same_verdicts(case: Path, version: str) -> None:
    inputs = inputs_of(objects_from_text((case / "workloads.yaml").read_text(), "workloads.yaml"),
                       objects_from_text((case / "cluster.yaml").read_text(), "cluster.yaml"))
    first = run_pass(inputs, Settings(VERSIONS[version], NOW))
    assert _verdicts(first, True) == _verdicts(first, False)


def test_a_workload_no_part_names_turns_scoping_off() -> None:
    """A submitted Pod named by generateName: its Workload's name comes from the name the API
    server generates, which the parts (read from the objects as written) do not know; no pass
    is scoped then, and the verdicts are the whole pass's."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {generateName: gen-, namespace: default,"
           " labels: {kueue.x-k8s.io/queue-name: q-a1}}\nspec:\n  containers:\n"
           "  - {name: c, image: busybox, resources: {requests: {cpu: '3'}}}\n")
    first = run(*_two_trees(), submitted=(pod,))
    assert not fixes.Verifier(first, 5).scoped
    assert fixes.Verifier(run(*_two_trees(), submitted=_pending()), 5).scoped
    assert _verdicts(first, True) == _verdicts(first, False)


@pytest.mark.parametrize("obj", [
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": "prov"}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ProvisioningRequestConfig", "metadata": {"name": "cfg"}},
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Topology", "metadata": {"name": "dc"}},
    {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"},
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"}},
])
def test_what_every_clusterqueue_may_read_is_in_every_part(obj) -> None:
    """Admission checks and their configs, topologies and Kueue's Configuration link no parts: a
    pass run again over some parts reads them all (else a ClusterQueue with a check is inactive)."""
    from kexplain.suggest.kueue_scope import links
    assert links(obj, submitted=False) == []
    assert links({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other"}}, submitted=False) is None

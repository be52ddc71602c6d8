"""The whole chain on an AI cluster (fixtures/kueue/ai), for a Job, a pod group, a JobSet and a
RayJob: (a) admitted by Kueue with a topology assignment (TAS, one rack) → its pods pinned there →
the scheduler places them on the domain's nodes; (b) held by the ProvisioningRequest check → the
Cluster Autoscaler's answer to the request (group a100 cannot take all the pods at once). Every
output says the same: `-o json` is the reference, and the text, the page (`--html`) and lint carry
the same Kueue verdict and words, the same topology, the same nodes and the same CA answer."""
from __future__ import annotations

import json
import re
from functools import lru_cache

import pytest

from tests.support.cli_helpers import run_cli
from tests.support.kueue_chain_facts import Facts, flat, json_facts, lint_facts, page_facts, page_text, text_facts
from tests.support.paths import FIXTURES

CASE = FIXTURES / "kueue" / "ai"
CLUSTER = ("--nodes", str(CASE / "cluster.yaml"), "--node-groups", str(CASE / "node-groups.yaml"))
KINDS = ("job", "pod-group", "jobset", "rayjob")
CASES = [f"{kind}-{state}" for kind in KINDS for state in ("tas", "held")]
PODS = {"job": 2, "pod-group": 2, "jobset": 2, "rayjob": 2}          # the GPU pods of each (a)
HELD_PODS = {"job": 4, "pod-group": 4, "jobset": 4, "rayjob": 4}     # and of each (b)
GPU_POD_SET = {"job": "main", "jobset": "workers", "rayjob": "gpu", "pod-group": None}    # (the group's one)
CA_SAYS = "Provisioned=False CapacityIsNotFound: Capacity is not found, CA will try to find it later."


def fixture(case: str) -> str:
    return str(CASE / f"{case}.yaml")


@lru_cache(maxsize=None)
def explained(case: str, *flags: str) -> tuple[int, str, str]:
    """`kexplain FIXTURE --nodes cluster.yaml --node-groups node-groups.yaml FLAGS`, run once a case."""
    return run_cli(fixture(case), *CLUSTER, *flags, width=100)


@lru_cache(maxsize=None)
def reference(case: str) -> Facts:
    code, out, err = explained(case, "-o", "json")
    assert code == (0 if case.endswith("-tas") else 1), err
    return json_facts(json.loads(out))


@pytest.mark.parametrize("case", [c for c in CASES if c.endswith("-tas")])
def test_admitted_with_a_topology_its_pods_run_on_the_domains_nodes(case: str) -> None:
    facts = reference(case)
    assert facts.verdict == "Admitted" and facts.cluster_queue == "tas-cq"
    gpu_hosts = {host for host, _ in facts.domains if facts.nodes.count(host)}
    assert len(facts.nodes) >= PODS[case.split("-tas")[0]]
    assert set(facts.nodes) <= {host for host, _ in facts.domains}        # where TAS put them, nowhere else
    assert gpu_hosts and not facts.autoscaler


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.xfail(
    strict=True, reason="kexplain/kueue/controller/jobs/podgroup.py PodGroup.pod_sets drops the pods' "
                        "kueue.x-k8s.io/podset-required-topology (Kueue's constructPodSet reads it): the group "
                        "is placed as an implicit request, across racks")) if c == "pod-group-tas" else c
                                  for c in CASES if c.endswith("-tas")])
def test_a_required_rack_keeps_the_gpu_pods_in_one_rack(case: str) -> None:
    _, out, _ = explained(case, "-o", "json")
    answer = json.loads(out)["placements"][0]["kueue"]
    wanted = GPU_POD_SET[case.split("-tas")[0]]
    [pod_set] = [ps for ps in answer["podSets"] if wanted in (None, ps["name"])]
    racks = {d["values"][0].rsplit("-", 1)[0] for d in pod_set["topology"]["domains"]}
    assert len(racks) == 1, racks


@pytest.mark.parametrize("case", [c for c in CASES if c.endswith("-held")])
def test_held_by_the_check_ca_answers_the_request(case: str) -> None:
    facts = reference(case)
    assert facts.verdict == "QuotaReserved" and facts.cluster_queue == "provisioned-cq"
    assert facts.autoscaler == CA_SAYS and facts.nodes == () and facts.domains == ()
    _, out, _ = explained(case)
    pods = HELD_PODS[case.split("-held")[0]]
    assert f"node group a100 would take only 2 of the {pods} pods (2 nodes): all or nothing, so none is asked" \
        in " ".join(out.split())


@pytest.mark.parametrize("case", CASES)
def test_the_text_says_what_the_json_says(case: str) -> None:
    _, out, _ = explained(case)
    assert text_facts(out, reference(case)) == reference(case)


@pytest.mark.parametrize("case", CASES)
def test_the_page_says_what_the_json_says(case: str, tmp_path) -> None:
    page = tmp_path / "page.html"
    code, _, err = run_cli(fixture(case), *CLUSTER, "--html", str(page))
    assert code == explained(case)[0], err
    want = reference(case)
    assert page_facts(page.read_text(), want) == Facts(**{**want.__dict__, "nodes": tuple(sorted(set(want.nodes)))})


@pytest.mark.parametrize("case", CASES)
def test_lint_says_what_the_json_says(case: str) -> None:
    code, out, err = run_cli("lint", fixture(case), *CLUSTER, "-f", "json")
    assert out, err
    assert lint_facts(json.loads(out), reference(case)) == reference(case)
    assert code == 0      # a held job is a warning (kueue-held, gated), never an error nor all clear


@pytest.mark.parametrize("case", CASES)
def test_the_page_names_the_job_as_the_text_does(case: str, tmp_path) -> None:
    """Kueue's sentence on the page opens as the text's does: with the job Kueue answered for
    ("(RayJob ml/tune)", "(JobSet ml/pretrain)", "(pod group dist, Pod ml/dist-0)") where the text names it."""
    page = tmp_path / "page.html"
    run_cli(fixture(case), *CLUSTER, "--html", str(page))
    _, out, _ = explained(case)
    heads = re.findall(r"Kueue v0\.17\.8, LocalQueue [\w-]+(?: \([^)]*\))?:", flat(out))
    assert heads and heads[0] in page_text(page.read_text())
    if case.endswith("-held"):      # the title says what holds it, as the text does: its admission checks
        workload = reference(case).workload
        assert f"held by Kueue (Workload {workload} holds quota, waits for its admission checks)" in page.read_text()


@pytest.mark.parametrize("case", CASES)
def test_kueue_counts_each_job_once(case: str) -> None:
    """`kexplain kueue`: a pod group is one job (one Workload), as a JobSet or a RayJob is."""
    _, out, err = run_cli("kueue", fixture(case), *CLUSTER)
    assert "Kueue v0.17.8 (818686e072da52af3564ba21f37f826fe05190af): 1 job submitted;" in flat(out), err

"""The whole chain on an AI cluster (fixtures/kueue/ai), for a Job, a pod group, a JobSet and a
RayJob: (a) admitted by Kueue with a topology assignment (TAS, one rack) → its pods pinned there →
the scheduler places them on the domain's nodes; (b) held by the ProvisioningRequest check → the
Cluster Autoscaler's answer to the request (group a100 cannot take all the pods at once). Every
output says the same: `-o json` is the reference, and the text, the page (`--html`), lint and live
mode (the same cluster served by the stand-in API server) carry the same Kueue verdict and words,
the same topology, the same nodes and the same CA answer."""
from __future__ import annotations

import json
import re
from functools import lru_cache

import pytest
import yaml

from tests.support.cli_helpers import run_cli
from tests.support.fixture_cluster import serve
from tests.support.kueue_chain_facts import (Facts, flat, held_facts, json_facts, lint_facts, live_facts, page_facts,
                                             page_text, text_facts)
from tests.support.live_server import isolate, recorded_api, run_cli as live_cli
from tests.support.paths import DATA, FIXTURES

CASE = FIXTURES / "kueue" / "ai"
# CA's node groups, CA run with --enable-provisioning-requests (its default is false)
CA = ("--node-groups", str(CASE / "node-groups.yaml"), "--autoscaler-config", str(CASE / "autoscaler-config.yaml"))
CLUSTER = ("--nodes", str(CASE / "cluster.yaml"), *CA)
KINDS = ("job", "pod-group", "jobset", "rayjob")
CASES = [f"{kind}-{state}" for kind in KINDS for state in ("tas", "held")]
PODS = {"job": 2, "pod-group": 2, "jobset": 2, "rayjob": 2}          # the GPU pods of each (a)
HELD_PODS = {"job": 4, "pod-group": 4, "jobset": 4, "rayjob": 4}     # and of each (b)
JOBS = {"job": "Job ml/finetune", "pod-group": "pod group ml/sweep", "jobset": "JobSet ml/distill",
        "rayjob": "RayJob ml/sweep"}     # what Kueue holds in each *-held.yaml
GPU_POD_SET = {"job": "main", "jobset": "workers", "rayjob": "gpu", "pod-group": None}    # (the group's one)
CA_SAYS = "Provisioned=False CapacityIsNotFound: Capacity is not found, CA will try to find it later."


def fixture(case: str) -> str:
    return str(CASE / f"{case}.yaml")


@lru_cache(maxsize=None)
def explained(case: str, *flags: str) -> tuple[int, str, str]:
    """`kexplain FIXTURE --nodes cluster.yaml --node-groups ... --autoscaler-config ... FLAGS`, run once a case."""
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


@pytest.mark.parametrize("case", [c for c in CASES if c.endswith("-tas")])
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
    code, out, err = run_cli("lint", fixture(case), *CLUSTER, "-o", "json")
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
    if case.endswith("-held"):      # the title says what Kueue holds (a pod group: the group) and why, as the text does
        workload = reference(case).workload
        job = JOBS[case.split("-held")[0]]
        assert f"<title>kexplain: {job} held by Kueue (Workload {workload} holds quota, waits for its admission " \
               "checks)</title>" in page.read_text()


@pytest.mark.parametrize("case", CASES)
def test_kueue_counts_each_job_once(case: str) -> None:
    """`kexplain kueue`: a pod group is one job (one Workload), as a JobSet or a RayJob is."""
    _, out, err = run_cli("kueue", fixture(case), *CLUSTER)
    assert "Kueue v0.17.8 (818686e072da52af3564ba21f37f826fe05190af): 1 job submitted;" in flat(out), err


# -- live: the same cluster served by the stand-in API server (tests/support/fixture_cluster.py) --------

HELD_WORKLOADS = DATA / "kueue-ai" / "held-workloads.yaml"
GROUPS = {"pod-group-tas": ("dist-0", "dist-1"), "pod-group-held": ("sweep-0", "sweep-1", "sweep-2", "sweep-3")}
OWNERS = {"job-held": "Job", "jobset-held": "JobSet", "rayjob-held": "RayJob"}


@pytest.mark.parametrize("case", sorted(GROUPS))
def test_live_a_groups_pods_say_what_the_files_say(case: str, tmp_path, capsys, monkeypatch) -> None:
    """`kexplain pod --pending --node-groups` over the group's pods, read from the cluster the files
    describe: the same Workload, verdict, topology, nodes (in the scheduler's queue) and CA answer as
    `kexplain FILE -o json`; and `kexplain pod NAME` of each says the same of Kueue."""
    isolate(monkeypatch, tmp_path / "home")
    with recorded_api(tmp_path) as api:
        serve(api, [CASE / "cluster.yaml", CASE / f"{case}.yaml"])
        code, out, err = live_cli(capsys, "pod", "--pending", "-n", "ml", "--kubeconfig", api.kubeconfig,
                                  *CA, "-o", "json")
        traces = json.loads(out)["items"]
        assert [t["pod"]["name"] for t in traces] == list(GROUPS[case]), err
        assert live_facts(traces, reference(case)) == reference(case)
        for name in GROUPS[case]:
            code, out, err = live_cli(capsys, "pod", name, "-n", "ml", "--kubeconfig", api.kubeconfig,
                                      *CA, "-o", "json")
            alone = live_facts([json.loads(out)], reference(case))
            assert (alone.verdict, alone.said, alone.domains, alone.autoscaler, code) == \
                (reference(case).verdict, reference(case).said, reference(case).domains, reference(case).autoscaler,
                 explained(case)[0]), err


@pytest.mark.parametrize("case", sorted(OWNERS))
def test_live_a_held_jobs_workload_says_what_the_files_say(case: str, tmp_path, capsys, monkeypatch) -> None:
    """The job held by its check, read live as its stored Workload (quota reserved, `capacity` Pending;
    no pod yet): `kexplain pod -A --node-groups` lists it with Kueue's answer, CA answering the
    check's request as for the file, never "No pod is Pending" alone."""
    isolate(monkeypatch, tmp_path / "home")
    stored = [w for w in yaml.safe_load_all(HELD_WORKLOADS.read_text())
              if w["metadata"]["ownerReferences"][0]["kind"] == OWNERS[case]]
    (tmp_path / "workload.yaml").write_text(yaml.safe_dump_all(stored))
    with recorded_api(tmp_path) as api:
        serve(api, [CASE / "cluster.yaml", tmp_path / "workload.yaml"])
        code, out, err = live_cli(capsys, "pod", "-A", "--kubeconfig", api.kubeconfig, *CA,
                                  "-o", "json")
        [item] = json.loads(out)["kueueHeld"]
        assert code == 1, err
        assert held_facts(item, reference(case)) == reference(case)
        files = [p["kueue"] for p in json.loads(explained(case, "-o", "json")[1])["placements"] if p.get("kueue")]
        assert item["kueue"]["reservedFlavors"] == files[0]["reservedFlavors"]     # (the flavors its quota holds)
        _, text, _ = live_cli(capsys, "pod", "-A", "--kubeconfig", api.kubeconfig, *CA)
    want = reference(case)
    assert f"{OWNERS[case]} ml/" in text and want.workload in text and "QuotaReserved" in text
    assert "quota reserved on flavor a100" in flat(text)
    assert want.autoscaler.split(": ", 1)[1] in flat(text)


# -- Karpenter: admitted on quota alone (LocalQueue burst, no check), the pods wait for a node ----------

KARPENTER = ("--nodes", str(CASE / "cluster.yaml"), "--nodes", str(CASE / "karpenter.yaml"))


def burst(kind: str, folder) -> str:
    """The kind's held job submitted to LocalQueue burst instead: Kueue admits it, a100-1 has no GPU free."""
    path = folder / f"{kind}-burst.yaml"
    path.write_text((CASE / f"{kind}-held.yaml").read_text().replace("queue-name: provisioned", "queue-name: burst"))
    return str(path)


@pytest.mark.parametrize("kind", KINDS)
def test_admitted_without_room_karpenter_answers_in_every_output(kind: str, tmp_path) -> None:
    """Kueue admits it in burst-cq, its GPU pods fit no node, Karpenter launches a p4d NodeClaim of
    NodePool a100 for each: JSON, text and page say so; lint says them unschedulable without
    `no-nodepool` (a NodePool takes them) and with Kueue's answer."""
    job, page = burst(kind, tmp_path), tmp_path / "page.html"
    code, out, err = run_cli(job, *KARPENTER, "-o", "json")
    doc = json.loads(out)
    assert {(p["kueue"]["verdict"], p["kueue"]["clusterQueue"]) for p in doc["placements"]} == {("Admitted", "burst-cq")}
    claimed = [p for p in doc["karpenter"]["pods"] if p["result"] == "NewNodeClaim" and p["nodePool"] == "a100"]
    assert len(claimed) == HELD_PODS[kind] == len(doc["karpenter"]["pods"]) and code == 1, err
    _, text, _ = run_cli(job, *KARPENTER, width=100)
    said = f"Karpenter: {len(claimed)} new NodeClaims; pods: {len(claimed)} NewNodeClaim"
    assert said in flat(text) and "is admitted in ClusterQueue burst-cq" in flat(text)
    run_cli(job, *KARPENTER, "--html", str(page))
    words = page_text(page.read_text())        # (its section's heading, then the same sentence)
    assert f"Karpenter {len(claimed)} new NodeClaims ; pods: {len(claimed)} NewNodeClaim" in words
    assert "is admitted in ClusterQueue burst-cq" in words
    _, report, _ = run_cli("lint", job, *KARPENTER, "-o", "json")
    findings = json.loads(report)["findings"]
    stuck = [f for f in findings if f["rule"] == "unschedulable"]
    assert stuck and {f["details"]["kueue"]["clusterQueue"] for f in stuck} == {"burst-cq"}
    assert sum(f["details"]["replicas"] - f["details"]["fit"] for f in stuck) == len(claimed)
    assert not [f for f in findings if f["rule"] == "no-nodepool"]


def test_a_job_waiting_for_its_checks_says_the_flavor_its_quota_is_reserved_on() -> None:
    """Held by its check, the Job's quota is reserved on the A100 flavor: the JSON and the text say so,
    and the text that its template is explained on that flavor's nodes (a100-1, whose GPUs are taken)."""
    _, out, _ = explained("job-held", "-o", "json")
    answer = json.loads(out)["placements"][0]["kueue"]
    assert answer["verdict"] == "QuotaReserved"
    assert answer["reservedFlavors"] == {"main": {"cpu": "a100", "memory": "a100", "nvidia.com/gpu": "a100"}}
    words = flat(explained("job-held")[1])
    assert "Pod set main: quota reserved on flavor a100" in words
    assert "Its pod template, explained on the reserved flavors' nodes" in words
    assert "Rejected nodes, by reason" in words and "Feasible nodes" not in words
    assert "0/9 nodes are available: 1 Insufficient nvidia.com/gpu, 8 node(s) didn't match Pod's node " \
           "affinity/selector" in words


def test_lint_offers_no_fix_of_a_held_jobs_template() -> None:
    """Its template meets a100-1 full: lint says so, but offers no fix of the template (the flavor's
    node selector is Kueue's, not the template's), as `kexplain FILE` offers none for a held job."""
    _, out, err = run_cli("lint", fixture("job-held"), *CLUSTER, "-o", "json")
    [finding] = [f for f in json.loads(out)["findings"] if f["rule"] == "kueue-held"]
    assert "its pod, once resumed: unschedulable: 0/9 nodes are available" in finding["message"], err
    assert not finding.get("suggestions")


ADMITTED = {"job-tas": DATA / "kueue-ai" / "admitted-job.yaml", "jobset-tas": DATA / "kueue-ai" / "admitted-jobset.yaml",
            "rayjob-tas": DATA / "kueue-ai" / "admitted-rayjob.yaml"}


@pytest.mark.parametrize("case", sorted(ADMITTED))
def test_live_an_admitted_jobs_pods_say_what_the_files_say(case: str, tmp_path, capsys, monkeypatch) -> None:
    """The job once Kueue admitted it, read live: its Workload stored admitted with its topology, its
    pods (no queue-name label: a Job's, a JobSet's Jobs', a RayJob's RayCluster's and submitter's) pending.
    `kexplain pod --pending` links each pod to its Workload: the same Workload, verdict, topology and
    nodes as `kexplain FILE -o json`; `kexplain pod NAME` of each says the same of Kueue, in JSON and text."""
    isolate(monkeypatch, tmp_path / "home")
    names = [d["metadata"]["name"] for d in yaml.safe_load_all(ADMITTED[case].read_text()) if d["kind"] == "Pod"]
    want = reference(case)
    with recorded_api(tmp_path) as api:
        serve(api, [CASE / "cluster.yaml", ADMITTED[case]])
        code, out, err = live_cli(capsys, "pod", "--pending", "-n", "ml", "--kubeconfig", api.kubeconfig,
                                  *CA, "-o", "json")
        traces = json.loads(out)["items"]
        assert sorted(t["pod"]["name"] for t in traces) == sorted(names), err
        assert live_facts(traces, want) == want
        for name in names:
            code, out, err = live_cli(capsys, "pod", name, "-n", "ml", "--kubeconfig", api.kubeconfig, *CA, "-o", "json")
            alone = live_facts([json.loads(out)], want)
            assert (alone.verdict, alone.workload, alone.said, code) == (want.verdict, want.workload, want.said, 0), err
            assert set(alone.domains) <= set(want.domains) and alone.domains
            _, text, _ = live_cli(capsys, "pod", name, "-n", "ml", "--kubeconfig", api.kubeconfig, *CA)
            assert want.said in flat(text)


BURST = {kind: DATA / "kueue-ai" / f"burst-{kind}.yaml" for kind in KINDS if kind != "pod-group"}


@pytest.mark.parametrize("kind", sorted(BURST))
def test_live_admitted_without_room_karpenter_answers_as_for_the_files(kind: str, tmp_path, capsys,
                                                                      monkeypatch) -> None:
    """The burst job admitted (its Workload stored in burst-cq), its pods pending, Karpenter's NodePool and
    EC2NodeClass read from the cluster: `kexplain pod --pending` says Kueue admits each pod in burst-cq and
    Karpenter launches the same NodeClaims of NodePool a100 as `kexplain FILE --nodes karpenter.yaml -o json`;
    `kexplain pod NAME` of a GPU pod says so too, in JSON and text."""
    _, out, _ = run_cli(burst(kind, tmp_path), *KARPENTER, "-o", "json")
    want = json.loads(out)
    claimed = sorted((p["result"], p.get("nodePool")) for p in want["karpenter"]["pods"])
    isolate(monkeypatch, tmp_path / "home")
    with recorded_api(tmp_path) as api:
        serve(api, [CASE / "cluster.yaml", CASE / "karpenter.yaml", BURST[kind]])
        code, out, err = live_cli(capsys, "pod", "--pending", "-n", "ml", "--kubeconfig", api.kubeconfig, "-o", "json")
        doc = json.loads(out)
        assert {(t["kueue"]["verdict"], t["kueue"]["clusterQueue"]) for t in doc["items"]} == {("Admitted", "burst-cq")}
        # (a pending pod the scheduler places, a RayJob's head or submitter: Karpenter's ExistingNode, not a file's)
        placed = {f"ml/{t['pod']['name']}" for t in doc["items"] if t["result"]["status"] == "Scheduled"}
        answers = doc["karpenter"]["pods"]
        assert {p["pod"] for p in answers if p["result"] == "ExistingNode"} == placed, err
        assert sorted((p["result"], p.get("nodePool")) for p in answers if p["pod"] not in placed) == claimed
        assert code == 1        # (as for the files: the GPU pods wait for their nodes)
        gpu = next(t["pod"]["name"] for t in doc["items"] if t["result"]["status"] != "Scheduled")
        _, out, err = live_cli(capsys, "pod", gpu, "-n", "ml", "--kubeconfig", api.kubeconfig, "-o", "json")
        alone = json.loads(out)
        assert alone["kueue"]["clusterQueue"] == "burst-cq" and alone["karpenter"], err
        _, text, _ = live_cli(capsys, "pod", "--pending", "-n", "ml", "--kubeconfig", api.kubeconfig)
    said = re.search(r"Karpenter: (\d+) new NodeClaims; pods: [^.]*?(\d+) NewNodeClaim", flat(text))
    assert said and said.groups() == (str(len(claimed)),) * 2 and "Kueue admits it in ClusterQueue burst-cq" in flat(text)

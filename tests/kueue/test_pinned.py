"""A Job's or a JobSet's Jobs' copies pinned as Kueue's topology ungater pins their pods
(`kexplain.kueue.pinned`, carried to the Job controller's copies by
`controllers.workloads.COPY_NODE_SELECTORS`): copy i of an Indexed Job is completion index i, of a
JobSet's Job j rank i + j x pods per Job; a NonIndexed Job's fill the domains in order."""
from __future__ import annotations

from kexplain.controllers.workloads import COPY_NODE_SELECTORS, copies_of, copy_node_selectors, \
    encode_copy_node_selectors
from kexplain.kueue.apis.topology import DomainAssignment, IndexLabels, TopologyAssignment
from kexplain.kueue.controller.tas.ungater import Ranks
from kexplain.kueue.pinned import pin
from kexplain.kueue.podset import PodSetInfo

HOST = "kubernetes.io/hostname"
ASSIGNMENT = TopologyAssignment((HOST,), (DomainAssignment(("n1",), 1), DomainAssignment(("n2",), 2),
                                          DomainAssignment(("n3",), 1)))
JOBSET = IndexLabels("batch.kubernetes.io/job-completion-index", "jobset.sigs.k8s.io/job-index", 2)


def _job(name: str, parallelism: int, mode: str | None = None, job_index: str | None = None) -> dict:
    labels = {"jobset.sigs.k8s.io/job-index": job_index} if job_index is not None else {}
    spec = {"parallelism": parallelism, **({"completionMode": mode} if mode else {})}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "d", "labels": labels},
            "spec": spec}


def _hosts(job: dict) -> list[str]:
    return [s.get(HOST, "") for s in copy_node_selectors(job["metadata"])]


def test_a_jobsets_jobs_each_get_the_domains_of_their_ranks() -> None:
    jobs = [_job("js-w-1", 2, "Indexed", "1"), _job("js-w-0", 2, "Indexed", "0")]      # (any order)
    pin(jobs, PodSetInfo("w", 4, assignment=ASSIGNMENT, index=JOBSET, ranks=Ranks(0, 4)))
    assert _hosts(jobs[0]) == ["n2", "n3"] and _hosts(jobs[1]) == ["n1", "n2"]


def test_an_indexed_and_a_nonindexed_job() -> None:
    job = _job("j", 4, "Indexed")
    pin([job], PodSetInfo("main", 4, assignment=ASSIGNMENT, index=IndexLabels(JOBSET.pod_index), ranks=Ranks(0, 4)))
    assert _hosts(job) == ["n1", "n2", "n2", "n3"]
    plain = _job("p", 3)
    pin([plain], PodSetInfo("main", 4, assignment=ASSIGNMENT, index=IndexLabels(JOBSET.pod_index), ranks=Ranks(0, 4)))
    assert _hosts(plain) == ["n1", "n2", "n2"]      # no index: the domains filled in order
    unpinned = _job("u", 2)
    pin([unpinned], PodSetInfo("main", 2))          # not admitted by TAS: nothing carried
    assert COPY_NODE_SELECTORS not in (unpinned["metadata"].get("annotations") or {})


def test_the_copies_carry_their_selectors_compactly() -> None:
    text = encode_copy_node_selectors([{HOST: "n1"}] * 500 + [{}] + [{HOST: "n2"}])
    assert text == '{"levels":["kubernetes.io/hostname"],"domains":[["n1"],["n2"]],"runs":[[0,500],[-1,1],[1,1]]}'
    job = _job("j", 502, "Indexed")
    job["metadata"]["annotations"] = {COPY_NODE_SELECTORS: text}
    copies = copies_of(job)
    pod = copies.apply({"metadata": {}, "spec": {"nodeSelector": {"pool": "h100"}}}, 501)
    assert pod["spec"]["nodeSelector"] == {"pool": "h100", HOST: "n2"}
    assert copies.apply({"metadata": {}, "spec": {}}, 500)["spec"] == {}
    job["metadata"]["annotations"] = {COPY_NODE_SELECTORS: "{not json"}
    assert copy_node_selectors(job["metadata"]) == ()

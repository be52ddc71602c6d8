"""`operator_pods.pin_component`: an AppWrapper's component whose pod set TAS admitted has its pods
given their domains by rank (the pod set's index labels), as Kueue's topology ungater gives them: a
Job's copies (by completion index), a Pod's own node selector; another kind's left to its controller."""
from __future__ import annotations

from kexplain.controllers.workloads import copy_node_selectors
from kexplain.kueue.apis.topology import DomainAssignment, IndexLabels, TopologyAssignment
from kexplain.kueue.controller.jobframework.tas import JOB_COMPLETION_INDEX
from kexplain.kueue.controller.tas.ungater import Ranks
from kexplain.kueue.operator_pods import pin_component
from kexplain.kueue.podset import PodSetInfo

HOST = "kubernetes.io/hostname"
TWO_HOSTS = TopologyAssignment((HOST,), (DomainAssignment(("n1",), 1), DomainAssignment(("n2",), 2)))


def _info(count: int, assignment: TopologyAssignment | None) -> PodSetInfo:
    return PodSetInfo("aw-0", count, assignment=assignment, index=IndexLabels(JOB_COMPLETION_INDEX),
                      ranks=Ranks(0, count))


def test_an_indexed_job_components_copies_get_their_ranks_hosts() -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train"},
           "spec": {"completionMode": "Indexed", "parallelism": 3, "completions": 3, "template": {"spec": {}}}}
    pin_component(job, "template.spec.template", _info(3, TWO_HOSTS))
    assert copy_node_selectors(job["metadata"]) == ({HOST: "n1"}, {HOST: "n2"}, {HOST: "n2"})


def test_a_pod_component_gets_its_domains_labels() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}
    pin_component(pod, "template", _info(1, TopologyAssignment((HOST,), (DomainAssignment(("n2",), 1),))))
    assert pod["spec"]["nodeSelector"] == {HOST: "n2"}


def test_other_components_and_pod_sets_without_an_assignment_are_left_alone() -> None:
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {}}
    pin_component(deployment, "template.spec.template", _info(3, TWO_HOSTS))
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}
    pin_component(pod, "template", _info(1, None))
    assert deployment == {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {}}
    assert pod["spec"] == {}

"""The default LocalQueue (kexplain/kueue/controller/jobframework/defaults.py): Kueue's webhooks label
a job created without a queue name with `default` when its namespace has a LocalQueue so named."""
from __future__ import annotations

import yaml

from kexplain.kueue.config_file import submitted_of
from kexplain.kueue.controller.jobframework.defaults import apply_default_local_queue, default_queue_namespaces
from kexplain.kueue.controller.jobframework.reconciler import NOT_MANAGED
from kexplain.load.manifests import objects_from_text
from tests.kueue.builders import local_queue
from tests.kueue.test_config_management import QUEUE, job, outcomes, pod

DEFAULT_LQ = local_queue("default", "cq", namespace="team-a")


def test_a_job_without_a_queue_name_goes_to_its_namespaces_default_local_queue() -> None:
    got = outcomes(DEFAULT_LQ, submitted=(job("plain", ns="team-a"), job("named", QUEUE, ns="team-a")))
    plain, done = got["team-a/plain"]
    assert plain.created and plain.workload.spec.queue_name == "default"
    assert done.workloads[plain.workload.meta.key].find("QuotaReserved").status == "True"
    assert got["team-a/named"][0].workload.spec.queue_name == "q"      # (a queue name given is kept)


def test_without_a_default_local_queue_the_job_runs_as_written() -> None:
    got = outcomes(DEFAULT_LQ, submitted=(job("plain"),))       # (namespace default has none)
    assert got["default/plain"][0].error == NOT_MANAGED and got["default/plain"][0].unmanaged


def test_a_pod_and_a_job_owned_by_a_managed_kind_are_not_defaulted() -> None:
    namespaces = frozenset({"default"})
    bare = yaml.safe_load(pod("p"))
    assert apply_default_local_queue(bare, namespaces) is bare
    owned = yaml.safe_load(job("child"))
    owned["metadata"]["ownerReferences"] = [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                                            "name": "js", "uid": "u", "controller": True}]
    assert apply_default_local_queue(owned, namespaces) is owned
    plain = yaml.safe_load(job("plain"))
    assert apply_default_local_queue(plain, namespaces)["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "default"}
    assert "labels" not in plain["metadata"] or plain["metadata"]["labels"] == {}      # (a copy)


def test_the_passes_take_the_unlabelled_jobs_when_a_default_local_queue_is_there() -> None:
    context = objects_from_text(DEFAULT_LQ, "c.yaml")
    assert default_queue_namespaces(context) == {"team-a"}
    jobs = [({"metadata": {"namespace": "team-a"}}, None), ({"metadata": {"namespace": "team-a"}}, None),
            ({"metadata": {"namespace": "team-b"}}, None)]
    assert submitted_of([0], [1, 2], context, jobs) == [0, 1]        # (team-b has no `default`: not taken)
    assert submitted_of([0], [1], objects_from_text(local_queue("q", "cq", namespace="team-a"), "c.yaml"), jobs) == [0]

"""The MPI operator's objects of an MPIJob (mpi-operator v0.8 v2beta1: SetDefaults_MPIJob, ValidateMPIJob,
newLauncherJob, newWorker): the replica specs' restart policies override the templates', the
launcher Job as the operator writes it, the workers named and labelled as it names them."""
from __future__ import annotations

from kexplain.controllers import mpijob


def _job(**replicas) -> dict:
    spec = {"containers": [{"name": "c", "image": "i"}]}
    return {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "pi", "namespace": "ns"},
            "spec": {"mpiReplicaSpecs": {"Launcher": {"template": {"spec": dict(spec)}, **replicas.get("launcher", {})},
                                         "Worker": {"replicas": 2, "template": {"spec": dict(spec)},
                                                    **replicas.get("worker", {})}}}}


def test_the_defaults_and_the_restart_policies_the_operator_writes() -> None:
    job = mpijob.defaulted(_job(worker={"template": {"spec": {"restartPolicy": "Always", "containers": [
        {"name": "c", "image": "i"}]}}}))
    assert mpijob.validation_error(job) == ""
    launcher = mpijob.launcher_job(job)
    pod = launcher["spec"]["template"]
    assert pod["spec"]["restartPolicy"] == "OnFailure" and pod["spec"]["hostname"] == "pi-launcher"
    assert launcher["metadata"]["name"] == "pi-launcher" and launcher["spec"]["podReplacementPolicy"] == "Failed"
    assert pod["metadata"]["labels"]["training.kubeflow.org/job-role"] == "launcher"
    assert {v["name"] for v in pod["spec"]["volumes"]} == {"ssh-auth", "mpi-job-config"}
    assert pod["spec"]["volumes"][0]["secret"]["defaultMode"] == 0o600       # /root/.ssh, the default mount
    workers = [o for o in mpijob.operator_objects(job) if o["kind"] == "Pod"]
    assert [w["metadata"]["name"] for w in workers] == ["pi-worker-0", "pi-worker-1"]
    assert {w["spec"]["restartPolicy"] for w in workers} == {"Never"}        # the replica spec's, over the template's
    assert workers[1]["metadata"]["labels"]["training.kubeflow.org/replica-index"] == "1"
    assert workers[0]["spec"]["containers"][0]["command"] == ["/usr/sbin/sshd", "-De"]


def test_a_suspended_mpijob_has_its_launcher_suspended_and_no_worker() -> None:
    obj = _job()
    obj["spec"]["runPolicy"] = {"suspend": True}
    made = mpijob.operator_objects(mpijob.defaulted(obj))
    assert [(o["kind"], o["spec"].get("suspend")) for o in made] == [("Job", True)]


def test_validation_errors_in_the_operators_words() -> None:
    job = mpijob.defaulted(_job(worker={"replicas": None, "restartPolicy": "Always"}))
    job["spec"]["mpiReplicaSpecs"]["Worker"].pop("replicas")
    assert mpijob.validation_error(job) == (
        "Found validation errors: [spec.mpiReplicaSpecs[Worker].replicas: Required value: must define number of "
        'replicas, spec.mpiReplicaSpecs[Worker].restartPolicy: Unsupported value: "Always": supported values: '
        '"Never", "OnFailure"]')     # (utilerrors' aggregate of two)
    zero = mpijob.defaulted({**_job(), "spec": {"mpiReplicaSpecs": {**_job()["spec"]["mpiReplicaSpecs"],
                                                                   "Worker": {"template": {"spec": {}}}}}})
    assert "spec.mpiReplicaSpecs[Worker].replicas: Invalid value: 0: must be greater than or equal to 1" in \
        mpijob.validation_error(zero)

"""What the MPI operator (kubeflow/mpi-operator v0.8, kubeflow.org/v2beta1, pkg/controller/mpi_job_controller.go)
makes of an MPIJob: for every MPIJob, and for the one Kueue starts (`kexplain.kueue.operator_pods`, its
replica templates merged with the pod sets' info first).

The controller defaults its copy of the MPIJob (`defaulted`: SetDefaults_MPIJob: the launcher's
restartPolicy OnFailure and 1 replica, the workers' restartPolicy Never and 0 replicas, slotsPerWorker
1, sshAuthMountPath /root/.ssh, ...), refuses it when ValidateMPIJob finds errors (`validation_error`: a
ValidationError event, nothing created), then creates the workers `NAME-worker-INDEX` (newWorker; none
while suspended) and the launcher Job `NAME-launcher` (newLauncherJob, suspended with the MPIJob; with
`launcherCreationPolicy: WaitForWorkersReady` once every worker is ready). Each pod template: the
operator's labels (operator name, job name, role, a worker's replica index), its hostname and the
Service's subdomain, its restartPolicy from the replica spec (which overrides the template's), the SSH
secret's volume and the launcher's hostfile ConfigMap mounted on the first container. The environment
variables it adds do not change scheduling and are left out."""
from __future__ import annotations

import copy
from typing import Any, Mapping

from kexplain.apimachinery.fielderrors import FieldError, aggregate, invalid as invalid_value, not_supported, required
from kexplain.apimachinery.identity import object_uid
from kexplain.controllers.templates import mapping

KIND = "MPIJob"
GROUP = "kubeflow.org"
API_VERSION = "kubeflow.org/v2beta1"
LAUNCHER, WORKER = "Launcher", "Worker"
OPERATOR_NAME_LABEL = "training.kubeflow.org/operator-name"
JOB_NAME_LABEL = "training.kubeflow.org/job-name"
JOB_ROLE_LABEL = "training.kubeflow.org/job-role"
REPLICA_INDEX_LABEL = "training.kubeflow.org/replica-index"
OPERATOR_NAME = "mpi-operator"
ROOT_SSH_PATH = "/root/.ssh"
RESTART_POLICIES = ("Never", "OnFailure")
CLEAN_POD_POLICIES = ("All", "None", "Running")
IMPLEMENTATIONS = ("Intel", "MPICH", "OpenMPI")
SSH_ITEMS = [{"key": "ssh-privatekey", "path": "id_rsa"}, {"key": "ssh-publickey", "path": "id_rsa.pub"},
             {"key": "ssh-publickey", "path": "authorized_keys"}]
CONFIG_ITEMS = [{"key": "hostfile", "path": "hostfile", "mode": 0o444},
                {"key": "discover_hosts.sh", "path": "discover_hosts.sh", "mode": 0o555}]


def is_mpijob(obj: Any) -> bool:
    """An MPIJob of the MPI operator's v2beta1 API (the training operator's kubeflow.org/v1 one is not)."""
    return isinstance(obj, Mapping) and obj.get("kind") == KIND and obj.get("apiVersion") == API_VERSION


def defaulted(obj: Mapping[str, Any]) -> dict[str, Any]:
    """SetDefaults_MPIJob, on a copy (the controller's `scheme.Scheme.Default(mpiJob)`)."""
    out = copy.deepcopy(dict(obj))
    spec = out["spec"] = dict(mapping(out.get("spec")))
    policy = spec["runPolicy"] = dict(mapping(spec.get("runPolicy")))
    policy.setdefault("cleanPodPolicy", "None")
    for key, value in (("slotsPerWorker", 1), ("sshAuthMountPath", ROOT_SSH_PATH), ("mpiImplementation", "OpenMPI"),
                       ("launcherCreationPolicy", "AtStartup")):
        if spec.get(key) in (None, ""):
            spec[key] = value
    replicas = spec["mpiReplicaSpecs"] = dict(mapping(spec.get("mpiReplicaSpecs")))
    for rtype, restart, count in ((LAUNCHER, "OnFailure", 1), (WORKER, "Never", 0)):
        if isinstance(replicas.get(rtype), Mapping):
            rspec = replicas[rtype] = dict(replicas[rtype])
            rspec["restartPolicy"] = rspec.get("restartPolicy") or restart
            rspec.setdefault("replicas", count)
    return out


def _replica_errors(rspec: Any, path: str) -> list[FieldError]:
    """validateReplicaSpec."""
    errs = []
    if rspec.get("replicas") is None:
        errs.append(required(f"{path}.replicas", "must define number of replicas"))
    if rspec.get("restartPolicy") not in RESTART_POLICIES:
        errs.append(not_supported(f"{path}.restartPolicy", str(rspec.get("restartPolicy") or ""), RESTART_POLICIES))
    if not mapping(mapping(rspec.get("template")).get("spec")).get("containers"):
        errs.append(required(f"{path}.template.spec.containers", "must define at least one container"))
    return errs


def validation_error(obj: Mapping[str, Any]) -> str:
    """ValidateMPIJob over the defaulted MPIJob: the operator's ValidationError event message (nothing is
    created), or "" when it is valid. The replica specs, the clean pod policy and the implementation."""
    spec = mapping(obj.get("spec"))
    replicas = mapping(spec.get("mpiReplicaSpecs"))
    path = "spec.mpiReplicaSpecs"
    errs: list[FieldError] = []
    launcher, worker = replicas.get(LAUNCHER), replicas.get(WORKER)
    if not isinstance(launcher, Mapping):
        errs.append(required(f"{path}[{LAUNCHER}]", f"must have {LAUNCHER} replica spec"))
    else:
        errs += _replica_errors(launcher, f"{path}[{LAUNCHER}]")
        if launcher.get("replicas") is not None and launcher.get("replicas") != 1:
            errs.append(invalid_value(f"{path}[{LAUNCHER}].replicas", launcher["replicas"], "must be 1"))
    if isinstance(worker, Mapping):
        errs += _replica_errors(worker, f"{path}[{WORKER}]")
        count = worker.get("replicas")
        if isinstance(count, int) and count <= 0:
            errs.append(invalid_value(f"{path}[{WORKER}].replicas", count, "must be greater than or equal to 1"))
    clean = mapping(spec.get("runPolicy")).get("cleanPodPolicy")
    if clean not in CLEAN_POD_POLICIES:
        errs.append(not_supported("spec.runPolicy.cleanPodPolicy", str(clean), CLEAN_POD_POLICIES))
    if spec.get("mpiImplementation") not in IMPLEMENTATIONS:
        errs.append(not_supported("spec.mpiImplementation", str(spec.get("mpiImplementation")), IMPLEMENTATIONS))
    return f"Found validation errors: {aggregate(errs)}" if errs else ""


def _meta(obj: Mapping[str, Any]) -> tuple[str, str]:
    meta = mapping(obj.get("metadata"))
    return str(meta.get("name") or ""), str(meta.get("namespace") or "default")


def controller_ref(obj: Mapping[str, Any]) -> dict[str, Any]:
    """metav1.NewControllerRef(mpiJob): the MPIJob as its objects' controller."""
    name, namespace = _meta(obj)
    uid = str(mapping(obj.get("metadata")).get("uid") or object_uid(
        {"kind": KIND, "metadata": {"name": name, "namespace": namespace}}))
    return {"apiVersion": str(obj.get("apiVersion") or API_VERSION), "kind": KIND, "name": name, "uid": uid,
            "controller": True, "blockOwnerDeletion": True}


def _launcher_as_worker(obj: Mapping[str, Any]) -> bool:
    return mapping(obj.get("spec")).get("runLauncherAsWorker") is True


def _template(obj: Mapping[str, Any], rtype: str, template: Mapping[str, Any] | None) -> dict[str, Any]:
    """A copy of the replica type's pod template (or `template`: Kueue's, merged), with the operator's
    labels, hostname, subdomain, restartPolicy and SSH volume (the parts newWorker and
    newLauncherPodTemplate share)."""
    name, _ = _meta(obj)
    spec = mapping(obj.get("spec"))
    rspec = mapping(mapping(spec.get("mpiReplicaSpecs")).get(rtype))
    out = copy.deepcopy(dict(template if template is not None else mapping(rspec.get("template"))))
    meta = out["metadata"] = dict(mapping(out.get("metadata")))
    meta["labels"] = {**mapping(meta.get("labels")), OPERATOR_NAME_LABEL: OPERATOR_NAME, JOB_NAME_LABEL: name,
                      JOB_ROLE_LABEL: rtype.lower()}
    pod = out["spec"] = dict(mapping(out.get("spec")))
    pod["subdomain"] = name
    if pod.get("hostNetwork") is True:
        pod["dnsPolicy"] = "ClusterFirstWithHostNet"
    restart = str(rspec.get("restartPolicy") or "")
    pod["restartPolicy"] = "Never" if restart == "ExitCode" else restart
    mount = str(spec.get("sshAuthMountPath") or ROOT_SSH_PATH)
    secret: dict[str, Any] = {"secretName": f"{name}-ssh", "items": copy.deepcopy(SSH_ITEMS)}
    if mount == ROOT_SSH_PATH:
        secret["defaultMode"] = 0o600
    _volume(pod, {"name": "ssh-auth", "secret": secret}, {"name": "ssh-auth", "mountPath": mount})
    return out


def _volume(pod: dict[str, Any], volume: dict[str, Any], mount: dict[str, Any]) -> None:
    """The volume added to the pod, mounted on its first container (the operator's mainContainer)."""
    pod["volumes"] = [*(pod.get("volumes") or ()), volume]
    containers = [dict(c) if isinstance(c, Mapping) else c for c in pod.get("containers") or ()]
    if containers and isinstance(containers[0], dict):
        containers[0]["volumeMounts"] = [*(containers[0].get("volumeMounts") or ()), mount]
        pod["containers"] = containers


def worker_pod(obj: Mapping[str, Any], index: int, template: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """newWorker: worker `index` (`obj` defaulted), its pod template the Worker's (or `template`)."""
    name, namespace = _meta(obj)
    out = _template(obj, WORKER, template)
    pod_name = f"{name}-worker-{index}"
    out["metadata"]["labels"][REPLICA_INDEX_LABEL] = str(index + 1 if _launcher_as_worker(obj) else index)
    out["spec"]["hostname"] = pod_name
    dns = out["spec"]["dnsConfig"] = dict(mapping(out["spec"].get("dnsConfig")))
    dns["searches"] = [*(dns.get("searches") or ()), f"{name}.{namespace}.svc.cluster.local"]
    containers = out["spec"].get("containers") or ()
    if containers and isinstance(containers[0], dict) and not containers[0].get("command") \
            and not containers[0].get("args"):
        containers[0]["command"] = ["/usr/sbin/sshd", "-De"]
    meta = {"name": pod_name, "namespace": namespace, "labels": out["metadata"]["labels"],
            **({"annotations": out["metadata"]["annotations"]} if out["metadata"].get("annotations") else {}),
            "ownerReferences": [controller_ref(obj)]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": out["spec"]}


def launcher_job(obj: Mapping[str, Any], template: Mapping[str, Any] | None = None, *,
                 suspend: bool | None = None) -> dict[str, Any]:
    """newLauncherJob: the launcher Job (`obj` defaulted), its pod template the Launcher's (or
    `template`), suspended with the MPIJob unless `suspend` says."""
    name, namespace = _meta(obj)
    pod = _template(obj, LAUNCHER, template)
    if _launcher_as_worker(obj):
        pod["metadata"]["labels"][REPLICA_INDEX_LABEL] = "0"
    pod["spec"]["hostname"] = f"{name}-launcher"
    _volume(pod["spec"], {"name": "mpi-job-config", "configMap": {"name": f"{name}-config",
                                                                   "items": copy.deepcopy(CONFIG_ITEMS)}},
            {"name": "mpi-job-config", "mountPath": "/etc/mpi"})
    policy = mapping(mapping(obj.get("spec")).get("runPolicy"))
    spec: dict[str, Any] = {k: policy[k] for k in ("ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit")
                            if policy.get(k) is not None}
    spec.update(template=pod, podReplacementPolicy="Failed")
    if (policy.get("suspend") is True) if suspend is None else suspend:
        spec["suspend"] = True
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": f"{name}-launcher", "namespace": namespace, "labels": {"app": name},
                         "ownerReferences": [controller_ref(obj)]},
            "spec": spec}


def worker_count(obj: Mapping[str, Any]) -> int:
    """workerReplicas: the Worker's replicas (0 without a Worker)."""
    count = mapping(mapping(mapping(obj.get("spec")).get("mpiReplicaSpecs")).get(WORKER)).get("replicas")
    return count if isinstance(count, int) and not isinstance(count, bool) else 0


def operator_objects(obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """syncHandler's creations for an MPIJob (`obj` defaulted and valid), in its order: the workers
    (none while suspended), then the launcher Job."""
    suspended = mapping(mapping(obj.get("spec")).get("runPolicy")).get("suspend") is True
    workers = [] if suspended else [worker_pod(obj, i) for i in range(worker_count(obj))]
    return [*workers, launcher_job(obj)]

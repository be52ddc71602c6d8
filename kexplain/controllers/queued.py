"""The kinds Kueue manages by default that kexplain does not model alone: Kueue v0.17.8's default
configuration (`integrations.frameworks` of config/components/manager/controller_manager_config.yaml)
turns on these frameworks besides batch/job, pod, deployment, statefulset and jobset, which
kexplain models; their pods come from operators (Ray's, Kubeflow's, LeaderWorkerSet's, ...)
whose controllers kexplain runs only through Kueue's chain (THROUGH_KUEUE) or not at all. An
object of one of them carrying Kueue's queue-name label is held by Kueue's webhook (suspended)
until its Workload is admitted: without Kueue's objects kexplain says so and leaves it out (`held`).
Without the label (and not taken by Kueue's chain), the operator makes its pods at once: kexplain
makes a TrainJob's and an MPIJob's itself (`operators`); of the others it says it does not, and
leaves them out, never in silence."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.controllers.mpijob import is_mpijob
from kexplain.controllers.trainjob import is_trainjob

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"      # QueueNameForObject reads the label only
# kexplain's own annotation on an object it knows of but cannot explain, set by Kueue's chain
# (`kexplain.kueue.external_jobs`: an external framework's job) or by `operators` (a TrainJob whose
# runtime is not given, an MPIJob the MPI operator refuses): why; the POD file's entries read it
NOT_EXPLAINED = "kexplain.dev/not-explained"
# the operator that makes each kind's pods (what kexplain says of one it does not make alone)
OPERATORS = {"MPIJob": "the MPI operator", "RayJob": "KubeRay", "RayCluster": "KubeRay", "RayService": "KubeRay",
             "PaddleJob": "the training operator", "PyTorchJob": "the training operator",
             "TFJob": "the training operator", "XGBoostJob": "the training operator", "JAXJob": "the training operator",
             "AppWrapper": "the AppWrapper controller", "TrainJob": "Kubeflow Trainer",
             "LeaderWorkerSet": "the LeaderWorkerSet controller"}
# (API group, kind) -> the framework's name in Kueue's configuration
UNMODELLED: dict[tuple[str, str], str] = {
    ("kubeflow.org", "MPIJob"): "kubeflow.org/mpijob",
    ("ray.io", "RayJob"): "ray.io/rayjob",
    ("ray.io", "RayCluster"): "ray.io/raycluster",
    ("ray.io", "RayService"): "ray.io/rayservice",
    ("kubeflow.org", "PaddleJob"): "kubeflow.org/paddlejob",
    ("kubeflow.org", "PyTorchJob"): "kubeflow.org/pytorchjob",
    ("kubeflow.org", "TFJob"): "kubeflow.org/tfjob",
    ("kubeflow.org", "XGBoostJob"): "kubeflow.org/xgboostjob",
    ("kubeflow.org", "JAXJob"): "kubeflow.org/jaxjob",
    ("workload.codeflare.dev", "AppWrapper"): "workload.codeflare.dev/appwrapper",
    ("trainer.kubeflow.org", "TrainJob"): "trainer.kubeflow.org/trainjob",
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): "leaderworkerset.x-k8s.io/leaderworkerset",
}


# The kinds of UNMODELLED kexplain models through Kueue's chain (`kexplain.kueue.controller.jobs`,
# `kexplain.kueue.operator_pods`): held here only when no Kueue object is given
THROUGH_KUEUE = frozenset({("ray.io", "RayJob"), ("ray.io", "RayCluster"), ("ray.io", "RayService"),
                           ("trainer.kubeflow.org", "TrainJob"),
                           ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"), ("workload.codeflare.dev", "AppWrapper"),
                           *(("kubeflow.org", k) for k in ("MPIJob", "PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob",
                                                           "JAXJob"))})


def queue_name(obj: Mapping[str, Any]) -> str:
    """The object's `kueue.x-k8s.io/queue-name` label ("" when none)."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    labels = meta.get("labels") if isinstance(meta.get("labels"), Mapping) else {}
    value = labels.get(QUEUE_NAME_LABEL)
    return value if isinstance(value, str) else ""


def framework(obj: Any) -> str:
    """The unmodelled framework of `obj`'s kind and API group ("" for any other kind)."""
    if not isinstance(obj, Mapping):
        return ""
    api, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api, str) or not isinstance(kind, str):
        return ""
    return UNMODELLED.get((api.split("/", 1)[0] if "/" in api else "", kind), "")


def held(obj: Any) -> str:
    """Why kexplain leaves out an object Kueue holds whose kind it does not model, or, without Kueue's
    label, one whose operator's pods kexplain does not make alone ("" when it is neither)."""
    name = framework(obj)
    queue = queue_name(obj) if name else ""
    if not queue:       # (a TrainJob's and an MPIJob's pods kexplain makes alone: `operators`)
        if not name or is_trainjob(obj) or is_mpijob(obj):
            return ""
        return (f"{OPERATORS[obj['kind']]} makes its pods; kexplain models {obj['kind']} only through Kueue (its "
                "kueue.x-k8s.io/queue-name label, with Kueue's objects): not explained")
    api = str(obj.get("apiVersion") or "")
    modelled = (api.split("/", 1)[0] if "/" in api else "", obj["kind"]) in THROUGH_KUEUE
    why = (f"kexplain models {obj['kind']} through Kueue: give Kueue's objects (its ClusterQueues, LocalQueues and "
           "ResourceFlavors) with the cluster" if modelled else f"kexplain does not model {obj['kind']} yet")
    return (f"Kueue holds it (LocalQueue {queue}: its {name} integration, on by default, suspends it until "
            f"its Workload is admitted); {why}: not explained")

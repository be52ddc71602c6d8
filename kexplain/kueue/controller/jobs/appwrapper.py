"""workload.codeflare.dev/v1beta2 AppWrapper (pkg/controller/jobs/appwrapper, with the AppWrapper
library it vendors, project-codeflare/appwrapper v1.2.0 `pkg/utils`): a pod set per pod set of
its components, in order, named `NAME-INDEX`, of its replicas (1 when not set), its template the
pod template at its path within the component (`template.spec.template`: the component's
spec.template), the fields Kueue reads of it kept (GetPodTemplateSpec). A component without
declared podSets has them inferred for the kinds the library knows (InferPodSets): a Pod, a
Deployment or StatefulSet, a Job (min(parallelism, completions)), a JobSet (per replicated job,
replicas x min(parallelism, completions)), a PyTorchJob (Master, Worker), a RayCluster or RayJob
(the head, each worker group's replicas)."""
from __future__ import annotations

from typing import Any, Mapping

from kexplain.errors import InputError, Source
from kexplain.kueue.apis.meta import object_meta
from kexplain.kueue.apis.once import by_identity
from kexplain.kueue.apis.workload import PodSet
from kexplain.kueue.controller.jobs.podsets import PodSetsJob, mapping
from kexplain.kueue.apis.podtemplate import check_pod_spec

KIND = "AppWrapper"
GROUP = "workload.codeflare.dev"
ROOT = "template"           # a pod set's path starts at the component's template
# the pod spec fields GetPodTemplateSpec keeps of a component's template
KEPT_SPEC = ("initContainers", "containers", "restartPolicy", "terminationGracePeriodSeconds", "dnsPolicy",
             "nodeSelector", "nodeName", "securityContext", "affinity", "schedulerName", "tolerations",
             "priorityClassName", "preemptionPolicy", "overhead", "topologySpreadConstraints")
KEPT_CONTAINER = ("name", "image", "command", "args", "resources", "terminationMessagePath",
                  "terminationMessagePolicy", "imagePullPolicy", "securityContext")


class BadPath(ValueError):
    """getValueAtPath refused the path (its words)."""


def path_steps(path: str) -> list[str | int]:
    """The keys and indexes of a pod set's path (`template.spec.replicatedJobs[0].template`)."""
    if not path.startswith(ROOT):
        raise BadPath("first element of the path must be 'template'")
    out: list[str | int] = []
    rest = path[len(ROOT):]
    while rest:
        if rest.startswith("["):
            end = rest.find("]")
            if end < 0 or not rest[1:end].isdigit():
                raise BadPath(f"invalid index expression '{rest}'")
            out.append(int(rest[1:end]))
            rest = rest[end + 1:]
        elif rest.startswith("."):
            rest = rest[1:]
            ends = [i for i in (rest.find("."), rest.find("[")) if i > 0]
            end = min(ends) if ends else len(rest)
            out.append(rest[:end])
            rest = rest[end:]
        else:
            raise BadPath(f"invalid path element '{rest}'")
    return out


def value_at(obj: Any, path: str) -> Any:
    """getValueAtPath: the value at `path` within the component's template `obj`."""
    cursor = obj
    for step in path_steps(path):
        if isinstance(step, int):
            if not isinstance(cursor, list) or not 0 <= step < len(cursor):
                raise BadPath(f"out of bounds index '{step}'")
        elif not isinstance(cursor, Mapping) or step not in cursor:
            raise BadPath(f"missing field '{step}'")
        cursor = cursor[step]
    return cursor


def _count(obj: Any, path: str) -> int | None:
    try:
        value = value_at(obj, path)
    except BadPath:
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _job_pods(obj: Any, prefix: str) -> int:
    """A Job's pods at `prefix`: parallelism (1 when not set), or fewer completions."""
    pods = _count(obj, f"{prefix}.parallelism")
    pods = 1 if pods is None else pods
    completions = _count(obj, f"{prefix}.completions")
    return completions if completions is not None and completions < pods else pods


def _has(obj: Any, path: str) -> bool:
    try:
        value_at(obj, path)
    except BadPath:
        return False
    return True


def _ray(obj: Any, prefix: str) -> list[tuple[str, int]]:
    out = [(f"{prefix}headGroupSpec.template", 1)]
    workers = mapping(obj.get("spec")).get("workerGroupSpecs") if prefix == "template.spec." else \
        mapping(mapping(obj.get("spec")).get("rayClusterSpec")).get("workerGroupSpecs")
    for i in range(len(workers) if isinstance(workers, list) else 0):
        if _has(obj, f"{prefix}workerGroupSpecs[{i}].template"):
            replicas = _count(obj, f"{prefix}workerGroupSpecs[{i}].replicas")
            out.append((f"{prefix}workerGroupSpecs[{i}].template", 1 if replicas is None else replicas))
    return out


def inferred(obj: Mapping[str, Any]) -> list[tuple[str, int]]:
    """InferPodSets: (path, replicas) of a component of a kind the library knows ([] otherwise)."""
    kind, api = obj.get("kind"), obj.get("apiVersion")
    if (api, kind) == ("batch/v1", "Job"):
        return [("template.spec.template", _job_pods(obj, "template.spec"))]
    if (api, kind) == ("jobset.x-k8s.io/v1alpha2", "JobSet"):
        jobs = mapping(obj.get("spec")).get("replicatedJobs")
        out = []
        for i in range(len(jobs) if isinstance(jobs, list) else 0):
            at = f"template.spec.replicatedJobs[{i}]"
            if _has(obj, f"{at}.template"):
                replicas = _count(obj, f"{at}.replicas")
                out.append((f"{at}.template.spec.template",
                            (1 if replicas is None else replicas) * _job_pods(obj, f"{at}.template.spec")))
        return out
    if (api, kind) == ("kubeflow.org/v1", "PyTorchJob"):
        out = []
        for t in ("Master", "Worker"):
            at = f"template.spec.pytorchReplicaSpecs.{t}"
            if _has(obj, f"{at}.template"):
                replicas = _count(obj, f"{at}.replicas")
                out.append((f"{at}.template", 1 if replicas is None else replicas))
        return out
    if (api, kind) in (("ray.io/v1", "RayCluster"), ("ray.io/v1", "RayJob")):
        return _ray(obj, "template.spec." if kind == "RayCluster" else "template.spec.rayClusterSpec.")
    if (api, kind) == ("v1", "Pod"):
        return [("template", 1)]
    if (api, kind) in (("apps/v1", "Deployment"), ("apps/v1", "StatefulSet")) and _has(obj, "template.spec.template"):
        replicas = _count(obj, "template.spec.replicas")
        return [("template.spec.template", 1 if replicas is None else replicas)]
    return []


def kept(template: Mapping[str, Any]) -> dict[str, Any]:
    """GetPodTemplateSpec's subset of a pod template (its labels and annotations, the spec's fields
    Kueue reads)."""
    meta = mapping(template.get("metadata"))
    spec = mapping(template.get("spec"))
    out_spec = {k: spec[k] for k in KEPT_SPEC if k in spec}
    for key in ("containers", "initContainers"):
        if isinstance(spec.get(key), list):
            out_spec[key] = [{k: c[k] for k in KEPT_CONTAINER if k in c} for c in spec[key] if isinstance(c, Mapping)]
    out_meta = {k: {n: v for n, v in mapping(meta.get(k)).items() if isinstance(v, str)}
                for k in ("labels", "annotations") if isinstance(meta.get(k), Mapping)}
    return {"metadata": out_meta, "spec": out_spec}


def component_pod_sets(obj: Mapping[str, Any], source: Source | None) -> list[tuple[int, str, int, Mapping[str, Any]]]:
    """(component index, path, replicas, template) of each pod set, in GetComponentPodSpecs' order
    (a declared pod set whose path holds no pod template is left out, as it leaves it out)."""
    components = mapping(obj.get("spec")).get("components")
    if not isinstance(components, list):
        raise InputError("an AppWrapper needs a list of components", source=source, obj=obj, field="spec.components")
    out = []
    for i, component in enumerate(components):
        component = mapping(component)
        template = mapping(component.get("template"))
        declared = component.get("podSets")
        pairs = ([(str(mapping(p).get("path") or ""), mapping(p).get("replicas")) for p in declared]
                 if isinstance(declared, list) and declared else inferred(template))
        for path, replicas in pairs:
            try:
                at = value_at(template, path)
            except BadPath:
                continue
            if not isinstance(at, Mapping) or not isinstance(at.get("spec"), Mapping):
                continue
            check_pod_spec(at.get("spec"), source, obj, f"spec.components[{i}].template ({path}).spec")
            count = 1 if replicas is None else replicas
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise InputError(f"must be a non-negative integer, not {count!r}", source=source, obj=obj,
                                 field=f"spec.components[{i}].podSets")
            out.append((i, path, count, at))
    if not out:         # (a Workload needs a pod set: its spec.podSets has minItems 1)
        raise InputError("no component holds a pod template at a pod set's path: Kueue makes no Workload of it",
                         source=source, obj=obj, field="spec.components")
    return out


@by_identity
def from_object(obj: dict[str, Any], source: Source | None) -> PodSetsJob:
    meta = object_meta(obj, source)
    sets = tuple(PodSet(f"{meta.name}-{n}".lower(), count, kept(template))
                 for n, (_, _, count, template) in enumerate(component_pod_sets(obj, source)))
    return PodSetsJob(meta, KIND, GROUP, sets, source=source)

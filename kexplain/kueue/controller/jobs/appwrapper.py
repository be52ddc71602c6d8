"""workload.codeflare.dev/v1beta2 AppWrapper (pkg/controller/jobs/appwrapper, with the AppWrapper
library it vendors, project-codeflare/appwrapper v1.2.0 `pkg/utils`): a pod set per pod set of
its components, in order, named `NAME-INDEX`, of its replicas (1 when not set), its template the
pod template at its path within the component (`template.spec.template`: the component's
spec.template), the fields Kueue reads of it kept (GetPodTemplateSpec). A component without
declared podSets has them inferred for the kinds the library knows (InferPodSets): a Pod, a
Deployment or StatefulSet, a Job (min(parallelism, completions)), a JobSet (per replicated job,
replicas x min(parallelism, completions)), a PyTorchJob (Master, Worker), a RayCluster or RayJob
(the head, each worker group's replicas).

Its pod sets' topology requests take their index labels from each pod set's annotations (the
declared pod set's `annotations`; the library's inference sets them for a Job's completion index,
a JobSet's completion and Job indexes with its replicas as sub-group count, a PyTorchJob's replica
index), so Kueue's topology ungater ranks the AppWrapper's pods by them."""
from __future__ import annotations

from typing import Any, Mapping

import re
from dataclasses import dataclass

from kexplain.errors import InputError, Source
from kexplain.kueue.apis.meta import object_meta
from kexplain.kueue.apis.once import by_identity
from kexplain.kueue.apis.topology import IndexLabels
from kexplain.kueue.apis.workload import PodSet
from kexplain.kueue.controller.jobframework.tas import JOB_COMPLETION_INDEX, JOBSET_JOB_INDEX, REPLICA_INDEX
from kexplain.kueue.controller.jobs.podsets import PodSetsJob
from kexplain.controllers.templates import mapping
from kexplain.controllers.templates import check_pod_spec

KIND = "AppWrapper"
GROUP = "workload.codeflare.dev"
ROOT = "template"           # a pod set's path starts at the component's template
# the pod spec fields GetPodTemplateSpec keeps of a component's template
KEPT_SPEC = ("initContainers", "containers", "restartPolicy", "terminationGracePeriodSeconds", "dnsPolicy",
             "nodeSelector", "nodeName", "securityContext", "affinity", "schedulerName", "tolerations",
             "priorityClassName", "preemptionPolicy", "overhead", "topologySpreadConstraints")
# the AppWrapper library's pod set annotations Kueue reads (awutils.PodSetAnnotationTAS*)
TAS_POD_INDEX_LABEL = "workload.codeflare.dev.appwrapper/tas-pod-index-label"
TAS_SUB_GROUP_INDEX_LABEL = "workload.codeflare.dev.appwrapper/tas-sub-group-index-label"
TAS_SUB_GROUP_COUNT = "workload.codeflare.dev.appwrapper/tas-sub-group-count"
_ATOI = re.compile(r"[+-]?[0-9]+")      # what strconv.Atoi reads
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


Inferred = tuple[str, int, Mapping[str, str]]       # a pod set's path, replicas and annotations
_JOB_INDEX = {TAS_POD_INDEX_LABEL: JOB_COMPLETION_INDEX}


def inferred(obj: Mapping[str, Any]) -> list[Inferred]:
    """InferPodSets: (path, replicas, annotations) of a component of a kind the library knows ([]
    otherwise), the annotations naming the index labels of a Job's, a JobSet's or a PyTorchJob's pods."""
    kind, api = obj.get("kind"), obj.get("apiVersion")
    if (api, kind) == ("batch/v1", "Job"):
        return [("template.spec.template", _job_pods(obj, "template.spec"), _JOB_INDEX)]
    if (api, kind) == ("jobset.x-k8s.io/v1alpha2", "JobSet"):
        return _jobset(obj)
    if (api, kind) == ("kubeflow.org/v1", "PyTorchJob"):
        out: list[Inferred] = []
        for t in ("Master", "Worker"):
            at = f"template.spec.pytorchReplicaSpecs.{t}"
            if _has(obj, f"{at}.template"):
                replicas = _count(obj, f"{at}.replicas")
                out.append((f"{at}.template", 1 if replicas is None else replicas, {TAS_POD_INDEX_LABEL: REPLICA_INDEX}))
        return out
    if (api, kind) in (("ray.io/v1", "RayCluster"), ("ray.io/v1", "RayJob")):
        return [(path, n, {}) for path, n in _ray(obj, "template.spec." if kind == "RayCluster"
                                                  else "template.spec.rayClusterSpec.")]
    if (api, kind) == ("v1", "Pod"):
        return [("template", 1, {})]
    if (api, kind) in (("apps/v1", "Deployment"), ("apps/v1", "StatefulSet")) and _has(obj, "template.spec.template"):
        replicas = _count(obj, "template.spec.replicas")
        return [("template.spec.template", 1 if replicas is None else replicas, {})]
    return []


def _jobset(obj: Mapping[str, Any]) -> list[Inferred]:
    """A JobSet's pod set per replicated job: replicas x its Job's pods, sub-grouped by Job index."""
    jobs = mapping(obj.get("spec")).get("replicatedJobs")
    out: list[Inferred] = []
    for i in range(len(jobs) if isinstance(jobs, list) else 0):
        at = f"template.spec.replicatedJobs[{i}]"
        if _has(obj, f"{at}.template"):
            found = _count(obj, f"{at}.replicas")
            replicas = 1 if found is None else found
            out.append((f"{at}.template.spec.template", replicas * _job_pods(obj, f"{at}.template.spec"),
                        {**_JOB_INDEX, TAS_SUB_GROUP_INDEX_LABEL: JOBSET_JOB_INDEX, TAS_SUB_GROUP_COUNT: str(replicas)}))
    return out


def index_labels(annotations: Mapping[str, str]) -> IndexLabels:
    """What PodSets() passes to PodIndexLabel and SubGroup of a pod set's annotations: each label
    when annotated, the count when strconv.Atoi reads it (as an int32; a malformed one ignored)."""
    count = annotations.get(TAS_SUB_GROUP_COUNT)
    number = None
    if count is not None and _ATOI.fullmatch(count) and -2 ** 63 <= int(count) < 2 ** 63:
        number = (int(count) + 2 ** 31) % 2 ** 32 - 2 ** 31        # int32(count)
    return IndexLabels(annotations.get(TAS_POD_INDEX_LABEL), annotations.get(TAS_SUB_GROUP_INDEX_LABEL), number)


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


@dataclass(frozen=True)
class ComponentPodSet:
    """One pod set of an AppWrapper's component: the component's index, the path of its pod
    template in it, its replicas, the template and the pod set's annotations (AppWrapperPodSet)."""

    component: int
    path: str
    replicas: int
    template: Mapping[str, Any]
    annotations: Mapping[str, str]


def _annotations(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, Mapping) else {}


def component_pod_sets(obj: Mapping[str, Any], source: Source | None) -> list[ComponentPodSet]:
    """Each pod set of the components, in GetComponentPodSpecs' order (a declared pod set whose
    path holds no pod template is left out, as it leaves it out)."""
    components = mapping(obj.get("spec")).get("components")
    if not isinstance(components, list):
        raise InputError("an AppWrapper needs a list of components", source=source, obj=obj, field="spec.components")
    out = []
    for i, component in enumerate(components):
        component = mapping(component)
        template = mapping(component.get("template"))
        declared = component.get("podSets")
        pairs = ([(str(mapping(p).get("path") or ""), mapping(p).get("replicas"), _annotations(
            mapping(p).get("annotations"))) for p in declared] if isinstance(declared, list) and declared
                 else inferred(template))
        for path, replicas, annotations in pairs:
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
            out.append(ComponentPodSet(i, path, count, at, annotations))
    if not out:         # (a Workload needs a pod set: its spec.podSets has minItems 1)
        raise InputError("no component holds a pod template at a pod set's path: Kueue makes no Workload of it",
                         source=source, obj=obj, field="spec.components")
    return out


@dataclass(frozen=True)
class AppWrapperJob(PodSetsJob):
    """An AppWrapper as its integration reads it: `PodSetsJob` with each pod set's index labels."""

    indexes: tuple[IndexLabels, ...] = ()

    def index_labels(self, index: int) -> IndexLabels:
        """PodIndexLabel and SubGroup of its `index`th pod set (`jobframework.tas.index_labels`)."""
        return self.indexes[index] if index < len(self.indexes) else IndexLabels()


@by_identity
def from_object(obj: dict[str, Any], source: Source | None) -> AppWrapperJob:
    meta = object_meta(obj, source)
    found = component_pod_sets(obj, source)
    sets = tuple(PodSet(f"{meta.name}-{n}".lower(), ps.replicas, kept(ps.template)) for n, ps in enumerate(found))
    return AppWrapperJob(meta, KIND, GROUP, sets, source=source,
                         indexes=tuple(index_labels(ps.annotations) for ps in found))

"""The JobSet Kubeflow Trainer's controller makes of a TrainJob (trainer.kubeflow.org/v1alpha1, v2.2.0's
runtime framework: newRuntimeInfo, the ML policy plugins, the JobSet plugin's Build): for every
TrainJob whose runtime is given, and for the one Kueue reads (`kexplain.kueue.controller.jobs.trainjob`).

That JobSet is the referenced runtime's template (`spec.runtimeRef`: a ClusterTrainingRuntime, the
default, or a TrainingRuntime of the TrainJob's namespace) with the TrainJob's `runtimePatches`
merged into its replicated jobs (strategic merge, by name), then the trainer's overrides:
- every replicated job's parallelism and completions are its pod set count: its parallelism (1),
  the trainer step's (label `trainer.kubeflow.org/trainjob-ancestor-step: trainer`) the runtime's
  `mlPolicy.numNodes` (1) when it has an mlPolicy, and `spec.trainer.numNodes` when given (an MPI
  runtime: the job named `node`, one fewer when the launcher runs as a node);
- the trainer and initializer steps run one replica; the trainer's `node` container takes the
  TrainJob's image, command, args, env and resourcesPerNode (an MPI launcher-as-node's too);
- suspended with the TrainJob (`spec.suspend`); its `volumeClaimPolicies` kept: the JobSet
  controller creates their claims (`controllers.jobset.volume_claims`).
What neither changes scheduling (the initializers' env, the coscheduling plugins' pod labels) is
left out. The JobSet controller then makes its Jobs (`controllers.jobset`)."""
from __future__ import annotations

import copy
from typing import Any, Iterable, Mapping

from kexplain.controllers.templates import check_pod_spec, count_at, mapping
from kexplain.errors import InputError, Source
from kexplain.load.apply_patch import patched

KIND = "TrainJob"
GROUP = "trainer.kubeflow.org"
CLUSTER_RUNTIME = "ClusterTrainingRuntime"
RUNTIME = "TrainingRuntime"
RUNTIME_KINDS = frozenset({CLUSTER_RUNTIME, RUNTIME})
ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"     # constants.LabelTrainJobAncestor
TRAINER = "trainer"
NODE = "node"
INITIALIZERS = frozenset({"dataset-initializer", "model-initializer"})
JOBSET_API = "jobset.x-k8s.io/v1alpha2"

Runtimes = Mapping[tuple[str, str, str], tuple[Mapping[str, Any], Source | None]]


def is_trainjob(obj: Any) -> bool:
    """A TrainJob of Kubeflow Trainer's API (`trainer.kubeflow.org`)."""
    return (isinstance(obj, Mapping) and obj.get("kind") == KIND
            and str(obj.get("apiVersion") or "").split("/", 1)[0] == GROUP)


def runtimes_of(objects: Iterable[tuple[Any, Any]]) -> dict[tuple[str, str, str], tuple[Mapping[str, Any], Any]]:
    """The training runtimes among `objects`, by (kind, namespace: "" for a cluster one, name)."""
    out: dict[tuple[str, str, str], tuple[Mapping[str, Any], Any]] = {}
    for obj, src in objects:
        if not isinstance(obj, Mapping) or obj.get("kind") not in RUNTIME_KINDS:
            continue
        if str(obj.get("apiVersion") or "").split("/", 1)[0] != GROUP:
            continue
        meta = mapping(obj.get("metadata"))
        namespace = "" if obj["kind"] == CLUSTER_RUNTIME else str(meta.get("namespace") or "default")
        out[(str(obj["kind"]), namespace, str(meta.get("name") or ""))] = (obj, src)
    return out


def runtime_ref(obj: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """The runtime `spec.runtimeRef` names: (kind, API group, namespace: "" for a cluster one, name)."""
    ref = mapping(mapping(obj.get("spec")).get("runtimeRef"))
    kind, group = str(ref.get("kind") or CLUSTER_RUNTIME), str(ref.get("apiGroup") or GROUP)
    namespace = "" if kind == CLUSTER_RUNTIME else str(mapping(obj.get("metadata")).get("namespace") or "default")
    return kind, group, namespace, str(ref.get("name") or "")


def missing_runtime(obj: Mapping[str, Any], runtimes: Runtimes) -> str:
    """Why the trainer's JobSet of `obj` cannot be made from `runtimes` ("" when it can): its runtime
    is not among them, or its reference is to no training runtime."""
    kind, group, namespace, name = runtime_ref(obj)
    if kind not in RUNTIME_KINDS or group != GROUP:
        return f"its runtimeRef names {kind}.{group}, no training runtime"
    if (kind, namespace, name) in runtimes:
        return ""
    return f"its runtime {kind} {namespace + '/' if namespace else ''}{name} is not among the objects"


def _ancestor(rjob: Mapping[str, Any]) -> str:
    return str(mapping(mapping(mapping(rjob.get("template")).get("metadata")).get("labels")).get(ANCESTOR_LABEL) or "")


def _patched_jobs(obj: Mapping[str, Any], rjobs: list[dict[str, Any]]) -> None:
    """mergeRuntimePatches: each patch's replicated job template merged into the job of its name."""
    for patch in mapping(obj.get("spec")).get("runtimePatches") or ():
        spec = mapping(mapping(mapping(mapping(patch).get("trainingRuntimeSpec")).get("template")).get("spec"))
        for rjob_patch in spec.get("replicatedJobs") or ():
            template = mapping(rjob_patch).get("template")
            if not isinstance(template, Mapping):
                continue
            for rjob in rjobs:
                if rjob.get("name") == rjob_patch.get("name"):
                    live = {"apiVersion": "batch/v1", "kind": "Job", **mapping(rjob.get("template"))}
                    merged = patched(live, {"apiVersion": "batch/v1", "kind": "Job", **template}, None)
                    rjob["template"] = {k: v for k, v in merged.items() if k in ("metadata", "spec")}


def _counts(obj: Mapping[str, Any], runtime: Mapping[str, Any], rjobs: list[dict[str, Any]],
            policy: Mapping[str, Any] | None, runtime_source: Source | None, source: Source | None) -> list[int]:
    """Each replicated job's pod set count (newRuntimeInfo, then the ML policy plugins' EnforceMLPolicy)."""
    counts = []
    for i, rjob in enumerate(rjobs):
        at = f"spec.template.spec.replicatedJobs[{i}].template.spec.parallelism"
        count = count_at(runtime, mapping(mapping(rjob.get("template")).get("spec")).get("parallelism"), 1, at,
                         runtime_source)
        if _ancestor(rjob) == TRAINER and policy is not None:
            count = count_at(runtime, policy.get("numNodes"), 1, "spec.mlPolicy.numNodes", runtime_source)
        counts.append(count)
    nodes = mapping(mapping(obj.get("spec")).get("trainer")).get("numNodes")
    if nodes is None:
        return counts
    nodes = count_at(obj, nodes, 1, "spec.trainer.numNodes", source)
    mpi = mapping(policy).get("mpi") if policy is not None else None
    if isinstance(mpi, Mapping):        # (the MPI plugin: the job named node)
        index = next((i for i, r in enumerate(rjobs) if r.get("name") == NODE), None)
        nodes = max(nodes - 1, 1) if mpi.get("runLauncherAsNode") is True else nodes
    else:
        index = next((i for i, r in enumerate(rjobs) if _ancestor(r) == TRAINER), None)
    if index is not None:
        counts[index] = nodes
    return counts


def _upsert_env(container: dict[str, Any], env: Any) -> None:
    """apply.UpsertEnvVars: each variable replaces the one of its name, or is added."""
    out = [dict(e) for e in container.get("env") or () if isinstance(e, Mapping)]
    for given in (dict(e) for e in env or () if isinstance(e, Mapping)):
        at = next((i for i, e in enumerate(out) if e.get("name") == given.get("name")), None)
        if at is None:
            out.append(given)
        else:
            out[at] = given
    if out:
        container["env"] = out


def _node_container(rjob: Mapping[str, Any]) -> dict[str, Any] | None:
    pod = mapping(mapping(mapping(rjob.get("template")).get("spec")).get("template"))
    return next((c for c in mapping(pod.get("spec")).get("containers") or ()
                 if isinstance(c, dict) and c.get("name") == NODE), None)


def _trainer_overrides(obj: Mapping[str, Any], rjob: dict[str, Any], launcher_as_node: bool) -> None:
    """The builder's Initializer and Trainer steps on one replicated job."""
    ancestor, trainer = _ancestor(rjob), mapping(mapping(obj.get("spec")).get("trainer"))
    if ancestor in INITIALIZERS | {TRAINER}:
        rjob["replicas"] = 1
    container = _node_container(rjob)
    if container is None or not trainer:
        return
    if ancestor == TRAINER:
        for key in ("image", "command", "args"):
            if trainer.get(key) is not None:
                container[key] = copy.deepcopy(trainer[key])
    if ancestor == TRAINER or (launcher_as_node and rjob.get("name") == NODE):
        resources = mapping(trainer.get("resourcesPerNode"))
        if resources.get("limits") is not None or resources.get("requests") is not None:
            container["resources"] = {k: copy.deepcopy(resources[k]) for k in ("limits", "requests")
                                      if resources.get(k) is not None}
        _upsert_env(container, trainer.get("env"))


def _propagated(obj: Mapping[str, Any], runtime: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """The JobSet's labels and annotations: the runtime template's, then each runtime patch's (newRuntimeInfo)."""
    sources = [mapping(mapping(mapping(runtime.get("spec")).get("template")).get("metadata"))]
    sources += [mapping(mapping(mapping(mapping(p).get("trainingRuntimeSpec")).get("template")).get("metadata"))
                for p in mapping(obj.get("spec")).get("runtimePatches") or ()]
    out: dict[str, dict[str, str]] = {}
    for key in ("labels", "annotations"):
        merged = {str(k): str(v) for m in sources for k, v in mapping(m.get(key)).items()}
        if merged:
            out[key] = merged
    return out


def _checked_jobs(runtime: Mapping[str, Any], runtime_source: Source | None) -> list[dict[str, Any]]:
    """The runtime template's replicated jobs (copies), each with a name and a pod template that decodes."""
    template = mapping(mapping(runtime.get("spec")).get("template")).get("spec")
    rjobs = [copy.deepcopy(dict(r)) for r in mapping(template).get("replicatedJobs") or () if isinstance(r, Mapping)]
    if not rjobs:
        raise InputError("a training runtime needs spec.template.spec.replicatedJobs", source=runtime_source,
                         obj=runtime, field="spec.template.spec.replicatedJobs")
    for i, rjob in enumerate(rjobs):
        pod = mapping(mapping(rjob.get("template")).get("spec")).get("template")
        if not rjob.get("name") or not isinstance(pod, Mapping):
            raise InputError("a replicated job needs a name and template.spec.template", source=runtime_source,
                             obj=runtime, field=f"spec.template.spec.replicatedJobs[{i}]")
        check_pod_spec(pod.get("spec"), runtime_source, runtime, f"spec.template.spec.replicatedJobs[{i}].template.spec"
                       ".template.spec")
        count_at(runtime, rjob.get("replicas"), 1, f"spec.template.spec.replicatedJobs[{i}].replicas", runtime_source)
    return rjobs


def child_jobset(obj: Mapping[str, Any], source: Source | None, runtime: Mapping[str, Any],
                 runtime_source: Source | None) -> dict[str, Any]:
    """getChildJobSet: the JobSet the trainer makes of the TrainJob with `runtime`'s template."""
    spec = mapping(runtime.get("spec"))
    template = copy.deepcopy(dict(mapping(mapping(spec.get("template")).get("spec"))))
    rjobs = _checked_jobs(runtime, runtime_source)
    _patched_jobs(obj, rjobs)
    policy = spec.get("mlPolicy") if isinstance(spec.get("mlPolicy"), Mapping) else None
    launcher_as_node = mapping(mapping(policy).get("mpi")).get("runLauncherAsNode") is True
    for rjob, count in zip(rjobs, _counts(obj, runtime, rjobs, policy, runtime_source, source)):
        job_spec = rjob["template"] = dict(mapping(rjob.get("template")))
        job_spec["spec"] = {**mapping(job_spec.get("spec")), "parallelism": count, "completions": count}
        _trainer_overrides(obj, rjob, launcher_as_node)
    meta = mapping(obj.get("metadata"))
    owner = {"apiVersion": str(obj.get("apiVersion") or f"{GROUP}/v1alpha1"), "kind": KIND,
             "name": str(meta.get("name") or ""), "controller": True, "blockOwnerDeletion": True,
             **({"uid": meta["uid"]} if meta.get("uid") else {})}
    suspend = {"suspend": True} if mapping(obj.get("spec")).get("suspend") is True else {}
    return {"apiVersion": JOBSET_API, "kind": "JobSet",
            "metadata": {"name": str(meta.get("name") or ""), "namespace": str(meta.get("namespace") or "default"),
                         **_propagated(obj, runtime), "ownerReferences": [owner]},
            "spec": {**template, "replicatedJobs": rjobs, **suspend}}

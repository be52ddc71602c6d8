"""What the operators make of a job of their kind Kueue holds or starts, for the chain
(`kueue.started`): once Kueue starts it (RunWithPodSetsInfo: each pod set's template merged with
its info), the pods the operator creates, named as it names them, or a Job where it makes one
(a RayJob's submitter, an MPIJob's launcher: the Job controller makes its pods; an MPIJob's are the MPI
operator's own builders', `controllers.mpijob`, over the MPIJob as it defaults it), or, of an
AppWrapper, its components (each explained as its kind is). While Kueue holds
it (suspended), a RayJob, RayCluster, RayService or Kubeflow job has no pod: its pod sets' templates are
explained without taking room (`held_reason`); a LeaderWorkerSet's pods exist, gated by Kueue's
pod webhook until its group's Workload is admitted.

Names: KubeRay's RayCluster of a RayJob or RayService `NAME-raycluster-XXXXX` (GenerateRayClusterName), its head
`CLUSTER-head-XXXXX` and workers `CLUSTER-GROUP-worker-XXXXX` (PodGenerateName, the prefix cut to 50),
the submitter Job NAME; the training operator's `NAME-TYPE-INDEX` (GenGeneralName); the LeaderWorkerSet's leader
`NAME-GROUP` and workers `NAME-GROUP-INDEX`. The random suffixes are kexplain's derived ones
(`apimachinery.identity.generated_name`), so that a run repeats."""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any, Mapping

from kexplain.apimachinery.identity import generated_name, object_uid
from kexplain.controllers.mpijob import defaulted, launcher_job, worker_pod
from kexplain.kueue.apis import constants as c
from kexplain.kueue.apis.workload import PodSet
from kexplain.errors import KexplainError
from kexplain.kueue.controller.jobs import integration_for
from kexplain.kueue.controller.jobs.appwrapper import path_steps, component_pod_sets
from kexplain.kueue.controller.jobs.leaderworkerset import group_index, groups
from kexplain.kueue.controller.jobframework.tas import REPLICA_INDEX, WORKER_INDEX
from kexplain.kueue.controller.tas.ungater import ungated
from kexplain.kueue.pinned import pin
from kexplain.kueue.podset import PodSetInfo, merged

MANAGED_LABEL = "kueue.x-k8s.io/managed"
TOPOLOGY_GATE = "kueue.x-k8s.io/topology"
RAY_KINDS = frozenset({"RayJob", "RayCluster", "RayService"})
MPIJOB = "MPIJob"
KUBEFLOW_KINDS = frozenset({"PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob", "MPIJob"})
LWS = "LeaderWorkerSet"
APPWRAPPER = "AppWrapper"
KINDS = RAY_KINDS | KUBEFLOW_KINDS | {LWS, APPWRAPPER}
OPERATORS = {**{k: "KubeRay" for k in RAY_KINDS}, "MPIJob": "the MPI operator", APPWRAPPER: "the AppWrapper controller",
             LWS: "the LeaderWorkerSet controller",
             **{k: "the training operator" for k in ("PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob")}}
MAX_RAY_PREFIX = 50
REPLICA_TYPE = "training.kubeflow.org/replica-type"     # the training operators' (their ReplicaTypeLabel)


@dataclass(frozen=True)
class Made:
    """What an operator makes of one pod set: `count` pods named `names`, or a Job (`job`: its name)."""

    pod_set: str
    template: Mapping[str, Any]
    names: tuple[str, ...] = ()
    job: str = ""
    labels: tuple[Mapping[str, str], ...] = ()      # each pod's own labels (its index: what the ungater ranks by)


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _generated(kind: str, namespace: str, prefix: str, count: int) -> tuple[str, ...]:
    probe = {"kind": kind, "metadata": {"namespace": namespace, "generateName": prefix}}
    return tuple(generated_name(probe, i) for i in range(count))


def _ray(obj: Mapping[str, Any], sets: tuple[PodSet, ...]) -> list[Made]:
    """KubeRay's pods (and a RayJob's submitter Job) for the Workload's pod sets (head, groups, submitter)."""
    meta = _meta(obj)
    name, namespace = str(meta.get("name") or ""), str(meta.get("namespace") or "default")
    cluster = name if obj.get("kind") == "RayCluster" else _generated("RayCluster", namespace,
                                                                        f"{name}-raycluster-", 1)[0]
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    cluster_spec = spec if obj.get("kind") == "RayCluster" else (spec.get("rayClusterSpec") or {})
    groups = [g for g in cluster_spec.get("workerGroupSpecs") or () if isinstance(g, Mapping)]
    out = []
    for i, ps in enumerate(sets):
        if i == 0:
            head = (cluster_spec.get("headGroupSpec") or {}).get("template") or ps.template   # (no cleanup's requests)
            template = ps.template if spec.get("submissionMode") == "SidecarMode" else head
            out.append(Made(ps.name, template, _generated("Pod", namespace, _ray_prefix(cluster, "head"), 1)))
        elif i <= len(groups):
            prefix = _ray_prefix(f"{cluster}-{groups[i - 1].get('groupName')}", "worker")
            out.append(Made(ps.name, ps.template, _generated("Pod", namespace, prefix, ps.count)))
        else:
            out.append(Made(ps.name, ps.template, job=name))
    return out


def _ray_prefix(prefix: str, node_type: str) -> str:
    return f"{prefix[:MAX_RAY_PREFIX]}-{node_type}-".lower()


def _replicas(ps: PodSet, names: list[str]) -> Made:
    """The training operators' pods of one replica type, each labelled with its type and index."""
    labels = tuple({REPLICA_TYPE: ps.name, REPLICA_INDEX: str(i)} for i in range(len(names)))
    return Made(ps.name, ps.template, tuple(names), labels=labels)


def _kubeflow(obj: Mapping[str, Any], sets: tuple[PodSet, ...]) -> list[Made]:
    name = str(_meta(obj).get("name") or "")
    return [_replicas(ps, [f"{name}-{ps.name}-{i}" for i in range(ps.count)]) for ps in sets]


def _mpijob(obj: Mapping[str, Any], sets: tuple[PodSet, ...], infos: list[PodSetInfo] | None
            ) -> list[tuple[dict[str, Any], str]]:
    """The MPI operator's objects (`controllers.mpijob`, the MPIJob defaulted as its controller defaults
    it) of an MPIJob Kueue started: its launcher Job and workers, each replica template merged with its
    pod set's info (the workers pinned to their domains by TAS); held, one pod per pod set (the launcher
    Job's pod template as a pod of its name)."""
    job = defaulted(obj)
    out: list[tuple[dict[str, Any], str]] = []
    for i, ps in enumerate(sets):
        info = infos[i] if infos is not None and i < len(infos) else None
        pinned = info is not None and info.assignment is not None
        template = ps.template if info is None else merged(ps.template, replace(info, topology_in=()) if pinned else info)
        if ps.name == "launcher":
            launcher = launcher_job(job, template, suspend=False)
            if infos is None:
                launcher = _pod(obj, launcher["metadata"]["name"], launcher["spec"]["template"],
                                _owner(obj, MPIJOB, str(_meta(obj).get("name") or "")), {})
            out.append((launcher, ps.name))
            continue
        pods = [worker_pod(job, j, template) for j in range(ps.count if infos is not None else min(ps.count, 1))]
        if pinned:
            assert info is not None and info.assignment is not None
            ungated(pods, info.assignment, info.count, info.index, info.ranks)
        out.extend((p, ps.name) for p in pods)
    return out


def _workers(ps: PodSet, base: str, indexes: range) -> Made:
    """A LeaderWorkerSet group's pods of one pod set, each labelled with its worker index (0: the leader)."""
    names = tuple(base if j == 0 else f"{base}-{j}" for j in indexes)
    return Made(ps.name, ps.template, names, labels=tuple({WORKER_INDEX: str(j)} for j in indexes))


def _lws(obj: Mapping[str, Any], sets: tuple[PodSet, ...], index: int) -> list[Made]:
    base = f"{_meta(obj).get('name') or ''}-{index}"
    if len(sets) == 1:
        return [_workers(sets[0], base, range(sets[0].count))]
    return [_workers(sets[0], base, range(1)), _workers(sets[1], base, range(1, sets[1].count + 1))]


def _set_at(obj: dict[str, Any], path: str, value: Any) -> None:
    """Put `value` at a pod set's path within a component's template (the path read, `appwrapper`)."""
    steps = path_steps(path)
    if not steps:
        obj.clear()
        obj.update(value)
        return
    cursor: Any = obj
    for step in steps[:-1]:
        cursor = cursor[step]
    cursor[steps[-1]] = value


def appwrapper_components(obj: Mapping[str, Any], infos: list[PodSetInfo]) -> list[tuple[dict[str, Any], str]]:
    """The components the AppWrapper controller creates once Kueue started it, each pod set's template
    merged with its info at its path (SetPodSetInfos), each with its first pod set's name."""
    meta = _meta(obj)
    components = [c if isinstance(c, Mapping) else {} for c in (obj.get("spec") or {}).get("components") or ()]
    made = [copy.deepcopy(dict(c.get("template") or {})) for c in components]
    first: dict[int, str] = {}
    for n, ps in enumerate(component_pod_sets(obj, None)):
        if n < len(infos):
            _set_at(made[ps.component], ps.path, merged(ps.template, infos[n]))
            pin_component(made[ps.component], ps.path, infos[n])
        first.setdefault(ps.component, f"{meta.get('name')}-{n}".lower())
    owner = _owner(obj, APPWRAPPER, str(meta.get("name") or ""))
    for m in made:
        m["metadata"] = {**dict(m.get("metadata") or {}), "namespace": str(meta.get("namespace") or "default"),
                         "ownerReferences": [owner]}
    return [pair for i, m in enumerate(made) for pair in _component_objects(m, first.get(i, ""))]


def _component_objects(component: dict[str, Any], first: str) -> list[tuple[dict[str, Any], str]]:
    """A component the AppWrapper controller created: of an operator's kind (a PyTorchJob, an MPIJob, a
    LeaderWorkerSet, a RayCluster, ...), what its operator makes of it, started, its templates merged
    already (a LeaderWorkerSet's, every group's pods); any other component as it is (the Job
    controller makes a Job's pods)."""
    kind = str(component.get("kind"))
    integration = integration_for(kind, str(component.get("apiVersion") or "")) if kind in KINDS - {APPWRAPPER} \
        else None
    if integration is None:
        return [(component, first)]
    out: list[tuple[dict[str, Any], str]] = []
    try:
        for part in groups(component) if kind == LWS else [component]:
            sets = integration.from_object(part, None).pod_sets()
            out.extend((made, first) for made, _ in operator_objects(part, sets, [], group_index(part)))
    except KexplainError:       # (unreadable by its integration: left as it is, said as an object left out)
        return [(component, first)]
    return out


def pin_component(component: dict[str, Any], path: str, info: PodSetInfo) -> None:
    """A component whose pod set TAS admitted (in place), its pods given their domains as Kueue's
    topology ungater gives them, by rank of the index labels the pod set's request names: a Job's
    copies (`pinned.pin`), a Pod's own node selector (`ungated`); other kinds' pods are made by
    their own controllers, beyond the chain."""
    if info.assignment is None:
        return
    kind, api = component.get("kind"), component.get("apiVersion")
    if (api, kind, path) == ("batch/v1", "Job", "template.spec.template"):
        pin([component], info)
    elif (api, kind, path) == ("v1", "Pod", "template"):
        ungated([component], info.assignment, info.count, info.index, info.ranks)


def made_of(obj: Mapping[str, Any], sets: tuple[PodSet, ...], index: int = 0) -> list[Made]:
    """What the operator makes of each of the job's pod sets (`index`: a LeaderWorkerSet's group)."""
    kind = obj.get("kind")
    if kind == APPWRAPPER:      # (held: each pod set's template, a pod named after it)
        return [Made(ps.name, ps.template, (ps.name,)) for ps in sets]
    if kind in RAY_KINDS:
        return _ray(obj, sets)
    if kind == LWS:
        return _lws(obj, sets, index)
    return _kubeflow(obj, sets)


def held_reason(obj: Mapping[str, Any]) -> str:
    """Why a held job of an operator's kind has no pod (Kueue keeps it suspended)."""
    kind = str(obj.get("kind"))
    field = ("spec.rayClusterSpec.suspend" if kind == "RayService"
             else "spec.suspend" if kind in RAY_KINDS | {APPWRAPPER} else "spec.runPolicy.suspend")
    return (f"{kind} {_meta(obj).get('namespace') or 'default'}/{_meta(obj).get('name')} is held by Kueue ({field} "
            f"true): {OPERATORS[kind]} creates no pod until its Workload is admitted")


def _owner(obj: Mapping[str, Any], kind: str, name: str) -> dict[str, Any]:
    api = str(obj.get("apiVersion") or "")
    namespace = str(_meta(obj).get("namespace") or "default")
    ref = {"apiVersion": api, "kind": kind, "name": name}
    uid = object_uid({"kind": kind, "metadata": {"name": name, "namespace": namespace, **(
        {"uid": _meta(obj).get("uid")} if kind == obj.get("kind") and name == _meta(obj).get("name") else {})}})
    return {**ref, "uid": uid, "controller": True, "blockOwnerDeletion": True}


def _pod(obj: Mapping[str, Any], name: str, template: Mapping[str, Any], owner: dict[str, Any],
         labels: Mapping[str, str]) -> dict[str, Any]:
    meta = dict(template.get("metadata") or {})
    meta.update(name=name, namespace=str(_meta(obj).get("namespace") or "default"), ownerReferences=[owner])
    if labels:
        meta["labels"] = {**(meta.get("labels") or {}), **labels}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": copy.deepcopy(dict(template.get("spec") or {}))}


def _job(obj: Mapping[str, Any], name: str, template: Mapping[str, Any]) -> dict[str, Any]:
    meta = {"name": name, "namespace": str(_meta(obj).get("namespace") or "default"),
            "ownerReferences": [_owner(obj, str(obj.get("kind")), str(_meta(obj).get("name")))]}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": {"parallelism": 1, "completions": 1, "backoffLimit": 2, "template": copy.deepcopy(dict(template))}}


def _gated(pod: dict[str, Any]) -> dict[str, Any]:
    """A pod Kueue's pod webhook holds: the managed label, the admission and topology gates."""
    pod["metadata"]["labels"] = {**(pod["metadata"].get("labels") or {}), MANAGED_LABEL: "true"}
    gates = [g for g in pod["spec"].get("schedulingGates") or () if isinstance(g, Mapping)]
    names = {g.get("name") for g in gates}
    pod["spec"]["schedulingGates"] = gates + [{"name": n} for n in (c.ADMISSION_GATE, TOPOLOGY_GATE) if n not in names]
    return pod


def operator_objects(obj: Mapping[str, Any], sets: tuple[PodSet, ...], infos: list[PodSetInfo] | None,
                     index: int = 0) -> list[tuple[dict[str, Any], str]]:
    """The objects the operator makes of `obj` Kueue started with `infos` (None: held), each with
    its pod set's name: its pods (or Jobs), each pod set's template merged with its info (none left
    to merge: an AppWrapper's component, merged already); held, one pod per pod set (a
    LeaderWorkerSet: every pod, gated)."""
    kind = str(obj.get("kind"))
    if kind == APPWRAPPER and infos is not None:
        return appwrapper_components(obj, infos)
    if kind == MPIJOB:
        return _mpijob(obj, sets, infos)
    made = made_of(obj, sets, index)
    owner_kind, owner_name = kind, str(_meta(obj).get("name") or "")
    if kind in ("RayJob", "RayService"):      # (KubeRay's RayCluster of it makes the pods)
        owner_kind = "RayCluster"
        owner_name = _generated("RayCluster", str(_meta(obj).get("namespace") or "default"),
                                f"{owner_name}-raycluster-", 1)[0]
    elif kind == LWS:       # the leader StatefulSet NAME; a group's workers, its StatefulSet NAME-INDEX
        owner_kind = "StatefulSet"
    owner = _owner(obj, owner_kind, owner_name)
    group = _owner(obj, owner_kind, f"{owner_name}-{index}") if kind == LWS else owner
    out: list[tuple[dict[str, Any], str]] = []
    for i, m in enumerate(made):
        info = infos[i] if infos is not None and i < len(infos) else None
        pinned = info is not None and info.assignment is not None    # (the ungater gives each pod its domain)
        template = m.template if info is None else merged(m.template, replace(info, topology_in=()) if pinned else info)
        if m.job and infos is not None:
            out.append((_job(obj, m.job, template), m.pod_set))
            continue
        names = m.names if infos is not None or kind == LWS else (m.names or (m.job,))[:1]
        pods = [_pod(obj, n, template, owner if n == f"{owner_name}-{index}" else group, m.labels[j] if j < len(
            m.labels) else {}) for j, n in enumerate(names)]
        if pinned:
            assert info is not None and info.assignment is not None
            ungated(pods, info.assignment, info.count, info.index, info.ranks)
        out.extend((_gated(p) if infos is None and kind == LWS else p, m.pod_set) for p in pods)
    return out

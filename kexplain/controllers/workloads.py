"""The pod a workload would create: its template, made into a Pod as its controller would, named as
its controller names it (`Copies`), with a StatefulSet's identity and claims and a DaemonSet's
tolerations and node pin (v1.35 pkg/controller/daemon). Details: docs/internals/controllers.md.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field, replace
from typing import Any

from kexplain.admission.workloads import TEMPLATE_PATHS, check_workload, generate_job_selector
from kexplain.apimachinery import labels as well_known
from kexplain.apimachinery.stored_pods import OBJECTS
from kexplain.errors import InputError, Source
from kexplain.features import KubeVersion
from kexplain.model.nodeselector import NODE_NAME_FIELD
from kexplain.apimachinery.identity import generated_name, object_uid
from kexplain.controllers import controller_utils as cu
from kexplain.admission.pipeline import is_stored


def _count(raw: Any, default: int) -> int:
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0 else default


def replica_count(obj: dict[str, Any]) -> int:
    """How many pods of a workload run at once (spec.replicas; a Job's parallelism capped by completions;
    1 for a Pod and a DaemonSet, whose pods are counted per node)."""
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    kind = obj.get("kind")
    if kind == "CronJob":
        job = spec.get("jobTemplate") if isinstance(spec.get("jobTemplate"), dict) else {}
        spec, kind = (job.get("spec") if isinstance(job.get("spec"), dict) else {}), "Job"
    if kind == "Job":
        parallelism = _count(spec.get("parallelism"), 1)
        completions = spec.get("completions")
        return min(parallelism, _count(completions, parallelism)) if completions is not None else parallelism
    if kind in ("Pod", "DaemonSet"):
        return 1
    return _count(spec.get("replicas"), 1)


def _spec(obj: Any) -> dict[str, Any]:
    spec = obj.get("spec") if isinstance(obj, OBJECTS) else None
    return spec if isinstance(spec, dict) else {}


def idle_reason(obj: dict[str, Any]) -> str:
    """Why the workload's controller creates no pod now, in its terms ("" when it creates some): suspended,
    parallelism or completions 0, or 0 replicas (manageJob, manageReplicas)."""
    kind = obj.get("kind")
    spec = _spec(obj)
    if kind == "CronJob":
        if spec.get("suspend") is True:
            return "spec.suspend is true: the CronJob controller creates no Job (and no pod) until it is resumed"
        spec, prefix = _spec(spec.get("jobTemplate")), "spec.jobTemplate.spec"
    else:
        prefix = "spec"
    if kind in ("Job", "CronJob"):
        if spec.get("suspend") is True:
            return f"{prefix}.suspend is true: the Job controller creates no pod until the Job is resumed"
        for key in ("parallelism", "completions"):
            if spec.get(key) == 0 and not isinstance(spec.get(key), bool):
                return f"{prefix}.{key} is 0: the Job controller creates no pod"
        return ""
    if kind in ("Pod", "DaemonSet"):
        return ""
    replicas = spec.get("replicas")
    return f"spec.replicas is 0: the {kind} controller creates no pod" if replicas == 0 and not isinstance(replicas, bool) else ""


# The name the manifest gives the workload, or the API server's from its generateName ("": neither).
workload_name = generated_name


def copy_name(base: str, index: int) -> str:
    """Copy `index` of a pod named after `base`: `<base>-<index>` (no name: none)."""
    return f"{base}-{index}" if base else ""


def controller_labels(obj: dict[str, Any], template: dict[str, Any], kube: KubeVersion) -> dict[str, str]:
    """The labels a workload's controller adds to its pods (`pod-template-hash`, `controller-revision-hash`,
    `pod-template-generation`); an unreproduced template gets `fallback_hash`."""
    kind = obj.get("kind")
    if kind not in ("Deployment", "StatefulSet", "DaemonSet"):
        return {}
    try:
        if kind == "StatefulSet":
            value = cu.controller_revision_name(workload_name(obj), template, kube)
        else:
            value = cu.pod_template_hash(template, kube)
    except (cu.NotReproduced, TypeError, ValueError):
        value = cu.fallback_hash(template)
        value = f"{workload_name(obj)[:223]}-{value}" if kind == "StatefulSet" else value
    if kind == "Deployment":
        return {cu.POD_TEMPLATE_HASH_LABEL: value}
    if kind == "DaemonSet":
        return {cu.POD_TEMPLATE_GENERATION_LABEL: "1", cu.CONTROLLER_REVISION_HASH_LABEL: value}
    return {cu.CONTROLLER_REVISION_HASH_LABEL: value}


def pod_from_workload(obj: dict[str, Any], source: Source, index: int = 0,
                      kube: KubeVersion | None = None) -> dict[str, Any]:
    """Copy `index` of the workload's pods as its controller would create it (`Copies` names it;
    owner reference, a Job's labels, and with `kube` the labels `controller_labels` adds); not validated
    here: `workload_pod` does that first."""
    kind = obj["kind"]
    node: Any = obj
    walked = []
    for key in TEMPLATE_PATHS[kind]:
        walked.append(key)
        node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            raise InputError("workload has no pod template", source=source, obj=obj, field=".".join(walked))
    if kind == "Job":
        job = {**obj, "spec": copy.deepcopy(obj["spec"])}
        generate_job_selector(job)
        node = job["spec"]["template"]
    template = copy.deepcopy(node)
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    tmeta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
    name = workload_name(obj)
    # (labels or annotations not a map: the decoder's error, `kexplain.admission.decode`, says so)
    labels = tmeta.get("labels") if isinstance(tmeta.get("labels"), dict) else {}
    pod_meta: dict[str, Any] = {"name": copy_name(name, index), "labels": dict(labels)}
    if kube is not None:
        pod_meta["labels"].update(controller_labels(obj, node, kube))
    if meta.get("namespace"):
        pod_meta["namespace"] = meta["namespace"]
    if tmeta.get("annotations") and isinstance(tmeta["annotations"], dict):
        pod_meta["annotations"] = dict(tmeta["annotations"])
    if kind in ("ReplicaSet", "StatefulSet", "ReplicationController", "Job", "DaemonSet"):
        pod_meta["ownerReferences"] = [{
            "apiVersion": obj.get("apiVersion", ""), "kind": kind, "name": name,
            "uid": object_uid(obj), "controller": True}]
    spec = template.get("spec") if isinstance(template.get("spec"), dict) else {}
    if kind == "DaemonSet":
        add_daemon_tolerations(spec)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": spec}
    copies_of(obj, pod_meta["labels"]).apply(pod, index)
    return pod


def workload_pod(obj: dict[str, Any], source: Source, index: int = 0, *, stored: bool = False,
                 kube: KubeVersion | None = None) -> dict[str, Any]:
    """`pod_from_workload` after the API server's validation of the workload (AdmissionRejected);
    a stored workload is taken as valid."""
    pod = pod_from_workload(obj, source, index, kube)      # a workload without a pod template: said first
    if not stored and not is_stored(obj):
        check_workload(obj, source)
    return pod


# -- copies: names, and a StatefulSet's identity and claims -------------------------------------
STATEFULSET_POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


def _claim_templates(sts: dict[str, Any]) -> list[dict[str, Any]]:
    spec = sts.get("spec") if isinstance(sts.get("spec"), dict) else {}
    return [t for t in spec.get("volumeClaimTemplates") or () if isinstance(t, dict)]


def _template_name(template: dict[str, Any]) -> str:
    meta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
    return meta.get("name") if isinstance(meta.get("name"), str) else ""


def ordered_ready_why(waiting: str) -> str:
    """Why a StatefulSet's later ordinals do not exist (`waiting`: the pod name of the pending one):
    OrderedReady's controller creates an ordinal only once the one before is Running and Ready."""
    return (f"with podManagementPolicy OrderedReady (the default) the StatefulSet's controller "
            f"creates each pod only once the one before it is Running and Ready, and {waiting} is pending")


def _start_ordinal(sts: dict[str, Any]) -> int:
    spec = sts.get("spec") if isinstance(sts.get("spec"), dict) else {}
    ordinals = spec.get("ordinals") if isinstance(spec.get("ordinals"), dict) else {}
    start = ordinals.get("start")
    return start if isinstance(start, int) and not isinstance(start, bool) and start >= 0 else 0


# What stands for the scheduled time in the name of a CronJob's Job (`<cronjob>-<minutes since
# the epoch of the time its schedule fires>`): the time the schedule next fires after the set is
# applied, in the kube-controller-manager's time zone when the CronJob names none, which kexplain
# does not know (and its runs repeat). A word no scheduled time is, so that the name says it.
CRONJOB_JOB_PLACEHOLDER = "scheduled"


@dataclass(frozen=True)
class Copies:
    """How the copies of one pod are told apart, as their controller names them (getPodsPrefix,
    getJobName, names.SimpleNameGenerator, stateful_set_utils.go): the generated suffix derived from the
    prefix so a run repeats. The names per kind: docs/internals/controllers.md."""

    base: str
    statefulset: dict[str, Any] | None = field(default=None, compare=False)
    generate: str = ""      # the generateName its controller gives its pods ("": `<base>-<i>`)
    namespace: str = ""     # (of its pods: the generated names are derived from it)
    indexed: bool = False   # an Indexed Job's: `<generate><index>-` and the random characters
    skip: int = 0           # a StatefulSet's copy 0 is this many ordinals after its first (the lower ones exist)
    # each copy's own node selector labels (COPY_NODE_SELECTORS: the domain Kueue's topology ungater gives it)
    node_selectors: tuple[Any, ...] = field(default=(), compare=False)

    @classmethod
    def of_pod(cls, name: str) -> "Copies":
        return cls(name)

    def ordinal(self, index: int) -> int:
        return index + (_start_ordinal(self.statefulset) + self.skip if self.statefulset is not None else 0)

    @property
    def each_on_its_own(self) -> bool:
        """Whether a copy that does not fit leaves the next one to place: a StatefulSet whose controller
        creates every pod at once (Parallel) and whose copies differ (each its own claims)."""
        sts = self.statefulset
        if sts is None or not _claim_templates(sts):
            return False
        spec = sts.get("spec") if isinstance(sts.get("spec"), dict) else {}
        return spec.get("podManagementPolicy") == "Parallel"

    def name(self, index: int) -> str:
        i = self.ordinal(index)
        if not self.generate:
            return copy_name(self.base, i)
        prefix = self.generate
        if self.indexed:        # podGenerateNameWithIndex: the Job's name cut, its index kept
            append = f"-{i}-"
            prefix = self.base[:MAX_GENERATED_PREFIX - len(append)] + append
        pod = {"kind": "Pod", "metadata": {"namespace": self.namespace, "generateName": prefix}}
        return generated_name(pod, i)

    def claim_name(self, template: str, index: int) -> str:
        """getPersistentVolumeClaimName: `<template>-<set>-<ordinal>`."""
        return f"{template}-{self.base}-{self.ordinal(index)}"

    def apply(self, pod: dict[str, Any], index: int) -> dict[str, Any]:
        """Makes (in place) `pod`, a copy of this pod, copy `index`; returns it."""
        meta = pod.get("metadata") if isinstance(pod.get("metadata"), dict) else {}
        pod["metadata"] = meta
        meta["name"] = self.name(index)
        if index < len(self.node_selectors) and self.node_selectors[index]:
            spec = pod.setdefault("spec", {})
            spec["nodeSelector"] = {**(spec.get("nodeSelector") or {}), **self.node_selectors[index]}
        if self.statefulset is None:
            return pod
        name = meta["name"]
        if not isinstance(meta.get("labels"), dict):
            meta["labels"] = {}
        meta["labels"][STATEFULSET_POD_NAME_LABEL] = name
        meta["labels"][POD_INDEX_LABEL] = str(self.ordinal(index))
        spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
        pod["spec"] = spec
        spec["hostname"] = name
        sts_spec = self.statefulset.get("spec") if isinstance(self.statefulset.get("spec"), dict) else {}
        if isinstance(sts_spec.get("serviceName"), str) and sts_spec["serviceName"]:
            spec["subdomain"] = sts_spec["serviceName"]
        templates = [_template_name(t) for t in _claim_templates(self.statefulset)]
        if templates:
            claims = [{"name": t, "persistentVolumeClaim": {"claimName": self.claim_name(t, index)}}
                      for t in templates]
            others = [v for v in spec.get("volumes") or ()
                      if not (isinstance(v, dict) and v.get("name") in set(templates))]
            spec["volumes"] = claims + others
        return pod


MAX_GENERATED_PREFIX = 58      # names.SimpleNameGenerator: maxNameLength 63 less the 5 random characters
# kexplain's own annotation on a workload (a Job Kueue started by TAS, `kexplain.kueue.started`): each
# copy's node selector labels by copy index, as Kueue's topology ungater pins each pod to its domain
# (`encode_copy_node_selectors`; never on a pod)
COPY_NODE_SELECTORS = "kexplain.dev/copy-node-selectors"


def copies_of(obj: dict[str, Any], labels: dict[str, Any] | None = None) -> Copies:
    """How the copies of a Pod or a workload's pods are named (see `Copies`); `labels`: its pods'
    (a Deployment's `pod-template-hash` names its ReplicaSet)."""
    kind = obj.get("kind")
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    if kind == "Pod":
        return Copies.of_pod(meta.get("name") if isinstance(meta.get("name"), str) else "")
    name = workload_name(obj)
    if kind == "StatefulSet":
        return Copies(name, obj)
    if not name:
        return Copies(name)
    owner = name
    template_hash = (labels or {}).get("pod-template-hash")
    if kind == "Deployment" and isinstance(template_hash, str) and template_hash:
        owner = f"{name}-{template_hash}"       # its ReplicaSet
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    if kind == "CronJob":       # its Job's pods
        owner = f"{name}-{CRONJOB_JOB_PLACEHOLDER}"
        job = spec.get("jobTemplate") if isinstance(spec.get("jobTemplate"), dict) else {}
        spec = job.get("spec") if isinstance(job.get("spec"), dict) else {}
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else ""
    return Copies(owner if kind == "CronJob" else name, None, f"{owner}-"[:MAX_GENERATED_PREFIX],
                  namespace or "default", indexed=kind in ("Job", "CronJob") and spec.get("completionMode") == "Indexed",
                  node_selectors=copy_node_selectors(meta))


def copy_node_selectors(meta: dict[str, Any]) -> tuple[dict[str, str], ...]:
    """The per-copy node selector labels a workload carries (COPY_NODE_SELECTORS, `encode_copy_node_selectors`),
    () when none or not as written there."""
    notes = meta.get("annotations") if isinstance(meta.get("annotations"), dict) else {}
    text = notes.get(COPY_NODE_SELECTORS)
    if not isinstance(text, str):
        return ()
    try:
        value = json.loads(text)
        selectors = [dict(zip(value["levels"], values)) for values in value["domains"]]
        return tuple(selectors[at] if at >= 0 else {} for at, run in value["runs"] for _ in range(run))
    except (ValueError, KeyError, TypeError, IndexError):
        return ()


def encode_copy_node_selectors(per_copy: list[dict[str, str]]) -> str:
    """COPY_NODE_SELECTORS' value: the label keys, the distinct domains' values and, in copy order, runs
    of (domain index, count) (-1: no selector), so that a pod set of thousands stays small."""
    levels = list(dict.fromkeys(k for sel in per_copy for k in sel))
    domains: dict[tuple[str, ...], int] = {}
    runs: list[list[int]] = []
    for sel in per_copy:
        values = tuple(sel.get(k, "") for k in levels)
        at = -1 if not sel else domains.setdefault(values, len(domains))
        if runs and runs[-1][0] == at:
            runs[-1][1] += 1
        else:
            runs.append([at, 1])
    return json.dumps({"levels": levels, "domains": [list(v) for v in domains], "runs": runs}, separators=(",", ":"))


def statefulset_claims(sts: dict[str, Any], copies: int, skip: int = 0) -> list[dict[str, Any]]:
    """The claims the StatefulSet controller creates for `copies` pods (getPersistentVolumeClaims), its
    first's or from the ordinal `skip` places after its first, `<template>-<set>-<ordinal>`, admitted
    as any new claim."""
    templates = _claim_templates(sts)
    if not templates or sts.get("kind") != "StatefulSet":
        return []
    naming = replace(copies_of(sts), skip=skip)
    meta = sts.get("metadata") if isinstance(sts.get("metadata"), dict) else {}
    spec = sts.get("spec") if isinstance(sts.get("spec"), dict) else {}
    selector = spec.get("selector") if isinstance(spec.get("selector"), dict) else {}
    selector_labels = selector.get("matchLabels") if isinstance(selector.get("matchLabels"), dict) else {}
    out: list[dict[str, Any]] = []
    for index in range(copies):
        for template in templates:
            tmeta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
            claim_meta: dict[str, Any] = {"name": naming.claim_name(_template_name(template), index),
                                          "namespace": meta.get("namespace") or "default"}
            labels = {**(tmeta.get("labels") if isinstance(tmeta.get("labels"), dict) else {}), **selector_labels}
            if labels:
                claim_meta["labels"] = labels
            for key in ("annotations", "finalizers"):
                if tmeta.get(key):
                    claim_meta[key] = copy.deepcopy(tmeta[key])
            claim: dict[str, Any] = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": claim_meta}
            if "spec" in template:
                claim["spec"] = copy.deepcopy(template["spec"])
            out.append(claim)
    return out


# -- DaemonSet pods ---------------------------------------------------------------------------
# (key, effect) of the tolerations (operator Exists, no tolerationSeconds) the DaemonSet
# controller adds to its pod template: its pods stay on nodes that are not ready or unreachable,
# and are placed on nodes under disk, memory or PID pressure and on cordoned nodes.
DAEMON_TOLERATIONS: tuple[tuple[str, str], ...] = (
    (well_known.TAINT_NODE_NOT_READY, "NoExecute"),
    (well_known.TAINT_NODE_UNREACHABLE, "NoExecute"),
    (well_known.TAINT_NODE_DISK_PRESSURE, "NoSchedule"),
    (well_known.TAINT_NODE_MEMORY_PRESSURE, "NoSchedule"),
    (well_known.TAINT_NODE_PID_PRESSURE, "NoSchedule"),
    (well_known.TAINT_NODE_UNSCHEDULABLE, "NoSchedule"),
)
# Added only for pods on the host network.
HOST_NETWORK_TOLERATION = (well_known.TAINT_NODE_NETWORK_UNAVAILABLE, "NoSchedule")


def _toleration_key(t: dict[str, Any]) -> tuple[str, str, str, str]:
    return (t.get("key") or "", t.get("operator") or "", t.get("value") or "", t.get("effect") or "")


def _add_or_update_toleration(tolerations: list[Any], toleration: dict[str, Any]) -> list[Any]:
    """AddOrUpdateTolerationInPodSpec: an entry with the same key, operator, value and effect is replaced,
    otherwise the toleration is appended."""
    wanted = _toleration_key(toleration)
    out: list[Any] = []
    updated = False
    for t in tolerations:
        if isinstance(t, dict) and _toleration_key(t) == wanted:
            if t.get("tolerationSeconds") is None and toleration.get("tolerationSeconds") is None:
                return tolerations
            out.append(dict(toleration))
            updated = True
        else:
            out.append(t)
    if not updated:
        out.append(dict(toleration))
    return out


def add_daemon_tolerations(spec: dict[str, Any]) -> dict[str, Any]:
    """Adds (in place) the tolerations the DaemonSet controller gives its pods; returns `spec`."""
    raw = spec.get("tolerations")
    tolerations = list(raw) if isinstance(raw, list) else []
    wanted = list(DAEMON_TOLERATIONS)
    if spec.get("hostNetwork") is True:
        wanted.append(HOST_NETWORK_TOLERATION)
    for key, effect in wanted:
        tolerations = _add_or_update_toleration(tolerations, {"key": key, "operator": "Exists", "effect": effect})
    spec["tolerations"] = tolerations
    return spec


def pin_to_node(spec: dict[str, Any], node_name: str) -> dict[str, Any]:
    """Pins a DaemonSet pod to `node_name` in place, as its controller does: the required node affinity
    becomes `metadata.name In [node_name]`, the rest kept. Returns `spec`."""
    term = {"matchFields": [{"key": NODE_NAME_FIELD, "operator": "In", "values": [node_name]}]}
    affinity = spec.get("affinity")
    if not isinstance(affinity, dict):
        affinity = spec["affinity"] = {}
    node_affinity = affinity.get("nodeAffinity")
    if not isinstance(node_affinity, dict):
        node_affinity = affinity["nodeAffinity"] = {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, dict):
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
    else:
        required["nodeSelectorTerms"] = [term]
    return spec

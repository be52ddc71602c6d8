"""What Kueue's chain and its started objects both read of a set of objects: the kinds Kueue
reads and manages, and the few accessors over unstructured objects (below `chain` and
`started`, which import them from here)."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from kexplain.apimachinery import columns
from kexplain.kueue.apis import constants as c

Objects = Sequence[tuple[Any, Any]]
# What Kueue's pass reads of the cluster: its own kinds, and what pod admission reads
# (`kexplain.kueue.inputs.ADMISSION_CONTEXT`)
READ_KINDS = c.KINDS | frozenset({"Namespace", "PriorityClass", "LimitRange", "RuntimeClass", "Configuration",
                                 "ConfigMap",     # (of them Kueue's manager ConfigMap: its Configuration)
                                 "ClusterTrainingRuntime", "TrainingRuntime",     # (what a TrainJob's pod sets are of)
                                 "ResourceClaimTemplate"})      # (what DRA counts of a pod set's claims)
TAS_KINDS = frozenset({"Node", "Pod"})     # what TAS reads of the cluster besides Kueue's objects
MANAGER_CONFIG_MAP = "kueue-manager-config"     # (`kexplain.kueue.config_file`)
# The kinds Kueue's integrations manage and their API groups: the registry's
# (`kexplain.kueue.controller.jobs.INTEGRATIONS`; a test keeps the two in step), which is
# imported only when Kueue's objects are there
MANAGED_KINDS = {"Job": "batch", "Pod": "", "JobSet": "jobset.x-k8s.io", "StatefulSet": "apps",
                 "RayJob": "ray.io", "RayCluster": "ray.io", "RayService": "ray.io", "LeaderWorkerSet": "leaderworkerset.x-k8s.io",
                 "AppWrapper": "workload.codeflare.dev", "TrainJob": "trainer.kubeflow.org",
                 **{k: "kubeflow.org" for k in ("PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob", "MPIJob")}}
# The kinds whose controller makes what Kueue manages (`makes_managed`,
# `kexplain.kueue.controller.jobs.parents`): a CronJob its Jobs, a Deployment its pods
PARENT_KINDS = {"CronJob": "batch", "Deployment": "apps", "StatefulSet": "apps"}
LEADER_WORKER_SET = "LeaderWorkerSet"       # Kueue meets it as its group replicas, a Workload each
ADMITTED = "Admitted"
QUOTA_RESERVED = "QuotaReserved"     # quota reserved, its admission checks not all Ready: still held


def kind_of(obj: Any) -> str:
    kind = obj.get("kind") if isinstance(obj, Mapping) else None
    return kind if isinstance(kind, str) else ""


def meta_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def object_key(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    """(kind, namespace, name) of an object of the POD file, as its entry names it."""
    meta = meta_of(obj)
    return kind_of(obj), str(meta.get("namespace") or "default"), str(meta.get("name") or "")


def is_kueue(obj: Any) -> bool:
    api = obj.get("apiVersion") if isinstance(obj, Mapping) else None
    return isinstance(api, str) and api.split("/", 1)[0] == c.GROUP and kind_of(obj) in c.KINDS


def _group(obj: Mapping[str, Any]) -> str:
    api = str(obj.get("apiVersion") or "")
    return api.rsplit("/", 1)[0] if "/" in api else ""


def makes_managed(obj: Any) -> bool:
    """A CronJob whose Jobs carry the queue-name label, or a Deployment or StatefulSet with it,
    whose controller makes at least one: Kueue manages what it makes."""
    kind = kind_of(obj)
    if kind == LEADER_WORKER_SET and isinstance(obj, Mapping) and _group(obj) == MANAGED_KINDS[kind]:
        return bool((meta_of(obj).get("labels") or {}).get(c.QUEUE_NAME_LABEL))    # (met as its group replicas)
    if not isinstance(obj, Mapping) or PARENT_KINDS.get(kind) != _group(obj) or kind not in PARENT_KINDS:
        return False
    spec = obj.get("spec") if isinstance(obj.get("spec"), Mapping) else {}
    if kind == "CronJob":
        template = spec.get("jobTemplate") if isinstance(spec.get("jobTemplate"), Mapping) else {}
        labels = meta_of(template).get("labels")
        return (isinstance(labels, Mapping) and bool(labels.get(c.QUEUE_NAME_LABEL))
                and spec.get("suspend") is not True)
    labels = meta_of(obj).get("labels")
    replicas = spec.get("replicas", 1)
    return isinstance(labels, Mapping) and bool(labels.get(c.QUEUE_NAME_LABEL)) and replicas != 0


def integration_kind(obj: Any) -> bool:
    """An object of a kind (and group) Kueue's integrations manage, whatever its labels: what Kueue
    manages without a queue name under `manageJobsWithoutQueueName` (the reconciler decides)."""
    if not isinstance(obj, dict) or kind_of(obj) not in MANAGED_KINDS or kind_of(obj) in PARENT_KINDS:
        return False
    api = str(obj.get("apiVersion") or "")
    return (api.rsplit("/", 1)[0] if "/" in api else "") == MANAGED_KINDS[kind_of(obj)]


def managed(obj: Any) -> bool:
    """A Job, Pod or JobSet Kueue manages (its integration's kind and group, and the queue-name
    label), or an object whose controller makes one (`makes_managed`)."""
    kind = kind_of(obj)
    if kind in PARENT_KINDS:
        return makes_managed(obj)
    if not isinstance(obj, dict) or kind not in MANAGED_KINDS:
        return False
    api = str(obj.get("apiVersion") or "")
    labels = meta_of(obj).get("labels")
    return ((api.rsplit("/", 1)[0] if "/" in api else "") == MANAGED_KINDS[kind]
            and isinstance(labels, Mapping) and bool(labels.get(c.QUEUE_NAME_LABEL)))


def candidates(objs: Objects) -> tuple[list[int], list[int]]:
    """The indexes of the objects Kueue manages by their queue-name label (`managed`), and of those of
    its integrations' kinds without one (Kueue's too under `manageJobsWithoutQueueName`)."""
    labelled = [i for i, (o, _) in enumerate(objs) if managed(o)]
    taken = set(labelled)
    return labelled, [i for i, (o, _) in enumerate(objs) if i not in taken and integration_kind(o)]


def of_kinds(objects: Iterable[tuple[Any, Any]], kinds: frozenset[str]) -> Objects:
    """The objects of `kinds` (a dump's asked of its rows: its pods are never looked at); of the
    ConfigMaps, only Kueue's manager ConfigMap (`MANAGER_CONFIG_MAP`)."""
    rows = columns.rows_of(objects)
    if rows is not None:
        found = [pair for kind in sorted(kinds)
                 for pair in columns.of_kind(objects, rows, kind)]  # type: ignore[arg-type]
    else:
        found = [(o, s) for o, s in objects if isinstance(o, dict) and kind_of(o) in kinds]
    return [(o, s) for o, s in found if kind_of(o) != "ConfigMap" or meta_of(o).get("name") == MANAGER_CONFIG_MAP]


def holds_kinds(objects: Iterable[tuple[Any, Any]], kinds: frozenset[str]) -> bool:
    """Whether one of `objects` is of `kinds` (a dump's answered by its rows' kinds, indexed once:
    no pass over its objects)."""
    rows = columns.rows_of(objects)
    if rows is not None:
        return columns.holds(rows, kinds)
    return any(kind_of(o) in kinds for o, _ in objects)


def with_tas(context: list[Any], cluster: Objects) -> list[Any]:
    """`context` with the cluster's Nodes and pods when a Topology is among it: TAS places on the
    Nodes and counts the pods bound to them (a run without TAS never reads them). The chain and lint
    both read them so: one answer for a job Kueue places by topology."""
    if not any(kind_of(o) == c.TOPOLOGY and is_kueue(o) for o, _ in context):
        return context
    return [*context, *of_kinds(cluster, TAS_KINDS)]


def checks_words(checks: Any) -> str:
    """A Workload's admission checks as its answer says them ("capacity Pending (Capacity is not
    found, ...)"): one wording for the text, the page and lint."""
    return ", ".join(f"{c.get('name')} {c.get('state')}" + (f" ({c['message']})" if c.get("message") else "")
                     for c in checks or ())

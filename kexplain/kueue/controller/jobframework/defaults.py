"""ApplyDefaultLocalQueue (jobframework/defaults.go): the mutating webhook of every integration but
the plain Pod's labels a job created without a queue name `kueue.x-k8s.io/queue-name: default` when
its namespace has a LocalQueue named `default` (the LocalQueueDefaulting gate: locked on in v0.17,
always on since), unless the job's controller is a kind Kueue manages (its owner's Workload holds it).
Applied to the jobs as submitted, before the job reconciler decides whether Kueue manages them."""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from kexplain.kueue.apis.constants import GROUP, QUEUE_NAME_LABEL
from kexplain.kueue.objects import MANAGED_KINDS, PARENT_KINDS, kind_of, meta_of

DEFAULT_LOCAL_QUEUE = "default"         # constants.DefaultLocalQueueName
# The kinds whose webhook defaults the queue name: every integration's but the Pod's (its webhook
# does not), and a Deployment's (its own webhook)
DEFAULTED_KINDS = {**{k: g for k, g in MANAGED_KINDS.items() if k != "Pod"}, "Deployment": PARENT_KINDS["Deployment"]}


def _group(obj: Mapping[str, Any]) -> str:
    api = str(obj.get("apiVersion") or "")
    return api.rsplit("/", 1)[0] if "/" in api else ""


def default_queue_namespaces(objects: Iterable[tuple[Any, Any]]) -> frozenset[str]:
    """The namespaces with a LocalQueue named `default` among `objects` (DefaultLocalQueueExist)."""
    return frozenset(str(meta_of(o).get("namespace") or "default") for o, _ in objects
                     if isinstance(o, Mapping) and kind_of(o) == "LocalQueue" and _group(o) == GROUP
                     and meta_of(o).get("name") == DEFAULT_LOCAL_QUEUE)


def _owner_managed(meta: Mapping[str, Any]) -> bool:
    """IsOwnerManagedByKueueForObject: the controller owner is of a kind Kueue's integrations manage."""
    for ref in meta.get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            group = str(ref.get("apiVersion") or "").rpartition("/")[0]
            return MANAGED_KINDS.get(str(ref.get("kind") or "")) == group
    return False


def apply_default_local_queue(obj: Any, namespaces: frozenset[str]) -> Any:
    """`obj` as the webhook leaves it: labelled with the `default` LocalQueue when it is a defaulted
    kind without a queue name in one of `namespaces` (a copy; `obj` itself otherwise)."""
    if not namespaces or not isinstance(obj, dict) or DEFAULTED_KINDS.get(kind_of(obj)) != _group(obj):
        return obj
    meta = meta_of(obj)
    labels = meta.get("labels") if isinstance(meta.get("labels"), Mapping) else {}
    if str(meta.get("namespace") or "default") not in namespaces or labels.get(QUEUE_NAME_LABEL) \
            or _owner_managed(meta):
        return obj
    return {**obj, "metadata": {**meta, "labels": {**labels, QUEUE_NAME_LABEL: DEFAULT_LOCAL_QUEUE}}}
